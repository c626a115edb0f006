// executor_runner: runs one method of an ExecuTorch program (.pte) or checks a bundled program
// (.bpte), with the flags of ExecuTorch's reference runner plus vkrt's own (see --help and
// docs/executor_runner.md).
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "compute/isa.h"
#include "executor_runner/inputs.h"
#include "executor_runner/runner_common.h"
#include "executor_runner/vgf_file_run.h"
#include "vkrt/backend.h"
#include "vkrt/bundled_program.h"
#include "vkrt/etdump.h"
#include "vkrt/evalue_format.h"
#include "vkrt/kernel.h"
#include "vkrt/memory_budget.h"
#include "vkrt/module.h"
#include "vkrt/output_compare.h"

namespace {

using namespace vkrt;
using namespace vkrt::runner;

// What the user must know about the results (a driver that computes nothing), where they are printed.
void print_notices(const Method& m) {
  for (const std::string& notice : m.notices()) fprintf(stderr, "warning: %s\n", notice.c_str());
}

// Where each delegate ran its work (the executor and device of every VgfBackend segment).
void print_placements(const Method& m) {
  for (const std::string& line : m.placements()) fprintf(stderr, "vkrt: %s\n", line.c_str());
}

// gflags accepts -flag and -flag=value; CLI11 wants --flag. Rewrite single-dash long flags.
std::vector<std::string> normalise_args(int argc, char** argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i > 0 && a.size() > 2 && a[0] == '-' && a[1] != '-' && std::isalpha(static_cast<unsigned char>(a[1])) &&
        (a.find('=') != std::string::npos ? a.find('=') > 2 : true) && a.find('_') != std::string::npos)
      a = "-" + a;
    out.push_back(a);
  }
  return out;
}

std::string scalar_text(const EValue& v) {
  char text[64] = "?";
  if (v.tag() == Tag::Int) snprintf(text, sizeof(text), "%lld", static_cast<long long>(v.to_int()));
  if (v.tag() == Tag::Double) snprintf(text, sizeof(text), "%g", v.to_double());
  if (v.tag() == Tag::Bool) snprintf(text, sizeof(text), "%s", v.to_bool() ? "true" : "false");
  return text;
}

struct InputStore {
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Tensor> tensors;
};

Status set_inputs(Method& method, const Flags& flags, InputStore& store) {
  const MethodMeta& meta = method.meta();
  auto files = split_commas(flags.inputs);
  store.buffers.resize(meta.inputs.size());
  store.tensors.resize(meta.inputs.size());
  if (!flags.inputs.empty() && files.size() != meta.inputs.size())
    return make_error(Error::InvalidArgument, "--inputs names ", files.size(), " files, method ", meta.name,
                      " has ", meta.inputs.size(), " inputs");
  for (size_t i = 0; i < meta.inputs.size(); ++i) {
    const ValueInfo& info = meta.inputs[i];
    if (flags.inputs.empty()) {
      if (info.tag == Tag::Int || info.tag == Tag::Double || info.tag == Tag::Bool) {
        // A primitive input must equal the value the program was traced with (set_input checks
        // it), so that value is the only sensible default; the reference runner leaves these
        // unset and the run fails with "Input i has not been set".
        EValue traced = method.input(i);
        fprintf(stderr, "Input %zu: %s, using the traced value %s.\n", i, tag_name(info.tag),
                scalar_text(traced).c_str());
        VKRT_RETURN_IF_ERROR(method.set_input(i, traced));
        continue;
      }
      if (info.tag != Tag::Tensor) continue;
      auto one = one_of(info.dtype);
      store.buffers[i].resize(info.nbytes);
      for (size_t k = 0; k + one.size() <= info.nbytes; k += one.size()) memcpy(&store.buffers[i][k], one.data(), one.size());
      VKRT_ASSIGN_OR_RETURN(store.tensors[i], Tensor::make(info.dtype, info.sizes, info.dim_order, store.buffers[i].data()));
      VKRT_RETURN_IF_ERROR(method.set_input(i, EValue::from_tensor(&store.tensors[i])));
      continue;
    }
    VKRT_ASSIGN_OR_RETURN(auto data, runner::read_input_file(files[i], info, i));
    store.buffers[i] = std::move(data.bytes);
    auto& bytes = store.buffers[i];
    EValue ev;
    switch (info.tag) {
      case Tag::Tensor: {
        VKRT_ASSIGN_OR_RETURN(store.tensors[i], runner::input_tensor(data.npy_shape, data.is_npy, bytes, info, files[i], i));
        ev = EValue::from_tensor(&store.tensors[i]);
        break;
      }
      case Tag::Int: case Tag::Double: case Tag::Bool: {
        size_t want = info.tag == Tag::Bool ? 1 : 8;
        if (bytes.size() != want)
          return make_error(Error::InvalidArgument, "input ", i, " (", files[i], "): a ", tag_name(info.tag),
                            " input needs a ", want, "-byte file, got ", bytes.size());
        if (info.tag == Tag::Int) { int64_t v; memcpy(&v, bytes.data(), 8); ev = EValue::from_int(v); }
        if (info.tag == Tag::Double) { double v; memcpy(&v, bytes.data(), 8); ev = EValue::from_double(v); }
        if (info.tag == Tag::Bool) ev = EValue::from_bool(bytes[0] != 0);
        break;
      }
      case Tag::None: break;
      default:
        return make_error(Error::NotSupported, "input ", i, ": ", tag_name(info.tag), " inputs cannot be read from files");
    }
    VKRT_RETURN_IF_ERROR(method.set_input(i, ev));
  }
  return Status::ok();
}

