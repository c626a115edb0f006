// Where tensors live in one arena, by lifetime: both graph executors (the cpu executor's host
// arena, the Vulkan executor's device-local one) place their intermediates with it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace vkrt::vgf {

// A tensor to place: its bytes, live from step `first` to step `last` (inclusive; a step is
// whatever the executor counts, an op or a dispatch). A tensor written and read at the same
// step is live there, so an op's output never overlaps its inputs.
struct ArenaBlock {
  uint64_t bytes = 0;
  int64_t first = 0, last = 0;
};

struct ArenaLayout {
  std::vector<uint64_t> offsets;  // per block, a multiple of the alignment
  uint64_t arena_bytes = 0;       // the arena's size; UINT64_MAX where it would pass 2^64
  uint64_t peak_live_bytes = 0;   // the most bytes live at one step: no layout needs less
  uint64_t total_bytes = 0;       // every block's bytes: what one buffer each would take
};

// Largest first, each block at the lowest offset clear of every block placed before it that is
// live at some of the same steps (first fit; the greedy-by-size order TFLite's arena planner
// and IREE's use). A block takes at least 16 bytes, so that empty tensors have their own offset.
// Every offset is a multiple of `alignment` (1 where 0).
ArenaLayout place_in_arena(std::span<const ArenaBlock> blocks, uint64_t alignment);

}  // namespace vkrt::vgf
