// VgfModel::to_pte (vkrt/vgf.h): a VGF wrapped into a program whose method "forward" calls
// VgfBackend with it. In its own library (vkrt_vgf_to_pte) with the .pte writer, so that
// applications that run VGFs without writing programs do not carry the writer.
#include <vector>

#include "vkrt/pte_writer.h"
#include "vkrt/vgf.h"

namespace vkrt {
namespace {

std::vector<int32_t> sizes32(const std::vector<int64_t>& shape) {
  return std::vector<int32_t>(shape.begin(), shape.end());
}

}  // namespace

Result<std::vector<uint8_t>> VgfModel::to_pte(std::span<const std::vector<int64_t>> input_shapes) const {
  VKRT_ASSIGN_OR_RETURN(auto out_shapes, output_shapes(input_shapes));
  // Program inputs are the model's original inputs in argument order; a converter that dropped
  // one leaves a gap that no program input can stand for.
  std::vector<const VgfTensorInfo*> by_argument(inputs().size(), nullptr);
  for (const VgfTensorInfo& in : inputs()) {
    VKRT_CHECK_OR_RETURN(in.argument < by_argument.size() && !by_argument[in.argument], NotSupported,
                         "VGF input bindings are not 0..", by_argument.size() - 1,
                         " (the converter dropped an input); it cannot be wrapped into a program");
    by_argument[in.argument] = &in;
  }
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<int32_t> program_inputs, program_outputs;
  for (const VgfTensorInfo* in : by_argument) {
    const size_t k = size_t(in - inputs().data());
    program_inputs.push_back(m.add_planned_tensor(in->dtype, sizes32(input_shapes[k])));
  }
  for (size_t j = 0; j < outputs().size(); ++j) {
    program_outputs.push_back(m.add_planned_tensor(outputs()[j].dtype, sizes32(out_shapes[j])));
  }
  // The delegate's arguments: inputs then outputs (vgf-format.md §5.4).
  std::vector<int32_t> args = program_inputs;
  args.insert(args.end(), program_outputs.begin(), program_outputs.end());
  const int32_t delegate =
      m.add_delegate(std::string(kVgfBackendName), std::vector<uint8_t>(bytes().begin(), bytes().end()));
  m.add_delegate_call(delegate, args);
  m.set_inputs(program_inputs).set_outputs(program_outputs);
  return program.build();
}

}  // namespace vkrt
