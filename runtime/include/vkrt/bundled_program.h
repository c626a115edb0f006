// Bundled programs (.bpte): a program plus test cases (inputs and expected outputs) per method
// (shared/docs/pte-format.md §8). Verification follows ExecuTorch's rule: floating-point
// outputs within atol + rtol*|expected| elementwise (NaN equals NaN), everything else byte for byte.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vkrt/error.h"
#include "vkrt/evalue.h"
#include "vkrt/module.h"
#include "vkrt/output_compare.h"

namespace vkrt {

struct BundledValue {
  Tag tag = Tag::None;  // Tensor, Int, Bool or Double
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::span<const uint8_t> data;  // tensor bytes, inside the .bpte
  int64_t int_value = 0;
  double double_value = 0;
  bool bool_value = false;
};

struct BundledTestCase {
  std::vector<BundledValue> inputs;
  std::vector<BundledValue> expected_outputs;
};

struct BundledTestSuite {
  std::string method_name;
  std::vector<BundledTestCase> test_cases;
};

// pass, error figures and the first difference (output_compare.h).
using BundledComparison = OutputComparison;

class BundledProgram {
 public:
  // True when the bytes carry the BP08 identifier.
  static bool is_bundled(std::span<const uint8_t> bytes);
  // Maps and verifies a .bpte file.
  static Result<std::unique_ptr<BundledProgram>> load(const std::string& path);
  // Verifies bytes the caller keeps alive.
  static Result<std::unique_ptr<BundledProgram>> parse(std::span<const uint8_t> bytes);

  // The embedded .pte, valid while this object lives.
  std::span<const uint8_t> program() const { return program_; }
  const std::vector<BundledTestSuite>& suites() const { return suites_; }
  const BundledTestSuite* find_suite(const std::string& method) const;

 private:
  std::shared_ptr<const void> owner_;
  std::span<const uint8_t> program_;
  std::vector<BundledTestSuite> suites_;
};

// Sets every input of `method` from the test case (tensors are copied or shared per set_input).
Status load_bundled_inputs(Method& method, const BundledTestCase& test_case);
// Compares the method's outputs after execute() with the expected outputs.
Result<BundledComparison> verify_bundled_outputs(const Method& method, const BundledTestCase& test_case,
                                                 double rtol = 0.01, double atol = 0.01);

}  // namespace vkrt
