// Helpers of the creation family (op_fill.cpp, op_arange.cpp, op_random.cpp, op_pad.cpp):
// size-list arguments, ExecuTorch's overflow-checked Scalar casts, MemoryFormat? arguments
// and a small random generator that never touches the heap.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "op_util.h"

namespace vkrt::portable {

// A `SymInt[] size` argument as a Shape: at most kMaxRank dims, each in [0, INT32_MAX].
inline Result<Shape> size_list_arg(const KernelArgs& a, size_t i, std::string_view name) {
  std::array<int64_t, kMaxRank> sizes{};
  VKRT_ASSIGN_OR_RETURN(size_t count, a.int_list(i, name, sizes));
  Shape s;
  s.rank = int(count);
  for (size_t d = 0; d < count; ++d) {
    if (sizes[d] < 0 || sizes[d] > std::numeric_limits<int32_t>::max()) {
      return a.error(i, name, "size " + std::to_string(sizes[d]) + " of dim " + std::to_string(d) +
                                  " is out of range [0, 2^31)");
    }
    s.dims[d] = int32_t(sizes[d]);
  }
  return s;
}

// The largest finite value of a floating dtype.
// Writes `v` (in compute type C) to every element of `out`. Every element is written, so the
// memory order does not matter (a tensor's elements are dense in any dim order).
template <typename C>
inline void fill_all(Tensor& out, C v) {
  const int64_t numel = out.numel();
  for (int64_t n = 0; n < numel; ++n) store_elem<C>(out.data(), out.dtype(), n, v);
}

// A `MemoryFormat?` argument: None, or an Int naming torch.contiguous_format (0) or
// torch.preserve_format (1), the only layouts ExecuTorch's portable kernels accept.
inline Status check_memory_format_arg(const KernelArgs& a, size_t i, std::string_view name) {
  if (i < a.size() && a.is_none(i)) return Status::ok();
  VKRT_ASSIGN_OR_RETURN(int64_t v, a.int_value(i, name));
  if (v != 0 && v != 1) {
    return a.error(i, name, "memory format " + std::to_string(v) +
                                " is not supported (only contiguous (0) or preserve (1))");
  }
  return Status::ok();
}

// xoshiro256** seeded per call through splitmix64 from a global counter and the clock: a
// fresh, different stream on each call (as upstream's random_device seeding), no heap, no
// system calls beyond the clock.
class RandomBits {
 public:
  RandomBits() {
    static std::atomic<uint64_t> counter{0x9E3779B97F4A7C15ull};
    uint64_t x = counter.fetch_add(0xD1B54A32D192ED03ull, std::memory_order_relaxed) ^
                 uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
    for (auto& w : s_) w = splitmix64(x);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with `bits` bits of resolution (<= 53): exact in a dtype with at least
  // that many significand bits, so the value stays below 1 once stored.
  double uniform(int bits = 53) { return double(next() >> (64 - bits)) * std::ldexp(1.0, -bits); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::array<uint64_t, 4> s_{};
};

}  // namespace vkrt::portable
