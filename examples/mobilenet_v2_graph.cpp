#include "mobilenet_v2_graph.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace vkrt::samples {
namespace {

using vgf::DType;
using vgf::OpKind;
using vgf::Shape;
using vgf::TensorId;

// What each precision uses for activations, weights, biases and accumulators.
struct Types {
  DType activation, weight, bias;
  vgf::AccType acc;
  int32_t zero_point;  // of the activations (TOSA: int16 zero points are 0)
};

Types types_of(Precision p) {
  switch (p) {
    case Precision::Int8: return {DType::Int8, DType::Int8, DType::Int32, vgf::AccType::Int32, -128};
    case Precision::A16W8: return {DType::Int16, DType::Int8, DType::Int48, vgf::AccType::Int48, 0};
    case Precision::Fp32: break;
  }
  return {DType::Fp32, DType::Fp32, DType::Fp32, vgf::AccType::Fp32, 0};
}

class Builder {
 public:
  Builder(Precision precision, uint32_t seed, bool single_round = false)
      : precision_(precision), t_(types_of(precision)), rng_(seed), single_round_(single_round) {}

  TensorId tensor(DType t, Shape s) {
    vgf::TensorInfo info;
    info.name = "t" + std::to_string(g.tensors.size());
    info.dtype = t;
    info.shape = std::move(s);
    return g.add_tensor(std::move(info));
  }
  TensorId activation(Shape s) { return tensor(t_.activation, std::move(s)); }

  // Integer constants uniform in [lo, hi]; fp32 ones uniform in [-scale, scale] on a grid of
  // 2^-20 * scale: an integer draw times one constant, one rounding, so that every machine
  // writes the same bits (a float distribution's arithmetic may be contracted into FMAs
  // differently from one architecture to the next).
  TensorId random_constant(DType t, Shape s, int lo, int hi, float scale = 0) {
    vgf::TensorInfo info;
    info.name = "w" + std::to_string(g.tensors.size());
    info.dtype = t;
    info.shape = std::move(s);
    info.is_constant = true;
    int64_t n = 1;
    for (int64_t d : info.shape) n *= d;
    const size_t width = vgf::dtype_storage_bytes(t);
    info.owned.resize(size_t(n) * width);
    std::uniform_int_distribution<int> ints(lo, hi);
    std::uniform_int_distribution<int32_t> grid(-(1 << 20), 1 << 20);
    const float step = scale / float(1 << 20);
    for (int64_t i = 0; i < n; ++i) {
      uint8_t* at = &info.owned[size_t(i) * width];
      if (t == DType::Fp32) {
        const float v = float(grid(rng_)) * step;
        std::memcpy(at, &v, 4);
      } else {
        const int64_t v = ints(rng_);  // little-endian, truncated to the storage width
        std::memcpy(at, &v, width);
      }
    }
    return g.add_tensor(std::move(info));
  }

  void op(OpKind k, std::vector<TensorId> in, TensorId out, vgf::OpAttributes attr = vgf::NoAttr{}) {
    g.add_op(k, std::move(in), out, std::move(attr));
  }

  // Multipliers in [2^30, 2^31) and `shift`; with `scale16` (TOSA's rule for int48 inputs)
  // multipliers in [2^14, 2^15) and shift - 16: the same scales.
  vgf::RescaleAttr requant(int64_t channels, int32_t out_zp, int shift, bool scale16 = false) {
    vgf::RescaleAttr a;
    a.scale32 = !scale16;
    // TOSA: double rounding needs scale32.
    a.rounding_mode = scale16 || single_round_ ? vgf::RoundingMode::SingleRound : vgf::RoundingMode::DoubleRound;
    a.per_channel = channels > 1;
    a.output_zp = out_zp;
    std::uniform_int_distribution<int32_t> m(scale16 ? 1 << 14 : 1 << 30, scale16 ? INT16_MAX : INT32_MAX);
    for (int64_t c = 0; c < (channels > 1 ? channels : 1); ++c) {
      a.multiplier.push_back(m(rng_));
      a.shift.push_back(int8_t(scale16 ? shift - 16 : shift));
    }
    return a;
  }

