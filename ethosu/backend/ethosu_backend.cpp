// EthosUBackend (see ethosu_backend.h).
#include "ethosu/backend/ethosu_backend.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ethosu/backend/io_copy.h"
#include "ethosu/drivers/driver_select.h"
#include "ethosu/format/byte_io.h"
#include "vkrt/event_tracer.h"
#include "ethosu/format/driver_payload.h"
#include "ethosu/format/vela_bin_stream.h"
#include "vkrt/ethosu.h"

namespace vkrt::ethosu {
namespace {

// Everything init prepared; execute only reads it (and the region buffers' contents).
class EthosUDelegate final : public DelegateHandle {
 public:
  VelaBinStream stream;
  DriverPayload payload;
  // Declaration order = reverse destruction order: buffers and network go before their driver.
  std::unique_ptr<Driver> driver;
  std::array<std::unique_ptr<DriverBuffer>, kMaxRegions> buffers;
  std::unique_ptr<DriverNetwork> network;
  RegionTable regions{};
  InvokeOptions invoke_options;
  InvokeResult last_result;
  // When the method is profiled: the last execute's steps on the tracer clock (copy in, the
  // NPU's inference, copy out), each [start, end].
  std::array<std::pair<uint64_t, uint64_t>, 3> last_spans{};
};

// The counters the driver reported for an inference, as text ("cycles=1234 pmu17=55"; the
// virtual NPU's model gives "estimated_cycles=1234"), the metadata of the NPU step's ETDump event:
// readable as it is, and trivial to parse in the Inspector's delegate_metadata_parser.
std::vector<uint8_t> counters_text(const InvokeOptions& options, const InvokeResult& r, bool estimated) {
  std::string text;
  if (r.cycle_count_valid) text = (estimated ? "estimated_cycles=" : "cycles=") + std::to_string(r.cycle_count);
  for (int i = 0; i < r.pmu_event_count && i < int(kMaxPmuEvents); ++i)
    if (options.pmu_events[size_t(i)] != 0)  // a slot without an event counts nothing
      text += (text.empty() ? "" : " ") + std::string("pmu") + std::to_string(options.pmu_events[size_t(i)]) + "=" +
            std::to_string(r.pmu_counts[size_t(i)]);
  return std::vector<uint8_t>(text.begin(), text.end());
}

// Driver settings: ExecuTorch's Direct Drive compile specs (ethosu.*), overridden by options.
struct Settings {
  std::string driver;
  std::string device;
  InvokeOptions invoke;
  int64_t fast_scratch_size = -1;  // -1: take the COP2 staging size
};

Result<int64_t> parse_int(std::string_view key, std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  VKRT_CHECK_OR_RETURN(ec == std::errc() && end == text.data() + text.size(), InvalidArgument,
                       "option ", key, ": '", text, "' is not an integer");
  return v;
}

// Applies one setting given by its suffix ("device", "timeout_ns", "pmu_event3", ...).
Status apply_setting(Settings& s, std::string_view key, std::string_view suffix, std::string_view value) {
  if (suffix == "driver") {
    s.driver = std::string(value);
  } else if (suffix == "device") {
    s.device = std::string(value);
  } else if (suffix == "timeout_ns") {
    VKRT_ASSIGN_OR_RETURN(s.invoke.timeout_ns, parse_int(key, value));
  } else if (suffix == "enable_cycle_counter") {
    VKRT_ASSIGN_OR_RETURN(int64_t v, parse_int(key, value));
    s.invoke.enable_cycle_counter = v != 0;
  } else if (suffix == "fast_scratch_size") {
    VKRT_ASSIGN_OR_RETURN(s.fast_scratch_size, parse_int(key, value));
    VKRT_CHECK_OR_RETURN(s.fast_scratch_size >= 0, InvalidArgument, key, ": negative size");
  } else if (suffix.rfind("pmu_event", 0) == 0) {
    VKRT_ASSIGN_OR_RETURN(int64_t index, parse_int(key, suffix.substr(9)));
    VKRT_CHECK_OR_RETURN(index >= 0 && index < kMaxPmuEvents, InvalidArgument, key, ": counter index ", index,
                         " out of range 0..", kMaxPmuEvents - 1);
    VKRT_ASSIGN_OR_RETURN(int64_t event, parse_int(key, value));
    VKRT_CHECK_OR_RETURN(event >= 0 && event <= UINT32_MAX, InvalidArgument, key, ": event id ", event);
    s.invoke.pmu_events[size_t(index)] = uint32_t(event);
  }
  return Status::ok();
}

Result<Settings> read_settings(const BackendOptions& options, std::span<const CompileSpec> specs) {
  Settings s;
  for (const CompileSpec& spec : specs) {
    if (spec.key.rfind("ethosu.", 0) != 0) continue;
    std::string_view value(reinterpret_cast<const char*>(spec.value.data()), spec.value.size());
    // Compile-spec values are text; some exporters keep a trailing NUL.
    while (!value.empty() && value.back() == '\0') value.remove_suffix(1);
    std::string_view suffix = spec.key.substr(7);
    if (suffix == "driver") continue;  // drivers are chosen at run time only
    VKRT_RETURN_IF_ERROR(apply_setting(s, spec.key, suffix, value));
  }
  constexpr std::string_view kPrefix = "EthosUBackend.";
  for (const auto& [key, value] : options.all()) {
    if (key.rfind(kPrefix, 0) != 0) continue;
    VKRT_RETURN_IF_ERROR(apply_setting(s, key, std::string_view(key).substr(kPrefix.size()), value));
  }
  return s;
}

Status check_driver_fits(const EthosUDelegate& d, const DriverCapabilities& caps) {
  const std::string who = caps.driver + (caps.device_path.empty() ? "" : " (" + caps.device_path + ")");
  bool cop1 = d.payload.format == CopFormat::Cop1;
  VKRT_CHECK_OR_RETURN(cop1 ? caps.accepts_cop1 : caps.accepts_cop2, NotSupported, "driver ", who,
                       " does not accept ", cop1 ? "COP1" : "COP2", " payloads",
                       cop1 ? " (recompile with --cop-format=COP2 --separate-io-regions)" : "");
  VKRT_CHECK_OR_RETURN(!caps.requires_separate_io || d.stream.uses_separate_io(), NotSupported,
                       "driver ", who,
                       " needs inputs/outputs in regions 3/4 (compile with --separate-io-regions)");
  if (d.payload.has_arch) {
    NpuArch hardware = caps.arch;
    if (!caps.arch_known) hardware.product = d.payload.arch.product;  // the driver cannot tell U55/U65 apart
    if (caps.arch_known || caps.arch.macs_per_cycle != 0) {
      Status s = check_arch_compatible(d.payload.arch, hardware);
      if (!s.is_ok()) return std::move(s).with_context("driver " + who);
    }
  }
  return Status::ok();
}

// Bytes each region needs; 0 = leave unbound.
Result<std::array<size_t, kMaxRegions>> region_sizes(const EthosUDelegate& d, const Settings& s,
                                                      const DriverCapabilities& caps) {
  std::array<size_t, kMaxRegions> sizes{};
  sizes[kRegionWeights] = d.stream.weight_data.size();
  sizes[kRegionScratch] = d.stream.scratch_size;
  sizes[kRegionFastScratch] = s.fast_scratch_size >= 0 ? size_t(s.fast_scratch_size) : size_t(d.payload.staging_bytes);
  sizes[kRegionInputs] = d.stream.region_extent(kRegionInputs);
  sizes[kRegionOutputs] = d.stream.region_extent(kRegionOutputs);
  // Every region an input or output lives in gets a buffer, even for empty tensors.
  for (const auto* list : {&d.stream.inputs, &d.stream.outputs}) {
    for (const VelaIo& io : *list) {
      if (sizes[size_t(io.region)] == 0) sizes[size_t(io.region)] = kNpuBufferAlignment;
    }
  }
  uint8_t used = d.payload.summary.regions_referenced;
  for (int r = 0; r < kMaxRegions; ++r) {
    if (!((used >> r) & 1) || sizes[size_t(r)] > 0) continue;
    if (r == kRegionFastScratch) {
      if (caps.sram_bytes > 0) continue;  // the driver binds its SRAM
      return make_error(Error::NotSupported, "the command stream uses fast scratch (region 2) "
                        "but its size is unknown; set EthosUBackend.fast_scratch_size");
    }
    VKRT_CHECK_OR_RETURN(r <= kRegionOutputs, NotSupported, "the command stream uses region ", r,
                         " which no payload block describes");
    sizes[size_t(r)] = kNpuBufferAlignment;  // referenced but empty: bind a minimal buffer
  }
  return sizes;
}

Status check_args(const EthosUDelegate& d, std::span<EValue* const> args, std::array<IoMapping, 64>* in_maps,
                  std::array<IoMapping, 64>* out_maps) {
  size_t n_in = d.stream.inputs.size(), n_out = d.stream.outputs.size();
  VKRT_CHECK_OR_RETURN(args.size() == n_in + n_out, InvalidProgram, "delegate called with ",
                       args.size(), " arguments, the payload describes ", n_in, " inputs and ", n_out, " outputs");
  for (size_t i = 0; i < args.size(); ++i) {
    bool is_output = i >= n_in;
    size_t k = is_output ? i - n_in : i;
    char what[32];
    std::snprintf(what, sizeof(what), "%s[%zu]", is_output ? "output" : "input", k);
    VKRT_CHECK_OR_RETURN(args[i] != nullptr && args[i]->is_tensor(), InvalidProgram, what,
                         ": expected a tensor, got ", args[i] ? tag_name(args[i]->tag()) : "null");
    const VelaIo& io = is_output ? d.stream.outputs[k] : d.stream.inputs[k];
    VKRT_ASSIGN_OR_RETURN(IoMapping mapping, plan_io(io, args[i]->to_tensor(), is_output, what));
    auto* maps = is_output ? out_maps : in_maps;
    if (maps && k < maps->size()) (*maps)[k] = mapping;
  }
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<DelegateHandle>> EthosUBackend::init(BackendInitContext& ctx, std::span<const uint8_t> processed,
                                                           std::span<const CompileSpec> compile_specs) {
  auto d = std::make_unique<EthosUDelegate>();
  auto context = [&](Status s) {
    return std::move(s).with_context(name_);  // the loader adds the method and delegate index
  };
  auto stream = parse_vela_bin_stream(processed, ctx.named_data);
  if (!stream.ok()) return context(stream.status());
  d->stream = std::move(stream).value();
  VKRT_CHECK_OR_RETURN(d->stream.inputs.size() <= 64 && d->stream.outputs.size() <= 64, NotSupported,
                       name_, ": more than 64 inputs or outputs");
  auto payload = parse_driver_payload(d->stream.cmd_data);
  if (!payload.ok()) return context(payload.status());
  d->payload = *payload;

  static const BackendOptions kNoOptions;
  auto settings = read_settings(ctx.options ? *ctx.options : kNoOptions, compile_specs);
  if (!settings.ok()) return context(settings.status());
  d->invoke_options = settings->invoke;

  if (!ctx.call_args.empty()) {
    Status s = check_args(*d, ctx.call_args, nullptr, nullptr);
    if (!s.is_ok()) return context(std::move(s));
  }

  auto driver = open_driver(settings->driver, settings->device);
  if (!driver.ok()) return context(driver.status());
  d->driver = std::move(driver).value();
  const DriverCapabilities& caps = d->driver->capabilities();
  if (Status s = check_driver_fits(*d, caps); !s.is_ok()) return context(std::move(s));

  auto sizes = region_sizes(*d, *settings, caps);
  if (!sizes.ok()) return context(sizes.status());
  // The payload sets these sizes (a scratch_size of 4 GiB is one u32): count them all against
  // the method's budget before the driver allocates anything.
  for (int r = 0; r < kMaxRegions; ++r) {
    const size_t bytes = (*sizes)[size_t(r)];
    if (bytes == 0) continue;
    const std::string what = name_ + " region " + std::to_string(r) + " (" + region_name(r) + ")";
    if (Status s = ctx.memory_budget->reserve(round_up(bytes, kNpuBufferAlignment), what); !s.is_ok())
      return context(std::move(s));
  }
  for (int r = 0; r < kMaxRegions; ++r) {
    size_t bytes = (*sizes)[size_t(r)];
    if (bytes == 0) continue;
    auto buffer = d->driver->create_buffer(round_up(bytes, kNpuBufferAlignment));
    if (!buffer.ok()) return context(buffer.status());
    d->buffers[size_t(r)] = std::move(buffer).value();
    d->regions[size_t(r)] = RegionBinding{d->buffers[size_t(r)].get(), bytes};
  }
  if (!d->stream.weight_data.empty()) {
    std::memcpy(d->buffers[kRegionWeights]->data().data(), d->stream.weight_data.data(), d->stream.weight_data.size());
  }
  NetworkDescription network{d->stream.cmd_data, &d->payload, &d->stream};
  auto net = d->driver->create_network(network);
  if (!net.ok()) return context(net.status());
  d->network = std::move(net).value();
  if (!caps.computes_outputs)
    ctx.notices->push_back(name_ + ": driver '" + caps.driver + "' does not run the NPU; the delegate's outputs " +
                           "are not computed (they hold what the driver wrote: zeros unless a test set them)");
  return std::unique_ptr<DelegateHandle>(std::move(d));
}

Status EthosUBackend::execute(BackendExecuteContext& ctx, DelegateHandle& handle, std::span<EValue* const> args) {
  auto* d = dynamic_cast<EthosUDelegate*>(&handle);
  VKRT_CHECK_OR_RETURN(d != nullptr, DelegateInvalidHandle, name_, ": handle from another backend");
  std::array<IoMapping, 64> in_maps{}, out_maps{};
  if (Status s = check_args(*d, args, &in_maps, &out_maps); !s.is_ok()) return std::move(s).with_context(name_);
  // Checked here, not in check_args: at load an input's memory may still be unbound.
  for (size_t i = 0; i < args.size(); ++i) {
    const Tensor& t = args[i]->to_tensor();
    const bool is_output = i >= d->stream.inputs.size();
    VKRT_CHECK_OR_RETURN(t.nbytes() == 0 || t.data() != nullptr, InvalidProgram, name_, ": ",
                         is_output ? "output[" : "input[", is_output ? i - d->stream.inputs.size() : i, "] has ",
                         t.nbytes(), " bytes and no memory");
  }
  auto& spans = d->last_spans;
  auto now = [&] { return ctx.profiling ? trace_now_ns() : 0; };
  size_t n_in = d->stream.inputs.size();
  spans[0].first = now();
  for (size_t i = 0; i < n_in; ++i) {
    const VelaIo& io = d->stream.inputs[i];
    copy_input(io, in_maps[i], args[i]->to_tensor(), d->buffers[size_t(io.region)]->data());
  }
  spans[1].first = spans[0].second = now();
  Status invoked = d->driver->invoke(*d->network, d->regions, d->invoke_options, &d->last_result);
  if (!invoked.is_ok()) return std::move(invoked).with_context(name_ + ": Ethos-U invocation failed");
  spans[2].first = spans[1].second = now();
  for (size_t k = 0; k < d->stream.outputs.size(); ++k) {
    const VelaIo& io = d->stream.outputs[k];
    copy_output(io, out_maps[k], d->buffers[size_t(io.region)]->data(), args[n_in + k]->to_tensor());
  }
  spans[2].second = now();
  return Status::ok();
}

std::vector<DelegateProfileEntry> EthosUBackend::profile(const DelegateHandle& handle) const {
  auto* d = dynamic_cast<const EthosUDelegate*>(&handle);
  if (!d || d->last_spans[2].second == 0) return {};  // not profiled
  // Upstream's EthosUBackend names its steps so (its output copy has no event of its own).
  const char* names[3] = {"+EthosUBackend::execute()handles.input.memcpy()", "+EthosUBackend::execute()NPU",
                          "+EthosUBackend::execute()handles.output.memcpy()"};
  std::vector<DelegateProfileEntry> steps;
  for (size_t i = 0; i < 3; ++i) {
    const auto [start, end] = d->last_spans[i];
    steps.push_back({names[i], double(end - start) * 1e-6, start, end, {}});
  }
  steps[1].metadata = counters_text(d->invoke_options, d->last_result, d->driver->capabilities().cycle_count_estimated);
  return steps;
}

const InvokeResult* last_invoke_result(const DelegateHandle& handle) {
  auto* d = dynamic_cast<const EthosUDelegate*>(&handle);
  return d ? &d->last_result : nullptr;
}

VKRT_REGISTER_BACKEND("EthosUBackend", std::make_shared<EthosUBackend>("EthosUBackend"));
VKRT_REGISTER_BACKEND("ArmBackend", std::make_shared<EthosUBackend>("ArmBackend"));

}  // namespace vkrt::ethosu
