// Where the shared conformance files are: $VKRT_CONFORMANCE_DIR, else the folder configured at
// build time (../shared/conformance beside the repository). Tests that need them skip with a
// clear message when the folder is absent (a user's fresh clone without shared/).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vkrt::testing {

// Root of the conformance tree, or "" when it does not exist.
std::string conformance_dir();
// conformance_dir() + "/" + relative, or "" when the root or that path does not exist.
std::string conformance_path(const std::string& relative);
// Reads a whole file; empty vector (and a test failure) on error.
std::vector<uint8_t> read_file(const std::string& path);

}  // namespace vkrt::testing

// Skips the current test unless the conformance path exists; sets `var` to its full path.
#define VKRT_REQUIRE_CONFORMANCE(var, relative)                                            \
  std::string var = ::vkrt::testing::conformance_path(relative);                           \
  if (var.empty()) {                                                                       \
    GTEST_SKIP() << "conformance data not found: " << (relative)                           \
                 << " (set VKRT_CONFORMANCE_DIR or place shared/ beside the repository)";  \
  }
