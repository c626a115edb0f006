#include "vgf/vulkan/op_lowering.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "vgf/vulkan/elementwise_fusion.h"

namespace vkrt::vulkan {

using vgf::DType;

const char* type_suffix(DType t) {
  switch (t) {
    case DType::Int8: return "i8";
    case DType::Bool: return "i8";  // stored as one byte 0/1
    case DType::Int16: return "i16";
    case DType::Int32: return "i32";
    case DType::Int48: return "i48";  // held in int64
    case DType::Fp32: return "f32";
    default: return "";
  }
}

int int_bits(DType t) { return t == DType::Int8 ? 8 : t == DType::Int16 ? 16 : 32; }

bool is_one_of(DType t, std::initializer_list<DType> types) {
  return std::find(types.begin(), types.end(), t) != types.end();
}

int32_t float_bits(float f) {
  int32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

Slot LoweringContext::add_constant(const void* data, size_t bytes) {
  uint64_t offset = (constants_.size() + alignment_ - 1) / alignment_ * alignment_;
  constants_.resize(offset + std::max<size_t>(bytes, 16), 0);
  if (bytes) std::memcpy(constants_.data() + offset, data, bytes);
  return Slot{SlotKind::Constants, offset, std::max<uint64_t>(bytes, 16)};
}

Slot LoweringContext::dummy() {
  if (!have_dummy_) {
    const uint8_t zeros[16] = {};
    dummy_ = add_constant(zeros, sizeof(zeros));
    have_dummy_ = true;
  }
  return dummy_;
}

Slot LoweringContext::tensor(vgf::TensorId t) {
  vgf::TensorId root = alias_[t];
  const vgf::TensorInfo& info = graph_.tensor(root);
  if (info.is_constant) {
    if (auto it = graph_constants_.find(root); it != graph_constants_.end()) return it->second;
    auto bytes = info.constant_bytes();
    Slot s = add_constant(bytes.data(), bytes.size());
    graph_constants_[root] = s;
    return s;
  }
  const TensorPlacement& p = plan_.placement[root];
  return Slot{SlotKind::Arena, p.offset, std::max<uint64_t>(p.bytes, 16)};
}

std::string glsl_int(int64_t v) {
  int32_t x = int32_t(v);
  if (x == INT32_MIN) return "int(0x80000000u)";  // -2147483648 is not a GLSL int literal
  return std::to_string(x);
}

std::string glsl_float(float f) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "uintBitsToFloat(0x%08" PRIx32 "u)", uint32_t(float_bits(f)));
  return buf;
}

Status lower_step(const FusedStep& step, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  if (!step.chain.empty()) return lower_elementwise_chain(step, ctx, out);  // generated shader
  const vgf::Op& op = ctx.graph().ops[step.op];
  size_t before = out->size();
  const VulkanOpImpl& impl = vulkan_op(op.kind);
  if (impl.lower == nullptr) {  // check_op_capability refuses these before anything is lowered
    return make_error(Error::NotSupported, vgf::op_name(op.kind), " has no vulkan lowering");
  }
  VKRT_RETURN_IF_ERROR(impl.lower(step, ctx, out));
  // Label the new dispatches with the op names for the profile table.
  std::string label = vgf::op_name(op.kind);
  if (step.rescale >= 0) label += "+RESCALE";
  if (step.clamp >= 0) label += "+CLAMP";
  if (step.table >= 0) label += "+TABLE";
  for (size_t i = before; i < out->size(); ++i) {
    if ((*out)[i].label.empty()) (*out)[i].label = label;
  }
  return Status::ok();
}

}  // namespace vkrt::vulkan
