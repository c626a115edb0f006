#include "bench_io.h"

#include <cstring>
#include <sstream>
#include <string>

namespace vkrt::bench {

HostBuffer host_buffer(const vgf::Graph& g, vgf::TensorId id, std::mt19937& rng) {
  HostBuffer h;
  const auto& info = g.tensor(id);
  int64_t n = 1;
  for (int64_t d : info.shape) {
    n *= d;
    h.sizes.push_back(int32_t(d));
  }
  h.bytes.resize(size_t(n) * vgf::dtype_storage_bytes(info.dtype));
  for (auto& b : h.bytes) b = uint8_t(rng());
  if (info.dtype == vgf::DType::Fp32) {  // finite floats in [-1, 1]
    std::uniform_real_distribution<float> d(-1, 1);
    for (int64_t i = 0; i < n; ++i) {
      float f = d(rng);
      std::memcpy(&h.bytes[size_t(i) * 4], &f, 4);
    }
  } else if (info.dtype == vgf::DType::Fp16) {
    for (int64_t i = 0; i < n; ++i) {  // fp16 values in [-1, 1): sign, exponent <= 14
      uint16_t v = uint16_t((rng() & 0x83FF) | ((rng() % 15) << 10));
      std::memcpy(&h.bytes[size_t(i) * 2], &v, 2);
    }
  }
  h.tensor = *Tensor::make(vgf::dtype_to_scalar_type(info.dtype), h.sizes, h.bytes.data());
  return h;
}

std::vector<int64_t> parse_list(const char* text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(std::stoll(item));
  }
  return out;
}

}  // namespace vkrt::bench
