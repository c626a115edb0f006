#include "vgf_samples.h"

#include "mobilenet_v2_graph.h"
#include "vgf/graph_vgf_writer.h"
#include "vkrt/pte_writer.h"

namespace vkrt::samples {
namespace {

std::vector<int32_t> sizes32(const vgf::Shape& shape) { return std::vector<int32_t>(shape.begin(), shape.end()); }

}  // namespace

Result<std::vector<uint8_t>> mobilenet_v2_vgf_program(int64_t batch, int64_t resolution) {
  MobileNetV2Options options;
  options.batch = batch;
  options.resolution = resolution;
  const vgf::Graph graph = build_mobilenet_v2_int8(options);
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> vgf, vgf::write_graph_vgf(graph));
  const vgf::Shape& in_shape = graph.tensor(graph.inputs.at(0).tensor).shape;
  const vgf::Shape& out_shape = graph.tensor(graph.outputs.at(0).tensor).shape;

  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::Char, sizes32(in_shape));
  const int32_t y = m.add_planned_tensor(ScalarType::Char, sizes32(out_shape));
  const int32_t delegate = m.add_delegate("VgfBackend", std::move(vgf));
  m.add_delegate_call(delegate, {x, y});
  m.set_inputs({x}).set_outputs({y});
  return program.build();
}

}  // namespace vkrt::samples
