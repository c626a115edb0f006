// GLSL generation for fused elementwise chains (elementwise_fusion.h). Each op becomes a few
// lines on registers (`int` for bool/int8/int16/int32 values, sign-extended; `float` for fp32).
// The arithmetic mirrors the single-op shaders line by line (binary.comp, unary.comp,
// rescale.comp, table.comp, cast.comp, select.comp; TOSA semantics in tosa.md §4-§12), and
// reuses common.glsl (64-bit helpers, apply_scale_32) verbatim, so a fused chain is bit-exact
// with the unfused dispatches for integer types.
#include <cinttypes>
#include <cstdio>
#include <map>
#include <sstream>

#include "glsl_common_source.h"  // kCommonGlsl: shaders/glsl/common.glsl, embedded at build time
#include "vgf/vulkan/elementwise_fusion.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::OpKind;
using vgf::TensorId;

// Helpers that the single-op shaders define inside their switch statements; here they are
// functions so every op is one expression. Same formulas as binary.comp / unary.comp /
// cast.comp.
constexpr const char* kChainHelpers = R"glsl(
// Low `bits` bits of v, sign-extended: what storing into an int8/int16 tensor keeps.
int ew_wrap(int v, int bits) { return bits == 32 ? v : bitfieldExtract(v, 0, bits); }
uint ew_unsigned(int v, int bits) { return bits == 32 ? uint(v) : uint(v) & ((1u << uint(bits)) - 1u); }
int ew_mul_shift(int a, int b, int shift) {
  I64 prod = i64_add(i64_mul(a, b), i64_pow2(shift - 1));
  return i64_shr_low(prod, shift);
}
int ew_asr(int a, int b, bool round) {
  if (b <= 0 || b >= 32) return a;
  int r = a >> b;
  if (round && ((a >> (b - 1)) & 1) != 0) r += 1;
  return r;
}
int ew_lsl(int a, int b, int bits) { return (b < 0 || b >= 32) ? 0 : ew_wrap(a << b, bits); }
int ew_lsr(int a, int b, int bits) {
  return (b < 0 || b >= 32) ? 0 : ew_wrap(int(ew_unsigned(a, bits) >> uint(b)), bits);
}
int ew_intdiv(int a, int b) {
  if (b == 0) return 0;  // REQUIRE violated: any value, no crash
  if (a == int(0x80000000u) && b == -1) return a;
  return a / b;
}
float ew_fmaxmin(float a, float b, bool is_max, bool propagate) {
  bool a_nan = isnan(a), b_nan = isnan(b);
  if (a_nan || b_nan) {
    if (propagate || (a_nan && b_nan)) return a_nan ? a : b;
    return a_nan ? b : a;
  }
  return is_max ? max(a, b) : min(a, b);
}
float ew_fclamp(float x, float lo, float hi, bool ignore_nan) {
  if (isnan(x)) return ignore_nan ? lo : x;
  return min(max(x, lo), hi);
}
float ew_tanh(float x) {
  float e = exp(-2.0 * abs(x));
  return sign(x) * (1.0 - e) / (1.0 + e);
}
float ew_erf(float x) {  // Abramowitz & Stegun 7.1.26, as unary.comp
  float s = sign(x);
  x = abs(x);
  float t = 1.0 / (1.0 + 0.3275911 * x);
  float y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t +
                   0.254829592) * t * exp(-x * x);
  return s * y;
}
int ew_f2i(float x, int bits) {  // round to nearest even, saturate, NaN -> 0 (cast.comp)
  float lo = float(-(1 << (bits - 1)));
  float hi_excl = -lo;
  if (isnan(x)) return 0;
  float rounded = roundEven(x);  // round first: 127.5 -> 128 must saturate to 127
  if (rounded >= hi_excl) return int(uint(hi_excl) - 1u);
  if (rounded <= lo) return int(lo);
  return int(rounded);
}
int ew_table16(int x, int base_offset) {  // table.comp, 513 entries at base_offset
  int index = clamp((x >> 7) + 256, 0, 511);
  int frac = x & 0x7F;
  int base = data_const[base_offset + index];
  int next = data_const[base_offset + index + 1];
  return (base << 7) + (next - base) * frac;
}
)glsl";

std::string int_literal(int64_t v) {
  int32_t x = int32_t(v);
  if (x == INT32_MIN) return "int(0x80000000u)";
  return std::to_string(x);
}

std::string float_literal(float f) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "uintBitsToFloat(0x%08" PRIx32 "u)", uint32_t(float_bits(f)));
  return buf;
}

