// Data movement (tosa.md §10): CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE, TRANSPOSE.
// Values are only moved, never interpreted (except PAD's constant), so each op works on any
// dtype by element size.
#include <cstring>

#include "cpu_fallback/tosa/kernel_util.h"
#include "cpu_fallback/tosa/tosa_kernels.h"

namespace vkrt::tosa {
namespace {

using namespace detail;

// Calls f(out_flat, idx) for every element of `shape` in row-major order; idx is the multi-index.
template <typename F>
void for_each_index(std::span<const int64_t> shape, F&& f) {
  int64_t total = 1;
  for (int64_t d : shape) total *= d;
  if (total == 0) return;
  const int rank = int(shape.size());
  std::array<int64_t, kMaxRank> idx{};
  for (int64_t o = 0; o < total; ++o) {
    f(o, idx);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < shape[size_t(d)]) break;
      idx[size_t(d)] = 0;
    }
  }
}

// Copies out[o] = in[map(idx)] element by element, for an index map computed per output index.
template <typename Map>
void gather_elements(const TensorRef& input, const TensorRef& output, Map&& map) {
  dispatch_by_size(input.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.as<const T>();
    T* out = output.as<T>();
    for_each_index(output.shape, [&](int64_t o, const std::array<int64_t, kMaxRank>& idx) {
      out[o] = in[map(idx)];
    });
  });
}

Status check_in_out(const char* op, const TensorRef& input, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tensor(op, "input", input));
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  VKRT_RETURN_IF_ERROR(expect_dtype(op, "output", output, input.dtype));
  return Status::ok();
}

Status check_same_rank(const char* op, const TensorRef& input, const TensorRef& output) {
  if (output.rank() != input.rank())
    return make_error(Error::InvalidArgument, op, ": output rank ", output.rank(), " differs from input rank ",
                      input.rank());
  return Status::ok();
}

Status check_axis(const char* op, int32_t axis, int rank) {
  if (axis < 0 || axis >= rank)
    return make_error(Error::InvalidArgument, op, ": axis ", axis, " outside [0, ", rank, ")");
  return Status::ok();
}

}  // namespace

// ---- CONCAT --------------------------------------------------------------------------------

Status check_concat(std::span<const TensorRef> inputs, const AxisAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "CONCAT";
  if (inputs.empty()) return make_error(Error::InvalidArgument, op, ": no inputs");
  VKRT_RETURN_IF_ERROR(check_tensor(op, "output", output));
  VKRT_RETURN_IF_ERROR(check_axis(op, attrs.axis, output.rank()));
  int64_t axis_total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorRef& in = inputs[i];
    VKRT_RETURN_IF_ERROR(check_tensor(op, "input", in));
    if (in.dtype != output.dtype)
      return make_error(Error::InvalidArgument, op, ": input ", i, " is ", dtype_name(in.dtype), ", output is ",
                        dtype_name(output.dtype));
    if (in.rank() != output.rank())
      return make_error(Error::InvalidArgument, op, ": input ", i, " has rank ", in.rank(), ", output ",
                        output.rank());
    for (int d = 0; d < in.rank(); ++d)
      if (d != attrs.axis && in.dim(d) != output.dim(d))
        return make_error(Error::InvalidArgument, op, ": input ", i, " shape ", shape_string(in.shape),
                          " differs from output ", shape_string(output.shape), " outside axis ", attrs.axis);
    axis_total += in.dim(attrs.axis);
  }
  if (axis_total != output.dim(attrs.axis))
    return make_error(Error::InvalidArgument, op, ": inputs sum to ", axis_total, " along axis ", attrs.axis,
                      ", output has ", output.dim(attrs.axis));
  return Status::ok();
}

Status concat(std::span<const TensorRef> inputs, const AxisAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_concat(inputs, attrs, output));
  // outer = product of dims before the axis; each input contributes a contiguous block of
  // dim(axis) * inner elements per outer step.
  const int axis = attrs.axis;
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= output.dim(d);
  for (int d = axis + 1; d < output.rank(); ++d) inner *= output.dim(d);
  const size_t esize = dtype_size(output.dtype);
  const size_t out_row = size_t(output.dim(axis) * inner) * esize;
  auto* out = output.as<uint8_t>();
  size_t offset = 0;
  for (const TensorRef& in : inputs) {
    const size_t block = size_t(in.dim(axis) * inner) * esize;
    const auto* src = in.as<const uint8_t>();
    if (block)
      for (int64_t o = 0; o < outer; ++o) std::memcpy(out + size_t(o) * out_row + offset, src + size_t(o) * block, block);
    offset += block;
  }
  return Status::ok();
}

