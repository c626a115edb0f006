// The virtual NPU on Vela's own command streams: every model of ../shared/conformance/ethos-u/ that
// Vela put wholly on the NPU, compiled for Ethos-U55-128 and Ethos-U65-256, run on random inputs
// (several seeds) must give the outputs of TFLite's int8/uint8 reference semantics on the original
// model (tests/ethosu/tflite/tflite_reference.h) bit for bit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ethosu/tflite/tflite_model.h"
#include "ethosu/tflite/vela_tflite_runner.h"
#include "tests/ethosu/tflite/tflite_reference.h"

namespace vkrt::ethosu {
namespace {

using tflite::Model;

std::string conformance_dir() {
  const char* d = std::getenv("VKRT_CONFORMANCE_DIR");
  return d ? std::string(d) + "/ethos-u/tflite" : std::string();
}

// The models Vela put wholly on the NPU (README: all but test_mean_int8 and test_mnist_uint8).
const char* const kNpuModels[] = {
    "test_abs_int8", "test_add_int8", "test_averagepooling2d_int8", "test_concat_int8",
    "test_conv2d_int8", "test_depthwise_conv2d_int8", "test_fullconnected_int8", "test_hardswish_int8",
    "test_leakyrelu_int8", "test_logistic_int8", "test_max_uint8", "test_maxpooling2d_int8",
    "test_min_uint8", "test_mlp_uint8", "test_mul_int8", "test_pack_int8", "test_pad_c_int8",
    "test_pad_int8", "test_relu6_int8", "test_relu_int8", "test_relu_n1_to_1_int8",
    "test_reshape_int8", "test_resize_int8", "test_slice_int8", "test_softmax_int8",
    "test_split_int8", "test_strided_slice_int8", "test_sub_int8", "test_tanh_int8",
    "test_transpose_conv2d_int8", "test_unpack_int8"};
const char* const kConfigs[] = {"vela-u55-128", "vela-u65-256"};
constexpr int kSeeds = 3;

struct Case {
  std::string model;
  std::string config;
};

class VelaModels : public ::testing::TestWithParam<Case> {};

TEST_P(VelaModels, OutputsEqualTfliteReference) {
  const std::string dir = conformance_dir();
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

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const char* config : kConfigs)
    for (const char* model : kNpuModels) cases.push_back({model, config});
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.model.substr(5) + "_" + info.param.config.substr(5);
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Conformance, VelaModels, ::testing::ValuesIn(all_cases()), case_name);

}  // namespace
}  // namespace vkrt::ethosu
