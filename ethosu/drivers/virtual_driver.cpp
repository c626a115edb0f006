// Virtual driver (see virtual_driver.h).
#include "ethosu/drivers/virtual_driver.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "ethosu/virtual/virtual_npu.h"
#include "ethosu/virtual/weight_cache.h"

namespace vkrt::ethosu {
namespace {

class VirtualBuffer final : public DriverBuffer {
 public:
  explicit VirtualBuffer(size_t size) : size_(size) {
    // calloc: zero-filled, and untouched pages of a large scratch cost nothing. glibc aligns to 16
    // on x86-64 and aarch64; checked rather than assumed.
    data_ = static_cast<uint8_t*>(std::calloc((size + 15) / 16 * 16, 1));
    if (data_ && reinterpret_cast<uintptr_t>(data_) % kNpuBufferAlignment != 0) {
      std::free(data_);
      data_ = nullptr;
    }
  }
  ~VirtualBuffer() override { std::free(data_); }
  bool ok() const { return data_ != nullptr; }
  std::span<uint8_t> data() override { return {data_, size_}; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_;
};

class VirtualNetwork final : public DriverNetwork {
 public:
  VirtualNetwork(DriverPayload payload, NpuArch arch)
      : payload(payload), arch(arch), shram(virtual_npu::shram_bytes(arch)) {}
  DriverPayload payload;  // its command_stream points into the program's cmd_data
  NpuArch arch;
  std::vector<uint8_t> shram;  // internal memory: LUTs the stream DMAs in
  virtual_npu::WeightCache weights;  // decoded once, reused by every inference
};

// The arch a COP1 payload without OPTIMIZER_CONFIG runs as: Vela's default, the U55-128.
constexpr uint32_t kDefaultConfig = 0x00001807;
constexpr uint32_t kDefaultId = 0x10066001;

class VirtualDriver final : public Driver {
 public:
  VirtualDriver() {
    caps_.driver = kVirtualDriverName;
    caps_.driver_version = "1.0.0";
    caps_.arch_known = false;  // whatever U55/U65 the stream was compiled for
    caps_.accepts_cop1 = true;
    caps_.accepts_cop2 = true;
    caps_.has_cycle_counter = true;
    caps_.cycle_count_estimated = true;
    caps_.pmu_event_slots = 0;
    caps_.computes_outputs = true;
  }
  const DriverCapabilities& capabilities() const override { return caps_; }

  Result<std::unique_ptr<DriverBuffer>> create_buffer(size_t bytes) override {
    VKRT_CHECK_OR_RETURN(bytes > 0, InvalidArgument, "virtual driver: empty buffer requested");
    auto buffer = std::make_unique<VirtualBuffer>(bytes);
    VKRT_CHECK_OR_RETURN(buffer->ok(), MemoryAllocationFailed, "virtual driver: cannot allocate ", bytes,
                         " bytes");
    return std::unique_ptr<DriverBuffer>(std::move(buffer));
  }

  Result<std::unique_ptr<DriverNetwork>> create_network(const NetworkDescription& network) override {
    VKRT_CHECK_OR_RETURN(network.payload != nullptr, InvalidArgument, "virtual driver: no parsed payload");
    NpuArch arch;
    if (network.payload->has_arch) {
      arch = network.payload->arch;
    } else {
      auto fallback = decode_npu_arch(kDefaultConfig, kDefaultId);
      if (!fallback.ok()) return fallback.status();
      arch = *fallback;
    }
    VKRT_CHECK_OR_RETURN(arch.product != NpuProduct::U85, NotSupported, "virtual driver: ",
                         arch.to_string(),
                         " streams are not supported (the virtual NPU runs Ethos-U55 and Ethos-U65 streams; "
                         "no U85 compiler is available here to test against)");
    return std::unique_ptr<DriverNetwork>(new VirtualNetwork(*network.payload, arch));
  }

  Status invoke(DriverNetwork& network, const RegionTable& regions, const InvokeOptions& options,
                InvokeResult* result) override {
    auto* net = dynamic_cast<VirtualNetwork*>(&network);
    VKRT_CHECK_OR_RETURN(net != nullptr, InvalidArgument, "virtual driver: foreign network");
    virtual_npu::NpuMemory memory;
    for (int i = 0; i < kMaxRegions; ++i) {
      const RegionBinding& r = regions[size_t(i)];
      if (r.buffer == nullptr) continue;
      VKRT_CHECK_OR_RETURN(r.size <= r.buffer->data().size(), InvalidArgument, "virtual driver: region ", i,
                           " claims ", r.size, " bytes of a ", r.buffer->data().size(), "-byte buffer");
      memory.regions[size_t(i)] = {r.buffer->data().data(), r.size};
    }
    std::memset(net->shram.data(), 0, net->shram.size());
    memory.shram = net->shram.data();
    memory.shram_size = net->shram.size();
    virtual_npu::RunCounters counters;
    Status status = virtual_npu::run_command_stream(net->payload.command_stream, net->arch, memory, &counters,
                                                    virtual_npu::RunLimits{}, &net->weights);
    if (!status.is_ok()) return status;
    if (result != nullptr) {
      *result = InvokeResult{};
      if (options.enable_cycle_counter) {
        result->cycle_count_valid = true;
        result->cycle_count = counters.estimated_cycles;
      }
    }
    return Status::ok();
  }

 private:
  DriverCapabilities caps_;
};

}  // namespace

Result<std::unique_ptr<Driver>> open_virtual_driver() {
  return std::unique_ptr<Driver>(new VirtualDriver());
}

}  // namespace vkrt::ethosu
