// Highway versions of three compute-core kernels (hwy_kernels.h), each written once and compiled
// by foreach_target.h for the x86 targets Highway 1.0.3 has from AVX2 up (AVX3_DL, AVX3, AVX2)
// and its fallback; SSSE3 and SSE4 are left out to save compile time. HWY_DYNAMIC_DISPATCH picks
// the target at each call; select_target() pins it for the benchmark.
//
// Two details of GCC's code generation decided the figures (docs/simd-choice.md): the GEMM
// tile's small per-row loops are unrolled by pragma (else the accumulator arrays are zeroed by a
// memset on the stack), and the requantize row keeps partial loads out of its loop (on AVX2 they
// call memcpy, and the call spills the constant vectors).
//
// The arithmetic is ours, op for op (cpu_fallback/compute/simd_avx2.h, simd_avx512.h): the
// CMSIS-NN requantization RDBPOT(SRDHM_no_sat(v << left, m), right) on int32 lanes, with the
// 32x32→64 products from MulEven (Highway 1.0.3 has no MulOdd for int32: the odd lanes are
// shifted down first, as our AVX2 helper does).
//
// HWY_SCALAR (the fallback GCC 12.2 gets instead of EMU128, chosen only on a CPU without AVX2
// since SSSE3/SSE4 are not compiled) has one-lane vectors without 64-bit BitCast, halves or int16
// pairs: there the kernels are plain scalar loops.

// AVX3_DL (Ice Lake / Zen 4: VNNI, VBMI2, ...) is compiled only on request in Highway 1.0.3.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL 1
#endif
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4)
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "arith/fixed_point.h"
#include "hwy_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "hwy_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace vkrt::bench_hwy {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using compute::GemmS8;
using compute::RequantizeRow;
using cortex_m::DepthwiseConv2dParams;

const char* TargetNameImpl() { return hwy::TargetName(HWY_TARGET); }

// ---- memory helpers ---------------------------------------------------------------------------
// The first n lanes at p (the rest zero) without touching memory past them: a masked load where
// the target's masked loads cannot fault (AVX3), else a copy through the stack (AVX2 has no
// byte-masked load).
template <class D, typename T = hn::TFromD<D>>
HWY_INLINE hn::Vec<D> LoadPartial(D d, const T* p, ptrdiff_t n) {
  if (n >= ptrdiff_t(hn::Lanes(d))) return hn::LoadU(d, p);
  if (n <= 0) return hn::Zero(d);
#if HWY_MEM_OPS_MIGHT_FAULT
  HWY_ALIGN T tmp[HWY_MAX_BYTES / sizeof(T)] = {};
  std::memcpy(tmp, p, size_t(n) * sizeof(T));
  return hn::Load(d, tmp);
#else
  return hn::MaskedLoad(hn::FirstN(d, size_t(n)), d, p);
#endif
}

template <class D, typename T = hn::TFromD<D>>
HWY_INLINE void StorePartial(D d, hn::Vec<D> v, T* p, ptrdiff_t n) {
  if (n >= ptrdiff_t(hn::Lanes(d))) {
    hn::StoreU(v, d, p);
    return;
  }
  if (n <= 0) return;
#if HWY_MEM_OPS_MIGHT_FAULT
  HWY_ALIGN T tmp[HWY_MAX_BYTES / sizeof(T)];
  hn::Store(v, d, tmp);
  std::memcpy(p, tmp, size_t(n) * sizeof(T));
#else
  hn::BlendedStore(v, hn::FirstN(d, size_t(n)), d, p);
#endif
}

