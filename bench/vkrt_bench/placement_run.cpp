#include "placement_run.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace vkrt::bench {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A deterministic ramp in the input's own type (small signed integers, floats around 0), so
// that outputs are not constant and two placements see the same bytes.
void fill_ramp(ScalarType dtype, int64_t numel, uint8_t* data) {
  for (int64_t i = 0; i < numel; ++i) {
    const int ramp = int(i * 37 % 251) - 125;
    switch (dtype) {
      case ScalarType::Float: reinterpret_cast<float*>(data)[i] = float(ramp) / 64.0f; break;
      case ScalarType::Double: reinterpret_cast<double*>(data)[i] = double(ramp) / 64.0; break;
      case ScalarType::Char: reinterpret_cast<int8_t*>(data)[i] = int8_t(ramp); break;
      case ScalarType::Byte: data[i] = uint8_t(ramp + 125); break;
      case ScalarType::Short: reinterpret_cast<int16_t*>(data)[i] = int16_t((ramp + 125) * 4); break;
      case ScalarType::Int: reinterpret_cast<int32_t*>(data)[i] = ramp; break;
      case ScalarType::Long: reinterpret_cast<int64_t*>(data)[i] = ramp; break;
      case ScalarType::Bool: data[i] = uint8_t(ramp > 0); break;
      default: break;  // other types stay zero
    }
  }
}

Status set_inputs(const BenchOptions& options, PlacementRun& run) {
  Method& m = *run.method;
  const MethodMeta& meta = m.meta();
  run.input_buffers.resize(meta.inputs.size());
  run.input_tensors.resize(meta.inputs.size());
  for (size_t i = 0; i < meta.inputs.size(); ++i) {
    const ValueInfo& info = meta.inputs[i];
    if (info.tag != Tag::Tensor) {
      // Int/Double/Bool inputs must equal the traced value: give the method its own.
      VKRT_RETURN_IF_ERROR(m.set_input(i, m.input(i)));
      continue;
    }
    std::vector<int32_t> sizes = info.sizes;
    if (i < options.input_sizes.size() && !options.input_sizes[i].empty()) sizes = options.input_sizes[i];
    VKRT_ASSIGN_OR_RETURN(Tensor layout, Tensor::make(info.dtype, sizes, info.dim_order, nullptr));
    run.input_buffers[i].assign(layout.nbytes(), 0);
    fill_ramp(info.dtype, layout.numel(), run.input_buffers[i].data());
    VKRT_ASSIGN_OR_RETURN(run.input_tensors[i], Tensor::make(info.dtype, sizes, info.dim_order, run.input_buffers[i].data()));
    Status s = m.set_input(i, EValue::from_tensor(&run.input_tensors[i]));
    if (!s.is_ok()) return std::move(s).with_context("input " + std::to_string(i));
  }
  return Status::ok();
}

LoadOptions load_options(const BenchOptions& options, const std::string& executor, const std::string& cache_dir) {
  LoadOptions o;
  o.data_path = options.data_path;
  o.num_threads = options.threads;
  if (!executor.empty()) o.backend_options.set("VgfBackend.executor", executor);
  if (!options.device.empty()) o.backend_options.set("VgfBackend.device", options.device);
  if (!options.ethosu_driver.empty()) o.backend_options.set("EthosUBackend.driver", options.ethosu_driver);
  o.backend_options.set("VgfBackend.pipeline_cache_dir", cache_dir);
  return o;
}

// The method name to run: the option, else the program's first.
std::string method_to_run(const BenchOptions& options, const Module& module) {
  if (!options.method_name.empty() || module.method_names().empty()) return options.method_name;
  return module.method_names().front();
}

