#pragma once

#include "program.h"
#include "vkrt/module.h"

namespace vkrt {

// Reads a method's signature without allocating its memory; validates every index it touches.
Result<MethodMeta> build_method_meta(const Program& program, const fb::ExecutionPlan& plan);

// Validates the header fields of a serialized tensor (dtype, storage offset, dynamism, sizes,
// dim order) and returns an unbacked Tensor with them.
Result<Tensor> parse_tensor_layout(const fb::Tensor& t, size_t value_index);

// "aten::add.out" from an Operator table ("" overload -> no dot).
std::string operator_full_name(const fb::Operator& op);

}  // namespace vkrt
