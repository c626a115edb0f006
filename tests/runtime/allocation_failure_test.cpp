// Allocation-failure sweep (issue 20, part 5): for each sample program, counts the heap
// allocations that loading it makes (the module, every method's meta and load, a bundled
// program's inputs), then for every n fails exactly the n-th one and expects a clean
// MemoryAllocationFailed: no crash, no exception out of the public API, and (under ASan, which
// runs this suite with detect_leaks=1) no leak.
//
// Its own binary: common/allocation_counter.cpp replaces the global operator new/delete.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/allocation_counter.h"
#include "sample_programs.h"
#include "vkrt/bundled_program.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt {
namespace {

using test_heap::fail_allocation_number;
using test_heap::g_heap_allocations;
using test_heap::injected_failure_happened;

// One sample to load, as bytes and as files (Module::load maps files: its own allocations).
struct Sample {
  std::string name;
  std::vector<uint8_t> program;
  std::vector<uint8_t> data;  // the .ptd of the same stem, if the samples have one
  std::string program_path, data_path;
  bool bundled = false;
};

enum class From { Buffer, File };

// Everything an application does before its first execute. Makes no allocation of its own
// outside the calls under test (the options are built by the caller and moved in), so that every
// allocation counted is the runtime's.
Status load_everything(const Sample& s, From from, LoadOptions options) {
  std::unique_ptr<BundledProgram> bundled;
  std::span<const uint8_t> program = s.program;
  if (s.bundled) {
    auto parsed = from == From::File ? BundledProgram::load(s.program_path) : BundledProgram::parse(program);
    if (!parsed.ok()) return parsed.status();
    bundled = std::move(parsed).value();
    program = bundled->program();
  }
  auto module = from == From::File && !s.bundled ? Module::load(s.program_path, std::move(options))
                                                 : Module::load_from_buffer(program, std::move(options), s.data);
  if (!module.ok()) return module.status();
  for (const std::string& name : (*module)->method_names()) {
    auto meta = (*module)->method_meta(name);
    if (!meta.ok()) return meta.status();
    auto method = (*module)->load_method(name);
    if (!method.ok()) return method.status();
    if (!bundled) continue;
    if (const BundledTestSuite* suite = bundled->find_suite(name))
      for (const BundledTestCase& tc : suite->test_cases) {
        Status s = load_bundled_inputs(**method, tc);
        if (!s.is_ok()) return s;
      }
  }
  return Status::ok();
}

// Runs load_everything with its n-th allocation failing (n = 0: none fails). Returns its Status,
// or nullopt (after reporting) when an exception escaped; `allocations`: how many it made.
std::optional<Status> load_failing(const Sample& s, From from, long n, long* allocations = nullptr) {
  LoadOptions options;
  if (from == From::File && !s.bundled) options.data_path = s.data_path;
  // The Ethos-U sample runs on the virtual NPU (no device here); other programs ignore the key.
  options.backend_options.set("EthosUBackend.driver", "virtual");
  std::optional<Status> result;
  const long before = g_heap_allocations.load();
  fail_allocation_number(n == 0 ? 0 : before + n);
  try {
    result = load_everything(s, from, std::move(options));
  } catch (const std::exception& e) {
    ADD_FAILURE() << s.name << ": allocation " << n << " failed and an exception escaped: " << e.what();
  }
  fail_allocation_number(0);
  if (allocations) *allocations = g_heap_allocations.load() - before;
  return result;
}

std::vector<Sample> build_samples(const std::string& dir) {
  std::vector<Sample> out;
  const auto& files = samples::all_samples();
  auto bytes_of = [](const samples::SampleFile& f) {
    auto b = f.build();
    EXPECT_TRUE(b.ok()) << f.name << ": " << b.status().to_string();
    return b.ok() ? *b : std::vector<uint8_t>{};
  };
  for (const auto& f : files) {
    const std::filesystem::path name(f.name);
    if (name.extension() == ".ptd") continue;  // data, loaded with the program of its stem
    Sample s{f.name, bytes_of(f), {}, dir + "/" + f.name, "", name.extension() == ".bpte"};
    for (const auto& d : files)
      if (std::filesystem::path(d.name) == std::filesystem::path(name).replace_extension(".ptd")) {
        s.data = bytes_of(d);
        s.data_path = dir + "/" + d.name;
        EXPECT_TRUE(write_bytes_to_file(s.data_path, s.data).is_ok());
      }
    EXPECT_TRUE(write_bytes_to_file(s.program_path, s.program).is_ok());
    out.push_back(std::move(s));
  }
  return out;
}

class AllocationFailure : public ::testing::TestWithParam<From> {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("vkrt_alloc_sweep_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    samples_ = build_samples(dir_.string());
  }
  static void TearDownTestSuite() {
    samples_.clear();
    std::filesystem::remove_all(dir_);
  }
  static std::filesystem::path dir_;
  static std::vector<Sample> samples_;
};
std::filesystem::path AllocationFailure::dir_;
std::vector<Sample> AllocationFailure::samples_;

TEST_P(AllocationFailure, EveryAllocationOfEverySampleFailsCleanly) {
  const From from = GetParam();
  ASSERT_FALSE(samples_.empty());
  for (const Sample& s : samples_) {
    SCOPED_TRACE(s.name);
    // Once for lazily built process state (registries' first lookups), then counted.
    auto first = load_failing(s, from, 0);
    ASSERT_TRUE(first && first->is_ok()) << (first ? first->to_string() : "exception");
    long count = 0;
    ASSERT_TRUE(load_failing(s, from, 0, &count)->is_ok());
    ASSERT_GT(count, 0);

    for (long n = 1; n <= count; ++n) {
      auto status = load_failing(s, from, n);
      if (!status) continue;  // reported
      ASSERT_TRUE(injected_failure_happened()) << "allocation " << n << " of " << count << " was never made";
      EXPECT_EQ(status->code(), Error::MemoryAllocationFailed)
          << "allocation " << n << " of " << count << " failed; the load returned " << status->to_string();
    }
    // Nothing the failures left behind disturbs a later load.
    auto again = load_failing(s, from, 0);
    EXPECT_TRUE(again && again->is_ok()) << (again ? again->to_string() : "exception");
    std::printf("%s: %ld allocations, each failed once\n", s.name.c_str(), count);
  }
}

INSTANTIATE_TEST_SUITE_P(Sweep, AllocationFailure, ::testing::Values(From::Buffer, From::File),
                         [](const auto& info) { return info.param == From::Buffer ? "FromBuffer" : "FromFile"; });

}  // namespace
}  // namespace vkrt