// ---- the output stage ---------------------------------------------------------------------------
// arith::requantize on int32 lanes, per-lane multiplier and CMSIS shift.
template <class D>
HWY_INLINE hn::Vec<D> Requantize(D d, hn::Vec<D> v, hn::Vec<D> mult, hn::Vec<D> shift) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(d, arith::requantize(hn::GetLane(v), hn::GetLane(mult), hn::GetLane(shift)));
#else
  using V = hn::Vec<D>;
  const hn::Repartition<uint64_t, D> du64;
  const V zero = hn::Zero(d), max_shift = hn::Set(d, 31), one = hn::Set(d, 1);
  const V left = hn::Min(hn::Max(shift, zero), max_shift);
  const V right = hn::Min(hn::Max(hn::Sub(zero, shift), zero), max_shift);
  v = v << left;
  // SRDHM without saturation: (i64(a)·b + 2^30) >> 31, low 32 bits (a logical shift gives the
  // same low bits as an arithmetic one, and AVX2 has no 64-bit arithmetic shift).
  const auto round = hn::Set(du64, uint64_t{1} << 30);
  const auto even = hn::ShiftRight<31>(hn::Add(hn::BitCast(du64, hn::MulEven(v, mult)), round));
  const V v_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, v)));
  const V m_odd = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, mult)));
  const auto odd = hn::ShiftRight<31>(hn::Add(hn::BitCast(du64, hn::MulEven(v_odd, m_odd)), round));
  const V x = hn::OddEven(hn::BitCast(d, hn::ShiftLeft<32>(odd)), hn::BitCast(d, even));
  // Rounding divide by 2^right, ties away from zero.
  const V mask = hn::Sub(one << right, one);
  const V remainder = hn::And(x, mask);
  const V quotient = x >> right;
  const V threshold = hn::Sub(hn::ShiftRight<1>(mask), hn::ShiftRight<31>(quotient));
  return hn::Sub(quotient, hn::VecFromMask(d, remainder > threshold));
#endif
}

// clamp(v + offset, lo, hi) narrowed to int8 (saturating) and stored to n bytes.
template <class D>
HWY_INLINE void StoreS8(D d, hn::Vec<D> v, hn::Vec<D> offset, hn::Vec<D> lo, hn::Vec<D> hi, int8_t* out,
                        ptrdiff_t n) {
  const hn::Rebind<int8_t, D> d8;
  v = hn::Min(hn::Max(hn::Add(v, offset), lo), hi);
  StorePartial(d8, hn::DemoteTo(d8, v), out, n);
}

// Whole vectors in the loop, the tail (count % lanes) once after it, and the per-channel choice
// outside the loop: so that GCC keeps the constants in registers (a partial load or store inside
// the loop calls memcpy on AVX2, and the call spills every vector register).
template <bool kPerChannel>
HWY_INLINE void RequantizeRowLoop(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                                  int8_t* out) {
  const hn::ScalableTag<int32_t> d;
  using V = hn::Vec<decltype(d)>;
  const int lanes = int(hn::Lanes(d));
  const V offset = hn::Set(d, spec.output_offset);
  const V lo = hn::Set(d, spec.activation_min), hi = hn::Set(d, spec.activation_max);
  const int32_t* mult = spec.multiplier + (kPerChannel ? first_channel : 0);
  const int32_t* shift = spec.shift + (kPerChannel ? first_channel : 0);
  V m = hn::Set(d, mult[0]), s = hn::Set(d, shift[0]);
  int i = 0;
  for (; i + lanes <= count; i += lanes) {
    if (kPerChannel) {
      m = hn::LoadU(d, mult + i);
      s = hn::LoadU(d, shift + i);
    }
    StoreS8(d, Requantize(d, hn::LoadU(d, acc + i), m, s), offset, lo, hi, out + i, lanes);
  }
  if (i < count) {
    const ptrdiff_t n = count - i;
    if (kPerChannel) {
      m = LoadPartial(d, mult + i, n);
      s = LoadPartial(d, shift + i, n);
    }
    StoreS8(d, Requantize(d, LoadPartial(d, acc + i, n), m, s), offset, lo, hi, out + i, n);
  }
}

void RequantizeRowImpl(const RequantizeRow& spec, const int32_t* acc, int first_channel, int count, int8_t* out) {
  if (spec.per_channel)
    RequantizeRowLoop<true>(spec, acc, first_channel, count, out);
  else
    RequantizeRowLoop<false>(spec, acc, first_channel, count, out);
}

