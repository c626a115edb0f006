// The Ethos-U INT8 sample (ethos_u_sample.h): parameters, the hand-encoded U55-128 command stream, and
// the program around it.
//
// The registers follow what Vela 3.10 writes for single-operator models (the disassembly of
// ../shared/conformance/ethos-u/tflite/vela-u55-128/test_{conv2d,depthwise_conv2d,averagepooling2d,
// fullconnected}_int8_vela.tflite): IFM, OFM, kernel, weights, scales, activation, OFM block,
// IB_END/AB_START, ACC_FORMAT, [OFM_SCALE], BLOCKDEP, then the operation; unused tiles (bases 1-3) at 0,
// tile heights and width covering the whole map. Unlike Vela, every register is written before every
// operation, changed or not.
#include "ethos_u_sample.h"

#include <cmath>
#include <random>
#include <span>

#include "ethosu/format/driver_payload_writer.h"
#include "ethosu/format/vela_bin_stream_writer.h"
#include "ethosu/format/weight_encoder.h"
#include "ethosu/virtual/npu_registers.h"
#include "vkrt/pte_writer.h"

namespace vkrt::samples {
namespace {

using ethosu::virtual_npu::ChannelScale;
using ethosu::virtual_npu::Cmd0;
using ethosu::virtual_npu::Cmd1;
using ethosu::virtual_npu::WeightStreamLayout;

constexpr int32_t kSize = kEthosUSampleSize, kIn = kEthosUSampleInChannels, kCh = kEthosUSampleChannels,
                  kClasses = kEthosUSampleClasses;

// TFLite's QuantizeMultiplier: m = multiplier · 2^(shift − 31), multiplier in [2^30, 2^31).
void quantize_multiplier(double m, int32_t& multiplier, int32_t& shift) {
  int exponent = 0;
  const double q = std::frexp(m, &exponent);
  int64_t q_fixed = std::llround(q * double(int64_t{1} << 31));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++exponent;
  }
  multiplier = int32_t(q_fixed);
  shift = exponent;
}

// The float scales the requantization comes from (a network of this size trained and quantized by
// TFLite would have scales of these magnitudes).
constexpr double kInScale = 0.05, kConvScale = 0.1, kDwScale = 0.1;

// One feature map in the scratch region, NHWC.
struct FeatureMap {
  int32_t offset, height, width, depth, zero_point;
};

// A U55 command stream, one register write at a time.
class StreamWriter {
 public:
  void set(Cmd0 r, int32_t value) { words_.push_back(ethosu::cmd0(uint32_t(r), uint32_t(uint16_t(value)))); }
  void set(Cmd1 r, uint32_t payload, uint32_t param = 0) {
    ethosu::append_cmd1(words_, uint32_t(r), param, payload);
  }
  void op(Cmd0 o, uint32_t param = 0) { words_.push_back(ethosu::cmd0(uint32_t(o), param)); }

