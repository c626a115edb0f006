#include "ethosu/virtual/weight_cache.h"

#include <cstring>

namespace vkrt::ethosu::virtual_npu {

Result<const std::vector<int16_t>*> WeightCache::decode(std::span<const uint8_t> stream,
                                                        const WeightStreamLayout& layout) {
  for (const Entry& e : entries_) {
    if (e.stream.size() == stream.size() && e.layout == layout &&
        (stream.empty() || std::memcmp(e.stream.data(), stream.data(), stream.size()) == 0)) {
      return &e.weights;
    }
  }
  VKRT_ASSIGN_OR_RETURN(std::vector<int16_t> weights, decode_weight_stream(stream, layout));
  const size_t cost = stream.size() + weights.size() * sizeof(int16_t);
  if (bytes_ + cost > kMaxBytes) {
    uncached_ = std::move(weights);
    return &uncached_;
  }
  bytes_ += cost;
  entries_.push_back({std::vector<uint8_t>(stream.begin(), stream.end()), layout, std::move(weights)});
  return &entries_.back().weights;
}

}  // namespace vkrt::ethosu::virtual_npu
