// One placement of a program measured by vkrt_bench: the program loaded with its VgfBackend
// segments on one executor ("vulkan" or "cpu"; "default" for programs without VGF segments),
// delegate init cold and warm (a fresh pipeline-cache directory, then a second load over it),
// the first run, warm-up, the timed runs and one profiled run for the per-step times.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "executor_runner/run_stats.h"
#include "vkrt/module.h"

namespace vkrt::bench {

struct BenchOptions {
  std::string model_path;
  std::string data_path;    // .ptd for EXTERNAL tensors (LoadOptions::data_path)
  std::string method_name;  // empty: the first method
  uint32_t runs = 50;
  uint32_t warmup = 5;
  int threads = 1;
  std::string device;  // VgfBackend.device
  std::string ethosu_driver;  // EthosUBackend.driver ("" = auto: the first NPU device found)
  // Sizes for dynamic inputs, by input index (empty: the input's upper bound).
  std::vector<std::vector<int32_t>> input_sizes;
  bool progress = true;  // a progress line on stderr when the runs take long
};

struct StepTime {
  std::string name;  // "CONV2D+RESCALE+CLAMP [conv2d_i8_i8]", "aten::add.out", ...
  double ms = 0;
};

struct PlacementRun {
  std::string name;
  std::string error;  // non-empty: this placement could not run (the reason)
  double load_ms = 0, init_cold_ms = 0, init_warm_ms = 0, first_run_ms = 0;
  runner::RunStats runs;
  // Sum of the delegates' own step times in the profiled run (GPU timestamps on Vulkan, per-op
  // wall time on the CPU executor); < 0 when no delegate reported steps.
  double delegate_steps_ms = -1;
  bool steps_are_gpu_time = false;
  std::vector<StepTime> steps;  // the profiled run's instructions and delegate steps
  // Kept so that placements' outputs can be compared after all ran.
  std::unique_ptr<Module> module;
  Method* method = nullptr;
  std::vector<std::vector<uint8_t>> input_buffers;
  std::vector<Tensor> input_tensors;
};

// True when the program's method delegates to VgfBackend (so the executor placement matters).
Result<bool> uses_vgf_backend(const BenchOptions& options);

// Measures one placement: `executor` is a VgfBackend.executor value, or "" to leave the default.
PlacementRun run_placement(const BenchOptions& options, const std::string& name, const std::string& executor);

}  // namespace vkrt::bench
