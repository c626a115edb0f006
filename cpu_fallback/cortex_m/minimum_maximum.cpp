// cortex_m::minimum.out and cortex_m::maximum.out (one file: the same op with the comparison flipped).
#include "cortex_m/minimum_maximum.h"

#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {
namespace {

template <typename T, bool kMax>
void select(const Broadcast4& s, const T* a, const T* b, T* out) {
  for (int32_t i0 = 0; i0 < s.sizes[0]; ++i0)
    for (int32_t i1 = 0; i1 < s.sizes[1]; ++i1)
      for (int32_t i2 = 0; i2 < s.sizes[2]; ++i2)
        for (int32_t i3 = 0; i3 < s.sizes[3]; ++i3) {
          const T x = a[i0 * s.a_strides[0] + i1 * s.a_strides[1] + i2 * s.a_strides[2] + i3 * s.a_strides[3]];
          const T y = b[i0 * s.b_strides[0] + i1 * s.b_strides[1] + i2 * s.b_strides[2] + i3 * s.b_strides[3]];
          out[i0 * s.out_strides[0] + i1 * s.out_strides[1] + i2 * s.out_strides[2] + i3 * s.out_strides[3]] =
              kMax ? (x >= y ? x : y) : (x <= y ? x : y);
        }
}

// (self, other, out) + return: 4 arguments. Logical sizes right-aligned to 4 dims (padded with 1);
// every tensor is addressed through its own strides, so any memory order works.
constexpr char kMinOp[] = "cortex_m::minimum.out";
constexpr char kMaxOp[] = "cortex_m::maximum.out";

struct MinMaxCall {
  Broadcast4 s;
  Tensor* a = nullptr;
  Tensor* b = nullptr;
  Tensor* out = nullptr;
};

Result<MinMaxCall> parse_min_max_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(4, 4));
  MinMaxCall c;
  VKRT_ASSIGN_OR_RETURN(c.a, args.tensor(0, "self"));
  VKRT_ASSIGN_OR_RETURN(c.b, args.tensor(1, "other"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(2, "out"));
  const Tensor* a = c.a;
  const Tensor* b = c.b;
  Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "self", *a, {ScalarType::Char, ScalarType::Short}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 1, "other", *b, {a->dtype()}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 2, "out", *out, {a->dtype()}));
  if (a->rank() > 4) return args.error(0, "self", "rank above 4");
  if (b->rank() > 4) return args.error(1, "other", "rank above 4");
  const int rank = a->rank() > b->rank() ? a->rank() : b->rank();
  Broadcast4& s = c.s;
  int32_t sizes[4] = {1, 1, 1, 1};
  for (int d = 0; d < 4; ++d) {
    const int da = d - (4 - a->rank()), db = d - (4 - b->rank());
    const int32_t sa = da >= 0 ? a->size(da) : 1, sb = db >= 0 ? b->size(db) : 1;
    if (sa != sb && sa != 1 && sb != 1)
      return args.error(1, "other", "sizes cannot be broadcast with self at dim " + std::to_string(d - (4 - rank)));
    s.sizes[d] = sa == 1 ? sb : sa;
    s.a_strides[d] = (da >= 0 && sa != 1) ? a->strides()[da] : 0;
    s.b_strides[d] = (db >= 0 && sb != 1) ? b->strides()[db] : 0;
    sizes[d] = s.sizes[d];
  }
  VKRT_RETURN_IF_ERROR(output_sizes(args, 2, *out, std::span<const int32_t>(sizes + 4 - rank, rank)));
  for (int d = 0; d < 4; ++d) {
    const int dout = d - (4 - rank);
    s.out_strides[d] = dout >= 0 ? out->strides()[dout] : 0;
  }
  return c;
}

template <bool kMax>
Status min_max_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kMax ? kMaxOp : kMinOp, argv);
  VKRT_ASSIGN_OR_RETURN(MinMaxCall c, prepared_or_parse(ctx, args, parse_min_max_call));
  VKRT_RETURN_IF_ERROR(output_memory(args, 2, *c.out));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "self", *c.a));
  VKRT_RETURN_IF_ERROR(expect_data(args, 1, "other", *c.b));
  if (c.a->dtype() == ScalarType::Short)
    select<int16_t, kMax>(c.s, c.a->data_as<int16_t>(), c.b->data_as<int16_t>(), c.out->data_as<int16_t>());
  else
    select<int8_t, kMax>(c.s, c.a->data_as<int8_t>(), c.b->data_as<int8_t>(), c.out->data_as<int8_t>());
  return Status::ok();
}

}  // namespace

void minimum_s8(const Broadcast4& s, const int8_t* a, const int8_t* b, int8_t* out) { select<int8_t, false>(s, a, b, out); }
void maximum_s8(const Broadcast4& s, const int8_t* a, const int8_t* b, int8_t* out) { select<int8_t, true>(s, a, b, out); }
void minimum_s16(const Broadcast4& s, const int16_t* a, const int16_t* b, int16_t* out) {
  select<int16_t, false>(s, a, b, out);
}
void maximum_s16(const Broadcast4& s, const int16_t* a, const int16_t* b, int16_t* out) {
  select<int16_t, true>(s, a, b, out);
}

VKRT_REGISTER_KERNEL_WITH_PREPARE(kMinOp, min_max_out<false>, (prepare_parsed<kMinOp, parse_min_max_call>));
VKRT_REGISTER_KERNEL_WITH_PREPARE(kMaxOp, min_max_out<true>, (prepare_parsed<kMaxOp, parse_min_max_call>));

}  // namespace vkrt::cortex_m
