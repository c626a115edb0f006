// Reader for CMSIS-NN unit-test vectors (C headers of #defines and const arrays), used by the
// conformance suite. A vector folder is read starting from its test_data.h, following exactly
// the headers it includes (some folders hold stale extra headers). Every byte is untrusted:
// malformed text gives an error message naming the file, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vkrt::testing::cmsis {

struct CArray {
  std::string type;  // "int8_t", "int16_t", "int32_t", "int64_t", ...
  std::vector<int64_t> values;
};

class VectorData {
 public:
  // Reads <dir>/test_data.h and the headers it includes. Returns "" or an error message.
  std::string load(const std::string& dir);
  // Same from text already in memory (for the reader's own tests): files[name] = contents.
  std::string load_from(const std::map<std::string, std::string>& files, const std::string& entry);

  // Macro value as an integer ("SAME"/"VALID" and other words are not integers).
  std::optional<int64_t> define_int(const std::string& name) const;
  std::optional<std::string> define_text(const std::string& name) const;
  // A braced list macro ({1, 2, 3}).
  std::optional<std::vector<int64_t>> define_list(const std::string& name) const;
  // Array by name, following `const T *const a = b;` aliases. Null for NULL pointers or absent names.
  const CArray* array(const std::string& name) const;
  bool has_symbol(const std::string& name) const;

  const std::map<std::string, std::string>& defines() const { return defines_; }
  const std::map<std::string, CArray>& arrays() const { return arrays_; }

 private:
  std::string parse(const std::string& text, const std::string& file);
  std::map<std::string, std::string> defines_;
  std::map<std::string, CArray> arrays_;
  std::map<std::string, std::string> aliases_;  // name -> target name, or "" for NULL
};

// One row of INDEX.tsv: a folder and the CMSIS-NN unit tests that use it.
struct IndexEntry {
  std::string dir;
  std::vector<std::string> unit_tests;
};
// Parses INDEX.tsv text (header line first). Returns "" or an error message.
std::string parse_index(const std::string& text, std::vector<IndexEntry>* out);

}  // namespace vkrt::testing::cmsis
