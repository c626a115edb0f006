// Comparing a method's outputs with expected ones: a bundled program's expected outputs
// (bundled_program.h), or the same method run on another executor (executor_runner
// --compare_with_cpu). Integer, Bool and other non-floating tensors must match bit for bit;
// Half, BFloat16, Float and Double elements within |got - expected| <= atol + rtol * |expected|
// (NaN matches NaN, an infinity only itself; rtol = atol = 0 asks for equality). Complex
// tensors compare as their real and imaginary parts (each counts as an element).
#pragma once

#include <string>
#include <vector>

#include "vkrt/error.h"
#include "vkrt/evalue.h"

namespace vkrt {

class Method;

struct OutputComparison {
  bool pass = true;
  int64_t elements = 0;    // tensor elements (and scalars) compared
  int64_t mismatched = 0;  // of those, outside the tolerance (or, for exact types, different)
  // Over every compared element, floating and integer alike.
  double max_abs_error = 0, mean_abs_error = 0, max_rel_error = 0, mean_rel_error = 0;
  std::string message;  // the first difference: the output, the element, both values
};

// Accumulates comparisons of values, one output after another, into one OutputComparison.
class OutputComparer {
 public:
  OutputComparer(double rtol, double atol) : rtol_(rtol), atol_(atol) {}

  // `name` labels messages ("output 0"). Both buffers hold `numel` elements of `dtype`.
  void compare_tensor(const std::string& name, ScalarType dtype, int64_t numel, const void* got,
                      const void* expected);
  // Int and Bool scalars exactly, Double within the tolerance.
  void compare_scalar(const std::string& name, const EValue& got, const EValue& expected);
  // Records a difference that is not an element's (a dtype, a shape, a missing output).
  void fail(const std::string& message);

  // The totals so far, means included.
  OutputComparison result() const;

 private:
  void compare_element(const std::string& name, int64_t index, double got, double expected, bool exact_type,
                       bool bits_equal);

  double rtol_, atol_;
  OutputComparison r_;
  double sum_abs_ = 0, sum_rel_ = 0;
};

// Compares every output of `got` with the same output of `expected` (two loads of one program,
// both executed), one OutputComparison per output. Errors only when the methods' output counts
// differ; a differing output is a failed comparison, not an error.
Result<std::vector<OutputComparison>> compare_method_outputs(const Method& got, const Method& expected, double rtol,
                                                             double atol);

}  // namespace vkrt