// ---- PAD -----------------------------------------------------------------------------------

Status check_pad(const TensorRef& input, const PadAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "PAD";
  VKRT_RETURN_IF_ERROR(check_in_out(op, input, output));
  VKRT_RETURN_IF_ERROR(check_same_rank(op, input, output));
  if (attrs.padding.size() != 2 * size_t(input.rank()))
    return make_error(Error::InvalidArgument, op, ": ", attrs.padding.size(), " padding values for rank ", input.rank());
  std::array<int64_t, kMaxRank> expected{};
  for (int d = 0; d < input.rank(); ++d) {
    const int64_t before = attrs.padding[2 * d], after = attrs.padding[2 * d + 1];
    if (before < 0 || after < 0 || before > kMaxElements || after > kMaxElements)
      return make_error(Error::InvalidArgument, op, ": padding of dim ", d, " (", before, ", ", after,
                        ") out of range");
    expected[size_t(d)] = before + input.dim(d) + after;
  }
  VKRT_RETURN_IF_ERROR(expect_shape(op, "output", output, std::span<const int64_t>(expected.data(), size_t(input.rank()))));
  const DType t = input.dtype;
  if (is_int(t) && (attrs.pad_const_int < type_min(t) || attrs.pad_const_int > type_max(t)))
    return make_error(Error::InvalidArgument, op, ": pad_const ", attrs.pad_const_int, " outside the ",
                      dtype_name(t), " range");
  return Status::ok();
}

Status pad(const TensorRef& input, const PadAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_pad(input, attrs, output));
  const int rank = input.rank();
  const auto in_strides = row_major_strides(input.shape);
  // The fill value as stored bytes: Fp32 from pad_const_fp, Bool as 0/1, other types (integers,
  // and Fp16/Bf16 bit patterns) from pad_const_int truncated to the element width.
  uint64_t fill_bits = 0;
  if (input.dtype == DType::Fp32) {
    const float f = float(attrs.pad_const_fp);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    fill_bits = b;
  } else if (input.dtype == DType::Bool) {
    fill_bits = attrs.pad_const_int != 0 ? 1 : 0;
  } else {
    fill_bits = uint64_t(attrs.pad_const_int);
  }
  dispatch_by_size(input.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.as<const T>();
    T* out = output.as<T>();
    const T fill = T(fill_bits);
    for_each_index(output.shape, [&](int64_t o, const std::array<int64_t, kMaxRank>& idx) {
      int64_t src = 0;
      for (int d = 0; d < rank; ++d) {
        const int64_t i = idx[size_t(d)] - attrs.padding[2 * d];
        if (i < 0 || i >= input.dim(d)) {
          out[o] = fill;
          return;
        }
        src += i * in_strides[size_t(d)];
      }
      out[o] = in[src];
    });
  });
  return Status::ok();
}

// ---- RESHAPE -------------------------------------------------------------------------------

Status check_reshape(const TensorRef& input, const TensorRef& output) {
  constexpr const char* op = "RESHAPE";
  VKRT_RETURN_IF_ERROR(check_in_out(op, input, output));
  if (input.num_elements() != output.num_elements())
    return make_error(Error::InvalidArgument, op, ": ", shape_string(input.shape), " has ", input.num_elements(),
                      " elements, new shape ", shape_string(output.shape), " has ", output.num_elements());
  return Status::ok();
}

Status reshape(const TensorRef& input, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_reshape(input, output));
  const size_t bytes = size_t(input.num_elements()) * dtype_size(input.dtype);
  // In-place reshapes (same buffer) are a no-op; otherwise the buffers must not overlap.
  if (bytes && input.data != output.data) std::memmove(output.data, input.data, bytes);
  return Status::ok();
}

// ---- REVERSE -------------------------------------------------------------------------------

Status check_reverse(const TensorRef& input, const AxisAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "REVERSE";
  VKRT_RETURN_IF_ERROR(check_in_out(op, input, output));
  VKRT_RETURN_IF_ERROR(expect_same_shape(op, "output", output, input));
  return check_axis(op, attrs.axis, input.rank());
}

Status reverse(const TensorRef& input, const AxisAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_reverse(input, attrs, output));
  const auto strides = row_major_strides(input.shape);
  const int rank = input.rank();
  gather_elements(input, output, [&](const std::array<int64_t, kMaxRank>& idx) {
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) {
      const int64_t i = d == attrs.axis ? input.dim(d) - 1 - idx[size_t(d)] : idx[size_t(d)];
      src += i * strides[size_t(d)];
    }
    return src;
  });
  return Status::ok();
}

// ---- SLICE ---------------------------------------------------------------------------------

