// Every byte of a program file is untrusted: truncated and mutated copies of the real
// conformance programs must load cleanly or fail with an error — never crash (this suite also
// runs under ASan/UBSan in CI).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "common/conformance.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt {
namespace {

std::vector<std::string> program_files() {
  std::vector<std::string> files;
  std::string dir = testing::conformance_path("pte");
  if (dir.empty()) return files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    auto ext = e.path().extension();
    if (ext == ".pte") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Loads, loads every method and runs it with whatever inputs are planned (zeros), ignoring
// errors: the point is that nothing crashes.
void exercise(std::span<const uint8_t> bytes) {
  LoadOptions opts;
  opts.memory_budget_bytes = 16 << 20;  // mutated sizes must not exhaust the machine
  opts.temp_pool_bytes = 1 << 16;
  auto module = Module::load_from_buffer(bytes, opts);
  if (!module.ok()) {
    EXPECT_NE(module.error(), Error::Ok);
    EXPECT_FALSE(module.status().message().empty());
    return;
  }
  for (const auto& name : (*module)->method_names()) {
    auto meta = (*module)->method_meta(name);
    auto method = (*module)->load_method(name);
    if (!method.ok()) continue;
    Method& m = **method;
    for (size_t i = 0; i < m.num_inputs(); ++i) {
      EValue& in = m.input(i);
      if (in.is_tensor() && in.to_tensor().data()) (void)m.set_input(i, in);  // planned: mark set
    }
    (void)m.execute();
  }
}

TEST(LoaderRobustness, EveryTruncation) {
  auto files = program_files();
  if (files.empty()) GTEST_SKIP() << "conformance programs not found (set VKRT_CONFORMANCE_DIR)";
  for (const auto& f : files) {
    auto bytes = testing::read_file(f);
    for (size_t len = 0; len < bytes.size(); len += (len < 256 ? 1 : 7)) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + long(len));
      exercise(cut);
    }
  }
}

TEST(LoaderRobustness, RandomByteMutations) {
  auto files = program_files();
  if (files.empty()) GTEST_SKIP() << "conformance programs not found (set VKRT_CONFORMANCE_DIR)";
  std::mt19937 rng(1234);
  for (const auto& f : files) {
    auto bytes = testing::read_file(f);
    if (bytes.size() < 16) continue;
    for (int trial = 0; trial < 300; ++trial) {
      auto copy = bytes;
      int flips = 1 + int(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        size_t pos = rng() % copy.size();
        switch (rng() % 3) {
          case 0: copy[pos] ^= uint8_t(1u << (rng() % 8)); break;
          case 1: copy[pos] = uint8_t(rng()); break;
          default: copy[pos] = (rng() & 1) ? 0xff : 0x00; break;
        }
      }
      exercise(copy);
    }
  }
}

// Regression (found by program_fuzzer): one changed byte moves a vector of int64 items off its
// 8-byte alignment, which the FlatBuffers verifier does not check; reading it must not be a
// misaligned load (UBSan).
TEST(LoaderRobustness, MisalignedInt64VectorFromFuzzer) {
  VKRT_REQUIRE_CONFORMANCE(path, "pte/corey-cole_djl-executorch-engine__src_test_resources_models_named_priced.pte");
  auto bytes = testing::read_file(path);
  ASSERT_EQ(bytes.size(), 1272u);
  ASSERT_EQ(bytes[128], 36);
  bytes[128] = 216;
  exercise(bytes);
}

// Regression (program_fuzzer): two changed bytes give a constant an odd offset; the loader must
// refuse the misaligned tensor instead of handing kernels a misaligned float pointer.
TEST(LoaderRobustness, MisalignedConstantFromFuzzer) {
  VKRT_REQUIRE_CONFORMANCE(path, "pte/executorch_hist_fbba1cbc54__extension_runner_module_test_resources_model.pte");
  auto bytes = testing::read_file(path);
  ASSERT_EQ(bytes.size(), 1600u);
  ASSERT_EQ(bytes[828], 48);
  ASSERT_EQ(bytes[958], 0);
  bytes[828] = 49;
  bytes[958] = 128;
  exercise(bytes);
}

// Regression (program_fuzzer, 30-minute run): a damaged file can make a program constant a method
// input. set_input must refuse it instead of writing into the program's (read-only, mapped)
// bytes, or through the null pointer an empty constant has.
TEST(LoaderRobustness, ConstantInputIsNotWritten) {
  PteWriteOptions unchecked;
  unchecked.validate = false;  // the writer refuses such a program; a damaged file does not ask
  ProgramBuilder program(unchecked);
  MethodBuilder& m = program.add_method("forward");
  const int32_t c = m.add_constant_tensor<float>({4}, {1, 2, 3, 4});
  const int32_t out = m.add_planned_tensor(ScalarType::Float, {4});
  m.add_kernel_call("aten::add.out", {c, c, m.add_double(1.0), out, out});
  m.set_inputs({c});
  m.set_outputs({out});
  auto bytes = program.build();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  const std::vector<uint8_t> original = *bytes;
  auto module = Module::load_from_buffer(*bytes);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_TRUE((*method)->meta().inputs[0].memory_planned);  // as upstream counts a constant
  float x[4] = {9, 9, 9, 9};
  const int32_t sizes[] = {4};
  Tensor t = *Tensor::make(ScalarType::Float, sizes, x);
  Status s = (*method)->set_input(0, EValue::from_tensor(&t));
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), Error::InvalidArgument);
  EXPECT_NE(s.message().find("is a constant; it cannot be set"), std::string::npos) << s.message();
  EXPECT_EQ(*bytes, original) << "set_input wrote into the program";
}

TEST(LoaderRobustness, UnalignedBufferIsCopiedNotRejected) {
  VKRT_REQUIRE_CONFORMANCE(path, "pte/executorch__examples_arduino_examples_AddModel_model.pte");
  auto bytes = testing::read_file(path);
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
  auto module = Module::load_from_buffer(std::span<const uint8_t>(shifted).subspan(1));
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  EXPECT_TRUE((*module)->load_method("forward").ok());
}

TEST(LoaderRobustness, HeaderFieldsAreChecked) {
  VKRT_REQUIRE_CONFORMANCE(path, "pte/executorch__examples_arduino_examples_AddModel_model.pte");
  const auto good = testing::read_file(path);
  ASSERT_EQ(std::string(good.begin() + 8, good.begin() + 12), "eh00");
  auto expect_invalid = [&](std::vector<uint8_t> bytes, const char* what) {
    auto m = Module::load_from_buffer(bytes);
    EXPECT_EQ(m.error(), Error::InvalidProgram) << what;
    EXPECT_NE(m.status().message().find(what), std::string::npos) << m.status().message();
  };
  auto put32 = [](std::vector<uint8_t>& b, size_t at, uint32_t v) { for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i)); };
  auto put64 = [](std::vector<uint8_t>& b, size_t at, uint64_t v) { for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i)); };
  { auto b = good; put32(b, 12, 16); expect_invalid(b, "header length 16 < 24"); }
  { auto b = good; put64(b, 16, good.size() + 1); expect_invalid(b, "program_size"); }
  { auto b = good; put64(b, 32, 1u << 20); expect_invalid(b, "truncated"); }
  { auto b = good; b.resize(good.size() - 2); expect_invalid(b, "truncated"); }
  { auto b = good; b[5] = 'X'; expect_invalid(b, "'EX12' != expected 'ET12'"); }
  { std::vector<uint8_t> b(good.begin(), good.begin() + 6); expect_invalid(b, "too short"); }
}

}  // namespace
}  // namespace vkrt
