// rescale_add_rescale (RESCALE, RESCALE -> ADD -> RESCALE -> CLAMP in one pass, the VGF CPU
// executor's residual-add fusion) against the reference kernels in turn, and plan_residual_add's
// choice of which chains take the one pass.
#include <optional>
#include <random>

#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

RescaleAttr per_tensor(int32_t multiplier, int8_t shift, RoundingMode rounding, int32_t input_zp, int32_t output_zp) {
  RescaleAttr r;
  r.scale32 = true;
  r.rounding_mode = rounding;
  r.multiplier = {multiplier};
  r.shift = {shift};
  r.input_zp = input_zp;
  r.output_zp = output_zp;
  return r;
}

// An output RESCALE (from int32: no input zero point).
RescaleAttr per_tensor(int32_t multiplier, int8_t shift, RoundingMode rounding, int32_t output_zp) {
  return per_tensor(multiplier, shift, rounding, 0, output_zp);
}

// The ops in turn with the reference loops: the expected bytes.
std::vector<int8_t> reference_chain(Tensor<int8_t>& a, const RescaleAttr& ra, Tensor<int8_t>& b, const RescaleAttr& rb,
                                    const RescaleAttr& rout, const ClampAttr* clamp_attrs) {
  auto a32 = i32(a.shape), b32 = i32(a.shape), sum = i32(a.shape);
  auto out = i8(a.shape), clamped = i8(a.shape);
  detail::rescale_reference(a, ra, a32);
  detail::rescale_reference(b, rb, b32);
  for (size_t i = 0; i < sum.data.size(); ++i) sum.data[i] = a32.data[i] + b32.data[i];  // no overflow here
  detail::rescale_reference(sum, rout, out);
  if (clamp_attrs == nullptr) return out.data;
  EXPECT_TOSA_OK(clamp(out, *clamp_attrs, clamped));
  return clamped.data;
}

struct Chain {
  const char* what;
  RescaleAttr ra, rb, rout;
  bool clamped;
};

// The sample's residual add (both inputs x 2^10, the sum halved and requantized), TFLite-style
// input scales that are exact (a multiplier with enough trailing zeros), zero points on every
// side, both roundings of the output RESCALE and its shifts at the ends of [32, 62].
std::vector<Chain> one_pass_chains() {
  using enum RoundingMode;
  return {
      {"sample", per_tensor(1 << 30, 20, SingleRound, -128, 0), per_tensor(1 << 30, 20, SingleRound, -128, 0),
       per_tensor(1518500250, 41, DoubleRound, -128), false},
      {"sample with ReLU6", per_tensor(1 << 30, 20, SingleRound, -128, 0), per_tensor(1 << 30, 20, SingleRound, -128, 0),
       per_tensor(1518500250, 41, DoubleRound, -128), true},
      {"unequal scales", per_tensor(3 << 20, 10, DoubleRound, 5, 0), per_tensor(5 << 22, 12, SingleRound, -3, 0),
       per_tensor(1717986918, 44, SingleRound, 7), false},
      {"shift 32, clamped", per_tensor(1 << 30, 30, SingleRound, 0, 0), per_tensor(1 << 30, 29, SingleRound, 17, 0),
       per_tensor(2000000000, 32, DoubleRound, -1), true},
      {"shift 62, the sum at int32's ends", per_tensor(1 << 30, 8, SingleRound, 0, 0),
       per_tensor(1 << 30, 8, SingleRound, 0, 0),
       per_tensor(INT32_MAX, 62, DoubleRound, 3), false},
  };
}

TEST(TosaResidualAdd, OnePassEqualsTheOpsInTurn) {
  std::mt19937 rng(5);
  CountingThreads three(3);
  ClampAttr relu;
  relu.min_int = -128, relu.max_int = 20;
  // Element counts that end in partial vectors of every width, and one large enough for threads.
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{1, 1, 1, 1}, {1, 3, 5, 7}, {1, 7, 7, 160},
                                                                            {1, 56, 56, 24}}) {
    auto a = i8(shape), b = i8(shape);
    std::uniform_int_distribution<int> byte(-128, 127);
    for (auto& v : a.data) v = int8_t(byte(rng));
    for (auto& v : b.data) v = int8_t(byte(rng));
    a.data[0] = -128, b.data[0] = 127;  // the extremes
    for (const Chain& c : one_pass_chains()) {
      const ClampAttr* clamp_attrs = c.clamped ? &relu : nullptr;
      const std::optional<ResidualAdd> plan = plan_residual_add(c.ra, c.rb, c.rout, clamp_attrs);
      ASSERT_TRUE(plan.has_value()) << c.what;
      const std::vector<int8_t> want = reference_chain(a, c.ra, b, c.rb, c.rout, clamp_attrs);
      for (compute::Isa isa : compute::available_isas()) {
        compute::ScopedIsa pin(isa);
        for (ParallelRunner* runner : {static_cast<ParallelRunner*>(nullptr), static_cast<ParallelRunner*>(&three)}) {
          auto a32 = i32(shape), b32 = i32(shape), sum = i32(shape);
          auto out = i8(shape), clamped = i8(shape);
          ASSERT_TOSA_OK(rescale_add_rescale(a, c.ra, a32, b, c.rb, b32, sum, c.rout, out, clamp_attrs, clamped, runner,
                                             &*plan));
          EXPECT_EQ(c.clamped ? clamped.data : out.data, want)
              << c.what << " at " << compute::isa_name(isa) << (runner ? ", 3 threads" : "") << ", " << a.data.size()
              << " elements";
          // The one pass writes only the final tensor.
          EXPECT_EQ(sum.data, std::vector<int32_t>(sum.data.size(), 0)) << c.what;
        }
      }
      // Without the plan (or with another chain's), the ops run in turn: the same bytes.
      auto a32 = i32(shape), b32 = i32(shape), sum = i32(shape);
      auto out = i8(shape), clamped = i8(shape);
      const RescaleAttr other = c.rout;
      ASSERT_TOSA_OK(rescale_add_rescale(a, c.ra, a32, b, c.rb, b32, sum, other, out, clamp_attrs, clamped, &three,
                                         &*plan));
      EXPECT_EQ(c.clamped ? clamped.data : out.data, want) << c.what << ", ops in turn";
      EXPECT_NE(sum.data, std::vector<int32_t>(sum.data.size(), 0)) << c.what << ": the ops in turn write the sums";
    }
  }
  EXPECT_GT(three.tasks, 0);
}

