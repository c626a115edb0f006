#include "cortex_m/kernel_util.h"

#include <string>

namespace vkrt::cortex_m {

Result<Nhwc> nhwc_of(const KernelArgs& args, size_t index, std::string_view name, const Tensor& t) {
  if (t.rank() != 4) {
    return args.error(index, name, "expected a 4-D activation tensor, got rank " + std::to_string(t.rank()));
  }
  const auto s = t.sizes();
  const auto order = t.dim_order();
  Nhwc d{s[0], s[2], s[3], s[1]};
  // Upstream's is_channels_last_tensor (backends/cortex_m/ops/cortex_m_ops_common.h): a tensor
  // with one channel, or with H == W == 1, is accepted whatever its dim order, because the
  // layout is ambiguous there; its bytes are then read as NHWC, as the device reads them. For
  // the orders the exporter writes (e.g. [0,2,1,3] with C == 1) those are the NHWC bytes.
  const bool channels_last = order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1;
  const bool ambiguous = d.c == 1 || (d.h == 1 && d.w == 1);
  if (!channels_last && !ambiguous) {
    std::string got;
    for (int i = 0; i < 4; ++i) {
      if (i > 0) got += ',';
      got += std::to_string(order[i]);  // appended: `literal + to_string(...)` trips GCC 12's -Wrestrict
    }
    return args.error(index, name, "expected channels-last memory (dim_order [0,2,3,1]), got dim_order [" + got +
                                       "] with sizes " + std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" +
                                       std::to_string(s[2]) + "x" + std::to_string(s[3]));
  }
  return d;
}

Status expect_dtype(const KernelArgs& args, size_t index, std::string_view name, const Tensor& t,
                    std::initializer_list<ScalarType> allowed) {
  for (ScalarType a : allowed)
    if (t.dtype() == a) return Status::ok();
  std::string what = "expected dtype ";
  bool first = true;
  for (ScalarType a : allowed) {
    if (!first) what += " or ";
    what += scalar_type_name(a);
    first = false;
  }
  what += ", got ";
  what += scalar_type_name(t.dtype());
  return args.error(index, name, what);
}

Status expect_range(const KernelArgs& args, size_t index, std::string_view name, int64_t value,
                    int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return Status::ok();
  return args.error(index, name, "value " + std::to_string(value) + " outside [" + std::to_string(lo) +
                                     ", " + std::to_string(hi) + "]");
}

Result<int32_t> int_arg(const KernelArgs& args, size_t index, std::string_view name, int64_t lo, int64_t hi) {
  VKRT_ASSIGN_OR_RETURN(int64_t v, args.int_value(index, name));
  VKRT_RETURN_IF_ERROR(expect_range(args, index, name, v, lo, hi));
  return int32_t(v);
}

Status int_list_arg(const KernelArgs& args, size_t index, std::string_view name,
                    std::span<int32_t> out, int64_t lo, int64_t hi) {
  std::array<int64_t, 8> values{};
  if (out.size() > values.size()) return args.error(index, name, "internal: list too long");
  VKRT_ASSIGN_OR_RETURN(size_t n, args.int_list(index, name, std::span<int64_t>(values.data(), out.size())));
  if (n != out.size()) {
    return args.error(index, name, "expected " + std::to_string(out.size()) + " values, got " + std::to_string(n));
  }
  for (size_t i = 0; i < n; ++i) {
    VKRT_RETURN_IF_ERROR(expect_range(args, index, name, values[i], lo, hi));
    out[i] = int32_t(values[i]);
  }
  return Status::ok();
}

Result<const int32_t*> channel_params(const KernelArgs& args, size_t index, std::string_view name,
                                      int64_t count) {
  VKRT_ASSIGN_OR_RETURN(Tensor * t, args.tensor(index, name));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, index, name, *t, {ScalarType::Int}));
  if (t->numel() != count) {
    return args.error(index, name, "expected " + std::to_string(count) + " values (one per output channel), got " +
                                       std::to_string(t->numel()));
  }
  if (count > 0 && t->data() == nullptr) return args.error(index, name, "tensor has no data");
  return static_cast<const int32_t*>(t->data());
}

