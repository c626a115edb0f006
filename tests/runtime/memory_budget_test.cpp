// The memory budget (vkrt/memory_budget.h): a file's requests are counted before anything is
// allocated, a request past the budget fails the load naming what asked and how much, and
// planned memory is not touched before the program uses it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/conformance.h"
#include "vkrt/bundled_program.h"
#include "vkrt/memory_budget.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt {
namespace {

// out = x + x on 4 floats, with planned buffer 1 declared `planned_bytes` long.
std::vector<uint8_t> add_program(int64_t planned_bytes) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::Float, {4});
  const int32_t out = m.add_planned_tensor(ScalarType::Float, {4});
  const int32_t one = m.add_double(1.0);
  m.add_kernel_call("aten::add.out", {x, x, one, out, out});
  m.set_inputs({x});
  m.set_outputs({out});
  m.set_planned_buffer_sizes({planned_bytes});
  auto bytes = program.build();
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

Result<Method*> load_forward(std::unique_ptr<Module>& module, const std::vector<uint8_t>& bytes, uint64_t budget,
                             size_t temp_pool_bytes = 1024) {
  LoadOptions options;
  options.memory_budget_bytes = budget;
  options.temp_pool_bytes = temp_pool_bytes;
  VKRT_ASSIGN_OR_RETURN(module, Module::load_from_buffer(bytes, options));
  return module->load_method("forward");
}

// Resident set size of this process, in bytes.
size_t resident_bytes() {
  long pages_total = 0, pages_resident = 0;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  if (std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = 0;
  std::fclose(f);
  return size_t(pages_resident) * size_t(sysconf(_SC_PAGESIZE));
}

TEST(MemoryBudget, ReserveCountsUntilTheLimitAndNamesWhatAsked) {
  MemoryBudget budget(16);
  ASSERT_TRUE(budget.reserve(10, "first").is_ok());
  Status s = budget.reserve(7, "planned buffer 3");
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), Error::MemoryAllocationFailed);
  EXPECT_NE(s.message().find("planned buffer 3 needs 7 bytes but the memory budget has 6 bytes left of 16 bytes"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(budget.used(), 10u);  // a refusal counts nothing
  EXPECT_TRUE(budget.reserve(6, "rest").is_ok());
  EXPECT_FALSE(budget.reserve(1, "one more").is_ok());
  EXPECT_FALSE(MemoryBudget(100).reserve(UINT64_MAX, "everything").is_ok());
}

TEST(MemoryBudget, ByteCounts) {
  EXPECT_EQ(*parse_byte_count("4096", "x"), 4096u);
  EXPECT_EQ(*parse_byte_count("512K", "x"), 512u << 10);
  EXPECT_EQ(*parse_byte_count("64MiB", "x"), 64u << 20);
  EXPECT_EQ(*parse_byte_count("2g", "x"), uint64_t(2) << 30);
  EXPECT_EQ(*parse_byte_count("3T", "x"), uint64_t(3) << 40);
  for (const char* bad : {"", "M", "-1", "12X", "1.5G", "4 K", "16Mb", "99999999999999999999", "20000000T"}) {
    auto r = parse_byte_count(bad, "--memory_budget");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error(), Error::InvalidArgument);
    EXPECT_EQ(r.status().message().rfind("--memory_budget: '", 0), 0u) << r.status().message();
  }
}

TEST(MemoryBudget, DefaultIsHalfOfPhysicalMemory) {
  const uint64_t physical = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(default_memory_budget_bytes(), uint64_t(sysconf(_SC_PHYS_PAGES)) / 2 * uint64_t(sysconf(_SC_PAGESIZE)));
  EXPECT_LE(default_memory_budget_bytes(), physical);
}

// The finding: a 1 KB .pte whose planned buffer is 2^33 bytes ran at 8.4 GB resident.
TEST(MemoryBudget, PlannedBufferPastTheBudgetFailsAtLoadNamingIt) {
  const std::vector<uint8_t> bytes = add_program(int64_t(1) << 33);
  ASSERT_FALSE(bytes.empty());
  EXPECT_LT(bytes.size(), 2048u);
  std::unique_ptr<Module> module;
  auto method = load_forward(module, bytes, uint64_t(1) << 30);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::MemoryAllocationFailed);
  EXPECT_NE(method.status().message().find("planned buffer 0 needs 8589934592 bytes (8.0 GiB)"), std::string::npos)
      << method.status().to_string();
}

