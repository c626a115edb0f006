// TABLE (tosa.md §8): int8 lookup and int16 interpolation.
#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

TEST(TosaTable, Int8LooksUpInPlusOffset128) {
  // table[i] = 127 - i (as int8): in -128 -> table[0] = 127; 0 -> table[128] = -1; 127 -> table[255] = -128.
  std::vector<int8_t> t(256);
  for (int i = 0; i < 256; ++i) t[size_t(i)] = int8_t(127 - i);
  auto table_t = i8({256}, t);
  auto in = i8({3}, {-128, 0, 127});
  auto out = i8({3});
  EXPECT_TOSA_OK(table(in, table_t, out));
  EXPECT_EQ(out.data, (std::vector<int8_t>{127, -1, -128}));
}

TEST(TosaTable, Int16InterpolatesIn16Dot7) {
  // table[i] = 4 * i - 1024 (a line), so the output is exactly 128 * line(in / 128):
  //   index = (in >> 7) + 256, frac = in & 127, out = (base << 7) + (next - base) * frac.
  //   in = 0:      index 256, base 0,    frac 0   -> 0
  //   in = 1:      base 0, next 4, frac 1         -> 4
  //   in = 200:    index 257, base 4, next 8, frac 72 -> 512 + 288 = 800 (= 4 * 200)
  //   in = -1:     index 255 (arith shift), base -4, next 0, frac 127 -> -512 + 508 = -4
  //   in = -32768: index 0, base -1024, next -1020, frac 0 -> -131072
  //   in = 32767:  index 511, base 1020, next 1024, frac 127 -> 130560 + 508 = 131068
  std::vector<int16_t> t(513);
  for (int i = 0; i < 513; ++i) t[size_t(i)] = int16_t(4 * i - 1024);
  auto table_t = i16({513}, t);
  auto in = i16({6}, {0, 1, 200, -1, -32768, 32767});
  auto out = i32({6});
  EXPECT_TOSA_OK(table(in, table_t, out));
  EXPECT_EQ(out.data, (std::vector<int32_t>{0, 4, 800, -4, -131072, 131068}));
  // A non-linear table: table[256] = 100, table[257] = -100 -> in = 64 (frac 64): 12800 - 200*64 = 0.
  t[256] = 100;
  t[257] = -100;
  auto table2 = i16({513}, t);
  auto in2 = i16({2}, {64, 127});
  auto out2 = i32({2});
  EXPECT_TOSA_OK(table(in2, table2, out2));
  EXPECT_EQ(out2.data, (std::vector<int32_t>{0, 12800 - 200 * 127}));
}

TEST(TosaTable, Errors) {
  auto in = i8({2});
  auto short_table = i8({255});
  auto out = i8({2});
  EXPECT_TOSA_ERROR(check_table(in, short_table, out), InvalidArgument, "expected 256");
  auto in16 = i16({2});
  auto t16 = i16({512});
  auto out32 = i32({2});
  EXPECT_TOSA_ERROR(check_table(in16, t16, out32), InvalidArgument, "expected 513");
  auto t513 = i16({513});
  EXPECT_TOSA_ERROR(check_table(in16, t513, out), InvalidArgument, "output: expected int32");
  auto in32 = i32({2});
  EXPECT_TOSA_ERROR(check_table(in32, t513, out32), NotSupported, "int32");
}

}  // namespace
}  // namespace vkrt::tosa::test