const char* storage_type(DType t) {
  switch (t) {
    case DType::Bool: return "uint8_t";
    case DType::Int8: return "int8_t";
    case DType::Int16: return "int16_t";
    case DType::Int32: return "int";
    default: return "float";
  }
}

int bits_of(DType t) { return t == DType::Int8 ? 8 : t == DType::Int16 ? 16 : 32; }
bool is_float(DType t) { return t == DType::Fp32; }

class ChainWriter {
 public:
  ChainWriter(const vgf::Graph& g, const FusedStep& step, std::span<const vgf::Shape> shapes)
      : g_(g), step_(step), shapes_(shapes) {}

  Result<ChainKernel> write();

 private:
  // Registers are numbered in order of first appearance (not by TensorId), so equal chains in
  // different places of a graph generate the same text and share one module.
  std::string reg(TensorId t) {
    auto [it, inserted] = regs_.try_emplace(t, regs_.size());
    return "v" + std::to_string(it->second);
  }
  bool produced_inside(TensorId t) const {
    for (size_t m : step_.chain) {
      if (g_.ops[m].outputs[0] == t) return true;
    }
    return false;
  }
  // Declares the register for an external input (loaded once, broadcast-aware index).
  void load_input(TensorId t);
  Status emit_op(size_t index);
  Status unsupported(size_t index, const std::string& why) const {
    const vgf::Op& op = g_.ops[index];
    return make_error(Error::NotSupported, "fused chain: op ", index, " (", vgf::op_name(op.kind), "): ", why);
  }
  // Adds values to the constant block; returns their offset (in int32 elements).
  size_t add_constants(std::span<const int32_t> values) {
    size_t off = kernel_.constants.size();
    kernel_.constants.insert(kernel_.constants.end(), values.begin(), values.end());
    return off;
  }

  // The shape of t the literals are written for: the plan's inferred one, else as declared.
  const vgf::Shape& shape(TensorId t) const { return shapes_.empty() ? g_.tensor(t).shape : shapes_[t]; }

  const vgf::Graph& g_;
  const FusedStep& step_;
  std::span<const vgf::Shape> shapes_;
  ChainKernel kernel_;
  vgf::Shape out_shape_;
  std::vector<bool> loaded_;
  std::ostringstream body_;
  bool need_coords_ = false;
  std::map<TensorId, size_t> regs_;
};

void ChainWriter::load_input(TensorId t) {
  if (loaded_[t]) return;
  loaded_[t] = true;
  const vgf::TensorInfo& info = g_.tensor(t);
  const vgf::Shape& in_shape = shape(t);
  size_t binding = kernel_.inputs.size();
  kernel_.inputs.push_back(t);
  // Element index: the output index when shapes match, else the sum over non-broadcast dims
  // of coordinate * contiguous stride of the input (TOSA broadcasting, tosa.md §9).
  std::string index = "idx";
  if (in_shape != out_shape_) {
    need_coords_ = true;
    index.clear();
    int64_t stride = 1;
    for (size_t d = in_shape.size(); d-- > 0;) {
      if (in_shape[d] != 1) {
        if (!index.empty()) index += " + ";
        index += "c" + std::to_string(d) + " * " + std::to_string(stride) + "u";
      }
      stride *= in_shape[d];
    }
    if (index.empty()) index = "0u";
  }
  const char* reg_type = is_float(info.dtype) ? "float" : "int";
  body_ << "  " << reg_type << " " << reg(t) << " = " << reg_type << "(data_in" << binding << "[" << index
        << "]);\n";
}

