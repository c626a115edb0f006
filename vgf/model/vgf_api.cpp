// The public VGF API (vkrt/vgf.h): VgfModel (a decoded file with its graphs), VgfSession (a
// ModelRunner with the model's I/O order), options, and wrapping a VGF into a program.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "vgf/format/vgf_file.h"
#include "vgf/ir/shape_inference.h"
#include "vgf/model/model_runner.h"
#include "vgf/segment_graph.h"
#include "vkrt/thread_pool.h"
#include "vkrt/vgf.h"

namespace vkrt {

using vgf::kDynamicDim;

// ---- Options ----

std::string VgfPlacement::describe() const {
  std::string line = "segment '" + segment + "' (" + (compute ? "COMPUTE" : "GRAPH") + "): " + executor;
  if (!device.empty()) line += " on " + device;
  if (!reason.empty()) line += " (" + reason + ")";
  return line;
}

// ---- VgfModel ----

struct VgfModel::Impl {
  std::vector<uint8_t> bytes;
  vgf::VgfFile file;  // points into `bytes`
  std::vector<vgf::Graph> graphs;  // per segment; empty graphs for COMPUTE segments
  std::vector<VgfTensorInfo> inputs, outputs;
  std::vector<VgfSegmentInfo> segments;
};

namespace {

// What a file that is not a VGF looks like, for the error.
std::string describe_magic(std::span<const uint8_t> bytes) {
  if (bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "ET", 2) == 0)
    return "it is an ExecuTorch program (.pte): run it as a program";
  if (bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "BP", 2) == 0)
    return "it is an ExecuTorch bundled program (.bpte)";
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "\x7f" "ELF", 4) == 0) return "it is an ELF executable";
  if (bytes.size() >= 4 && bytes[0] == 0x03 && bytes[1] == 0x02 && bytes[2] == 0x23 && bytes[3] == 0x07)
    return "it is a bare SPIR-V module, not a VGF container";
  return "its first bytes are not the VGF magic 'VGF1'";
}

std::string resource_kind(uint32_t descriptor_type) {
  if (vgf::is_image_descriptor_type(descriptor_type)) return "image";
  if (descriptor_type == vgf::kVkDescriptorTypeStorageBuffer) return "buffer";
  return "tensor";
}

Result<VgfTensorInfo> tensor_info(const vgf::VgfFile& f, const vgf::VgfBindingSlot& slot, uint32_t argument,
                                  const std::vector<std::string>& names, size_t position) {
  VKRT_ASSIGN_OR_RETURN(vgf::ResourceHostType type, vgf::resource_host_type(f, slot.mrt_index));
  VgfTensorInfo info;
  if (position < names.size()) info.name = names[position];
  info.dtype = type.scalar;
  for (int64_t d : type.shape) info.shape.push_back(d == kDynamicDim ? -1 : d);
  info.resource = slot.mrt_index;
  info.argument = argument;
  info.kind = resource_kind(f.resources[slot.mrt_index].vk_descriptor_type);
  return info;
}

Result<std::vector<uint8_t>> read_whole_file(const std::string& path) {
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (fp == nullptr) {
    return make_error(errno == ENOENT ? Error::NotFound : Error::AccessFailed, "cannot open '", path,
                      "': ", std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
    std::fclose(fp);
    return make_error(Error::AccessFailed, "'", path, "' is not a regular file");
  }
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(size_t(st.st_size));
  } catch (const std::bad_alloc&) {
    std::fclose(fp);
    return make_error(Error::MemoryAllocationFailed, "'", path, "': ", uint64_t(st.st_size), " bytes");
  }
  const size_t got = bytes.empty() ? 0 : std::fread(bytes.data(), 1, bytes.size(), fp);
  const bool failed = std::ferror(fp) != 0;
  std::fclose(fp);
  VKRT_CHECK_OR_RETURN(!failed && got == bytes.size(), AccessFailed, "cannot read '", path, "'");
  return bytes;
}

}  // namespace

