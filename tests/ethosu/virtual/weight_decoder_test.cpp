// The Ethos-U weight and scale/bias stream decoder (ethosu/virtual/weight_decoder.h).
//
// Conformance: every CONV / DEPTHWISE stream in Vela 3.10's outputs for U55-128 and U65-256
// (../shared/conformance/ethos-u/tflite/vela-*/) decodes to exactly the original model's weights minus
// their zero point, and its scale stream to the model's bias and TFLite's QuantizeMultiplier of
// input_scale * weight_scale / output_scale. What the files show about Vela (3.10):
// - each NPU operation's stream covers exactly its OFM channels (OFM_DEPTH_M1 + 1); Vela splits a layer
//   into depth slices (e.g. MNIST's 32 -> 64 conv on U55-128: 48 + 16) with one stream each;
// - CONV_2D [OC][KH][KW][IC] decodes as [ofm][ky][kx][ifm]; DEPTHWISE_CONV_2D [1][KH][KW][OC] as
//   [ofm][ky][kx][1]; FULLY_CONNECTED [OC][IC] as [ofm][0][0][ifm] (a 1x1 CONV);
// - TRANSPOSE_CONV [OC][KH][KW][IC] runs as a CONV over the upscaled IFM with the kernel reversed in H
//   and W: decoded[ofm][ky][kx][ifm] = filter[ofm][KH-1-ky][KW-1-kx][ifm];
// - the biases are the model's int32 bias tensors unchanged (zero points are not folded in; the NPU
//   applies the IFM zero point itself); a FULLY_CONNECTED without bias gets zeros;
// - weights and scales may be DMA'd from the flash region (0) into the scratch regions (1 on U55,
//   fast scratch 2 on U65) before the operation; WEIGHT_BASE then points there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/conformance.h"
#include "ethosu/format/driver_payload.h"
#include "ethosu/format/weight_encoder.h"
#include "ethosu/tflite/tflite_model.h"
#include "ethosu/virtual/weight_decoder.h"

