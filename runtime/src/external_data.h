// A .ptd (FlatTensor) file: named tensors and blobs stored outside the program
// (shared/docs/pte-format.md §7.5).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "file_data.h"
#include "headers.h"
#include "vkrt/error.h"
#include "vkrt/scalar_type.h"

namespace vkrt {

struct ExternalEntry {
  std::string_view key;
  std::span<const uint8_t> bytes;
  bool has_layout = false;
  ScalarType dtype = ScalarType::Byte;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
};

class ExternalData {
 public:
  // Checks the FH01 header, verifies the FlatBuffer and bounds-checks every segment.
  static Result<std::unique_ptr<ExternalData>> parse(std::shared_ptr<FileData> file);

  const ExternalEntry* find(std::string_view key) const;
  const std::vector<ExternalEntry>& entries() const { return entries_; }

 private:
  Status parse_v0(const FlatTensorHeader& header, const std::string& name);
  std::shared_ptr<FileData> file_;
  std::vector<ExternalEntry> entries_;
};

}  // namespace vkrt
