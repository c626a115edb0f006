// VgfBackend's public header: its options, and the API that runs a VGF file directly.
//
// A VGF (Arm ML SDK for Vulkan) holds a model sequence: GRAPH segments (TOSA graphs as SPIR-V,
// run by vkrt's Vulkan or CPU graph executor) and COMPUTE segments (SPIR-V compute shaders, run
// on Vulkan), resources between them, and constants. The same code runs it whether it arrives as
// a VgfBackend delegate inside a .pte or as a .vgf file:
//
//   auto model = vkrt::VgfModel::load("model.vgf");          // decode, build every graph
//   auto shapes = model->output_shapes({{1, 224, 224, 3}});  // dynamic dims from input shapes
//   auto options = vkrt::parse_vgf_options({});              // defaults + VKRT_VULKAN_* env
//   auto session = vkrt::VgfSession::create(*model, *options);  // executors chosen, prepared
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
//
// Every option the VGF path understands is a field of VgfOptions, with a "VgfBackend.*" key
// (BackendOptions; executor_runner --backend_option KEY=VALUE) and, for most, an environment
// variable. parse_vgf_options() is the one place that reads either: a key that is present wins
// (even with an empty value), else the environment variable when it is set and not empty, else
// the default. Everything below it (VgfBackend, VgfSession, the executors, the Vulkan context,
// pipeline cache, variant selection, fusion) reads the typed fields only. The table with the
// same content is docs/vgf.md "Options".
//
// Booleans are spelled 1/0, true/false or on/off (exactly these, lower case); anything else is
// InvalidArgument naming the key (or environment variable) and the value, and so is any key that
// starts with "VgfBackend." and is not listed here. Keys of other backends are not looked at.

enum class VgfExecutor : uint8_t { Auto, Cpu, Vulkan };
// "auto", "cpu", "vulkan".
const char* vgf_executor_name(VgfExecutor executor);
// "" and "auto" -> Auto; InvalidArgument naming the value otherwise.
Result<VgfExecutor> parse_vgf_executor(std::string_view text);

// Which fast shader variants the Vulkan executor may use (docs/vulkan-executor.md "Fast
// variants"): Auto by device feature; Dot forces the int8 dot-product variants wherever the device
// has shaderIntegerDotProduct; Portable never uses a fast variant; Coopmat is Dot plus the
// cooperative-matrix GEMMs wherever they fit, CPU devices included. Dot and Portable also leave
// VK_KHR_cooperative_matrix disabled on the device.
enum class VgfVariants : uint8_t { Auto, Dot, Portable, Coopmat };
// "auto", "dot", "portable", "coopmat".
const char* vgf_variants_name(VgfVariants variants);
// "" and "auto" -> Auto; InvalidArgument naming the value otherwise.
Result<VgfVariants> parse_vgf_variants(std::string_view text);

// The cooperative-matrix layouts VgfOptions::coopmat may name (16b, 16x, 16y, 16z and 8b are
// tuning candidates, used only when named).
inline constexpr std::string_view kVgfCoopmatLayouts[] = {"16w", "16", "16b", "16x", "16y", "16z", "8w", "8", "8b"};

// VgfBackend's backend-option keys (each field of VgfOptions names its key and the environment
// variable read when the key is absent).
inline constexpr std::string_view kVgfOptionPrefix = "VgfBackend.";
inline constexpr std::string_view kVgfExecutorOption = "VgfBackend.executor";
inline constexpr std::string_view kVgfDeviceOption = "VgfBackend.device";
inline constexpr std::string_view kVgfProfileOption = "VgfBackend.profile";
inline constexpr std::string_view kVgfValidationOption = "VgfBackend.validation";
inline constexpr std::string_view kVgfPipelineCacheDirOption = "VgfBackend.pipeline_cache_dir";
inline constexpr std::string_view kVgfZeroCopyOption = "VgfBackend.zero_copy";
inline constexpr std::string_view kVgfFusionOption = "VgfBackend.fusion";
inline constexpr std::string_view kVgfFuseElementwiseOption = "VgfBackend.fuse_elementwise";
inline constexpr std::string_view kVgfVariantsOption = "VgfBackend.variants";
inline constexpr std::string_view kVgfCoopmatOption = "VgfBackend.coopmat";
inline constexpr std::string_view kVgfDumpChainsOption = "VgfBackend.dump_chains";
inline constexpr std::string_view kVgfNumThreadsOption = "VgfBackend.num_threads";
inline constexpr std::string_view kVgfMemoryBudgetOption = "VgfBackend.memory_budget_bytes";