namespace vkrt::ethosu::virtual_npu {
namespace {

namespace tfl = vkrt::ethosu::tflite;

// ---------------------------------------------------------------------------------------------
// A minimal command-stream walk (independent of the virtual NPU's): register state, DMA copies out
// of the flash region, and the weight-carrying operations.

struct DmaCopy {
  int dst_region;
  uint64_t src, dst, len;
};

struct WeightOp {
  WeightStreamLayout layout;
  int weight_region, scale_region;
  uint64_t weight_base, weight_length, scale_base, scale_length;
  std::vector<DmaCopy> dmas;  // DMA copies issued before the operation
};

struct CommandStream {
  uint32_t config_word = 0, id_word = 0;
  std::vector<WeightOp> ops;
};

std::optional<CommandStream> parse_cop1(std::span<const uint8_t> payload) {
  auto word = [&](size_t i) {
    uint32_t w;
    std::memcpy(&w, payload.data() + 4 * i, 4);
    return w;
  };
  const size_t nwords = payload.size() / 4;
  if (nwords < 1 || word(0) != 0x31504F43u) return std::nullopt;  // "COP1"
  CommandStream cs;
  size_t i = 1, begin = 0, count = 0;
  while (i < nwords) {
    const uint32_t w = word(i);
    const uint32_t cmd = w & 0xFF;
    if (cmd == 0x01) {  // OPTIMIZER_CONFIG: CONFIG, ID
      if (i + 2 >= nwords) return std::nullopt;
      cs.config_word = word(i + 1);
      cs.id_word = word(i + 2);
      i += 3;
    } else if (cmd == 0x05) {  // NOP
      ++i;
    } else if (cmd == 0x02) {  // COMMAND_STREAM
      count = (((w >> 8) & 0xFF) << 16) | (w >> 16);
      begin = i + 1;
      break;
    } else {
      return std::nullopt;
    }
  }
  if (begin == 0 || begin + count > nwords) return std::nullopt;
  std::map<uint32_t, uint32_t> c0;
  std::map<uint32_t, uint64_t> c1;
  std::vector<DmaCopy> dmas;
  for (size_t k = begin; k < begin + count;) {
    const uint32_t w = word(k);
    const uint32_t op = w & 0x3FF, param = w >> 16;
    if (w & 0x4000) {
      if (k + 1 >= begin + count) return std::nullopt;
      c1[op] = (uint64_t(param & 0xFF) << 32) | word(k + 1);
      k += 2;
      continue;
    }
    ++k;
    if (op == 0x010) {  // DMA_START
      if (c0[0x130] == 0) dmas.push_back({int(c0[0x131] & 0xFF), c1[0x30], c1[0x31], c1[0x32]});
    } else if (op == 0x002 || op == 0x003) {  // CONV, DEPTHWISE
      WeightOp o{};
      const uint32_t stride = c0[0x122];
      WeightStreamLayout& l = o.layout;
      l.depthwise = op == 0x003;
      l.dilation_x = int((stride >> 3) & 1) + 1;
      l.dilation_y = int((stride >> 4) & 1) + 1;
      l.part_kernel_first = (stride >> 2) & 1;
      l.kernel_width = int(c0[0x120]) / l.dilation_x + 1;
      l.kernel_height = int(c0[0x121]) / l.dilation_y + 1;
      l.ofm_depth = int(c0[0x113]) + 1;
      l.ifm_depth = l.depthwise ? 1 : int(c0[0x104]) + 1;
      l.ifm_bits = ((c0[0x105] >> 2) & 3) == 1 ? 16 : 8;
      l.ofm_block_depth = int(c0[0x117]) + 1;
      o.weight_region = int(c0[0x128]);
      o.scale_region = int(c0[0x129]);
      o.weight_base = c1[0x20];
      o.weight_length = c1[0x21];
      o.scale_base = c1[0x22];
      o.scale_length = c1[0x23];
      o.dmas = dmas;
      cs.ops.push_back(o);
    } else if (op >= 0x100) {
      c0[op] = param;
    }
  }
  return cs;
}

// The bytes at (region, address, length): region 0 is the flash tensor; other regions hold what the
// latest DMA copied there from flash.
std::optional<std::span<const uint8_t>> locate(std::span<const uint8_t> flash, const std::vector<DmaCopy>& dmas,
                                               int region, uint64_t address, uint64_t length) {
  uint64_t src = address;
  if (region != 0) {
    bool found = false;
    for (auto it = dmas.rbegin(); it != dmas.rend(); ++it) {
      if (it->dst_region == region && address >= it->dst && address + length <= it->dst + it->len) {
        src = it->src + (address - it->dst);
        found = true;
        break;
      }
    }
    if (!found) return std::nullopt;
  }
  if (src + length > flash.size()) return std::nullopt;
  return flash.subspan(size_t(src), size_t(length));
}

// ---------------------------------------------------------------------------------------------
// The original model's side.

int64_t read_int(const tfl::Tensor& t, size_t i) {
  switch (t.type) {
    case tfl::TensorType::Int8: return int8_t(t.data[i]);
    case tfl::TensorType::UInt8: return t.data[i];
    case tfl::TensorType::Int32: {
      int32_t v;
      std::memcpy(&v, t.data.data() + 4 * i, 4);
      return v;
    }
    case tfl::TensorType::Int64: {
      int64_t v;
      std::memcpy(&v, t.data.data() + 8 * i, 8);
      return v;
    }
    default: ADD_FAILURE() << "unexpected tensor type in " << t.name; return 0;
  }
}

// TFLite QuantizeMultiplier: m = q * 2^(shift - 31), q in [2^30, 2^31).
std::pair<int64_t, int> quantize_multiplier(double m) {
  int exponent = 0;
  const double q = std::frexp(m, &exponent);
  int64_t q_fixed = std::llround(q * double(int64_t{1} << 31));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++exponent;
  }
  return {q_fixed, exponent};
}

struct LayerRef {
  std::string what;
  tfl::BuiltinOperator kind;
  const tfl::Tensor* filter;
  const tfl::Tensor* bias;  // null when absent
  int oc, kh, kw, ic;
  double input_scale, output_scale;
  bool float_product;  // TFLite/Vela multiply input and weight scales in float32 (uint8 or FULLY_CONNECTED)
};

std::vector<LayerRef> weight_layers(const tfl::Model& m) {
  std::vector<LayerRef> out;
  for (const tfl::Operator& op : m.operators) {
    int filter_i, bias_i, input_i;
    if (op.is(tfl::BuiltinOperator::Conv2d) || op.is(tfl::BuiltinOperator::DepthwiseConv2d) ||
        op.is(tfl::BuiltinOperator::FullyConnected)) {
      input_i = op.inputs[0];
      filter_i = op.inputs[1];
      bias_i = op.inputs.size() > 2 ? op.inputs[2] : -1;
    } else if (op.is(tfl::BuiltinOperator::TransposeConv)) {
      filter_i = op.inputs[1];
      input_i = op.inputs[2];
      bias_i = op.inputs.size() > 3 ? op.inputs[3] : -1;
    } else {
      continue;
    }
    LayerRef r{};
    r.what = op.name();
    r.kind = op.op();
    r.filter = &m.tensors[size_t(filter_i)];
    r.bias = bias_i >= 0 ? &m.tensors[size_t(bias_i)] : nullptr;
    const auto& s = r.filter->shape;
    if (op.is(tfl::BuiltinOperator::FullyConnected)) {
      r.oc = s[0], r.kh = 1, r.kw = 1, r.ic = s[1];
    } else if (op.is(tfl::BuiltinOperator::DepthwiseConv2d)) {
      r.oc = s[3], r.kh = s[1], r.kw = s[2], r.ic = 1;
    } else {
      r.oc = s[0], r.kh = s[1], r.kw = s[2], r.ic = s[3];
    }
    const tfl::Tensor& in = m.tensors[size_t(input_i)];
    r.input_scale = in.scale.at(0);
    r.output_scale = m.tensors[size_t(op.outputs[0])].scale.at(0);
    r.float_product = in.type == tfl::TensorType::UInt8 || op.is(tfl::BuiltinOperator::FullyConnected);
    out.push_back(r);
  }
  return out;
}

// filter value at decoded position (oc, ky, kx, ic), zero point removed.
int expected_weight(const LayerRef& r, int oc, int ky, int kx, int ic) {
  const tfl::Tensor& f = *r.filter;
  size_t index = 0;
  switch (r.kind) {
    case tfl::BuiltinOperator::DepthwiseConv2d: index = (size_t(ky) * r.kw + kx) * r.oc + oc; break;
    case tfl::BuiltinOperator::TransposeConv:
      index = ((size_t(oc) * r.kh + (r.kh - 1 - ky)) * r.kw + (r.kw - 1 - kx)) * r.ic + ic;
      break;
    default: index = ((size_t(oc) * r.kh + ky) * r.kw + kx) * r.ic + ic; break;
  }
  const size_t channel = f.zero_point.size() > 1 ? size_t(oc) : 0;
  return int(read_int(f, index) - f.zero_point.at(channel));
}

struct CaseSummary {
  int streams = 0;
  int64_t weights = 0;
};

void check_model(const std::string& name, const std::string& accel_dir, CaseSummary& summary) {
  const std::string vela_rel = "ethos-u/tflite/" + accel_dir + "/" + name + "_vela.tflite";
  const std::string orig_rel = "ethos-u/tflite/models/" + name + ".tflite";
  const std::string vela_path = vkrt::testing::conformance_path(vela_rel);
  const std::string orig_path = vkrt::testing::conformance_path(orig_rel);
  ASSERT_FALSE(vela_path.empty()) << vela_rel;
  ASSERT_FALSE(orig_path.empty()) << orig_rel;
  auto vela = tfl::load_tflite_file(vela_path);
  ASSERT_TRUE(vela.ok()) << vela.status().to_string();
  auto orig = tfl::load_tflite_file(orig_path);
  ASSERT_TRUE(orig.ok()) << orig.status().to_string();

  struct Stream {
    WeightOp op;
    std::span<const uint8_t> flash;
    NpuArch arch;
  };
  std::vector<Stream> streams;
  for (const tfl::Operator& op : vela->operators) {
    if (op.custom_code != "ethos-u") continue;
    ASSERT_GE(op.inputs.size(), 2u);
    const tfl::Tensor& cmd = vela->tensors[size_t(op.inputs[0])];
    const tfl::Tensor& flash = vela->tensors[size_t(op.inputs[1])];
    auto cs = parse_cop1(cmd.data);
    ASSERT_TRUE(cs.has_value()) << name << ": command stream of " << cmd.name;
    auto arch = decode_npu_arch(cs->config_word, cs->id_word);
    ASSERT_TRUE(arch.ok()) << arch.status().to_string();
    EXPECT_EQ(arch->product, accel_dir == "vela-u55-128" ? NpuProduct::U55 : NpuProduct::U65);
    EXPECT_EQ(arch->macs_per_cycle, accel_dir == "vela-u55-128" ? 128u : 256u);
    for (const WeightOp& w : cs->ops) streams.push_back({w, flash.data, *arch});
  }
  const std::vector<LayerRef> layers = weight_layers(*orig);
  ASSERT_FALSE(layers.empty()) << name;

  size_t si = 0;
  for (const LayerRef& layer : layers) {
    int depth_offset = 0;
    while (depth_offset < layer.oc) {
      ASSERT_LT(si, streams.size()) << name << ": fewer NPU weight streams than layers";
      const Stream& s = streams[si++];
      WeightStreamLayout l = s.op.layout;
      l.product = s.arch.product;
      l.macs = int(s.arch.macs_per_cycle);
      const std::string where = name + " (" + accel_dir + ") " + layer.what + " channels " +
                                std::to_string(depth_offset) + "+" + std::to_string(l.ofm_depth);
      SCOPED_TRACE(where);
      ASSERT_EQ(l.kernel_height, layer.kh);
      ASSERT_EQ(l.kernel_width, layer.kw);
      ASSERT_EQ(l.ifm_depth, layer.ic);
      ASSERT_LE(depth_offset + l.ofm_depth, layer.oc);

      auto wbytes = locate(s.flash, s.op.dmas, s.op.weight_region, s.op.weight_base, s.op.weight_length);
      ASSERT_TRUE(wbytes.has_value()) << "weight stream not found in flash";
      auto weights = decode_weight_stream(*wbytes, l);
      ASSERT_TRUE(weights.ok()) << weights.status().to_string();
      ASSERT_EQ(weights->size(), size_t(l.ofm_depth) * l.kernel_height * l.kernel_width * l.ifm_depth);
      int mismatches = 0;
      for (int o = 0; o < l.ofm_depth; ++o)
        for (int y = 0; y < l.kernel_height; ++y)
          for (int x = 0; x < l.kernel_width; ++x)
            for (int i = 0; i < l.ifm_depth; ++i) {
              const size_t at = ((size_t(o) * l.kernel_height + y) * l.kernel_width + x) * l.ifm_depth + i;
              const int want = expected_weight(layer, depth_offset + o, y, x, i);
              if ((*weights)[at] != want && ++mismatches <= 5)
                ADD_FAILURE() << "weight [" << o << "][" << y << "][" << x << "][" << i << "] = " << (*weights)[at]
                              << ", model has " << want;
            }
      EXPECT_EQ(mismatches, 0);

      auto sbytes = locate(s.flash, s.op.dmas, s.op.scale_region, s.op.scale_base, s.op.scale_length);
      ASSERT_TRUE(sbytes.has_value()) << "scale stream not found in flash";
      EXPECT_EQ(s.op.scale_length, (uint64_t(l.ofm_depth) * kScaleRecordBytes + 15) / 16 * 16);
      auto scales = decode_scale_stream(*sbytes, l.ofm_depth);
      ASSERT_TRUE(scales.ok()) << scales.status().to_string();
      for (int o = 0; o < l.ofm_depth; ++o) {
        const int oc = depth_offset + o;
        const ChannelScale& cs = (*scales)[size_t(o)];
        const int64_t bias = layer.bias ? read_int(*layer.bias, size_t(oc)) : 0;
        EXPECT_EQ(cs.bias, bias) << "channel " << oc;
        const float wscale = layer.filter->scale.size() > 1 ? layer.filter->scale[size_t(oc)] : layer.filter->scale[0];
        const double m = layer.float_product
                             ? double(float(layer.input_scale) * wscale) / layer.output_scale
                             : layer.input_scale * double(wscale) / layer.output_scale;
        const auto [q, shift] = quantize_multiplier(m);
        // Vela keeps q = 2^31 where TFLite halves it: compare the values q * 2^(shift - 31).
        int64_t vq = cs.scale;
        int vshift = 31 - cs.shift;
        if (vq == (int64_t{1} << 31)) vq /= 2, ++vshift;
        EXPECT_EQ(vq, q) << "channel " << oc << " multiplier " << m;
        EXPECT_EQ(vshift, shift) << "channel " << oc << " multiplier " << m;
      }
      summary.streams++;
      summary.weights += int64_t(weights->size());
      depth_offset += l.ofm_depth;
    }
  }
  EXPECT_EQ(si, streams.size()) << name << ": NPU weight streams left over";
}

const char* const kWeightModels[] = {"test_conv2d_int8",  "test_depthwise_conv2d_int8", "test_fullconnected_int8",
                                     "test_transpose_conv2d_int8", "test_mlp_uint8", "test_mnist_uint8"};

void check_accelerator(const std::string& dir) {
  for (const char* name : kWeightModels) {
    CaseSummary summary;
    check_model(name, dir, summary);
    std::printf("  %s %s: %d streams, %lld weights compared\n", dir.c_str(), name, summary.streams,
                static_cast<long long>(summary.weights));
  }
}

TEST(WeightDecoder, VelaU55_128StreamsMatchModels) {
  VKRT_REQUIRE_CONFORMANCE(dir, "ethos-u/tflite/vela-u55-128");
  check_accelerator("vela-u55-128");
}

TEST(WeightDecoder, VelaU65_256StreamsMatchModels) {
  VKRT_REQUIRE_CONFORMANCE(dir, "ethos-u/tflite/vela-u65-256");
  check_accelerator("vela-u65-256");
}

// Truncations and byte flips of real streams: errors or (for cuts in the padding after the
// end-of-stream marker) the same weights; never a crash or a hang.
TEST(WeightDecoder, CorruptedRealStreamsGiveErrors) {
  VKRT_REQUIRE_CONFORMANCE(path, "ethos-u/tflite/vela-u55-128/test_mlp_uint8_vela.tflite");
  auto vela = tfl::load_tflite_file(path);
  ASSERT_TRUE(vela.ok()) << vela.status().to_string();
  const tfl::Operator* npu = nullptr;
  for (const tfl::Operator& op : vela->operators)
    if (op.custom_code == "ethos-u") npu = &op;
  ASSERT_NE(npu, nullptr);
  auto cs = parse_cop1(vela->tensors[size_t(npu->inputs[0])].data);
  ASSERT_TRUE(cs.has_value());
  ASSERT_EQ(cs->ops.size(), 2u);
  const std::span<const uint8_t> flash = vela->tensors[size_t(npu->inputs[1])].data;
  const WeightOp& op = cs->ops[1];  // 128 -> 10 fully connected, 1424 bytes
  WeightStreamLayout l = op.layout;
  l.product = NpuProduct::U55;
  l.macs = 128;
  auto bytes = locate(flash, op.dmas, op.weight_region, op.weight_base, op.weight_length);
  ASSERT_TRUE(bytes.has_value());
  auto good = decode_weight_stream(*bytes, l);
  ASSERT_TRUE(good.ok()) << good.status().to_string();

  int errors = 0, same = 0;
  size_t shortest_ok = bytes->size();
  for (size_t n = 0; n < bytes->size(); ++n) {
    auto r = decode_weight_stream(bytes->first(n), l);
    if (r.ok()) {
      EXPECT_EQ(*r, *good) << "truncated to " << n;
      shortest_ok = std::min(shortest_ok, n);
      ++same;
    } else {
      EXPECT_EQ(r.error(), Error::InvalidProgram);
      EXPECT_FALSE(r.status().message().empty());
      ++errors;
    }
  }
  // Only the 0xFF padding after the end-of-stream marker may go.
  EXPECT_GT(shortest_ok + 16, bytes->size());
  EXPECT_GT(errors, 1000);

  std::mt19937 rng(1234);
  std::vector<uint8_t> copy(bytes->begin(), bytes->end());
  int flip_errors = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> bad = copy;
    const int nflips = 1 + int(rng() % 3);
    for (int f = 0; f < nflips; ++f) bad[rng() % bad.size()] ^= uint8_t(1u << (rng() % 8));
    auto r = decode_weight_stream(bad, l);
    if (!r.ok()) {
      ++flip_errors;
      EXPECT_EQ(r.error(), Error::InvalidProgram);
    } else {
      EXPECT_EQ(r->size(), good->size());
    }
  }
  EXPECT_GT(flip_errors, 100);

