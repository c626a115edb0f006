// Building blocks of the TOSA output-shape rules (tosa.md §6-§12) shared by the operator
// families in vgf/ir/ops/. kDynamicDim propagates through every helper; a helper fails only on
// facts that are known.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "vgf/ir/op_descriptor.h"

namespace vkrt::vgf::shape_rules {

inline bool known(int64_t d) { return d != kDynamicDim; }
std::string shape_str(const Shape& s);  // "[1,?,3]"

Result<Shape> broadcast(const OpContext& c, const Shape& a, const Shape& b);
Status need_rank(const OpContext& c, const Shape& s, size_t rank, const char* what);
Result<int> check_axis(const OpContext& c, int32_t axis, size_t rank);

// (in - 1 + pad_a + pad_b - (k - 1) * dil) / stride + 1, exact division required.
Result<int64_t> conv_out(const OpContext& c, int64_t in, int64_t k, int64_t pad_a, int64_t pad_b,
                         int64_t stride, int64_t dil);
// (in + pad_a + pad_b - k) / stride + 1, exact division required.
Result<int64_t> pool_out(const OpContext& c, int64_t in, int64_t k, int64_t pad_a, int64_t pad_b,
                         int64_t stride);
// ((in - 1) * n - offset + border) / d + 1, exact division required.
Result<int64_t> resize_out(const OpContext& c, int64_t in, int64_t n, int64_t d, int64_t offset,
                           int64_t border);

// Element-type rules shared by many ops (TOSA's in_out_t): every tensor operand in `operands`
// (input indices) and output 0 have one element type.
Status same_types(const OpContext& c, std::initializer_list<size_t> operands);
// same_types over every input and the output: elementwise and data-layout ops.
Status all_same_type(const OpContext& c);

// Rules shared by many ops.
Result<std::vector<Shape>> same_as_first_input(const OpContext& c, std::span<const Shape* const> in);
Result<std::vector<Shape>> broadcast_inputs(const OpContext& c, std::span<const Shape* const> in);

}  // namespace vkrt::vgf::shape_rules
