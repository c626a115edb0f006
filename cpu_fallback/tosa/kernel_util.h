// Private helpers of the TOSA CPU kernels: argument checks with op-named errors, shape
// arithmetic, broadcasting loops and dtype dispatch. Not part of the public API.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "arith/fixed_point.h"
#include "compute/isa.h"
#include "cpu_fallback/tosa/tensor_ref.h"
#include "cpu_fallback/tosa/tosa_kernels.h"
#include "vkrt/error.h"

// On a hot loop's function: compiled twice, for AVX2 and for the x86-64 baseline (SSE2), the
// copy chosen once at load time by the CPU it runs on (an ifunc; it follows the CPU, not a level
// pinned with VKRT_CPU_ISA). AVX2 doubles the lanes and
// adds the instructions the integer kernels need (vpmaddwd on 16 int16 lanes, vpmuldq, vpsravd).
// Clang (14) accepts it on plain functions only: function templates take
// VKRT_VECTOR_CLONES_TEMPLATE, which is GCC's alone.
#if defined(__x86_64__) && defined(__linux__)
#define VKRT_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define VKRT_VECTOR_CLONES
#endif
#if defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
#define VKRT_VECTOR_CLONES_TEMPLATE VKRT_VECTOR_CLONES
#else
#define VKRT_VECTOR_CLONES_TEMPLATE
#endif

namespace vkrt::tosa::detail {

// Upper bound on the elements of one tensor: keeps every index product inside int64 and
// rejects absurd shapes read from a file before any loop runs.
inline constexpr int64_t kMaxElements = int64_t(1) << 40;

// "[1,2,3]"; only built on error paths.
std::string shape_string(std::span<const int64_t> shape);

// Rank <= kMaxRank, dims >= 0, element count <= kMaxElements, supported dtype, data present
// when the tensor has elements. `what` names the operand ("input", "weight", ...).
Status check_tensor(const char* op, const char* what, const TensorRef& t);
Status expect_rank(const char* op, const char* what, const TensorRef& t, int rank);
Status expect_dtype(const char* op, const char* what, const TensorRef& t, DType dtype);
Status expect_shape(const char* op, const char* what, const TensorRef& t,
                    std::span<const int64_t> expected);
Status expect_same_shape(const char* op, const char* what, const TensorRef& t, const TensorRef& like);
// dtype_name() for messages.
inline const char* name(DType t) { return dtype_name(t); }

// Row-major strides (in elements) of a shape.
inline std::array<int64_t, kMaxRank> row_major_strides(std::span<const int64_t> shape) {
  std::array<int64_t, kMaxRank> strides{};
  int64_t s = 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    strides[size_t(d)] = s;
    s *= shape[size_t(d)];
  }
  return strides;
}

// TOSA 1.0 broadcast (tosa.md §1): equal ranks, each input dim equal to the output dim or 1.
// Checks `in` against the output shape `out`.
Status check_broadcast(const char* op, const char* what, const TensorRef& in, const TensorRef& out);
// The output shape of a broadcast of a and b (equal rank; dims equal or 1) is the dimwise max.
Status check_broadcast_output(const char* op, const TensorRef& a, const TensorRef& b,
                              const TensorRef& out);

// Element strides of `in` seen through the output shape: 0 along broadcast dims.
inline std::array<int64_t, kMaxRank> broadcast_strides(const TensorRef& in, const TensorRef& out) {
  std::array<int64_t, kMaxRank> strides = row_major_strides(in.shape);
  for (int d = 0; d < in.rank(); ++d)
    if (in.dim(d) == 1 && out.dim(d) != 1) strides[size_t(d)] = 0;
  return strides;
}

// Calls f(out_index, in_index[0..N)) for every output element in row-major order, where
// in_index[k] is the flat index of inputs[k] under TOSA broadcasting. Inputs were checked with
// check_broadcast against `out`.
template <size_t N, typename F>
void broadcast_loop(const TensorRef& out, const std::array<const TensorRef*, N>& inputs, F&& f) {
  const int rank = out.rank();
  const int64_t total = out.num_elements();
  if (total == 0) return;
  std::array<std::array<int64_t, kMaxRank>, N> strides;
  for (size_t k = 0; k < N; ++k) strides[k] = broadcast_strides(*inputs[k], out);
  std::array<int64_t, kMaxRank> counter{};
  std::array<int64_t, N> index{};
  for (int64_t o = 0; o < total; ++o) {
    f(o, index);
    // Advance the multi-index (innermost first) and the input indices with it.
    for (int d = rank - 1; d >= 0; --d) {
      const size_t du = size_t(d);
      if (++counter[du] < out.dim(d)) {
        for (size_t k = 0; k < N; ++k) index[k] += strides[k][du];
        break;
      }
      for (size_t k = 0; k < N; ++k) index[k] -= strides[k][du] * (counter[du] - 1);
      counter[du] = 0;
    }
  }
}

