// The depthwise engine of depthwise_s8.h: the NEON row, the portable row, and the choice among
// them, the VNNI path (depthwise_vnni.cpp) and the x86 row below VNNI, written once with Highway
// for AVX2 and AVX-512BW (depthwise_rows_hwy.cpp).
#include "compute/depthwise_s8.h"

#include <algorithm>
#include <cstring>

#include "arith/fixed_point.h"
#include "compute/depthwise_vnni.h"
#include "compute/hwy_targets.h"
#include "compute/isa.h"
#include "compute/requantize_row.h"
#include "compute/simd_neon.h"

namespace vkrt::compute {

using arith::wrap_add;
using arith::wrap_mul;

namespace {

// acc[c] += (in[c] + offset) · w[c] for one tap, channel multiplier 1.
VKRT_CLONES
void accumulate_tap(int32_t* acc, const int8_t* in, const int8_t* w, int32_t offset, int32_t channels) {
  for (int32_t c = 0; c < channels; ++c)
    acc[c] = int32_t(uint32_t(acc[c]) + uint32_t((int32_t(in[c]) + offset) * int32_t(w[c])));
}

// The vector rows (x86: the Highway row, 32 channels per step on AVX-512BW and 16 on AVX2; NEON:
// 16) need channel multiplier 1 and (x + in_off) in int16 range: then each product fits int16
// exactly (|x + off| <= 255, |w| <= 128), and the accumulators stay in registers across all taps
// of a pixel.
[[maybe_unused]] bool int16_products_exact(const DepthwiseS8Params& p) {
  return p.ch_mult == 1 && p.input_offset >= -127 && p.input_offset <= 128;
}

// Whether the Highway rows (depthwise_rows_hwy.cpp) run p below VNNI on x86.
[[maybe_unused]] bool highway_rows_run(const DepthwiseS8Params& p) {
#if defined(__x86_64__)
  return int16_products_exact(p) && has(Isa::Avx2) && int64_t(p.kernel_h) * p.kernel_w <= kDepthwiseRowTaps;
#else
  (void)p;
  return false;
#endif
}

// The window's valid kernel rows [*ky0, *ky1) for output row oy and columns [*kx0, *kx1) for ox.
[[maybe_unused]] inline void valid_rows(const DepthwiseS8Params& p, int32_t oy, int32_t* ky0, int32_t* ky1) {
  const int64_t iy0 = int64_t(oy) * p.stride_h - p.pad_h;
  for (*ky0 = 0; *ky0 < p.kernel_h && iy0 + int64_t(*ky0) * p.dilation_h < 0; ++*ky0) {}
  for (*ky1 = p.kernel_h; *ky1 > *ky0 && iy0 + int64_t(*ky1 - 1) * p.dilation_h >= p.in_h; --*ky1) {}
}
[[maybe_unused]] inline void valid_columns(const DepthwiseS8Params& p, int32_t ox, int32_t* kx0, int32_t* kx1) {
  const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
  for (*kx0 = 0; *kx0 < p.kernel_w && ix0 + int64_t(*kx0) * p.dilation_w < 0; ++*kx0) {}
  for (*kx1 = p.kernel_w; *kx1 > *kx0 && ix0 + int64_t(*kx1 - 1) * p.dilation_w >= p.in_w; --*kx1) {}
}

#if defined(__aarch64__)
// NEON: 16 channels per step (the x86 rows' method before they moved to Highway, one tap per
// step), (x + in_off)·w multiplied and accumulated in int32 with SMLAL (exact: int16 operands).

// 16 bytes at p, or the first n of them (the rest zero) without reading past them.
inline int8x16_t load_s8(const int8_t* p, int n) {
  if (n == 16) return vld1q_s8(p);
  int8_t tmp[16] = {};
  std::memcpy(tmp, p, size_t(n));
  return vld1q_s8(tmp);
}
// 4 int32 at p, or the first n (the rest zero).
inline int32x4_t load_s32x4(const int32_t* p, int n) {
  if (n >= 4) return vld1q_s32(p);
  int32_t tmp[4] = {};
  if (n > 0) std::memcpy(tmp, p, size_t(n) * 4);
  return vld1q_s32(tmp);
}
// Stores the first n of 4 int32 lanes (none when n <= 0).
inline void store_s32x4(int32_t* p, int32x4_t v, int n) {
  if (n >= 4) return vst1q_s32(p, v);
  int32_t tmp[4];
  vst1q_s32(tmp, v);
  if (n > 0) std::memcpy(p, tmp, size_t(n) * 4);
}

void output_row_neon(const DepthwiseS8Params& p, int64_t b, int32_t oy, const int8_t* input, const int8_t* weight,
                     const int32_t* bias, const DepthwiseS8Output& to) {
  const int32_t channels = p.in_ch;
  const int16x8_t offset16 = vdupq_n_s16(int16_t(p.input_offset));
  const int32x4_t out_offset = vdupq_n_s32(p.output_offset);
  const int32x4_t lo = vdupq_n_s32(p.activation_min), hi = vdupq_n_s32(p.activation_max);
  int32_t ky0, ky1;
  valid_rows(p, oy, &ky0, &ky1);
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    const int64_t ix0 = int64_t(ox) * p.stride_w - p.pad_w;
    int32_t kx0, kx1;
    valid_columns(p, ox, &kx0, &kx1);
    const int64_t pixel = ((b * p.out_h + oy) * p.out_w + ox) * channels;
    for (int32_t c = 0; c < channels; c += 16) {
      const int n = channels - c < 16 ? channels - c : 16;
      int32x4_t acc[4];
      for (int q = 0; q < 4; ++q) acc[q] = bias ? load_s32x4(bias + c + 4 * q, n - 4 * q) : vdupq_n_s32(0);
      for (int32_t ky = ky0; ky < ky1; ++ky) {
        const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
        const int8_t* in_row = input + ((b * p.in_h + iy) * p.in_w) * channels + c;
        const int8_t* w_row = weight + int64_t(ky) * p.kernel_w * channels + c;
        for (int32_t kx = kx0; kx < kx1; ++kx) {
          const int64_t ix = ix0 + int64_t(kx) * p.dilation_w;
          const int8x16_t x8 = load_s8(in_row + ix * channels, n), w8 = load_s8(w_row + int64_t(kx) * channels, n);
          const int16x8_t x_lo = vaddq_s16(vmovl_s8(vget_low_s8(x8)), offset16);
          const int16x8_t x_hi = vaddq_s16(vmovl_high_s8(x8), offset16);
          const int16x8_t w_lo = vmovl_s8(vget_low_s8(w8)), w_hi = vmovl_high_s8(w8);
          acc[0] = vmlal_s16(acc[0], vget_low_s16(x_lo), vget_low_s16(w_lo));
          acc[1] = vmlal_high_s16(acc[1], x_lo, w_lo);
          acc[2] = vmlal_s16(acc[2], vget_low_s16(x_hi), vget_low_s16(w_hi));
          acc[3] = vmlal_high_s16(acc[3], x_hi, w_hi);
        }
      }
      if (to.s32) {
        for (int q = 0; q < 4; ++q) store_s32x4(to.s32 + pixel + c + 4 * q, acc[q], n - 4 * q);
        continue;
      }
      int8_t* out = to.s8 + pixel;
      for (int q = 0; q < 4; ++q)
        acc[q] = simd::requantize_x4(acc[q], load_s32x4(to.multiplier + c + 4 * q, n - 4 * q),
                                     load_s32x4(to.shift + c + 4 * q, n - 4 * q), p.single_round);
      const int8x16_t bytes = simd::narrow_s8x16(acc, out_offset, lo, hi);
      if (n == 16) {
        vst1q_s8(out + c, bytes);
      } else {
        int8_t tmp[16];
        vst1q_s8(tmp, bytes);
        std::memcpy(out + c, tmp, size_t(n));
      }
    }
  }
}
#endif

// The portable row: output channels in blocks of kRowBlock, accumulated on the stack.
constexpr int32_t kRowBlock = 256;

void output_row(const DepthwiseS8Params& p, int64_t b, int32_t oy, const int8_t* input, const int8_t* weight,
                const int32_t* bias, const DepthwiseS8Output& to, const RequantizeRow& spec) {
  const int32_t oc_count = p.out_ch();
  int32_t acc[kRowBlock];
  for (int32_t ox = 0; ox < p.out_w; ++ox) {
    const int64_t pixel = ((b * p.out_h + oy) * p.out_w + ox) * oc_count;
    for (int32_t oc0 = 0; oc0 < oc_count; oc0 += kRowBlock) {
      const int32_t n = std::min(kRowBlock, oc_count - oc0);
      for (int32_t i = 0; i < n; ++i) acc[i] = bias ? bias[oc0 + i] : 0;
      for (int32_t ky = 0; ky < p.kernel_h; ++ky) {
        const int64_t iy = int64_t(oy) * p.stride_h - p.pad_h + int64_t(ky) * p.dilation_h;
        if (iy < 0 || iy >= p.in_h) continue;
        for (int32_t kx = 0; kx < p.kernel_w; ++kx) {
          const int64_t ix = int64_t(ox) * p.stride_w - p.pad_w + int64_t(kx) * p.dilation_w;
          if (ix < 0 || ix >= p.in_w) continue;
          const int8_t* in = input + ((b * p.in_h + iy) * p.in_w + ix) * p.in_ch;
          const int8_t* w = weight + (int64_t(ky) * p.kernel_w + kx) * oc_count + oc0;
          if (p.ch_mult == 1) {
            accumulate_tap(acc, in + oc0, w, p.input_offset, n);
          } else {
            for (int32_t i = 0; i < n; ++i)
              acc[i] = wrap_add(acc[i], wrap_mul(int32_t(in[(oc0 + i) / p.ch_mult]) + p.input_offset, w[i]));
          }
        }
      }
      if (to.s32)
        std::memcpy(to.s32 + pixel + oc0, acc, size_t(n) * 4);
      else
        requantize_row_s8(spec, acc, oc0, n, to.s8 + pixel + oc0);
    }
  }
}

}  // namespace

