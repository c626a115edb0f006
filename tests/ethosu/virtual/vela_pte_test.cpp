// Vela's command streams packed into ExecuTorch programs, run end to end on the virtual NPU: every
// model of ../shared/conformance/ethos-u/ that Vela put wholly on the NPU, compiled for Ethos-U55-128 and
// Ethos-U65-256, becomes a .pte (tests/ethosu/virtual/vela_pte_builder.h: one EthosUBackend delegate
// whose vela_bin_stream carries the Vela operator's COP1 payload, its flash as weight_data, its scratch
// size, and each IFM/OFM at the scratch offset Vela planned). Run through vkrt::Module with
// EthosUBackend.driver=virtual and through `executor_runner --ethosu_driver virtual` on files, the
// program's outputs must equal, byte for byte, TFLite's reference semantics on the original model.
//
// The U65 streams keep intermediates in region 2 (Vela's Dedicated_Sram "scratch_fast"); a COP1
// payload does not say how large that is and the virtual driver has no SRAM of its own, so the runs
// set EthosUBackend.fast_scratch_size to the Vela model's fast-scratch tensor size, and without it the
// load must fail naming that option.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/run_command.h"
#include "ethosu/backend/ethosu_backend.h"
#include "ethosu/tflite/tflite_model.h"
#include "ethosu/tflite/vela_tflite_runner.h"
#include "tests/ethosu/tflite/tflite_reference.h"
#include "tests/ethosu/conformance_models.h"
#include "tests/ethosu/virtual/vela_pte_builder.h"
#include "vkrt/backend.h"
#include "vkrt/ethosu.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt::ethosu {
namespace {

using tflite::Model;

constexpr int kSeeds = 2;

// executor_runner as the build made it (next to this binary's build folder), or as
// VKRT_TEST_EXECUTOR_RUNNER names it (scripts/gpu-kit.sh). Empty when neither exists.
std::string executor_runner() {
#ifdef VKRT_EXECUTOR_RUNNER
  return vkrt::testing::tool_command(VKRT_EXECUTOR_RUNNER, "VKRT_TEST_EXECUTOR_RUNNER");
#else
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  // <build>/tests/ethosu/ethosu_virtual_test → <build>/executor_runner/executor_runner
  std::filesystem::path built;
  if (!ec) built = self.parent_path().parent_path().parent_path() / "executor_runner" / "executor_runner";
  const std::string path = !built.empty() && std::filesystem::exists(built, ec) ? built.string() : std::string();
  return vkrt::testing::tool_command(path.c_str(), "VKRT_TEST_EXECUTOR_RUNNER");
#endif
}

struct Case {
  std::string model;
  std::string config;
};

std::string case_name(const Case& c);
void PrintTo(const Case& c, std::ostream* os) { *os << c.model << " (" << c.config << ")"; }

std::string case_name(const Case& c) { return vkrt::testing::vela_case_name(c.model, c.config); }

// Everything one case needs: the original model (the reference), the Vela model and its program.
struct Loaded {
  Model original;
  Model vela;
  testing::VelaPte pte;
};

// Loads the case, or says why not (skip: the conformance data is absent).
Result<Loaded> load_case(const Case& c) {
  const std::string dir = vkrt::testing::vela_tflite_dir();
  VKRT_ASSIGN_OR_RETURN(Model original, tflite::load_tflite_file(dir + "/models/" + c.model + ".tflite"));
  VKRT_ASSIGN_OR_RETURN(Model vela, tflite::load_tflite_file(dir + "/" + c.config + "/" + c.model + "_vela.tflite"));
  VKRT_ASSIGN_OR_RETURN(testing::VelaPte pte, testing::vela_tflite_to_pte(vela));
  return Loaded{std::move(original), std::move(vela), std::move(pte)};
}

std::vector<std::vector<uint8_t>> random_inputs(const Model& original, int seed) {
  std::mt19937 rng(uint32_t(2000 + seed));
  std::vector<std::vector<uint8_t>> inputs;
  for (int32_t t : original.inputs) {
    std::vector<uint8_t> bytes(original.tensors[size_t(t)].byte_size());
    for (uint8_t& b : bytes) b = uint8_t(rng());
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

// "" when equal; otherwise how many bytes differ and the first few.
std::string compare(const std::vector<uint8_t>& got, const std::vector<uint8_t>& expected) {
  if (got.size() != expected.size())
    return std::to_string(got.size()) + " bytes, expected " + std::to_string(expected.size());
  size_t differ = 0;
  std::string first;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == expected[i]) continue;
    if (differ++ < 6)
      first += " [" + std::to_string(i) + "] " + std::to_string(int(got[i])) + " vs " + std::to_string(int(expected[i]));
  }
  return differ == 0 ? std::string()
                     : std::to_string(differ) + " of " + std::to_string(got.size()) + " bytes differ (got vs reference, u8):" + first;
}

LoadOptions virtual_options(const testing::VelaPte& pte) {
  LoadOptions o;
  o.backend_options.set(kOptionDriver, "virtual");
  if (pte.uses_fast_scratch) o.backend_options.set(kOptionFastScratchSize, std::to_string(pte.fast_scratch_bytes));
  return o;
}

ScalarType dtype_of(const tflite::Tensor& t) {
  return t.type == tflite::TensorType::UInt8 ? ScalarType::Byte : ScalarType::Char;
}

class VelaPteModels : public ::testing::TestWithParam<Case> {};

// In process: the program through vkrt::Module, the delegate on the virtual driver.
TEST_P(VelaPteModels, ModuleOutputsEqualTfliteReference) {
  if (vkrt::testing::vela_tflite_dir().empty()) GTEST_SKIP() << "VKRT_CONFORMANCE_DIR is not set: no Vela models to pack";
  const Case& c = GetParam();
  auto loaded = load_case(c);
  if (!loaded.ok() && loaded.status().code() == Error::NotFound) GTEST_SKIP() << loaded.status().to_string();
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  const Model& original = loaded->original;
  const Model& vela = loaded->vela;
  const testing::VelaPte& pte = loaded->pte;
  ASSERT_EQ(vela.inputs.size(), original.inputs.size());
  ASSERT_EQ(vela.outputs.size(), original.outputs.size());
  // U65-256 streams spill to fast scratch, U55 streams have none.
  if (c.config == "vela-u55-128") {
    EXPECT_FALSE(pte.uses_fast_scratch);
  }

  auto module = Module::load_from_buffer(pte.pte, virtual_options(pte));
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto meta = (*module)->method_meta("forward");
  ASSERT_TRUE(meta.ok()) << meta.status().to_string();
  EXPECT_EQ(meta->backends, std::vector<std::string>{"EthosUBackend"});
  ASSERT_EQ(meta->inputs.size(), vela.inputs.size());
  ASSERT_EQ(meta->outputs.size(), vela.outputs.size());
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_TRUE((*method)->notices().empty());

  for (int seed = 0; seed < kSeeds; ++seed) {
    std::vector<std::vector<uint8_t>> inputs = random_inputs(original, seed);
    auto expected = tflite::run_tflite_reference(original, inputs);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    std::vector<Tensor> tensors;
    tensors.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const tflite::Tensor& t = vela.tensors[size_t(vela.inputs[i])];
      auto tensor = Tensor::make(dtype_of(t), t.shape, inputs[i].data());
      ASSERT_TRUE(tensor.ok()) << tensor.status().to_string();
      tensors.push_back(*tensor);
      Status s = (*method)->set_input(i, EValue::from_tensor(&tensors.back()));
      ASSERT_TRUE(s.is_ok()) << s.to_string();
    }
    Status s = (*method)->execute();
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    ASSERT_EQ((*method)->num_outputs(), expected->size());
    for (size_t o = 0; o < expected->size(); ++o) {
      const EValue& out = (*method)->output(o);
      ASSERT_TRUE(out.is_tensor());
      const Tensor& t = out.to_tensor();
      EXPECT_EQ(t.dtype(), dtype_of(vela.tensors[size_t(vela.outputs[o])]));
      const uint8_t* p = t.data_as<uint8_t>();
      EXPECT_EQ(compare(std::vector<uint8_t>(p, p + t.nbytes()), (*expected)[o]), "")
          << case_name(c) << " seed " << seed << " output " << o;
    }
  }
}

