#include "cortex_m/binary_args.h"

namespace vkrt::cortex_m {

Result<ChannelBroadcast> channel_broadcast(const KernelArgs& args, size_t self_index, const Tensor& self,
                                           size_t other_index, const Tensor& other, size_t out_index, Tensor& out) {
  ChannelBroadcast shape;
  const Tensor& big = self.numel() >= other.numel() ? self : other;
  VKRT_RETURN_IF_ERROR(prepare_output(args, out_index, out, big.sizes()));
  if (!out.same_layout(big) && !(out.sizes().size() == big.sizes().size() && out.dim_order().size() == big.dim_order().size() &&
                                 std::equal(out.sizes().begin(), out.sizes().end(), big.sizes().begin()) &&
                                 std::equal(out.dim_order().begin(), out.dim_order().end(), big.dim_order().begin())))
    return args.error(out_index, "out", "expected the input's sizes and memory order");
  shape.size = out.numel();
  const bool same = self.rank() == other.rank() &&
                    std::equal(self.sizes().begin(), self.sizes().end(), other.sizes().begin()) &&
                    std::equal(self.dim_order().begin(), self.dim_order().end(), other.dim_order().begin());
  if (same) return shape;
  // Channel broadcast: the channel dim is innermost in memory: the last entry of dim_order.
  const int32_t channels = out.rank() > 0 ? out.size(out.dim_order()[out.rank() - 1]) : 1;
  const Tensor& small = self.numel() >= other.numel() ? other : self;
  if (out.rank() != 4 || small.numel() != channels) {
    return args.error(self.numel() >= other.numel() ? other_index : self_index,
                      self.numel() >= other.numel() ? "other" : "self",
                      "shapes differ and this is not a per-channel broadcast");
  }
  shape.channels = channels;
  shape.small_operand = self.numel() >= other.numel() ? 2 : 1;
  return shape;
}

}  // namespace vkrt::cortex_m