  // IFM registers for a map read whole (one tile), 8-bit signed, with the given padding.
  void ifm(const FeatureMap& m, int32_t zero_point, int32_t pad) {
    set(Cmd0::IfmRegion, 1);
    set(Cmd1::IfmBase0, uint32_t(m.offset));
    set(Cmd1::IfmBase1, 0);
    set(Cmd1::IfmBase2, 0);
    set(Cmd1::IfmBase3, 0);
    set(Cmd0::IfmHeight0M1, m.height - 1);
    set(Cmd0::IfmHeight1M1, m.height - 1);
    set(Cmd0::IfmWidth0M1, m.width - 1);
    set(Cmd0::IfmDepthM1, m.depth - 1);
    set(Cmd1::IfmStrideC, 1);
    set(Cmd1::IfmStrideY, uint32_t(m.width * m.depth));
    set(Cmd1::IfmStrideX, uint32_t(m.depth));
    set(Cmd0::IfmZeroPoint, zero_point);
    set(Cmd0::IfmPrecision, 1);  // int8, NHWC
    set(Cmd0::IfmUpscale, 0);
    set(Cmd0::IfmPadTop, pad);
    set(Cmd0::IfmPadLeft, pad);
    set(Cmd0::IfmPadBottom, pad);
    set(Cmd0::IfmPadRight, pad);
  }
  // OFM registers, 8-bit signed; `global_scale`: OFM_SCALE instead of the per-channel records.
  void ofm(const FeatureMap& m, int32_t zero_point, bool global_scale) {
    set(Cmd0::OfmRegion, 1);
    set(Cmd1::OfmBase0, uint32_t(m.offset));
    set(Cmd1::OfmBase1, 0);
    set(Cmd1::OfmBase2, 0);
    set(Cmd1::OfmBase3, 0);
    set(Cmd0::OfmHeight0M1, m.height - 1);
    set(Cmd0::OfmHeight1M1, m.height - 1);
    set(Cmd0::OfmWidth0M1, m.width - 1);
    set(Cmd0::OfmHeightM1, m.height - 1);
    set(Cmd0::OfmWidthM1, m.width - 1);
    set(Cmd0::OfmDepthM1, m.depth - 1);
    set(Cmd1::OfmStrideC, 1);
    set(Cmd1::OfmStrideY, uint32_t(m.width * m.depth));
    set(Cmd1::OfmStrideX, uint32_t(m.depth));
    set(Cmd0::OfmZeroPoint, zero_point);
    set(Cmd0::OfmPrecision, global_scale ? 0x101 : 1);  // int8, NHWC, TFL rounding
  }
  // KERNEL_STRIDE: stride 1, no dilation; bit 2 part-kernel-first weight order.
  void kernel(int32_t height, int32_t width, bool part_kernel_first) {
    set(Cmd0::KernelHeightM1, height - 1);
    set(Cmd0::KernelWidthM1, width - 1);
    set(Cmd0::KernelStride, part_kernel_first ? 4 : 0);
  }
  // Weight and scale streams in region 0.
  void streams(uint32_t weight_base, uint32_t weight_length, uint32_t scale_base, uint32_t scale_length) {
    set(Cmd0::WeightRegion, 0);
    set(Cmd1::WeightBase, weight_base);
    set(Cmd1::WeightLength, weight_length);
    set(Cmd0::ScaleRegion, 0);
    set(Cmd1::ScaleBase, scale_base);
    set(Cmd1::ScaleLength, scale_length);
  }
  // Activation clamp, OFM block, SHRAM split and accumulator format.
  void block(int32_t activation_min, int32_t block_height, int32_t block_width, int32_t block_depth) {
    set(Cmd0::Activation, 0);
    set(Cmd0::ActivationMin, activation_min);
    set(Cmd0::ActivationMax, 127);
    set(Cmd0::OfmBlkHeightM1, block_height - 1);
    set(Cmd0::OfmBlkWidthM1, block_width - 1);
    set(Cmd0::OfmBlkDepthM1, block_depth - 1);
    set(Cmd0::IfmIbEnd, 6);
    set(Cmd0::AbStart, 14);
    set(Cmd0::AccFormat, 0);  // 32-bit accumulators
  }

  std::vector<uint32_t> take() { return std::move(words_); }

 private:
  std::vector<uint32_t> words_;
};

// The scale/bias records of a layer: (multiplier, 31 − shift) is the NPU's (scale, shift).
Result<std::vector<uint8_t>> scale_stream(const std::vector<int32_t>& bias, const std::vector<int32_t>& multipliers,
                                          const std::vector<int32_t>& shifts) {
  std::vector<ChannelScale> records;
  for (size_t c = 0; c < bias.size(); ++c) {
    VKRT_CHECK_OR_RETURN(shifts[c] <= 31 && shifts[c] >= -32, InvalidArgument, "channel ", c, " shift ", shifts[c],
                         " has no NPU scale record");
    records.push_back({bias[c], uint32_t(multipliers[c]), uint8_t(31 - shifts[c])});
  }
  return ethosu::encode_scale_stream(records);
}

WeightStreamLayout u55_128_layout(int32_t ofm, int32_t ifm, int32_t kernel, bool depthwise, bool part_kernel_first,
                                  int32_t block_depth) {
  WeightStreamLayout l;
  l.product = ethosu::NpuProduct::U55;
  l.macs = 128;
  l.ofm_depth = ofm;
  l.ifm_depth = ifm;
  l.kernel_height = l.kernel_width = kernel;
  l.depthwise = depthwise;
  l.part_kernel_first = part_kernel_first;
  l.ifm_bits = 8;
  l.ofm_block_depth = block_depth;
  return l;
}

// Appends `bytes` to region 0, 16-byte aligned; returns (base, length).
std::pair<uint32_t, uint32_t> place(std::vector<uint8_t>& region0, const std::vector<uint8_t>& bytes) {
  while (region0.size() % 16) region0.push_back(0);
  const uint32_t base = uint32_t(region0.size());
  region0.insert(region0.end(), bytes.begin(), bytes.end());
  return {base, uint32_t(bytes.size())};
}

}  // namespace

