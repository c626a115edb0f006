#include "common/fuzz_seeds.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace vkrt::testing {

void write_fuzz_seed(const std::string& name, const std::vector<uint8_t>& bytes) {
  const char* dir = std::getenv("VKRT_FUZZ_SEED_DIR");
  if (dir == nullptr || dir[0] == '\0' || bytes.empty()) return;
  const std::string path = std::string(dir) + "/seed-" + name;
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  std::printf("fuzz seed written: %s (%zu bytes)\n", path.c_str(), bytes.size());
}

}  // namespace vkrt::testing