Result<VgfModel> VgfModel::from_bytes(std::vector<uint8_t> bytes) {
  auto impl = std::make_shared<Impl>();
  impl->bytes = std::move(bytes);
  const std::span<const uint8_t> view(impl->bytes);
  const bool magic = view.size() >= 4 && (std::memcmp(view.data(), "VGF1", 4) == 0 ||
                                          std::memcmp(view.data(), "\xC3\xD2\xE1\xF0", 4) == 0);
  VKRT_CHECK_OR_RETURN(magic, InvalidProgram, "not a VGF file: ", describe_magic(view));
  VKRT_ASSIGN_OR_RETURN(impl->file, vgf::decode_vgf(view));
  const vgf::VgfFile& f = impl->file;
  VKRT_CHECK_OR_RETURN(!f.segments.empty(), InvalidProgram, "VGF has no segments");
  for (size_t k = 0; k < f.inputs.size(); ++k) {
    VKRT_ASSIGN_OR_RETURN(VgfTensorInfo info, tensor_info(f, f.inputs[k], f.inputs[k].binding, f.input_names,
                                                          f.inputs[k].binding));
    impl->inputs.push_back(std::move(info));
  }
  for (size_t j = 0; j < f.outputs.size(); ++j) {
    VKRT_ASSIGN_OR_RETURN(VgfTensorInfo info, tensor_info(f, f.outputs[j], uint32_t(j), f.output_names, j));
    impl->outputs.push_back(std::move(info));
  }
  impl->graphs.resize(f.segments.size());
  for (size_t s = 0; s < f.segments.size(); ++s) {
    const vgf::VgfSegment& seg = f.segments[s];
    VgfSegmentInfo info;
    info.name = seg.name;
    info.compute = seg.type == vgf::ModuleType::Compute;
    info.dispatch_shape = seg.dispatch_shape;
    if (!info.compute) {
      auto graph = vgf::build_segment_graph(f, s);
      if (!graph.ok()) return Status(graph.status()).with_context("VGF segment '" + seg.name + "'");
      impl->graphs[s] = std::move(graph).value();
      for (const vgf::Op& op : impl->graphs[s].ops) info.ops.push_back(vgf::op_name(op.kind));
      for (const vgf::GraphIO& io : impl->graphs[s].inputs) info.input_resources.push_back(io.mrt_index);
      for (const vgf::GraphIO& io : impl->graphs[s].outputs) info.output_resources.push_back(io.mrt_index);
    } else {
      for (const vgf::VgfBindingSlot& b : seg.inputs) info.input_resources.push_back(b.mrt_index);
      for (const vgf::VgfBindingSlot& b : seg.outputs) info.output_resources.push_back(b.mrt_index);
    }
    impl->segments.push_back(std::move(info));
  }
  return VgfModel(std::move(impl));
}

Result<VgfModel> VgfModel::load(const std::string& path) {
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_whole_file(path));
  auto model = from_bytes(std::move(bytes));
  if (!model.ok()) return Status(model.status()).with_context(path);
  return model;
}

const std::vector<VgfTensorInfo>& VgfModel::inputs() const { return impl_->inputs; }
const std::vector<VgfTensorInfo>& VgfModel::outputs() const { return impl_->outputs; }
const std::vector<VgfSegmentInfo>& VgfModel::segments() const { return impl_->segments; }
std::span<const uint8_t> VgfModel::bytes() const { return impl_->bytes; }