  // conv (regular or depthwise) -> (RESCALE for integer precisions) -> optional ReLU6 CLAMP.
  TensorId conv(TensorId x, const Shape& in_shape, int64_t out_c, int k, int stride, bool depthwise, bool relu6,
                Shape* out_shape) {
    int64_t n = in_shape[0], h = in_shape[1], w = in_shape[2], c = in_shape[3];
    // TFLite "SAME" padding: stride-2 layers pad only bottom/right, so TOSA's exact-division
    // rule holds (tosa.md §6).
    int pad = k / 2;
    int pad_before = stride == 2 ? pad - 1 : pad;
    if (pad_before < 0) pad_before = 0;
    int64_t oh = (h + pad_before + pad - k) / stride + 1, ow = (w + pad_before + pad - k) / stride + 1;
    Shape so{n, oh, ow, out_c};
    vgf::ConvAttr a;
    a.pad = {pad_before, pad, pad_before, pad, 0, 0};
    a.stride = {stride, stride, 1};
    a.acc_type = t_.acc;
    a.input_zp = t_.zero_point;
    const bool fp = precision_ == Precision::Fp32;
    // fp32: He-style scale keeps activations in range through 50 layers.
    const float w_scale = std::sqrt(6.0f / float(k * k * (depthwise ? 1 : c)));
    const Shape w_shape = depthwise ? Shape{k, k, c, 1} : Shape{out_c, k, k, c};
    TensorId weight = random_constant(t_.weight, w_shape, -127, 127, w_scale);
    TensorId bias = random_constant(t_.bias, {out_c}, -2000, 2000, 0.05f);
    const OpKind kind = depthwise ? OpKind::DEPTHWISE_CONV2D : OpKind::CONV2D;
    TensorId q;
    if (fp) {
      q = activation(so);
      op(kind, {x, weight, bias}, q, a);
    } else {
      TensorId acc = tensor(t_.acc == vgf::AccType::Int48 ? DType::Int48 : DType::Int32, so);
      op(kind, {x, weight, bias}, acc, a);
      q = activation(so);
      // A scale of about 2^-8.5: keeps int8 activations in range layer after layer; int16 ones
      // (ReLU6 up to 6 * 256) grow and shrink by the same factors.
      op(OpKind::RESCALE, {acc}, q, requant(out_c, t_.zero_point, 39, t_.acc == vgf::AccType::Int48));
    }
    if (relu6) {
      vgf::ClampAttr ca;
      ca.min_int = t_.zero_point;
      ca.max_int = precision_ == Precision::A16W8 ? 6 * 256 : 20;
      ca.min_fp = 0.0;
      ca.max_fp = 6.0;
      TensorId r = activation(so);
      op(OpKind::CLAMP, {q}, r, ca);
      q = r;
    }
    *out_shape = so;
    return q;
  }

  // Residual add: fp32 directly; integers through int32 (both sides rescaled up, ADD, back).
  TensorId residual_add(TensorId a, TensorId b, const Shape& s) {
    TensorId out = activation(s);
    if (precision_ == Precision::Fp32) {
      op(OpKind::ADD, {a, b}, out);
      return out;
    }
    vgf::RescaleAttr up = requant(1, 0, 20);  // x * 2^10: headroom for the add (int16 x 2^10 fits int32)
    up.input_zp = t_.zero_point;
    up.multiplier = {1 << 30};
    up.rounding_mode = vgf::RoundingMode::SingleRound;
    TensorId a32 = tensor(DType::Int32, s), b32 = tensor(DType::Int32, s), sum = tensor(DType::Int32, s);
    op(OpKind::RESCALE, {a}, a32, up);
    op(OpKind::RESCALE, {b}, b32, up);
    op(OpKind::ADD, {a32, b32}, sum);
    vgf::RescaleAttr down = requant(1, t_.zero_point, 41);
    down.multiplier = {1 << 30};
    op(OpKind::RESCALE, {sum}, out, down);
    return out;
  }

