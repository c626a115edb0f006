// executor_runner's path for raw VGF files (see vgf_file_run.h).
#include "executor_runner/vgf_file_run.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "executor_runner/inputs.h"
#include "vkrt/memory_budget.h"
#include "vkrt/vgf.h"

namespace vkrt::runner {
namespace {

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + (shape[d] < 0 ? std::string("?") : std::to_string(shape[d]));
  return s + "]";
}

bool is_dynamic(const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    if (d < 0) return true;
  }
  return false;
}

void print_vgf_list(const VgfModel& model) {
  printf("VGF format %s: %zu segments, %zu inputs, %zu outputs\n", model.format_version().c_str(),
         model.segments().size(), model.inputs().size(), model.outputs().size());
  for (size_t s = 0; s < model.segments().size(); ++s) {
    const VgfSegmentInfo& seg = model.segments()[s];
    if (seg.compute) {
      printf("  segment %zu '%s': COMPUTE, dispatch [%u, %u, %u]\n", s, seg.name.c_str(), seg.dispatch_shape[0],
             seg.dispatch_shape[1], seg.dispatch_shape[2]);
    } else {
      printf("  segment %zu '%s': GRAPH, %zu ops\n", s, seg.name.c_str(), seg.ops.size());
      for (size_t i = 0; i < seg.ops.size(); ++i) printf("    op %zu %s\n", i, seg.ops[i].c_str());
    }
  }
  auto describe = [](const char* role, size_t i, const VgfTensorInfo& t) {
    printf("  %s %zu: %s %s%s, %s (resource %u)%s%s\n", role, i, scalar_type_name(t.dtype), shape_text(t.shape).c_str(),
           is_dynamic(t.shape) ? " (? = dynamic)" : "", t.kind.c_str(), t.resource, t.name.empty() ? "" : ", name ",
           t.name.c_str());
  };
  for (size_t i = 0; i < model.inputs().size(); ++i) describe("input", i, model.inputs()[i]);
  for (size_t j = 0; j < model.outputs().size(); ++j) describe("output", j, model.outputs()[j]);
}

// "1,32,32,8;1,10" -> one shape per input.
Result<std::vector<std::vector<int64_t>>> parse_input_shapes(const std::string& text, size_t inputs) {
  std::vector<std::vector<int64_t>> shapes;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    std::vector<int64_t> shape;
    for (const std::string& dim : split_commas(text.substr(start, end - start))) {
      int64_t v = -1;
      auto [ptr, ec] = std::from_chars(dim.data(), dim.data() + dim.size(), v);
      if (ec != std::errc() || ptr != dim.data() + dim.size() || v < 0 || v > INT32_MAX)
        return make_error(Error::InvalidArgument, "--input_shapes: '", dim, "' is not a dimension (0 to 2147483647)");
      shape.push_back(v);
    }
    shapes.push_back(std::move(shape));
    start = end + 1;
  }
  VKRT_CHECK_OR_RETURN(shapes.size() == inputs, InvalidArgument, "--input_shapes gives ", shapes.size(),
                       " shapes, the VGF has ", inputs, " inputs");
  return shapes;
}

// Inputs and outputs of one run: host tensors over owned buffers.
struct HostTensors {
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Tensor> tensors;
  std::vector<Tensor*> pointers;
};