void print_outputs(const Method& method, const std::string& mode) {
  for (size_t i = 0; i < method.num_outputs(); ++i) runner::print_output(i, method.output(i), mode);
}

// --etdump_path / --etdump_debug_buffer: the ETDump, and the tensor bytes its debug events point at.
Status write_etdump(const EtdumpWriter& etdump, const Flags& flags) {
  const std::vector<uint8_t> bytes = etdump.serialize();
  VKRT_RETURN_IF_ERROR(write_file(flags.etdump_path, bytes.data(), bytes.size()));
  fprintf(stderr, "ETDump written to file '%s'.\n", flags.etdump_path.c_str());
  if (flags.etdump_debug_buffer.empty()) return Status::ok();
  VKRT_RETURN_IF_ERROR(
      write_file(flags.etdump_debug_buffer, etdump.debug_buffer().data(), etdump.debug_buffer().size()));
  fprintf(stderr, "ETDump debug buffer written to file '%s'.\n", flags.etdump_debug_buffer.c_str());
  return Status::ok();
}

Status write_outputs(const Method& method, const std::string& base) {
  for (size_t i = 0; i < method.num_outputs(); ++i) {
    const EValue& v = method.output(i);
    if (!v.is_tensor()) continue;
    std::string path = base + "-" + std::to_string(i) + ".bin";
    const Tensor& t = v.to_tensor();
    VKRT_RETURN_IF_ERROR(write_file(path, t.data(), t.nbytes()));
    fprintf(stderr, "Wrote output %zu to %s (%zu bytes)\n", i, path.c_str(), t.nbytes());
  }
  return Status::ok();
}

void print_profile(const Method& method) {
  auto rows = method.profile();
  // Wide enough for a fused dispatch and its shader variant, "CONV2D+RESCALE+CLAMP [conv2d_...]".
  fprintf(stderr, "%-5s %-62s %8s %12s %12s\n", "#", "instruction", "calls", "total ms", "mean us");
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    fprintf(stderr, "%-5zu %-62s %8llu %12.3f %12.2f\n", i, r.name.c_str(), static_cast<unsigned long long>(r.calls),
            r.total_ms, r.calls ? 1000.0 * r.total_ms / double(r.calls) : 0.0);
    // Steps inside a delegate (GPU dispatch timestamps on Vulkan), from the last execution.
    // A step's metadata follows when it is text (the Ethos-U driver's "cycles=1234").
    for (const auto& step : r.delegate_steps) {
      std::string text(step.metadata.begin(), step.metadata.end());
      const bool printable =
          std::all_of(text.begin(), text.end(), [](char c) { return c >= 32 && c < 127; });
      fprintf(stderr, "        %-60s %8s %12.3f %12s%s%s\n", step.name.c_str(), "last", step.time_ms, "(device)",
              printable && !text.empty() ? "  " : "", printable ? text.c_str() : "");
    }
  }
}

