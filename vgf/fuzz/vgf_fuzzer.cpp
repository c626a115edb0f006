// libFuzzer target: the VGF decoder, the public VGF API (model, output shapes, a CPU session
// with its executor choice, alias groups and intermediates), the SPIR-V graph reader (through
// each segment and on the raw input as words), shape inference, and the .tosa reader; every small static graph they
// accept then runs on the CPU executor (VKRT_FUZZ_CPU_EXECUTION, vgf/fuzz/execute_on_cpu.h: the
// TOSA kernels on untrusted shapes and constants), and where the Vulkan executor is built
// (VKRT_FUZZ_VULKAN_LOWERING) goes through its JIT short of the device
// (vgf/vulkan/fuzz/lower_for_fuzzing.h); with both, the two executors must accept the same graphs
// less their capability limits (vgf/fuzz/executors_agree.h). Every input must give a value or an error
// Status; ASan/UBSan (enabled with -fsanitize=fuzzer,address,undefined) flag the rest.
//   cmake -S . -B build-vgf-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
//         -DVKRT_BUILD_FUZZ=ON && cmake --build build-vgf-fuzz --target vgf_fuzzer
//   build-vgf-fuzz/vgf/vgf_fuzzer -max_total_time=60 corpus/ ../shared/conformance/vgf/container
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "vgf/format/vgf_file.h"
#include "vgf/ir/shape_inference.h"
#include "vgf/segment_graph.h"
#include "vgf/spirv/spirv_graph_reader.h"
#include "vgf/tosa_fb/tosa_reader.h"
#ifdef VKRT_FUZZ_CPU_EXECUTION
#include "vgf/fuzz/execute_on_cpu.h"
#include "vkrt/vgf.h"
#endif
#ifdef VKRT_FUZZ_VULKAN_LOWERING
#include "vgf/vulkan/fuzz/lower_for_fuzzing.h"
#endif
#if defined(VKRT_FUZZ_CPU_EXECUTION) && defined(VKRT_FUZZ_VULKAN_LOWERING)
#include <cstdio>
#include <cstdlib>

#include "vgf/fuzz/executors_agree.h"
#endif

namespace {
// What every graph a reader accepted goes through.
void lower(const vkrt::vgf::Graph& graph, std::span<const uint8_t> fuzz_bytes) {
#ifdef VKRT_FUZZ_CPU_EXECUTION
  vkrt::vgf::fuzzing::execute_on_cpu(graph, fuzz_bytes);
#endif
#ifdef VKRT_FUZZ_VULKAN_LOWERING
  (void)vkrt::vulkan::fuzzing::lower_for_vulkan(graph);
#endif
#if defined(VKRT_FUZZ_CPU_EXECUTION) && defined(VKRT_FUZZ_VULKAN_LOWERING)
  // Validate once: the executors accept the same graphs, less their capability limits.
  const std::string why = vkrt::vgf::fuzzing::disagreement(vkrt::vgf::fuzzing::executor_verdicts(graph));
  if (!why.empty()) {
    std::fprintf(stderr, "executors disagree on a validated graph: %s\n", why.c_str());
    std::abort();
  }
#endif
  (void)graph, (void)fuzz_bytes;
}
}  // namespace

#ifdef VKRT_FUZZ_CPU_EXECUTION
// The public VGF API on the whole file: the model (every segment's graph), output shapes at the
// declared input shapes (dynamic dims as 1), and a CPU session (executor choice, alias groups
// and intermediates against a small budget). Graphs are run by execute_on_cpu above.
void through_the_vgf_api(std::span<const uint8_t> bytes) {
  auto model = vkrt::VgfModel::from_bytes(std::vector<uint8_t>(bytes.begin(), bytes.end()));
  if (!model.ok()) return;
  std::vector<std::vector<int64_t>> shapes;
  for (const vkrt::VgfTensorInfo& in : model->inputs()) {
    shapes.push_back(in.shape);
    for (int64_t& d : shapes.back()) d = d < 0 ? 1 : d;
  }
  (void)model->output_shapes(shapes);
  vkrt::VgfOptions options;
  options.executor = vkrt::VgfExecutor::Cpu;
  options.memory_budget_bytes = 16 << 20;
  (void)vkrt::VgfSession::create(*model, options);
}
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vkrt::vgf;
  std::span<const uint8_t> bytes(data, size);
#ifdef VKRT_FUZZ_CPU_EXECUTION
  through_the_vgf_api(bytes);
#endif
  auto file = decode_vgf(bytes);
  if (file.ok()) {
    for (size_t i = 0; i < file->segments.size(); ++i) {
      auto graph = build_segment_graph(*file, i);
      if (graph.ok()) {
        (void)graph_is_static(*graph);
        lower(*graph, bytes);
      }
    }
  }
  // The input as a SPIR-V module (after the first 4 bytes pick nothing: all words are used).
  if (size % 4 == 0) {
    spirv::SpirvReadOptions options;
    std::vector<uint8_t> fake_constant(64, 0);
    options.resolve_graph_constant = [&](uint32_t) -> vkrt::Result<std::span<const uint8_t>> {
      return std::span<const uint8_t>(fake_constant);
    };
    auto graph = spirv::read_spirv_graph_bytes(bytes, options);
    if (graph.ok()) {
      Graph g = std::move(graph).value();
      if (infer_static_shapes(g).is_ok()) lower(g, bytes);
    }
  }
  // The input as a .tosa file (the reader wants an 8-aligned buffer).
  std::vector<uint64_t> aligned((size + 7) / 8);
  if (size) std::memcpy(aligned.data(), data, size);
  auto tosa = read_tosa_graph(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(aligned.data()), size));
  if (tosa.ok() && infer_static_shapes(*tosa).is_ok()) lower(*tosa, bytes);
  return 0;
}
