// OP_CONV, OP_DEPTHWISE, OP_POOL and OP_ELEMENTWISE on the virtual NPU.
//
// Every operation computes OFM elements one by one from the feature maps the registers describe:
// an accumulator, scaled by (scale, shift) in the OFM's rounding mode, plus the OFM zero point,
// saturated to the OFM's type, looked up in the activation LUT when one is selected, and clamped to
// [ACTIVATION_MIN, ACTIVATION_MAX].
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "ethosu/virtual/npu_arithmetic.h"
#include "ethosu/virtual/operations.h"
#include "ethosu/virtual/performance_model.h"
#include "ethosu/virtual/weight_decoder.h"

namespace vkrt::ethosu::virtual_npu {
namespace {

constexpr size_t kLutAreaBytes = 2048;  // the top of internal memory: 8 int8 LUT slots
constexpr size_t kLutSlotBytes = 256;

// The last steps every operation shares.
struct OutputStage {
  RoundingMode rounding = RoundingMode::Tfl;
  int64_t zero_point = 0;
  int64_t type_min = 0, type_max = 0;
  int64_t clamp_min = 0, clamp_max = 0;
  // The activation LUT: 256 entries of 1 byte (8-bit OFMs) or 4 bytes (32-bit OFMs, e.g. the exp
  // table of Vela's softmax), indexed by the value saturated to 8 bits.
  const uint8_t* lut = nullptr;
  int lut_entry_bytes = 1;
  int64_t lut_index_min = -128;
  bool wide = false;  // a 32-bit OFM

