// RESCALE, RESCALE → ADD → RESCALE (→ CLAMP) over int8 tensors in one pass (tosa_kernels.h,
// rescale_add_rescale). The plan evaluates each input RESCALE on all 256 int8 values with the
// reference formula and keeps it only where it is an affine map, so that the fused formula of
// compute/residual_add_s8.h is the four ops' exactly:
//   - the input RESCALEs: exact by construction (the map is their own values);
//   - the ADD: the sum of two affine maps, checked to stay within int32 at the extremes (so the
//     ADD's result is the plain sum);
//   - the output RESCALE: the same apply_scale_32, per tensor, with a shift of 32 or more.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "compute/residual_add_s8.h"
#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/reference_loops.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

struct Affine {
  int32_t mult = 0, bias = 0;
};

// The RESCALE of every int8 value as mult·v + bias, or nothing where it is not affine.
std::optional<Affine> affine_over_int8(const RescaleAttr& r) {
  if (r.input_unsigned || r.output_unsigned || r.per_channel || r.multiplier.size() != 1 || r.shift.size() != 1)
    return std::nullopt;
  int8_t values[256];
  int32_t scaled[256];
  for (int v = 0; v < 256; ++v) values[v] = int8_t(v - 128);
  const int64_t shape[1] = {256};
  const TensorRef in{DType::Int8, shape, values}, out{DType::Int32, shape, scaled};
  if (!check_rescale(in, r, out).is_ok()) return std::nullopt;
  detail::rescale_reference(in, r, out);
  const int64_t mult = int64_t(scaled[129]) - scaled[128];  // rescale(1) − rescale(0)
  for (int v = 0; v < 256; ++v)
    if (int64_t(scaled[v]) != int64_t(scaled[128]) + mult * (v - 128)) return std::nullopt;
  if (mult < INT32_MIN || mult > INT32_MAX) return std::nullopt;
  return Affine{int32_t(mult), scaled[128]};
}

bool same_shape(const TensorRef& x, const TensorRef& y) {
  return x.rank() == y.rank() && std::equal(x.shape.begin(), x.shape.end(), y.shape.begin());
}

}  // namespace

std::optional<ResidualAdd> plan_residual_add(const RescaleAttr& rescale_a, const RescaleAttr& rescale_b,
                                             const RescaleAttr& rescale_out, const ClampAttr* clamp) {
  const std::optional<Affine> a = affine_over_int8(rescale_a), b = affine_over_int8(rescale_b);
  if (!a || !b) return std::nullopt;
  // The sum's extremes over every pair (an affine map's are at v = −128 and 127).
  int64_t lowest = 0, highest = 0;
  for (const Affine& x : {*a, *b}) {
    const int64_t at_min = int64_t(x.mult) * -128 + x.bias, at_max = int64_t(x.mult) * 127 + x.bias;
    lowest += std::min(at_min, at_max), highest += std::max(at_min, at_max);
  }
  if (lowest < INT32_MIN || highest > INT32_MAX) return std::nullopt;
  const RescaleAttr& r = rescale_out;
  if (!r.scale32 || r.per_channel || r.input_unsigned || r.output_unsigned || r.input_zp != 0 ||
      r.multiplier.size() != 1 || r.shift.size() != 1 || r.multiplier[0] < 0 || r.shift[0] < 32 || r.shift[0] > 62 ||
      (r.rounding_mode != RoundingMode::SingleRound && r.rounding_mode != RoundingMode::DoubleRound))
    return std::nullopt;
  ResidualAdd plan;
  plan.rescale_a = &rescale_a, plan.rescale_b = &rescale_b, plan.rescale_out = &rescale_out, plan.clamp = clamp;
  plan.a_mult = a->mult, plan.a_bias = a->bias, plan.b_mult = b->mult, plan.b_bias = b->bias;
  if (clamp != nullptr) {
    plan.lo = int32_t(std::max<int64_t>(plan.lo, clamp->min_int));
    plan.hi = int32_t(std::min<int64_t>(plan.hi, clamp->max_int));
    if (plan.lo > plan.hi) return std::nullopt;  // disjoint from int8's range: not a narrowing
  }
  return plan;
}

Status rescale_add_rescale(const TensorRef& a, const RescaleAttr& rescale_a, const TensorRef& a32,
                           const TensorRef& b, const RescaleAttr& rescale_b, const TensorRef& b32,
                           const TensorRef& sum, const RescaleAttr& rescale_out, const TensorRef& rescaled,
                           const ClampAttr* clamp_attrs, const TensorRef& clamped, ParallelRunner* runner,
                           const ResidualAdd* plan) {
  VKRT_RETURN_IF_ERROR(check_rescale(a, rescale_a, a32));
  VKRT_RETURN_IF_ERROR(check_rescale(b, rescale_b, b32));
  VKRT_RETURN_IF_ERROR(check_elementwise_binary(BinaryOp::Add, a32, b32, BinaryAttrs{}, sum));
  VKRT_RETURN_IF_ERROR(check_rescale(sum, rescale_out, rescaled));
  if (clamp_attrs) VKRT_RETURN_IF_ERROR(check_clamp(rescaled, *clamp_attrs, clamped));
  const TensorRef& out = clamp_attrs ? clamped : rescaled;
  const bool fused = plan != nullptr && plan->rescale_a == &rescale_a && plan->rescale_b == &rescale_b &&
                     plan->rescale_out == &rescale_out && plan->clamp == clamp_attrs && a.dtype == DType::Int8 &&
                     b.dtype == DType::Int8 && out.dtype == DType::Int8 && same_shape(a, b) && same_shape(a, out);
  if (!fused) {
    VKRT_RETURN_IF_ERROR(rescale(a, rescale_a, a32, runner));
    VKRT_RETURN_IF_ERROR(rescale(b, rescale_b, b32, runner));
    VKRT_RETURN_IF_ERROR(elementwise_binary(BinaryOp::Add, a32, b32, BinaryAttrs{}, sum, runner));
    VKRT_RETURN_IF_ERROR(rescale(sum, rescale_out, rescaled, runner));
    return clamp_attrs ? clamp(rescaled, *clamp_attrs, clamped) : Status::ok();
  }
  compute::ResidualAddS8 p;
  p.a_mult = plan->a_mult, p.b_mult = plan->b_mult;
  p.bias = plan->a_bias + plan->b_bias;  // within int32: the plan checked the sum at its extremes
  p.out_mult = rescale_out.multiplier[0];
  p.out_shift = rescale_out.shift[0];
  p.double_round = rescale_out.rounding_mode == RoundingMode::DoubleRound;
  p.out_zp = rescale_out.output_zp;
  p.lo = plan->lo, p.hi = plan->hi;
  const int8_t* x = a.as<const int8_t>();
  const int8_t* y = b.as<const int8_t>();
  int8_t* to = out.as<int8_t>();
  detail::split_elements(runner, out.num_elements(), [&](int64_t first, int64_t last) {
    compute::residual_add_s8(p, x + first, y + first, to + first, last - first);
  });
  return Status::ok();
}

}  // namespace vkrt::tosa
