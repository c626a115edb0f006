// The random creation ops (rand, randn, native_dropout while training) and empty.out: what
// the PyTorch oracle cannot check because the values are random or unspecified.
#include <cmath>

#include "kernel_call.h"
#include "vkrt/half.h"

namespace vkrt::portable::testing {
namespace {

std::vector<double> as_doubles(const EValue* v) {
  const Tensor& t = v->to_tensor();
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (t.dtype()) {
      case ScalarType::Float: out.push_back(static_cast<const float*>(t.data())[i]); break;
      case ScalarType::Double: out.push_back(static_cast<const double*>(t.data())[i]); break;
      case ScalarType::Half: out.push_back(half_to_float(static_cast<const uint16_t*>(t.data())[i])); break;
      case ScalarType::BFloat16:
        out.push_back(bfloat16_to_float(static_cast<const uint16_t*>(t.data())[i]));
        break;
      default: ADD_FAILURE() << "unexpected dtype";
    }
  }
  return out;
}

void moments(const std::vector<double>& v, double& mean, double& var) {
  mean = 0;
  for (double x : v) mean += x;
  mean /= double(v.size());
  var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= double(v.size());
}

TEST(PortableRand, UniformInUnitIntervalForEveryFloatingDtype) {
  for (ScalarType dt : {ScalarType::Float, ScalarType::Double, ScalarType::Half, ScalarType::BFloat16}) {
    KernelCall call("aten::rand.out");
    auto* out = call.out(dt, {64, 64});
    ASSERT_TRUE(call.run({call.int_list({64, 64}), out}).is_ok());
    const auto v = as_doubles(out);
    for (double x : v) ASSERT_TRUE(x >= 0.0 && x < 1.0) << x;
    double mean, var;
    moments(v, mean, var);
    EXPECT_NEAR(mean, 0.5, 0.03) << scalar_type_name(dt);
    EXPECT_NEAR(var, 1.0 / 12.0, 0.01) << scalar_type_name(dt);
  }
}

TEST(PortableRand, FreshValuesEachCallAndDynamicResize) {
  KernelCall call("aten::rand.out");
  auto* a = call.out(ScalarType::Float, {16});
  auto* b = call.out(ScalarType::Float, {8, 8}, {}, ShapeDynamism::DynamicBound);
  ASSERT_TRUE(call.run({call.int_list({16}), a}).is_ok());
  ASSERT_TRUE(call.run({call.int_list({4, 4}), b}).is_ok());  // a DYNAMIC_BOUND out keeps its rank
  EXPECT_EQ(sizes_of(b), (std::vector<int32_t>{4, 4}));
  const auto va = data_of<float>(a), vb = data_of<float>(b);
  EXPECT_NE(va, std::vector<float>(vb.begin(), vb.begin() + 16));
}

TEST(PortableRandn, StandardNormalMoments) {
  for (ScalarType dt : {ScalarType::Float, ScalarType::Double, ScalarType::Half}) {
    KernelCall call("aten::randn.out");
    auto* out = call.out(dt, {8192});
    ASSERT_TRUE(call.run({call.int_list({8192}), out}).is_ok());
    const auto v = as_doubles(out);
    for (double x : v) ASSERT_TRUE(std::isfinite(x));
    double mean, var;
    moments(v, mean, var);
    EXPECT_NEAR(mean, 0.0, 0.06) << scalar_type_name(dt);
    EXPECT_NEAR(var, 1.0, 0.08) << scalar_type_name(dt);
  }
}

TEST(PortableRandom, Errors) {
  KernelCall call("aten::randn.out");
  EXPECT_ERROR(call.run({call.int_list({2}), call.out(ScalarType::Long, {2})}), InvalidArgument,
               "aten::randn.out", "argument 1 (out)");
  EXPECT_ERROR(call.run({call.int_list({-2}), call.out(ScalarType::Float, {2})}), InvalidArgument,
               "argument 0 (size)");
}

// Upstream's portable kernel keeps each element with probability 1 - p and does not rescale
// the kept ones by 1 / (1 - p) as PyTorch does.
TEST(PortableNativeDropout, TrainingKeepsAboutOneMinusPUnscaled) {
  for (double p : {0.25, 0.5, 0.9}) {
    KernelCall call("aten::native_dropout.out");
    std::vector<float> ones(4096, 1.5f);
    auto* x = call.tensor<float>(ScalarType::Float, {64, 64}, ones);
    auto* out = call.out(ScalarType::Float, {64, 64});
    auto* mask = call.out(ScalarType::Bool, {64, 64});
    ASSERT_TRUE(call.run({x, call.real(p), call.boolean(true), out, mask}).is_ok());
    const auto o = data_of<float>(out);
    const auto m = data_of<uint8_t>(mask);
    int kept = 0;
    for (size_t i = 0; i < o.size(); ++i) {
      ASSERT_TRUE(m[i] == 0 || m[i] == 1);
      EXPECT_EQ(o[i], m[i] ? 1.5f : 0.0f);
      kept += m[i];
    }
    EXPECT_NEAR(double(kept) / 4096.0, 1.0 - p, 0.04) << "p = " << p;
  }
}

TEST(PortableNativeDropout, TrainNoneTrains) {
  KernelCall call("aten::native_dropout.out");
  std::vector<double> ones(1024, 1.0);
  auto* x = call.tensor<double>(ScalarType::Double, {1024}, ones);
  auto* out = call.out(ScalarType::Double, {1024});
  auto* mask = call.out(ScalarType::Bool, {1024});
  ASSERT_TRUE(call.run({x, call.real(0.5), call.none(), out, mask}).is_ok());
  int kept = 0;
  for (uint8_t b : data_of<uint8_t>(mask)) kept += b;
  EXPECT_GT(kept, 400);
  EXPECT_LT(kept, 624);
}

TEST(PortableEmpty, ResizesDynamicOutAndLeavesData) {
  KernelCall call("aten::empty.out");
  auto* out = call.out(ScalarType::Int, {4, 4}, {}, ShapeDynamism::DynamicBound);
  ASSERT_TRUE(call.run({call.int_list({2, 3}), call.none(), out}).is_ok());
  EXPECT_EQ(sizes_of(out), (std::vector<int32_t>{2, 3}));
  EXPECT_ERROR(call.run({call.int_list({5, 5}), call.none(), out}), InvalidArgument, "argument 2 (out)");
  EXPECT_ERROR(call.run({call.int_list({2, 3}), call.integer(2), out}), InvalidArgument,
               "argument 1 (memory_format)");
}

}  // namespace
}  // namespace vkrt::portable::testing
