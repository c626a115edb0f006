// Shared shape of the two pooling ops (NHWC; windows over in-bounds taps only).
#pragma once

#include <cstdint>
#include <string>

#include "compute/pool.h"
#include "cortex_m/kernel_util.h"
#include "vkrt/error.h"

namespace vkrt::cortex_m {

struct PoolParams {
  int32_t batches = 1, in_h = 0, in_w = 0, channels = 0;
  int32_t out_h = 0, out_w = 0;
  int32_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int32_t activation_min = -128, activation_max = 127;
};

inline Status check_pool(const PoolParams& p, bool int16) {
  if (p.batches < 0 || p.in_h < 0 || p.in_w < 0 || p.channels < 0 || p.out_h < 0 || p.out_w < 0)
    return Status(Error::InvalidArgument, "negative size");
  if (p.kernel_h < 1 || p.kernel_w < 1) return Status(Error::InvalidArgument, "kernel_size must be >= 1");
  if (p.stride_h < 1 || p.stride_w < 1) return Status(Error::InvalidArgument, "stride must be >= 1");
  if (p.pad_h < 0 || p.pad_w < 0) return Status(Error::InvalidArgument, "padding must be >= 0");
  const int32_t lo = int16 ? -32768 : -128, hi = int16 ? 32767 : 127;
  if (p.activation_min < lo || p.activation_max > hi || p.activation_min > p.activation_max)
    return Status(Error::InvalidArgument, "activation range invalid");
  return Status::ok();
}

// The compute core's windows (compute/pool.h) for these parameters.
inline compute::PoolWindows pool_windows(const PoolParams& p) {
  return compute::PoolWindows{p.batches, p.in_h,     p.in_w,     p.channels, p.out_h, p.out_w,
                              p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.pad_h, p.pad_w};
}

// What the compute core's pools require beyond check_pool: every output window holds an input
// tap (CMSIS-NN reports an argument error otherwise), and averages of fewer than 2^16 taps (their
// sums of int16 then stay in int32).
inline Status check_pool_windows(const PoolParams& p, bool average) {
  if (const auto empty = compute::pool_empty_window(pool_windows(p)))
    return Status(Error::InvalidArgument, std::string(empty->row ? "output row " : "output column ") +
                                              std::to_string(empty->index) + " has no input taps");
  if (average && int64_t(p.kernel_h) * p.kernel_w >= (int64_t(1) << 16))
    return Status(Error::InvalidArgument, "pooling window too large");
  return Status::ok();
}

// A parsed avg/max pool call (PreparedCall), and execute's check of its tensors' data.
struct PoolCall {
  PoolParams p;
  Tensor* input = nullptr;
  Tensor* out = nullptr;
};
inline Status pool_data(const KernelArgs& args, const PoolCall& c) {
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  return expect_data(args, args.size() - 2, "out", *c.out);
}

}  // namespace vkrt::cortex_m
