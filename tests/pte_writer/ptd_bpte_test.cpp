// .ptd (FlatTensor) and .bpte (BundledProgram) writers: header fields by hand (pte-format §7.5,
// §8), verifier, and decoding gives back what was written.
#include <gtest/gtest.h>

#include "pte_bytes.h"
#include "vkrt/pte_writer.h"

namespace vkrt::testing {
namespace {

TEST(PtdWriter, HeaderSegmentsAndLayouts) {
  FlatTensorBuilder builder;
  std::vector<float> w(9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(i) - 4.0f;
  std::vector<int8_t> q{1, -2, 3};
  std::vector<uint8_t> blob{9, 8, 7, 6, 5};
  builder.add_tensor<float>("linear.weight", {3, 3}, w);
  builder.add_tensor("q", ScalarType::Char, {1, 3}, to_bytes(q), {1, 0});
  builder.add_blob("backend_blob", blob);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, builder.build());

  EXPECT_EQ(str_at(file, 4, 4), "FT01");
  EXPECT_EQ(str_at(file, 8, 4), "FH01");
  EXPECT_EQ(u32_at(file, 12), 40u);
  const uint64_t fb_offset = u64_at(file, 16), fb_size = u64_at(file, 24);
  const uint64_t base = u64_at(file, 32), data_size = u64_at(file, 40);
  EXPECT_EQ(fb_offset, 48u);
  EXPECT_GT(u32_at(file, 0), 48u) << "root table after the header";
  EXPECT_EQ(base, round_up(fb_offset + fb_size, 16));
  // 36 B @0, 3 B @48, 5 B @64, padded to 80.
  EXPECT_EQ(data_size, 80u);
  EXPECT_EQ(file.size(), base + data_size);

  const ft::FlatTensor* t = verified_flat_tensor(std::span<const uint8_t>(file.data(), fb_offset + fb_size));
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->segments()->size(), 3u);
  const uint64_t offsets[] = {0, 48, 64}, sizes[] = {36, 3, 5};
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(t->segments()->Get(i)->offset(), offsets[i]);
    EXPECT_EQ(t->segments()->Get(i)->size(), sizes[i]);
  }
  ASSERT_EQ(t->named_data()->size(), 3u);
  const auto* weight = t->named_data()->Get(0);
  EXPECT_EQ(weight->key()->str(), "linear.weight");
  EXPECT_EQ(weight->segment_index(), 0u);
  EXPECT_EQ(weight->tensor_layout()->scalar_type(), 6);
  EXPECT_EQ(to_vector(weight->tensor_layout()->sizes()), (std::vector<int32_t>{3, 3}));
  EXPECT_EQ(to_vector(weight->tensor_layout()->dim_order()), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(std::memcmp(file.data() + base, w.data(), 36), 0);
  const auto* qd = t->named_data()->Get(1);
  EXPECT_EQ(qd->tensor_layout()->scalar_type(), 1);
  EXPECT_EQ(to_vector(qd->tensor_layout()->dim_order()), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(std::memcmp(file.data() + base + 48, q.data(), 3), 0);
  const auto* raw = t->named_data()->Get(2);
  EXPECT_EQ(raw->key()->str(), "backend_blob");
  EXPECT_EQ(raw->tensor_layout(), nullptr);
  EXPECT_EQ(std::vector<uint8_t>(file.begin() + base + 64, file.begin() + base + 69), blob);
}

TEST(PtdWriter, Errors) {
  {
    FlatTensorBuilder b;
    b.add_tensor<float>("a", {2}, {1.f});
    auto r = b.build();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error(), Error::InvalidArgument);
    EXPECT_NE(r.status().message().find("tensor 'a': 4 bytes of data for a layout of 8 bytes"), std::string::npos)
        << r.status().to_string();
  }
  {
    FlatTensorBuilder b;
    b.add_blob("k", std::vector<uint8_t>{1});
    b.add_blob("k", std::vector<uint8_t>{2});
    auto r = b.build();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("duplicate key 'k'"), std::string::npos);
  }
}