Result<Tensor*> optional_bias(const KernelArgs& args, size_t index, std::string_view name, int64_t count,
                              bool allow_int64) {
  VKRT_ASSIGN_OR_RETURN(Tensor * t, args.optional_tensor(index, name));
  if (t == nullptr) return t;
  if (allow_int64) {
    VKRT_RETURN_IF_ERROR(expect_dtype(args, index, name, *t, {ScalarType::Int, ScalarType::Long}));
  } else {
    VKRT_RETURN_IF_ERROR(expect_dtype(args, index, name, *t, {ScalarType::Int}));
  }
  if (t->numel() != count) {
    return args.error(index, name, "expected " + std::to_string(count) + " values, got " + std::to_string(t->numel()));
  }
  if (count > 0 && t->data() == nullptr) return args.error(index, name, "tensor has no data");
  return t;
}

Status output_sizes(const KernelArgs& args, size_t index, Tensor& out, std::span<const int32_t> sizes) {
  const auto have = out.sizes();
  bool same = have.size() == sizes.size();
  for (size_t i = 0; same && i < sizes.size(); ++i) same = have[i] == sizes[i];
  if (!same && have.size() == sizes.size() && out.dynamism() != ShapeDynamism::Static) {
    same = out.resize(sizes).is_ok();
  }
  if (same) return Status::ok();
  std::string want = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) want += ',';
    want += std::to_string(sizes[i]);  // appended: `literal + to_string(...)` trips GCC 12's -Wrestrict
  }
  want += "]";
  return args.error(index, "out", "expected sizes " + want);
}

Status output_memory(const KernelArgs& args, size_t index, const Tensor& out) {
  if (out.nbytes() > out.capacity_bytes() || (out.numel() > 0 && out.data() == nullptr)) {
    return args.error(index, "out", "tensor has no memory for its " + std::to_string(out.nbytes()) + " bytes");
  }
  return Status::ok();
}

Status prepare_output(const KernelArgs& args, size_t index, Tensor& out, std::span<const int32_t> sizes) {
  VKRT_RETURN_IF_ERROR(output_sizes(args, index, out, sizes));
  return output_memory(args, index, out);
}

Status expect_data(const KernelArgs& args, size_t index, std::string_view name, const Tensor& t) {
  if (t.numel() > 0 && t.data() == nullptr) return args.error(index, name, "tensor has no data");
  if (t.nbytes() > t.capacity_bytes()) return args.error(index, name, "tensor data smaller than its sizes");
  return Status::ok();
}

std::array<int32_t, 4> physical_dims4(const Tensor& t) {
  std::array<int32_t, 4> d{1, 1, 1, 1};
  const int r = t.rank();
  for (int i = 0; i < r && i < 4; ++i) d[4 - r + i] = t.sizes()[t.dim_order()[i]];
  return d;
}

Exec make_exec(KernelContext& ctx, ContextRunner& runner, size_t scratch_bytes) {
  Exec exec;
  exec.runner = &runner;
  if (scratch_bytes > 0) {
    // Without room in the temp pool the kernels take their scratch-free path; asking with
    // try_allocate_temp keeps that path free of heap allocations (no error message is built).
    if (void* mem = ctx.try_allocate_temp(scratch_bytes, 64)) exec.scratch = {static_cast<uint8_t*>(mem), scratch_bytes};
  }
  return exec;
}

Result<std::span<uint8_t>> packing_memory(KernelPrepareContext& ctx, const KernelArgs& args, size_t bytes) {
  void* memory = ctx.allocate_persistent(bytes);
  if (!memory)
    return args.op_error(Error::MemoryAllocationFailed,
                         "cannot allocate " + std::to_string(bytes) + " bytes for the packed weights");
  return std::span<uint8_t>(static_cast<uint8_t*>(memory), bytes);
}

bool all_shapes_static(const KernelArgs& args) {
  for (size_t i = 0; i < args.size(); ++i)
    if (args.at(i).is_tensor() && args.at(i).to_tensor().dynamism() != ShapeDynamism::Static) return false;
  return true;
}

}  // namespace vkrt::cortex_m