  // Random bytes of every length up to 64: no crash.
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> junk(rng() % 65);
    for (uint8_t& b : junk) b = uint8_t(rng());
    (void)decode_weight_stream(junk, l);
    (void)mlw_decode(junk, 1 << 16);
  }
  // The scale stream: short streams are errors.
  auto sbytes = locate(flash, op.dmas, op.scale_region, op.scale_base, op.scale_length);
  ASSERT_TRUE(sbytes.has_value());
  for (size_t n = 0; n < 100; ++n) EXPECT_FALSE(decode_scale_stream(sbytes->first(n), 10).ok()) << n;
  EXPECT_TRUE(decode_scale_stream(sbytes->first(100), 10).ok());
}

// ---------------------------------------------------------------------------------------------
// Synthetic streams, written with the library's encoder (ethosu/format/weight_encoder.h: the codec's
// uncompressed mode and Vela's reorder, independent of the decoder's closed-form order).

std::vector<uint8_t> encode_uncompressed(const std::vector<int16_t>& values) {
  auto r = mlw_encode_uncompressed(values);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : std::vector<uint8_t>{};
}

std::vector<int16_t> random_weights(size_t n, std::mt19937& rng) {
  std::vector<int16_t> w(n);
  for (int16_t& v : w) v = int16_t(int(rng() % 511) - 255);
  return w;
}

