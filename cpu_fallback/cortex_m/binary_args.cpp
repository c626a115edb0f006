#include "cortex_m/binary_args.h"

namespace vkrt::cortex_m {

Result<ChannelBroadcast> channel_broadcast(const KernelArgs& args, size_t self_index, const Tensor& self,
                                           size_t other_index, const Tensor& other, size_t out_index, Tensor& out) {
  ChannelBroadcast shape;
  const Tensor& big = self.numel() >= other.numel() ? self : other;
  VKRT_RETURN_IF_ERROR(output_sizes(args, out_index, out, big.sizes()));
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

Status binary_tensors(const KernelArgs& args, size_t self_index, size_t other_index, size_t out_index,
                      Tensor** self, Tensor** other, Tensor** out) {
  VKRT_ASSIGN_OR_RETURN(*self, args.tensor(self_index, "self"));
  VKRT_ASSIGN_OR_RETURN(*other, args.tensor(other_index, "other"));
  VKRT_ASSIGN_OR_RETURN(*out, args.tensor(out_index, "out"));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, self_index, "self", **self, {ScalarType::Char, ScalarType::Short}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, other_index, "other", **other, {(*self)->dtype()}));
  return expect_dtype(args, out_index, "out", **out, {(*self)->dtype()});
}

Status binary_data(const KernelArgs& args, size_t self_index, size_t other_index, size_t out_index,
                   const Tensor& self, const Tensor& other, const Tensor& out) {
  VKRT_RETURN_IF_ERROR(output_memory(args, out_index, out));
  VKRT_RETURN_IF_ERROR(expect_data(args, self_index, "self", self));
  return expect_data(args, other_index, "other", other);
}

}  // namespace vkrt::cortex_m