EthosUSampleParameters ethos_u_sample_parameters(uint32_t seed) {
  EthosUSampleParameters p;
  std::mt19937 rng(seed);  // the engine's sequence is fixed by the standard; no distributions
  auto weight = [&] { return int8_t(int(rng() % 255) - 127); };
  auto uniform = [&](int lo, int hi) { return int32_t(lo + int(rng() % uint32_t(hi - lo + 1))); };

  p.conv_weights.resize(size_t(kCh) * 3 * 3 * kIn);
  for (int8_t& w : p.conv_weights) w = weight();
  for (int c = 0; c < kCh; ++c) {
    const double weight_scale = 0.0012 * (1.0 + 0.25 * (c % 4));
    int32_t m, s;
    quantize_multiplier(kInScale * weight_scale / kConvScale, m, s);
    p.conv_multipliers.push_back(m);
    p.conv_shifts.push_back(s);
    p.conv_bias.push_back(uniform(-3000, 3000));
  }
  p.dw_weights.resize(size_t(3) * 3 * kCh);
  for (int8_t& w : p.dw_weights) w = weight();
  for (int c = 0; c < kCh; ++c) {
    const double weight_scale = 0.005 * (1.0 + 0.1 * (c % 5));
    int32_t m, s;
    quantize_multiplier(kConvScale * weight_scale / kDwScale, m, s);
    p.dw_multipliers.push_back(m);
    p.dw_shifts.push_back(s);
    p.dw_bias.push_back(uniform(-2000, 2000));
  }
  p.fc_weights.resize(size_t(kClasses) * kCh);
  for (int8_t& w : p.fc_weights) w = weight();
  for (int c = 0; c < kClasses; ++c) p.fc_bias.push_back(uniform(-1500, 1500));
  quantize_multiplier(kDwScale * 0.0085 / 0.1, p.fc_multiplier, p.fc_shift);
  return p;
}