// Output size of a windowed op along one axis: (in - 1 + pad_a + pad_b - (k - 1) * dil) / stride + 1,
// with the TOSA rule that the division is exact (tosa.md §6, §7). Returns -1 when the numerator
// is negative or the division is not exact.
inline int64_t window_output_size(int64_t in, int64_t pad_a, int64_t pad_b, int64_t kernel,
                                  int64_t dilation, int64_t stride) {
  const int64_t numerator = in - 1 + pad_a + pad_b - (kernel - 1) * dilation;
  if (numerator < 0 || stride <= 0 || numerator % stride != 0) return -1;
  return numerator / stride + 1;
}

inline bool is_int(DType t) {
  return t == DType::Int8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int48;
}

using arith::clamp_int48;
using arith::kInt48Max;
using arith::kInt48Min;

// Wrapping int32 addition and multiplication (tosa.md §6: accumulators wrap modulo 2^32).
inline int32_t wrap32(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }

// Calls f(T{}) with T the storage type of an Int8/Int16/Int32/Fp32 dtype; returns false for
// other dtypes (the caller has already rejected them in its check).
template <typename F>
bool dispatch_numeric(DType t, F&& f) {
  switch (t) {
    case DType::Int8: f(int8_t{}); return true;
    case DType::Int16: f(int16_t{}); return true;
    case DType::Int32: f(int32_t{}); return true;
    case DType::Fp32: f(float{}); return true;
    default: return false;
  }
}

// Calls f(T{}) with an unsigned integer type of the dtype's storage size (1, 2, 4 or 8 bytes),
// for byte-moving ops that do not look at values.
template <typename F>
bool dispatch_by_size(DType t, F&& f) {
  switch (dtype_size(t)) {
    case 1: f(uint8_t{}); return true;
    case 2: f(uint16_t{}); return true;
    case 4: f(uint32_t{}); return true;
    case 8: f(uint64_t{}); return true;
    default: return false;
  }
}

// fp32 CLAMP of one value (tosa.md §12): std::max(x, lo) and std::min(., hi) return their first
// operand when it is NaN, so NaN propagates by itself; `nan_ignore` (nan_mode IGNORE) returns
// `lo` for it. Branch-free, so that loops over it vectorise.
inline float clamp_f32(float x, float lo, float hi, bool nan_ignore) {
  const float c = std::min(std::max(x, lo), hi);
  return nan_ignore && x != x ? lo : c;
}

// A fused chain's intermediate tensor (a CONV2D's sums before its RESCALE) as the chain's checks
// see it. Its caller may give it no bytes where the chain said it runs fused (conv2d_rescale_fuses
// and the like) and so never writes it: then it stands in with an address in read-only memory,
// which checks never read (they refuse null data). The chain writes it only if it cannot run
// fused after all, and reports an error there instead (chain_intermediate_has_bytes).
TensorRef chain_intermediate_for_checks(const TensorRef& t);
// Ok where `t` has its bytes (or none are needed); else the error naming the chain and tensor.
Status chain_intermediate_has_bytes(const char* chain, const char* what, const TensorRef& t);

// The threads a kernel may split its work over: `runner`'s, at least 1; 1 when it is null.
inline int threads_of(const ParallelRunner* runner) { return runner ? std::max(1, runner->num_threads()) : 1; }

// Calls bands(begin, end) to cover items [0, items): at once on the calling thread, or as one
// contiguous band per thread of `runner` where it has several and `work` (in any unit)
// reaches `min_parallel_work` (a dispatch to the pool costs tens of microseconds).
template <typename Bands>
void split_over_threads(ParallelRunner* runner, int64_t items, double work, double min_parallel_work,
                        const Bands& bands) {
  const int64_t parts = work >= min_parallel_work ? std::min<int64_t>(threads_of(runner), items) : 1;
  if (parts <= 1) {
    if (items > 0) bands(int64_t(0), items);
    return;
  }
  struct Split {
    const Bands* bands;
    int64_t items, parts;
  } split{&bands, items, parts};
  // One pointer captured: std::function holds it without allocating.
  runner->run(int(parts), [s = &split](int i) {
    (*s->bands)(s->items * i / s->parts, s->items * (i + 1) / s->parts);
  });
}

// Elementwise ops (RESCALE, the same-shape binary ops) split their elements in contiguous
// slices, one band of slices per thread, from kElementwiseParallelMin elements: consecutive ops
// then give each thread the part of the tensor it wrote.
inline constexpr int64_t kSliceElements = 4096;
inline constexpr double kElementwiseParallelMin = 1 << 14;

// Calls elements(first, last) to cover elements [0, total), split as above.
template <typename Elements>
void split_elements(ParallelRunner* runner, int64_t total, const Elements& elements) {
  const int64_t slices = (total + kSliceElements - 1) / kSliceElements;
  split_over_threads(runner, slices, double(total), kElementwiseParallelMin, [&](int64_t begin, int64_t end) {
    elements(begin * kSliceElements, std::min(total, end * kSliceElements));
  });
}

}  // namespace vkrt::tosa::detail
