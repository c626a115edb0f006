// The weight and scale/bias stream encoder (weight_encoder.h). The reorder follows Vela's
// mlw_encode.c (reorder) loop for loop, written as plainly as possible; the decoder
// (ethosu/virtual/weight_decoder.cpp) computes the same order in closed form, and the tests check one
// against the other (tests/ethosu/virtual/weight_decoder_test.cpp).
#include "ethosu/format/weight_encoder.h"

#include <algorithm>

namespace vkrt::ethosu {

using virtual_npu::AcceleratorTraits;
using virtual_npu::ChannelScale;
using virtual_npu::WeightStreamLayout;

void MlwBitWriter::put(int bits, uint32_t value) {
  for (int i = 0; i < bits && i < 32; ++i) {
    if (bits_ % 8 == 0) bytes_.push_back(0);
    if ((value >> i) & 1) bytes_.back() |= uint8_t(1u << (bits_ % 8));
    ++bits_;
  }
}

std::vector<uint8_t> MlwBitWriter::finish_with_eos() {
  put(3, 7);  // ZDIV = 7: end of stream
  while (bits_ % 8) put(1, 1);
  while (bytes_.size() % 16) put(8, 0xFF);
  return bytes_;
}

Result<std::vector<uint8_t>> mlw_encode_uncompressed(std::span<const int16_t> values) {
  constexpr size_t kSliceValues = 32768;  // SLICELEN has 15 bits
  MlwBitWriter bw;
  for (size_t start = 0; start < values.size(); start += kSliceValues) {
    const size_t n = std::min(kSliceValues, values.size() - start);
    bw.put(3, 6);  // ZDIV 6: no zero runs
    bw.put(15, uint32_t(n - 1));
    bw.put(3, 7);  // WDIV 7: uncompressed
    bw.put(1, 0);  // WTRUNC
    bw.put(1, 1);  // NEWPAL (every slice: the first one must)
    bw.put(5, 0);  // DIROFS
    bw.put(5, 0);  // PALSIZE: no palette
    bw.put(3, 7);  // PALBITS - 2: 9-bit values
    for (size_t i = 0; i < n; ++i) {
      const int v = values[start + i];
      VKRT_CHECK_OR_RETURN(v >= -255 && v <= 255, InvalidArgument, "weight encoder: value ", v, " at index ",
                           start + i, " is outside the 9-bit range -255..255");
      bw.put(9, uint32_t(v < 0 ? (-v << 1) | 1 : v << 1));  // sign in bit 0
    }
  }
  return bw.finish_with_eos();
}

Result<std::vector<int16_t>> reorder_weights(std::span<const int16_t> weights, const WeightStreamLayout& layout) {
  VKRT_ASSIGN_OR_RETURN(const int64_t count, virtual_npu::weight_stream_value_count(layout));
  VKRT_ASSIGN_OR_RETURN(const AcceleratorTraits traits,
                        virtual_npu::accelerator_traits(layout.product, layout.macs));
  const bool dw = layout.depthwise, pk = layout.part_kernel_first;
  const int kh = layout.kernel_height, kw = layout.kernel_width;
  const int in_ifm = dw ? 1 : layout.ifm_depth;
  const size_t per_ofm = size_t(kh) * size_t(kw) * size_t(in_ifm);
  VKRT_CHECK_OR_RETURN(weights.size() == size_t(layout.ofm_depth) * per_ofm, InvalidArgument,
                       "weight encoder: ", weights.size(), " weights for ", layout.ofm_depth, " x ", kh, " x ", kw,
                       " x ", in_ifm);
  // This core's channels (core, core + cores, ...) and its share of the OFM block.
  const int cores = traits.cores, core = layout.core;
  const int ofm_depth = virtual_npu::core_ofm_channels(layout);
  const int block = (layout.ofm_block_depth + cores - 1 - core) / cores;
  auto weight = [&](int ofm, int ky, int kx, int ifm) {
    const size_t channel = size_t(core) + size_t(ofm) * size_t(cores);
    return weights[channel * per_ofm + (size_t(ky) * kw + kx) * in_ifm + ifm];
  };

  const int iu = traits.ifm_ublock_depth, ou = traits.ofm_ublock_depth;
  const bool wide = layout.ifm_bits == 16;
  const int ifm_block = pk || wide ? 16 : 32;
  const int sub_h = 8 / layout.dilation_y, sub_w = 8 / layout.dilation_x;  // sub-kernels of at most 8x8 taps
  std::vector<int16_t> out;
  out.reserve(size_t(count));
  for (int ob = 0; ob < ofm_depth; ob += block) {
    const int cob = std::min(block, ofm_depth - ob);
    for (int ib = 0; ib < (dw ? 1 : in_ifm); ib += ifm_block) {
      const int cib = dw ? iu : (pk ? std::min(ifm_block, in_ifm - ib) : ifm_block);
      for (int sy = 0; sy < kh; sy += sub_h) {
        const int sh = std::min(kh - sy, sub_h);
        for (int sx = 0; sx < kw; sx += sub_w) {
          const int sw = std::min(kw - sx, sub_w);
          // Elements of the sub-kernel, padded: part-kernel-first to 4 (2 for 16-bit), depthwise to 4.
          int elements = sw * sh;
          if (pk) {
            const int pad = wide ? 2 : 4;
            elements = (elements + pad - 1) / pad * pad;
          } else if (dw) {
            elements = (elements + 3) / 4 * 4;
          }
          for (int io = 0; io < (pk ? cib : 1); io += iu)
            for (int ub = 0; ub < cob; ub += ou)
              for (int e = 0; e < elements; ++e)
                for (int ii = 0; ii < (pk ? 1 : cib); ii += iu)
                  for (int oz = 0; oz < ou; ++oz)
                    for (int iz = 0; iz < (dw ? 1 : iu); ++iz) {
                      const int kx = e % sw, ky = e / sw, ifm = ib + io + ii + iz, ofm = ob + ub + oz;
                      const bool real = ifm < in_ifm && ofm < ofm_depth && ky < sh;
                      out.push_back(real ? weight(ofm, sy + ky, sx + kx, dw ? 0 : ifm) : int16_t(0));
                    }
        }
      }
    }
  }
  VKRT_CHECK_OR_RETURN(int64_t(out.size()) == count, Internal, "weight encoder: reorder wrote ", out.size(),
                       " values, the layout needs ", count);
  return out;
}

Result<std::vector<uint8_t>> encode_weight_stream(std::span<const int16_t> weights, const WeightStreamLayout& layout) {
  VKRT_ASSIGN_OR_RETURN(const std::vector<int16_t> order, reorder_weights(weights, layout));
  return mlw_encode_uncompressed(order);
}

Result<std::vector<uint8_t>> encode_scale_stream(std::span<const ChannelScale> channels) {
  std::vector<uint8_t> out;
  out.reserve(channels.size() * virtual_npu::kScaleRecordBytes + 16);
  for (size_t i = 0; i < channels.size(); ++i) {
    const ChannelScale& c = channels[i];
    VKRT_CHECK_OR_RETURN(c.bias >= -(int64_t{1} << 39) && c.bias < (int64_t{1} << 39), InvalidArgument,
                         "scale encoder: channel ", i, " bias ", c.bias, " is outside int40");
    VKRT_CHECK_OR_RETURN(c.shift <= 63, InvalidArgument, "scale encoder: channel ", i, " shift ", int(c.shift),
                         " is above 63");
    const uint64_t bias = uint64_t(c.bias);
    for (int b = 0; b < 5; ++b) out.push_back(uint8_t(bias >> (8 * b)));
    for (int b = 0; b < 4; ++b) out.push_back(uint8_t(c.scale >> (8 * b)));
    out.push_back(c.shift);
  }
  while (out.size() % 16) out.push_back(0);
  return out;
}

}  // namespace vkrt::ethosu