// What takes the one pass: plan_residual_add refuses the chains its formula would get wrong.
TEST(TosaResidualAdd, PlanRefusesWhatIsNotTheOnePassForm) {
  using enum RoundingMode;
  const RescaleAttr up = per_tensor(1 << 30, 20, SingleRound, -128, 0);
  const RescaleAttr down = per_tensor(1518500250, 41, DoubleRound, -128);
  EXPECT_TRUE(plan_residual_add(up, up, down, nullptr).has_value());
  // An input scale that rounds (x·0.75): not affine over int8.
  EXPECT_FALSE(plan_residual_add(per_tensor(3 << 28, 30, SingleRound, 0, 0), up, down, nullptr).has_value());
  // Inputs scaled so far up that their sum could leave int32 (each up to 2^31·127/128).
  const RescaleAttr huge = per_tensor(INT32_MAX, 8, SingleRound, 0, 0);
  EXPECT_FALSE(plan_residual_add(huge, huge, down, nullptr).has_value());
  // A per-channel input scale.
  RescaleAttr per_channel = up;
  per_channel.per_channel = true;
  per_channel.multiplier = {1 << 30, 1 << 30};
  per_channel.shift = {20, 20};
  EXPECT_FALSE(plan_residual_add(per_channel, up, down, nullptr).has_value());
  // The output RESCALE: a shift below 32, per-channel, scale16, inexact rounding.
  EXPECT_FALSE(plan_residual_add(up, up, per_tensor(1 << 30, 31, SingleRound, 0), nullptr).has_value());
  RescaleAttr out_per_channel = down;
  out_per_channel.per_channel = true;
  EXPECT_FALSE(plan_residual_add(up, up, out_per_channel, nullptr).has_value());
  RescaleAttr out16 = down;
  out16.scale32 = false;
  EXPECT_FALSE(plan_residual_add(up, up, out16, nullptr).has_value());
  EXPECT_FALSE(plan_residual_add(up, up, per_tensor(1518500250, 41, InexactRound, -128), nullptr).has_value());
  // A CLAMP whose range misses int8's is not a narrowing.
  ClampAttr disjoint;
  disjoint.min_int = 200, disjoint.max_int = 300;
  EXPECT_FALSE(plan_residual_add(up, up, down, &disjoint).has_value());
  ClampAttr relu;
  relu.min_int = -128, relu.max_int = 20;
  const auto plan = plan_residual_add(up, up, down, &relu);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->lo, -128);
  EXPECT_EQ(plan->hi, 20);
  // The sample's input RESCALE is (v + 128)·2^10: multiplier 1024, bias 131072.
  EXPECT_EQ(plan->a_mult, 1024);
  EXPECT_EQ(plan->a_bias, 128 * 1024);
}

// Operands of different shapes (a broadcast ADD) run the ops in turn.
TEST(TosaResidualAdd, ShapesThatDifferRunTheOpsInTurn) {
  const RescaleAttr up = per_tensor(1 << 30, 20, RoundingMode::SingleRound, -128, 0);
  const RescaleAttr down = per_tensor(1518500250, 41, RoundingMode::DoubleRound, -128);
  const auto plan = plan_residual_add(up, up, down, nullptr);
  ASSERT_TRUE(plan.has_value());
  auto a = i8({1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), b = i8({1, 1, 1, 3}, {-5, 0, 5});
  auto a32 = i32({1, 2, 2, 3}), b32 = i32({1, 1, 1, 3}), sum = i32({1, 2, 2, 3});
  auto out = i8({1, 2, 2, 3}), unused = i8({1, 2, 2, 3});
  ASSERT_TOSA_OK(rescale_add_rescale(a, up, a32, b, up, b32, sum, down, out, nullptr, unused, nullptr, &*plan));
  auto want = i8({1, 2, 2, 3});
  ASSERT_TOSA_OK(rescale(sum, down, want));
  EXPECT_EQ(out.data, want.data);
  EXPECT_EQ(sum.data[4], (5 + 128) * 1024 + (0 + 128) * 1024);  // the broadcast sum, written
}

}  // namespace
}  // namespace vkrt::tosa::test
