// aten::convolution.out: hand-computed 2-D, strided/padded, grouped 1-D and channels-last cases.
#include "kernel_call.h"

namespace vkrt::portable::testing {
namespace {

using ::testing::ElementsAre;

// Arguments after input/weight/bias: stride, padding, dilation, transposed, output_padding, groups.
std::vector<EValue*> conv_args(KernelCall& c, EValue* input, EValue* weight, EValue* bias, std::vector<int64_t> stride,
                               std::vector<int64_t> padding, int64_t groups, EValue* out, bool transposed = false) {
  return {input, weight, bias, c.int_list(stride), c.int_list(padding), c.int_list({1}), c.boolean(transposed),
          c.int_list({0}), c.integer(groups), out};
}

TEST(PortableConvolution, TwoDWithBias) {
  KernelCall call("aten::convolution.out");
  auto* x = call.tensor<float>(ScalarType::Float, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto* w = call.tensor<float>(ScalarType::Float, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto* b = call.tensor<float>(ScalarType::Float, {1}, {10});
  auto* out = call.out(ScalarType::Float, {1, 1, 2, 2});
  ASSERT_TRUE(call.run(conv_args(call, x, w, b, {1, 1}, {0, 0}, 1, out)).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(22, 26, 34, 38));
}

TEST(PortableConvolution, StrideAndPaddingWithoutBias) {
  KernelCall call("aten::convolution.out");
  auto* x = call.tensor<float>(ScalarType::Float, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto* w = call.tensor<float>(ScalarType::Float, {1, 1, 2, 2}, {1, 1, 1, 1});
  auto* out = call.out(ScalarType::Float, {1, 1, 2, 2});
  ASSERT_TRUE(call.run(conv_args(call, x, w, call.none(), {2}, {1}, 1, out)).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(1, 5, 11, 28));
}

TEST(PortableConvolution, GroupedOneD) {
  KernelCall call("aten::convolution.out");
  auto* x = call.tensor<float>(ScalarType::Float, {1, 2, 3}, {1, 2, 3, 10, 20, 30});
  auto* w = call.tensor<float>(ScalarType::Float, {2, 1, 2}, {1, -1, 2, 0});
  auto* out = call.out(ScalarType::Float, {1, 2, 2});
  ASSERT_TRUE(call.run(conv_args(call, x, w, call.none(), {1}, {0}, 2, out)).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(-1, -1, 20, 40));
}

TEST(PortableConvolution, ChannelsLastTensors) {
  KernelCall call("aten::convolution.out");
  // Logical c0 = [[1, 2], [3, 4]], c1 = [[5, 6], [7, 8]] stored NHWC.
  auto* x = call.tensor<float>(ScalarType::Float, {1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8}, {0, 2, 3, 1});
  auto* w = call.tensor<float>(ScalarType::Float, {1, 2, 1, 1}, {1, 10});
  auto* out = call.out(ScalarType::Float, {1, 1, 2, 2}, {0, 2, 3, 1});
  ASSERT_TRUE(call.run(conv_args(call, x, w, call.none(), {1}, {0}, 1, out)).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(51, 62, 73, 84));
}

TEST(PortableConvolution, Errors) {
  KernelCall call("aten::convolution.out");
  auto* x = call.tensor<float>(ScalarType::Float, {1, 2, 3}, {1, 2, 3, 4, 5, 6});
  auto* w = call.tensor<float>(ScalarType::Float, {2, 1, 2}, {1, 1, 1, 1});
  auto* out = call.out(ScalarType::Float, {1, 2, 2});
  EXPECT_ERROR(call.run(conv_args(call, x, w, call.none(), {1}, {0}, 1, out)), InvalidArgument,
               "argument 1 (weight)", "input channels per group");
  EXPECT_ERROR(call.run(conv_args(call, x, w, call.none(), {1}, {0}, 3, out)), InvalidArgument,
               "argument 8 (groups)");
  // Transposed: weight [C, Cout/groups, k] gives out [1, 2, 4], not out's [1, 2, 2].
  EXPECT_ERROR(call.run(conv_args(call, x, w, call.none(), {1}, {0}, 2, out, true)), InvalidArgument,
               "argument 9 (out)");
  EXPECT_ERROR(call.run(conv_args(call, x, w, call.none(), {0}, {0}, 2, out)), InvalidArgument,
               "argument 3 (stride)");
  auto* big = call.tensor<float>(ScalarType::Float, {2, 1, 5}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_ERROR(call.run(conv_args(call, x, big, call.none(), {1}, {0}, 2, out)), InvalidArgument,
               "argument 1 (weight)", "larger");
  auto* dw = call.tensor<double>(ScalarType::Double, {2, 1, 2}, {1, 1, 1, 1});
  EXPECT_ERROR(call.run(conv_args(call, x, dw, call.none(), {1}, {0}, 2, out)), InvalidArgument,
               "argument 1 (weight)", "float64");
  EXPECT_ERROR(call.run_raw({x, w, out}), InvalidArgument, "expected 11");
}

}  // namespace
}  // namespace vkrt::portable::testing