Status ChainWriter::emit_op(size_t index) {
  const vgf::Op& op = g_.ops[index];
  if (op.outputs.size() != 1 || int(op.inputs.size()) != vgf::expected_input_count(op.kind)) {
    return unsupported(index, "unexpected operand count");
  }
  for (TensorId t : op.inputs) {
    if (t >= g_.tensors.size()) return unsupported(index, "tensor id out of range");
    if (!produced_inside(t)) load_input(t);
  }
  const DType in = g_.tensor(op.inputs[0]).dtype;
  const DType out = g_.tensor(op.outputs[0]).dtype;
  const std::string a = reg(op.inputs[0]);
  const std::string b = op.inputs.size() > 1 ? reg(op.inputs[1]) : std::string();
  const std::string bits = std::to_string(bits_of(in));
  std::string expr;
  switch (op.kind) {
    case OpKind::ADD: expr = a + " + " + b; break;
    case OpKind::SUB: expr = a + " - " + b; break;
    case OpKind::MUL: {
      int32_t shift = 0;
      if (const auto* m = std::get_if<vgf::MulAttr>(&op.attr)) shift = m->shift;
      if (is_float(in) || shift == 0) {
        expr = a + " * " + b;  // int: low 32 bits of the product (tosa.md §9)
      } else {
        if (shift < 1 || shift > 62) return unsupported(index, "MUL shift " + std::to_string(shift));
        expr = "ew_mul_shift(" + a + ", " + b + ", " + std::to_string(shift) + ")";
      }
      break;
    }
    case OpKind::MAXIMUM:
    case OpKind::MINIMUM: {
      const bool is_max = op.kind == OpKind::MAXIMUM;
      if (is_float(in)) {
        bool propagate = true;
        if (const auto* n = std::get_if<vgf::NanModeAttr>(&op.attr)) propagate = n->nan_mode != vgf::NanMode::Ignore;
        expr = std::string("ew_fmaxmin(") + a + ", " + b + ", " + (is_max ? "true" : "false") + ", " +
               (propagate ? "true" : "false") + ")";
      } else {
        expr = std::string(is_max ? "max(" : "min(") + a + ", " + b + ")";
      }
      break;
    }
    case OpKind::BITWISE_AND: expr = a + " & " + b; break;
    case OpKind::BITWISE_OR: expr = a + " | " + b; break;
    case OpKind::BITWISE_XOR: expr = a + " ^ " + b; break;
    case OpKind::LOGICAL_AND: expr = "int(" + a + " != 0 && " + b + " != 0)"; break;
    case OpKind::LOGICAL_OR: expr = "int(" + a + " != 0 || " + b + " != 0)"; break;
    case OpKind::LOGICAL_XOR: expr = "int((" + a + " != 0) != (" + b + " != 0))"; break;
    case OpKind::ARITHMETIC_RIGHT_SHIFT: {
      bool round = false;
      if (const auto* s = std::get_if<vgf::ShiftAttr>(&op.attr)) round = s->round;
      expr = "ew_asr(" + a + ", " + b + ", " + (round ? "true" : "false") + ")";
      break;
    }
    case OpKind::LOGICAL_LEFT_SHIFT: expr = "ew_lsl(" + a + ", " + b + ", " + bits + ")"; break;
    case OpKind::LOGICAL_RIGHT_SHIFT: expr = "ew_lsr(" + a + ", " + b + ", " + bits + ")"; break;
    case OpKind::INTDIV: expr = "ew_intdiv(" + a + ", " + b + ")"; break;
    case OpKind::POW: expr = "pow(" + a + ", " + b + ")"; break;
    case OpKind::EQUAL: expr = "int(" + a + " == " + b + ")"; break;
    case OpKind::GREATER: expr = "int(" + a + " > " + b + ")"; break;
    case OpKind::GREATER_EQUAL: expr = "int(" + a + " >= " + b + ")"; break;
    case OpKind::ABS:
      expr = is_float(in) ? "abs(" + a + ")"
                          : "clamp(abs(" + a + "), " + int_literal(type_min(in)) + ", " + int_literal(type_max(in)) + ")";
      break;
    case OpKind::BITWISE_NOT: expr = "~" + a; break;
    case OpKind::CLZ: expr = "(" + a + " == 0 ? 32 : 31 - findMSB(uint(" + a + ")))"; break;
    case OpKind::NEGATE: {
      if (is_float(in)) {
        expr = "-" + a;
      } else {
        int32_t in_zp = 0, out_zp = 0;
        if (const auto* n = std::get_if<vgf::NegateAttr>(&op.attr)) {
          in_zp = n->input_zp;
          out_zp = n->output_zp;
        }
        expr = "clamp(-(" + a + " - " + int_literal(in_zp) + ") + " + int_literal(out_zp) + ", " +
               int_literal(type_min(in)) + ", " + int_literal(type_max(in)) + ")";
      }
      break;
    }
    case OpKind::CLAMP: {
      const auto* clamp_attr = std::get_if<vgf::ClampAttr>(&op.attr);
      if (!clamp_attr) return unsupported(index, "missing attributes");
      const auto& c = *clamp_attr;
      if (is_float(in)) {
        expr = "ew_fclamp(" + a + ", " + float_literal(float(c.min_fp)) + ", " + float_literal(float(c.max_fp)) +
               ", " + (c.nan_mode == vgf::NanMode::Ignore ? "true" : "false") + ")";
      } else {
        expr = "min(max(" + a + ", " + int_literal(c.min_int) + "), " + int_literal(c.max_int) + ")";
      }
      break;
    }
    case OpKind::LOGICAL_NOT: expr = "(" + a + " != 0 ? 0 : 1)"; break;
    case OpKind::CEIL: expr = "ceil(" + a + ")"; break;
    case OpKind::FLOOR: expr = "floor(" + a + ")"; break;
    case OpKind::EXP: expr = "exp(" + a + ")"; break;
    case OpKind::LOG: expr = "log(" + a + ")"; break;
    case OpKind::SIN: expr = "sin(" + a + ")"; break;
    case OpKind::COS: expr = "cos(" + a + ")"; break;
    case OpKind::RECIPROCAL: expr = "1.0 / " + a; break;
    case OpKind::RSQRT: expr = "inversesqrt(" + a + ")"; break;
    case OpKind::SIGMOID: expr = "1.0 / (1.0 + exp(-" + a + "))"; break;
    case OpKind::TANH: expr = "ew_tanh(" + a + ")"; break;
    case OpKind::ERF: expr = "ew_erf(" + a + ")"; break;
    case OpKind::RESCALE: {
      // rescale.comp: zero-extend unsigned input, subtract input_zp, apply_scale_32 (double
      // rounding only for scale32), add output_zp, clamp to the output range (tosa.md §5).
      const auto* rescale_attr = std::get_if<vgf::RescaleAttr>(&op.attr);
      if (!rescale_attr) return unsupported(index, "missing attributes");
      const auto& r = *rescale_attr;
      const size_t needed = r.per_channel ? size_t(out_shape_.empty() ? 1 : out_shape_.back()) : 1;
      if (r.multiplier.size() < needed || r.shift.size() < needed) {
        return unsupported(index, std::to_string(r.multiplier.size()) + " multipliers / " +
                                      std::to_string(r.shift.size()) + " shifts for " + std::to_string(needed) +
                                      " channels");
      }
      std::string v = a;
      if (r.input_unsigned && bits_of(in) < 32) {
        v = "(" + v + " & " + std::to_string((1 << bits_of(in)) - 1) + ")";
      }
      v = "(" + v + " - " + int_literal(r.input_zp) + ")";
      const bool double_round = r.scale32 && r.rounding_mode == vgf::RoundingMode::DoubleRound;
      std::string mult, shift;
      if (r.per_channel) {
        const int64_t channels = out_shape_.empty() ? 1 : out_shape_.back();
        std::vector<int32_t> shifts(r.shift.begin(), r.shift.begin() + channels);
        size_t m_off = add_constants(std::span<const int32_t>(r.multiplier.data(), size_t(channels)));
        size_t s_off = add_constants(shifts);
        std::string c = "int(idx % " + std::to_string(channels) + "u)";
        mult = "data_const[" + std::to_string(m_off) + " + " + c + "]";
        shift = "data_const[" + std::to_string(s_off) + " + " + c + "]";
      } else {
        mult = int_literal(r.multiplier[0]);
        shift = std::to_string(int(r.shift[0]));
      }
      int32_t lo = r.output_unsigned ? 0 : type_min(out);
      // Same bounds as lower_rescale (op_lowering_compute.cpp).
      int32_t hi = r.output_unsigned ? (out == DType::Int8 ? 255 : 65535) : type_max(out);
      expr = "clamp(apply_scale_32(" + v + ", " + mult + ", " + shift + ", " + (double_round ? "true" : "false") +
             ") + " + int_literal(r.output_zp) + ", " + int_literal(lo) + ", " + int_literal(hi) + ")";
      break;
    }
    case OpKind::TABLE: {
      const auto* table_attr = std::get_if<vgf::TableAttr>(&op.attr);
      if (!table_attr) return unsupported(index, "missing attributes");
      const auto& t = *table_attr;
      if (t.table.size() != (in == DType::Int8 ? 256u : 513u)) {
        return unsupported(index, std::to_string(t.table.size()) + " table entries");
      }
      std::vector<int32_t> entries(t.table.begin(), t.table.end());
      size_t off = add_constants(entries);
      if (in == DType::Int8) {
        expr = "data_const[" + std::to_string(off + 128) + " + " + a + "]";
      } else {
        expr = "ew_table16(" + a + ", " + std::to_string(off) + ")";
      }
      break;
    }
    case OpKind::CAST: {
      if (out == DType::Bool) {
        expr = is_float(in) ? "int(" + a + " != 0.0)" : "int(" + a + " != 0)";
      } else if (is_float(out)) {
        expr = "float(" + a + ")";
      } else if (is_float(in)) {
        expr = "ew_f2i(" + a + ", " + std::to_string(bits_of(out)) + ")";
      } else {
        expr = a;  // narrowing keeps the low bits: the wrap below
      }
      break;
    }
    case OpKind::SELECT:
      expr = "(" + a + " != 0 ? " + b + " : " + reg(op.inputs[2]) + ")";
      break;
    default:
      return unsupported(index, "not an elementwise op");
  }
  const std::string r = reg(op.outputs[0]);
  if (is_float(out)) {
    // `precise`: no contraction across ops, so results match the unfused dispatches.
    body_ << "  precise float " << r << " = " << expr << ";  // " << vgf::op_name(op.kind) << "\n";
  } else if (out == DType::Int8 || out == DType::Int16) {
    body_ << "  int " << r << " = ew_wrap(" << expr << ", " << bits_of(out) << ");  // " << vgf::op_name(op.kind)
          << "\n";
  } else {
    body_ << "  int " << r << " = " << expr << ";  // " << vgf::op_name(op.kind) << "\n";
  }
  return Status::ok();
}

