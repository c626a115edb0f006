// ETDump: ExecuTorch's profiling and debugging file (docs/etdump.md), written and read here.
//
//   vkrt::EtdumpWriter etdump(/*log_values=*/false);
//   options.event_tracer = &etdump;            // LoadOptions
//   ... load_method, execute ...
//   auto bytes = etdump.serialize();           // size-prefixed flatbuffer, identifier "ED00"
//
// The file follows upstream's schema (runtime/schema/etdump.fbs), so ExecuTorch's Inspector
// reads it. Times are nanoseconds of the tracer clock (vkrt/event_tracer.h). With log_values,
// instruction outputs are debug events whose tensor bytes are in debug_buffer(), each at a
// 64-byte aligned offset (as upstream's buffer data sink); the buffer is written as its own file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vkrt/error.h"
#include "vkrt/event_tracer.h"

namespace vkrt {

// The decoded contents of an ETDump, one struct per schema table that carries data.
struct EtdumpTensor {
  int8_t scalar_type = 0;  // ExecuTorch's ScalarType number (vkrt::ScalarType)
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;      // into the debug buffer
};

struct EtdumpValue {
  // schema ValueType: Null 0, Int 1, Bool 2, Float 3, Double 4, Tensor 5, TensorList 6, String 7
  enum class Type : int8_t { Null, Int, Bool, Float, Double, Tensor, TensorList, String };
  Type type = Type::Null;
  std::vector<EtdumpTensor> tensors;  // one for Tensor, any number for TensorList
  int64_t int_value = 0;
  double double_value = 0;            // Float and Double
  bool bool_value = false;
  bool output = false;                // a program output (upstream's `output` member)
};

struct EtdumpEvent {
  enum class Kind : uint8_t { Profile, Allocation, Debug };
  Kind kind = Kind::Profile;
  // Profile and Debug:
  std::string name;
  int64_t chain_index = 0;  // int in ProfileEvent, ulong in DebugEvent
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  std::string delegate_debug_id_str;
  // Profile:
  std::vector<uint8_t> delegate_debug_metadata;
  uint64_t start_time = 0;
  uint64_t end_time = 0;
  // Allocation:
  int32_t allocator_id = 0;
  uint64_t allocation_size = 0;
  // Debug:
  EtdumpValue value;
};

struct EtdumpRun {
  std::string name;
  int32_t bundled_input_index = -1;
  std::vector<std::string> allocators;
  std::vector<EtdumpEvent> events;
};

struct Etdump {
  uint32_t version = 0;
  std::vector<EtdumpRun> runs;
};

// Decodes a size-prefixed ETDump (as upstream writes it; a bare flatbuffer is accepted too).
// The bytes are untrusted: the flatbuffer is verified and its identifier checked.
Result<Etdump> read_etdump(std::span<const uint8_t> bytes);

// Encodes as a size-prefixed flatbuffer with identifier "ED00".
std::vector<uint8_t> write_etdump(const Etdump& etdump);

// An EventTracer that records into an Etdump.
class EtdumpWriter : public EventTracer {
 public:
  explicit EtdumpWriter(bool log_values = false) : log_values_(log_values) {}

  // The bundled test case the following runs execute (-1: none).
  void set_bundled_input_index(int32_t index) { bundled_input_index_ = index; }

  void begin_run(std::string_view name) override;
  void profile_event(const ProfileEventInfo& event) override;
  int32_t track_allocator(std::string_view name) override;
  void allocation_event(int32_t allocator_id, uint64_t bytes) override;
  bool logs_values() const override { return log_values_; }
  void debug_event(std::string_view name, int32_t chain_index, int32_t instruction_id,
                   const EValue& value) override;

  const Etdump& etdump() const { return etdump_; }
  std::vector<uint8_t> serialize() const { return write_etdump(etdump_); }
  const std::vector<uint8_t>& debug_buffer() const { return debug_buffer_; }

 private:
  EtdumpRun& run();  // the current run, a "Default" one if none was begun
  EtdumpTensor log_tensor(const Tensor& t);

  bool log_values_;
  int32_t bundled_input_index_ = -1;
  Etdump etdump_;
  std::vector<uint8_t> debug_buffer_;
};

}  // namespace vkrt
