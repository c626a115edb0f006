// libFuzzer target for Ethos-U delegate payloads: the input is an EthosUBackend payload. It goes
// through the Vela stream reader and the driver-payload (COP1/COP2) reader, the input itself also
// as a bare cmd_data block, and, when the stream parses, through EthosUBackend's init and execute
// on the recording driver, in a program whose delegate arguments have the dtypes and shapes the
// stream declares (so that init gets past the argument checks). Any crash, sanitizer report or
// leak is a bug; regression tests go to tests/ethosu/.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ethosu/format/driver_payload.h"
#include "ethosu/format/vela_bin_stream.h"
#include "runtime/fuzz/run_program.h"
#include "vkrt/pte_writer.h"

namespace {
using namespace vkrt;

// Delegate arguments larger than this are not built (the program would only be slower to fuzz).
constexpr int64_t kMaxArgumentBytes = 1 << 16;

ScalarType dtype_for(int32_t elem_size) {
  return elem_size == 4 ? ScalarType::Int : elem_size == 2 ? ScalarType::Short : ScalarType::Char;
}

// A program with one method: planned tensors for the stream's inputs and outputs, one delegate
// call over them. Nothing when a descriptor is too large to build.
Result<std::vector<uint8_t>> program_for(std::span<const uint8_t> payload, const ethosu::VelaBinStream& stream) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<int32_t> inputs, outputs;
  auto add = [&](const ethosu::VelaIo& io, std::vector<int32_t>& to) -> Status {
    const auto dims = io.dims();
    int64_t bytes = io.elem_size;
    for (int32_t d : dims) {
      if (d < 0 || d > kMaxArgumentBytes) return Status(Error::NotSupported, "too large");
      bytes *= d;
      if (bytes > kMaxArgumentBytes) return Status(Error::NotSupported, "too large");
    }
    to.push_back(m.add_planned_tensor(dtype_for(io.elem_size), std::vector<int32_t>(dims.begin(), dims.end())));
    return Status::ok();
  };
  for (const auto& io : stream.inputs) VKRT_RETURN_IF_ERROR(add(io, inputs));
  for (const auto& io : stream.outputs) VKRT_RETURN_IF_ERROR(add(io, outputs));
  std::vector<int32_t> args = inputs;
  args.insert(args.end(), outputs.begin(), outputs.end());
  m.add_delegate_call(m.add_delegate("EthosUBackend", std::vector<uint8_t>(payload.begin(), payload.end())), args);
  m.set_inputs(inputs).set_outputs(outputs);
  return program.build();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  (void)ethosu::parse_driver_payload(bytes);
  auto stream = ethosu::parse_vela_bin_stream(bytes, nullptr);
  if (!stream.ok()) return 0;
  (void)ethosu::parse_driver_payload(stream->cmd_data);
  (void)stream->uses_separate_io();
  (void)stream->region_extent(ethosu::kRegionInputs);
  auto program = program_for(bytes, *stream);
  if (!program.ok()) return 0;
  fuzzing::reset_backends();
  auto module = Module::load_from_buffer(*program, fuzzing::fuzz_load_options());
  if (module.ok()) fuzzing::run_every_method(**module, nullptr);
  return 0;
}
