// OutputComparer and compare_method_outputs (vkrt/output_compare.h) against hand-computed
// verdicts and error figures; the method-level test runs the conformance AddModel (x + 1) twice.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/conformance.h"
#include "vkrt/half.h"
#include "vkrt/module.h"
#include "vkrt/output_compare.h"

namespace vkrt {
namespace {

TEST(OutputComparer, IntegersMustBeEqual) {
  const int8_t got[] = {1, 2, 3, -128};
  const int8_t want[] = {1, 2, 4, 127};
  OutputComparer c(/*rtol=*/0.5, /*atol=*/10);  // tolerances do not apply to integers
  c.compare_tensor("output 0", ScalarType::Char, 4, got, want);
  const OutputComparison r = c.result();
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.elements, 4);
  EXPECT_EQ(r.mismatched, 2);
  EXPECT_EQ(r.message, "output 0[2]: got 3, expected 4");  // the first difference
  EXPECT_EQ(r.max_abs_error, 255);                        // |-128 - 127|
  EXPECT_DOUBLE_EQ(r.mean_abs_error, (0 + 0 + 1 + 255) / 4.0);
  EXPECT_DOUBLE_EQ(r.max_rel_error, 255.0 / 127.0);
}

TEST(OutputComparer, EqualIntegersPassWithZeroError) {
  const int32_t v[] = {7, -9, 1 << 30};
  OutputComparer c(0, 0);
  c.compare_tensor("output 1", ScalarType::Int, 3, v, v);
  const OutputComparison r = c.result();
  EXPECT_TRUE(r.pass) << r.message;
  EXPECT_EQ(r.elements, 3);
  EXPECT_EQ(r.mismatched, 0);
  EXPECT_EQ(r.max_abs_error, 0);
  EXPECT_TRUE(r.message.empty());
}

TEST(OutputComparer, FloatsWithinAtolPlusRtolTimesExpected) {
  // Bound per element: 0.01 + 0.1 * |expected|.
  const float got[] = {1.10f, 10.9f, 100.0f, -2.0f};
  const float want[] = {1.0f, 10.0f, 120.0f, -2.0f};
  OutputComparer c(/*rtol=*/0.1, /*atol=*/0.01);
  c.compare_tensor("output 0", ScalarType::Float, 4, got, want);
  const OutputComparison r = c.result();
  EXPECT_FALSE(r.pass);
  // 0.10 <= 0.11 passes; 0.9 <= 1.01 passes; 20 > 12.01 fails.
  EXPECT_EQ(r.mismatched, 1);
  EXPECT_EQ(r.message, "output 0[2]: got 100, expected 120");
  EXPECT_NEAR(r.max_abs_error, 20.0, 1e-5);
  EXPECT_NEAR(r.max_rel_error, 20.0 / 120.0, 1e-6);
}

TEST(OutputComparer, NanMatchesNanAndInfinityOnlyItself) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float got[] = {nan, inf, inf, 1.0f};
  const float want[] = {nan, inf, -inf, nan};
  OutputComparer c(1, 1);
  c.compare_tensor("y", ScalarType::Float, 4, got, want);
  const OutputComparison r = c.result();
  EXPECT_EQ(r.mismatched, 2);  // inf vs -inf, 1 vs NaN
  EXPECT_EQ(r.message, "y[2]: got inf, expected -inf");
  EXPECT_EQ(r.max_abs_error, 0);  // non-finite differences stay out of the figures
}

TEST(OutputComparer, ComplexComparesItsPartsWithTolerance) {
  const float got[] = {1.0f, 2.0f, 3.0f, -4.0f};  // two complex64 values
  const float want[] = {1.0f, 2.001f, 3.0f, -4.0f};
  OutputComparer loose(0.01, 0), exact(0, 0);
  loose.compare_tensor("c", ScalarType::ComplexFloat, 2, got, want);
  exact.compare_tensor("c", ScalarType::ComplexFloat, 2, got, want);
  EXPECT_TRUE(loose.result().pass);
  EXPECT_FALSE(exact.result().pass);
  EXPECT_EQ(exact.result().elements, 4);
}

