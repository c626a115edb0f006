#include "tests/ethosu/virtual/vela_pte_builder.h"

#include <tuple>
#include <utility>

#include "ethosu/format/vela_bin_stream_writer.h"
#include "ethosu/tflite/vela_tflite_runner.h"
#include "vkrt/pte_writer.h"

namespace vkrt::ethosu::testing {
namespace {

Result<ScalarType> program_dtype(const tflite::Tensor& t) {
  switch (t.type) {
    case tflite::TensorType::Int8: return ScalarType::Char;
    case tflite::TensorType::UInt8: return ScalarType::Byte;
    case tflite::TensorType::Int16: return ScalarType::Short;
    case tflite::TensorType::Int32: return ScalarType::Int;
    default:
      return make_error(Error::NotSupported, "tensor '", t.name, "' is ", tflite::tensor_type_name(t.type),
                        ": EthosUBackend carries int8, uint8, int16 and int32 inputs/outputs");
  }
}

}  // namespace

Result<VelaPte> vela_tflite_to_pte(const tflite::Model& vela) {
  VKRT_ASSIGN_OR_RETURN(tflite::VelaNpuProgram npu, tflite::read_vela_npu_program(vela));
  const tflite::Operator& op = vela.operators[0];
  const tflite::Tensor& cmd = vela.tensors[size_t(op.inputs[0])];

  VelaPte out;
  out.scratch_bytes = npu.scratch_bytes;
  out.fast_scratch_bytes = npu.fast_scratch_bytes;
  out.uses_fast_scratch = (npu.payload.summary.regions_referenced >> kRegionFastScratch) & 1;

  VelaBinStreamContents contents;
  contents.cmd_data.assign(cmd.data.begin(), cmd.data.end());  // the whole COP1 payload, as arm_vela.py
  contents.weight_data = npu.flash;
  VKRT_CHECK_OR_RETURN(npu.scratch_bytes <= UINT32_MAX, NotSupported, "scratch of ", npu.scratch_bytes, " bytes");
  contents.scratch_size = uint32_t(npu.scratch_bytes);

  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<int32_t> inputs, outputs;
  for (const auto& [tensors, offsets, ios, values, offsets_out] :
       {std::tuple{&npu.input_tensors, &npu.input_offsets, &contents.inputs, &inputs, &out.input_offsets},
        std::tuple{&npu.output_tensors, &npu.output_offsets, &contents.outputs, &outputs, &out.output_offsets}}) {
    for (size_t i = 0; i < tensors->size(); ++i) {
      const tflite::Tensor& t = vela.tensors[size_t((*tensors)[i])];
      VKRT_ASSIGN_OR_RETURN(ScalarType dtype, program_dtype(t));
      const int32_t offset = int32_t((*offsets)[i]);
      ios->push_back(make_vela_io_6d(t.shape, int32_t(tflite::element_size(t.type)), offset, kRegionScratch));
      values->push_back(m.add_planned_tensor(dtype, t.shape));
      offsets_out->push_back(offset);
    }
  }
  const int32_t delegate =
      m.add_delegate("EthosUBackend", write_vela_bin_stream(contents), {}, PayloadLocation::Segment);
  std::vector<int32_t> args = inputs;
  args.insert(args.end(), outputs.begin(), outputs.end());
  m.add_delegate_call(delegate, args);
  m.set_inputs(inputs);
  m.set_outputs(outputs);
  VKRT_ASSIGN_OR_RETURN(out.pte, program.build());
  return out;
}

}  // namespace vkrt::ethosu::testing