// ---- depthwise row -------------------------------------------------------------------------------
// Our AVX-512BW / AVX2 row (cortex_m/depthwise_conv2d.cpp) written once: one int16 vector of
// channels per step ((x + in_off)·w exact in int16), the products widened into two int32
// accumulators that stay in registers across the taps of a pixel.
inline void ValidRange(int64_t start, int32_t kernel, int32_t dilation, int32_t size, int32_t* k0, int32_t* k1) {
  for (*k0 = 0; *k0 < kernel && start + int64_t(*k0) * dilation < 0; ++*k0) {}
  for (*k1 = kernel; *k1 > *k0 && start + int64_t(*k1 - 1) * dilation >= size; --*k1) {}
}

void DepthwiseRow(const DepthwiseConv2dParams& p, int64_t b, int32_t oy, const int8_t* input, const int8_t* weight,
                  const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output) {
#if HWY_TARGET == HWY_SCALAR
  for (int32_t ox = 0; ox < p.out_w; ++ox)
    for (int32_t c = 0; c < p.in_ch; ++c) {
      int32_t acc = bias ? bias[c] : 0;
      for (int32_t ky = 0; ky < p.kernel_h; ++ky)
        for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
          const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
          const int64_t ix = int64_t(ox) * p.stride_w - p.pad_w + int64_t(kx) * p.dilation_w;
          if (iy < 0 || iy >= p.in_h || ix < 0 || ix >= p.in_w) continue;
          const int32_t x = input[((b * p.in_h + iy) * p.in_w + ix) * p.in_ch + c];
          acc = arith::wrap_add(acc, arith::wrap_mul(x + p.input_offset, weight[(int64_t(ky) * p.kernel_w + kx) * p.in_ch + c]));
        }
      const int32_t v = arith::wrap_add(arith::requantize(acc, multiplier[c], shift[c]), p.output_offset);
      output[((b * p.out_h + oy) * p.out_w + ox) * p.in_ch + c] =
          int8_t(arith::clamp_activation(v, p.activation_min, p.activation_max));
    }
#else
  const hn::ScalableTag<int16_t> d16;
  const hn::Rebind<int8_t, decltype(d16)> d8;
  const hn::Half<decltype(d16)> dh16;
  const hn::Rebind<int32_t, decltype(dh16)> d32;
  using V32 = hn::Vec<decltype(d32)>;
  const ptrdiff_t lanes = ptrdiff_t(hn::Lanes(d16)), half = lanes / 2;
  const int32_t channels = p.in_ch;
  const auto offset16 = hn::Set(d16, int16_t(p.input_offset));
  const V32 out_offset = hn::Set(d32, p.output_offset);
  const V32 lo = hn::Set(d32, p.activation_min), hi = hn::Set(d32, p.activation_max);
  int32_t ky0, ky1;
  ValidRange(int64_t(oy) * p.stride_h - p.pad_h, p.kernel_h, p.dilation_h, p.in_h, &ky0, &ky1);
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
    int32_t kx0, kx1;
    ValidRange(ix0, p.kernel_w, p.dilation_w, p.in_w, &kx0, &kx1);
    int8_t* out = output + ((b * p.out_h + oy) * p.out_w + ox) * channels;
    for (int32_t c = 0; c < channels; c += int32_t(lanes)) {
      const ptrdiff_t n = channels - c;
      V32 acc_lo = bias ? LoadPartial(d32, bias + c, n) : hn::Zero(d32);
      V32 acc_hi = bias ? LoadPartial(d32, bias + c + half, n - half) : hn::Zero(d32);
      for (int32_t ky = ky0; ky < ky1; ++ky) {
        const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
        const int8_t* in_row = input + ((b * p.in_h + iy) * p.in_w) * channels + c;
        const int8_t* w_row = weight + int64_t(ky) * p.kernel_w * channels + c;
        for (int32_t kx = kx0; kx < kx1; ++kx) {
          const int64_t ix = ix0 + int64_t(kx) * p.dilation_w;
          const auto x = hn::Add(hn::PromoteTo(d16, LoadPartial(d8, in_row + ix * channels, n)), offset16);
          const auto w = hn::PromoteTo(d16, LoadPartial(d8, w_row + int64_t(kx) * channels, n));
          const auto prod = hn::Mul(x, w);
          acc_lo = hn::Add(acc_lo, hn::PromoteTo(d32, hn::LowerHalf(dh16, prod)));
          acc_hi = hn::Add(acc_hi, hn::PromoteTo(d32, hn::UpperHalf(dh16, prod)));
        }
      }
      const V32 m_lo = LoadPartial(d32, multiplier + c, n), m_hi = LoadPartial(d32, multiplier + c + half, n - half);
      const V32 s_lo = LoadPartial(d32, shift + c, n), s_hi = LoadPartial(d32, shift + c + half, n - half);
      StoreS8(d32, Requantize(d32, acc_lo, m_lo, s_lo), out_offset, lo, hi, out + c, n);
      StoreS8(d32, Requantize(d32, acc_hi, m_hi, s_hi), out_offset, lo, hi, out + c + half, n - half);
    }
  }
