// Element copies between tensors of any layout, shared by the data-movement kernels
// (clone, dim-order copies, permute, expand, view, slice, cat).
#pragma once

#include <span>

#include "op_util.h"

namespace vkrt::portable {

// A Tensor argument of any dtype with data when it has elements: copies that keep the dtype
// move bytes and need not understand them.
Result<Tensor*> any_tensor_arg(const KernelArgs& a, size_t i, std::string_view name);

// For every index of `shape` (row-major), out[out_base + <index, out_strides>] =
// in[in_base + <index, in_strides>], converted from in's dtype to out's. Equal dtypes copy
// bytes (any dtype); different dtypes must both be supported (is_supported_dtype).
void strided_copy(const Tensor& in, const Strides& in_strides, int64_t in_base, Tensor& out,
                  const Strides& out_strides, int64_t out_base, std::span<const int32_t> shape);

// Copies `in` to `out` of the same logical shape (layouts and dtypes may differ).
void copy_same_shape(const Tensor& in, Tensor& out);

// Copies the elements of `in` in logical row-major order into `out` in logical row-major
// order (a reshape); numel must match. Dtypes must be equal. `in` and `out` may share memory
// when both use the default dim order (planned views alias their input, pte-format.md §9.2).
void reshape_copy(const Tensor& in, Tensor& out);

}  // namespace vkrt::portable