void print_method_list(Module& module) {
  for (const auto& name : module.method_names()) {
    auto meta = module.method_meta(name);
    if (!meta.ok()) {
      printf("method %s: %s\n", name.c_str(), meta.status().to_string().c_str());
      continue;
    }
    printf("method %s: %zu inputs, %zu outputs, %zu instructions\n", name.c_str(), meta->inputs.size(),
           meta->outputs.size(), meta->num_instructions);
    auto describe = [](const char* role, size_t i, const ValueInfo& v) {
      std::string s = std::string("  ") + role + " " + std::to_string(i) + ": " + tag_name(v.tag);
      if (v.tag == Tag::Tensor) {
        s += std::string(" ") + scalar_type_name(v.dtype) + " [";
        for (size_t d = 0; d < v.sizes.size(); ++d) s += (d ? ", " : "") + std::to_string(v.sizes[d]);
        s += "]";
        if (v.dynamism == ShapeDynamism::DynamicBound) s += " (upper bound)";
      }
      printf("%s\n", s.c_str());
    };
    for (size_t i = 0; i < meta->inputs.size(); ++i) describe("input", i, meta->inputs[i]);
    for (size_t i = 0; i < meta->outputs.size(); ++i) describe("output", i, meta->outputs[i]);
    for (const auto& op : meta->operators)
      printf("  operator %s (%s)\n", op.c_str(), KernelRegistry::global().find(op) ? "available" : "missing");
    for (const auto& b : meta->backends) {
      const Backend* backend = BackendRegistry::global().find(b);
      printf("  delegate %s (%s)\n", b.c_str(),
             backend == nullptr ? "missing: not linked" : backend->is_available() ? "available" : "missing: not available here");
    }
  }
}

// --compare_with_cpu: loads the program again with every VgfBackend segment on the CPU executor,
// runs it once on the same inputs and compares each output with `method`'s. Returns the exit code.
int compare_with_cpu_executor(const Method& method, const std::string& method_name, const Flags& flags,
                              LoadOptions options) {
  options.backend_options.set("VgfBackend.executor", "cpu");
  options.backend_options.set("VgfBackend.profile", "0");
  auto module = Module::load(flags.model_path, options);
  if (!module.ok()) return fail("--compare_with_cpu: cannot load " + flags.model_path, module.status());
  auto cpu = (*module)->load_method(method_name);
  if (!cpu.ok()) return fail("--compare_with_cpu: loading of method " + method_name + " failed", cpu.status());
  InputStore store;
  Status s = set_inputs(**cpu, flags, store);
  if (s.is_ok()) s = (*cpu)->execute();
  if (!s.is_ok()) return fail("--compare_with_cpu: the CPU executor's run", s);
  auto results = compare_method_outputs(method, **cpu, flags.bundleio_rtol, flags.bundleio_atol);
  if (!results.ok()) return fail("--compare_with_cpu", results.status());
  const auto& backends = method.meta().backends;
  const bool has_vgf = std::find(backends.begin(), backends.end(), "VgfBackend") != backends.end();
  return runner::report_comparisons(*results, flags,
                                    has_vgf ? "" : " the method has no VgfBackend segment, so both runs used the same kernels");
}

}  // namespace

