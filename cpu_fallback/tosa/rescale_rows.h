// Internal to the TOSA CPU kernels: RESCALE's prepared constants (rescale.cpp), and RescaleRows,
// the epilogue of the fused chains (conv2d_rescale, depthwise_conv2d_rescale) that rescales and
// clamps band after band of int32 sums with constants prepared once per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa::detail {

// The output range and zero points as the formula uses them (tosa.md §5): the value is clamped
// to [lo - out_zp, hi - out_zp] and out_zp added. A CLAMP after the RESCALE narrows [lo, hi].
struct RescaleRange {
  int64_t in_zp, out_zp, lo, hi;
};
RescaleRange rescale_range(DType in, DType out, const RescaleAttr& a);

// apply_scale_32's constants for up to kChannelChunk channels, computed once per call and kept
// on the stack (kernels allocate nothing).
inline constexpr int64_t kChannelChunk = 256;
struct ChannelScales {
  // One element more than the chunk: the vector loops load the odd lanes' multipliers from
  // multiplier + 1 (so every even lane of that load holds the next odd one).
  int32_t multiplier[kChannelChunk + 16];
  int32_t shift[kChannelChunk];          // clamped to [1, 62], as apply_scale_32
  int32_t shift_past_32[kChannelChunk];  // shift - 32, for the wide-shift loops
  int64_t round[kChannelChunk];          // 2^(shift-1)
  int64_t round_extra[kChannelChunk];    // 2^30 with double_round and shift > 31, else 0; signed as the value
  // round +/- round_extra (for values >= 0 / < 0) in the order the vector loops load them: per
  // block of `eo_block` channels (8 for AVX2, 16 for AVX-512), the even ones then the odd ones; 0
  // past the last channel, up to a multiple of the block.
  alignas(64) int64_t round_nonnegative_eo[kChannelChunk];
  alignas(64) int64_t round_negative_eo[kChannelChunk];
  int eo_block = 8;
  bool wide = true;  // every shift >= 32
};
// Channels [c0, c0 + count) of `a` (count <= kChannelChunk), laid out for the widest loop this
// CPU runs at the active ISA level.
void fill_scales(const RescaleAttr& a, int64_t c0, int64_t count, ChannelScales& s);

// RESCALE (scale32) of int32 sums [rows, channels] into int8, int16 or int32 rows, then CLAMP
// when given, in one pass per band: the CLAMP is the output range's narrowing, and the constants
// of every channel are filled once per call, into caller memory (rescale_rows_bytes; the fused
// chains' scratch), then only read, by any number of threads. Operands the fast form does not
// take (scale16, a CLAMP on unsigned values or disjoint from the range, memory short) run
// rescale() then clamp() per band, with the same values.
size_t rescale_rows_bytes(int64_t channels);

class RescaleRows {
 public:
  // For operands check_rescale and check_clamp accepted; `channels` is the sums' last dimension.
  RescaleRows(const RescaleAttr& attrs, DType out_dtype, const ClampAttr* clamp, int64_t channels,
              std::span<uint8_t> memory);
  // Rescales (and clamps) `sums` [rows, channels] into `out` of the same shape.
  Status run(const TensorRef& sums, const TensorRef& out) const;

 private:
  const RescaleAttr& attrs_;
  const ClampAttr* clamp_;
  int64_t channels_;  // parameter sets: the channels per channel, else 1
  bool fast_ = false;
  RescaleRange range_{};
  const ChannelScales* chunks_ = nullptr;  // chunk i: channels [i·kChannelChunk, ...)
};

}  // namespace vkrt::tosa::detail
