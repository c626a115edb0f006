// Decoded weight streams kept between inferences, so that a network's weights are decoded once and
// not at every inference (decoding dominates the simulation of small convolutions and fully
// connected layers). The virtual driver keeps one per network; not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ethosu/virtual/weight_decoder.h"
#include "vkrt/error.h"

namespace vkrt::ethosu::virtual_npu {

class WeightCache {
 public:
  // Decoded weights are kept up to this many bytes; streams past it are decoded at every use.
  static constexpr size_t kMaxBytes = size_t(64) << 20;

  // decode_weight_stream(stream, layout), from the cache when the same bytes were decoded with the
  // same layout before. A stream is found by comparing its bytes in full, so a stream that changed
  // (weights a DMA rewrote) is decoded again. The pointer is valid until the next call.
  Result<const std::vector<int16_t>*> decode(std::span<const uint8_t> stream, const WeightStreamLayout& layout);

  size_t entries() const { return entries_.size(); }

 private:
  struct Entry {
    std::vector<uint8_t> stream;
    WeightStreamLayout layout;
    std::vector<int16_t> weights;
  };
  std::vector<Entry> entries_;
  size_t bytes_ = 0;
  std::vector<int16_t> uncached_;
};

}  // namespace vkrt::ethosu::virtual_npu