#endif
}

void DepthwiseImpl(const DepthwiseConv2dParams& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
                   const int32_t* multiplier, const int32_t* shift, int8_t* output) {
  for (int64_t b = 0; b < p.batches; ++b)
    for (int32_t oy = 0; oy < p.out_h; ++oy)
      DepthwiseRow(p, b, oy, input, weight, bias, multiplier, shift, output);
}

// ---- int8 GEMM -----------------------------------------------------------------------------------
constexpr int kBlockRows = 64;  // rows of A packed at a time
// Rows of one register tile × 2 vectors of columns: 8 rows (16 accumulators of 32 registers) on
// AVX-512, 4 rows (8 of 16) on narrower targets.
constexpr int kTileRows = HWY_MAX_BYTES >= 64 ? 8 : 4;

void PackBImpl(const GemmS8& g, PackedB* pb) {
  const hn::ScalableTag<int32_t> d32;
  const int32_t pw = int32_t(2 * hn::Lanes(d32));
  pb->n = g.n;
  pb->k = g.k;
  pb->kp = (g.k + 1) / 2 * 2;
  pb->panel_columns = pw;
  pb->panels = (g.n + pw - 1) / pw;
  const size_t columns = size_t(pb->panels) * pw;
  pb->data.assign(columns * size_t(pb->kp), 0);
  pb->colterm.assign(columns, 0);
  pb->mult.assign(columns, 0);
  pb->shift.assign(columns, 0);
  for (int32_t j = 0; j < g.n; ++j) {
    const int8_t* src = g.b + int64_t(j) * g.b_stride;
    int8_t* panel = pb->data.data() + size_t(j / pw) * pw * pb->kp;
    const int32_t jj = j % pw;
    for (int32_t i = 0; i < g.k; ++i) panel[size_t(i / 2) * 2 * pw + jj * 2 + (i % 2)] = src[i];
    pb->colterm[j] = g.bias ? g.bias[j] : 0;  // A carries its offset; B's offset is a row term
    pb->mult[j] = compute::out_multiplier(g, j);
    pb->shift[j] = compute::out_shift(g, j);
  }
}

#if HWY_TARGET != HWY_SCALAR
// Row of A as int16 with its offset, zero past k; returns bo·Σ(a + ao) (wrapping).
int32_t PackARow(const GemmS8& g, const int8_t* src, int32_t kp, int16_t* dst) {
  const hn::ScalableTag<int16_t> d16;
  const hn::Rebind<int8_t, decltype(d16)> d8;
  const int32_t lanes = int32_t(hn::Lanes(d16));
  const auto offset = hn::Set(d16, int16_t(g.a_offset));
  int32_t i = 0;
  for (; i + lanes <= g.k; i += lanes) hn::StoreU(hn::Add(hn::PromoteTo(d16, hn::LoadU(d8, src + i)), offset), d16, dst + i);
  for (; i < g.k; ++i) dst[i] = int16_t(src[i] + g.a_offset);
  for (; i < kp; ++i) dst[i] = 0;
  if (g.b_offset == 0) return 0;
  uint32_t sum = 0;
  for (int32_t t = 0; t < g.k; ++t) sum += uint32_t(int32_t(src[t]) + g.a_offset);
  return int32_t(uint32_t(g.b_offset) * sum);
}

