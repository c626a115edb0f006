// The TOSA vocabulary shared by the graph IR (vgf/ir/graph.h re-exports it into vkrt::vgf) and
// the CPU kernels (tosa_kernels.h): element types, the enumerated modes, the value ranges of
// the integer types, and the attribute structs whose IR form the kernels take as they are. One
// definition, so the IR hands its values to the kernels without casts or copies.
//
// Header-only and free of any graph or kernel code, so both layers can include it
// (cpu_fallback/tosa sits below vgf/ in the layering).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace vkrt::tosa {

// TOSA element types, numbered as the `.tosa` serialization's DType enum (tosa.md §3).
// Storage (dtype_storage_bytes in the IR, dtype_size in the kernels): Bool 1 byte (0 or 1),
// Int4 one value per byte (sign-extended int8), Int8 int8_t, Int16 int16_t, Int32 int32_t,
// Int48 int64_t (values kept within [-2^47, 2^47-1]), Fp32 float, Fp16 / Bf16 uint16_t bits,
// Shape int64_t, Fp8 one byte.
// Unsigned data exist only through RESCALE's input_unsigned / output_unsigned flags: a uint8
// tensor is an Int8 tensor whose bytes are read as unsigned, uint16 likewise with Int16.
enum class DType : uint8_t {
  Unknown = 0,
  Bool = 1,
  Int4 = 2,
  Int8 = 3,
  Int16 = 4,
  Int32 = 5,
  Int48 = 6,
  Fp32 = 7,
  Fp16 = 8,
  Bf16 = 9,
  Shape = 10,
  Fp8E4M3 = 11,
  Fp8E5M2 = 12,
};

// "int8", "fp32", ...; "unknown" for Unknown, "invalid" for a value outside the enum.
constexpr const char* dtype_name(DType t) {
  switch (t) {
    case DType::Unknown: return "unknown";
    case DType::Bool: return "bool";
    case DType::Int4: return "int4";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int48: return "int48";
    case DType::Fp32: return "fp32";
    case DType::Fp16: return "fp16";
    case DType::Bf16: return "bf16";
    case DType::Shape: return "shape";
    case DType::Fp8E4M3: return "fp8e4m3";
    case DType::Fp8E5M2: return "fp8e5m2";
  }
  return "invalid";
}

// Enumerations with the same numbers in the SPIR-V and .tosa encodings. 0 is not a valid
// value of any of them (the kernels reject it).
enum class NanMode : uint8_t { Propagate = 1, Ignore = 2 };
enum class RoundingMode : uint8_t { SingleRound = 1, InexactRound = 2, DoubleRound = 3 };
enum class ResizeMode : uint8_t { Nearest = 1, Bilinear = 2 };
// Accumulator type, SPIR-V numbers (INT32 1, FP16 2, FP32 3, INT48 4); the .tosa reader maps
// its DType-numbered acc_type onto these.
enum class AccType : uint8_t { Int32 = 1, Fp16 = 2, Fp32 = 3, Int48 = 4 };

// The element type an accumulator type sums in (Unknown for a value outside the enum).
constexpr DType acc_dtype(AccType a) {
  switch (a) {
    case AccType::Int32: return DType::Int32;
    case AccType::Fp16: return DType::Fp16;
    case AccType::Fp32: return DType::Fp32;
    case AccType::Int48: return DType::Int48;
  }
  return DType::Unknown;
}

// The value range of a stored integer type (Int8, Int16, Int32, Int48); other types have none
// and give 0.
constexpr int64_t type_min(DType t) {
  switch (t) {
    case DType::Int8: return INT8_MIN;
    case DType::Int16: return INT16_MIN;
    case DType::Int32: return INT32_MIN;
    case DType::Int48: return -(int64_t(1) << 47);
    default: return 0;
  }
}
constexpr int64_t type_max(DType t) {
  switch (t) {
    case DType::Int8: return INT8_MAX;
    case DType::Int16: return INT16_MAX;
    case DType::Int32: return INT32_MAX;
    case DType::Int48: return (int64_t(1) << 47) - 1;
    default: return 0;
  }
}

// ---- Attribute structs shared by the IR and the kernels. Operands TOSA passes as constant
// tensors (zero points, MUL shift, CLAMP bounds, RESIZE scale/offset/border) are plain fields,
// zero points sign-extended. All compare with == (IR round-trip tests).

// ARGMAX.
struct ArgmaxAttr {
  int32_t axis = 0;
  NanMode nan_mode = NanMode::Propagate;
  bool operator==(const ArgmaxAttr&) const = default;
};

// REDUCE_*, CONCAT, REVERSE. nan_mode is used by REDUCE_MAX / REDUCE_MIN with floats.
struct AxisAttr {
  int32_t axis = 0;
  NanMode nan_mode = NanMode::Propagate;
  bool operator==(const AxisAttr&) const = default;
};

