// IR op -> TOSA CPU kernel (cpu_fallback/tosa/tosa_kernels.h).
#include "vgf/cpu/cpu_op_plan.h"

#include <cstring>

namespace vkrt::vgf::cpu {
namespace {

tosa::DType acc_dtype(AccType a) {
  switch (a) {
    case AccType::Int32: return tosa::DType::Int32;
    case AccType::Int48: return tosa::DType::Int48;
    case AccType::Fp16: return tosa::DType::Fp16;
    case AccType::Fp32: return tosa::DType::Fp32;
  }
  return tosa::DType::Unknown;
}

tosa::NanMode nan(NanMode m) { return tosa::NanMode(uint32_t(m)); }

bool binary_op(OpKind k, tosa::BinaryOp& out) {
  switch (k) {
    case OpKind::ADD: out = tosa::BinaryOp::Add; return true;
    case OpKind::SUB: out = tosa::BinaryOp::Sub; return true;
    case OpKind::MAXIMUM: out = tosa::BinaryOp::Maximum; return true;
    case OpKind::MINIMUM: out = tosa::BinaryOp::Minimum; return true;
    case OpKind::POW: out = tosa::BinaryOp::Pow; return true;
    case OpKind::INTDIV: out = tosa::BinaryOp::IntDiv; return true;
    case OpKind::BITWISE_AND: out = tosa::BinaryOp::BitwiseAnd; return true;
    case OpKind::BITWISE_OR: out = tosa::BinaryOp::BitwiseOr; return true;
    case OpKind::BITWISE_XOR: out = tosa::BinaryOp::BitwiseXor; return true;
    case OpKind::LOGICAL_LEFT_SHIFT: out = tosa::BinaryOp::LogicalLeftShift; return true;
    case OpKind::LOGICAL_RIGHT_SHIFT: out = tosa::BinaryOp::LogicalRightShift; return true;
    case OpKind::ARITHMETIC_RIGHT_SHIFT: out = tosa::BinaryOp::ArithmeticRightShift; return true;
    case OpKind::LOGICAL_AND: out = tosa::BinaryOp::LogicalAnd; return true;
    case OpKind::LOGICAL_OR: out = tosa::BinaryOp::LogicalOr; return true;
    case OpKind::LOGICAL_XOR: out = tosa::BinaryOp::LogicalXor; return true;
    default: return false;
  }
}

bool unary_op(OpKind k, tosa::UnaryOp& out) {
  switch (k) {
    case OpKind::ABS: out = tosa::UnaryOp::Abs; return true;
    case OpKind::BITWISE_NOT: out = tosa::UnaryOp::BitwiseNot; return true;
    case OpKind::CEIL: out = tosa::UnaryOp::Ceil; return true;
    case OpKind::CLZ: out = tosa::UnaryOp::Clz; return true;
    case OpKind::COS: out = tosa::UnaryOp::Cos; return true;
    case OpKind::EXP: out = tosa::UnaryOp::Exp; return true;
    case OpKind::FLOOR: out = tosa::UnaryOp::Floor; return true;
    case OpKind::LOG: out = tosa::UnaryOp::Log; return true;
    case OpKind::LOGICAL_NOT: out = tosa::UnaryOp::LogicalNot; return true;
    case OpKind::RECIPROCAL: out = tosa::UnaryOp::Reciprocal; return true;
    case OpKind::RSQRT: out = tosa::UnaryOp::Rsqrt; return true;
    case OpKind::SIN: out = tosa::UnaryOp::Sin; return true;
    case OpKind::ERF: out = tosa::UnaryOp::Erf; return true;
    case OpKind::SIGMOID: out = tosa::UnaryOp::Sigmoid; return true;
    case OpKind::TANH: out = tosa::UnaryOp::Tanh; return true;
    default: return false;
  }
}

bool reduce_op(OpKind k, tosa::ReduceOp& out) {
  switch (k) {
    case OpKind::REDUCE_ALL: out = tosa::ReduceOp::All; return true;
    case OpKind::REDUCE_ANY: out = tosa::ReduceOp::Any; return true;
    case OpKind::REDUCE_MAX: out = tosa::ReduceOp::Max; return true;
    case OpKind::REDUCE_MIN: out = tosa::ReduceOp::Min; return true;
    case OpKind::REDUCE_PRODUCT: out = tosa::ReduceOp::Product; return true;
    case OpKind::REDUCE_SUM: out = tosa::ReduceOp::Sum; return true;
    default: return false;
  }
}

bool compare_op(OpKind k, tosa::CompareOp& out) {
  switch (k) {
    case OpKind::EQUAL: out = tosa::CompareOp::Equal; return true;
    case OpKind::GREATER: out = tosa::CompareOp::Greater; return true;
    case OpKind::GREATER_EQUAL: out = tosa::CompareOp::GreaterEqual; return true;
    default: return false;
  }
}

template <size_t N>
Status copy_dims(const std::vector<int64_t>& v, int64_t (&out)[N], const char* what) {
  VKRT_CHECK_OR_RETURN(v.size() <= N, NotSupported, what, ": rank ", v.size(),
                       " exceeds the CPU kernels' limit ", N);
  for (size_t i = 0; i < v.size(); ++i) out[i] = v[i];
  return Status::ok();
}

}  // namespace

Status plan_op(const Graph& graph, const Op& op, PlannedOp& plan) {
  plan.kind = op.kind;
  tosa::BinaryOp bop;
  tosa::UnaryOp uop;
  tosa::ReduceOp rop;
  tosa::CompareOp cop;
  switch (op.kind) {
    case OpKind::CONV2D:
    case OpKind::DEPTHWISE_CONV2D: {
      const auto& a = std::get<ConvAttr>(op.attr);
      tosa::Conv2dAttrs k;
      for (int i = 0; i < 4; ++i) k.pad[i] = a.pad[size_t(i)];
      for (int i = 0; i < 2; ++i) {
        k.stride[i] = a.stride[size_t(i)];
        k.dilation[i] = a.dilation[size_t(i)];
      }
      k.input_zp = a.input_zp;
      k.weight_zp = a.weight_zp;
      k.acc_type = acc_dtype(a.acc_type);
      k.local_bound = a.local_bound;
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::TRANSPOSE_CONV2D: {
      const auto& a = std::get<TransposeConvAttr>(op.attr);
      tosa::TransposeConv2dAttrs k;
      for (int i = 0; i < 4; ++i) k.out_pad[i] = a.out_pad[size_t(i)];
      for (int i = 0; i < 2; ++i) k.stride[i] = a.stride[size_t(i)];
      k.input_zp = a.input_zp;
      k.weight_zp = a.weight_zp;
      k.acc_type = acc_dtype(a.acc_type);
      k.local_bound = a.local_bound;
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::MATMUL: {
      const auto& a = std::get<MatmulAttr>(op.attr);
      plan.attrs = tosa::MatmulAttrs{a.a_zp, a.b_zp};
      return Status::ok();
    }
    case OpKind::AVG_POOL2D: {
      const auto& a = std::get<PoolAttr>(op.attr);
      tosa::AvgPool2dAttrs k;
      for (int i = 0; i < 2; ++i) {
        k.kernel[i] = a.kernel[size_t(i)];
        k.stride[i] = a.stride[size_t(i)];
      }
      for (int i = 0; i < 4; ++i) k.pad[i] = a.pad[size_t(i)];
      k.input_zp = a.input_zp;
      k.output_zp = a.output_zp;
      k.acc_type = acc_dtype(a.acc_type);
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::MAX_POOL2D: {
      const auto& a = std::get<PoolAttr>(op.attr);
      tosa::MaxPool2dAttrs k;
      for (int i = 0; i < 2; ++i) {
        k.kernel[i] = a.kernel[size_t(i)];
        k.stride[i] = a.stride[size_t(i)];
      }
      for (int i = 0; i < 4; ++i) k.pad[i] = a.pad[size_t(i)];
      k.nan_mode = nan(a.nan_mode);
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::MUL:
      plan.attrs = tosa::MulAttrs{std::get<MulAttr>(op.attr).shift};
      return Status::ok();
    case OpKind::NEGATE: {
      const auto& a = std::get<NegateAttr>(op.attr);
      plan.attrs = tosa::NegateAttrs{a.input_zp, a.output_zp};
      return Status::ok();
    }
    case OpKind::CLAMP: {
      const auto& a = std::get<ClampAttr>(op.attr);
      tosa::ClampAttrs k;
      k.min_int = a.min_int;
      k.max_int = a.max_int;
      k.min_fp = float(a.min_fp);
      k.max_fp = float(a.max_fp);
      k.nan_mode = nan(a.nan_mode);
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::RESCALE: {
      const auto& a = std::get<RescaleAttr>(op.attr);
      plan.multiplier.assign(a.multiplier.begin(), a.multiplier.end());
      plan.shift.assign(a.shift.begin(), a.shift.end());
      tosa::RescaleAttrs k;
      k.multiplier = plan.multiplier;
      k.shift = plan.shift;
      k.input_zp = a.input_zp;
      k.output_zp = a.output_zp;
      k.scale32 = a.scale32;
      k.rounding_mode = tosa::RoundingMode(uint32_t(a.rounding_mode));
      k.per_channel = a.per_channel;
      k.input_unsigned = a.input_unsigned;
      k.output_unsigned = a.output_unsigned;
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::TABLE: {
      const auto& a = std::get<TableAttr>(op.attr);
      DType in = graph.tensors[op.inputs[0]].dtype;
      plan.table_len = int64_t(a.table.size());
      if (in == DType::Int8) {
        VKRT_CHECK_OR_RETURN(a.table.size() == 256, InvalidProgram, "TABLE: int8 input needs 256 entries, has ", a.table.size());
        plan.table_dtype = tosa::DType::Int8;
        for (int16_t v : a.table) plan.table_bytes.push_back(uint8_t(int8_t(v)));
      } else {
        VKRT_CHECK_OR_RETURN(a.table.size() == 513, InvalidProgram, "TABLE: int16 input needs 513 entries, has ", a.table.size());
        plan.table_dtype = tosa::DType::Int16;
        plan.table_bytes.resize(a.table.size() * 2);
        std::memcpy(plan.table_bytes.data(), a.table.data(), plan.table_bytes.size());
      }
      plan.attrs = std::monostate{};
      return Status::ok();
    }
    case OpKind::CONCAT:
      plan.attrs = tosa::ConcatAttrs{std::get<AxisAttr>(op.attr).axis};
      return Status::ok();
    case OpKind::PAD: {
      const auto& a = std::get<PadAttr>(op.attr);
      tosa::PadAttrs k;
      VKRT_RETURN_IF_ERROR(copy_dims(a.padding, k.padding, "PAD padding"));
      k.pad_const_int = a.pad_const_int;
      k.pad_const_fp = float(a.pad_const_fp);
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::RESHAPE:
      plan.attrs = std::monostate{};
      return Status::ok();
    case OpKind::SLICE: {
      tosa::SliceAttrs k;
      VKRT_RETURN_IF_ERROR(copy_dims(std::get<SliceAttr>(op.attr).start, k.start, "SLICE start"));
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::TILE: {
      tosa::TileAttrs k;
      VKRT_RETURN_IF_ERROR(copy_dims(std::get<TileAttr>(op.attr).multiples, k.multiples, "TILE multiples"));
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::TRANSPOSE: {
      const auto& p = std::get<TransposeAttr>(op.attr).perms;
      tosa::TransposeAttrs k;
      VKRT_CHECK_OR_RETURN(p.size() <= size_t(tosa::kMaxRank), NotSupported, "TRANSPOSE: rank ", p.size(), " too large");
      for (size_t i = 0; i < p.size(); ++i) k.perms[i] = p[i];
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::REVERSE:
      plan.attrs = tosa::ReverseAttrs{std::get<AxisAttr>(op.attr).axis};
      return Status::ok();
    case OpKind::RESIZE: {
      const auto& a = std::get<ResizeAttr>(op.attr);
      tosa::ResizeAttrs k;
      for (int i = 0; i < 4; ++i) k.scale[i] = a.scale[size_t(i)];
      for (int i = 0; i < 2; ++i) {
        k.offset[i] = a.offset[size_t(i)];
        k.border[i] = a.border[size_t(i)];
      }
      k.mode = tosa::ResizeMode(uint32_t(a.mode));
      plan.attrs = k;
      return Status::ok();
    }
    case OpKind::ARGMAX: {
      const auto& a = std::get<ArgmaxAttr>(op.attr);
      plan.attrs = tosa::ArgmaxAttrs{a.axis, nan(a.nan_mode)};
      return Status::ok();
    }
    case OpKind::GATHER:
    case OpKind::SCATTER:
    case OpKind::CAST:
    case OpKind::SELECT:
      plan.attrs = std::monostate{};
      return Status::ok();
    default:
      break;
  }
  if (binary_op(op.kind, bop)) {
    tosa::BinaryAttrs k;
    if (const auto* n = std::get_if<NanModeAttr>(&op.attr)) k.nan_mode = nan(n->nan_mode);
    if (const auto* s = std::get_if<ShiftAttr>(&op.attr)) k.round = s->round;
    plan.attrs = k;
    return Status::ok();
  }
  if (unary_op(op.kind, uop) || compare_op(op.kind, cop)) {
    plan.attrs = std::monostate{};
    return Status::ok();
  }
  if (reduce_op(op.kind, rop)) {
    const auto& a = std::get<AxisAttr>(op.attr);
    plan.attrs = tosa::ReduceAttrs{a.axis, nan(a.nan_mode)};
    return Status::ok();
  }
  return make_error(Error::NotSupported, op_name(op.kind), " is not supported by the cpu executor");
}

Status call_kernel(const PlannedOp& p, std::span<const tosa::TensorRef> in,
                   std::span<const tosa::TensorRef> out, bool check_only, const tosa::Parallel* parallel) {
  const tosa::TensorRef& y = out[0];
  tosa::BinaryOp bop;
  tosa::UnaryOp uop;
  tosa::ReduceOp rop;
  tosa::CompareOp cop;
#define VKRT_CALL(fn, ...) return check_only ? tosa::check_##fn(__VA_ARGS__) : tosa::fn(__VA_ARGS__)
// The same for the kernels that take threads.
#define VKRT_CALL_PARALLEL(fn, ...) \
  return check_only ? tosa::check_##fn(__VA_ARGS__) : tosa::fn(__VA_ARGS__, parallel)
  switch (p.kind) {
    case OpKind::CONV2D:
      VKRT_CALL_PARALLEL(conv2d, in[0], in[1], in[2], std::get<tosa::Conv2dAttrs>(p.attrs), y);
    case OpKind::DEPTHWISE_CONV2D:
      VKRT_CALL_PARALLEL(depthwise_conv2d, in[0], in[1], in[2], std::get<tosa::Conv2dAttrs>(p.attrs), y);
    case OpKind::TRANSPOSE_CONV2D:
      VKRT_CALL(transpose_conv2d, in[0], in[1], in[2], std::get<tosa::TransposeConv2dAttrs>(p.attrs), y);
    case OpKind::MATMUL: VKRT_CALL(matmul, in[0], in[1], std::get<tosa::MatmulAttrs>(p.attrs), y);
    case OpKind::AVG_POOL2D: VKRT_CALL(avg_pool2d, in[0], std::get<tosa::AvgPool2dAttrs>(p.attrs), y);
    case OpKind::MAX_POOL2D: VKRT_CALL(max_pool2d, in[0], std::get<tosa::MaxPool2dAttrs>(p.attrs), y);
    case OpKind::MUL: VKRT_CALL(mul, in[0], in[1], std::get<tosa::MulAttrs>(p.attrs), y);
    case OpKind::NEGATE: VKRT_CALL(negate, in[0], std::get<tosa::NegateAttrs>(p.attrs), y);
    case OpKind::CLAMP: VKRT_CALL(clamp, in[0], std::get<tosa::ClampAttrs>(p.attrs), y);
    case OpKind::RESCALE: VKRT_CALL_PARALLEL(rescale, in[0], std::get<tosa::RescaleAttrs>(p.attrs), y);
    case OpKind::TABLE: {
      const int64_t shape[1] = {p.table_len};
      tosa::TensorRef table{p.table_dtype, shape, const_cast<uint8_t*>(p.table_bytes.data())};
      VKRT_CALL(table, in[0], table, y);
    }
    case OpKind::CONCAT: VKRT_CALL(concat, in, std::get<tosa::ConcatAttrs>(p.attrs), y);
    case OpKind::PAD: VKRT_CALL(pad, in[0], std::get<tosa::PadAttrs>(p.attrs), y);
    case OpKind::RESHAPE: VKRT_CALL(reshape, in[0], y);
    case OpKind::SLICE: VKRT_CALL(slice, in[0], std::get<tosa::SliceAttrs>(p.attrs), y);
    case OpKind::TILE: VKRT_CALL(tile, in[0], std::get<tosa::TileAttrs>(p.attrs), y);
    case OpKind::TRANSPOSE: VKRT_CALL(transpose, in[0], std::get<tosa::TransposeAttrs>(p.attrs), y);
    case OpKind::REVERSE: VKRT_CALL(reverse, in[0], std::get<tosa::ReverseAttrs>(p.attrs), y);
    case OpKind::GATHER: VKRT_CALL(gather, in[0], in[1], y);
    case OpKind::SCATTER: VKRT_CALL(scatter, in[0], in[1], in[2], y);
    case OpKind::RESIZE: VKRT_CALL(resize, in[0], std::get<tosa::ResizeAttrs>(p.attrs), y);
    case OpKind::CAST: VKRT_CALL(cast, in[0], y);
    case OpKind::ARGMAX: VKRT_CALL(argmax, in[0], std::get<tosa::ArgmaxAttrs>(p.attrs), y);
    case OpKind::SELECT: VKRT_CALL(select, in[0], in[1], in[2], y);
    default:
      break;
  }
  if (binary_op(p.kind, bop)) VKRT_CALL(elementwise_binary, bop, in[0], in[1], std::get<tosa::BinaryAttrs>(p.attrs), y);
  if (unary_op(p.kind, uop)) VKRT_CALL(elementwise_unary, uop, in[0], y);
  if (compare_op(p.kind, cop)) VKRT_CALL(compare, cop, in[0], in[1], y);
  if (reduce_op(p.kind, rop)) VKRT_CALL(reduce, rop, in[0], std::get<tosa::ReduceAttrs>(p.attrs), y);
#undef VKRT_CALL
#undef VKRT_CALL_PARALLEL
  return make_error(Error::NotSupported, op_name(p.kind), " is not supported by the cpu executor");
}

}  // namespace vkrt::vgf::cpu
