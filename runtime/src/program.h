// Program: an immutable, verified view of a .pte file (plus an optional .ptd), shared by its
// methods. Everything here is checked once at load; accessors return errors for bad indices.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "external_data.h"
#include "file_data.h"
#include "headers.h"
#include "program_generated.h"
#include "vkrt/backend.h"
#include "vkrt/error.h"

namespace vkrt {

namespace fb = executorch_flatbuffer;

// Element i of a FlatBuffers vector of 8-byte scalars. The verifier checks only the 4-byte
// alignment of a vector's length, so 8-byte elements of a hostile file may be misaligned:
// read them with memcpy rather than a typed load.
template <typename T>
T load_element(const flatbuffers::Vector<T>* v, size_t i) {
  static_assert(std::is_arithmetic_v<T>);
  T x;
  std::memcpy(&x, v->Data() + i * sizeof(T), sizeof(T));
  return x;
}

class Program;

// named_data of the program merged with the .ptd's entries (program keys first).
class ProgramNamedData : public NamedDataMap {
 public:
  Result<std::span<const uint8_t>> get(std::string_view key) const override;
  size_t size() const override { return entries_.size(); }
  std::string_view key_at(size_t i) const override { return entries_[i].first; }

 private:
  friend class Program;
  std::vector<std::pair<std::string_view, std::span<const uint8_t>>> entries_;
};

class Program {
 public:
  static Result<std::unique_ptr<Program>> load(std::shared_ptr<FileData> file,
                                               std::shared_ptr<FileData> data_file);

  const fb::Program& root() const { return *root_; }
  const std::string& name() const { return file_->name(); }
  const ProgramHeader& header() const { return header_; }

  size_t num_methods() const;
  // nullptr when absent.
  const fb::ExecutionPlan* find_plan(std::string_view method) const;
  const std::vector<std::string>& method_names() const { return method_names_; }

  // Bytes of segment i (bounds-checked at load).
  Result<std::span<const uint8_t>> segment(uint32_t index) const;
  // Constant tensor data (constant segment or deprecated constant_buffer), nbytes checked.
  Result<const uint8_t*> constant_data(uint32_t buffer_idx, size_t nbytes) const;
  // Initial value of a mutable planned tensor (mutable_data_segments[0]).
  Result<std::span<const uint8_t>> mutable_data(uint32_t buffer_idx, size_t nbytes) const;
  // A delegate's processed payload (INLINE or SEGMENT).
  Result<std::span<const uint8_t>> delegate_payload(const fb::BackendDelegateDataReference* ref) const;

  const ProgramNamedData& named_data() const { return named_data_; }
  const ExternalData* external_data() const { return external_.get(); }

 private:
  Status index_segments();
  Status index_named_data();

  std::shared_ptr<FileData> file_;
  std::shared_ptr<FileData> data_file_;
  ProgramHeader header_;
  const fb::Program* root_ = nullptr;
  std::vector<std::span<const uint8_t>> segments_;
  std::span<const uint8_t> constant_segment_;  // empty when unused
  std::unique_ptr<ExternalData> external_;
  ProgramNamedData named_data_;
  std::vector<std::string> method_names_;  // the execution plans' names, in order
};

}  // namespace vkrt
