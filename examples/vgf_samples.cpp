#include "vgf_samples.h"

#include "vgf/graph_vgf_writer.h"
#include "vkrt/pte_writer.h"

namespace vkrt::samples {
namespace {

std::vector<int32_t> sizes32(const vgf::Shape& shape) { return std::vector<int32_t>(shape.begin(), shape.end()); }

// forward(x) = VgfBackend(graph)(x): one planned input and output of the graph's own types.
Result<std::vector<uint8_t>> single_delegate_program(const vgf::Graph& graph) {
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> vgf, vgf::write_graph_vgf(graph));
  const vgf::TensorInfo& in = graph.tensor(graph.inputs.at(0).tensor);
  const vgf::TensorInfo& out = graph.tensor(graph.outputs.at(0).tensor);
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  const int32_t x = m.add_planned_tensor(vgf::dtype_to_scalar_type(in.dtype), sizes32(in.shape));
  const int32_t y = m.add_planned_tensor(vgf::dtype_to_scalar_type(out.dtype), sizes32(out.shape));
  const int32_t delegate = m.add_delegate("VgfBackend", std::move(vgf));
  m.add_delegate_call(delegate, {x, y});
  m.set_inputs({x}).set_outputs({y});
  return program.build();
}

}  // namespace

Result<std::vector<uint8_t>> mobilenet_v2_vgf_program(int64_t batch, int64_t resolution, Precision precision) {
  MobileNetV2Options options;
  options.batch = batch;
  options.resolution = resolution;
  options.precision = precision;
  return single_delegate_program(build_mobilenet_v2(options));
}

Result<std::vector<uint8_t>> small_cnn_vgf_program(Precision precision) {
  return single_delegate_program(build_small_cnn(precision));
}

}  // namespace vkrt::samples