int run_main(int argc, char** argv) {
  Flags flags;
  CLI::App app{
      "executor_runner: run a method of an ExecuTorch program (.pte) with vkrt, check a bundled program (.bpte),\n"
      "or run a VGF file (.vgf, Arm ML SDK for Vulkan) directly on the Vulkan or CPU executor.\n"
      "Inputs default to tensors filled with ones (Int/Double/Bool inputs to the value traced into the program,\n"
      "the only one they accept). Outputs print in ExecuTorch's format on stdout; logs and\n"
      "timings go to stderr. Exit status is 0 on success (and for --help) and 1 with a one-line reason on any\n"
      "error, command-line errors included.\n"
      "Single-dash long flags (-model_path x, -inputs=a.bin) are accepted as in the reference runner."};
  app.add_option("model", flags.positional_model, "Program or VGF file (same as --model_path)");
  app.add_option("--model_path", flags.model_path, "Program file (.pte, .bpte) or VGF file (.vgf), told apart by their first bytes")
      ->capture_default_str();
  app.add_option("--data_path", flags.data_path, "External data file (.ptd) for EXTERNAL tensors and named data");
  app.add_option("--inputs", flags.inputs,
                 "Comma-separated input files, one per method input, in order: raw little-endian bytes (size must\n"
                 "equal the tensor's byte size; Int/Double inputs 8 bytes, Bool 1 byte) or NumPy .npy arrays.\n"
                 "Only regular files are read; a file larger than the input plus 1 MiB of .npy header is refused.\n"
                 "For a .vgf file, .npy shapes set its dynamic dimensions");
  app.add_option("--input_shapes", flags.input_shapes,
                 "For a .vgf file with dynamic dimensions: the shape of each input, ';' between inputs\n"
                 "(e.g. \"1,64,64,12\"); needed for raw-byte inputs and for default (all ones) inputs");
  app.add_option("--method_name", flags.method_name, "Method to run (default: the first method)");
  app.add_option("--num_executions", flags.num_executions, "How many times to run the method (1 to 4294967295)")->capture_default_str();
  app.add_option("--print_output", flags.print_output,
                 "none | summary (one line per output, reference format) | all (one line per element)")
      ->check(CLI::IsMember({"none", "summary", "all"}))
      ->capture_default_str();
  app.add_option("--output_file", flags.output_file,
                 "Write each tensor output's raw bytes to <base>-<i>.bin (a .vgf file's outputs: <base>-<i>.npy)");
  app.add_flag("--bundled", flags.bundled,
               "Treat the model as a bundled program and check every test case of the method (also detected\n"
               "automatically from the 'BP08' identifier). Exits 1 if any case fails");
  app.add_option("--bundleio_rtol", flags.bundleio_rtol, "Relative tolerance for float outputs in bundled mode and --compare_with_cpu")
      ->capture_default_str();
  app.add_option("--bundleio_atol", flags.bundleio_atol, "Absolute tolerance for float outputs in bundled mode and --compare_with_cpu")
      ->capture_default_str();
  app.add_option("--num_threads,--cpu_threads", flags.num_threads, "Threads for CPU kernels (the cortex_m kernels and the VGF CPU executor's convolutions and RESCALE);\n"
                 "at most 1024, values below 1 mean 1")
      ->capture_default_str();
  app.add_option("--cpu_isa", flags.cpu_isa,
                 "Pin the CPU kernels' instruction-set level: portable | avx2 | avx512bw | avx512vnni (x86-64),\n"
                 "portable | neon | dotprod | i8mm (aarch64); at most what the CPU has. Default: the highest the\n"
                 "CPU has, or the environment variable VKRT_CPU_ISA. Every level gives the same outputs");
  app.add_option("--backend_option", flags.backend_options,
                 "Backend option KEY=VALUE, repeatable (e.g. VgfBackend.executor=cpu; VgfBackend keys: docs/vgf.md \"Options\")");
  app.add_option("--vgf_executor", flags.vgf_executor,
                 "VgfBackend executor: vulkan | cpu | auto. auto (the default): a VGF with COMPUTE segments runs on\n"
                 "Vulkan; otherwise Vulkan on a GPU, and the CPU executor where there is no Vulkan device or the\n"
                 "only one is a CPU implementation such as lavapipe (faster there) unless --device names it.\n"
                 "One line per segment on stderr says which executor and device ran it");
  app.add_option("--device", flags.device, "Vulkan device for VgfBackend: index or name substring");
  app.add_option("--ethosu_driver", flags.ethosu_driver, "Ethos-U driver: ethosu-char | drm-accel | virtual (runs the stream on the CPU) | recording");
  app.add_option("--temp_pool_bytes", flags.temp_pool_bytes, "Scratch memory for kernels and delegates")
      ->capture_default_str();
  app.add_option("--memory_budget", flags.memory_budget,
                 "Most memory the method may allocate for what the file asks (planned buffers, temp pool,\n"
                 "kernel state, delegate and driver buffers), in bytes or with a K, M, G or T suffix;\n"
                 "a program asking for more fails at load. Default: half of physical memory");
  app.add_flag("--profile", flags.profile,
               "Print a per-instruction time table after the runs, with each delegate's own steps\n"
               "(VgfBackend: GPU time per Vulkan dispatch of the last run, with its shader variant, or\n"
               "wall time per TOSA op on the CPU executor)");
  app.add_option("--etdump_path", flags.etdump_path,
                 "Write an ETDump (ExecuTorch's profiling file, readable by its Inspector) to this path: a run\n"
                 "for the load and one per execution, with each instruction's events and the delegates' own\n"
                 "steps (see docs/etdump.md). Times are nanoseconds");
  app.add_option("--etdump_debug_buffer", flags.etdump_debug_buffer,
                 "With --etdump_path: also record every instruction's output tensors as ETDump debug events\n"
                 "and write their bytes to this file (the debug buffer the events' offsets point into)");
  app.add_flag("--compare_with_cpu", flags.compare_with_cpu,
               "After the runs, run the method once more with every VgfBackend segment on the CPU executor\n"
               "(same inputs) and compare the outputs: integer outputs must be equal, float outputs within\n"
               "--bundleio_atol + --bundleio_rtol * |cpu|. Prints one line per output; exits 1 if any differs");
  app.add_flag("--list", flags.list,
               "List the program's methods, their inputs/outputs, operators and delegates (each marked available or\n"
               "missing); for a .vgf file its segments, their ops, and its inputs/outputs with their dynamic dimensions");

  auto args = normalise_args(argc, argv);
  std::vector<const char*> cargs;
  for (auto& a : args) cargs.push_back(a.c_str());
  try {
    app.parse(int(cargs.size()), const_cast<char**>(cargs.data()));
  } catch (const CLI::ParseError& e) {
    // --help prints the help and exits 0; every other parse error is one line and exit 1 (CLI11's
    // own exit codes, 104 to 109, are not used).
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    fprintf(stderr, "error: %s (see --help)\n", what.c_str());
    return 1;
  }
  if (flags.num_executions == 0) {
    fprintf(stderr, "error: --num_executions 0: the method must run at least once\n");
    return 1;
  }
  if (flags.num_threads > kMaxThreads) {
    fprintf(stderr, "error: --num_threads %d is more than %d\n", flags.num_threads, kMaxThreads);
    return 1;
  }
  // VKRT_CPU_ISA was read at start-up (compute/isa.h); a bad value stops the runner like a bad flag.
  if (!vkrt::compute::isa_environment_error().empty()) {
    fprintf(stderr, "error: %s\n", vkrt::compute::isa_environment_error().c_str());
    return 1;
  }
  if (!flags.cpu_isa.empty()) {
    if (const std::string error = vkrt::compute::pin_isa(std::string_view(flags.cpu_isa)); !error.empty()) {
      fprintf(stderr, "error: --cpu_isa: %s\n", error.c_str());
      return 1;
    }
  }
  if (!flags.positional_model.empty()) flags.model_path = flags.positional_model;
  if (!flags.etdump_debug_buffer.empty() && flags.etdump_path.empty()) {
    fprintf(stderr, "error: --etdump_debug_buffer needs --etdump_path: the debug events that describe the buffer "
                    "are in the ETDump\n");
    return 1;
  }

  LoadOptions options;
  options.data_path = flags.data_path;
  options.num_threads = std::max(1, flags.num_threads);
  options.temp_pool_bytes = flags.temp_pool_bytes;
  if (!flags.memory_budget.empty()) {
    auto budget = parse_byte_count(flags.memory_budget, "--memory_budget");
    if (!budget.ok()) {
      fprintf(stderr, "error: %s\n", budget.status().message().c_str());
      return 1;
    }
    if (*budget == 0) {
      fprintf(stderr, "error: --memory_budget 0: a method needs some memory\n");
      return 1;
    }
    options.memory_budget_bytes = *budget;
  }
  for (const auto& kv : flags.backend_options) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      fprintf(stderr, "error: --backend_option '%s' is not KEY=VALUE\n", kv.c_str());
      return 1;
    }
    options.backend_options.set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  if (!flags.vgf_executor.empty()) options.backend_options.set("VgfBackend.executor", flags.vgf_executor);
  if (!flags.device.empty()) options.backend_options.set("VgfBackend.device", flags.device);
  if (!flags.ethosu_driver.empty()) options.backend_options.set("EthosUBackend.driver", flags.ethosu_driver);
  // --profile and --etdump_path also ask delegates for their own per-step times (Vulkan dispatch
  // timestamps, CPU executor op times).
  if ((flags.profile || !flags.etdump_path.empty()) && !options.backend_options.has("VgfBackend.profile"))
    options.backend_options.set("VgfBackend.profile", "1");
  EtdumpWriter etdump(/*log_values=*/!flags.etdump_debug_buffer.empty());
  if (!flags.etdump_path.empty()) options.event_tracer = &etdump;

  // What the file is, by its first bytes: a program, a bundled program, a VGF, or neither.
  switch (sniff_model_file(flags.model_path)) {
    case ModelFileKind::Vgf:
      if (flags.bundled) {
        fprintf(stderr, "error: %s is a VGF file, not a bundled program (--bundled)\n", flags.model_path.c_str());
        return 1;
      }
      return run_vgf_file(flags);
    case ModelFileKind::BundledProgram:
      flags.bundled = true;
      break;
    case ModelFileKind::Other:
      fprintf(stderr, "error: %s is neither an ExecuTorch program (.pte, identifier 'ET..' at byte 4) nor a VGF file "
                      "('VGF1' at byte 0): %s\n",
              flags.model_path.c_str(), describe_file_start(flags.model_path).c_str());
      return 1;
    default:
      break;  // a program, or a file Module::load will say it cannot read
  }
  if (!flags.input_shapes.empty()) {
    fprintf(stderr, "error: --input_shapes applies to .vgf files; a program's dynamic inputs take their shapes from "
                    ".npy inputs\n");
    return 1;
  }

  auto t_load = Clock::now();
  std::unique_ptr<BundledProgram> bundled;
  Result<std::unique_ptr<Module>> module = Status(Error::Internal, "not loaded");
  if (flags.bundled) {
    auto b = BundledProgram::load(flags.model_path);
    if (!b.ok()) return fail("cannot load bundled program " + flags.model_path, b.status());
    bundled = std::move(b).value();
    module = Module::load_from_buffer(bundled->program(), options);
  } else {
    module = Module::load(flags.model_path, options);
  }
  if (!module.ok()) return fail("cannot load " + flags.model_path, module.status());
  fprintf(stderr, "Model file %s is loaded.\n", flags.model_path.c_str());
  if (flags.list) {
    print_method_list(**module);
    return 0;
  }

  std::string method_name = flags.method_name;
  if (method_name.empty()) method_name = (*module)->method_names().front();
  fprintf(stderr, "Using method %s\n", method_name.c_str());
  auto method = (*module)->load_method(method_name);
  if (!method.ok()) return fail("loading of method " + method_name + " failed", method.status());
  Method& m = **method;
  for (size_t i = 0; i < m.meta().planned_buffer_sizes.size(); ++i)
    fprintf(stderr, "Setting up planned buffer %zu, size %lld.\n", i,
            static_cast<long long>(m.meta().planned_buffer_sizes[i]));
  fprintf(stderr, "Model loaded in %.3f ms (delegate init %.3f ms); %llu of %llu bytes of the memory budget used.\n",
          ms_between(t_load, Clock::now()), m.load_stats().delegate_init_ms,
          static_cast<unsigned long long>(m.load_stats().budgeted_bytes),
          static_cast<unsigned long long>(m.load_stats().memory_budget_bytes));
  print_placements(m);
  m.set_profiling(flags.profile);

  if (bundled && flags.compare_with_cpu) {
    fprintf(stderr, "error: --compare_with_cpu does not apply to a bundled program: it is checked against its own "
                    "expected outputs\n");
    return 1;
  }
  if (bundled) {
    const BundledTestSuite* suite = bundled->find_suite(method_name);
    if (!suite) {
      fprintf(stderr, "error: the bundled program has no test suite for method %s\n", method_name.c_str());
      return 1;
    }
    size_t failed = 0;
    for (size_t c = 0; c < suite->test_cases.size(); ++c) {
      const auto& tc = suite->test_cases[c];
      etdump.set_bundled_input_index(int32_t(c));
      Status s = load_bundled_inputs(m, tc);
      if (s.is_ok()) s = m.execute();
      if (!s.is_ok()) return fail("bundled test case " + std::to_string(c), s);
      auto cmp = verify_bundled_outputs(m, tc, flags.bundleio_rtol, flags.bundleio_atol);
      if (!cmp.ok()) return fail("bundled test case " + std::to_string(c), cmp.status());
      printf("mean_absolute_error %g, max_absolute_error %g, mean_relative_error %g, max_relative_error %g\n",
             cmp->mean_abs_error, cmp->max_abs_error, cmp->mean_rel_error, cmp->max_rel_error);
      printf("TEST: BundleIO index[%zu] Test_result: %s%s%s\n", c, cmp->pass ? "PASS" : "FAIL",
             cmp->pass ? "" : " — ", cmp->message.c_str());
      failed += cmp->pass ? 0 : 1;
    }
    print_notices(m);
    print_outputs(m, flags.print_output);
    if (!flags.etdump_path.empty()) {
      Status s = write_etdump(etdump, flags);
      if (!s.is_ok()) return fail("writing the ETDump", s);
    }
    printf("%zu passed, %zu failed\n", suite->test_cases.size() - failed, failed);
    return failed ? 1 : 0;
  }

  InputStore store;
  Status s = set_inputs(m, flags, store);
  if (!s.is_ok()) return fail("setting inputs of method " + method_name, s);

  runner::RunStats runs;
  for (uint32_t i = 0; i < flags.num_executions; ++i) {
    auto t0 = Clock::now();
    s = m.execute();
    runs.add(ms_between(t0, Clock::now()));
    if (!s.is_ok()) return fail("execution of method " + method_name + " failed", s);
  }
  fprintf(stderr, "Model executed successfully %u time(s).\n", flags.num_executions);
  print_notices(m);
  print_timing(runs);
  fprintf(stderr, "%zu outputs:\n", m.num_outputs());
  print_outputs(m, flags.print_output);
  if (!flags.output_file.empty()) {
    s = write_outputs(m, flags.output_file);
    if (!s.is_ok()) return fail("writing outputs", s);
  }
  if (flags.profile) print_profile(m);
  if (!flags.etdump_path.empty()) {
    s = write_etdump(etdump, flags);
    if (!s.is_ok()) return fail("writing the ETDump", s);
  }
  options.event_tracer = nullptr;  // the comparison run is not part of the ETDump
  if (flags.compare_with_cpu) return compare_with_cpu_executor(m, method_name, flags, options);
  return 0;
}

// The fixes above keep exceptions away from untrusted data; this is the last resort, so that
// nothing escapes as an abort (exit 134): any exception is one line and exit 1.
int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "error: %s\n", e.what());
  } catch (...) {
    fprintf(stderr, "error: unknown exception\n");
  }
  return 1;
}