// L columns of one row: acc + colterm + row term, requantized, offset, clamped, stored.
template <class D>
HWY_INLINE void StoreColumns(D d32, const GemmS8& g, const PackedB& pb, hn::Vec<D> acc, int32_t row_term, int64_t row,
                             int32_t col) {
  const ptrdiff_t cols = ptrdiff_t(g.n) - col;
  if (cols <= 0) return;
  acc = hn::Add(hn::Add(acc, hn::LoadU(d32, pb.colterm.data() + col)), hn::Set(d32, row_term));
  const auto v = Requantize(d32, acc, hn::LoadU(d32, pb.mult.data() + col), hn::LoadU(d32, pb.shift.data() + col));
  StoreS8(d32, v, hn::Set(d32, g.out.output_offset), hn::Set(d32, g.out.activation_min),
          hn::Set(d32, g.out.activation_max), g.c + row * g.c_stride + col, cols);
}

// R rows × one panel (2 vectors of L columns): per depth pair, a broadcast pair of A against the
// pairs of 2·L columns of B, VPMADDWD through ReorderWidenMulAccumulate.
template <int R>
HWY_NOINLINE void Tile(const GemmS8& g, const PackedB& pb, const int16_t* a_pack, const int32_t* row_terms,
                       int64_t row0, int32_t panel) {
  const hn::ScalableTag<int16_t> d16;
  const hn::Rebind<int8_t, decltype(d16)> d8;
  const hn::Repartition<int32_t, decltype(d16)> d32;
  using V32 = hn::Vec<decltype(d32)>;
  const size_t lanes16 = hn::Lanes(d16);
  const int32_t kp = pb.kp;
  V32 acc0[R], acc1[R], odd0[R], odd1[R];  // odd*: the second sums of ReorderWidenMulAccumulate
  // Unrolled here so that GCC keeps the arrays in registers (as a loop it becomes a memset, and
  // the dead odd* sums of x86 stay on the stack).
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = odd0[r] = odd1[r] = hn::Zero(d32);
  const int8_t* bp = pb.data.data() + size_t(panel) * pb.panel_columns * kp;
  for (int32_t kk = 0; kk < kp; kk += 2, bp += 2 * lanes16) {
    const auto b0 = hn::PromoteTo(d16, hn::LoadU(d8, bp));
    const auto b1 = hn::PromoteTo(d16, hn::LoadU(d8, bp + lanes16));
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      int32_t pair;
      std::memcpy(&pair, a_pack + size_t(r) * kp + kk, sizeof(pair));
      const auto a = hn::BitCast(d16, hn::Set(d32, pair));
      acc0[r] = hn::ReorderWidenMulAccumulate(d32, a, b0, acc0[r], odd0[r]);
      acc1[r] = hn::ReorderWidenMulAccumulate(d32, a, b1, acc1[r], odd1[r]);
    }
  }
  const int32_t col = panel * pb.panel_columns, half = pb.panel_columns / 2;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    StoreColumns(d32, g, pb, hn::RearrangeToOddPlusEven(acc0[r], odd0[r]), row_terms[r], row0 + r, col);
    StoreColumns(d32, g, pb, hn::RearrangeToOddPlusEven(acc1[r], odd1[r]), row_terms[r], row0 + r, col + half);
  }
}

// A tile of `rows` < R rows: the tile of exactly that many.
template <int R>
HWY_INLINE void ShortTile(int rows, const GemmS8& g, const PackedB& pb, const int16_t* a_pack,
                          const int32_t* row_terms, int64_t row0, int32_t panel) {
  if constexpr (R > 0) {
    if (rows == R) return Tile<R>(g, pb, a_pack, row_terms, row0, panel);
    ShortTile<R - 1>(rows, g, pb, a_pack, row_terms, row0, panel);
  }
}

#endif  // HWY_TARGET != HWY_SCALAR

