// VgfBackend's public header: its options, and the API that runs a VGF file directly.
//
// A VGF (Arm ML SDK for Vulkan) holds a model sequence: GRAPH segments (TOSA graphs as SPIR-V,
// run by vkrt's Vulkan or CPU graph executor) and COMPUTE segments (SPIR-V compute shaders, run
// on Vulkan), resources between them, and constants. The same code runs it whether it arrives as
// a VgfBackend delegate inside a .pte or as a .vgf file:
//
//   auto model = vkrt::VgfModel::load("model.vgf");          // decode, build every graph
//   auto shapes = model->output_shapes({{1, 224, 224, 3}});  // dynamic dims from input shapes
//   auto session = vkrt::VgfSession::create(*model, {});     // executors chosen and prepared
//   session->run(inputs, outputs);                            // host tensors in and out
//   auto pte = model->to_pte({{1, 224, 224, 3}});            // or wrap it into a program
//
// Executor choice ("auto", the default): COMPUTE segments need Vulkan, so a VGF with any runs
// wholly on Vulkan; otherwise the Vulkan device when it is a GPU, the CPU executor when there is
// no Vulkan device or the only one is a CPU implementation such as lavapipe (the CPU executor
// runs the same graph faster on the same cores) unless a device was named; and a graph segment
// the Vulkan executor refuses runs on the CPU. placements() says what ran where.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vkrt/backend.h"
#include "vkrt/error.h"
#include "vkrt/kernel.h"
#include "vkrt/scalar_type.h"
#include "vkrt/tensor.h"

namespace vkrt {

inline constexpr std::string_view kVgfBackendName = "VgfBackend";

// ---- Options ----

enum class VgfExecutor : uint8_t { Auto, Cpu, Vulkan };
// "auto", "cpu", "vulkan".
const char* vgf_executor_name(VgfExecutor executor);
// "" and "auto" -> Auto; InvalidArgument naming the value otherwise.
Result<VgfExecutor> parse_vgf_executor(std::string_view text);

// VgfBackend's backend-option keys (BackendOptions; executor_runner --backend_option KEY=VALUE).
inline constexpr std::string_view kVgfExecutorOption = "VgfBackend.executor";  // auto | cpu | vulkan
inline constexpr std::string_view kVgfDeviceOption = "VgfBackend.device";      // index or name substring
inline constexpr std::string_view kVgfProfileOption = "VgfBackend.profile";    // 1: time each dispatch

struct VgfOptions {
  VgfExecutor executor = VgfExecutor::Auto;
  // Vulkan device: an index or a name substring; "" = env VKRT_VULKAN_DEVICE, else the first
  // discrete GPU, integrated GPU, then CPU implementation.
  std::string device;
  // Time every Vulkan dispatch (GPU timestamps) and every CPU-executor op; VgfSession::profile().
  bool profile = false;
  // Threads for the CPU executor's convolutions and RESCALE (1 = the calling thread only).
  int num_threads = 1;
  // Most bytes the session may allocate for what the file asks (intermediates); 0 = half of
  // physical memory.
  uint64_t memory_budget_bytes = 0;
  // Further "VgfBackend.*" options (docs/vgf.md), passed through to the executors.
  BackendOptions extra;

  // These options as "VgfBackend.*" backend options (what VgfBackend reads inside a program).
  BackendOptions to_backend_options() const;
};

// ---- A loaded VGF ----

struct VgfTensorInfo {
  std::string name;             // from the file's input/output names ("input_0"); may be empty
  ScalarType dtype = ScalarType::Float;  // host element type (images: the component type)
  std::vector<int64_t> shape;   // outermost first; -1 = dynamic (set by the input shapes)
  uint32_t resource = 0;        // index in the file's model resource table
  // Inputs: the original model input index the converter bound it to (dropped inputs leave
  // gaps). Outputs: the output's position.
  uint32_t argument = 0;
  std::string kind;             // "tensor", "buffer", "image" (by descriptor type)
};

struct VgfSegmentInfo {
  std::string name;
  bool compute = false;                    // COMPUTE segment (a SPIR-V compute shader)
  std::vector<std::string> ops;            // GRAPH: TOSA op names in order
  std::array<uint32_t, 3> dispatch_shape{};  // COMPUTE: workgroup counts
  std::vector<uint32_t> input_resources, output_resources;
};

class VgfModel {
 public:
  // Reads and decodes a .vgf file, builds the graph of every GRAPH segment and checks it.
  // Errors: NotFound / AccessFailed for the file, InvalidProgram naming what is wrong (a file
  // that is not a VGF gets a message saying what its first bytes look like).
  static Result<VgfModel> load(const std::string& path);
  static Result<VgfModel> from_bytes(std::vector<uint8_t> bytes);

  const std::vector<VgfTensorInfo>& inputs() const;
  const std::vector<VgfTensorInfo>& outputs() const;
  const std::vector<VgfSegmentInfo>& segments() const;
  // "0.4.3".
  std::string format_version() const;
  std::span<const uint8_t> bytes() const;

  // Output shapes for input shapes (input_shapes[i] for inputs()[i]), by TOSA shape inference
  // through every segment. InvalidArgument naming the input and dimension that disagree with
  // the file.
  Result<std::vector<std::vector<int64_t>>> output_shapes(std::span<const std::vector<int64_t>> input_shapes) const;

  // A program (.pte bytes) whose method "forward" takes the model's inputs at `input_shapes`,
  // calls VgfBackend with this VGF and returns its outputs; runnable by executor_runner.
  Result<std::vector<uint8_t>> to_pte(std::span<const std::vector<int64_t>> input_shapes) const;

  struct Impl;

 private:
  friend class VgfSession;
  explicit VgfModel(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// ---- Running it ----

struct VgfPlacement {
  std::string segment;   // segment name
  bool compute = false;
  std::string executor;  // "vulkan" or "cpu"
  std::string device;    // the Vulkan device's name; "" on the CPU
  std::string reason;    // why auto chose it, when it did not take the default ("" otherwise)
  // One line: "segment 'graph_segment_0' (GRAPH, 52 ops): vulkan on NVIDIA H100 ...".
  std::string describe() const;
};

class VgfSession {
 public:
  ~VgfSession();
  VgfSession(const VgfSession&) = delete;
  VgfSession& operator=(const VgfSession&) = delete;

  // Chooses an executor per segment and prepares it (pipelines, memory). The model is shared,
  // not copied; it may be destroyed before the session.
  static Result<std::unique_ptr<VgfSession>> create(const VgfModel& model, const VgfOptions& options);

  // Runs the model once. inputs[i] for model.inputs()[i], outputs[j] for outputs()[j]: host
  // tensors of the listed element types (any integer type of the same width for integers);
  // input shapes fix the dynamic dimensions, and outputs are resized to the inferred shapes
  // (their capacity must hold them).
  Status run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs);

  const std::vector<VgfPlacement>& placements() const;
  // Per-step times of the last run (with VgfOptions::profile): GPU time per Vulkan dispatch,
  // wall time per CPU-executor op.
  std::vector<DelegateProfileEntry> profile() const;

  struct Impl;

 private:
  explicit VgfSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Registers VgfBackend in the BackendRegistry (for programs that cannot link vkrt_vgf_backend
// whole); idempotent.
void register_vgf_backend();

}  // namespace vkrt
