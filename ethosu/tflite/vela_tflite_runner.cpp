#include "ethosu/tflite/vela_tflite_runner.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace vkrt::ethosu::tflite {
namespace {

// The operator's inputs: command stream, flash, scratch, fast scratch, then the IFMs.
constexpr size_t kFixedInputs = 4;

}  // namespace

Result<VelaNpuProgram> read_vela_npu_operator(const Model& model, size_t op_index) {
  if (op_index >= model.operators.size() || model.operators[op_index].custom_code != "ethos-u")
    return make_error(Error::InvalidArgument, "operator ", op_index, " is not an \"ethos-u\" operator");
  const Operator& op = model.operators[op_index];
  if (op.inputs.size() < kFixedInputs)
    return make_error(Error::InvalidProgram, "\"ethos-u\" operator has ", op.inputs.size(), " inputs, expected at least 4");
  for (int32_t t : op.inputs)
    if (t < 0) return make_error(Error::InvalidProgram, "\"ethos-u\" operator has an absent input");
  for (int32_t t : op.outputs)
    if (t < 0) return make_error(Error::InvalidProgram, "\"ethos-u\" operator has an absent output");
  const Tensor& cmd = model.tensors[size_t(op.inputs[0])];
  const Tensor& flash = model.tensors[size_t(op.inputs[1])];
  const Tensor& scratch = model.tensors[size_t(op.inputs[2])];
  const Tensor& fast = model.tensors[size_t(op.inputs[3])];
  VelaNpuProgram p;
  auto payload = parse_driver_payload(cmd.data);
  if (!payload.ok()) return Status(payload.status()).with_context("\"ethos-u\" command stream");
  p.payload = *payload;
  p.flash.assign(flash.data.begin(), flash.data.end());
  p.scratch_bytes = scratch.byte_size();
  p.fast_scratch_bytes = fast.byte_size();
  VKRT_ASSIGN_OR_RETURN(std::vector<int32_t> offsets, offline_memory_offsets(model));
  if (offsets.empty()) return make_error(Error::InvalidProgram, "no OfflineMemoryAllocation metadata");
  const int64_t scratch_offset = offsets[size_t(op.inputs[2])];
  auto place = [&](int32_t tensor, std::vector<size_t>& out) -> Status {
    const int64_t at = int64_t(offsets[size_t(tensor)]) - scratch_offset;
    const Tensor& t = model.tensors[size_t(tensor)];
    if (offsets[size_t(tensor)] < 0 || scratch_offset < 0 || at < 0 || uint64_t(at) + t.byte_size() > p.scratch_bytes)
      return make_error(Error::InvalidProgram, "tensor '", t.name, "' at arena offset ", offsets[size_t(tensor)],
                        " is not inside the scratch tensor (offset ", scratch_offset, ", ", p.scratch_bytes, " bytes)");
    out.push_back(size_t(at));
    return Status::ok();
  };
  for (size_t i = kFixedInputs; i < op.inputs.size(); ++i) {
    p.input_tensors.push_back(op.inputs[i]);
    VKRT_RETURN_IF_ERROR(place(op.inputs[i], p.input_offsets));
  }
  for (int32_t t : op.outputs) {
    p.output_tensors.push_back(t);
    VKRT_RETURN_IF_ERROR(place(t, p.output_offsets));
  }
  return p;
}

Result<VelaNpuProgram> read_vela_npu_program(const Model& model) {
  if (model.operators.size() != 1 || model.operators[0].custom_code != "ethos-u") {
    std::string ops;
    for (const Operator& op : model.operators) ops += (ops.empty() ? "" : ", ") + op.name();
    return make_error(Error::NotSupported, "the model is not one \"ethos-u\" operator (it has ", ops,
                      "): only models Vela put wholly on the NPU run on the virtual NPU alone");
  }
  VKRT_ASSIGN_OR_RETURN(VelaNpuProgram op, read_vela_npu_operator(model, 0));
  // The model's inputs and outputs, in the model's order, found among the operator's IFMs/OFMs.
  VelaNpuProgram p = op;
  p.input_tensors.clear(), p.input_offsets.clear(), p.output_tensors.clear(), p.output_offsets.clear();
  for (const auto& [model_list, op_list, op_offsets, tensors, offsets_out] :
       {std::tuple{&model.inputs, &op.input_tensors, &op.input_offsets, &p.input_tensors, &p.input_offsets},
        std::tuple{&model.outputs, &op.output_tensors, &op.output_offsets, &p.output_tensors, &p.output_offsets}}) {
    if (model_list->size() != op_list->size())
      return make_error(Error::NotSupported, "the \"ethos-u\" operator's IFMs/OFMs are not the model's inputs/outputs");
    for (int32_t t : *model_list) {
      const auto at = std::find(op_list->begin(), op_list->end(), t);
      if (at == op_list->end())
        return make_error(Error::NotSupported, "model tensor '", model.tensors[size_t(t)].name,
                          "' is not an IFM/OFM of the \"ethos-u\" operator");
      tensors->push_back(t);
      offsets_out->push_back((*op_offsets)[size_t(at - op_list->begin())]);
    }
  }
  return p;
}

Result<std::vector<std::vector<uint8_t>>> run_vela_npu_program(const Model& model, const VelaNpuProgram& program,
                                                               const std::vector<std::vector<uint8_t>>& inputs,
                                                               virtual_npu::RunCounters* counters,
                                                               virtual_npu::WeightCache* weight_cache) {
  if (inputs.size() != program.input_tensors.size())
    return make_error(Error::InvalidArgument, inputs.size(), " inputs given, the model has ", program.input_tensors.size());
  if (!program.payload.has_arch) return make_error(Error::InvalidProgram, "the command stream names no NPU configuration");
  std::vector<uint8_t> flash = program.flash;
  std::vector<uint8_t> scratch(program.scratch_bytes);
  std::vector<uint8_t> fast(program.fast_scratch_bytes);
  std::vector<uint8_t> shram(virtual_npu::shram_bytes(program.payload.arch));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = model.tensors[size_t(program.input_tensors[i])];
    if (inputs[i].size() != t.byte_size())
      return make_error(Error::InvalidArgument, "input ", i, " has ", inputs[i].size(), " bytes, '", t.name,
                        "' needs ", t.byte_size());
    std::memcpy(scratch.data() + program.input_offsets[i], inputs[i].data(), inputs[i].size());
  }
  virtual_npu::NpuMemory memory;
  memory.regions[kRegionWeights] = {flash.data(), flash.size()};
  memory.regions[kRegionScratch] = {scratch.data(), scratch.size()};
  if (!fast.empty()) memory.regions[kRegionFastScratch] = {fast.data(), fast.size()};
  memory.shram = shram.data();
  memory.shram_size = shram.size();
  VKRT_RETURN_IF_ERROR(
      virtual_npu::run_command_stream(program.payload.command_stream, program.payload.arch, memory, counters,
                                      virtual_npu::RunLimits{}, weight_cache));
  std::vector<std::vector<uint8_t>> outputs;
  for (size_t i = 0; i < program.output_tensors.size(); ++i) {
    const Tensor& t = model.tensors[size_t(program.output_tensors[i])];
    const uint8_t* at = scratch.data() + program.output_offsets[i];
    outputs.emplace_back(at, at + t.byte_size());
  }
  return outputs;
}

}  // namespace vkrt::ethosu::tflite
