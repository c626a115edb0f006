// Delegates: the backend interface and registry (ExecuTorch's BackendInterface life cycle).
//
// At method load, every DelegateCall's backend is looked up by the id the exporter wrote
// (e.g. "VgfBackend", "EthosUBackend") and init() is called once with the payload; execute()
// runs per inference; destroy() when the method goes away. The payload bytes live as long as
// the Program (files are memory-mapped), so a backend may keep pointers into them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vkrt/error.h"
#include "vkrt/evalue.h"
#include "vkrt/kernel.h"
#include "vkrt/memory_budget.h"

namespace vkrt {

struct CompileSpec {
  std::string_view key;
  std::span<const uint8_t> value;  // opaque bytes, usually ASCII
};

// Read-only key -> bytes map: the program's named_data merged with the .ptd file's.
class NamedDataMap {
 public:
  virtual ~NamedDataMap() = default;
  // NotFound when absent.
  virtual Result<std::span<const uint8_t>> get(std::string_view key) const = 0;
  virtual size_t size() const = 0;
  virtual std::string_view key_at(size_t i) const = 0;
};

// String options handed to backends, keyed "<Backend>.<option>" (e.g. "VgfBackend.executor").
class BackendOptions {
 public:
  void set(std::string key, std::string value);
  // Empty view when unset.
  std::string_view get(std::string_view key) const;
  bool has(std::string_view key) const;
  const std::vector<std::pair<std::string, std::string>>& all() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

struct BackendInitContext {
  std::string_view method_name;
  const NamedDataMap* named_data = nullptr;  // never null during init
  const BackendOptions* options = nullptr;   // never null during init
  // Argument values of the first DelegateCall that uses this delegate (inputs then outputs),
  // with their load-time shapes; empty if the delegate is never called.
  std::span<EValue* const> call_args;
  // The method's memory budget (vkrt/memory_budget.h); never null during init. Reserve every
  // buffer whose size the payload sets before allocating it.
  MemoryBudget* memory_budget = nullptr;
  // Lines the user must see with this method's results (Method::notices()), e.g. that a driver
  // does not compute outputs. Never null during init.
  std::vector<std::string>* notices = nullptr;
  // What the delegate chose at init that a user comparing runs wants to know, one line each
  // (Method::placements()), e.g. "VgfBackend segment 'graph_segment_0': vulkan on NVIDIA H100".
  // Never null during init.
  std::vector<std::string>* placements = nullptr;
  // The threads BackendExecuteContext::kernel_context will offer (LoadOptions::num_threads, or
  // what the method's pool could start): what a delegate sizes per-thread scratch for at init.
  int num_threads = 1;
};

struct BackendExecuteContext {
  std::string_view method_name;
  KernelContext* kernel_context = nullptr;  // temp memory and threads
  // The method is profiled or traced: a backend that times its steps only on request does so
  // now, for profile().
  bool profiling = false;
};

// One timed step inside a delegate (e.g. one GPU dispatch), from Backend::profile().
struct DelegateProfileEntry {
  std::string name;  // what ran, e.g. "CONV2D+RESCALE+CLAMP"
  double time_ms = 0;
  // Where the step lies on the tracer clock (vkrt/event_tracer.h), when the backend knows; both
  // 0 otherwise, and an event tracer places the step after the previous one by its duration.
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  // What the backend wants to say about the step (ETDump's delegate_debug_metadata), e.g. the
  // Ethos-U cycle and PMU counts.
  std::vector<uint8_t> metadata;
};

// Opaque per-delegate state a backend returns from init().
class DelegateHandle {
 public:
  virtual ~DelegateHandle() = default;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // False when the backend cannot run here (e.g. no device); init is then not attempted
  // and load fails with NotFound naming the backend.
  virtual bool is_available() const { return true; }
  virtual Result<std::unique_ptr<DelegateHandle>> init(BackendInitContext& ctx,
                                                       std::span<const uint8_t> processed,
                                                       std::span<const CompileSpec> compile_specs) = 0;
  // args: the delegate's inputs in call order, then its outputs (pre-allocated tensors).
  virtual Status execute(BackendExecuteContext& ctx, DelegateHandle& handle,
                         std::span<EValue* const> args) = 0;
  // Per-step times of the handle's last execute(), when the backend was asked to profile
  // (e.g. VgfBackend.profile=1); empty otherwise. Called only while profiling, off the hot path.
  virtual std::vector<DelegateProfileEntry> profile(const DelegateHandle& handle) const { return {}; }
  // Called when the method is destroyed; the default just deletes the handle.
  virtual void destroy(std::unique_ptr<DelegateHandle> handle) { handle.reset(); }
};

class BackendRegistry {
 public:
  static BackendRegistry& global();
  // RegistrationAlreadyRegistered if the name is taken. The registry owns the backend.
  Status add(std::string_view name, std::shared_ptr<Backend> backend);
  Backend* find(std::string_view name) const;  // nullptr when absent
  std::vector<std::string> names() const;      // in registration order

 private:
  std::vector<std::pair<std::string, std::shared_ptr<Backend>>> entries_;
};

namespace detail {
struct BackendRegistrar {
  BackendRegistrar(const char* name, std::shared_ptr<Backend> backend);
};
}  // namespace detail

}  // namespace vkrt

// VKRT_REGISTER_BACKEND("VgfBackend", std::make_shared<VgfBackend>());
#define VKRT_REGISTER_BACKEND(name, ...) \
  static ::vkrt::detail::BackendRegistrar VKRT_CONCAT(vkrt_backend_registrar_, __LINE__)(name, __VA_ARGS__)
