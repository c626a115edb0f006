#include "common/conformance.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace vkrt::testing {

std::string conformance_dir() {
  const char* env = std::getenv("VKRT_CONFORMANCE_DIR");
  std::string dir = (env && *env) ? env : VKRT_DEFAULT_CONFORMANCE_DIR;
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec) ? dir : std::string();
}

std::string conformance_path(const std::string& relative) {
  std::string root = conformance_dir();
  if (root.empty()) return {};
  std::string path = root + "/" + relative;
  std::error_code ec;
  return std::filesystem::exists(path, ec) ? path : std::string();
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot open " << path;
    return {};
  }
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace vkrt::testing