Status check_slice(const TensorRef& input, const SliceAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "SLICE";
  VKRT_RETURN_IF_ERROR(check_in_out(op, input, output));
  VKRT_RETURN_IF_ERROR(check_same_rank(op, input, output));
  if (attrs.start.size() != size_t(input.rank()))
    return make_error(Error::InvalidArgument, op, ": ", attrs.start.size(), " start values for rank ", input.rank());
  for (int d = 0; d < input.rank(); ++d) {
    const int64_t start = attrs.start[d], size = output.dim(d);
    if (start < 0 || start > input.dim(d) || size > input.dim(d) - start)
      return make_error(Error::InvalidArgument, op, ": dim ", d, ": start ", start, " size ", size,
                        " outside the input dim ", input.dim(d));
  }
  return Status::ok();
}

Status slice(const TensorRef& input, const SliceAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_slice(input, attrs, output));
  const auto strides = row_major_strides(input.shape);
  const int rank = input.rank();
  gather_elements(input, output, [&](const std::array<int64_t, kMaxRank>& idx) {
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) src += (attrs.start[d] + idx[size_t(d)]) * strides[size_t(d)];
    return src;
  });
  return Status::ok();
}

// ---- TILE ----------------------------------------------------------------------------------

Status check_tile(const TensorRef& input, const TileAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "TILE";
  VKRT_RETURN_IF_ERROR(check_in_out(op, input, output));
  VKRT_RETURN_IF_ERROR(check_same_rank(op, input, output));
  if (attrs.multiples.size() != size_t(input.rank()))
    return make_error(Error::InvalidArgument, op, ": ", attrs.multiples.size(), " multiples for rank ", input.rank());
  std::array<int64_t, kMaxRank> expected{};
  for (int d = 0; d < input.rank(); ++d) {
    const int64_t m = attrs.multiples[d];
    if (m < 1 || m > kMaxElements)
      return make_error(Error::InvalidArgument, op, ": multiples[", d, "] = ", m, " out of range");
    // The output was bounded by check_tensor, so a product beyond it simply mismatches.
    if (input.dim(d) != 0 && m > kMaxElements / input.dim(d))
      return make_error(Error::InvalidArgument, op, ": multiples[", d, "] = ", m, " too large");
    expected[size_t(d)] = input.dim(d) * m;
  }
  return expect_shape(op, "output", output, std::span<const int64_t>(expected.data(), size_t(input.rank())));
}

Status tile(const TensorRef& input, const TileAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_tile(input, attrs, output));
  const auto strides = row_major_strides(input.shape);
  const int rank = input.rank();
  gather_elements(input, output, [&](const std::array<int64_t, kMaxRank>& idx) {
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) src += (idx[size_t(d)] % input.dim(d)) * strides[size_t(d)];
    return src;
  });
  return Status::ok();
}

// ---- TRANSPOSE -----------------------------------------------------------------------------

Status check_transpose(const TensorRef& input, const TransposeAttr& attrs, const TensorRef& output) {
  constexpr const char* op = "TRANSPOSE";
  VKRT_RETURN_IF_ERROR(check_in_out(op, input, output));
  VKRT_RETURN_IF_ERROR(check_same_rank(op, input, output));
  if (attrs.perms.size() != size_t(input.rank()))
    return make_error(Error::InvalidArgument, op, ": ", attrs.perms.size(), " perms for rank ", input.rank());
  const int rank = input.rank();
  std::array<bool, kMaxRank> seen{};
  std::array<int64_t, kMaxRank> expected{};
  for (int d = 0; d < rank; ++d) {
    const int32_t p = attrs.perms[d];
    if (p < 0 || p >= rank || seen[size_t(p)])
      return make_error(Error::InvalidArgument, op, ": perms is not a permutation of [0, ", rank,
                        ") (perms[", d, "] = ", p, ")");
    seen[size_t(p)] = true;
    expected[size_t(d)] = input.dim(p);
  }
  return expect_shape(op, "output", output, std::span<const int64_t>(expected.data(), size_t(rank)));
}

Status transpose(const TensorRef& input, const TransposeAttr& attrs, const TensorRef& output) {
  VKRT_RETURN_IF_ERROR(check_transpose(input, attrs, output));
  const auto strides = row_major_strides(input.shape);
  const int rank = input.rank();
  // Output dim d walks input dim perms[d].
  gather_elements(input, output, [&](const std::array<int64_t, kMaxRank>& idx) {
    int64_t src = 0;
    for (int d = 0; d < rank; ++d) src += idx[size_t(d)] * strides[size_t(attrs.perms[d])];
    return src;
  });
  return Status::ok();
}

}  // namespace vkrt::tosa
