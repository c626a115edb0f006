// libFuzzer target for executor_runner's input files (.npy and raw): the bytes-level reader
// read_input_file hands every file to, then the tensor the runner builds over the data.
// Input layout: byte 0 picks the input's dtype, byte 1 its shape (rank 0..3, each dim 1..4) and
// whether it is dynamic; the rest is the file. Any crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "executor_runner/inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vkrt;
  if (size < 2) return 0;
  const int dtype = data[0] % 30;
  if (!is_valid_scalar_type(dtype)) return 0;
  ValueInfo info;
  info.tag = Tag::Tensor;
  info.dtype = ScalarType(dtype);
  const int rank = data[1] & 3;
  for (int d = 0; d < rank; ++d) info.sizes.push_back(1 + ((data[1] >> (2 + 2 * d)) & 3));
  for (int d = 0; d < rank; ++d) info.dim_order.push_back(uint8_t(d));
  info.dynamism = (data[1] & 0x80) ? ShapeDynamism::DynamicBound : ShapeDynamism::Static;
  size_t numel = 1;
  for (int32_t s : info.sizes) numel *= size_t(s);
  info.nbytes = numel * element_size(info.dtype);

  auto input = runner::parse_input_bytes(std::vector<uint8_t>(data + 2, data + size), "fuzz.npy", info, 0);
  if (!input.ok()) return 0;
  (void)runner::input_tensor(input->npy_shape, input->is_npy, input->bytes, info, "fuzz.npy", 0);
  return 0;
}
