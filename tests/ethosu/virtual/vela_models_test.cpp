// The virtual NPU on Vela's own command streams: every model of ../shared/conformance/ethos-u/ that
// Vela put wholly on the NPU, compiled for Ethos-U55-128 and Ethos-U65-256, run on random inputs
// (several seeds) must give the outputs of TFLite's int8/uint8 reference semantics on the original
// model (tests/ethosu/tflite/tflite_reference.h) bit for bit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ethosu/tflite/tflite_model.h"
#include "ethosu/tflite/vela_tflite_runner.h"
#include "tests/ethosu/tflite/tflite_reference.h"
#include "tests/ethosu/conformance_models.h"

namespace vkrt::ethosu {
namespace {

using tflite::Model;

constexpr int kSeeds = 3;

struct Case {
  std::string model;
  std::string config;
};

class VelaModels : public ::testing::TestWithParam<Case> {};

TEST_P(VelaModels, OutputsEqualTfliteReference) {
  const std::string dir = vkrt::testing::vela_tflite_dir();
  if (dir.empty()) GTEST_SKIP() << "VKRT_CONFORMANCE_DIR is not set: no Vela models to run";
  const Case& c = GetParam();
  auto original = tflite::load_tflite_file(dir + "/models/" + c.model + ".tflite");
  if (!original.ok() && original.status().code() == Error::NotFound)
    GTEST_SKIP() << original.status().message();
  ASSERT_TRUE(original.ok()) << original.status().message();
  auto vela = tflite::load_tflite_file(dir + "/" + c.config + "/" + c.model + "_vela.tflite");
  ASSERT_TRUE(vela.ok()) << vela.status().message();
  auto program = tflite::read_vela_npu_program(*vela);
  ASSERT_TRUE(program.ok()) << program.status().message();
  ASSERT_EQ(vela->inputs.size(), original->inputs.size());

  for (int seed = 0; seed < kSeeds; ++seed) {
    std::mt19937 rng(uint32_t(1000 + seed));
    std::vector<std::vector<uint8_t>> inputs;
    for (int32_t t : original->inputs) {
      std::vector<uint8_t> bytes(original->tensors[size_t(t)].byte_size());
      for (uint8_t& b : bytes) b = uint8_t(rng());
      inputs.push_back(std::move(bytes));
    }
    auto expected = tflite::run_tflite_reference(*original, inputs);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    virtual_npu::RunCounters counters;
    auto got = tflite::run_vela_npu_program(*vela, *program, inputs, &counters);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->size(), expected->size());
    for (size_t o = 0; o < got->size(); ++o) {
      const auto& g = (*got)[o];
      const auto& e = (*expected)[o];
      ASSERT_EQ(g.size(), e.size());
      size_t differ = 0;
      std::string first;
      for (size_t i = 0; i < g.size(); ++i) {
        if (g[i] == e[i]) continue;
        if (differ++ < 6) {
          first += " [" + std::to_string(i) + "] " + std::to_string(int(int8_t(g[i]))) + "/" +
                   std::to_string(int(g[i])) + " vs " + std::to_string(int(int8_t(e[i]))) + "/" +
                   std::to_string(int(e[i]));
        }
      }
      EXPECT_EQ(differ, 0u) << c.model << " " << c.config << " seed " << seed << " output " << o << ": "
                            << differ << " of " << g.size() << " bytes differ (npu vs reference, s8/u8):"
                            << first;
    }
  }
}

// test_mnist_uint8: Vela put its 7 NPU operations in two "ethos-u" operators between CPU operators
// (STRIDED_SLICE, PACK, RESHAPE). The Vela model runs on the TFLite reference with each "ethos-u"
// operator on the virtual NPU, and must give what the original model gives.
TEST(VelaModelsMixed, MnistNpuOperatorsBetweenCpuOperators) {
  const std::string dir = vkrt::testing::vela_tflite_dir();
  if (dir.empty()) GTEST_SKIP() << "VKRT_CONFORMANCE_DIR is not set: no Vela models to run";
  auto original = tflite::load_tflite_file(dir + "/models/test_mnist_uint8.tflite");
  if (!original.ok() && original.status().code() == Error::NotFound) GTEST_SKIP() << original.status().message();
  ASSERT_TRUE(original.ok()) << original.status().message();
  for (const char* config : vkrt::testing::kVelaConfigs) {
    auto vela = tflite::load_tflite_file(dir + "/" + config + "/test_mnist_uint8_vela.tflite");
    ASSERT_TRUE(vela.ok()) << vela.status().message();
    int npu_operators = 0;
    uint64_t npu_operations = 0;
    const tflite::CustomOperator on_virtual_npu =
        [&](size_t op_index, const std::vector<std::vector<uint8_t>>& tensors) -> Result<std::vector<std::vector<uint8_t>>> {
      VKRT_ASSIGN_OR_RETURN(tflite::VelaNpuProgram program, tflite::read_vela_npu_operator(*vela, op_index));
      std::vector<std::vector<uint8_t>> ifms;
      for (int32_t t : program.input_tensors) ifms.push_back(tensors[size_t(t)]);
      virtual_npu::RunCounters counters;
      auto ofms = tflite::run_vela_npu_program(*vela, program, ifms, &counters);
      ++npu_operators;
      npu_operations += counters.operations;
      return ofms;
    };
    for (int seed = 0; seed < 2; ++seed) {
      std::mt19937 rng(uint32_t(2000 + seed));
      std::vector<uint8_t> image(original->tensors[size_t(original->inputs[0])].byte_size());
      for (uint8_t& b : image) b = uint8_t(rng());
      auto expected = tflite::run_tflite_reference(*original, {image});
      ASSERT_TRUE(expected.ok()) << expected.status().message();
      auto got = tflite::run_tflite_reference(*vela, {image}, on_virtual_npu);
      ASSERT_TRUE(got.ok()) << config << ": " << got.status().message();
      ASSERT_EQ(*got, *expected) << config << " seed " << seed;
      const std::set<uint8_t> distinct((*expected)[0].begin(), (*expected)[0].end());
      EXPECT_GE(distinct.size(), 3u) << "the 10 class scores are not stuck at a clamp";
    }
    EXPECT_EQ(npu_operators, 4) << config << ": two \"ethos-u\" operators, two runs";
    EXPECT_GE(npu_operations, 2u * 7) << config;
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const char* config : vkrt::testing::kVelaConfigs)
    for (const char* model : vkrt::testing::kNpuModels) cases.push_back({model, config});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return vkrt::testing::vela_case_name(info.param.model, info.param.config);
}

INSTANTIATE_TEST_SUITE_P(Conformance, VelaModels, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace vkrt::ethosu
