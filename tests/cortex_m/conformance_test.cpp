// CMSIS-NN conformance: every int8/int16 vector of the cortex_m operator families, bit for bit.
// The folder is $VKRT_CMSIS_NN_DIR, else <conformance dir>/cmsis-nn. Each folder's operator is
// taken from INDEX.tsv (the upstream unit test that uses it); folder names are not interpreted.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "common/conformance.h"
#include "compute/isa.h"
#include "cortex_m/cmsis_vectors.h"
#include "cortex_m/conformance_families.h"

namespace vkrt::testing::cmsis {
namespace {

std::string vectors_dir() {
  const char* env = std::getenv("VKRT_CMSIS_NN_DIR");
  if (env && *env) return env;
  return conformance_path("cmsis-nn");
}

// Why a folder is not checked: the unit test that uses it belongs to no cortex_m operator
// family. Floating-point folders are grouped by operator; the rest (int4, LSTM, SVDF, ...) are
// named by the upstream test that uses them.
std::string skip_reason(const IndexEntry& entry) {
  if (entry.unit_tests.empty()) return "used by no upstream unit test";
  std::string test = entry.unit_tests.front();
  if (test.rfind("test_arm_", 0) == 0) test = test.substr(9);
  const size_t last = test.rfind('_');
  const std::string kind = last == std::string::npos ? test : test.substr(0, last);
  const std::string dtype = last == std::string::npos ? "" : test.substr(last + 1);
  const bool floating = dtype == "f16" || dtype == "f32";
  if (floating) return "floating point, not a cortex_m dtype: " + kind;
  return "no cortex_m operator or dtype for upstream test " + entry.unit_tests.front();
}

TEST(CmsisNnConformance, AllInt8AndInt16VectorsBitExact) {
  const std::string dir = vectors_dir();
  if (dir.empty()) GTEST_SKIP() << "CMSIS-NN vectors not found (set VKRT_CMSIS_NN_DIR or VKRT_CONFORMANCE_DIR)";
  std::ifstream index_file(dir + "/INDEX.tsv");
  ASSERT_TRUE(index_file) << dir << "/INDEX.tsv: cannot read";
  std::stringstream text;
  text << index_file.rdbuf();
  std::vector<IndexEntry> index;
  const std::string index_error = parse_index(text.str(), &index);
  ASSERT_EQ(index_error, "");

  int checked = 0, passed = 0;
  std::map<std::string, std::pair<int, int>> per_family;  // name -> (checked, passed)
  std::vector<std::string> not_checked;
  std::map<std::string, int> skipped;  // reason -> folders
  for (const IndexEntry& entry : index) {
    const Family* family = nullptr;
    for (const std::string& test : entry.unit_tests)
      if ((family = family_for_unit_test(test))) break;
    if (!family) {  // float, int4, LSTM, SVDF, ...: not cortex_m operator families
      ++skipped[skip_reason(entry)];
      continue;
    }
    if (!family->run) {
      not_checked.push_back(entry.dir + " (" + family->name + ")");
      continue;
    }
    ++checked;
    ++per_family[family->name].first;
    VectorData data;
    std::string error = data.load(dir + "/" + entry.dir);
    // Each vector at every ISA level this CPU has (the family runs the portable path too).
    for (compute::Isa isa : compute::available_isas()) {
      if (!error.empty()) break;
      compute::ScopedIsa pin(isa);
      VectorAccess access(data, entry.dir);
      error = family->run(access);
      if (!error.empty()) error = std::string("at ISA level ") + compute::isa_name(isa) + ": " + error;
    }
    if (error.empty()) {
      ++passed;
      ++per_family[family->name].second;
    } else {
      ADD_FAILURE() << entry.dir << " [" << family->name << "]: " << error;
    }
  }
  std::ostringstream report;
  std::string levels;
  for (compute::Isa isa : compute::available_isas()) levels += std::string(levels.empty() ? "" : ", ") + compute::isa_name(isa);
  report << "cmsis-nn conformance: " << passed << "/" << checked << " vectors bit-exact at every ISA level (" << levels
         << ") (" << dir << ")\n";
  for (const auto& [name, counts] : per_family)
    report << "  " << name << ": " << counts.second << "/" << counts.first << "\n";
  for (const auto& n : not_checked) report << "  not checked: " << n << "\n";
  int skipped_total = 0;
  for (const auto& [reason, count] : skipped) skipped_total += count;
  report << "cmsis-nn folders: " << index.size() << " in INDEX.tsv, " << checked << " checked, "
         << not_checked.size() << " of a family without a runner, " << skipped_total << " skipped:\n";
  for (const auto& [reason, count] : skipped) report << "  skipped " << count << ": " << reason << "\n";
  std::cout << report.str();
  RecordProperty("checked", checked);
  RecordProperty("passed", passed);
  EXPECT_GT(checked, 0) << "no vector of a known family found";
  EXPECT_EQ(passed, checked);
}

}  // namespace
}  // namespace vkrt::testing::cmsis
