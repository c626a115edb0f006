// Checked access to kernel arguments: each helper returns an error that names the op, the
// argument position and what was expected ("aten::add.out: argument 2 (alpha): expected Int,
// got Tensor"), so kernels never index past the argument list or misread a tag.
#pragma once

#include <span>
#include <string_view>

#include "vkrt/evalue.h"
#include "vkrt/kernel.h"

namespace vkrt {

class KernelArgs {
 public:
  KernelArgs(std::string_view op, std::span<EValue* const> args) : op_(op), args_(args) {}

  size_t size() const { return args_.size(); }
  std::string_view op() const { return op_; }
  // InvalidArgument unless there are between min and max arguments (return slot included).
  Status expect_count(size_t min, size_t max) const;

  const EValue& at(size_t i) const { return *args_[i]; }
  Result<Tensor*> tensor(size_t i, std::string_view name) const;
  // Null for a None argument.
  Result<Tensor*> optional_tensor(size_t i, std::string_view name) const;
  Result<int64_t> int_value(size_t i, std::string_view name) const;
  Result<double> double_value(size_t i, std::string_view name) const;  // Int is widened
  Result<bool> bool_value(size_t i, std::string_view name) const;
  // IntList copied into `out` (capacity = out.size()); returns the count.
  Result<size_t> int_list(size_t i, std::string_view name, std::span<int64_t> out) const;
  bool is_none(size_t i) const { return args_[i]->is_none(); }

  // An InvalidArgument error prefixed with "<op>: argument <i> (<name>): ".
  Status error(size_t i, std::string_view name, std::string_view what) const;
  // An error prefixed with "<op>: ".
  Status op_error(Error code, std::string_view what) const;

 private:
  Status tag_error(size_t i, std::string_view name, std::string_view expected) const;
  std::string_view op_;
  std::span<EValue* const> args_;
};

}  // namespace vkrt
