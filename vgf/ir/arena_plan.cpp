#include "vgf/ir/arena_plan.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

namespace vkrt::vgf {
namespace {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

uint64_t add_saturating(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kSaturated : sum;
}

uint64_t align_up(uint64_t offset, uint64_t alignment) {
  const uint64_t padded = add_saturating(offset, alignment - 1);
  return padded == kSaturated ? kSaturated : padded / alignment * alignment;
}

bool live_together(const ArenaBlock& a, const ArenaBlock& b) { return !(a.last < b.first || b.last < a.first); }

}  // namespace

ArenaLayout place_in_arena(std::span<const ArenaBlock> blocks, uint64_t alignment) {
  alignment = std::max<uint64_t>(alignment, 1);
  ArenaLayout layout;
  layout.offsets.assign(blocks.size(), 0);
  std::vector<size_t> order(blocks.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return blocks[a].bytes > blocks[b].bytes; });
  struct Placed {
    uint64_t begin, end;
    size_t block;
  };
  std::vector<Placed> placed;
  placed.reserve(blocks.size());
  std::vector<std::pair<uint64_t, uint64_t>> busy;  // [begin, end) of the placed blocks live with this one
  for (size_t i : order) {
    const ArenaBlock& block = blocks[i];
    const uint64_t size = std::max<uint64_t>(block.bytes, 16);
    busy.clear();
    for (const Placed& p : placed)
      if (live_together(blocks[p.block], block)) busy.emplace_back(p.begin, p.end);
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (const auto& [begin, end] : busy) {
      if (add_saturating(offset, size) <= begin) break;  // fits below this one, so below all after it
      if (end > offset) offset = align_up(end, alignment);
    }
    const uint64_t end = add_saturating(offset, size);
    layout.offsets[i] = offset;
    placed.push_back({offset, end, i});
    layout.arena_bytes = std::max(layout.arena_bytes, end);
    layout.total_bytes = add_saturating(layout.total_bytes, block.bytes);
  }
  // The live set is largest at some block's first step.
  for (const ArenaBlock& at : blocks) {
    uint64_t live = 0;
    for (const ArenaBlock& other : blocks)
      if (other.first <= at.first && at.first <= other.last) live = add_saturating(live, other.bytes);
    layout.peak_live_bytes = std::max(layout.peak_live_bytes, live);
  }
  return layout;
}

}  // namespace vkrt::vgf
