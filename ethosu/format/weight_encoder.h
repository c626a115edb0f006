// Encoding of the weight and scale/bias streams an Ethos-U55/U65 CONV, DEPTHWISE or vector-product
// operation reads: the inverse of ethosu/virtual/weight_decoder.h, so that tests and sample programs
// can build command streams the way Vela does.
//
// Only the MLW codec's simplest mode is written: one slice per at most 32768 values, no zero runs, no
// palette, every value an uncompressed 9-bit sign-magnitude number. That is a valid stream (the decoder
// reads every mode), just larger than Vela's compressed ones (about 9 bits a weight). The weight order is
// Vela's U55/U65 reorder (mlw_encode.c, reorder; weight_compressor.py), with the sources and facts given
// in weight_decoder.h.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ethosu/virtual/weight_decoder.h"
#include "vkrt/error.h"

namespace vkrt::ethosu {

// Writes MLW bit fields least significant bit first, as the decoder reads them. Tests also use it to
// write malformed streams field by field.
class MlwBitWriter {
 public:
  // Appends the low `bits` (0..32) bits of `value`.
  void put(int bits, uint32_t value);
  // Appends the end-of-stream marker (ZDIV = 7), 1 bits to a byte boundary and 0xFF bytes to a multiple
  // of 16 bytes (Vela's padding), and returns the stream.
  std::vector<uint8_t> finish_with_eos();

 private:
  std::vector<uint8_t> bytes_;
  uint64_t bits_ = 0;
};

// The raw codec: `values` (each in -255..255, the 9-bit range) in stream order, uncompressed, with the
// end-of-stream marker. InvalidArgument names the first value out of range.
Result<std::vector<uint8_t>> mlw_encode_uncompressed(std::span<const int16_t> values);

// Vela's weight order for `layout`: weights[ofm][ky][kx][ifm] (depthwise: ifm = 1, ofm_depth *
// kernel_height * kernel_width * ifm_depth values, zero-point-adjusted) as the values of the stream of
// core `layout.core` (channels core, core + cores, ...; all of them on a one-core NPU), padding
// included: exactly weight_stream_value_count(layout) values. InvalidArgument for a weight count that
// does not match the layout; the layout's own errors as weight_stream_value_count gives them.
Result<std::vector<int16_t>> reorder_weights(std::span<const int16_t> weights,
                                             const virtual_npu::WeightStreamLayout& layout);

// The weight stream of core `layout.core`: reorder_weights, then mlw_encode_uncompressed. Its length is a
// multiple of 16 (WEIGHT_LENGTH).
Result<std::vector<uint8_t>> encode_weight_stream(std::span<const int16_t> weights,
                                                  const virtual_npu::WeightStreamLayout& layout);

// The scale/bias stream: one 10-byte record per OFM channel (bias int40 LE, scale uint32 LE, shift in 6
// bits), zero-padded to a multiple of 16 bytes as Vela pads SCALE_LENGTH. InvalidArgument for a bias
// outside int40 or a shift above 63.
Result<std::vector<uint8_t>> encode_scale_stream(std::span<const virtual_npu::ChannelScale> channels);

}  // namespace vkrt::ethosu
