// Test helpers: read little-endian fields and verify/decode the FlatBuffers of the three formats
// with the generated tables (generated for this test from runtime/schema, independently of the
// writer's code).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "bundled_program_generated.h"
#include "common/conformance.h"
#include "flat_tensor_generated.h"
#include "program_generated.h"
#include "vkrt/error.h"

namespace vkrt::testing {

namespace et = executorch_flatbuffer;
namespace ft = flat_tensor_flatbuffer;
namespace bp = bundled_program_flatbuffer;

inline uint32_t u32_at(std::span<const uint8_t> b, size_t off) {
  uint32_t v = 0;
  if (off + 4 <= b.size()) std::memcpy(&v, b.data() + off, 4);
  return v;
}
inline uint64_t u64_at(std::span<const uint8_t> b, size_t off) {
  uint64_t v = 0;
  if (off + 8 <= b.size()) std::memcpy(&v, b.data() + off, 8);
  return v;
}
inline std::string str_at(std::span<const uint8_t> b, size_t off, size_t n) {
  if (off + n > b.size()) return "";
  return std::string(reinterpret_cast<const char*>(b.data()) + off, n);
}
inline uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// eh00 fields, read by hand at the offsets of pte-format §2.
struct ExtendedHeader {
  bool present = false;
  uint32_t length = 0;
  uint64_t program_size = 0, segment_base_offset = 0, segment_data_size = 0;
};
inline ExtendedHeader read_eh00(std::span<const uint8_t> b) {
  ExtendedHeader h;
  if (str_at(b, 8, 4) != "eh00") return h;
  h.present = true;
  h.length = u32_at(b, 12);
  h.program_size = u64_at(b, 16);
  h.segment_base_offset = u64_at(b, 24);
  h.segment_data_size = h.length >= 32 ? u64_at(b, 32) : 0;
  return h;
}

// Verifies the program FlatBuffer ([0, program_size)) and returns its root, or nullptr (with a
// test failure).
inline const et::Program* verified_program(std::span<const uint8_t> file) {
  ExtendedHeader h = read_eh00(file);
  size_t size = h.present ? size_t(h.program_size) : file.size();
  if (size > file.size()) {
    ADD_FAILURE() << "program_size " << size << " exceeds file size " << file.size();
    return nullptr;
  }
  flatbuffers::Verifier verifier(file.data(), size);
  if (!et::VerifyProgramBuffer(verifier)) {
    ADD_FAILURE() << "FlatBuffers verifier rejected the program";
    return nullptr;
  }
  return et::GetProgram(file.data());
}

inline const ft::FlatTensor* verified_flat_tensor(std::span<const uint8_t> file) {
  flatbuffers::Verifier verifier(file.data(), file.size());
  if (!ft::VerifyFlatTensorBuffer(verifier)) {
    ADD_FAILURE() << "FlatBuffers verifier rejected the FlatTensor";
    return nullptr;
  }
  return ft::GetFlatTensor(file.data());
}

inline const bp::BundledProgram* verified_bundled(std::span<const uint8_t> file) {
  flatbuffers::Verifier verifier(file.data(), file.size());
  if (!bp::VerifyBundledProgramBuffer(verifier)) {
    ADD_FAILURE() << "FlatBuffers verifier rejected the BundledProgram";
    return nullptr;
  }
  return bp::GetBundledProgram(file.data());
}

// Bytes of segment i of a program file (empty + failure when out of range).
inline std::vector<uint8_t> segment_bytes(std::span<const uint8_t> file, const et::Program* p, size_t i) {
  ExtendedHeader h = read_eh00(file);
  if (p->segments() == nullptr || i >= p->segments()->size()) {
    ADD_FAILURE() << "no segment " << i;
    return {};
  }
  const auto* s = p->segments()->Get(flatbuffers::uoffset_t(i));
  uint64_t begin = h.segment_base_offset + s->offset();
  if (begin + s->size() > file.size()) {
    ADD_FAILURE() << "segment " << i << " runs past the file";
    return {};
  }
  return std::vector<uint8_t>(file.begin() + begin, file.begin() + begin + s->size());
}

template <typename T>
std::vector<T> to_vector(const flatbuffers::Vector<T>* v) {
  if (v == nullptr) return {};
  return std::vector<T>(v->begin(), v->end());
}

// Unwraps a Result in a test, failing with its status.
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                                \
  auto VKRT_CONCAT(res_, __LINE__) = (expr);                                           \
  ASSERT_TRUE(VKRT_CONCAT(res_, __LINE__).ok()) << VKRT_CONCAT(res_, __LINE__).status().to_string(); \
  lhs = std::move(VKRT_CONCAT(res_, __LINE__)).value()

}  // namespace vkrt::testing
