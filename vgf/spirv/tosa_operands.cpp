// Operand tables per TOSA.001000.1 instruction (vgf-format.md §6.4).
#include "vgf/spirv/tosa_operands.h"

#include <array>
#include <vector>

namespace vkrt::vgf::spirv {
namespace {

using Names = std::vector<std::string_view>;

const std::array<Names, kOpKindCount>& tables() {
  static const std::array<Names, kOpKindCount> t = {{
      /*  0 ARGMAX */ {"axis", "nan_mode", "input"},
      /*  1 AVG_POOL2D */ {"kernel", "stride", "pad", "acc_type", "input", "input_zp", "output_zp"},
      /*  2 CONV2D */ {"pad", "stride", "dilation", "acc_type", "local_bound", "input", "weight", "bias", "input_zp", "weight_zp"},
      /*  3 CONV3D */ {"pad", "stride", "dilation", "acc_type", "local_bound", "input", "weight", "bias", "input_zp", "weight_zp"},
      /*  4 DEPTHWISE_CONV2D */ {"pad", "stride", "dilation", "acc_type", "local_bound", "input", "weight", "bias", "input_zp", "weight_zp"},
      /*  5 FFT2D */ {"inverse", "local_bound", "input_real", "input_imag"},
      /*  6 MATMUL */ {"A", "B", "A_zp", "B_zp"},
      /*  7 MAX_POOL2D */ {"kernel", "stride", "pad", "nan_mode", "input"},
      /*  8 RFFT2D */ {"local_bound", "input_real"},
      /*  9 TRANSPOSE_CONV2D */ {"out_pad", "stride", "acc_type", "local_bound", "input", "weight", "bias", "input_zp", "weight_zp"},
      /* 10 CLAMP */ {"min_val", "max_val", "nan_mode", "input"},
      /* 11 ERF */ {"input"},
      /* 12 SIGMOID */ {"input"},
      /* 13 TANH */ {"input"},
      /* 14 ADD */ {"input1", "input2"},
      /* 15 ARITHMETIC_RIGHT_SHIFT */ {"round", "input1", "input2"},
      /* 16 BITWISE_AND */ {"input1", "input2"},
      /* 17 BITWISE_OR */ {"input1", "input2"},
      /* 18 BITWISE_XOR */ {"input1", "input2"},
      /* 19 INTDIV */ {"input1", "input2"},
      /* 20 LOGICAL_AND */ {"input1", "input2"},
      /* 21 LOGICAL_LEFT_SHIFT */ {"input1", "input2"},
      /* 22 LOGICAL_RIGHT_SHIFT */ {"input1", "input2"},
      /* 23 LOGICAL_OR */ {"input1", "input2"},
      /* 24 LOGICAL_XOR */ {"input1", "input2"},
      /* 25 MAXIMUM */ {"nan_mode", "input1", "input2"},
      /* 26 MINIMUM */ {"nan_mode", "input1", "input2"},
      /* 27 MUL */ {"input1", "input2", "shift"},
      /* 28 POW */ {"input1", "input2"},
      /* 29 SUB */ {"input1", "input2"},
      /* 30 TABLE */ {"input1", "table"},
      /* 31 ABS */ {"input1"},
      /* 32 BITWISE_NOT */ {"input1"},
      /* 33 CEIL */ {"input1"},
      /* 34 CLZ */ {"input1"},
      /* 35 COS */ {"input1"},
      /* 36 EXP */ {"input1"},
      /* 37 FLOOR */ {"input1"},
      /* 38 LOG */ {"input1"},
      /* 39 LOGICAL_NOT */ {"input1"},
      /* 40 NEGATE */ {"input1", "input1_zp", "output_zp"},
      /* 41 RECIPROCAL */ {"input1"},
      /* 42 RSQRT */ {"input1"},
      /* 43 SIN */ {"input1"},
      /* 44 SELECT */ {"input1", "input2", "input3"},
      /* 45 EQUAL */ {"input1", "input2"},
      /* 46 GREATER */ {"input1", "input2"},
      /* 47 GREATER_EQUAL */ {"input1", "input2"},
      /* 48 REDUCE_ALL */ {"axis", "input"},
      /* 49 REDUCE_ANY */ {"axis", "input"},
      /* 50 REDUCE_MAX */ {"axis", "nan_mode", "input"},
      /* 51 REDUCE_MIN */ {"axis", "nan_mode", "input"},
      /* 52 REDUCE_PRODUCT */ {"axis", "input"},
      /* 53 REDUCE_SUM */ {"axis", "input"},
      /* 54 CONCAT */ {"axis", "input1"},
      /* 55 PAD */ {"input1", "padding", "pad_const"},
      /* 56 RESHAPE */ {"input1", "shape"},
      /* 57 REVERSE */ {"axis", "input1"},
      /* 58 SLICE */ {"input1", "start", "size"},
      /* 59 TILE */ {"input1", "multiples"},
      /* 60 TRANSPOSE */ {"perms", "input1"},
      /* 61 GATHER */ {"values", "indices"},
      /* 62 SCATTER */ {"values_in", "indices", "input"},
      /* 63 RESIZE */ {"mode", "input", "scale", "offset", "border"},
      /* 64 CAST */ {"input"},
      /* 65 RESCALE */ {"scale32", "rounding_mode", "per_channel", "input_unsigned", "output_unsigned", "input", "multiplier", "shift", "input_zp", "output_zp"},
  }};
  return t;
}

}  // namespace

std::span<const std::string_view> tosa_operand_names(OpKind op) {
  if (!is_valid_op_kind(uint32_t(op))) return {};
  return tables()[size_t(op)];
}

std::vector<std::string_view> tosa_tensor_operand_names(OpKind kind) {
  switch (kind) {
    case OpKind::CONV2D: case OpKind::CONV3D: case OpKind::DEPTHWISE_CONV2D:
    case OpKind::TRANSPOSE_CONV2D: return {"input", "weight", "bias"};
    case OpKind::FFT2D: return {"input_real", "input_imag"};
    case OpKind::RFFT2D: return {"input_real"};
    case OpKind::MATMUL: return {"A", "B"};
    case OpKind::ARGMAX: case OpKind::AVG_POOL2D: case OpKind::MAX_POOL2D: case OpKind::CLAMP:
    case OpKind::ERF: case OpKind::SIGMOID: case OpKind::TANH: case OpKind::REDUCE_ALL:
    case OpKind::REDUCE_ANY: case OpKind::REDUCE_MAX: case OpKind::REDUCE_MIN:
    case OpKind::REDUCE_PRODUCT: case OpKind::REDUCE_SUM: case OpKind::RESIZE: case OpKind::CAST:
    case OpKind::RESCALE: return {"input"};
    case OpKind::SELECT: return {"input1", "input2", "input3"};
    case OpKind::GATHER: return {"values", "indices"};
    case OpKind::SCATTER: return {"values_in", "indices", "input"};
    case OpKind::MUL: return {"input1", "input2"};
    default:
      break;
  }
  if (expected_input_count(kind) == 2) return {"input1", "input2"};
  return {"input1"};
}


int tosa_first_input_operand(OpKind op) {
  auto names = tosa_operand_names(op);
  for (size_t i = 0; i < names.size(); ++i) {
    std::string_view n = names[i];
    if (n == "input" || n == "input1" || n == "input_real" || n == "A" || n == "values" ||
        n == "values_in")
      return int(i);
  }
  return 0;
}

bool tosa_operands_variadic(OpKind op) { return op == OpKind::CONCAT; }

int tosa_operand_index(OpKind op, std::string_view name) {
  auto names = tosa_operand_names(op);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return int(i);
  }
  return -1;
}

}  // namespace vkrt::vgf::spirv
