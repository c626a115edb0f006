#include "vgf_samples.h"

#include "vgf/graph_vgf_writer.h"
#include "vkrt/vgf.h"

namespace vkrt::samples {
namespace {

// forward(x) = VgfBackend(graph)(x), wrapped by the public VGF API at the graph's input shapes.
Result<std::vector<uint8_t>> single_delegate_program(const vgf::Graph& graph) {
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> vgf, vgf::write_graph_vgf(graph));
  VKRT_ASSIGN_OR_RETURN(VgfModel model, VgfModel::from_bytes(std::move(vgf)));
  std::vector<std::vector<int64_t>> input_shapes;
  for (const VgfTensorInfo& in : model.inputs()) input_shapes.push_back(in.shape);
  return model.to_pte(input_shapes);
}

}  // namespace

Result<std::vector<uint8_t>> mobilenet_v2_vgf_program(int64_t batch, int64_t resolution, Precision precision) {
  MobileNetV2Options options;
  options.batch = batch;
  options.resolution = resolution;
  options.precision = precision;
  return mobilenet_v2_vgf_program(options);
}

Result<std::vector<uint8_t>> mobilenet_v2_vgf_program(const MobileNetV2Options& options) {
  return single_delegate_program(build_mobilenet_v2(options));
}

Result<std::vector<uint8_t>> small_cnn_vgf_program(Precision precision) {
  return single_delegate_program(build_small_cnn(precision));
}

Result<std::vector<uint8_t>> small_cnn_vgf(Precision precision) { return vgf::write_graph_vgf(build_small_cnn(precision)); }

}  // namespace vkrt::samples