TEST(WeightDecoder, UncompressedCodecRoundTrip) {
  std::mt19937 rng(7);
  for (size_t n : {size_t{1}, size_t{7}, size_t{12}, size_t{13}, size_t{100}, size_t{32768}, size_t{40000}}) {
    const std::vector<int16_t> w = random_weights(n, rng);
    const std::vector<uint8_t> s = encode_uncompressed(w);
    auto r = mlw_decode(s, int64_t(n));
    ASSERT_TRUE(r.ok()) << n << ": " << r.status().to_string();
    EXPECT_EQ(*r, w) << n;
    auto too_few = mlw_decode(s, int64_t(n) - 1);
    EXPECT_FALSE(too_few.ok()) << n;
  }
}

TEST(WeightDecoder, SyntheticLayoutsRoundTrip) {
  struct Case {
    NpuProduct product;
    int macs;
    int ofm, kh, kw, ifm, block;
    bool dw, pk;
    int bits, dx, dy;
  };
  const Case cases[] = {
      {NpuProduct::U55, 128, 20, 3, 3, 40, 16, false, false, 8, 1, 1},
      {NpuProduct::U55, 128, 9, 3, 5, 5, 8, false, true, 8, 1, 1},
      {NpuProduct::U65, 256, 17, 2, 3, 1, 16, true, false, 8, 1, 1},
      {NpuProduct::U55, 128, 8, 11, 9, 3, 8, false, true, 8, 2, 1},  // sub-kernels 8x4 with dilation x 2
      {NpuProduct::U55, 128, 8, 10, 10, 20, 8, false, false, 16, 2, 2},
      {NpuProduct::U55, 64, 8, 3, 3, 20, 8, false, true, 16, 1, 1},
      {NpuProduct::U55, 32, 10, 1, 1, 33, 8, false, false, 8, 1, 1},  // 4-deep OFM micro-blocks
      {NpuProduct::U55, 256, 24, 1, 1, 8, 12, false, false, 8, 1, 1},  // block depth not a micro-block multiple
  };
  std::mt19937 rng(11);
  for (const Case& c : cases) {
    const std::vector<int16_t> w = random_weights(size_t(c.ofm) * c.kh * c.kw * (c.dw ? 1 : c.ifm), rng);
    WeightStreamLayout l;
    l.product = c.product;
    l.macs = c.macs;
    l.ofm_depth = c.ofm, l.ifm_depth = c.dw ? 1 : c.ifm, l.kernel_height = c.kh, l.kernel_width = c.kw;
    l.dilation_x = c.dx, l.dilation_y = c.dy, l.depthwise = c.dw, l.part_kernel_first = c.pk;
    l.ifm_bits = c.bits, l.ofm_block_depth = c.block;
    auto reordered = reorder_weights(w, l);
    ASSERT_TRUE(reordered.ok()) << reordered.status().to_string();
    const std::vector<int16_t>& order = *reordered;
    auto count = weight_stream_value_count(l);
    ASSERT_TRUE(count.ok()) << count.status().to_string();
    EXPECT_EQ(*count, int64_t(order.size()));
    auto r = decode_weight_stream(encode_uncompressed(order), l);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(*r, w) << "ofm " << c.ofm << " kernel " << c.kh << "x" << c.kw << " ifm " << c.ifm;
    // One value too many or too few.
    std::vector<int16_t> longer = order;
    longer.push_back(1);
    EXPECT_FALSE(decode_weight_stream(encode_uncompressed(longer), l).ok());
    std::vector<int16_t> shorter(order.begin(), order.end() - 1);
    EXPECT_FALSE(decode_weight_stream(encode_uncompressed(shorter), l).ok());
  }
}