Result<HostTensors> make_inputs(const VgfModel& model, const Flags& flags, std::vector<std::vector<int64_t>>& shapes,
                                uint64_t byte_limit) {
  const auto& inputs = model.inputs();
  const std::vector<std::string> files = split_commas(flags.inputs);
  VKRT_CHECK_OR_RETURN(flags.inputs.empty() || files.size() == inputs.size(), InvalidArgument, "--inputs names ",
                       files.size(), " files, the VGF has ", inputs.size(), " inputs");
  HostTensors host;
  host.buffers.resize(inputs.size());
  host.tensors.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const VgfTensorInfo& in = inputs[i];
    ValueInfo info;
    info.tag = Tag::Tensor;
    info.dtype = in.dtype;
    const bool shape_given = !shapes[i].empty() || (in.shape.empty() && !flags.input_shapes.empty());
    const std::vector<int64_t>& shape = shape_given ? shapes[i] : in.shape;
    const bool dynamic = is_dynamic(shape);
    uint64_t nbytes = element_size(in.dtype);
    for (int64_t d : shape) {
      info.sizes.push_back(int32_t(d < 0 ? 0 : d));
      if (d >= 0 && __builtin_mul_overflow(nbytes, uint64_t(d), &nbytes)) nbytes = UINT64_MAX;
    }
    for (size_t d = 0; d < shape.size(); ++d) info.dim_order.push_back(uint8_t(d));
    if (dynamic) {
      // Only a .npy file can say the shape; read at most what the memory budget allows.
      VKRT_CHECK_OR_RETURN(!flags.inputs.empty(), InvalidArgument, "input ", i, " has dynamic dimensions ",
                           shape_text(in.shape), ": give its shape with --input_shapes or a .npy file with --inputs");
      info.dynamism = ShapeDynamism::DynamicUnbound;
      nbytes = byte_limit;
    }
    VKRT_CHECK_OR_RETURN(nbytes <= byte_limit, MemoryAllocationFailed, "input ", i, " needs ", nbytes,
                         " bytes, more than the memory budget (", byte_limit, ")");
    info.nbytes = size_t(nbytes);
    if (flags.inputs.empty()) {
      const std::vector<uint8_t> one = one_of(in.dtype);
      host.buffers[i].resize(info.nbytes);
      for (size_t k = 0; k + one.size() <= info.nbytes; k += one.size()) std::memcpy(&host.buffers[i][k], one.data(), one.size());
      VKRT_ASSIGN_OR_RETURN(host.tensors[i], Tensor::make(in.dtype, info.sizes, host.buffers[i].data()));
    } else {
      VKRT_ASSIGN_OR_RETURN(InputData data, read_input_file(files[i], info, i));
      VKRT_CHECK_OR_RETURN(data.is_npy || !dynamic, InvalidArgument, "input ", i, " (", files[i],
                           ") has dynamic dimensions: raw bytes need --input_shapes");
      host.buffers[i] = std::move(data.bytes);
      VKRT_ASSIGN_OR_RETURN(host.tensors[i],
                            input_tensor(data.npy_shape, data.is_npy, host.buffers[i], info, files[i], i));
    }
    const Tensor& t = host.tensors[i];
    shapes[i].assign(t.sizes().begin(), t.sizes().end());
  }
  for (Tensor& t : host.tensors) host.pointers.push_back(&t);
  return host;
}

// Output buffers at the inferred shapes, within `byte_limit` (the memory budget): a small input
// can ask for a large output (RESIZE, TILE), so the sizes are checked before anything is allocated.
Result<HostTensors> make_outputs(const VgfModel& model, const std::vector<std::vector<int64_t>>& shapes,
                                 uint64_t byte_limit) {
  HostTensors host;
  host.buffers.resize(shapes.size());
  host.tensors.resize(shapes.size());
  uint64_t total = 0;
  for (size_t j = 0; j < shapes.size(); ++j) {
    uint64_t bytes = element_size(model.outputs()[j].dtype);
    for (int64_t d : shapes[j]) {
      VKRT_CHECK_OR_RETURN(d >= 0 && d <= INT32_MAX, InvalidArgument, "output ", j, ": dimension ", d);
      if (__builtin_mul_overflow(bytes, uint64_t(d), &bytes)) bytes = UINT64_MAX;
    }
    if (__builtin_add_overflow(total, bytes, &total)) total = UINT64_MAX;
    VKRT_CHECK_OR_RETURN(total <= byte_limit, MemoryAllocationFailed, "output ", j, " ", shape_text(shapes[j]),
                         " would take the outputs past the memory budget (", byte_limit, " bytes)");
  }
  for (size_t j = 0; j < shapes.size(); ++j) {
    std::vector<int32_t> sizes(shapes[j].begin(), shapes[j].end());
    size_t bytes = element_size(model.outputs()[j].dtype);
    for (int32_t d : sizes) bytes *= size_t(d);  // checked above
    host.buffers[j].assign(bytes ? bytes : 1, 0);
    VKRT_ASSIGN_OR_RETURN(host.tensors[j], Tensor::make(model.outputs()[j].dtype, sizes, host.buffers[j].data()));
  }
  for (Tensor& t : host.tensors) host.pointers.push_back(&t);
  return host;
}