TEST(OutputComparer, HalfIsToleranced) {
  const uint16_t got[] = {float_to_half(1.0f), float_to_half(2.0f)};
  const uint16_t want[] = {float_to_half(1.0009765625f), float_to_half(2.0f)};  // one half ulp above 1
  OutputComparer loose(0, 0.01), exact(0, 0);
  loose.compare_tensor("h", ScalarType::Half, 2, got, want);
  exact.compare_tensor("h", ScalarType::Half, 2, got, want);
  EXPECT_TRUE(loose.result().pass);
  EXPECT_FALSE(exact.result().pass);
  EXPECT_EQ(exact.result().message, "h[0]: got 1, expected 1.00097656");
}

TEST(OutputComparer, ScalarsAndFailuresAccumulate) {
  OutputComparer c(0, 0.5);
  c.compare_scalar("output 0", EValue::from_int(3), EValue::from_int(3));
  c.compare_scalar("output 1", EValue::from_double(1.25), EValue::from_double(1.5));  // within 0.5
  EXPECT_TRUE(c.result().pass);
  c.compare_scalar("output 2", EValue::from_bool(true), EValue::from_bool(false));
  c.fail("output 3: dtype or sizes differ");
  const OutputComparison r = c.result();
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.elements, 3);
  EXPECT_EQ(r.mismatched, 1);
  EXPECT_EQ(r.message, "output 2: got 1, expected 0");  // the first failure is kept
  c.compare_scalar("output 4", EValue::from_int(1), EValue::from_double(1));
  EXPECT_EQ(c.result().message, "output 2: got 1, expected 0");
}

// AddModel computes x + 1.0 (shared/conformance/pte/README.md).
struct AddRun {
  std::unique_ptr<Module> module;
  Method* method = nullptr;
  float x[3];
  Tensor input;
};

void run_add_model(AddRun& r, const std::string& path, float x0, float x1, float x2) {
  auto module = Module::load(path);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  r.module = std::move(*module);
  auto method = r.module->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  r.method = *method;
  r.x[0] = x0, r.x[1] = x1, r.x[2] = x2;
  const int32_t sizes[1] = {3};
  auto t = Tensor::make(ScalarType::Float, sizes, r.x);
  ASSERT_TRUE(t.ok());
  r.input = *t;
  ASSERT_TRUE(r.method->set_input(0, EValue::from_tensor(&r.input)).is_ok());
  ASSERT_TRUE(r.method->execute().is_ok());
}

TEST(CompareMethodOutputs, TwoRunsOfOneProgram) {
  VKRT_REQUIRE_CONFORMANCE(path, "pte/executorch__examples_arduino_examples_AddModel_model.pte");
  AddRun a, near, far;
  run_add_model(a, path, 1, 2, 3);         // [2, 3, 4]
  run_add_model(near, path, 1, 2.004f, 3);  // [2, 3.004, 4]
  run_add_model(far, path, 1, 2, 5);       // [2, 3, 6]
  auto same = compare_method_outputs(*a.method, *near.method, /*rtol=*/0, /*atol=*/0.01);
  ASSERT_TRUE(same.ok()) << same.status().to_string();
  ASSERT_EQ(same->size(), 1u);
  EXPECT_TRUE((*same)[0].pass) << (*same)[0].message;
  EXPECT_NEAR((*same)[0].max_abs_error, 0.004, 1e-5);
  auto differ = compare_method_outputs(*a.method, *far.method, 0, 0.01);
  ASSERT_TRUE(differ.ok());
  EXPECT_FALSE((*differ)[0].pass);
  EXPECT_EQ((*differ)[0].mismatched, 1);
  EXPECT_EQ((*differ)[0].message, "output 0[2]: got 4, expected 6");
}

}  // namespace
}  // namespace vkrt