// U65-512: two cores, channels dealt alternately, each with half the block depth.
TEST(WeightDecoder, TwoCoreStreamsInterleave) {
  std::mt19937 rng(5);
  const int ofm = 21, kh = 3, kw = 3, ifm = 12, block = 16;
  const std::vector<int16_t> w = random_weights(size_t(ofm) * kh * kw * ifm, rng);
  const size_t per_ofm = size_t(kh) * kw * ifm;
  WeightStreamLayout l;
  l.product = NpuProduct::U65;
  l.macs = 512;
  l.ofm_depth = ofm, l.ifm_depth = ifm, l.kernel_height = kh, l.kernel_width = kw, l.ofm_block_depth = block;
  std::vector<std::vector<uint8_t>> bytes;
  for (int core = 0; core < 2; ++core) {
    // The encoder deals the channels itself; the same as a one-core stream (U65-256: the same
    // micro-blocks) of this core's channels with half the block depth.
    WeightStreamLayout core_layout = l;
    core_layout.core = core;
    auto stream = encode_weight_stream(w, core_layout);
    ASSERT_TRUE(stream.ok()) << stream.status().to_string();
    std::vector<int16_t> part;
    for (int o = core; o < ofm; o += 2) part.insert(part.end(), w.begin() + o * per_ofm, w.begin() + (o + 1) * per_ofm);
    WeightStreamLayout one_core = l;
    one_core.macs = 256;
    one_core.ofm_depth = (ofm - core + 1) / 2;
    one_core.ofm_block_depth = (block + 2 - 1 - core) / 2;
    auto reference = encode_weight_stream(part, one_core);
    ASSERT_TRUE(reference.ok()) << reference.status().to_string();
    EXPECT_EQ(*stream, *reference) << "core " << core;
    bytes.push_back(*stream);
  }
  const std::span<const uint8_t> spans[2] = {bytes[0], bytes[1]};
  auto r = decode_weight_streams(spans, l);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(*r, w);
  l.core = 1;
  EXPECT_EQ(core_ofm_channels(l), 10);
  EXPECT_FALSE(decode_weight_streams(std::span<const std::span<const uint8_t>>(spans, 1), l).ok());
}

