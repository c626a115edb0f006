// Helpers for the cortex_m kernel wrappers: argument access with errors that name the op and
// the argument, NHWC views of channels-last activations, and the Exec built from a KernelContext.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

#include "cortex_m/exec.h"
#include "vkrt/kernel.h"
#include "vkrt/kernel_args.h"

namespace vkrt::cortex_m {

// Physical NHWC dims of an activation tensor (cortex-m-ops.md §1.1): logical NCHW sizes with
// dim_order [0,2,3,1], or a contiguous tensor whose layout is the same bytes (C == 1 or H·W == 1).
struct Nhwc {
  int32_t n = 0, h = 0, w = 0, c = 0;
  int64_t numel() const { return int64_t(n) * h * w * c; }
};
Result<Nhwc> nhwc_of(const KernelArgs& args, size_t index, std::string_view name, const Tensor& t);

// InvalidArgument naming the argument unless t.dtype() is one of `allowed`.
Status expect_dtype(const KernelArgs& args, size_t index, std::string_view name, const Tensor& t,
                    std::initializer_list<ScalarType> allowed);
// InvalidArgument unless the value lies in [lo, hi].
Status expect_range(const KernelArgs& args, size_t index, std::string_view name, int64_t value,
                    int64_t lo, int64_t hi);
// An int argument that must fit in [lo, hi] (int32 by default).
Result<int32_t> int_arg(const KernelArgs& args, size_t index, std::string_view name,
                        int64_t lo = INT32_MIN, int64_t hi = INT32_MAX);
// An IntList of exactly `count` values, each in [lo, hi].
Status int_list_arg(const KernelArgs& args, size_t index, std::string_view name,
                    std::span<int32_t> out, int64_t lo, int64_t hi);
// A 1-D int32 tensor of `count` elements (per-channel parameters).
Result<const int32_t*> channel_params(const KernelArgs& args, size_t index, std::string_view name,
                                      int64_t count);
// An optional bias tensor: null for None; else 1-D int32 (or int64 when allow_int64) of `count`.
Result<Tensor*> optional_bias(const KernelArgs& args, size_t index, std::string_view name,
                              int64_t count, bool allow_int64);
// The out tensor: resized to `sizes` when needed (dynamic tensors), then checked to have them.
Status prepare_output(const KernelArgs& args, size_t index, Tensor& out, std::span<const int32_t> sizes);

// InvalidArgument unless a tensor with elements has data covering its sizes.
Status expect_data(const KernelArgs& args, size_t index, std::string_view name, const Tensor& t);
// The sizes in memory order (sizes[dim_order[i]]), left-padded with 1 to 4 dims (rank <= 4).
std::array<int32_t, 4> physical_dims4(const Tensor& t);

// Exec over a KernelContext: scratch of `bytes` from allocate_temp when it fits (empty when
// it does not: compute functions then take their scratch-free path), threads from parallel_for.
class ContextRunner final : public ParallelRunner {
 public:
  explicit ContextRunner(KernelContext& ctx) : ctx_(ctx) {}
  int num_threads() const override { return ctx_.num_threads(); }
  void run(int count, const std::function<void(int)>& task) override { ctx_.parallel_for(count, task); }

 private:
  KernelContext& ctx_;
};
Exec make_exec(KernelContext& ctx, ContextRunner& runner, size_t scratch_bytes);

// Load-time memory for weights packed once (KernelPrepareContext::allocate_persistent):
// MemoryAllocationFailed naming the op when it cannot be had.
Result<std::span<uint8_t>> packing_memory(KernelPrepareContext& ctx, const KernelArgs& args, size_t bytes);

}  // namespace vkrt::cortex_m
