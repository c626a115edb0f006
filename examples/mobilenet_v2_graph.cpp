#include "mobilenet_v2_graph.h"

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

class Builder {
 public:
  explicit Builder(uint32_t seed) : rng_(seed) {}

  TensorId tensor(DType t, Shape s) {
    vgf::TensorInfo info;
    info.name = "t" + std::to_string(g.tensors.size());
    info.dtype = t;
    info.shape = std::move(s);
    return g.add_tensor(std::move(info));
  }

  TensorId random_constant(DType t, Shape s, int lo, int hi) {
    vgf::TensorInfo info;
    info.name = "w" + std::to_string(g.tensors.size());
    info.dtype = t;
    info.shape = std::move(s);
    info.is_constant = true;
    int64_t n = 1;
    for (int64_t d : info.shape) n *= d;
    std::uniform_int_distribution<int> dist(lo, hi);
    info.owned.resize(size_t(n) * vgf::dtype_storage_bytes(t));
    for (int64_t i = 0; i < n; ++i) {
      int v = dist(rng_);
      if (t == DType::Int8) {
        info.owned[size_t(i)] = uint8_t(int8_t(v));
      } else {
        int32_t w = v;
        std::memcpy(&info.owned[size_t(i) * 4], &w, 4);
      }
    }
    return g.add_tensor(std::move(info));
  }

  void op(OpKind k, std::vector<TensorId> in, TensorId out, vgf::OpAttributes attr = vgf::NoAttr{}) {
    g.add_op(k, std::move(in), out, std::move(attr));
  }

  vgf::RescaleAttr requant(int64_t channels, int32_t out_zp) {
    vgf::RescaleAttr a;
    a.rounding_mode = vgf::RoundingMode::DoubleRound;
    a.per_channel = channels > 1;
    a.output_zp = out_zp;
    std::uniform_int_distribution<int32_t> m(1 << 30, INT32_MAX);
    for (int64_t c = 0; c < (channels > 1 ? channels : 1); ++c) {
      a.multiplier.push_back(m(rng_));
      a.shift.push_back(int8_t(39));
    }
    return a;
  }

  // conv (regular or depthwise) -> RESCALE -> optional ReLU6 CLAMP. Returns the int8 output.
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
    a.input_zp = -128;
    TensorId weight = depthwise ? random_constant(DType::Int8, {k, k, c, 1}, -127, 127)
                                : random_constant(DType::Int8, {out_c, k, k, c}, -127, 127);
    TensorId bias = random_constant(DType::Int32, {out_c}, -2000, 2000);
    TensorId acc = tensor(DType::Int32, so);
    op(depthwise ? OpKind::DEPTHWISE_CONV2D : OpKind::CONV2D, {x, weight, bias}, acc, a);
    TensorId q = tensor(DType::Int8, so);
    op(OpKind::RESCALE, {acc}, q, requant(out_c, -128));
    if (relu6) {
      vgf::ClampAttr ca;
      ca.min_int = -128;
      ca.max_int = 20;
      TensorId r = tensor(DType::Int8, so);
      op(OpKind::CLAMP, {q}, r, ca);
      q = r;
    }
    *out_shape = so;
    return q;
  }

  // int8 residual add: both sides to int32, ADD, back to int8.
  TensorId residual_add(TensorId a, TensorId b, const Shape& s) {
    vgf::RescaleAttr up = requant(1, 0);
    up.input_zp = -128;
    up.multiplier = {1 << 30};
    up.shift = {20};  // x * 2^10, headroom for the add
    up.rounding_mode = vgf::RoundingMode::SingleRound;
    up.per_channel = false;
    TensorId a32 = tensor(DType::Int32, s), b32 = tensor(DType::Int32, s), sum = tensor(DType::Int32, s);
    op(OpKind::RESCALE, {a}, a32, up);
    op(OpKind::RESCALE, {b}, b32, up);
    op(OpKind::ADD, {a32, b32}, sum);
    TensorId out = tensor(DType::Int8, s);
    vgf::RescaleAttr down = requant(1, -128);
    down.multiplier = {1 << 30};
    down.shift = {41};
    op(OpKind::RESCALE, {sum}, out, down);
    return out;
  }

  vgf::Graph g;

 private:
  std::mt19937 rng_;
};

}  // namespace

vgf::Graph build_mobilenet_v2_int8(const MobileNetV2Options& o) {
  Builder b(o.seed);
  Shape s{o.batch, o.resolution, o.resolution, 3};
  TensorId x = b.tensor(DType::Int8, s);
  b.g.inputs.push_back({x, "input", 0, 0});
  x = b.conv(x, s, 32, 3, 2, false, true, &s);
  // (expansion t, channels c, repeats n, first stride s) — MobileNetV2 Table 2.
  const int blocks[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                            {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (const auto& blk : blocks) {
    for (int i = 0; i < blk[2]; ++i) {
      int stride = i == 0 ? blk[3] : 1;
      Shape in_shape = s;
      TensorId in = x;
      TensorId h = x;
      Shape hs = s;
      if (blk[0] != 1) h = b.conv(h, hs, hs[3] * blk[0], 1, 1, false, true, &hs);
      h = b.conv(h, hs, hs[3], 3, stride, true, true, &hs);
      h = b.conv(h, hs, blk[1], 1, 1, false, false, &hs);
      if (stride == 1 && in_shape[3] == blk[1]) h = b.residual_add(in, h, hs);
      x = h;
      s = hs;
    }
  }
  x = b.conv(x, s, 1280, 1, 1, false, true, &s);
  // Global average pool, 1x1 classifier, flatten.
  vgf::PoolAttr pa;
  pa.kernel = {int32_t(s[1]), int32_t(s[2])};
  pa.stride = {1, 1};
  pa.input_zp = -128;
  pa.output_zp = -128;
  Shape ps{s[0], 1, 1, s[3]};
  TensorId pooled = b.tensor(DType::Int8, ps);
  b.op(OpKind::AVG_POOL2D, {x}, pooled, pa);
  Shape ls;
  TensorId logits = b.conv(pooled, ps, 1000, 1, 1, false, false, &ls);
  TensorId flat = b.tensor(DType::Int8, {ls[0], 1000});
  vgf::ReshapeAttr ra;
  ra.shape = {ls[0], 1000};
  b.op(OpKind::RESHAPE, {logits}, flat, ra);
  b.g.outputs.push_back({flat, "logits", 1, 0});
  b.g.name = "mobilenet_v2_int8";
  return std::move(b.g);
}

}  // namespace vkrt::samples