TEST(WeightDecoder, MalformedStreamsNameTheProblem) {
  auto message = [](const std::vector<uint8_t>& s, int64_t max = 100) {
    auto r = mlw_decode(s, max);
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_NE(message({}).find("end-of-stream"), std::string::npos);
  // A slice header that needs 3 more bits than there are.
  EXPECT_NE(message({0x06, 0x00}).find("truncated slice header"), std::string::npos);
  {  // ZDIV 4
    MlwBitWriter bw;
    bw.put(3, 4);
    bw.put(15, 0);
    bw.put(3, 0);
    bw.put(2, 2);
    EXPECT_NE(message(bw.finish_with_eos()).find("ZDIV"), std::string::npos);
  }
  {  // first slice without a palette
    MlwBitWriter bw;
    bw.put(3, 6);
    bw.put(15, 0);
    bw.put(3, 7);
    bw.put(1, 0);
    bw.put(1, 0);
    bw.put(9, 2);
    EXPECT_NE(message(bw.finish_with_eos()).find("palette"), std::string::npos);
  }
  {  // WDIV 6
    MlwBitWriter bw;
    bw.put(3, 6);
    bw.put(15, 0);
    bw.put(3, 6);
    bw.put(1, 0);
    bw.put(1, 1);
    bw.put(13, 0);
    EXPECT_NE(message(bw.finish_with_eos()).find("WDIV"), std::string::npos);
  }
  // Direct offset pushing a value past 9 bits: PALBITS 9, DIROFS 31, value 511 + 31.
  {
    MlwBitWriter bw;
    bw.put(3, 6);
    bw.put(15, 0);
    bw.put(3, 7);
    bw.put(1, 0);
    bw.put(1, 1);
    bw.put(5, 31);
    bw.put(5, 0);
    bw.put(3, 7);
    bw.put(9, 511);
    EXPECT_NE(message(bw.finish_with_eos()).find("out of the 9-bit range"), std::string::npos);
  }
  // Too many values for the caller's bound.
  EXPECT_NE(message(encode_uncompressed(std::vector<int16_t>(200, 3))).find("more weights"), std::string::npos);
  // Cut before the end marker.
  std::vector<uint8_t> s = encode_uncompressed(std::vector<int16_t>(20, -3));
  s.resize(20);
  EXPECT_NE(message(s).find("truncated"), std::string::npos);

  // Layouts out of range.
  WeightStreamLayout l;
  l.ofm_depth = 8, l.ifm_depth = 8, l.ofm_block_depth = 8;
  EXPECT_TRUE(weight_stream_value_count(l).ok());
  WeightStreamLayout bad = l;
  bad.dilation_x = 3;
  EXPECT_FALSE(weight_stream_value_count(bad).ok());
  bad = l;
  bad.depthwise = true;  // depthwise with 8 IFM channels per weight
  EXPECT_FALSE(weight_stream_value_count(bad).ok());
  bad = l;
  bad.ifm_bits = 32;
  EXPECT_FALSE(weight_stream_value_count(bad).ok());
  bad = l;
  bad.ofm_depth = 65536, bad.ifm_depth = 65536, bad.kernel_height = 1000, bad.kernel_width = 1000;
  EXPECT_FALSE(weight_stream_value_count(bad).ok());
  // A stream far too short for the layout is rejected before anything is allocated.
  bad = l;
  bad.ofm_depth = 4096, bad.ifm_depth = 4096;
  auto r = decode_weight_stream(encode_uncompressed({1}), bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cannot code"), std::string::npos);
}

TEST(WeightDecoder, ScaleRecords) {
  const uint8_t rec[20] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x80, 0x1F,   // bias -1, 2^31, 31
                           0x00, 0x00, 0x00, 0x00, 0x80, 0x78, 0x56, 0x34, 0x12, 0x3F};  // bias -2^39
  auto r = decode_scale_stream(rec, 2);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ((*r)[0].bias, -1);
  EXPECT_EQ((*r)[0].scale, 0x80000000u);
  EXPECT_EQ((*r)[0].shift, 31);
  EXPECT_EQ((*r)[1].bias, -(int64_t{1} << 39));
  EXPECT_EQ((*r)[1].scale, 0x12345678u);
  EXPECT_EQ((*r)[1].shift, 63);
  uint8_t reserved[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40};
  EXPECT_FALSE(decode_scale_stream(reserved, 1).ok());
  EXPECT_FALSE(decode_scale_stream(std::span<const uint8_t>(rec, 19), 2).ok());
  EXPECT_FALSE(decode_scale_stream(rec, -1).ok());

  // The encoder writes what the decoder reads, padded to 16 bytes; it refuses what a record cannot hold.
  const ChannelScale channels[3] = {
      {-1, 0x80000000u, 31}, {-(int64_t{1} << 39), 0x12345678u, 63}, {(int64_t{1} << 39) - 1, 7, 0}};
  auto encoded = encode_scale_stream(channels);
  ASSERT_TRUE(encoded.ok()) << encoded.status().to_string();
  EXPECT_EQ(encoded->size(), 32u);
  EXPECT_TRUE(std::equal(rec, rec + 20, encoded->begin()));
  auto decoded = decode_scale_stream(*encoded, 3);
  ASSERT_TRUE(decoded.ok()) << decoded.status().to_string();
  EXPECT_EQ((*decoded)[2].bias, (int64_t{1} << 39) - 1);
  EXPECT_EQ((*decoded)[2].scale, 7u);
  const ChannelScale too_big[1] = {{int64_t{1} << 39, 1, 1}};
  EXPECT_FALSE(encode_scale_stream(too_big).ok());
  const ChannelScale bad_shift[1] = {{0, 1, 64}};
  EXPECT_FALSE(encode_scale_stream(bad_shift).ok());
  EXPECT_FALSE(mlw_encode_uncompressed(std::vector<int16_t>{0, 256}).ok());

  EXPECT_EQ(accelerator_traits(NpuProduct::U55, 32)->ofm_ublock_depth, 4);
  EXPECT_EQ(accelerator_traits(NpuProduct::U65, 512)->cores, 2);
  EXPECT_FALSE(accelerator_traits(NpuProduct::U85, 256).ok());
  EXPECT_FALSE(accelerator_traits(NpuProduct::U65, 128).ok());
}

}  // namespace
}  // namespace vkrt::ethosu::virtual_npu