size_t depthwise_s8_scratch_bytes(const DepthwiseS8Params& p, bool int32_sums, int threads) {
  // Only the VNNI path needs scratch: the rows accumulate in registers or on the stack.
  return depthwise_vnni_usable(p, int32_sums) ? depthwise_vnni_scratch_bytes(p, threads) : 0;
}

bool depthwise_s8_int8_output_pays(const DepthwiseS8Params& p) {
  return depthwise_vnni_usable(p, /*int32_sums=*/false) || highway_rows_run(p);
}

void depthwise_s8(const DepthwiseS8Params& p, const int8_t* input, const int8_t* weight, const int32_t* bias,
                  const DepthwiseS8Output& to, const Exec& exec) {
  const int64_t rows = int64_t(p.batches) * p.out_h;
  const double macs = double(rows) * p.out_w * p.out_ch() * p.kernel_h * p.kernel_w;
  if (rows <= 0 || p.out_w <= 0 || p.out_ch() <= 0) return;
  if (depthwise_vnni_usable(p, to.s32 != nullptr)) {
    // 10-15 GMAC/s per thread: from about 512k MACs (~40 us) a second worker pays for its wake-up.
    const int vnni_threads =
        int(std::max<int64_t>(1, std::min<int64_t>({exec.num_threads(), int64_t(macs / 524288.0) + 1, rows})));
    if (exec.scratch.size() >= depthwise_vnni_scratch_bytes(p, vnni_threads) &&
        depthwise_vnni(p, input, weight, bias, to, exec, vnni_threads))
      return;
  }
#if defined(__x86_64__)
  // Below VNNI: the Highway rows (depthwise_rows_hwy.cpp), AVX3 copy at avx512bw, AVX2 copy at avx2.
  if (highway_rows_run(p)) {
    const auto rows_fn = has(Isa::Avx512bw) ? N_AVX3::depthwise_rows_s8 : N_AVX2::depthwise_rows_s8;
    // A second thread from 64k MACs (about 6 us at AVX2): DS-CNN-S's 25x5x64 layer (70k) went
    // 1.18x faster at two threads (Intel Xeon; the pool's workers poll between runs).
    const int threads = std::max(1, std::min(exec.num_threads(), int(macs / 65536.0) + 1));
    // Shared out by channel blocks, each thread taking all rows of its blocks, where rows do not
    // share out evenly (7x7: 4 against 3 on two threads) or the layer is small enough that each
    // thread's setup (the weights packed, the scales derived, for its channels only when split
    // by channels) shows: 7x7x960 at two threads 1.23-1.3x one thread by rows, 1.75-1.8x by
    // channels; DS-CNN-L's 25x5x276 1.62x by rows, 1.75x by channels. Larger layers by rows,
    // each thread reading only its rows' inputs.
    const int64_t busiest_rows = (rows + threads - 1) / threads;
    if (threads > 1 && (busiest_rows * threads * 8 > rows * 9 || macs < 1048576.0)) {
      exec.parallel_chunks(threads, threads, [&](int, int64_t part0, int64_t part1) {
        for (int64_t part = part0; part < part1; ++part)
          rows_fn(p, 0, rows, int(part), threads, input, weight, bias, to);
      });
      return;
    }
    exec.parallel_chunks(threads, rows, [&](int, int64_t r0, int64_t r1) { rows_fn(p, r0, r1, 0, 1, input, weight, bias, to); });
    return;
  }
#endif
  // The NEON and portable rows.
  RequantizeRow spec;
  spec.multiplier = to.multiplier;
  spec.shift = to.shift;
  spec.per_channel = true;
  spec.output_offset = p.output_offset;
  spec.activation_min = p.activation_min;
  spec.activation_max = p.activation_max;
  spec.single_round = p.single_round;
  // Threads only pay off on layers of a few hundred thousand MACs or more.
  const int threads = std::max(1, std::min(exec.num_threads(), int(macs / 262144.0) + 1));
  exec.parallel_chunks(threads, rows, [&](int, int64_t r0, int64_t r1) {
#if defined(__aarch64__)
    if (int16_products_exact(p) && has(Isa::Neon)) {
      for (int64_t r = r0; r < r1; ++r) output_row_neon(p, r / p.out_h, int32_t(r % p.out_h), input, weight, bias, to);
      return;
    }
#endif
    for (int64_t r = r0; r < r1; ++r) output_row(p, r / p.out_h, int32_t(r % p.out_h), input, weight, bias, to, spec);
  });
}

}  // namespace vkrt::compute