  int64_t finish(int64_t scaled) const {
    int64_t v = scaled + zero_point;
    if (lut != nullptr && lut_entry_bytes == 4) {
      const size_t index = size_t(clamp_value(v, lut_index_min, lut_index_min + 255) - lut_index_min);
      int32_t entry;
      std::memcpy(&entry, lut + 4 * index, 4);
      return entry;
    }
    // A 32-bit OFM takes the value as it is: no zero point, no clamp (Vela leaves the registers
    // holding the tensor's zero point and 8-bit limits there, which would corrupt it).
    if (wide) return clamp_value(scaled, type_min, type_max);
    v = clamp_value(v, type_min, type_max);
    if (lut != nullptr) {
      const uint8_t entry = lut[size_t(v - type_min) & 0xFF];
      v = type_min < 0 ? int64_t(int8_t(entry)) : int64_t(entry);
    }
    return clamp_value(v, clamp_min, clamp_max);
  }
};

Result<OutputStage> output_stage(const OperationContext& ctx, const FeatureMap& ofm) {
  const RegisterFile& regs = ctx.regs;
  OutputStage out;
  out.rounding = RoundingMode((regs.get(Cmd0::OfmPrecision) >> 14) & 3);
  if (out.rounding != RoundingMode::Tfl && out.rounding != RoundingMode::Truncate &&
      out.rounding != RoundingMode::Natural) {
    return make_error(Error::InvalidProgram, "rounding mode ", int(out.rounding), " does not exist");
  }
  out.zero_point = ofm.zero_point;
  out.type_min = ofm.min_value();
  out.type_max = ofm.max_value();
  out.clamp_min = out.type_min;
  out.clamp_max = out.type_max;
  out.wide = ofm.element_bytes == 4;
  if (ofm.element_bytes < 4) {
    // ACTIVATION_MIN/MAX hold values of the OFM's type.
    const int64_t lo = ofm.is_signed ? regs.get_signed(Cmd0::ActivationMin)
                                     : regs.get(Cmd0::ActivationMin);
    const int64_t hi = ofm.is_signed ? regs.get_signed(Cmd0::ActivationMax)
                                     : regs.get(Cmd0::ActivationMax);
    out.clamp_min = std::max(out.type_min, lo);
    out.clamp_max = std::min(out.type_max, hi);
  }
  const uint16_t function = regs.get(Cmd0::Activation) & 0xFFF;
  if (function >= 16 && function < 24) {
    if (ofm.element_bytes == 2) {
      return make_error(Error::NotSupported,
                        "LUT activations on 16-bit OFMs are not supported by the virtual NPU");
    }
    const size_t slot = function - 16;
    out.lut_entry_bytes = ofm.element_bytes;
    out.lut_index_min = ofm.is_signed ? -128 : 0;
    if (slot * kLutSlotBytes + 256 * size_t(out.lut_entry_bytes) > kLutAreaBytes) {
      return make_error(Error::InvalidProgram, "LUT slot ", slot, " with ", out.lut_entry_bytes,
                        "-byte entries runs past the LUT area");
    }
    out.lut = ctx.memory.shram + ctx.memory.shram_size - kLutAreaBytes + slot * kLutSlotBytes;
  } else if (function != 0) {
    return make_error(Error::NotSupported, "activation function ", function,
                      " is not supported by the virtual NPU (LUT slots 16-23 and none are)");
  }
  return out;
}

struct Kernel {
  int width = 1, height = 1;      // dilated extents (KERNEL_*_M1 + 1)
  int stride_x = 1, stride_y = 1;
  int dilation_x = 1, dilation_y = 1;
  bool part_kernel_first = false;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int upscale = 1;                // 2 for the zero-inserting upscale of transposed convolutions
  Upscale upscale_mode = Upscale::None;
};

Result<Kernel> read_kernel(const RegisterFile& regs) {
  Kernel k;
  const uint16_t s = regs.get(Cmd0::KernelStride);
  k.stride_x = 1 + ((s & 1) | (((s >> 6) & 3) << 1));
  k.stride_y = 1 + (((s >> 1) & 1) | (((s >> 9) & 3) << 1));
  k.part_kernel_first = (s >> 2) & 1;
  k.dilation_x = 1 + ((s >> 3) & 1);
  k.dilation_y = 1 + ((s >> 4) & 1);
  k.width = regs.get(Cmd0::KernelWidthM1) + 1;
  k.height = regs.get(Cmd0::KernelHeightM1) + 1;
  k.pad_top = regs.get(Cmd0::IfmPadTop) & 0x7F;
  k.pad_left = regs.get(Cmd0::IfmPadLeft) & 0x7F;
  k.pad_bottom = regs.get(Cmd0::IfmPadBottom) & 0xFF;
  k.pad_right = regs.get(Cmd0::IfmPadRight) & 0xFF;
  const uint16_t up = regs.get(Cmd0::IfmUpscale) & 3;
  if (up > 2) return make_error(Error::InvalidProgram, "IFM upscale mode ", up, " does not exist");
  k.upscale_mode = Upscale(up);
  k.upscale = up == 0 ? 1 : 2;
  if ((k.width - 1) % k.dilation_x != 0 || (k.height - 1) % k.dilation_y != 0) {
    return make_error(Error::InvalidProgram, "kernel extent ", k.width, "x", k.height,
                      " is not a multiple of its dilation plus one");
  }
  return k;
}

// The IFM extent an operation reads: what the OFM, the kernel and the padding imply, in the
// upscaled IFM's coordinates divided back by the upscale factor.
void set_ifm_extent(FeatureMap& ifm, const FeatureMap& ofm, const Kernel& k) {
  const int up_h = std::max((ofm.height - 1) * k.stride_y + k.height - k.pad_top - k.pad_bottom, 1);
  const int up_w = std::max((ofm.width - 1) * k.stride_x + k.width - k.pad_left - k.pad_right, 1);
  ifm.height = (up_h + k.upscale - 1) / k.upscale;
  ifm.width = (up_w + k.upscale - 1) / k.upscale;
}

// Maps an upscaled IFM coordinate to a stored one, or -1 where the position is padding or one of
// the zeros a transposed convolution inserts.
inline int ifm_coordinate(int upscaled, int extent, const Kernel& k) {
  if (upscaled < 0) return -1;
  if (k.upscale == 1) return upscaled < extent ? upscaled : -1;
  const int stored = upscaled / 2;
  if (stored >= extent) return -1;
  if (k.upscale_mode == Upscale::Zeros && upscaled % 2 != 0) return -1;
  return stored;
}

// The product of `factors`, or UINT64_MAX where it does not fit: a hostile stream's dimensions
// (16 bits each) multiply past 2^64, and a wrapped count would slip under the work limit.
uint64_t saturating_product(std::initializer_list<uint64_t> factors) {
  unsigned __int128 p = 1;
  for (uint64_t f : factors) {
    p *= f;
    if (p > UINT64_MAX) return UINT64_MAX;
  }
  return uint64_t(p);
}

uint64_t map_bytes(const FeatureMap& m) {
  return uint64_t(m.height) * uint64_t(m.width) * uint64_t(m.depth) * uint64_t(m.element_bytes);
}

// Counts one operation and adds its cycle estimate (performance_model.h).
void count_operation(const OperationContext& ctx, OperationCost cost, const FeatureMap& ofm,
                     std::initializer_list<const FeatureMap*> inputs) {
  for (const FeatureMap* in : inputs) cost.read_bytes[in->region] += map_bytes(*in);
  cost.write_bytes[ofm.region] += map_bytes(ofm);
  cost.elements = uint64_t(ofm.height) * uint64_t(ofm.width) * uint64_t(ofm.depth);
  RunCounters& c = ctx.counters;
  c.operations++;
  c.ofm_elements += cost.elements;
  c.macs += cost.macs;
  const OperationCycles cycles = operation_cycles(cost, ctx.arch, ctx.memory_model);
  c.estimated_cycles += cycles.total;
  c.estimated_npu_cycles += cycles.compute;
}

}  // namespace

Status run_convolution(const OperationContext& ctx, bool depthwise) {
  const RegisterFile& regs = ctx.regs;
  const FeatureMap ofm_map = read_feature_map(regs, FeatureMapRole::Ofm);
  FeatureMap ifm_map = read_feature_map(regs, FeatureMapRole::Ifm);
  auto kernel = read_kernel(regs);
  if (!kernel.ok()) return kernel.status();
  const Kernel& k = *kernel;
  set_ifm_extent(ifm_map, ofm_map, k);
  if (depthwise && ifm_map.depth < ofm_map.depth) ifm_map.depth = ofm_map.depth;
  auto ifm = FeatureMapView::bind(ifm_map, ctx.memory);
  if (!ifm.ok()) return ifm.status();
  auto ofm = FeatureMapView::bind(ofm_map, ctx.memory);
  if (!ofm.ok()) return ofm.status();
  auto out = output_stage(ctx, ofm_map);
  if (!out.ok()) return out.status();

  const int kw = (k.width - 1) / k.dilation_x + 1;
  const int kh = (k.height - 1) / k.dilation_y + 1;
  const int ifm_depth = depthwise ? 1 : ifm_map.depth;
  const uint64_t ofm_elements = uint64_t(ofm_map.height) * ofm_map.width * ofm_map.depth;  // < 2^48
  const uint64_t macs = saturating_product({ofm_elements, uint64_t(kh), uint64_t(kw), uint64_t(ifm_depth)});
  const uint64_t work = macs > UINT64_MAX - ofm_elements ? UINT64_MAX : macs + ofm_elements;
  VKRT_RETURN_IF_ERROR(charge_work(ctx, work, depthwise ? "OP_DEPTHWISE" : "OP_CONV"));

  // The weights and the per-channel scales.
  const uint64_t weight_length = regs.address(Cmd1::WeightLength);
  auto weight_bytes = ctx.memory.span(regs.get(Cmd0::WeightRegion) & 7,
                                      regs.address(Cmd1::WeightBase), weight_length, "weight stream");
  if (!weight_bytes.ok()) return weight_bytes.status();
  WeightStreamLayout layout;
  layout.ofm_depth = ofm_map.depth;
  layout.ifm_depth = ifm_depth;
  layout.kernel_height = kh;
  layout.kernel_width = kw;
  layout.dilation_x = k.dilation_x;
  layout.dilation_y = k.dilation_y;
  layout.depthwise = depthwise;
  layout.part_kernel_first = k.part_kernel_first;
  layout.ifm_bits = 8 * ifm_map.element_bytes;
  layout.ofm_block_depth = regs.get(Cmd0::OfmBlkDepthM1) + 1;
  layout.product = ctx.arch.product;
  layout.macs = int(ctx.arch.macs_per_cycle);
  const std::span<const uint8_t> weight_stream(*weight_bytes, weight_length);
  std::vector<int16_t> decoded;
  const std::vector<int16_t>* weights = &decoded;
  if (ctx.weight_cache != nullptr) {
    auto cached = ctx.weight_cache->decode(weight_stream, layout);
    if (!cached.ok()) return cached.status();
    weights = *cached;
  } else {
    auto fresh = decode_weight_stream(weight_stream, layout);
    if (!fresh.ok()) return fresh.status();
    decoded = std::move(fresh).value();
  }
  const uint64_t scale_length = regs.address(Cmd1::ScaleLength);
  auto scale_bytes = ctx.memory.span(regs.get(Cmd0::ScaleRegion) & 7, regs.address(Cmd1::ScaleBase),
                                     scale_length, "scale stream");
  if (!scale_bytes.ok()) return scale_bytes.status();
  auto scales = decode_scale_stream(std::span<const uint8_t>(*scale_bytes, scale_length),
                                    ofm_map.depth);
  if (!scales.ok()) return scales.status();

  const int64_t ifm_zp = ifm_map.zero_point;
  const std::vector<int16_t>& w = *weights;
  // Every OFM channel reads its own weights: a stream that decodes to fewer is refused (a fuzzed
  // stream did, and the dot products read past the decoded weights).
  const uint64_t needed = uint64_t(ofm_map.depth) * uint64_t(kh) * uint64_t(kw) * uint64_t(depthwise ? 1 : ifm_depth);
  if (w.size() < needed)
    return make_error(Error::InvalidProgram, "weight stream decodes to ", w.size(), " weights; the operation needs ",
                      needed);
  // Per output position the window is gathered once, zero point removed and 0 where a tap is padding
  // or an inserted zero, laid out [ky][kx][channel] like each OFM channel's weights, so that every
  // OFM channel is one dot product. (Its size is at most the weights', which the decoder bounded.)
  const size_t taps = size_t(kh) * size_t(kw);
  const int window_depth = depthwise ? ofm_map.depth : ifm_depth;
  std::vector<int32_t> window(taps * size_t(window_depth));
  for (int oy = 0; oy < ofm_map.height; ++oy) {
    for (int ox = 0; ox < ofm_map.width; ++ox) {
      for (int ky = 0; ky < kh; ++ky) {
        const int iy = ifm_coordinate(oy * k.stride_y - k.pad_top + ky * k.dilation_y, ifm_map.height, k);
        for (int kx = 0; kx < kw; ++kx) {
          const int ix = ifm_coordinate(ox * k.stride_x - k.pad_left + kx * k.dilation_x, ifm_map.width, k);
          int32_t* tap = &window[(size_t(ky) * kw + kx) * size_t(window_depth)];
          for (int c = 0; c < window_depth; ++c) {
            tap[c] = iy >= 0 && ix >= 0 ? int32_t(ifm->read(iy, ix, c) - ifm_zp) : 0;
          }
        }
      }
      for (int oc = 0; oc < ofm_map.depth; ++oc) {
        const ChannelScale& cs = (*scales)[size_t(oc)];
        int64_t acc = cs.bias;
        if (depthwise) {
          const int16_t* wo = &w[size_t(oc) * taps];
          for (size_t t = 0; t < taps; ++t) acc += int64_t(wo[t]) * window[t * size_t(window_depth) + size_t(oc)];
        } else {
          const int16_t* wo = &w[size_t(oc) * taps * size_t(ifm_depth)];
          int64_t dot = 0;
          for (size_t i = 0; i < window.size(); ++i) dot += int64_t(wo[i]) * window[i];
          acc += dot;
        }
        const bool global = (regs.get(Cmd0::OfmPrecision) >> 8) & 1;
        const uint32_t scale = global ? regs.payload(Cmd1::OfmScale) : cs.scale;
        const int shift = global ? (regs.param(Cmd1::OfmScale) & 0x3F) : cs.shift;
        ofm->write(oy, ox, oc, out->finish(scale_value(acc, scale, shift, out->rounding)));
      }
    }
  }
  OperationCost cost;
  cost.macs = macs;
  cost.depthwise = depthwise;
  cost.read_bytes[regs.get(Cmd0::WeightRegion) & 7] += weight_length;
  cost.read_bytes[regs.get(Cmd0::ScaleRegion) & 7] += scale_length;
  count_operation(ctx, cost, ofm_map, {&ifm_map});
  return Status::ok();
}

Status run_pooling(const OperationContext& ctx, PoolOp op) {
  const RegisterFile& regs = ctx.regs;
  const FeatureMap ofm_map = read_feature_map(regs, FeatureMapRole::Ofm);
  FeatureMap ifm_map = read_feature_map(regs, FeatureMapRole::Ifm);
  auto kernel = read_kernel(regs);
  if (!kernel.ok()) return kernel.status();
  const Kernel& k = *kernel;
  set_ifm_extent(ifm_map, ofm_map, k);
  if (op != PoolOp::ReduceSum) ifm_map.depth = std::max(ifm_map.depth, ofm_map.depth);
  const uint64_t elements = uint64_t(ofm_map.height) * ofm_map.width * ofm_map.depth;
  // Every OFM element reads a window (times the IFM's channels for REDUCE_SUM). Charged before
  // anything else: the limit is what keeps a hostile stream's extents from running for hours.
  VKRT_RETURN_IF_ERROR(charge_work(
      ctx, saturating_product({elements, uint64_t(k.width), uint64_t(k.height),
                               uint64_t(op == PoolOp::ReduceSum ? ifm_map.depth : 1)}),
      "OP_POOL"));
  auto ifm = FeatureMapView::bind(ifm_map, ctx.memory);
  if (!ifm.ok()) return ifm.status();
  auto ofm = FeatureMapView::bind(ofm_map, ctx.memory);
  if (!ofm.ok()) return ofm.status();
  auto out = output_stage(ctx, ofm_map);
  if (!out.ok()) return out.status();

  const bool global = (regs.get(Cmd0::OfmPrecision) >> 8) & 1;
  const uint32_t scale = regs.payload(Cmd1::OfmScale);
  const int shift = regs.param(Cmd1::OfmScale) & 0x3F;
  const int64_t ifm_zp = ifm_map.zero_point;
  for (int oy = 0; oy < ofm_map.height; ++oy) {
    for (int ox = 0; ox < ofm_map.width; ++ox) {
      for (int c = 0; c < ofm_map.depth; ++c) {
        int64_t acc = op == PoolOp::Max ? INT64_MIN : 0;
        int64_t count = 0;
        // REDUCE_SUM also sums over the IFM's channels into one OFM channel.
        const int c_begin = op == PoolOp::ReduceSum ? 0 : c;
        const int c_end = op == PoolOp::ReduceSum ? ifm_map.depth : c + 1;
        for (int ky = 0; ky < k.height; ++ky) {
          const int iy = ifm_coordinate(oy * k.stride_y - k.pad_top + ky, ifm_map.height, k);
          if (iy < 0) continue;
          for (int kx = 0; kx < k.width; ++kx) {
            const int ix = ifm_coordinate(ox * k.stride_x - k.pad_left + kx, ifm_map.width, k);
            if (ix < 0) continue;
            for (int ic = c_begin; ic < c_end; ++ic) {
              const int64_t v = ifm->read(iy, ix, ic) - ifm_zp;
              acc = op == PoolOp::Max ? std::max(acc, v) : acc + v;
              count++;
            }
          }
        }
        if (count == 0) acc = 0;
        int64_t result = acc;
        if (global) {
          result = scale_value(acc, scale, shift, out->rounding);
        } else if (op == PoolOp::Average && count > 1) {
          // Without a global scale the divisor is the number of elements the window covered.
          const int64_t half = count / 2;
          result = acc >= 0 ? (acc + half) / count : (acc - half) / count;
        }
        ofm->write(oy, ox, c, out->finish(result));
      }
    }
  }
  count_operation(ctx, OperationCost{}, ofm_map, {&ifm_map});
  return Status::ok();
}

namespace {

int count_leading_zeros(int64_t v) {
  const uint32_t u = uint32_t(v);
  return u == 0 ? 32 : __builtin_clz(u);
}

}  // namespace

Status run_elementwise(const OperationContext& ctx, ElementwiseOp op) {
  const RegisterFile& regs = ctx.regs;
  const FeatureMap ofm_map = read_feature_map(regs, FeatureMapRole::Ofm);
  FeatureMap ifm_map = read_feature_map(regs, FeatureMapRole::Ifm);
  ifm_map.height = ofm_map.height;
  ifm_map.width = ofm_map.width;
  ifm_map.depth = ofm_map.depth;
  const bool binary = op != ElementwiseOp::Abs && op != ElementwiseOp::Clz &&
                      op != ElementwiseOp::LeakyRelu;
  const uint16_t broadcast = regs.get(Cmd0::Ifm2Broadcast);
  const bool scalar = (broadcast >> 7) & 1;
  const bool reversed = (broadcast >> 6) & 1;
  FeatureMap ifm2_map = read_feature_map(regs, FeatureMapRole::Ifm2);
  ifm2_map.height = (broadcast & 1) ? 1 : ofm_map.height;
  ifm2_map.width = (broadcast & 2) ? 1 : ofm_map.width;
  ifm2_map.depth = (broadcast & 4) ? 1 : ofm_map.depth;
  auto ifm = FeatureMapView::bind(ifm_map, ctx.memory);
  if (!ifm.ok()) return ifm.status();
  FeatureMapView ifm2_view;
  if (binary && !scalar) {
    auto v = FeatureMapView::bind(ifm2_map, ctx.memory);
    if (!v.ok()) return v.status();
    ifm2_view = *v;
  }
  auto ofm = FeatureMapView::bind(ofm_map, ctx.memory);
  if (!ofm.ok()) return ofm.status();
  auto out = output_stage(ctx, ofm_map);
  if (!out.ok()) return out.status();
  const uint64_t elements = uint64_t(ofm_map.height) * ofm_map.width * ofm_map.depth;
  VKRT_RETURN_IF_ERROR(charge_work(ctx, elements, "OP_ELEMENTWISE"));

  const uint32_t ofm_scale = regs.payload(Cmd1::OfmScale);
  const int ofm_shift = regs.param(Cmd1::OfmScale) & 0x3F;
  const uint32_t opa_scale = regs.payload(Cmd1::OpaScale);
  const int opa_shift = regs.param(Cmd1::OpaScale) & 0x3F;
  const uint32_t opb_scale = regs.payload(Cmd1::OpbScale);
  const int opb_shift = regs.param(Cmd1::OpbScale) & 0x3F;
  const int op_to_scale = (regs.get(Cmd0::IfmPrecision) >> 8) & 3;
  // ADD/SUB bring both operands to a common scale first (TFLite's add: inputs shifted left by 20
  // for 8-bit, 15 for 16-bit, the operand with the smaller scale multiplied down).
  const int input_shift = ifm_map.element_bytes == 1 ? 20 : 15;
  const int64_t scalar_value = ifm2_map.is_signed ? int64_t(regs.get_signed(Cmd0::Ifm2Scalar))
                                                  : int64_t(regs.get(Cmd0::Ifm2Scalar));
  const bool wide = ifm_map.element_bytes == 4;  // 32-bit operands take no input scaling
  for (int y = 0; y < ofm_map.height; ++y) {
    for (int x = 0; x < ofm_map.width; ++x) {
      for (int c = 0; c < ofm_map.depth; ++c) {
        int64_t a = ifm->read(y, x, c) - ifm_map.zero_point;
        int64_t b = 0;
        if (binary) {
          b = scalar ? scalar_value
                     : ifm2_view.read((broadcast & 1) ? 0 : y, (broadcast & 2) ? 0 : x,
                                      (broadcast & 4) ? 0 : c);
          b -= ifm2_map.zero_point;
        }
        if (reversed) std::swap(a, b);
        int64_t acc = 0;
        bool scaled = true;
        switch (op) {
          case ElementwiseOp::Add:
          case ElementwiseOp::Sub: {
            if (!wide) {
              if (op_to_scale == 0) {
                a = scale_value(a, opa_scale, opa_shift, RoundingMode::Natural);
                b = scale_value(b, opb_scale, opb_shift, RoundingMode::Natural);
              } else {
                int64_t& small = op_to_scale == 1 ? a : b;
                int64_t& large = op_to_scale == 1 ? b : a;
                const uint32_t s = op_to_scale == 1 ? opa_scale : opb_scale;
                const int sh = op_to_scale == 1 ? opa_shift : opb_shift;
                small = scale_value(small * (int64_t(1) << input_shift), s, sh + input_shift,
                                    RoundingMode::Tfl);
                large = large * (int64_t(1) << (input_shift - 1));
              }
            }
            acc = op == ElementwiseOp::Add ? a + b : a - b;
            break;
          }
          case ElementwiseOp::Mul:
            acc = a * b;
            // 32-bit operands: the 64-bit product takes only the shift of OFM_SCALE (Vela's
            // softmax relies on this: scale 2^30, shift 31 is TFLite's doubling high multiply,
            // scale 1, shift 0 a plain product).
            if (wide) {
              ofm->write(y, x, c, out->finish(scale_value(acc, 1, ofm_shift, out->rounding)));
              continue;
            }
            break;
          case ElementwiseOp::Min: acc = std::min(a, b); break;
          case ElementwiseOp::Max: acc = std::max(a, b); break;
          case ElementwiseOp::Abs: acc = a < 0 ? -a : a; break;
          case ElementwiseOp::LeakyRelu:
            acc = a < 0 ? scale_value(a, opa_scale, opa_shift, out->rounding) : a;
            break;
          case ElementwiseOp::Clz: acc = count_leading_zeros(a); scaled = false; break;
          case ElementwiseOp::Shl: {
            const int64_t amount = std::clamp<int64_t>(b, 0, 31);
            acc = int64_t(int32_t(uint32_t(a) << amount));
            scaled = false;
            break;
          }
          case ElementwiseOp::Shr: {
            const int amount = int(std::clamp<int64_t>(b, 0, 31));
            acc = out->rounding == RoundingMode::Truncate ? (a >> amount)
                                                           : int64_t(round_half_up_shift(a, amount));
            scaled = false;
            break;
          }
        }
        const int64_t result = scaled ? scale_value(acc, ofm_scale, ofm_shift, out->rounding) : acc;
        ofm->write(y, x, c, out->finish(result));
      }
    }
  }
  OperationCost cost;
  cost.elementwise = true;
  if (binary && !scalar) {
    count_operation(ctx, cost, ofm_map, {&ifm_map, &ifm2_map});
  } else {
    count_operation(ctx, cost, ofm_map, {&ifm_map});
  }
  return Status::ok();
}

}  // namespace vkrt::ethosu::virtual_npu