// Planned buffers and the temp pool together: the exact budget loads, one byte less does not.
TEST(MemoryBudget, PlannedBuffersAndTempPoolShareTheBudget) {
  const std::vector<uint8_t> bytes = add_program(4096);
  std::unique_ptr<Module> module;
  auto method = load_forward(module, bytes, 4096 + 1024, 1024);
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  EXPECT_EQ((*method)->load_stats().budgeted_bytes, 4096u + 1024u);
  EXPECT_EQ((*method)->load_stats().memory_budget_bytes, 4096u + 1024u);

  auto short_by_one = load_forward(module, bytes, 4096 + 1024 - 1, 1024);
  ASSERT_FALSE(short_by_one.ok());
  EXPECT_NE(short_by_one.status().message().find("the temp pool"), std::string::npos)
      << short_by_one.status().to_string();
}

// A program may declare far more planned memory than it touches (and upstream's planner pads):
// only what it writes becomes resident.
TEST(MemoryBudget, PlannedMemoryIsNotTouchedBeforeUse) {
  const int64_t planned = int64_t(1) << 30;
  const std::vector<uint8_t> bytes = add_program(planned);
  const size_t before = resident_bytes();
  ASSERT_GT(before, 0u) << "cannot read /proc/self/statm";
  std::unique_ptr<Module> module;
  auto method = load_forward(module, bytes, uint64_t(2) << 30);
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  Method& m = **method;
  float x[4] = {1, 2, 3, 4};
  const int32_t sizes[] = {4};
  Tensor t = *Tensor::make(ScalarType::Float, sizes, x);
  ASSERT_TRUE(m.set_input(0, EValue::from_tensor(&t)).is_ok());
  ASSERT_TRUE(m.execute().is_ok());
  EXPECT_EQ(m.output(0).to_tensor().data_as<float>()[3], 8.0f);
  // The planned buffer starts zeroed (deterministic runs) without being written.
  const size_t grown = resident_bytes() - before;
  EXPECT_LT(grown, size_t(64) << 20) << "loading a 1 GiB planned buffer made " << grown << " bytes resident";
}

// The finding on a real file: ExecuTorch's bundled-program example with two bytes flipped (the
// high bytes of its planned buffer's size) asked for 4 GiB, and the old loader zero-filled it:
// 4.2 GB resident and 27 s to load. Now the budget refuses it, and under a larger budget the
// buffer stays untouched.
TEST(MemoryBudget, FlippedBundledProgramAsksForGigabytes) {
  VKRT_REQUIRE_CONFORMANCE(path, "pte/executorch__extension_module_test_resources_bundled_program.bpte");
  std::vector<uint8_t> bytes = testing::read_file(path);
  ASSERT_EQ(bytes.size(), 4608u);
  bytes[314] ^= 0xff;
  bytes[315] ^= 0xff;
  auto bundled = BundledProgram::parse(bytes);
  ASSERT_TRUE(bundled.ok()) << bundled.status().to_string();
  const std::vector<uint8_t> program((*bundled)->program().begin(), (*bundled)->program().end());
  std::unique_ptr<Module> module;
  auto refused = load_forward(module, program, uint64_t(1) << 30);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("planned buffer 0 needs 4294901808 bytes (4.0 GiB)"), std::string::npos)
      << refused.status().to_string();

  // Under the default overcommit rule a 4 GiB calloc needs about that much RAM + swap to exist.
  if (uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGESIZE)) < (uint64_t(8) << 30))
    GTEST_SKIP() << "the refusal was checked; loading the 4 GiB buffer needs a machine with 8 GiB";
  const size_t before = resident_bytes();
  auto loaded = load_forward(module, program, uint64_t(8) << 30);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_LT(resident_bytes() - before, size_t(64) << 20);
}

}  // namespace
}  // namespace vkrt