Result<ChainKernel> ChainWriter::write() {
  if (step_.chain.empty()) return make_error(Error::InvalidArgument, "fused chain: the step has no chain");
  loaded_.assign(g_.tensors.size(), false);
  kernel_.output = step_.output;
  if (!shapes_.empty() && shapes_.size() != g_.tensors.size()) {
    return make_error(Error::InvalidArgument, "fused chain: ", shapes_.size(), " shapes for ", g_.tensors.size(),
                      " tensors");
  }
  const vgf::TensorInfo& out = g_.tensor(step_.output);
  out_shape_ = shape(step_.output);
  int64_t count = 1;
  for (int64_t d : out_shape_) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) count = -1;
    if (count < 0) break;
  }
  if (count <= 0 || count > INT32_MAX) {
    return make_error(Error::NotSupported, "fused chain: output element count ", count, " out of range");
  }
  kernel_.count = uint64_t(count);
  kernel_.label = "CHAIN(";
  for (size_t i = 0; i < step_.chain.size(); ++i) {
    kernel_.label += (i ? "+" : "") + std::string(vgf::op_name(g_.ops[step_.chain[i]].kind));
    VKRT_RETURN_IF_ERROR(emit_op(step_.chain[i]));
  }
  kernel_.label += ")";

  std::ostringstream src;
  src << "#version 450\n" << kCommonGlsl << "\n// " << kernel_.label << "\n";
  src << "layout(local_size_x = WORKGROUP_SIZE) in;\n";
  src << "layout(set = 0, binding = 0) writeonly buffer Out { " << storage_type(out.dtype) << " data_out[]; };\n";
  src << "layout(set = 0, binding = 1) readonly buffer Consts { int data_const[]; };\n";
  for (size_t i = 0; i < kernel_.inputs.size(); ++i) {
    src << "layout(set = 0, binding = " << i + 2 << ") readonly buffer In" << i << " { "
        << storage_type(g_.tensor(kernel_.inputs[i]).dtype) << " data_in" << i << "[]; };\n";
  }
  src << kChainHelpers << "\nvoid main() {\n  uint idx = linear_index();\n  if (idx >= " << count
      << "u) return;\n";
  if (need_coords_) {
    src << "  uint rem = idx;\n";
    for (size_t d = out_shape_.size(); d-- > 0;) {
      src << "  uint c" << d << " = rem % " << out_shape_[d] << "u;\n  rem /= " << out_shape_[d] << "u;\n";
    }
  }
  src << body_.str();
  src << "  data_out[idx] = " << storage_type(out.dtype) << "(" << reg(step_.output) << ");\n}\n";
  kernel_.source = src.str();

  // FNV-1a 64 of the source names the module (the per-executor cache key).
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : kernel_.source) h = (h ^ ch) * 1099511628211ull;
  char name[40];
  std::snprintf(name, sizeof(name), "fused_ew_%016" PRIx64, h);
  kernel_.name = name;
  return std::move(kernel_);
}

}  // namespace

Result<ChainKernel> generate_chain_kernel(const vgf::Graph& graph, const FusedStep& step,
                                          std::span<const vgf::Shape> shapes) {
  ChainWriter writer(graph, step, shapes);
  return writer.write();
}

bool is_chain_shader_name(std::string_view shader) { return shader.starts_with("fused_ew_"); }

}  // namespace vkrt::vulkan
