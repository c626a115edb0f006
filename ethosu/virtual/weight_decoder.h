// Decoding of the weight and scale/bias streams that an Ethos-U55/U65 CONV, DEPTHWISE or vector-product
// operation points at (WEIGHT_BASE/WEIGHT_LENGTH, SCALE_BASE/SCALE_LENGTH), back into plain arrays.
//
// Facts (../shared/docs/ethos-u.md §6.3), from Arm's Vela 3.10 (Apache-2.0; read, not copied):
// - the bitstream: ethosu/mlw_codec/mlw_decode.c (mlw_decode) and mlw_encode.c (encode_slice);
// - the weight order: mlw_encode.c (reorder) and ethosu/vela/weight_compressor.py
//   (encode_weight_and_scale_tensor, encode_weights, core_deinterleave);
// - micro-block sizes and core counts: ethosu/vela/architecture_features.py (accelerator_configs);
// - the scale/bias record: weight_compressor.py (encode_bias).
// U85 streams use another encoder and are not handled here.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ethosu/format/driver_payload.h"
#include "vkrt/error.h"

namespace vkrt::ethosu::virtual_npu {

// What the weight order depends on: the micro-block depths and the number of cores (U65-512 has two,
// each with its own weight and scale stream: WEIGHT_BASE/SCALE_BASE for core 0, WEIGHT1_/SCALE1_ for 1).
struct AcceleratorTraits {
  int ifm_ublock_depth;
  int ofm_ublock_depth;
  int cores;
};
// For a U55 (32, 64, 128 or 256 MACs) or U65 (256 or 512 MACs: MACs per cycle over all cores, as in
// NpuArch::macs_per_cycle); NotSupported otherwise (U85 streams use another encoder).
Result<AcceleratorTraits> accelerator_traits(NpuProduct product, int macs);

// What the command stream says about the operation whose weights are decoded.
struct WeightStreamLayout {
  NpuProduct product = NpuProduct::U55;  // the accelerator (CONFIG word; NpuArch)
  int macs = 128;                         // MACs per cycle over all cores: 32 .. 256, U65 256 or 512
  int ofm_depth = 0;        // OFM channels of the operation: OFM_DEPTH_M1 + 1 (the stream covers exactly these)
  int ifm_depth = 0;        // IFM_DEPTH_M1 + 1 for CONV; must be 1 for depthwise
  int kernel_height = 1;    // kernel elements, not dilated extents: KERNEL_HEIGHT_M1 / dilation_y + 1
  int kernel_width = 1;     // KERNEL_WIDTH_M1 / dilation_x + 1
  int dilation_x = 1;       // 1 or 2, from KERNEL_STRIDE bit 3
  int dilation_y = 1;       // 1 or 2, from KERNEL_STRIDE bit 4
  bool depthwise = false;   // OP_DEPTHWISE
  bool part_kernel_first = false;  // KERNEL_STRIDE bit 2
  int ifm_bits = 8;         // 8 or 16 (IFM_PRECISION)
  int ofm_block_depth = 0;  // OFM_BLK_DEPTH_M1 + 1
  int core = 0;             // which core's stream this is (0, or 1 on U65-512)

  bool operator==(const WeightStreamLayout&) const = default;
};

// The OFM channels core `layout.core` computes: Vela deals channel c to core c % cores (0 for a layout
// with an unknown accelerator or core).
int core_ofm_channels(const WeightStreamLayout& layout);

// Decodes one MLW-compressed weight stream into weights[ofm][ky][kx][ifm] (depthwise: ifm = 1), the
// zero-point-adjusted signed 9-bit values (-255..255) the NPU multiplies with. On a two-core U65-512
// the stream of core k holds OFM channels k, k + 2, ... and ofm indexes those (core_ofm_channels of
// them). Errors (InvalidProgram) name what is malformed and at which bit: truncated stream, missing
// end-of-stream marker, bad slice header or palette, a weight count different from what the layout
// needs, values out of range. Never reads outside the span; work is bounded by the stream's size.
// Weights Vela inserts only as padding (channels past the OFM depth or the micro-block, kernel elements
// past the sub-kernel) are dropped without being checked.
Result<std::vector<int16_t>> decode_weight_stream(std::span<const uint8_t> stream,
                                                  const WeightStreamLayout& layout);

// The whole operation's weights[ofm][ky][kx][ifm] from one stream per core (layout.core is ignored).
Result<std::vector<int16_t>> decode_weight_streams(std::span<const std::span<const uint8_t>> streams,
                                                   const WeightStreamLayout& layout);

// The raw MLW codec: the uncompressed 9-bit values of a stream in stream order. A stream decoding to more
// than max_values values is an error.
Result<std::vector<int16_t>> mlw_decode(std::span<const uint8_t> stream, int64_t max_values);

// The number of values Vela's reorder writes for a layout (padding included), or an error for a layout
// out of the hardware's range.
Result<int64_t> weight_stream_value_count(const WeightStreamLayout& layout);

// U55/U65 scale/bias record, 10 bytes per OFM channel: bias int40 LE, scale uint32 LE, shift (6 bits; the
// top 2 bits of the last byte are zero). The channel's output is (acc + bias) * scale >> shift, rounded.
struct ChannelScale {
  int64_t bias;
  uint32_t scale;
  uint8_t shift;
};
inline constexpr int kScaleRecordBytes = 10;

// Decodes `channels` records (the OFM channels of the stream's core; see core_ofm_channels). The stream
// may be longer (Vela pads SCALE_LENGTH to 16 bytes).
Result<std::vector<ChannelScale>> decode_scale_stream(std::span<const uint8_t> stream, int channels);

}  // namespace vkrt::ethosu::virtual_npu
