// Input/output copies (see io_copy.h).
#include "ethosu/backend/io_copy.h"

#include <cstring>
#include <string>

namespace vkrt::ethosu {
namespace {

bool dtype_matches(ScalarType dtype, int32_t elem_size) {
  switch (dtype) {
    case ScalarType::Int: return elem_size == 4;
    case ScalarType::Char:
    case ScalarType::Byte:
    case ScalarType::Bool: return elem_size == 1;
    case ScalarType::Short: return elem_size == 2;
    default: return false;
  }
}

std::string shape_text(std::span<const int32_t> dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + ")";
}

// Rows of an output: all dims but the innermost; Vela's row length is the innermost dim.
struct Rows {
  int64_t count;
  int64_t vela_bytes;
};
Rows rows_of(const VelaIo& io) {
  auto dims = io.dims();
  Rows r{1, io.elem_size};
  if (!dims.empty()) {
    for (size_t i = 0; i + 1 < dims.size(); ++i) r.count *= dims[i];
    r.vela_bytes = int64_t(dims.back()) * io.elem_size;
  }
  return r;
}

// The ≤ 0.7 NCHW↔NHWC case: a 4-D descriptor (N,H,W,C) and a 4-D byte tensor (N,C,H,W).
bool is_nchw_of(const VelaIo& io, const Tensor& t) {
  auto d = io.dims();
  if (io.layout != VelaIoLayout::Shape4D || d.size() != 4 || t.rank() != 4 || io.elem_size != 1) return false;
  auto s = t.sizes();
  bool same = s[0] == d[0] && s[1] == d[1] && s[2] == d[2] && s[3] == d[3];
  return !same && s[0] == d[0] && s[1] == d[3] && s[2] == d[1] && s[3] == d[2];
}

}  // namespace

Result<IoMapping> plan_io(const VelaIo& io, const Tensor& tensor, bool is_output, std::string_view what) {
  VKRT_CHECK_OR_RETURN(dtype_matches(tensor.dtype(), io.elem_size), InvalidProgram, what,
                       ": tensor dtype ", scalar_type_name(tensor.dtype()), " does not fit the NPU's ",
                       io.elem_size, "-byte elements (accepted: int32/4, int8/1, uint8/1, int16/2, bool/1)");
  VKRT_CHECK_OR_RETURN(tensor.is_default_dim_order(), NotSupported, what,
                       ": tensor must have the default (contiguous) dim order");
  int64_t vela_numel = io.element_count();
  if (tensor.numel() == vela_numel) {
    return is_nchw_of(io, tensor) ? IoMapping::NchwToNhwc : IoMapping::Direct;
  }
  VKRT_CHECK_OR_RETURN(is_output, InvalidProgram, what, ": tensor has ", tensor.numel(),
                       " elements, the command stream expects ", vela_numel, " ",
                       shape_text(io.dims()));
  // Output layout adjustment: Vela's rows may be padded, or int8 values packed in nibbles.
  Rows rows = rows_of(io);
  int64_t nbytes = int64_t(tensor.nbytes());
  bool divisible = rows.count > 0 && nbytes % rows.count == 0;
  int64_t chunk = divisible ? nbytes / rows.count : 0;
  if (divisible && tensor.element_size() == 1 && chunk == 2 * rows.vela_bytes) return IoMapping::Unpack4Bit;
  if (divisible && chunk > 0 && chunk < rows.vela_bytes) return IoMapping::RowPadded;
  return make_error(Error::InvalidProgram, what, ": tensor of ", nbytes,
                    " bytes cannot be filled from the command stream's output ", shape_text(io.dims()), " of ",
                    io.byte_size(), " bytes");
}

void copy_input(const VelaIo& io, IoMapping mapping, const Tensor& tensor, std::span<uint8_t> region) {
  if (tensor.nbytes() == 0) return;  // empty tensors may have no data pointer
  uint8_t* dst = region.data() + io.offset;
  const uint8_t* src = static_cast<const uint8_t*>(tensor.data());
  if (mapping == IoMapping::NchwToNhwc) {
    auto s = tensor.sizes();
    int64_t n = s[0], c = s[1], h = s[2], w = s[3];
    for (int64_t in = 0; in < n; ++in)
      for (int64_t ic = 0; ic < c; ++ic)
        for (int64_t ih = 0; ih < h; ++ih)
          for (int64_t iw = 0; iw < w; ++iw)
            dst[((in * h + ih) * w + iw) * c + ic] = src[((in * c + ic) * h + ih) * w + iw];
    return;
  }
  std::memcpy(dst, src, tensor.nbytes());
}

void copy_output(const VelaIo& io, IoMapping mapping, std::span<const uint8_t> region, Tensor& tensor) {
  if (tensor.nbytes() == 0) return;
  const uint8_t* src = region.data() + io.offset;
  uint8_t* dst = static_cast<uint8_t*>(tensor.data());
  switch (mapping) {
    case IoMapping::Direct:
      std::memcpy(dst, src, tensor.nbytes());
      return;
    case IoMapping::NchwToNhwc: {
      auto s = tensor.sizes();
      int64_t n = s[0], c = s[1], h = s[2], w = s[3];
      for (int64_t in = 0; in < n; ++in)
        for (int64_t ic = 0; ic < c; ++ic)
          for (int64_t ih = 0; ih < h; ++ih)
            for (int64_t iw = 0; iw < w; ++iw)
              dst[((in * c + ic) * h + ih) * w + iw] = src[((in * h + ih) * w + iw) * c + ic];
      return;
    }
    case IoMapping::RowPadded: {
      Rows rows = rows_of(io);
      int64_t chunk = int64_t(tensor.nbytes()) / rows.count;
      for (int64_t r = 0; r < rows.count; ++r) std::memcpy(dst + r * chunk, src + r * rows.vela_bytes, size_t(chunk));
      return;
    }
    case IoMapping::Unpack4Bit: {
      // Two signed 4-bit values per byte, low nibble first (ExecuTorch EthosUBackend.cpp).
      int64_t packed = io.byte_size();
      for (int64_t i = 0; i < packed; ++i) {
        uint8_t b = src[i];
        auto sign_extend = [](uint8_t nibble) { return int8_t(nibble >= 8 ? int(nibble) - 16 : int(nibble)); };
        dst[2 * i] = uint8_t(sign_extend(b & 0xF));
        dst[2 * i + 1] = uint8_t(sign_extend(b >> 4));
      }
      return;
    }
  }
}

}  // namespace vkrt::ethosu
