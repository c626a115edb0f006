// GLSL generation for fused elementwise chains (elementwise_fusion.h). Each op becomes one line
// on registers (`int` for bool/int8/int16/int32 values, sign-extended; `float` for fp32): the
// expression its op-table entry gives (op_table.h; written next to each op's lowering in
// op_lowering_*.cpp), truncated to the output type. The expressions mirror the single-op shaders
// (binary.comp, unary.comp, rescale.comp, table.comp, cast.comp, select.comp; TOSA semantics in
// tosa.md §4-§12), and the source reuses common.glsl (64-bit helpers, apply_scale_32) verbatim,
// so a fused chain is bit-exact with the unfused dispatches for integer types.
#include <cinttypes>
#include <cstdio>
#include <map>
#include <sstream>

#include "glsl_common_source.h"  // kCommonGlsl, kElementwiseOpsGlsl: shaders/glsl/*.glsl, embedded at build time
#include "vgf/vulkan/elementwise_fusion.h"

namespace vkrt::vulkan {
namespace {

using vgf::DType;
using vgf::TensorId;

// The one helper that reads the chain's constant block (binding 1); the others come from
// shaders/glsl/elementwise_ops.glsl (kElementwiseOpsGlsl), shared with the single-op shaders.
constexpr const char* kChainHelpers = R"glsl(
int ew_table16(int x, int base_offset) {  // table.comp, 513 entries at base_offset
  int index = clamp((x >> 7) + 256, 0, 511);
  int frac = x & 0x7F;
  int base = data_const[base_offset + index];
  int next = data_const[base_offset + index + 1];
  return (base << 7) + (next - base) * frac;
}
)glsl";

const char* storage_type(DType t) {
  switch (t) {
    case DType::Bool: return "uint8_t";
    case DType::Int8: return "int8_t";
    case DType::Int16: return "int16_t";
    case DType::Int32: return "int";
    default: return "float";
  }
}

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

// An op's GLSL template with $a, $b, $c (its input registers) and $bits (input 0's width) filled in.
std::string fill_template(std::string_view glsl, const ChainOperands& o) {
  std::string out;
  for (size_t i = 0; i < glsl.size(); ++i) {
    if (glsl[i] != '$') {
      out += glsl[i];
    } else if (glsl.substr(i + 1, 4) == "bits") {
      out += std::to_string(int_bits(o.in));
      i += 4;
    } else {
      out += o.regs.at(size_t(glsl[i + 1] - 'a'));
      i += 1;
    }
  }
  return out;
}

Status ChainWriter::emit_op(size_t index) {
  // The graph passed validate_graph: operand counts, tensor ids and attribute kinds hold.
  const vgf::Op& op = g_.ops[index];
  for (TensorId t : op.inputs) {
    if (!produced_inside(t)) load_input(t);
  }
  const DType out = g_.tensor(op.outputs[0]).dtype;
  ChainOperands operands{op, g_.tensor(op.inputs[0]).dtype, out, {}, out_shape_, &kernel_.constants};
  for (TensorId t : op.inputs) operands.regs.push_back(reg(t));
  // The op's expression, from its entry in the op table.
  const VulkanOpImpl& impl = vulkan_op(op.kind);
  std::string expr;
  if (impl.glsl != nullptr) {
    expr = fill_template(impl.glsl, operands);
  } else if (impl.chain_expr != nullptr) {
    Result<std::string> written = impl.chain_expr(operands);
    if (!written.ok()) return unsupported(index, written.status().message());
    expr = std::move(*written);
  } else {
    return unsupported(index, "not an elementwise op");
  }
  const std::string r = reg(op.outputs[0]);
  if (is_float(out)) {
    // `precise`: no contraction across ops, so results match the unfused dispatches.
    body_ << "  precise float " << r << " = " << expr << ";  // " << vgf::op_name(op.kind) << "\n";
  } else if (out == DType::Int8 || out == DType::Int16) {
    body_ << "  int " << r << " = ew_wrap(" << expr << ", " << int_bits(out) << ");  // " << vgf::op_name(op.kind)
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
  src << kElementwiseOpsGlsl << kChainHelpers << "\nvoid main() {\n  uint idx = linear_index();\n  if (idx >= " << count
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
