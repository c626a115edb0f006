// Bytes of a program or data file: memory-mapped from a path, or borrowed/copied from memory.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vkrt/error.h"

namespace vkrt {

class FileData {
 public:
  // Maps the whole file read-only. NotFound / AccessFailed with the path and errno text.
  static Result<std::shared_ptr<FileData>> map(const std::string& path);
  // Uses `bytes` in place when 16-byte aligned (the caller keeps them alive), else copies once
  // into aligned memory: the schema's force_align is relative to the buffer start.
  static std::shared_ptr<FileData> borrow(std::span<const uint8_t> bytes);
  ~FileData();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& name() const { return name_; }

 private:
  FileData() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // munmap on destruction when set
  std::unique_ptr<uint8_t[], void (*)(uint8_t*)> copy_{nullptr, [](uint8_t*) {}};
  std::string name_;
};

}  // namespace vkrt
