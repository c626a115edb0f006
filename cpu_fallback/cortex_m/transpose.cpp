// cortex_m::transpose.out (arm_transpose_s8): a rank <= 4 permutation of logical dims.
#include <cstring>

#include "cortex_m/data_movement.h"
#include "cortex_m/kernel_util.h"

namespace vkrt::cortex_m {

void transpose_bytes(const TransposeParams& p, size_t element_size, const void* input, void* output) {
  const auto* in = static_cast<const uint8_t*>(input);
  auto* out = static_cast<uint8_t*>(output);
  const auto& s = p.out_sizes;
  for (int32_t i0 = 0; i0 < s[0]; ++i0)
    for (int32_t i1 = 0; i1 < s[1]; ++i1)
      for (int32_t i2 = 0; i2 < s[2]; ++i2)
        for (int32_t i3 = 0; i3 < s[3]; ++i3) {
          const int64_t src = i0 * p.in_strides[0] + i1 * p.in_strides[1] + i2 * p.in_strides[2] + i3 * p.in_strides[3];
          const int64_t dst =
              i0 * p.out_strides[0] + i1 * p.out_strides[1] + i2 * p.out_strides[2] + i3 * p.out_strides[3];
          std::memcpy(out + dst * int64_t(element_size), in + src * int64_t(element_size), element_size);
        }
}

namespace {

// transpose(input, perm[], out) + return: 4 arguments.
constexpr char kTransposeOp[] = "cortex_m::transpose.out";

struct TransposeCall {
  TransposeParams p;
  Tensor* input = nullptr;
  Tensor* out = nullptr;
};

Result<TransposeCall> parse_transpose_call(const KernelArgs& args) {
  VKRT_RETURN_IF_ERROR(args.expect_count(4, 4));
  TransposeCall c;
  VKRT_ASSIGN_OR_RETURN(c.input, args.tensor(0, "input"));
  VKRT_ASSIGN_OR_RETURN(c.out, args.tensor(2, "out"));
  const Tensor* input = c.input;
  Tensor* out = c.out;
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 0, "input", *input, {ScalarType::Char, ScalarType::Short}));
  VKRT_RETURN_IF_ERROR(expect_dtype(args, 2, "out", *out, {input->dtype()}));
  const int rank = input->rank();
  if (rank > 4) return args.error(0, "input", "rank above 4");
  int64_t perm[4] = {};
  VKRT_ASSIGN_OR_RETURN(size_t n, args.int_list(1, "perm", std::span<int64_t>(perm, 4)));
  if (int(n) != rank) return args.error(1, "perm", "expected " + std::to_string(rank) + " entries");
  bool seen[4] = {};
  for (int d = 0; d < rank; ++d) {
    if (perm[d] < 0) perm[d] += rank;
    if (perm[d] < 0 || perm[d] >= rank || seen[perm[d]]) return args.error(1, "perm", "not a permutation");
    seen[perm[d]] = true;
  }
  int32_t sizes[4];
  for (int d = 0; d < rank; ++d) sizes[d] = input->size(int(perm[d]));
  VKRT_RETURN_IF_ERROR(output_sizes(args, 2, *out, std::span<const int32_t>(sizes, rank)));
  TransposeParams& p = c.p;
  p.rank = rank;
  for (int d = 0; d < rank; ++d) {
    const int k = 4 - rank + d;
    p.out_sizes[k] = sizes[d];
    p.out_strides[k] = out->strides()[d];
    p.in_strides[k] = input->strides()[perm[d]];
  }
  return c;
}

Status transpose_out(KernelContext& ctx, std::span<EValue* const> argv) {
  const KernelArgs args(kTransposeOp, argv);
  VKRT_ASSIGN_OR_RETURN(TransposeCall c, prepared_or_parse(ctx, args, parse_transpose_call));
  VKRT_RETURN_IF_ERROR(output_memory(args, 2, *c.out));
  VKRT_RETURN_IF_ERROR(expect_data(args, 0, "input", *c.input));
  transpose_bytes(c.p, c.input->element_size(), c.input->data(), c.out->data());
  return Status::ok();
}

}  // namespace

VKRT_REGISTER_KERNEL_WITH_PREPARE(kTransposeOp, transpose_out, (prepare_parsed<kTransposeOp, parse_transpose_call>));

}  // namespace vkrt::cortex_m