std::string VgfModel::format_version() const {
  const vgf::VgfVersion& v = impl_->file.version;
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

Result<std::vector<std::vector<int64_t>>> VgfModel::output_shapes(
    std::span<const std::vector<int64_t>> input_shapes) const {
  const vgf::VgfFile& f = impl_->file;
  VKRT_CHECK_OR_RETURN(input_shapes.size() == impl_->inputs.size(), InvalidArgument, input_shapes.size(),
                       " input shapes given, the VGF has ", impl_->inputs.size(), " inputs");
  // The shape each resource has for these inputs, segment by segment.
  std::map<uint32_t, vgf::Shape> known;
  for (size_t k = 0; k < input_shapes.size(); ++k) {
    const VgfTensorInfo& in = impl_->inputs[k];
    const std::vector<int64_t>& shape = input_shapes[k];
    VKRT_CHECK_OR_RETURN(shape.size() == in.shape.size(), InvalidArgument, "input ", k, " ('", in.name, "'): rank ",
                         shape.size(), ", the VGF declares rank ", in.shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      VKRT_CHECK_OR_RETURN(shape[d] >= 0 && shape[d] <= INT32_MAX, InvalidArgument, "input ", k, ": dimension ", d,
                           " = ", shape[d]);
      VKRT_CHECK_OR_RETURN(in.shape[d] < 0 || in.shape[d] == shape[d], InvalidArgument, "input ", k, " ('", in.name,
                           "'): dimension ", d, " is ", shape[d], ", the VGF fixes it at ", in.shape[d]);
    }
    known[in.resource] = shape;
  }
  auto resource_shape = [&](uint32_t mrt) -> Result<vgf::Shape> {
    if (auto it = known.find(mrt); it != known.end()) return it->second;
    VKRT_ASSIGN_OR_RETURN(vgf::ResourceHostType type, vgf::resource_host_type(f, mrt));
    return type.shape;  // may hold kDynamicDim: a graph input then fails in infer_shapes
  };
  for (size_t s = 0; s < f.segments.size(); ++s) {
    if (f.segments[s].type == vgf::ModuleType::Compute) {
      for (const vgf::VgfBindingSlot& b : f.segments[s].outputs) {
        VKRT_ASSIGN_OR_RETURN(known[b.mrt_index], resource_shape(b.mrt_index));
      }
      continue;
    }
    const vgf::Graph& graph = impl_->graphs[s];
    std::vector<vgf::Shape> in_shapes;
    for (const vgf::GraphIO& io : graph.inputs) {
      VKRT_ASSIGN_OR_RETURN(vgf::Shape shape, resource_shape(io.mrt_index));
      in_shapes.push_back(std::move(shape));
    }
    auto shapes = vgf::infer_shapes(graph, in_shapes);
    if (!shapes.ok()) return Status(shapes.status()).with_context("VGF segment '" + f.segments[s].name + "'");
    for (const vgf::GraphIO& io : graph.outputs) known[io.mrt_index] = (*shapes)[io.tensor];
  }
  std::vector<std::vector<int64_t>> out;
  for (const VgfTensorInfo& o : impl_->outputs) {
    VKRT_ASSIGN_OR_RETURN(vgf::Shape shape, resource_shape(o.resource));
    for (int64_t d : shape) {
      VKRT_CHECK_OR_RETURN(d >= 0, InvalidProgram, "output ", o.argument, ": its shape is not determined by the inputs");
    }
    out.push_back(std::move(shape));
  }
  return out;
}

// ---- VgfSession ----

struct VgfSession::Impl {
  std::shared_ptr<const VgfModel::Impl> model;  // keeps the file the runner reads alive
  VgfOptions options;  // as given; the runner's executors read them
  MemoryBudget budget{0};
  std::unique_ptr<ThreadPool> threads;  // null for one thread
  std::unique_ptr<KernelContext> kernel_context;
  vgf::ModelRunner runner;
  std::vector<Tensor*> inputs, outputs;
};

VgfSession::VgfSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VgfSession::~VgfSession() = default;

Result<std::unique_ptr<VgfSession>> VgfSession::create(const VgfModel& model, const VgfOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->model = model.impl_;
  VKRT_RETURN_IF_ERROR(check_vgf_options(options));
  impl->options = options;
  impl->budget = MemoryBudget(options.memory_budget_bytes ? options.memory_budget_bytes : default_memory_budget_bytes());
  // The threads first: the CPU executor sizes its scratch for them at prepare.
  if (options.num_threads > 1) impl->threads = std::make_unique<ThreadPool>(options.num_threads);
  vgf::ModelRunnerOptions ro;
  ro.options = &impl->options;
  ro.memory_budget = &impl->budget;
  ro.num_threads = impl->threads ? impl->threads->num_threads() : 1;
  VKRT_RETURN_IF_ERROR(impl->runner.prepare(impl->model->file, ro));
  // No temp pool: the CPU executor plans its own scratch at prepare.
  impl->kernel_context = std::make_unique<KernelContext>(nullptr, impl->threads.get());
  impl->inputs.resize(model.inputs().size());
  impl->outputs.resize(model.outputs().size());
  return std::unique_ptr<VgfSession>(new VgfSession(std::move(impl)));
}

Status VgfSession::run(std::span<const Tensor* const> inputs, std::span<Tensor* const> outputs) {
  VKRT_CHECK_OR_RETURN(inputs.size() == impl_->inputs.size() && outputs.size() == impl_->outputs.size(),
                       InvalidArgument, "VgfSession::run: ", inputs.size(), " inputs and ", outputs.size(),
                       " outputs given, the model has ", impl_->inputs.size(), " and ", impl_->outputs.size());
  // The runner takes mutable views (alias groups may share an input's storage); it never
  // writes a model input.
  for (size_t k = 0; k < inputs.size(); ++k) impl_->inputs[k] = const_cast<Tensor*>(inputs[k]);
  for (size_t j = 0; j < outputs.size(); ++j) impl_->outputs[j] = outputs[j];
  return impl_->runner.run(impl_->inputs, impl_->outputs, impl_->kernel_context.get());
}

const std::vector<VgfPlacement>& VgfSession::placements() const { return impl_->runner.placements(); }
std::vector<DelegateProfileEntry> VgfSession::profile() const { return impl_->runner.op_profile(); }

}  // namespace vkrt