  // Global average pool, 1x1 classifier, flatten to [batch, classes].
  TensorId head(TensorId x, const Shape& s, int64_t classes) {
    vgf::PoolAttr pa;
    pa.kernel = {int32_t(s[1]), int32_t(s[2])};
    pa.stride = {1, 1};
    pa.acc_type = precision_ == Precision::Fp32 ? vgf::AccType::Fp32 : vgf::AccType::Int32;
    pa.input_zp = t_.zero_point;
    pa.output_zp = t_.zero_point;
    Shape ps{s[0], 1, 1, s[3]};
    TensorId pooled = activation(ps);
    op(OpKind::AVG_POOL2D, {x}, pooled, pa);
    Shape ls;
    TensorId logits = conv(pooled, ps, classes, 1, 1, false, false, &ls);
    TensorId flat = activation({ls[0], classes});
    vgf::ReshapeAttr ra;
    ra.shape = {ls[0], classes};
    op(OpKind::RESHAPE, {logits}, flat, ra);
    return flat;
  }

  // MobileNetV2's inverted residual block: expand (1x1, ReLU6) unless t == 1, depthwise 3x3
  // (ReLU6), project (1x1, linear), residual add when the shapes allow.
  TensorId inverted_residual(TensorId x, Shape* s, int expansion, int64_t out_c, int stride) {
    const Shape in_shape = *s;
    TensorId h = x;
    if (expansion != 1) h = conv(h, *s, (*s)[3] * expansion, 1, 1, false, true, s);
    h = conv(h, *s, (*s)[3], 3, stride, true, true, s);
    h = conv(h, *s, out_c, 1, 1, false, false, s);
    if (stride == 1 && in_shape[3] == out_c) h = residual_add(x, h, *s);
    return h;
  }

  TensorId input(Shape s) {
    TensorId x = activation(std::move(s));
    g.inputs.push_back({x, "input", 0, 0});
    return x;
  }

  vgf::Graph finish(TensorId out, std::string name) {
    g.outputs.push_back({out, "logits", 1, 0});
    g.name = std::move(name);
    return std::move(g);
  }

  vgf::Graph g;

 private:
  Precision precision_;
  Types t_;
  std::mt19937 rng_;
  bool single_round_;
};

}  // namespace

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Int8: return "int8";
    case Precision::A16W8: return "a16w8";
    case Precision::Fp32: return "fp32";
  }
  return "?";
}

vgf::Graph build_mobilenet_v2(const MobileNetV2Options& o) {
  Builder b(o.precision, o.seed, o.single_round);
  Shape s{o.batch, o.resolution, o.resolution, 3};
  TensorId x = b.input(s);
  x = b.conv(x, s, 32, 3, 2, false, true, &s);
  // (expansion t, channels c, repeats n, first stride s) — MobileNetV2 Table 2.
  const int blocks[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                            {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (const auto& blk : blocks)
    for (int i = 0; i < blk[2]; ++i) x = b.inverted_residual(x, &s, blk[0], blk[1], i == 0 ? blk[3] : 1);
  x = b.conv(x, s, 1280, 1, 1, false, true, &s);
  return b.finish(b.head(x, s, 1000), std::string("mobilenet_v2_") + precision_name(o.precision));
}

vgf::Graph build_small_cnn(Precision precision, int64_t batch, uint32_t seed) {
  Builder b(precision, seed);
  Shape s{batch, 32, 32, 3};
  TensorId x = b.input(s);
  x = b.conv(x, s, 16, 3, 2, false, true, &s);
  x = b.inverted_residual(x, &s, 4, 16, 1);
  x = b.conv(x, s, 32, 3, 2, false, true, &s);
  return b.finish(b.head(x, s, 10), std::string("small_cnn_") + precision_name(precision));
}

}  // namespace vkrt::samples
