// vkrt_bench run on the recipe samples: both placements of a VGF program with identical integer
// outputs, the JSON's fields, a CPU-only program, and one-line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "common/run_command.h"
#include "dscnn_program.h"
#include "vgf_samples.h"
#include "vkrt/pte_writer.h"

namespace vkrt {
namespace {

using RunResult = testing::CommandResult;

RunResult run(const std::string& args, bool with_stderr = true) {
  return testing::run_command(std::string(VKRT_BENCH_TOOL) + " " + args, with_stderr);
}

std::string write_sample(const std::string& name, const Result<std::vector<uint8_t>>& bytes) {
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  const std::string path = ::testing::TempDir() + "vkrt_bench_" + name;
  EXPECT_TRUE(write_bytes_to_file(path, *bytes).is_ok());
  return path;
}

// The A16W8 sample on both placements: int16 outputs, so the comparison must say identical.
TEST(VkrtBench, VgfSampleOnBothPlacementsWithIdenticalIntegerOutputs) {
  const std::string pte = write_sample("a16w8.pte", samples::small_cnn_vgf_program(samples::Precision::A16W8));
  RunResult r = run(pte + " --runs 3 --warmup 1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("3 runs after 1 warm-up"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ncpu "), std::string::npos) << r.out;
  if (r.out.find("vulkan    did not run") != std::string::npos) GTEST_SKIP() << "no Vulkan device: " << r.out;
  EXPECT_NE(r.out.find("\nvulkan "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU/CPU speed-up (p50): "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Outputs vulkan vs cpu: identical (largest difference 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" GPU\n"), std::string::npos) << "no GPU timestamp time: " << r.out;
}

TEST(VkrtBench, JsonHasEveryFieldAndEveryRun) {
  const std::string pte = write_sample("dscnn.pte", samples::dscnn_int8_program());
  RunResult r = run(pte + " --runs 7 --warmup 0 --json", /*with_stderr=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const char* field : {"\"tool\":\"vkrt_bench\"", "\"method\":\"forward\"", "\"runs\":7", "\"placements\":[",
                            "\"name\":\"default\"", "\"load_ms\":", "\"init_cold_ms\":", "\"init_warm_ms\":",
                            "\"first_run_ms\":", "\"p50_ms\":", "\"p99_ms\":", "\"runs_per_s\":",
                            "\"delegate_steps_ms\":null", "\"steps\":[{\"name\":\"cortex_m::quantize_per_tensor.out\""})
    EXPECT_NE(r.out.find(field), std::string::npos) << field << " in " << r.out;
  // Seven latencies: six commas between them.
  const size_t at = r.out.find("\"latencies_ms\":[");
  ASSERT_NE(at, std::string::npos);
  const std::string list = r.out.substr(at, r.out.find(']', at) - at);
  EXPECT_EQ(std::count(list.begin(), list.end(), ','), 6) << list;
  // Valid JSON where a Python is at hand to say so.
  const std::string json = ::testing::TempDir() + "vkrt_bench.json";
  FILE* f = std::fopen(json.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs(r.out.c_str(), f);
  std::fclose(f);
  if (std::system("/usr/bin/python3 -c 'pass' >/dev/null 2>&1") == 0) {
    EXPECT_EQ(std::system(("/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' " + json).c_str()), 0)
        << r.out;
  }
}

TEST(VkrtBench, ErrorsAreOneLineAndExitOne) {
  RunResult r = run("/nonexistent.pte");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.out.rfind("error: cannot load /nonexistent.pte", 0), 0u) << r.out;
  const std::string pte = write_sample("dscnn2.pte", samples::dscnn_int8_program());
  r = run(pte + " --placements gpu");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("unknown placement 'gpu'"), std::string::npos) << r.out;
  r = run(pte + " --input_sizes 1,x");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("--input_sizes: '1,x'"), std::string::npos) << r.out;
  EXPECT_EQ(run("--help").exit_code, 0);
}

}  // namespace
}  // namespace vkrt