void progress(const BenchOptions& options, const std::string& name, const char* what, uint32_t done, uint32_t total,
              Clock::time_point started) {
  // Only once the runs have taken a second: short benchmarks print nothing.
  if (!options.progress || ms_since(started) < 1000) return;
  std::fprintf(stderr, "\r%s: %s %u/%u", name.c_str(), what, done, total);
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

Status measure(const BenchOptions& options, const std::string& executor, PlacementRun& run) {
  // A fresh pipeline-cache directory: the first load compiles every pipeline (cold), the second
  // finds them on disk (warm). Removed afterwards.
  const std::filesystem::path cache_dir = std::filesystem::temp_directory_path() /
                                          ("vkrt-bench-" + std::to_string(::getpid()) + "-" + run.name);
  std::error_code ec;
  std::filesystem::remove_all(cache_dir, ec);
  std::filesystem::create_directories(cache_dir, ec);
  struct RemoveDir {
    std::filesystem::path dir;
    ~RemoveDir() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } remove_dir{cache_dir};
  const LoadOptions lo = load_options(options, executor, cache_dir.string());

  auto t0 = Clock::now();
  VKRT_ASSIGN_OR_RETURN(std::unique_ptr<Module> cold, Module::load(options.model_path, lo));
  run.load_ms = ms_since(t0);
  const std::string method_name = method_to_run(options, *cold);
  VKRT_ASSIGN_OR_RETURN(Method * cold_method, cold->load_method(method_name));
  run.init_cold_ms = cold_method->load_stats().delegate_init_ms;
  cold.reset();

  VKRT_ASSIGN_OR_RETURN(run.module, Module::load(options.model_path, lo));
  VKRT_ASSIGN_OR_RETURN(run.method, run.module->load_method(method_name));
  run.init_warm_ms = run.method->load_stats().delegate_init_ms;
  VKRT_RETURN_IF_ERROR(set_inputs(options, run));

  Method& m = *run.method;
  t0 = Clock::now();
  VKRT_RETURN_IF_ERROR(m.execute());
  run.first_run_ms = ms_since(t0);
  const auto started = Clock::now();
  for (uint32_t i = 0; i < options.warmup; ++i) {
    VKRT_RETURN_IF_ERROR(m.execute());
    progress(options, run.name, "warm-up", i + 1, options.warmup, started);
  }
  for (uint32_t i = 0; i < options.runs; ++i) {
    t0 = Clock::now();
    VKRT_RETURN_IF_ERROR(m.execute());
    run.runs.add(ms_since(t0));
    progress(options, run.name, "run", i + 1, options.runs, started);
  }

  // Per-step times from one more load with delegate profiling on (VgfBackend.profile: GPU
  // timestamps per dispatch, or wall time per op on the CPU executor), run once after one
  // untimed run: profiling costs time, so it stays out of the timed runs.
  LoadOptions profiled_options = lo;
  profiled_options.backend_options.set("VgfBackend.profile", "1");
  VKRT_ASSIGN_OR_RETURN(std::unique_ptr<Module> profiled, Module::load(options.model_path, profiled_options));
  VKRT_ASSIGN_OR_RETURN(Method * pm, profiled->load_method(method_name));
  for (size_t i = 0; i < pm->num_inputs(); ++i) VKRT_RETURN_IF_ERROR(pm->set_input(i, m.input(i)));
  VKRT_RETURN_IF_ERROR(pm->execute());
  pm->set_profiling(true);
  VKRT_RETURN_IF_ERROR(pm->execute());
  for (const Method::InstructionProfile& p : pm->profile()) {
    if (p.delegate_steps.empty()) {
      run.steps.push_back({p.name, p.total_ms});
      continue;
    }
    if (run.delegate_steps_ms < 0) run.delegate_steps_ms = 0;
    for (const DelegateProfileEntry& step : p.delegate_steps) {
      run.steps.push_back({step.name, step.time_ms});
      run.delegate_steps_ms += step.time_ms;
    }
  }
  run.steps_are_gpu_time = executor == "vulkan" && run.delegate_steps_ms >= 0;
  return Status::ok();
}

}  // namespace

Result<bool> uses_vgf_backend(const BenchOptions& options) {
  LoadOptions lo;
  lo.data_path = options.data_path;
  VKRT_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, Module::load(options.model_path, lo));
  VKRT_ASSIGN_OR_RETURN(MethodMeta meta, module->method_meta(method_to_run(options, *module)));
  for (const std::string& backend : meta.backends)
    if (backend == "VgfBackend") return true;
  return false;
}

PlacementRun run_placement(const BenchOptions& options, const std::string& name, const std::string& executor) {
  PlacementRun run;
  run.name = name;
  Status s = measure(options, executor, run);
  if (!s.is_ok()) {
    run.error = s.to_string();
    run.method = nullptr;
    run.module.reset();
  }
  return run;
}

}  // namespace vkrt::bench