TEST(BpteWriter, EmbedsTheProgramAndTestCases) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t x = m.add_planned_tensor(ScalarType::Int, {2, 2});
  int32_t out = m.add_planned_tensor(ScalarType::Int, {2, 2});
  m.add_kernel_call("aten::add.out", {x, x, m.add_int(1), out, out});
  m.set_inputs({x}).set_outputs({out});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> pte, program.build());

  BundledProgramBuilder bundle(pte);
  bundle.add_test_case("forward", {{BundledValueSpec::tensor_of<int32_t>({2, 2}, {1, 2, 3, 4})},
                                   {BundledValueSpec::tensor_of<int32_t>({2, 2}, {2, 4, 6, 8})}});
  bundle.add_test_case("other", {{BundledValueSpec::integer(3), BundledValueSpec::boolean(true)},
                                 {BundledValueSpec::real(0.5)}});
  bundle.add_test_case("forward", {{BundledValueSpec::tensor_of<int32_t>({2, 2}, {0, 0, 0, 0})},
                                   {BundledValueSpec::tensor_of<int32_t>({2, 2}, {0, 0, 0, 0})}});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, bundle.build());

  EXPECT_EQ(str_at(file, 4, 4), "BP08");
  const bp::BundledProgram* b = verified_bundled(file);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->version(), 2u);
  EXPECT_EQ(to_vector(b->program()), pte);
  EXPECT_EQ((b->program()->data() - file.data()) % 32, 0) << "force_align 32";
  ASSERT_EQ(b->method_test_suites()->size(), 2u);
  const auto* fwd = b->method_test_suites()->Get(0);
  EXPECT_EQ(fwd->method_name()->str(), "forward");
  ASSERT_EQ(fwd->test_cases()->size(), 2u);
  const auto* in = fwd->test_cases()->Get(0)->inputs()->Get(0)->val_as_Tensor();
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->scalar_type(), 3);
  EXPECT_EQ(to_vector(in->sizes()), (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(to_vector(in->dim_order()), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(to_vector(in->data()), to_bytes(std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_EQ((in->data()->data() - file.data()) % 16, 0) << "force_align 16";
  const auto* expected = fwd->test_cases()->Get(0)->expected_outputs()->Get(0)->val_as_Tensor();
  EXPECT_EQ(to_vector(expected->data()), to_bytes(std::vector<int32_t>{2, 4, 6, 8}));
  const auto* other = b->method_test_suites()->Get(1);
  EXPECT_EQ(other->method_name()->str(), "other");
  EXPECT_EQ(other->test_cases()->Get(0)->inputs()->Get(0)->val_as_Int()->int_val(), 3);
  EXPECT_TRUE(other->test_cases()->Get(0)->inputs()->Get(1)->val_as_Bool()->bool_val());
  EXPECT_EQ(other->test_cases()->Get(0)->expected_outputs()->Get(0)->val_as_Double()->double_val(), 0.5);

  // The embedded program is itself a valid program.
  ASSERT_NE(verified_program(to_vector(b->program())), nullptr);
}

TEST(BpteWriter, Errors) {
  BundledProgramBuilder not_a_program(std::vector<uint8_t>{1, 2, 3});
  EXPECT_EQ(not_a_program.build().error(), Error::InvalidArgument);

  ProgramBuilder program;
  program.add_method("forward");
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> pte, program.build());
  BundledProgramBuilder bundle(pte);
  bundle.add_test_case("forward", {{BundledValueSpec::tensor(ScalarType::Float, {3}, std::vector<uint8_t>(4))}, {}});
  auto r = bundle.build();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("method 'forward' test case 0 input 0: 4 bytes of data for a tensor of 12 bytes"),
            std::string::npos)
      << r.status().to_string();
}

}  // namespace
}  // namespace vkrt::testing