// As a user runs it: the .pte and raw input files on disk, executor_runner --ethosu_driver virtual
// --output_file, the written outputs against the reference.
TEST_P(VelaPteModels, ExecutorRunnerOutputsEqualTfliteReference) {
  if (vkrt::testing::vela_tflite_dir().empty()) GTEST_SKIP() << "VKRT_CONFORMANCE_DIR is not set: no Vela models to pack";
  const std::string runner = executor_runner();
  if (runner.empty()) GTEST_SKIP() << "executor_runner is not built";
  const Case& c = GetParam();
  auto loaded = load_case(c);
  if (!loaded.ok() && loaded.status().code() == Error::NotFound) GTEST_SKIP() << loaded.status().to_string();
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  const Model& original = loaded->original;
  const testing::VelaPte& pte = loaded->pte;

  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) /
                                    ("vkrt_vela_pte_" + std::to_string(getpid()) + "_" + case_name(c));
  std::filesystem::create_directories(dir);
  const std::string program = (dir / "model.pte").string();
  ASSERT_TRUE(write_bytes_to_file(program, pte.pte).is_ok());
  std::vector<std::vector<uint8_t>> inputs = random_inputs(original, 7);
  std::string input_list;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string path = (dir / ("input-" + std::to_string(i) + ".bin")).string();
    ASSERT_TRUE(write_bytes_to_file(path, inputs[i]).is_ok());
    input_list += (i ? "," : "") + path;
  }
  auto expected = tflite::run_tflite_reference(original, inputs);
  ASSERT_TRUE(expected.ok()) << expected.status().message();

  const std::string out_base = (dir / "out").string();
  std::string command = runner + " " + program + " --ethosu_driver virtual --print_output none --output_file " + out_base;
  if (!inputs.empty()) command += " --inputs " + input_list;
  if (pte.uses_fast_scratch)
    command += " --backend_option " + std::string(kOptionFastScratchSize) + "=" + std::to_string(pte.fast_scratch_bytes);
  const vkrt::testing::CommandResult run = vkrt::testing::run_command(command);
  ASSERT_EQ(run.exit_code, 0) << command << "\n" << run.out;
  EXPECT_EQ(run.out.find("does not run the NPU"), std::string::npos) << run.out;
  for (size_t o = 0; o < expected->size(); ++o) {
    std::ifstream f(out_base + "-" + std::to_string(o) + ".bin", std::ios::binary);
    ASSERT_TRUE(f.good()) << "no output file " << o << ": " << run.out;
    std::vector<uint8_t> got((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(compare(got, (*expected)[o]), "") << case_name(c) << " output " << o;
  }
  std::error_code ec;
  if (!HasFailure()) std::filesystem::remove_all(dir, ec);
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const char* config : vkrt::testing::kVelaConfigs)
    for (const char* model : vkrt::testing::kNpuModels) cases.push_back({model, config});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(VelaPte, VelaPteModels, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return case_name(info.param); });

