// Several executor_runner processes sharing one pipeline-cache directory (issue 20, part 6):
// started together on an empty directory (cold: every process compiles and saves), then again on
// what they left (warm: every process loads while others rewrite). Every process must succeed
// with the CPU executor's output bytes, and the directory must hold a cache the next process
// loads, with no temporary files left behind.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "vgf/vulkan/context.h"
#include "vgf/vulkan/pipeline_cache.h"
#include "vgf_samples.h"
#include "vkrt/pte_writer.h"

extern char** environ;

namespace vkrt {
namespace {

namespace fs = std::filesystem;

constexpr size_t kProcesses = 4;
constexpr int kResolution = 32;  // small enough for lavapipe, big enough to need many pipelines

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// Starts executor_runner with `args`, its stdout and stderr going to `log`.
pid_t spawn_runner(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<char*> argv{const_cast<char*>(VKRT_EXECUTOR_RUNNER)};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = -1;
  const int err = posix_spawn(&pid, VKRT_EXECUTOR_RUNNER, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return err == 0 ? pid : -1;
}

struct RunnerResult {
  int exit_code = -1;
  std::string log;
  std::string output;  // the bytes of output 0
};

class PipelineCacheConcurrency : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vkrt_cache_concurrency_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cache");
    auto pte = samples::mobilenet_v2_vgf_program(1, kResolution);
    ASSERT_TRUE(pte.ok()) << pte.status().to_string();
    ASSERT_TRUE(write_bytes_to_file(program(), *pte).is_ok());
    std::vector<uint8_t> input(size_t(kResolution * kResolution * 3));
    for (size_t i = 0; i < input.size(); ++i) input[i] = uint8_t(i * 37 % 251);
    ASSERT_TRUE(write_bytes_to_file(input_file(), input).is_ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string program() const { return (dir_ / "mobilenet.pte").string(); }
  std::string input_file() const { return (dir_ / "input.bin").string(); }
  fs::path cache_dir() const { return dir_ / "cache"; }

  // Runs `count` runners at once on `executor`, run i writing <dir>/<tag><i>-0.bin.
  std::vector<RunnerResult> run_together(size_t count, const std::string& executor, const std::string& tag) {
    auto out_base = [&](size_t i) { return (dir_ / (tag + std::to_string(i))).string(); };
    std::vector<pid_t> pids;
    for (size_t i = 0; i < count; ++i) {
      const std::string out = out_base(i);
      pids.push_back(spawn_runner({program(), "--inputs", input_file(), "--output_file", out, "--print_output",
                                   "none", "--vgf_executor", executor, "--backend_option",
                                   "VgfBackend.pipeline_cache_dir=" + cache_dir().string()},
                                  out + ".log"));
    }
    std::vector<RunnerResult> runs(count);
    for (size_t i = 0; i < count; ++i) {
      int status = 0;
      if (pids[i] > 0 && waitpid(pids[i], &status, 0) == pids[i] && WIFEXITED(status))
        runs[i].exit_code = WEXITSTATUS(status);
      runs[i].log = read_text(out_base(i) + ".log");
      runs[i].output = read_text(out_base(i) + "-0.bin");
    }
    return runs;
  }

  // Every run succeeded with the expected bytes.
  void expect_all_match(const std::vector<RunnerResult>& runs, const std::string& expected, const char* round) {
    for (size_t i = 0; i < runs.size(); ++i) {
      SCOPED_TRACE(std::string(round) + " run " + std::to_string(i));
      EXPECT_EQ(runs[i].exit_code, 0) << runs[i].log;
      EXPECT_EQ(runs[i].output.size(), expected.size());
      EXPECT_TRUE(runs[i].output == expected) << "output differs from the CPU executor's";
      EXPECT_EQ(runs[i].log.find("pipeline cache"), std::string::npos) << "a complaint about the cache: "
                                                                        << runs[i].log;
    }
  }

  // The directory holds complete files only, and the pipeline cache loads on this device.
  void expect_valid_cache(const std::shared_ptr<vulkan::Context>& ctx, const char* round) {
    SCOPED_TRACE(round);
    int pipeline_files = 0;
    for (const auto& e : fs::directory_iterator(cache_dir())) {
      const std::string name = e.path().filename().string();
      EXPECT_EQ(name.find(".tmp"), std::string::npos) << "temporary file left behind: " << name;
      if (name.rfind("vkrt-pipelines-", 0) == 0) ++pipeline_files;
    }
    EXPECT_EQ(pipeline_files, 1) << "one file per device and driver";
    auto cache = vulkan::PipelineCache::open(ctx, cache_dir().string());
    ASSERT_TRUE(cache.ok()) << cache.status().to_string();
    EXPECT_EQ((*cache)->load_result(), vulkan::CacheLoadResult::Loaded)
        << (*cache)->path() << ": " << vulkan::cache_load_result_name((*cache)->load_result());
  }

  fs::path dir_;
};

TEST_F(PipelineCacheConcurrency, ColdThenWarmRunsAgreeAndLeaveAValidCache) {
  // The device the runners open (VKRT_VULKAN_DEVICE and the other variables, as they parse them).
  auto options = parse_vgf_options({});
  ASSERT_TRUE(options.ok()) << options.status().to_string();
  auto ctx = vulkan::Context::create(vulkan::context_options(*options));
  if (!ctx.ok()) GTEST_SKIP() << "no Vulkan device: " << ctx.status().to_string();

  const std::vector<RunnerResult> cpu = run_together(1, "cpu", "cpu");
  ASSERT_EQ(cpu[0].exit_code, 0) << cpu[0].log;
  ASSERT_EQ(cpu[0].output.size(), 1000u) << "int8 logits";
  const std::string& expected = cpu[0].output;

  expect_all_match(run_together(kProcesses, "vulkan", "cold"), expected, "cold");
  expect_valid_cache(*ctx, "after the cold round");
  expect_all_match(run_together(kProcesses, "vulkan", "warm"), expected, "warm");
  expect_valid_cache(*ctx, "after the warm round");
}

}  // namespace
}  // namespace vkrt