// CONV2D, DEPTHWISE_CONV2D and CONV3D. The 2-D ops use pad[0..3] = [top, bottom, left, right]
// and stride/dilation [y, x]; CONV3D all six pads [d0, d1, top, bottom, left, right] and
// stride/dilation [d, y, x]. Zero points are nonzero only for Int8.
struct ConvAttr {
  std::array<int32_t, 6> pad{0, 0, 0, 0, 0, 0};
  std::array<int32_t, 3> stride{1, 1, 1};
  std::array<int32_t, 3> dilation{1, 1, 1};
  AccType acc_type = AccType::Int32;
  bool local_bound = false;  // an fp precision hint; no effect on the CPU
  int32_t input_zp = 0;
  int32_t weight_zp = 0;
  bool operator==(const ConvAttr&) const = default;
};

// TRANSPOSE_CONV2D.
struct TransposeConvAttr {
  std::array<int32_t, 4> out_pad{0, 0, 0, 0};  // [top, bottom, left, right], may be negative
  std::array<int32_t, 2> stride{1, 1};         // [y, x]
  AccType acc_type = AccType::Int32;
  bool local_bound = false;
  int32_t input_zp = 0;
  int32_t weight_zp = 0;
  bool operator==(const TransposeConvAttr&) const = default;
};

// AVG_POOL2D and MAX_POOL2D. acc_type and the zero points are used by AVG_POOL2D only,
// nan_mode by MAX_POOL2D only.
struct PoolAttr {
  std::array<int32_t, 2> kernel{1, 1};      // [y, x]
  std::array<int32_t, 2> stride{1, 1};      // [y, x]
  std::array<int32_t, 4> pad{0, 0, 0, 0};   // [top, bottom, left, right]
  AccType acc_type = AccType::Int32;
  NanMode nan_mode = NanMode::Propagate;
  int32_t input_zp = 0;
  int32_t output_zp = 0;
  bool operator==(const PoolAttr&) const = default;
};

// RESCALE. multiplier and shift have one entry per channel (the last dimension) when
// per_channel, else exactly one; multiplier holds int16 values when !scale32.
struct RescaleAttr {
  bool scale32 = true;
  RoundingMode rounding_mode = RoundingMode::SingleRound;
  bool per_channel = false;
  bool input_unsigned = false;
  bool output_unsigned = false;
  std::vector<int32_t> multiplier;
  std::vector<int8_t> shift;
  int32_t input_zp = 0;   // as stored: zero-extended when input_unsigned
  int32_t output_zp = 0;  // as stored: zero-extended when output_unsigned
  bool operator==(const RescaleAttr&) const = default;
};

// MATMUL zero points (nonzero only for Int8).
struct MatmulAttr {
  int32_t a_zp = 0;
  int32_t b_zp = 0;
  bool operator==(const MatmulAttr&) const = default;
};

// CLAMP bounds in the input type: integer types use the *_int fields (raw values within the
// type's range), floats the *_fp ones.
struct ClampAttr {
  int64_t min_int = 0;
  int64_t max_int = 0;
  double min_fp = 0.0;
  double max_fp = 0.0;
  NanMode nan_mode = NanMode::Propagate;
  bool operator==(const ClampAttr&) const = default;
};

// MUL: the shift operand; must be 0 unless the inputs are Int32; [0, 63].
struct MulAttr {
  int32_t shift = 0;
  bool operator==(const MulAttr&) const = default;
};

// NEGATE zero points (nonzero only for Int8).
struct NegateAttr {
  int32_t input_zp = 0;
  int32_t output_zp = 0;
  bool operator==(const NegateAttr&) const = default;
};

// RESIZE.
struct ResizeAttr {
  ResizeMode mode = ResizeMode::Nearest;
  std::array<int32_t, 4> scale{1, 1, 1, 1};  // [y_n, y_d, x_n, x_d]
  std::array<int32_t, 2> offset{0, 0};       // [y, x]
  std::array<int32_t, 2> border{0, 0};       // [y, x]
  bool operator==(const ResizeAttr&) const = default;
};

// FFT2D and RFFT2D (RFFT2D is always forward: `inverse` is false).
struct FftAttr {
  bool inverse = false;      // false: exp(-i...), true: exp(+i...); neither normalises
  bool local_bound = false;  // an fp precision hint; the CPU kernel's result is always the accurate sum
  bool operator==(const FftAttr&) const = default;
};

// Data layout: one value per dimension (PAD two); the kernels check the counts against the rank.
struct PadAttr {
  std::vector<int64_t> padding;  // [before0, after0, before1, after1, ...], 2 * rank values
  int64_t pad_const_int = 0;     // integer / bool inputs (raw value in the input type)
  double pad_const_fp = 0.0;     // float inputs
  bool operator==(const PadAttr&) const = default;
};

struct SliceAttr {
  std::vector<int64_t> start;
  std::vector<int64_t> size;
  bool operator==(const SliceAttr&) const = default;
};

struct TileAttr {
  std::vector<int64_t> multiples;
  bool operator==(const TileAttr&) const = default;
};

struct TransposeAttr {
  std::vector<int32_t> perms;  // out.shape[d] = in.shape[perms[d]]
  bool operator==(const TransposeAttr&) const = default;
};

}  // namespace vkrt::tosa
