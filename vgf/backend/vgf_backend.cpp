// VgfBackend: runs ExecuTorch delegate payloads that are VGF files (vgf-format.md §5), registered
// in the runtime's BackendRegistry as "VgfBackend" when vkrt_vgf_backend is linked whole.
//
// init: decodes the VGF and prepares the model sequence (vgf/model/model_runner.h: executor per
// segment as vkrt/vgf.h describes "auto", intermediate and alias-group storage); one line per
// segment goes to the method's placements. execute: args are the delegate's inputs then
// outputs; model input k is the argument named by the VGF's model-input binding (the original
// input index), outputs map by position (§4), as ExecuTorch's VGFBackend.cpp does.
#include <memory>
#include <string>
#include <vector>

#include "vgf/format/vgf_file.h"
#include "vgf/model/model_runner.h"
#include "vkrt/backend.h"
#include "vkrt/vgf.h"

namespace vkrt::vgf {
namespace {

struct VgfDelegate final : DelegateHandle {
  VgfFile file;
  ModelRunner runner;  // references `file`; declared after it, destroyed first
  std::vector<Tensor*> inputs, outputs;  // per model input/output, bound per execute
};

class VgfBackend final : public Backend {
 public:
  std::string_view name() const override { return kVgfBackendName; }

  Result<std::unique_ptr<DelegateHandle>> init(BackendInitContext& ctx, std::span<const uint8_t> processed,
                                               std::span<const CompileSpec>) override {
    auto d = std::make_unique<VgfDelegate>();
    auto decoded = decode_vgf(processed);
    if (!decoded.ok()) return Status(decoded.status()).with_context("VgfBackend init");
    d->file = std::move(decoded).value();
    // The options, parsed once here (keys, else their environment variables); everything below
    // reads the typed fields.
    auto parsed = parse_vgf_options(ctx.options ? *ctx.options : BackendOptions());
    if (!parsed.ok()) return Status(parsed.status()).with_context("VgfBackend init");
    const VgfOptions vgf_options = std::move(parsed).value();
    ModelRunnerOptions options;
    options.options = &vgf_options;
    options.memory_budget = ctx.memory_budget;
    options.num_threads = ctx.num_threads;
    options.notices = ctx.notices;
    Status prepared = d->runner.prepare(d->file, options);
    if (!prepared.is_ok()) return std::move(prepared).with_context("VgfBackend");
    if (ctx.placements) {
      for (const VgfPlacement& p : d->runner.placements()) ctx.placements->push_back("VgfBackend " + p.describe());
    }
    d->inputs.resize(d->file.inputs.size());
    d->outputs.resize(d->file.outputs.size());
    return std::unique_ptr<DelegateHandle>(std::move(d));
  }

  Status execute(BackendExecuteContext& ctx, DelegateHandle& handle, std::span<EValue* const> args) override {
    auto& d = static_cast<VgfDelegate&>(handle);
    const VgfFile& f = d.file;
    VKRT_CHECK_OR_RETURN(args.size() >= f.outputs.size(), InvalidArgument, "VgfBackend: ", args.size(),
                         " arguments, the VGF has ", f.outputs.size(), " outputs");
    const size_t num_inputs = args.size() - f.outputs.size();
    for (size_t k = 0; k < args.size(); ++k) {
      VKRT_CHECK_OR_RETURN(args[k] != nullptr && args[k]->is_tensor(), InvalidArgument, "VgfBackend: argument ", k,
                           " is not a tensor");
    }
    // Model inputs: BindingSlot.binding = original model input index (dropped inputs skipped).
    for (size_t k = 0; k < f.inputs.size(); ++k) {
      const uint32_t arg = f.inputs[k].binding;
      VKRT_CHECK_OR_RETURN(arg < num_inputs, InvalidArgument, "VgfBackend: model input ", k, " refers to argument ",
                           arg, ", only ", num_inputs, " inputs given");
      d.inputs[k] = &args[arg]->to_tensor();
    }
    for (size_t j = 0; j < f.outputs.size(); ++j) d.outputs[j] = &args[num_inputs + j]->to_tensor();
    Status s = d.runner.run(d.inputs, d.outputs, ctx.kernel_context);
    return s.is_ok() ? s : std::move(s).with_context("VgfBackend");
  }

  std::vector<DelegateProfileEntry> profile(const DelegateHandle& handle) const override {
    return static_cast<const VgfDelegate&>(handle).runner.op_profile();
  }
};

}  // namespace
}  // namespace vkrt::vgf

namespace vkrt {

void register_vgf_backend() {
  if (BackendRegistry::global().find(kVgfBackendName) == nullptr) {
    (void)BackendRegistry::global().add(kVgfBackendName, std::make_shared<vgf::VgfBackend>());
  }
}

VKRT_REGISTER_BACKEND("VgfBackend", std::make_shared<vgf::VgfBackend>());

}  // namespace vkrt
