// Recording driver (see recording_driver.h).
#include "ethosu/drivers/recording_driver.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "ethosu/format/driver_payload_writer.h"

namespace vkrt::ethosu {
namespace {

class RecordingBuffer final : public DriverBuffer {
 public:
  explicit RecordingBuffer(size_t size) : size_(size) {
    // calloc: zero-filled, and a large buffer stays untouched zero pages until written, so a
    // stream's big scratch costs no memory the network does not use. glibc's calloc aligns to
    // max_align_t (16 on x86-64 and aarch64); checked rather than assumed.
    data_ = static_cast<uint8_t*>(std::calloc(round16(size), 1));
    if (data_ && reinterpret_cast<uintptr_t>(data_) % kNpuBufferAlignment != 0) {
      std::free(data_);
      data_ = nullptr;
    }
  }
  ~RecordingBuffer() override { std::free(data_); }
  bool ok() const { return data_ != nullptr; }
  std::span<uint8_t> data() override { return {data_, size_}; }

 private:
  static size_t round16(size_t n) { return (n + 15) / 16 * 16; }
  uint8_t* data_ = nullptr;
  size_t size_;
};

class RecordingNetwork final : public DriverNetwork {
 public:
  RecordingNetwork(std::span<const uint8_t> cmd_data, DriverPayload payload, const VelaBinStream* stream)
      : cmd_data(cmd_data), payload(payload), stream(stream) {}
  std::span<const uint8_t> cmd_data;
  DriverPayload payload;
  const VelaBinStream* stream;  // may be null
};

// What the payload says the regions must hold: the weights in region 0 (exact bytes), at least
// scratch_size bytes in region 1, and room for every input/output at its offset.
Status check_against_payload(const VelaBinStream& stream, const RegionTable& regions) {
  const RegionBinding& weights = regions[kRegionWeights];
  if (!stream.weight_data.empty()) {
    VKRT_CHECK_OR_RETURN(weights.buffer && weights.size == stream.weight_data.size(), InvalidArgument,
                         "recording driver: region 0 holds ", weights.size, " bytes, weight_data has ",
                         stream.weight_data.size());
    VKRT_CHECK_OR_RETURN(std::memcmp(weights.buffer->data().data(), stream.weight_data.data(), weights.size) == 0,
                         InvalidArgument, "recording driver: region 0 contents differ from weight_data");
  }
  VKRT_CHECK_OR_RETURN(stream.scratch_size == 0 || regions[kRegionScratch].size >= stream.scratch_size,
                       InvalidArgument, "recording driver: region 1 holds ", regions[kRegionScratch].size,
                       " bytes, the payload needs ", stream.scratch_size);
  for (const auto* list : {&stream.inputs, &stream.outputs}) {
    for (const VelaIo& io : *list) {
      const RegionBinding& r = regions[size_t(io.region)];
      VKRT_CHECK_OR_RETURN(r.buffer && uint64_t(io.offset) + uint64_t(io.byte_size()) <= r.size, InvalidArgument,
                           "recording driver: region ", io.region, " (", r.size, " bytes) cannot hold [",
                           io.offset, ", ", int64_t(io.offset) + io.byte_size(), ")");
    }
  }
  return Status::ok();
}

}  // namespace

void RecordingDriverState::reset() {
  capabilities = DriverCapabilities{};
  capabilities.driver = kRecordingDriverName;
  capabilities.driver_version = "1.0.0";
  capabilities.arch_known = true;
  capabilities.arch = *decode_npu_arch(kConfigU55_128, kIdU55_128);
  capabilities.accepts_cop1 = true;
  capabilities.accepts_cop2 = true;
  capabilities.has_cycle_counter = true;
  capabilities.pmu_event_slots = 4;
  capabilities.computes_outputs = false;
  output_writes.clear();
  invoke_status = Status::ok();
  cycle_count = 1234;
  pmu_count_base = 100;
  invocations.clear();
  invocation_count = 0;
  buffer_sizes.clear();
  networks_created = 0;
  drivers_opened = 0;
}

RecordingDriverState& recording_driver_state() {
  static RecordingDriverState state;
  return state;
}

RecordingDriver::RecordingDriver(RecordingDriverState& state) : state_(state) {
  std::lock_guard lock(state_.mutex);
  caps_ = state_.capabilities;
  ++state_.drivers_opened;
}

Result<std::unique_ptr<DriverBuffer>> RecordingDriver::create_buffer(size_t bytes) {
  VKRT_CHECK_OR_RETURN(bytes > 0, InvalidArgument, "recording driver: empty buffer requested");
  {
    std::lock_guard lock(state_.mutex);
    state_.buffer_sizes.push_back(bytes);
  }
  auto buffer = std::make_unique<RecordingBuffer>(bytes);
  VKRT_CHECK_OR_RETURN(buffer->ok(), MemoryAllocationFailed, "recording driver: cannot allocate ", bytes,
                       " bytes");
  return std::unique_ptr<DriverBuffer>(std::move(buffer));
}

Result<std::unique_ptr<DriverNetwork>> RecordingDriver::create_network(const NetworkDescription& network) {
  // Re-check the header independently of what the backend parsed.
  VKRT_CHECK_OR_RETURN(network.payload != nullptr, InvalidArgument, "recording driver: no parsed payload");
  auto reparsed = parse_driver_payload(network.cmd_data);
  if (!reparsed.ok()) return Status(reparsed.status()).with_context("recording driver");
  VKRT_CHECK_OR_RETURN(reparsed->command_stream.data() == network.payload->command_stream.data() &&
                           reparsed->command_stream.size() == network.payload->command_stream.size(),
                       InvalidArgument, "recording driver: parsed payload does not describe cmd_data");
  VKRT_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(reparsed->command_stream.data()) % kNpuBufferAlignment == 0,
                       InvalidArgument, "recording driver: command stream is not 16-byte aligned");
  VKRT_CHECK_OR_RETURN(reparsed->format == CopFormat::Cop1 ? caps_.accepts_cop1 : caps_.accepts_cop2,
                       NotSupported, "recording driver: configured not to accept this COP format");
  if (caps_.arch_known && reparsed->has_arch) {
    VKRT_RETURN_IF_ERROR(check_arch_compatible(reparsed->arch, caps_.arch));
  }
  std::lock_guard lock(state_.mutex);
  ++state_.networks_created;
  return std::unique_ptr<DriverNetwork>(new RecordingNetwork(network.cmd_data, *reparsed, network.stream));
}

