// The CMSIS-NN header reader on hand-written text, including malformed input.
#include <gtest/gtest.h>

#include "cortex_m/cmsis_vectors.h"

namespace vkrt::testing::cmsis {
namespace {

TEST(CmsisVectors, ReadsDefinesArraysAndAliases) {
  const std::map<std::string, std::string> files = {
      {"test_data.h", "// generated\n#include \"config_data.h\"\n#include \"a.h\"\n"},
      {"config_data.h", "#pragma once\n#define X_SIZE 3\n#define X_PAD SAME\n#define X_NEG -5\n"
                        "#define X_LIST \\\n  {   \\\n  1, 2, 3,  \\\n  }\n"},
      {"a.h", "#include <stdint.h>\nconst int8_t x_in[3] = {1, -2,\n  3};\n"
              "const int64_t x_big[2] = {-9223372036854775807LL, 5};\n"
              "const int32_t *const x_bias = NULL;\nconst int8_t *const x_ref = x_in; /* alias */\n"},
      {"stale.h", "this is not C"},
  };
  VectorData d;
  ASSERT_EQ(d.load_from(files, "test_data.h"), "");
  EXPECT_EQ(d.define_int("X_SIZE"), 3);
  EXPECT_EQ(d.define_int("X_NEG"), -5);
  EXPECT_EQ(d.define_int("X_PAD"), std::nullopt);
  EXPECT_EQ(d.define_text("X_PAD"), "SAME");
  EXPECT_EQ(d.define_list("X_LIST"), (std::vector<int64_t>{1, 2, 3}));
  ASSERT_NE(d.array("x_in"), nullptr);
  EXPECT_EQ(d.array("x_in")->values, (std::vector<int64_t>{1, -2, 3}));
  EXPECT_EQ(d.array("x_in")->type, "int8_t");
  EXPECT_EQ(d.array("x_ref"), d.array("x_in"));
  EXPECT_EQ(d.array("x_bias"), nullptr);
  EXPECT_TRUE(d.has_symbol("x_bias"));
  EXPECT_EQ(d.array("x_big")->values[0], -9223372036854775807LL);
}

TEST(CmsisVectors, RejectsMalformedInput) {
  auto load = [](const std::string& header) {
    VectorData d;
    return d.load_from({{"test_data.h", "#include \"h.h\"\n"}, {"h.h", header}}, "test_data.h");
  };
  EXPECT_NE(load("const int8_t a[2] = {1, 2"), "");             // no ';'
  EXPECT_NE(load("const int8_t a[2] = {1, x};"), "");           // not an integer
  EXPECT_NE(load("const int8_t a[2] = {99999999999999999999};"), "");  // overflow
  EXPECT_NE(load("const int8_t a[2] = 5;"), "");                // not braced
  EXPECT_NE(load("const int8_t a[2];"), "");                    // no initializer
  EXPECT_EQ(load("#define\n"), "h.h: #define without a name");
  VectorData d;
  EXPECT_NE(d.load_from({{"test_data.h", "#include \"../etc/passwd\"\n"}}, "test_data.h"), "");
  EXPECT_NE(d.load_from({{"test_data.h", "#include \"missing.h\"\n"}}, "test_data.h"), "");
  EXPECT_NE(d.load_from({{"test_data.h", "nothing here"}}, "test_data.h"), "");
}

TEST(CmsisVectors, ParsesIndex) {
  std::vector<IndexEntry> index;
  ASSERT_EQ(parse_index("data_dir\tused_by\theaders\nconv_a\ttest_x;test_y\ta.h b.h\nb\t(unreferenced)\tc.h\n", &index), "");
  ASSERT_EQ(index.size(), 2u);
  EXPECT_EQ(index[0].dir, "conv_a");
  EXPECT_EQ(index[0].unit_tests, (std::vector<std::string>{"test_x", "test_y"}));
  std::vector<IndexEntry> bad;
  EXPECT_NE(parse_index("h\n../x\ttest\n", &bad), "");
  EXPECT_NE(parse_index("h\nno tab here\n", &bad), "");
}

}  // namespace
}  // namespace vkrt::testing::cmsis