struct VgfOptions {
  // Which graph executor runs GRAPH segments: auto | cpu | vulkan (docs/vgf.md "Which executor
  // runs a segment"). Key VgfBackend.executor; no environment variable.
  VgfExecutor executor = VgfExecutor::Auto;
  // Vulkan device: an index (enumeration order) or a case-insensitive name substring; "" = the
  // first discrete GPU, integrated GPU, virtual, then CPU implementation. A named device is used
  // by auto even when it is a CPU implementation. Key VgfBackend.device, env VKRT_VULKAN_DEVICE.
  std::string device;
  // Time every Vulkan dispatch (GPU timestamps) and every CPU-executor op: VgfSession::profile(),
  // Method profiling. Key VgfBackend.profile, env VKRT_VULKAN_PROFILE.
  bool profile = false;
  // Enable VK_LAYER_KHRONOS_validation (with synchronization validation where offered); messages
  // are printed and counted. Key VgfBackend.validation, env VKRT_VULKAN_VALIDATION.
  bool validation = false;
  // Directory of the persistent Vulkan pipeline cache (and of compiled elementwise chains); ""
  // = none. Key VgfBackend.pipeline_cache_dir ("off" or "" = none), env VKRT_VULKAN_CACHE_DIR
  // (likewise), else parse_vgf_options() fills in $XDG_CACHE_HOME/vkrt, else $HOME/.cache/vkrt.
  std::string pipeline_cache_dir;
  // Use host-visible device memory without staging copies where the device has it (unified
  // memory); false = staging copies everywhere (the discrete-GPU path). Key VgfBackend.zero_copy,
  // env VKRT_VULKAN_ZERO_COPY.
  bool zero_copy = true;
  // Fuse ops into one dispatch (CONV2D+RESCALE+CLAMP, ...); false = one dispatch per op, and no
  // elementwise chains either. Key VgfBackend.fusion; no environment variable.
  bool fusion = true;
  // Generated shaders for chains of elementwise ops (with fusion). Key
  // VgfBackend.fuse_elementwise, env VKRT_VULKAN_FUSE_ELEMENTWISE.
  bool fuse_elementwise = true;
  // Fast shader-variant policy (VgfVariants). Key VgfBackend.variants, env VKRT_VULKAN_VARIANTS.
  VgfVariants variants = VgfVariants::Auto;
  // The cooperative-matrix layout to use where it fits, one of kVgfCoopmatLayouts; "" = by GEMM
  // size (16w/8w where the GEMM fills at least 256 of their blocks, else 16/8). Key
  // VgfBackend.coopmat ("auto" or "" = by size), env VKRT_VULKAN_COOPMAT.
  std::string coopmat;
  // Print every generated elementwise-chain shader (GLSL) to stderr. Key VgfBackend.dump_chains,
  // env VKRT_VULKAN_DUMP_CHAINS.
  bool dump_chains = false;
  // VgfSession only (inside a program the method's threads are used): threads for the CPU
  // executor's convolutions and RESCALE, 1 to 1024 (1 = the calling thread only). Key
  // VgfBackend.num_threads; no environment variable.
  int num_threads = 1;
  // VgfSession only (inside a program the method's budget applies): most bytes the session may
  // allocate for what the file asks (intermediates, the CPU executor's packed weights and
  // kernel scratch); 0 = half of physical memory. Key
  // VgfBackend.memory_budget_bytes; no environment variable.
  uint64_t memory_budget_bytes = 0;

  // Every field as a "VgfBackend.*" backend option (what VgfBackend reads inside a program):
  // parse_vgf_options(o.to_backend_options()) == o whatever the environment holds.
  BackendOptions to_backend_options() const;
  bool operator==(const VgfOptions&) const = default;
};

// The options in `options` ("VgfBackend.*" keys; other keys are ignored), each absent one from its
// environment variable, else its default. InvalidArgument naming the key or variable and the
// value for a malformed value or an unknown "VgfBackend.*" key. The only place in the VGF path
// that reads the environment.
Result<VgfOptions> parse_vgf_options(const BackendOptions& options);
// InvalidArgument naming the field for a value out of its range (num_threads, coopmat); what
// VgfSession::create checks for options it did not parse.
Status check_vgf_options(const VgfOptions& options);

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
  // calls VgfBackend with this VGF and returns its outputs; runnable by executor_runner. Defined
  // in the library vkrt_vgf_to_pte, with the .pte writer (on vkrt::vkrt's link line).
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
  // not copied; it may be destroyed before the session. The options are used as given (checked
  // with check_vgf_options); the environment is not read here: start from
  // parse_vgf_options({}) for the VKRT_VULKAN_* variables to apply.
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