Result<std::vector<uint8_t>> ethos_u_sample_payload(const EthosUSampleParameters& p) {
  using S = EthosUSampleScratch;
  VKRT_CHECK_OR_RETURN(p.conv_weights.size() == size_t(kCh) * 9 * kIn && p.conv_bias.size() == size_t(kCh) &&
                           p.conv_multipliers.size() == size_t(kCh) && p.conv_shifts.size() == size_t(kCh) &&
                           p.dw_weights.size() == size_t(kCh) * 9 && p.dw_bias.size() == size_t(kCh) &&
                           p.dw_multipliers.size() == size_t(kCh) && p.dw_shifts.size() == size_t(kCh) &&
                           p.fc_weights.size() == size_t(kClasses) * kCh && p.fc_bias.size() == size_t(kClasses),
                       InvalidArgument, "Ethos-U sample: parameter arrays of the wrong size");
  const FeatureMap input{S::kInput, kSize, kSize, kIn, p.in_zero_point};
  const FeatureMap conv{S::kConv, kSize, kSize, kCh, p.conv_zero_point};
  const FeatureMap dw{S::kDepthwise, kSize, kSize, kCh, p.dw_zero_point};
  const FeatureMap pool{S::kPool, 1, 1, kCh, p.dw_zero_point};
  const FeatureMap out{S::kOutput, 1, 1, kClasses, p.out_zero_point};

  // Region 0: per layer its scale records, then its weight stream. The block depths here are the ones
  // the operations' OFM_BLK_DEPTH_M1 says (the weight order depends on them).
  constexpr int32_t kConvBlockDepth = 8, kDwBlockDepth = 16, kFcBlockDepth = 16;
  std::vector<uint8_t> region0;
  const std::vector<int16_t> conv_w(p.conv_weights.begin(), p.conv_weights.end());  // OHWI = [ofm][ky][kx][ifm]
  // Vela's choice for an 8-deep IFM under a 3x3 kernel: part-kernel-first (9 of 12 padded elements used,
  // against 8 of 32 channels depth-first).
  VKRT_ASSIGN_OR_RETURN(
      std::vector<uint8_t> conv_ws,
      ethosu::encode_weight_stream(conv_w, u55_128_layout(kCh, kIn, 3, false, true, kConvBlockDepth)));
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> conv_ss, scale_stream(p.conv_bias, p.conv_multipliers, p.conv_shifts));
  std::vector<int16_t> dw_w(size_t(kCh) * 9);  // [ofm][ky][kx][1] from [1][ky][kx][ch]
  for (int c = 0; c < kCh; ++c)
    for (int k = 0; k < 9; ++k) dw_w[size_t(c) * 9 + size_t(k)] = p.dw_weights[size_t(k) * kCh + size_t(c)];
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> dw_ws,
                        ethosu::encode_weight_stream(dw_w, u55_128_layout(kCh, 1, 3, true, false, kDwBlockDepth)));
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> dw_ss, scale_stream(p.dw_bias, p.dw_multipliers, p.dw_shifts));
  const std::vector<int16_t> fc_w(p.fc_weights.begin(), p.fc_weights.end());  // [ofm][1][1][ifm]
  VKRT_ASSIGN_OR_RETURN(
      std::vector<uint8_t> fc_ws,
      ethosu::encode_weight_stream(fc_w, u55_128_layout(kClasses, kCh, 1, false, false, kFcBlockDepth)));
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> fc_ss,
                        scale_stream(p.fc_bias, std::vector<int32_t>(size_t(kClasses), p.fc_multiplier),
                                     std::vector<int32_t>(size_t(kClasses), p.fc_shift)));
  const auto [conv_sb, conv_sl] = place(region0, conv_ss);
  const auto [conv_wb, conv_wl] = place(region0, conv_ws);
  const auto [dw_sb, dw_sl] = place(region0, dw_ss);
  const auto [dw_wb, dw_wl] = place(region0, dw_ws);
  const auto [fc_sb, fc_sl] = place(region0, fc_ss);
  const auto [fc_wb, fc_wl] = place(region0, fc_ws);

  StreamWriter s;
  // 1. CONV 3x3 pad 1, 8 -> 16, ReLU: the clamp's lower bound is the OFM zero point.
  s.ifm(input, p.in_zero_point, 1);
  s.ofm(conv, p.conv_zero_point, false);
  s.kernel(3, 3, true);
  s.streams(conv_wb, conv_wl, conv_sb, conv_sl);
  s.block(p.conv_zero_point, 8, 8, kConvBlockDepth);
  s.set(Cmd0::BlockDep, 0);
  s.op(Cmd0::OpConv);
  // 2. DEPTHWISE 3x3 pad 1, ReLU.
  s.ifm(conv, p.conv_zero_point, 1);
  s.ofm(dw, p.dw_zero_point, false);
  s.kernel(3, 3, false);
  s.streams(dw_wb, dw_wl, dw_sb, dw_sl);
  s.block(p.dw_zero_point, 8, 8, kDwBlockDepth);
  s.set(Cmd0::BlockDep, 0);
  s.op(Cmd0::OpDepthwise);
  // 3. POOL average 8x8. Input and output share their quantization, so, as Vela does for such an
  // average pool (use_zero_point_0), both zero points are written as 0: the NPU then averages the raw
  // values, which is TFLite's (and CMSIS-NN's) average; with the zero point subtracted and added back
  // the half-way cases would round differently. OFM_SCALE divides by 64 as Vela's
  // quantise_pooling_scale(64) does: scale (2^37 + 64) / 64 = 2^31 + 1, shift 37.
  s.ifm(dw, 0, 0);
  s.ofm(pool, 0, true);
  s.kernel(kSize, kSize, false);
  s.block(-128, 2, 2, 16);
  s.set(Cmd1::OfmScale, 0x80000001u, 37);
  s.set(Cmd0::BlockDep, 0);
  s.op(Cmd0::OpPool, 1);  // average
  // 4. CONV 1x1 16 -> 10: the fully connected layer, no activation.
  s.ifm(pool, p.dw_zero_point, 0);
  s.ofm(out, p.out_zero_point, false);
  s.kernel(1, 1, false);
  s.streams(fc_wb, fc_wl, fc_sb, fc_sl);
  s.block(-128, 1, 2, kFcBlockDepth);
  s.set(Cmd0::BlockDep, 0);
  s.op(Cmd0::OpConv);
  s.op(Cmd0::OpStop, 0xFFFF);
  const std::vector<uint32_t> words = s.take();

  ethosu::VelaBinStreamContents contents;
  contents.cmd_data = ethosu::write_cop1(ethosu::kConfigU55_128, ethosu::kIdU55_128, words);
  contents.weight_data = std::move(region0);
  contents.scratch_size = uint32_t(S::kSize);
  const int32_t in_shape[] = {1, kSize, kSize, kIn};
  const int32_t out_shape[] = {1, 1, 1, kClasses};
  contents.inputs.push_back(ethosu::make_vela_io_6d(in_shape, 1, S::kInput));
  contents.outputs.push_back(ethosu::make_vela_io_6d(out_shape, 1, S::kOutput));
  return ethosu::write_vela_bin_stream(contents);
}

Result<std::vector<uint8_t>> ethos_u_sample_program(const EthosUSampleParameters& p) {
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> payload, ethos_u_sample_payload(p));
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::Char, {1, kSize, kSize, kIn});
  const int32_t y = m.add_planned_tensor(ScalarType::Char, {1, 1, 1, kClasses});
  const int32_t delegate = m.add_delegate("EthosUBackend", std::move(payload), {}, PayloadLocation::Segment);
  m.add_delegate_call(delegate, {x, y});
  m.set_inputs({x}).set_outputs({y});
  return program.build();
}

}  // namespace vkrt::samples