Status RecordingDriver::invoke(DriverNetwork& network, const RegionTable& regions,
                               const InvokeOptions& options, InvokeResult* result) {
  auto* net = dynamic_cast<RecordingNetwork*>(&network);
  VKRT_CHECK_OR_RETURN(net != nullptr, InvalidArgument, "recording driver: foreign network");
  for (int i = 0; i < kMaxRegions; ++i) {
    const RegionBinding& r = regions[size_t(i)];
    if (r.buffer == nullptr) {
      VKRT_CHECK_OR_RETURN(r.size == 0, InvalidArgument, "recording driver: region ", i,
                           " has a size but no buffer");
      bool sram = i == kRegionFastScratch && caps_.sram_bytes > 0;
      VKRT_CHECK_OR_RETURN(!((net->payload.summary.regions_referenced >> i) & 1) || sram, InvalidArgument,
                           "recording driver: the command stream uses region ", i, " but it is not bound");
      continue;
    }
    auto* buffer = dynamic_cast<RecordingBuffer*>(r.buffer);
    VKRT_CHECK_OR_RETURN(buffer != nullptr, InvalidArgument, "recording driver: region ", i,
                         " buffer was not created by this driver");
    VKRT_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(buffer->data().data()) % kNpuBufferAlignment == 0,
                         InvalidArgument, "recording driver: region ", i, " is not 16-byte aligned");
    VKRT_CHECK_OR_RETURN(r.size > 0 && r.size <= buffer->data().size(), InvalidArgument,
                         "recording driver: region ", i, " size ", r.size, " outside its buffer (",
                         buffer->data().size(), " bytes)");
  }
  if (net->stream) VKRT_RETURN_IF_ERROR(check_against_payload(*net->stream, regions));
  std::lock_guard lock(state_.mutex);
  // Bounded: a runner executing a big stream many times must not keep a copy of every run.
  ++state_.invocation_count;
  if (state_.invocations.size() < kMaxRecordedInvocations) {
    RecordedInvocation record;
    record.cmd_data.assign(net->cmd_data.begin(), net->cmd_data.end());
    for (int i = 0; i < kMaxRegions; ++i) {
      const RegionBinding& r = regions[size_t(i)];
      if (!r.buffer) continue;
      auto bytes = r.buffer->data().first(std::min(r.size, kMaxRecordedRegionBytes));
      record.regions[size_t(i)].assign(bytes.begin(), bytes.end());
      record.region_sizes[size_t(i)] = r.size;
      record.bound[size_t(i)] = true;
    }
    record.options = options;
    state_.invocations.push_back(std::move(record));
  }
  for (const auto& w : state_.output_writes) {
    VKRT_CHECK_OR_RETURN(w.region >= 0 && w.region < kMaxRegions && regions[size_t(w.region)].buffer,
                         InvalidArgument, "recording driver: output write to unbound region ", w.region);
    const RegionBinding& r = regions[size_t(w.region)];
    VKRT_CHECK_OR_RETURN(w.offset <= r.size && w.bytes.size() <= r.size - w.offset, InvalidArgument,
                         "recording driver: output write [", w.offset, ", ", w.offset + w.bytes.size(),
                         ") outside region ", w.region, " (", r.size, " bytes)");
    if (!w.bytes.empty()) std::memcpy(r.buffer->data().data() + w.offset, w.bytes.data(), w.bytes.size());
  }
  if (result) {
    *result = InvokeResult{};
    result->cycle_count_valid = options.enable_cycle_counter;
    result->cycle_count = options.enable_cycle_counter ? state_.cycle_count : 0;
    // Like the kernel drivers: one count per counter slot, for the event configured in it.
    result->pmu_event_count = std::min(state_.capabilities.pmu_event_slots, int(kMaxPmuEvents));
    for (size_t i = 0; i < size_t(result->pmu_event_count); ++i)
      result->pmu_counts[i] = options.pmu_events[i] != 0 ? state_.pmu_count_base + i : 0;
  }
  return state_.invoke_status;
}

}  // namespace vkrt::ethosu
