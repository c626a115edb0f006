// What both of executor_runner's paths share (programs in main.cpp, raw .vgf files in
// vgf_file_run.cpp): the parsed flags, errors as one line and exit 1, output printing, checked
// file writes, timing and comparison reports.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "executor_runner/run_stats.h"
#include "vkrt/error.h"
#include "vkrt/evalue.h"
#include "vkrt/output_compare.h"
#include "vkrt/scalar_type.h"

namespace vkrt::runner {

using Clock = std::chrono::steady_clock;

// Bounds on flags, checked after parsing (docs/executor_runner.md lists them).
constexpr int kMaxThreads = 1024;

struct Flags {
  std::string model_path = "model.pte";
  std::string positional_model;
  std::string data_path;
  std::string inputs;
  std::string input_shapes;  // raw .vgf: "1,32,32,8;1,10" (one shape per input, ';' between)
  std::string method_name;
  std::string print_output = "summary";
  std::string output_file;
  uint32_t num_executions = 1;
  int num_threads = 1;
  std::string cpu_isa;  // --cpu_isa; empty: the detected level (or VKRT_CPU_ISA)
  bool bundled = false;
  double bundleio_rtol = 0.01, bundleio_atol = 0.01;
  std::vector<std::string> backend_options;
  std::string vgf_executor;
  std::string device;
  std::string ethosu_driver;
  bool profile = false;
  std::string etdump_path;
  std::string etdump_debug_buffer;
  bool list = false;
  bool compare_with_cpu = false;
  size_t temp_pool_bytes = 1 << 20;
  std::string memory_budget;  // byte count ("512M"); empty: half of physical memory
};

// What a model file is, by its first bytes.
enum class ModelFileKind { Program, BundledProgram, Vgf, Other, Unreadable };
ModelFileKind sniff_model_file(const std::string& path);
// For an error about a file that is none of them: its size, and its first bytes as text or hex.
std::string describe_file_start(const std::string& path);

double ms_between(Clock::time_point a, Clock::time_point b);

// Prints "error: <what>: <status>" and returns the process exit code 1.
int fail(const std::string& what, const Status& s);

std::vector<std::string> split_commas(const std::string& s);

// Bytes of the value 1 in a dtype (the reference runner fills missing inputs with ones).
std::vector<uint8_t> one_of(ScalarType t);

// Output `index` as --print_output says: "summary" one line in ExecuTorch's format, "all" one
// line per element, "none" nothing.
void print_output(size_t index, const EValue& value, const std::string& mode);

// Writes `size` bytes to `path`, checked through close. On failure the file, if this left a
// regular one there, is removed (a symlink or a device such as /dev/full is left alone).
Status write_file(const std::string& path, const void* data, size_t size);

void print_timing(const RunStats& runs);

// The --compare_with_cpu report: one line per output; returns the exit code (1 if any differs).
int report_comparisons(const std::vector<OutputComparison>& results, const Flags& flags, const std::string& note);

}  // namespace vkrt::runner
