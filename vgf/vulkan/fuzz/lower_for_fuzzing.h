// The Vulkan executor's JIT short of the device, for the fuzzers: what build_plan
// (vulkan_executor.cpp) does before it creates a buffer or a pipeline, under a few made-up device
// profiles, with the invariants the device side relies on checked. Header-only: only fuzz targets
// include it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "shaders/shader_library.h"
#include "vgf/ir/graph.h"
#include "vgf/ir/shape_inference.h"
#include "vgf/vulkan/command_program.h"
#include "vgf/vulkan/elementwise_fusion.h"
#include "vgf/vulkan/graph_plan.h"
#include "vgf/vulkan/op_lowering.h"

namespace vkrt::vulkan::fuzzing {

// A GPU of today: 8/16-bit storage and arithmetic, int64, fp16, 32-wide subgroups, 48 KiB of
// shared memory; `dot` adds accelerated int8 dot products (the *_dot_* variants), `coopmat`
// NVIDIA's subgroup-scope cooperative-matrix shapes (used where the build embeds those shaders).
inline DeviceFeatures fuzz_device(bool dot, bool coopmat) {
  DeviceFeatures f;
  f.storage_buffer_8bit = f.storage_buffer_16bit = true;
  f.shader_int8 = f.shader_int16 = f.shader_int64 = f.shader_float16 = true;
  f.integer_dot_product = f.integer_dot_4x8_accelerated = dot;
  if (coopmat) {
    f.cooperative_matrix_khr = f.cooperative_matrix_khr_offered = true;
    CooperativeMatrixShape i8{16, 16, 32, int32_t(CoopmatType::Sint8), int32_t(CoopmatType::Sint8),
                              int32_t(CoopmatType::Sint32), int32_t(CoopmatType::Sint32)};
    CooperativeMatrixShape f16{16, 16, 16, int32_t(CoopmatType::Float16), int32_t(CoopmatType::Float16),
                               int32_t(CoopmatType::Float32), int32_t(CoopmatType::Float32)};
    f.cooperative_matrix_shapes = {i8, f16};
  }
  f.subgroup_size = 32;
  f.subgroup_arithmetic = f.subgroup_shuffle = true;
  f.max_shared_memory_bytes = 49152;
  f.max_push_constants_bytes = 256;
  f.max_workgroup_invocations = 1024;
  f.max_workgroup_count = {65535, 65535, 65535};
  f.max_storage_buffer_range = (uint64_t(1) << 32) - 1;
  f.max_memory_allocation_size = uint64_t(1) << 34;
  f.min_storage_buffer_offset_alignment = 64;
  f.max_storage_buffers_per_stage = 16;
  return f;
}

// A broken invariant is a bug in the JIT, not in the input: stop so libFuzzer keeps the input.
inline void require(bool ok, const char* what, const PendingDispatch& d) {
  if (ok) return;
  std::fprintf(stderr, "lowering invariant broken: %s (dispatch %s, shader %s)\n", what, d.label.c_str(),
               d.shader.c_str());
  std::abort();
}

// Lowers `graph` (its dynamic input dimensions set to 3) as the executor would and returns the
// executor's verdict: Ok, NotSupported for a capability it lacks, or the error that refuses the
// graph. `graph` comes from a reader, so it passed validate_graph, which the executor requires
// (it checks only its own capabilities again).
inline Status lower_for_vulkan(const vgf::Graph& graph) {
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    VKRT_RETURN_IF_ERROR(check_op_capability(graph, i));
  }
  std::vector<vgf::Shape> input_shapes;
  for (const auto& io : graph.inputs) {
    vgf::Shape s = graph.tensor(io.tensor).shape;
    for (int64_t& d : s) d = d == vgf::kDynamicDim ? 3 : d;
    input_shapes.push_back(std::move(s));
  }
  VKRT_ASSIGN_OR_RETURN(std::vector<vgf::Shape> shapes, vgf::infer_shapes(graph, input_shapes));
  VKRT_RETURN_IF_ERROR(check_shape_capability(shapes));
  const std::vector<vgf::TensorId> alias = alias_roots(graph);
  for (const DeviceFeatures& features : {fuzz_device(false, false), fuzz_device(true, true)}) {
    std::vector<FusedStep> steps = fuse_elementwise_chains(graph, fuse_ops(graph, true), 8, shapes);
    // ChainPipelines::prepare without glslang: a chain whose shader cannot be generated runs
    // as its single ops.
    std::vector<FusedStep> planned;
    for (FusedStep& step : steps) {
      if (!step.chain.empty() && !generate_chain_kernel(graph, step, shapes).ok()) {
        for (FusedStep& single : split_chain(graph, step)) planned.push_back(std::move(single));
      } else {
        planned.push_back(std::move(step));
      }
    }
    VKRT_ASSIGN_OR_RETURN(MemoryPlan memory_plan, plan_memory(graph, shapes, planned, alias, 64));
    const MemoryPlan* memory = &memory_plan;
    LoweringContext ctx(graph, shapes, alias, *memory, features, 64);
    std::vector<PendingDispatch> dispatches;
    for (const FusedStep& step : planned) {
      VKRT_RETURN_IF_ERROR(lower_step(step, ctx, &dispatches));
    }
    for (const PendingDispatch& d : dispatches) {
      require(d.bindings.size() == d.binding_count, "binding count", d);
      require(d.writes.size() == d.bindings.size(), "one write flag per binding", d);
      require(d.workgroup_size > 0 && d.workgroup_size <= features.max_workgroup_invocations, "workgroup size", d);
      require(is_chain_shader_name(d.shader) || shaders::find_shader(d.shader) != nullptr, "shader is embedded", d);
      for (const Slot& s : d.bindings) {
        const uint64_t limit = s.kind == SlotKind::Arena ? memory->arena_bytes : ctx.constants().size();
        require(s.offset <= limit && s.size <= limit - s.offset, "binding inside its buffer", d);
      }
      uint32_t x = 0, y = 0;
      grid_for(d.invocations, d.workgroup_size, features, &x, &y);
      require(y <= features.max_workgroup_count[1], "grid height", d);
    }
  }
  return Status::ok();
}

}  // namespace vkrt::vulkan::fuzzing