bool GemmImpl(const GemmS8& g, const PackedB& pb, uint8_t* scratch) {
  const hn::ScalableTag<int32_t> d32;
  if (pb.panel_columns != int32_t(2 * hn::Lanes(d32)) || pb.n != g.n || pb.k != g.k) return false;
#if HWY_TARGET == HWY_SCALAR
  compute::gemm_s8_portable(g, {});
#else
  const int32_t kp = pb.kp;
  int16_t* a_pack = reinterpret_cast<int16_t*>(compute::align_up(reinterpret_cast<uintptr_t>(scratch)));
  int32_t* row_terms = reinterpret_cast<int32_t*>(a_pack + compute::align_up(size_t(kBlockRows) * kp * 2) / 2);
  for (int64_t r0 = 0; r0 < g.m; r0 += kBlockRows) {
    const int rows = int(std::min<int64_t>(kBlockRows, g.m - r0));
    for (int r = 0; r < rows; ++r)
      row_terms[r] = PackARow(g, g.a + (r0 + r) * g.a_stride, kp, a_pack + size_t(r) * kp);
    for (int32_t p = 0; p < pb.panels; ++p)
      for (int r = 0; r < rows; r += kTileRows) {
        const int n = std::min(kTileRows, rows - r);
        if (n == kTileRows)
          Tile<kTileRows>(g, pb, a_pack + size_t(r) * kp, row_terms + r, r0 + r, p);
        else
          ShortTile<kTileRows - 1>(n, g, pb, a_pack + size_t(r) * kp, row_terms + r, r0 + r, p);
      }
  }
#endif
  return true;
}

}  // namespace HWY_NAMESPACE
}  // namespace vkrt::bench_hwy
HWY_AFTER_NAMESPACE();

#if HWY_ONCE

namespace vkrt::bench_hwy {

HWY_EXPORT(TargetNameImpl);
HWY_EXPORT(RequantizeRowImpl);
HWY_EXPORT(DepthwiseImpl);
HWY_EXPORT(PackBImpl);
HWY_EXPORT(GemmImpl);

int64_t target_avx3_dl() { return HWY_AVX3_DL; }
int64_t target_avx3() { return HWY_AVX3; }
int64_t target_avx2() { return HWY_AVX2; }

bool cpu_has_target(int64_t target) {
  // What Highway detects, read once before any restriction.
  static const int64_t detected = [] {
    hwy::SetSupportedTargetsForTest(0);
    return hwy::SupportedTargets();
  }();
  return (detected & target) != 0;
}

std::string select_target(int64_t target) {
  (void)cpu_has_target(0);
  hwy::SetSupportedTargetsForTest(target);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  return HWY_DYNAMIC_DISPATCH(TargetNameImpl)();
}

void requantize_row_s8(const compute::RequantizeRow& spec, const int32_t* acc, int first_channel, int count,
                       int8_t* out) {
  HWY_DYNAMIC_DISPATCH(RequantizeRowImpl)(spec, acc, first_channel, count, out);
}

void depthwise_conv2d_s8(const cortex_m::DepthwiseConv2dParams& p, const int8_t* input, const int8_t* weight,
                         const int32_t* bias, const int32_t* multiplier, const int32_t* shift, int8_t* output) {
  HWY_DYNAMIC_DISPATCH(DepthwiseImpl)(p, input, weight, bias, multiplier, shift, output);
}

void gemm_s8_pack_b(const compute::GemmS8& g, PackedB* packed) { HWY_DYNAMIC_DISPATCH(PackBImpl)(g, packed); }

size_t gemm_s8_scratch_bytes(const compute::GemmS8& g) {
  const size_t kp = size_t(g.k + 1) / 2 * 2;
  return compute::align_up(64 * kp * 2) + 64 * 4 + 128;
}

bool gemm_s8(const compute::GemmS8& g, const PackedB& packed, uint8_t* scratch) {
  return HWY_DYNAMIC_DISPATCH(GemmImpl)(g, packed, scratch);
}

}  // namespace vkrt::bench_hwy
#endif  // HWY_ONCE
