// Helpers for the cortex_m kernel wrappers: argument access with errors that name the op and
// the argument, NHWC views of channels-last activations, and the Exec built from a KernelContext.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <span>
#include <type_traits>
#include <string_view>

#include "compute/context_runner.h"
#include "cortex_m/compute_core.h"
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
// prepare_output's two halves: the sizes (a parse-time check; a DYNAMIC_BOUND out is resized,
// and such calls are parsed at execute) and the memory (an execute-time check: an output's
// memory may be set after load, set_output_data_ptr).
Status output_sizes(const KernelArgs& args, size_t index, Tensor& out, std::span<const int32_t> sizes);
Status output_memory(const KernelArgs& args, size_t index, const Tensor& out);

// InvalidArgument unless a tensor with elements has data covering its sizes.
Status expect_data(const KernelArgs& args, size_t index, std::string_view name, const Tensor& t);
// The sizes in memory order (sizes[dim_order[i]]), left-padded with 1 to 4 dims (rank <= 4).
std::array<int32_t, 4> physical_dims4(const Tensor& t);

// Exec over a KernelContext: scratch of `bytes` from allocate_temp when it fits (empty when
// it does not: compute functions then take their scratch-free path), threads from parallel_for.
using compute::ContextRunner;
Exec make_exec(KernelContext& ctx, ContextRunner& runner, size_t scratch_bytes);

// Load-time memory for weights packed once (KernelPrepareContext::allocate_persistent):
// MemoryAllocationFailed naming the op when it cannot be had.
Result<std::span<uint8_t>> packing_memory(KernelPrepareContext& ctx, const KernelArgs& args, size_t bytes);

// Load checks, execute trusts (TFLite Micro's Prepare). A kernel's prepare step parses its call
// once: a `parse(const KernelArgs&) -> Result<Call>` holding every check that does not need
// activation data. When every tensor argument has a static shape and the parameter tensors the
// parse reads (weights, bias, requantization tables: `params`) are program constants, the call
// is parsed at load: an error is final and fails the load (the method names the instruction),
// and the parsed call is kept with the method, so execute uses it without parsing again. A call
// with DYNAMIC_BOUND tensors or non-constant parameters is parsed at execute, against the shapes
// and values it then has.
template <typename Call>
struct PreparedCall {
  Call call;
  const void* packed = nullptr;  // weights packed at load by the kernel, or null
};

// True when every Tensor argument has a static shape.
bool all_shapes_static(const KernelArgs& args);

namespace detail {
template <typename R>
struct ResultValue;
template <typename T>
struct ResultValue<Result<T>> {
  using type = T;
};
}  // namespace detail
// The Call a parse function returns.
template <typename Parse>
using CallOf = typename detail::ResultValue<std::invoke_result_t<Parse, const KernelArgs&>>::type;

// The shared prepare step: the PreparedCall kept with the method (its `packed` still null), or
// null when the call is parsed at execute.
template <typename Parse, typename Call = CallOf<Parse>>
Result<PreparedCall<Call>*> prepare_call(KernelPrepareContext& ctx, const KernelArgs& args, Parse parse,
                                         std::initializer_list<size_t> params) {
  bool fixed = all_shapes_static(args);
  for (size_t i : params)
    if (i < args.size() && !args.is_none(i) && !ctx.is_constant(&args.at(i))) fixed = false;
  if (!fixed) return static_cast<PreparedCall<Call>*>(nullptr);
  VKRT_ASSIGN_OR_RETURN(Call call, parse(args));
  void* memory = ctx.allocate_persistent(sizeof(PreparedCall<Call>), alignof(PreparedCall<Call>));
  if (memory == nullptr) return Status(Error::MemoryAllocationFailed, "cannot allocate the prepared call");
  auto* prepared = new (memory) PreparedCall<Call>{std::move(call), nullptr};
  ctx.set_state(prepared);
  return prepared;
}

// The prepare step of a kernel with nothing to pack, registered as
// VKRT_REGISTER_KERNEL_WITH_PREPARE(kOp, fn, (prepare_parsed<kOp, parse_x, params...>)).
template <const char* Op, auto Parse, size_t... Params>
Status prepare_parsed(KernelPrepareContext& ctx, std::span<EValue* const> argv) {
  return prepare_call(ctx, KernelArgs(Op, argv), Parse, {Params...}).status();
}

// Execute's side: the call prepared at load, or `parse(args)` now.
template <typename Call, typename Parse>
Result<Call> prepared_or_parse(const KernelContext& ctx, const KernelArgs& args, Parse parse,
                               const void** packed) {
  if (const auto* prepared = static_cast<const PreparedCall<Call>*>(ctx.prepared_state())) {
    *packed = prepared->packed;
    return prepared->call;
  }
  *packed = nullptr;
  return parse(args);
}
template <typename Parse, typename Call = CallOf<Parse>>
Result<Call> prepared_or_parse(const KernelContext& ctx, const KernelArgs& args, Parse parse) {
  const void* packed = nullptr;
  return prepared_or_parse<Call>(ctx, args, parse, &packed);
}

}  // namespace vkrt::cortex_m
