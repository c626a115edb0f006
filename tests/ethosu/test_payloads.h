// Payloads the tests build with the writers: a small COP1 (U55-128) or COP2 (U85-256) network with
// two inputs and one output, laid out as Vela would.
#pragma once

#include <cstdint>
#include <vector>

#include "ethosu/format/driver_payload_writer.h"
#include "ethosu/format/vela_bin_stream_writer.h"

namespace vkrt::ethosu::testing {

// Region registers for regions 0 (weights/scales) and 1 (scratch), one elementwise op, OP_STOP.
inline std::vector<uint32_t> sample_stream(bool separate_io = false) {
  std::vector<uint32_t> w;
  w.push_back(cmd0(0x10F, separate_io ? 3 : 1));   // IFM_REGION
  append_cmd1(w, 0x000, 0, 32);                     // IFM_BASE0 = 32
  w.push_back(cmd0(0x11F, separate_io ? 4 : 1));   // OFM_REGION
  append_cmd1(w, 0x010, 0, 0);                      // OFM_BASE0 = 0
  w.push_back(cmd0(0x129, 0));                      // SCALE_REGION 0
  append_cmd1(w, 0x022, 0, 0);                      // SCALE_BASE
  w.push_back(cmd0(0x006, 1));                      // OP_ELEMENTWISE ADD
  if (separate_io) w.push_back(cmd0(0x10F, 1));     // touch scratch too
  w.push_back(op_stop());
  return w;
}

// Inputs: int8 (2,3) at scratch 32 and int16 (4) at scratch 48; output int8 (2,3) at scratch 0.
inline VelaBinStreamContents sample_contents(VelaIoLayout layout = VelaIoLayout::Shape6D) {
  VelaBinStreamContents c;
  c.cmd_data = write_cop1(kConfigU55_128, kIdU55_128, sample_stream());
  c.weight_data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
  c.scratch_size = 64;
  const std::vector<int32_t> in0 = {2, 3}, in1 = {4}, out0 = {2, 3};
  auto make = [layout](const std::vector<int32_t>& shape, int32_t elem, int32_t offset) {
    return layout == VelaIoLayout::Shape6D ? make_vela_io_6d(shape, elem, offset, kRegionScratch)
                                           : make_vela_io_4d(shape, elem, offset, kRegionScratch);
  };
  c.inputs = {make(in0, 1, 32), make(in1, 2, 48)};
  c.outputs = {make(out0, 1, 0)};
  return c;
}

// The same network compiled with --separate-io-regions --cop-format=COP2 for a U85-256: inputs in
// region 3 (offsets 0 and 16), output in region 4 (offset 0), scratch 32.
inline VelaBinStreamContents sample_contents_separate_io() {
  VelaBinStreamContents c = sample_contents();
  c.cmd_data = write_cop2(kConfigU85_256, kIdU85_256, 2, 0, sample_stream(true));
  c.scratch_size = 32;
  const std::vector<int32_t> in0 = {2, 3}, in1 = {4}, out0 = {2, 3};
  c.inputs = {make_vela_io_6d(in0, 1, 0, kRegionInputs), make_vela_io_6d(in1, 2, 16, kRegionInputs)};
  c.outputs = {make_vela_io_6d(out0, 1, 0, kRegionOutputs)};
  return c;
}

}  // namespace vkrt::ethosu::testing
