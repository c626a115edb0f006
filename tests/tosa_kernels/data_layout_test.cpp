// CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE, GATHER (tosa.md §10).
#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

TEST(TosaConcat, AlongInnerAndOuterAxes) {
  auto a = i8({2, 2}, {1, 2, 3, 4});
  auto b = i8({2, 1}, {5, 6});
  auto out = i8({2, 3});
  std::vector<TensorRef> ins = {a.ref(), b.ref()};
  EXPECT_TOSA_OK(concat(ins, AxisAttr{1}, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{1, 2, 5, 3, 4, 6}));
  auto c = f32({1, 2}, {7, 8});
  auto d = f32({2, 2}, {1, 2, 3, 4});
  auto outf = f32({3, 2});
  std::vector<TensorRef> fins = {d.ref(), c.ref()};
  EXPECT_TOSA_OK(concat(fins, AxisAttr{0}, outf));
  EXPECT_EQ(outf.data, (std::vector<float>{1, 2, 3, 4, 7, 8}));
  EXPECT_TOSA_ERROR(check_concat(ins, AxisAttr{0}, out), InvalidArgument, "outside axis 0");
  EXPECT_TOSA_ERROR(check_concat(ins, AxisAttr{2}, out), InvalidArgument, "axis 2");
  std::vector<TensorRef> mixed = {a.ref(), c.ref()};
  EXPECT_TOSA_ERROR(check_concat(mixed, AxisAttr{1}, out), InvalidArgument, "input 1 is fp32");
}

TEST(TosaPad, ConstantAndPerAxisPadding) {
  // [2,2] padded (1 before, 0 after) on dim 0 and (0, 2) on dim 1 with value -128 (an int8 zero point).
  auto in = i8({2, 2}, {1, 2, 3, 4});
  auto out = i8({3, 4});
  PadAttr a;
  a.padding = {1, 0, 0, 2};
  a.pad_const_int = -128;
  EXPECT_TOSA_OK(pad(in, a, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{-128, -128, -128, -128, 1, 2, -128, -128, 3, 4, -128, -128}));
  auto fin = f32({1, 1, 1, 1}, {5});
  auto fout = f32({1, 3, 1, 1});
  PadAttr b;
  b.padding = {0, 0, 1, 1, 0, 0, 0, 0};
  b.pad_const_fp = 0.5f;
  EXPECT_TOSA_OK(pad(fin, b, fout));
  EXPECT_EQ(fout.data, (std::vector<float>{0.5f, 5, 0.5f}));
  a.padding[0] = -1;
  EXPECT_TOSA_ERROR(check_pad(in, a, out), InvalidArgument, "padding of dim 0");
  a.padding[0] = 1;
  a.pad_const_int = 300;
  EXPECT_TOSA_ERROR(check_pad(in, a, out), InvalidArgument, "pad_const 300");
  a.pad_const_int = 0;
  auto wrong = i8({3, 3});
  EXPECT_TOSA_ERROR(check_pad(in, a, wrong), InvalidArgument, "expected shape [3,4]");
}

TEST(TosaReshapeReverse, Basics) {
  auto in = i16({2, 3}, {1, 2, 3, 4, 5, 6});
  auto out = i16({3, 1, 2});
  EXPECT_TOSA_OK(reshape(in, out));
  EXPECT_EQ(out.data, in.data);
  auto bad = i16({4});
  EXPECT_TOSA_ERROR(check_reshape(in, bad), InvalidArgument, "has 6 elements");
  auto rev = i16({2, 3});
  EXPECT_TOSA_OK(reverse(in, AxisAttr{1}, rev));
  EXPECT_EQ(rev.data, (std::vector<int16_t>{3, 2, 1, 6, 5, 4}));
  EXPECT_TOSA_OK(reverse(in, AxisAttr{0}, rev));
  EXPECT_EQ(rev.data, (std::vector<int16_t>{4, 5, 6, 1, 2, 3}));
  EXPECT_TOSA_ERROR(check_reverse(in, AxisAttr{2}, rev), InvalidArgument, "axis 2");
}