std::vector<const Tensor*> const_view(const HostTensors& h) {
  return std::vector<const Tensor*>(h.pointers.begin(), h.pointers.end());
}

// Flags that do not apply to a VGF file: an error each, never silently ignored.
Status check_flags(const Flags& flags) {
  VKRT_CHECK_OR_RETURN(flags.method_name.empty(), InvalidArgument,
                       "--method_name: a VGF file has no methods (it is one model sequence)");
  VKRT_CHECK_OR_RETURN(flags.data_path.empty(), InvalidArgument, "--data_path: a VGF file holds its own constants");
  VKRT_CHECK_OR_RETURN(flags.etdump_path.empty(), InvalidArgument,
                       "--etdump_path records a program's instructions, and a VGF file has none: wrap it into a program "
                       "(vkrt::VgfModel::to_pte) to trace it");
  VKRT_CHECK_OR_RETURN(flags.ethosu_driver.empty(), InvalidArgument, "--ethosu_driver: a VGF file has no Ethos-U part");
  return Status::ok();
}

}  // namespace

int run_vgf_file(const Flags& flags) {
  Status s = check_flags(flags);
  if (!s.is_ok()) return fail("VGF file " + flags.model_path, s);
  const auto t_load = Clock::now();
  auto model = VgfModel::load(flags.model_path);
  if (!model.ok()) return fail("cannot load " + flags.model_path, model.status());
  fprintf(stderr, "VGF file %s is loaded (format %s, %zu segments).\n", flags.model_path.c_str(),
          model->format_version().c_str(), model->segments().size());
  if (flags.list) {
    print_vgf_list(*model);
    return 0;
  }

  // The same options a program's VgfBackend gets: --backend_option keys, else the environment.
  BackendOptions backend_options;
  for (const std::string& kv : flags.backend_options) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return fail("--backend_option", make_error(Error::InvalidArgument, "'", kv, "' is not KEY=VALUE"));
    backend_options.set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  auto parsed = parse_vgf_options(backend_options);
  if (!parsed.ok()) return fail("--backend_option", parsed.status());
  VgfOptions options = std::move(parsed).value();
  if (!flags.vgf_executor.empty()) {
    auto choice = parse_vgf_executor(flags.vgf_executor);
    if (!choice.ok()) return fail("--vgf_executor", choice.status());
    options.executor = *choice;
  }
  if (!flags.device.empty()) options.device = flags.device;
  if (flags.profile) options.profile = true;
  options.num_threads = std::max(1, flags.num_threads);
  options.memory_budget_bytes = default_memory_budget_bytes();
  if (!flags.memory_budget.empty()) {
    auto budget = parse_byte_count(flags.memory_budget, "--memory_budget");
    if (!budget.ok()) return fail("--memory_budget", budget.status());
    options.memory_budget_bytes = *budget;
  }

  std::vector<std::vector<int64_t>> input_shapes(model->inputs().size());
  if (!flags.input_shapes.empty()) {
    auto parsed = parse_input_shapes(flags.input_shapes, model->inputs().size());
    if (!parsed.ok()) return fail("VGF file " + flags.model_path, parsed.status());
    input_shapes = std::move(parsed).value();
  }
  auto inputs = make_inputs(*model, flags, input_shapes, options.memory_budget_bytes);
  if (!inputs.ok()) return fail("setting inputs of " + flags.model_path, inputs.status());
  auto output_shapes = model->output_shapes(input_shapes);
  if (!output_shapes.ok()) return fail("inputs of " + flags.model_path, output_shapes.status());
  auto outputs = make_outputs(*model, *output_shapes, options.memory_budget_bytes);
  if (!outputs.ok()) return fail("outputs of " + flags.model_path, outputs.status());

  auto session = VgfSession::create(*model, options);
  if (!session.ok()) return fail("preparing " + flags.model_path, session.status());
  for (const VgfPlacement& p : (*session)->placements()) fprintf(stderr, "vkrt: %s\n", p.describe().c_str());
  fprintf(stderr, "Model loaded in %.3f ms.\n", ms_between(t_load, Clock::now()));

  const std::vector<const Tensor*> in = const_view(*inputs);
  RunStats runs;
  for (uint32_t i = 0; i < flags.num_executions; ++i) {
    const auto t0 = Clock::now();
    s = (*session)->run(in, outputs->pointers);
    runs.add(ms_between(t0, Clock::now()));
    if (!s.is_ok()) return fail("execution of " + flags.model_path + " failed", s);
  }
  fprintf(stderr, "Model executed successfully %u time(s).\n", flags.num_executions);
  print_timing(runs);
  fprintf(stderr, "%zu outputs:\n", outputs->tensors.size());
  for (size_t j = 0; j < outputs->tensors.size(); ++j)
    print_output(j, EValue::from_tensor(&outputs->tensors[j]), flags.print_output);
  if (!flags.output_file.empty()) {
    for (size_t j = 0; j < outputs->tensors.size(); ++j) {
      const std::string path = flags.output_file + "-" + std::to_string(j) + ".npy";
      auto npy = encode_npy(outputs->tensors[j]);
      if (npy.ok()) s = write_file(path, npy->data(), npy->size());
      if (!npy.ok() || !s.is_ok()) return fail("writing outputs", npy.ok() ? s : npy.status());
      fprintf(stderr, "Wrote output %zu to %s (%zu bytes)\n", j, path.c_str(), npy->size());
    }
  }
  if (flags.profile) {
    fprintf(stderr, "%-5s %-62s %12s\n", "#", "step (last run)", "ms");
    const auto steps = (*session)->profile();
    for (size_t i = 0; i < steps.size(); ++i)
      fprintf(stderr, "%-5zu %-62s %12.3f\n", i, steps[i].name.c_str(), steps[i].time_ms);
  }
  if (!flags.compare_with_cpu) return 0;

  VgfOptions cpu_options = options;
  cpu_options.executor = VgfExecutor::Cpu;
  cpu_options.profile = false;
  auto cpu = VgfSession::create(*model, cpu_options);
  if (!cpu.ok()) return fail("--compare_with_cpu: the CPU executor", cpu.status());
  auto cpu_outputs = make_outputs(*model, *output_shapes, options.memory_budget_bytes);
  if (!cpu_outputs.ok()) return fail("--compare_with_cpu", cpu_outputs.status());
  s = (*cpu)->run(in, cpu_outputs->pointers);
  if (!s.is_ok()) return fail("--compare_with_cpu: the CPU executor's run", s);
  std::vector<OutputComparison> results;
  for (size_t j = 0; j < outputs->tensors.size(); ++j) {
    const Tensor& got = outputs->tensors[j];
    const Tensor& want = cpu_outputs->tensors[j];
    OutputComparer cmp(flags.bundleio_rtol, flags.bundleio_atol);
    if (!got.same_layout(want)) {
      cmp.fail("output " + std::to_string(j) + ": shapes differ");
    } else {
      cmp.compare_tensor("output " + std::to_string(j), got.dtype(), got.numel(), got.data(), want.data());
    }
    results.push_back(cmp.result());
  }
  bool all_cpu = true;
  for (const VgfPlacement& p : (*session)->placements()) all_cpu = all_cpu && p.executor == "cpu";
  return report_comparisons(results, flags, all_cpu ? " every segment already ran on the CPU executor" : "");
}

}  // namespace vkrt::runner
