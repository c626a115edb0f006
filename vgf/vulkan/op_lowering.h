// Lowering of graph steps (graph_plan.h) into shader dispatches. Buffers are symbolic here
// (Slot: arena or constants, offset, size) because the device buffers are created after the
// sizes are known; the executor resolves them (vulkan_executor.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vgf/ir/graph.h"
#include "vgf/ir/shape_inference.h"
#include "vgf/vulkan/context.h"
#include "vgf/vulkan/graph_plan.h"
#include "vgf/vulkan/op_table.h"
#include "vgf/vulkan/pipeline.h"
#include "vkrt/error.h"

namespace vkrt::vulkan {

enum class SlotKind : uint8_t { Arena, Constants };

struct Slot {
  SlotKind kind = SlotKind::Constants;
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct PendingDispatch {
  std::string shader;
  uint32_t binding_count = 0;
  std::vector<Slot> bindings;
  std::vector<bool> writes;
  std::array<uint8_t, kPushConstantBytes> push{};
  uint64_t invocations = 0;
  uint32_t workgroup_size = 64;  // the shader's local_size_x (WORKGROUP_SIZE unless it says)
  std::string label;

  template <typename T>
  void set_push(const T& params) {
    static_assert(sizeof(T) <= kPushConstantBytes, "push constants exceed 128 bytes");
    std::memcpy(push.data(), &params, sizeof(T));
  }
};

// Where tensors live and how op-derived constants (requantization tables, lookup tables) are
// added to the constant buffer. Graph constants are copied in on first use.
class LoweringContext {
 public:
  LoweringContext(const vgf::Graph& graph, std::span<const vgf::Shape> shapes,
                  std::span<const vgf::TensorId> alias, const MemoryPlan& plan,
                  const DeviceFeatures& features, uint64_t alignment)
      : graph_(graph), shapes_(shapes), alias_(alias), plan_(plan), features_(features),
        alignment_(alignment) {}

  const vgf::Graph& graph() const { return graph_; }
  const vgf::Shape& shape(vgf::TensorId t) const { return shapes_[t]; }
  std::span<const vgf::Shape> shapes() const { return shapes_; }
  vgf::DType dtype(vgf::TensorId t) const { return graph_.tensor(t).dtype; }
  const DeviceFeatures& features() const { return features_; }
  // The fast-variant policy and cooperative-matrix layout (VgfOptions::variants / coopmat) that
  // select_fast_variant applies; Auto and "" (by GEMM size) unless set.
  void set_variants(VgfVariants policy, std::string_view coopmat_layout) {
    variants_ = policy;
    coopmat_layout_ = coopmat_layout;
  }
  VgfVariants variants() const { return variants_; }
  std::string_view coopmat_layout() const { return coopmat_layout_; }

  // The storage of a tensor (arena placement of its alias root, or its constant bytes).
  Slot tensor(vgf::TensorId t);
  // Appends bytes to the constant buffer (aligned) and returns where they are.
  Slot add_constant(const void* data, size_t bytes);
  Slot add_int32_constant(std::span<const int32_t> values) {
    return add_constant(values.data(), values.size() * sizeof(int32_t));
  }
  // A 16-byte constant for bindings a variant declares but does not read.
  Slot dummy();
  const std::vector<uint8_t>& constants() const { return constants_; }

 private:
  const vgf::Graph& graph_;
  std::span<const vgf::Shape> shapes_;
  std::span<const vgf::TensorId> alias_;
  const MemoryPlan& plan_;
  const DeviceFeatures& features_;
  VgfVariants variants_ = VgfVariants::Auto;
  std::string_view coopmat_layout_;
  uint64_t alignment_;
  std::vector<uint8_t> constants_;
  std::map<vgf::TensorId, Slot> graph_constants_;
  bool have_dummy_ = false;
  Slot dummy_;
};

// Appends the dispatches of one step (its op's lowering from the op table, or the generated
// shader of a fused chain).
Status lower_step(const FusedStep& step, LoweringContext& ctx, std::vector<PendingDispatch>* out);

// Adapts the lowering of a lone op (one that never carries a fused epilogue) to the op table's
// LowerFn.
template <Status (*Lower)(const vgf::Op&, LoweringContext&, std::vector<PendingDispatch>*)>
Status lower_single(const FusedStep& step, LoweringContext& ctx, std::vector<PendingDispatch>* out) {
  return Lower(ctx.graph().ops[step.op], ctx, out);
}

// CAST to or from fp16 (cast_f16.comp; op_lowering_extra.cpp).
Status lower_cast_half(const vgf::Op& op, LoweringContext& ctx, std::vector<PendingDispatch>* out);

// Helpers shared by the lowering files.
const char* type_suffix(vgf::DType t);  // "i8", "i16", "i32", "f32"; "" when unsupported
using tosa::type_max;  // integer type ranges: the shared vocabulary's (vgf/ir/graph.h)
using tosa::type_min;
int32_t float_bits(float f);
int int_bits(vgf::DType t);  // 8 for int8, 16 for int16, else 32: an int register's meaningful bits
bool is_one_of(vgf::DType t, std::initializer_list<vgf::DType> types);
// GLSL literals for generated shaders: an int ("int(0x80000000u)" for INT32_MIN) and the exact
// bits of a float ("uintBitsToFloat(0x3f800000u)").
std::string glsl_int(int64_t v);
std::string glsl_float(float f);

// The NHWC sizes that the pooling and RESIZE Params blocks start with (N, IH, IW, C, OH, OW),
// from the input and output shapes.
template <typename Params>
void set_nhwc_sizes(Params& p, const vgf::Shape& in, const vgf::Shape& out) {
  p.N = int32_t(in[0]);
  p.IH = int32_t(in[1]);
  p.IW = int32_t(in[2]);
  p.C = int32_t(in[3]);
  p.OH = int32_t(out[1]);
  p.OW = int32_t(out[2]);
}

}  // namespace vkrt::vulkan