TEST(TosaSliceTile, Basics) {
  // [3,4] = 0..11; slice start (1, 1) size (2, 2) -> [5 6; 9 10].
  std::vector<int32_t> v(12);
  for (int i = 0; i < 12; ++i) v[size_t(i)] = i;
  auto in = i32({3, 4}, v);
  auto out = i32({2, 2});
  SliceAttr s;
  s.start = {1, 1};
  EXPECT_TOSA_OK(slice(in, s, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{5, 6, 9, 10}));
  s.start[1] = 3;  // 3 + 2 > 4
  EXPECT_TOSA_ERROR(check_slice(in, s, out), InvalidArgument, "dim 1");
  // TILE [1,2] x (2, 3) -> [2,6].
  auto t_in = i8({1, 2}, {1, 2});
  auto t_out = i8({2, 6});
  TileAttr t;
  t.multiples = {2, 3};
  EXPECT_TOSA_OK(tile(t_in, t, t_out));
  EXPECT_EQ(t_out.data, (std::vector<int8_t>{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2}));
  t.multiples[1] = 0;
  EXPECT_TOSA_ERROR(check_tile(t_in, t, t_out), InvalidArgument, "multiples[1]");
}

TEST(TosaTranspose, NchwToNhwcAndErrors) {
  // [1,2,2,3] (N,H,W,C) = 0..11 -> perms (0,3,1,2) -> [1,3,2,2]: channel planes.
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[size_t(i)] = float(i);
  auto in = f32({1, 2, 2, 3}, v);
  auto out = f32({1, 3, 2, 2});
  TransposeAttr a;
  a.perms = {0, 3, 1, 2};
  EXPECT_TOSA_OK(transpose(in, a, out));
  EXPECT_EQ(out.data, (std::vector<float>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  // 2-D transpose of [2,3].
  auto m = i8({2, 3}, {1, 2, 3, 4, 5, 6});
  auto mt = i8({3, 2});
  TransposeAttr b;
  b.perms = {1, 0};
  EXPECT_TOSA_OK(transpose(m, b, mt));
  EXPECT_EQ(mt.data, (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));
  a.perms[3] = 1;  // duplicate
  EXPECT_TOSA_ERROR(check_transpose(in, a, out), InvalidArgument, "not a permutation");
  auto wrong = f32({1, 2, 2, 3});
  a.perms[3] = 2;
  EXPECT_TOSA_ERROR(check_transpose(in, a, wrong), InvalidArgument, "expected shape [1,3,2,2]");
}

TEST(TosaGather, RowsByIndexAndOutOfRange) {
  // values [1,3,2] rows (1,2) (3,4) (5,6); indices [1,4] = 2 0 2 1.
  auto values = i8({1, 3, 2}, {1, 2, 3, 4, 5, 6});
  auto idx = i32({1, 4}, {2, 0, 2, 1});
  auto out = i8({1, 4, 2});
  EXPECT_TOSA_OK(gather(values, idx, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{5, 6, 1, 2, 5, 6, 3, 4}));
  idx.data[1] = 3;
  EXPECT_TOSA_ERROR(gather(values, idx, out), InvalidArgument, "index 3");
  idx.data[1] = -1;
  EXPECT_TOSA_ERROR(gather(values, idx, out), InvalidArgument, "index -1");
  auto idx8 = i8({1, 4});
  EXPECT_TOSA_ERROR(check_gather(values, idx8, out), InvalidArgument, "indices: expected int32");
}

TEST(TosaScatter, ReplacesRowsAndRejectsBadIndices) {
  // values_in rows (1,2) (3,4) (5,6); indices [2, 0]; input rows (10,11) (20,21):
  // row 2 <- (10,11), row 0 <- (20,21), row 1 kept.
  auto values = i16({1, 3, 2}, {1, 2, 3, 4, 5, 6});
  auto idx = i32({1, 2}, {2, 0});
  auto input = i16({1, 2, 2}, {10, 11, 20, 21});
  auto out = i16({1, 3, 2});
  EXPECT_TOSA_OK(scatter(values, idx, input, out));
  EXPECT_EQ(out.data, (std::vector<int16_t>{20, 21, 3, 4, 10, 11}));
  idx.data[0] = 3;
  EXPECT_TOSA_ERROR(scatter(values, idx, input, out), InvalidArgument, "index 3");
  auto bad_input = i16({1, 3, 2});
  idx.data[0] = 2;
  EXPECT_TOSA_ERROR(check_scatter(values, idx, bad_input, out), InvalidArgument, "input: expected shape [1,2,2]");
}

}  // namespace
}  // namespace vkrt::tosa::test
