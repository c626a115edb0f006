#include "vkrt/kernel_args.h"

#include <string>

namespace vkrt {

Status KernelArgs::expect_count(size_t min, size_t max) const {
  if (args_.size() >= min && args_.size() <= max) return Status::ok();
  std::string want = min == max ? std::to_string(min) : std::to_string(min) + ".." + std::to_string(max);
  return make_error(Error::InvalidArgument, op_, ": expected ", want,
                    " arguments (including the return slot), got ", args_.size());
}

Status KernelArgs::error(size_t i, std::string_view name, std::string_view what) const {
  return make_error(Error::InvalidArgument, op_, ": argument ", i, " (", name, "): ", what);
}

Status KernelArgs::op_error(Error code, std::string_view what) const {
  return make_error(code, op_, ": ", what);
}

Status KernelArgs::tag_error(size_t i, std::string_view name, std::string_view expected) const {
  if (i >= args_.size())
    return make_error(Error::InvalidArgument, op_, ": argument ", i, " (", name, ") is missing; got ",
                      args_.size(), " arguments");
  return make_error(Error::InvalidType, op_, ": argument ", i, " (", name, "): expected ", expected,
                    ", got ", tag_name(args_[i]->tag()));
}

Result<Tensor*> KernelArgs::tensor(size_t i, std::string_view name) const {
  if (i >= args_.size() || !args_[i]->is_tensor()) return tag_error(i, name, "Tensor");
  return args_[i]->tensor_ptr();
}

Result<Tensor*> KernelArgs::optional_tensor(size_t i, std::string_view name) const {
  if (i < args_.size() && args_[i]->is_none()) return static_cast<Tensor*>(nullptr);
  if (i >= args_.size() || !args_[i]->is_tensor()) return tag_error(i, name, "Tensor or None");
  return args_[i]->tensor_ptr();
}

Result<int64_t> KernelArgs::int_value(size_t i, std::string_view name) const {
  if (i < args_.size() && args_[i]->is_int()) return args_[i]->to_int();
  if (i < args_.size() && args_[i]->is_bool()) return int64_t(args_[i]->to_bool());
  return tag_error(i, name, "Int");
}

Result<double> KernelArgs::double_value(size_t i, std::string_view name) const {
  if (i < args_.size() && args_[i]->is_double()) return args_[i]->to_double();
  if (i < args_.size() && args_[i]->is_int()) return double(args_[i]->to_int());
  return tag_error(i, name, "Double");
}

Result<bool> KernelArgs::bool_value(size_t i, std::string_view name) const {
  if (i < args_.size() && args_[i]->is_bool()) return args_[i]->to_bool();
  return tag_error(i, name, "Bool");
}

Result<size_t> KernelArgs::int_list(size_t i, std::string_view name, std::span<int64_t> out) const {
  if (i >= args_.size() || !args_[i]->is_int_list()) return tag_error(i, name, "IntList");
  const EValue& v = *args_[i];
  if (v.list_size() > out.size())
    return error(i, name, "list has " + std::to_string(v.list_size()) + " items, at most " +
                              std::to_string(out.size()) + " supported");
  for (size_t k = 0; k < v.list_size(); ++k) out[k] = v.int_list_at(k);
  return v.list_size();
}

}  // namespace vkrt
