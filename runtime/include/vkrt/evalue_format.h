// Printing values the way ExecuTorch's reference executor_runner does
// (extension/evalue_util/print_evalue.cpp upstream; shared/docs/pte-format.md §10):
//   tensor(sizes=[3], [2., 2., 2.])
// More than 200 elements print the first and last 100 around "...,"; more than 10 printed
// items wrap 10 per line, each line starting with a newline and two spaces.
#pragma once

#include <string>

#include "vkrt/evalue.h"

namespace vkrt {

// One value in the summary format.
std::string format_evalue(const EValue& value);
// One scalar element of a tensor, e.g. "2." for a float 2.0, "True" for a bool.
std::string format_element(const Tensor& tensor, int64_t index);

}  // namespace vkrt