// The list above is every model read_vela_npu_program accepts, in both configurations.
TEST(VelaPte, EveryNpuOnlyModelIsListed) {
  const std::string dir = vkrt::testing::vela_tflite_dir();
  if (dir.empty()) GTEST_SKIP() << "VKRT_CONFORMANCE_DIR is not set: no Vela models to pack";
  const std::set<std::string> listed(std::begin(vkrt::testing::kNpuModels), std::end(vkrt::testing::kNpuModels));
  for (const char* config : vkrt::testing::kVelaConfigs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir + "/" + config, ec)) GTEST_SKIP() << dir << "/" << config << " is absent";
    std::set<std::string> accepted;
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/" + config)) {
      const std::string file = entry.path().filename().string();
      const std::string suffix = "_vela.tflite";
      if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
      auto vela = tflite::load_tflite_file(entry.path().string());
      ASSERT_TRUE(vela.ok()) << vela.status().to_string();
      auto pte = testing::vela_tflite_to_pte(*vela);
      if (pte.ok()) {
        accepted.insert(file.substr(0, file.size() - suffix.size()));
      } else {
        EXPECT_EQ(pte.status().code(), Error::NotSupported) << file << ": " << pte.status().to_string();
      }
    }
    EXPECT_EQ(accepted, listed) << config;
  }
}

// Region 2 is the U65 streams' spill space; the virtual driver has no SRAM and a COP1 payload has no
// staging size, so without EthosUBackend.fast_scratch_size the delegate cannot be bound, and the error
// says which option to set. A size smaller than the stream needs is caught by the virtual NPU.
TEST(VelaPte, FastScratchNeedsItsSize) {
  if (vkrt::testing::vela_tflite_dir().empty()) GTEST_SKIP() << "VKRT_CONFORMANCE_DIR is not set: no Vela models to pack";
  auto loaded = load_case({"test_conv2d_int8", "vela-u65-256"});
  if (!loaded.ok() && loaded.status().code() == Error::NotFound) GTEST_SKIP() << loaded.status().to_string();
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  ASSERT_TRUE(loaded->pte.uses_fast_scratch);
  ASSERT_GT(loaded->pte.fast_scratch_bytes, 0u);
  LoadOptions o;
  o.backend_options.set(kOptionDriver, "virtual");
  auto module = Module::load_from_buffer(loaded->pte.pte, o);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.status().code(), Error::NotSupported) << method.status().to_string();
  EXPECT_NE(method.status().message().find(kOptionFastScratchSize), std::string::npos) << method.status().message();
}

}  // namespace
}  // namespace vkrt::ethosu
