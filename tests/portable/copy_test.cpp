// Data movement: clone, dim-order copies, permute, expand, view/squeeze/unsqueeze, slice,
// select, cat.
#include "kernel_call.h"

namespace vkrt::portable::testing {
namespace {

using ::testing::ElementsAre;

TEST(PortableClone, CopiesAnyDtypeAndChecksMemoryFormat) {
  KernelCall call("aten::clone.out");
  auto* x = call.tensor<uint16_t>(ScalarType::UInt16, {2}, {7, 65535});  // dtype-agnostic copy
  auto* out = call.out(ScalarType::UInt16, {2});
  ASSERT_TRUE(call.run({x, call.none(), out}).is_ok());
  EXPECT_THAT(data_of<uint16_t>(out), ElementsAre(7, 65535));

  auto* f = call.tensor<float>(ScalarType::Float, {}, {2.5f});  // 0-dim, as in model.pte
  auto* fout = call.out(ScalarType::Float, {});
  ASSERT_TRUE(call.run({f, call.integer(0), fout}).is_ok());
  EXPECT_THAT(data_of<float>(fout), ElementsAre(2.5f));

  auto* cl = call.out(ScalarType::Float, {});
  EXPECT_ERROR(call.run({f, call.integer(9), cl}), InvalidArgument, "argument 1 (memory_format)");
  auto* wrong = call.out(ScalarType::Double, {});
  EXPECT_ERROR(call.run({f, call.none(), wrong}), InvalidArgument, "argument 2 (out)", "float32");
}

TEST(PortableCloneDimOrder, ContiguousToChannelsLast) {
  KernelCall call("dim_order_ops::_clone_dim_order.out");
  // Logical [1, 2, 2, 2] (N, C, H, W) with values 0..7 in NCHW order.
  auto* x = call.tensor<float>(ScalarType::Float, {1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto* out = call.out(ScalarType::Float, {1, 2, 2, 2}, {0, 2, 3, 1});
  ASSERT_TRUE(call.run({x, call.boolean(false), call.int_list({0, 2, 3, 1}), out}).is_ok());
  // NHWC memory: for each (h, w): c0, c1.
  EXPECT_THAT(data_of<float>(out), ElementsAre(0, 4, 1, 5, 2, 6, 3, 7));

  // And back: channels-last input to a contiguous out.
  auto* back = call.out(ScalarType::Float, {1, 2, 2, 2});
  ASSERT_TRUE(call.run({out, call.boolean(false), call.none(), back}).is_ok());
  EXPECT_THAT(data_of<float>(back), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
}

TEST(PortableCloneDimOrder, Errors) {
  KernelCall call("dim_order_ops::_clone_dim_order.out");
  auto* x = call.tensor<float>(ScalarType::Float, {2, 2}, {0, 1, 2, 3});
  auto* out = call.out(ScalarType::Float, {2, 2});
  EXPECT_ERROR(call.run({x, call.boolean(false), call.int_list({1, 0}), out}), InvalidArgument,
               "argument 2 (dim_order)", "does not match");
  EXPECT_ERROR(call.run({x, call.boolean(false), call.int_list({0}), out}), InvalidArgument,
               "argument 2 (dim_order)", "rank 2");
  auto* iout = call.out(ScalarType::Int, {2, 2});
  EXPECT_ERROR(call.run({x, call.boolean(false), call.none(), iout}), InvalidArgument, "argument 3 (out)");
  EXPECT_ERROR(call.run({x, call.integer(0), call.none(), out}), InvalidType, "argument 1 (non_blocking)");
}

TEST(PortableToDimOrderCopy, ConvertsDtypeLikePricedProgram) {
  // priced.pte: int64[1] -> float32[1], dim_order [0].
  KernelCall call("dim_order_ops::_to_dim_order_copy.out");
  auto* x = call.tensor<int64_t>(ScalarType::Long, {1}, {42});
  auto* out = call.out(ScalarType::Float, {1});
  ASSERT_TRUE(call.run({x, call.boolean(false), call.int_list({0}), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(42.0f));

  // 0-dim with an empty dim_order list (const_methods.pte).
  auto* s = call.tensor<int64_t>(ScalarType::Long, {}, {-3});
  auto* sout = call.out(ScalarType::Float, {});
  ASSERT_TRUE(call.run({s, call.boolean(false), call.int_list({}), sout}).is_ok());
  EXPECT_THAT(data_of<float>(sout), ElementsAre(-3.0f));

  // float -> int32 truncates toward zero; out-of-range saturates; NaN -> 0.
  auto* f = call.tensor<float>(ScalarType::Float, {4}, {2.7f, -2.7f, 1e20f, NAN});
  auto* iout = call.out(ScalarType::Int, {4});
  ASSERT_TRUE(call.run({f, call.boolean(false), call.none(), iout}).is_ok());
  EXPECT_THAT(data_of<int32_t>(iout), ElementsAre(2, -2, 2147483647, 0));

  // float -> bool is "!= 0".
  auto* bout = call.out(ScalarType::Bool, {4});
  ASSERT_TRUE(call.run({f, call.boolean(false), call.none(), bout}).is_ok());
  EXPECT_THAT(data_of<uint8_t>(bout), ElementsAre(1, 1, 1, 1));
}

TEST(PortableToDimOrderCopy, RejectsUnsupportedConversion) {
  KernelCall call("dim_order_ops::_to_dim_order_copy.out");
  auto* x = call.tensor<uint16_t>(ScalarType::UInt16, {1}, {1});
  auto* out = call.out(ScalarType::Float, {1});
  EXPECT_ERROR(call.run({x, call.boolean(false), call.none(), out}), InvalidArgument, "argument 0 (self)",
               "uint16");
}

TEST(PortablePermuteCopy, TransposeAndThreeD) {
  KernelCall call("aten::permute_copy.out");
  auto* x = call.tensor<float>(ScalarType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto* out = call.out(ScalarType::Float, {3, 2});
  ASSERT_TRUE(call.run({x, call.int_list({1, 0}), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(1, 4, 2, 5, 3, 6));

  // [2, 1, 3] with dims (2, 0, -2) -> [3, 2, 1]: out[k][i][0] = x[i][0][k].
  auto* y = call.tensor<int8_t>(ScalarType::Char, {2, 1, 3}, {1, 2, 3, 4, 5, 6});
  auto* yout = call.out(ScalarType::Char, {3, 2, 1});
  ASSERT_TRUE(call.run({y, call.int_list({2, 0, -2}), yout}).is_ok());
  EXPECT_THAT(data_of<int8_t>(yout), ElementsAre(1, 4, 2, 5, 3, 6));
}

TEST(PortablePermuteCopy, Errors) {
  KernelCall call("aten::permute_copy.out");
  auto* x = call.tensor<float>(ScalarType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto* out = call.out(ScalarType::Float, {3, 2});
  EXPECT_ERROR(call.run({x, call.int_list({0, 0}), out}), InvalidArgument, "argument 1 (dims)", "permutation");
  EXPECT_ERROR(call.run({x, call.int_list({0}), out}), InvalidArgument, "argument 1 (dims)", "rank 2");
  EXPECT_ERROR(call.run({x, call.int_list({0, 1}), out}), InvalidArgument, "argument 2 (out)", "[2, 3]");
  EXPECT_ERROR(call.run({x, call.int_list({1, 0})}), InvalidArgument, "expected 4");
}

TEST(PortableExpandCopy, NewLeadingDimAndSizeOneDim) {
  KernelCall call("aten::expand_copy.out");
  auto* x = call.tensor<int32_t>(ScalarType::Int, {2, 1}, {7, 8});
  auto* out = call.out(ScalarType::Int, {2, 2, 3});
  ASSERT_TRUE(call.run({x, call.int_list({2, -1, 3}), call.boolean(false), out}).is_ok());
  EXPECT_THAT(data_of<int32_t>(out), ElementsAre(7, 7, 7, 8, 8, 8, 7, 7, 7, 8, 8, 8));
  EXPECT_ERROR(call.run({x, call.int_list({3, 3}), call.boolean(false), out}), InvalidArgument,
               "argument 1 (size)", "cannot expand dim 0");
  EXPECT_ERROR(call.run({x, call.int_list({-1, 2, 1}), call.boolean(false), out}), InvalidArgument,
               "argument 1 (size)", "leading");
  EXPECT_ERROR(call.run({x, call.int_list({1}), call.boolean(false), out}), InvalidArgument,
               "argument 1 (size)", "fewer");
}

TEST(PortableViewCopy, ReshapeInfersMinusOne) {
  KernelCall call("aten::view_copy.out");
  auto* x = call.tensor<float>(ScalarType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto* out = call.out(ScalarType::Float, {3, 2});
  ASSERT_TRUE(call.run({x, call.int_list({-1, 2}), out}).is_ok());
  EXPECT_THAT(sizes_of(out), ElementsAre(3, 2));
  EXPECT_THAT(data_of<float>(out), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_ERROR(call.run({x, call.int_list({4, 2}), out}), InvalidArgument, "argument 1 (size)", "6 elements");
  EXPECT_ERROR(call.run({x, call.int_list({-1, -1}), out}), InvalidArgument, "argument 1 (size)");
  EXPECT_ERROR(call.run({x, call.int_list({-1, 4}), out}), InvalidArgument, "argument 1 (size)", "infer");
}

TEST(PortableViewCopy, ChannelsLastInputKeepsLogicalOrder) {
  KernelCall call("aten::view_copy.out");
  // Logical [1, 2, 1, 2] = [[a, b], [c, d]] over (C, W), stored NHWC as a, c, b, d.
  auto* x = call.tensor<float>(ScalarType::Float, {1, 2, 1, 2}, {1, 3, 2, 4}, {0, 2, 3, 1});
  auto* out = call.out(ScalarType::Float, {4});
  ASSERT_TRUE(call.run({x, call.int_list({4}), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(1, 2, 3, 4));
}

TEST(PortableViewCopy, AliasedOutputIsLeftInPlace) {
  // Planners give a view's output its input's address (pte-format.md §9.2).
  KernelCall call("aten::view_copy.out");
  auto* x = call.tensor<float>(ScalarType::Float, {2, 2}, {1, 2, 3, 4});
  auto* out = call.out(ScalarType::Float, {4});
  out->to_tensor().set_data(x->to_tensor().data());
  ASSERT_TRUE(call.run({x, call.int_list({4}), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(1, 2, 3, 4));
}

TEST(PortableSqueezeUnsqueeze, ShapesAndErrors) {
  KernelCall unsqueeze("aten::unsqueeze_copy.out");
  auto* x = unsqueeze.tensor<float>(ScalarType::Float, {2}, {1, 2});
  auto* out = unsqueeze.out(ScalarType::Float, {2, 1});
  ASSERT_TRUE(unsqueeze.run({x, unsqueeze.integer(-1), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(1, 2));
  EXPECT_ERROR(unsqueeze.run({x, unsqueeze.integer(0), out}), InvalidArgument, "expected shape [1, 2]");
  EXPECT_ERROR(unsqueeze.run({x, unsqueeze.integer(3), out}), InvalidArgument, "argument 1 (dim)");

  KernelCall squeeze("aten::squeeze_copy.dims_out");
  auto* y = squeeze.tensor<float>(ScalarType::Float, {1, 2, 1}, {5, 6});
  auto* yout = squeeze.out(ScalarType::Float, {1, 2});
  ASSERT_TRUE(squeeze.run({y, squeeze.int_list({2}), yout}).is_ok());
  EXPECT_THAT(data_of<float>(yout), ElementsAre(5, 6));

  KernelCall squeeze_all("aten::squeeze_copy.out");
  auto* z = squeeze_all.tensor<float>(ScalarType::Float, {1, 2, 1}, {5, 6});
  auto* zout = squeeze_all.out(ScalarType::Float, {2});
  ASSERT_TRUE(squeeze_all.run({z, zout}).is_ok());
  EXPECT_THAT(data_of<float>(zout), ElementsAre(5, 6));

  KernelCall squeeze_dim("aten::squeeze_copy.dim_out");
  auto* w = squeeze_dim.tensor<float>(ScalarType::Float, {1, 2, 1}, {5, 6});
  auto* wout = squeeze_dim.out(ScalarType::Float, {2, 1});
  ASSERT_TRUE(squeeze_dim.run({w, squeeze_dim.integer(0), wout}).is_ok());
  EXPECT_THAT(data_of<float>(wout), ElementsAre(5, 6));
}

TEST(PortableSliceCopy, StepNegativeStartAndNoneEnd) {
  KernelCall call("aten::slice_copy.Tensor_out");
  auto* x = call.tensor<int32_t>(ScalarType::Int, {2, 5}, {0, 1, 2, 3, 4, 10, 11, 12, 13, 14});
  auto* out = call.out(ScalarType::Int, {2, 2});
  // x[:, -4::2] = columns 1, 3
  ASSERT_TRUE(call.run({x, call.integer(1), call.integer(-4), call.none(), call.integer(2), out}).is_ok());
  EXPECT_THAT(data_of<int32_t>(out), ElementsAre(1, 3, 11, 13));
  // end beyond the size is clamped: x[1:100] along dim 0
  auto* rows = call.out(ScalarType::Int, {1, 5});
  ASSERT_TRUE(call.run({x, call.integer(0), call.integer(1), call.integer(100), call.integer(1), rows}).is_ok());
  EXPECT_THAT(data_of<int32_t>(rows), ElementsAre(10, 11, 12, 13, 14));
  EXPECT_ERROR(call.run({x, call.integer(1), call.none(), call.none(), call.integer(0), out}), InvalidArgument,
               "argument 4 (step)");
  EXPECT_ERROR(call.run({x, call.integer(2), call.none(), call.none(), call.integer(1), out}), InvalidArgument,
               "argument 1 (dim)");
}

TEST(PortableSelectCopy, PicksOneIndex) {
  KernelCall call("aten::select_copy.int_out");
  auto* x = call.tensor<float>(ScalarType::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto* out = call.out(ScalarType::Float, {2});
  ASSERT_TRUE(call.run({x, call.integer(1), call.integer(-1), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(3, 6));
  EXPECT_ERROR(call.run({x, call.integer(1), call.integer(3), out}), InvalidArgument, "argument 2 (index)");
}

TEST(PortableCat, AlongDimsWithLegacyEmptyInput) {
  KernelCall call("aten::cat.out");
  auto* a = call.tensor<float>(ScalarType::Float, {1, 2}, {1, 2});
  auto* b = call.tensor<float>(ScalarType::Float, {2, 2}, {3, 4, 5, 6});
  auto* empty = call.tensor<float>(ScalarType::Float, {0}, {});
  auto* out = call.out(ScalarType::Float, {3, 2});
  ASSERT_TRUE(call.run({call.tensor_list({a, empty, b}), call.integer(0), out}).is_ok());
  EXPECT_THAT(data_of<float>(out), ElementsAre(1, 2, 3, 4, 5, 6));

  auto* c = call.tensor<float>(ScalarType::Float, {2, 1}, {7, 8});
  auto* wide = call.out(ScalarType::Float, {2, 3});
  ASSERT_TRUE(call.run({call.tensor_list({b, c}), call.integer(-1), wide}).is_ok());
  EXPECT_THAT(data_of<float>(wide), ElementsAre(3, 4, 7, 5, 6, 8));
}

TEST(PortableCat, Errors) {
  KernelCall call("aten::cat.out");
  auto* a = call.tensor<float>(ScalarType::Float, {1, 2}, {1, 2});
  auto* b = call.tensor<float>(ScalarType::Float, {1, 3}, {3, 4, 5});
  auto* out = call.out(ScalarType::Float, {2, 2});
  EXPECT_ERROR(call.run({call.tensor_list({a, b}), call.integer(0), out}), InvalidArgument,
               "argument 0 (tensors)", "item 1");
  EXPECT_ERROR(call.run({a, call.integer(0), out}), InvalidArgument, "argument 0 (tensors)", "TensorList");
  auto* f = call.tensor<float>(ScalarType::Float, {1, 2}, {1, 2});
  auto* iout = call.out(ScalarType::Int, {2, 2});
  EXPECT_ERROR(call.run({call.tensor_list({a, f}), call.integer(0), iout}), InvalidArgument,
               "argument 0 (tensors)", "cannot be written");
}

}  // namespace
}  // namespace vkrt::portable::testing
