// Ethos-U55/U65 weight and scale/bias stream decoding. See weight_decoder.h for the sources of the facts.
//
// The weight stream is Vela's reordered weight volume, compressed with the MLW codec:
//   stream  := section* (EOS marker: ZDIV = 7, then 1 bits to a byte boundary and 0xFF bytes to 16 bytes)
//   section := slice+ (the first slice of a section defines the palette: NEWPAL = 1)
//   slice   := ZDIV(3) SLICELEN(15) WDIV(3) WTRUNC(1) NEWPAL(1) [DIROFS(5) PALSIZE(5) PALBITS(3) palette]
//              chunk*
// Bits are read least significant first within each byte. A slice carries SLICELEN + 1 weights and, unless
// ZDIV = 6, one zero run after each weight (plus one before the first weight of a NEWPAL slice), each coded
// with Golomb-Rice: the quotient in unary, the remainder in WDIV/ZDIV bits. Chunks interleave up to 12
// weight quotients, up to 12 (8 when ZDIV >= 3) zero-run quotients, and the remainders of the previous
// chunk's symbols, with a flow control that keeps the two streams within 8 symbols of each other.
#include "ethosu/virtual/weight_decoder.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <string>

namespace vkrt::ethosu::virtual_npu {
namespace {

constexpr uint32_t kZdivDisable = 6;  // no zero runs in this slice
constexpr uint32_t kZdivEos = 7;      // end of stream
constexpr uint32_t kWdivUncompressed = 7;
constexpr int kMaxSliceValues = 1 << 15;
// Every weight costs at least one bit (a unary bit or an uncompressed index bit) and a zero-run symbol
// with q unary ones and a 3-bit remainder codes at most 8q + 15 < 8 (q + 4) zeros: a stream of n bytes
// decodes to fewer than 9 × 8 × n values.
constexpr int64_t kMaxValuesPerByte = 72;
constexpr int64_t kMaxLayoutValues = int64_t{1} << 31;

std::string hex(uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4)
    if ((v >> shift) || shift == 0 || s.size() > 2) s += digits[(v >> shift) & 0xF];
  return s;
}

Status stream_error(const char* what, uint64_t bit) {
  return make_error(Error::InvalidProgram, "weight stream: ", what, " at bit ", bit);
}

class BitReader {
 public:
  explicit BitReader(std::span<const uint8_t> data) : data_(data), size_bits_(uint64_t{data.size()} * 8) {}

  // Reads n <= 24 bits, least significant first; false when fewer than n bits are left.
  bool get(int n, uint32_t& value) {
    if (n == 0) {
      value = 0;
      return true;
    }
    if (size_bits_ - pos_ < static_cast<uint64_t>(n)) return false;
    const size_t byte = static_cast<size_t>(pos_ >> 3);
    const int shift = static_cast<int>(pos_ & 7);
    const int nbytes = (shift + n + 7) / 8;
    uint64_t acc = 0;
    for (int i = 0; i < nbytes; ++i) acc |= uint64_t{data_[byte + static_cast<size_t>(i)]} << (8 * i);
    value = static_cast<uint32_t>((acc >> shift) & ((uint64_t{1} << n) - 1));
    pos_ += static_cast<uint64_t>(n);
    return true;
  }
  void align_to_byte() { pos_ = std::min(size_bits_, (pos_ + 7) & ~uint64_t{7}); }
  bool at_end() const { return pos_ == size_bits_; }
  uint64_t pos() const { return pos_; }

 private:
  std::span<const uint8_t> data_;
  uint64_t size_bits_;
  uint64_t pos_ = 0;
};

// The palette state a slice without NEWPAL inherits.
struct Palette {
  std::array<int16_t, 32> values{};
  int size = 0;
  int bits = 0;
  int direct_offset = 0;
};

// Golomb-Rice symbols of one chunk: the quotients, the remainders come in the next chunk.
struct ChunkSymbols {
  std::array<int64_t, 12> q{};
  int count = 0;
  bool enabled = false;
};

class MlwDecoder {
 public:
  MlwDecoder(std::span<const uint8_t> stream, int64_t max_values) : br_(stream), max_values_(max_values) {}

  Result<std::vector<int16_t>> run() {
    // Reserve what the stream can hold at most, but no more than asked for.
    out_.reserve(static_cast<size_t>(std::min<int64_t>(max_values_, 1 << 20)));
    bool need_palette = true;
    while (true) {
      uint32_t zdiv = 0;
      if (!br_.get(3, zdiv)) return stream_error("stream ends without an end-of-stream marker", br_.pos());
      if (zdiv == kZdivEos) {
        br_.align_to_byte();
        need_palette = true;  // a following section starts afresh
        if (br_.at_end()) break;
        continue;
      }
      VKRT_RETURN_IF_ERROR(decode_slice(zdiv, need_palette));
      need_palette = false;
    }
    return std::move(out_);
  }

 private:
  bool get(int n, uint32_t& v) { return br_.get(n, v); }

  Status decode_slice(uint32_t zdiv, bool need_palette) {
    const uint64_t slice_bit = br_.pos() - 3;
    if (zdiv > 3 && zdiv != kZdivDisable) return stream_error("invalid ZDIV (4 or 5) in slice header", slice_bit);
    const bool use_zero_run = zdiv != kZdivDisable;
    uint32_t slicelen = 0, wdiv = 0, wtrunc = 0, newpal = 0;
    if (!get(15, slicelen) || !get(3, wdiv) || !get(1, wtrunc) || !get(1, newpal))
      return stream_error("truncated slice header", slice_bit);
    const int nvalues = static_cast<int>(slicelen) + 1;
    if (need_palette && !newpal)
      return stream_error("first slice of a section does not define a palette (NEWPAL = 0)", slice_bit);
    if (!newpal && use_zero_run != prev_use_zero_run_)
      return stream_error("slice switches zero-run mode without a new palette", slice_bit);
    prev_use_zero_run_ = use_zero_run;
    if (newpal) {
      uint32_t dirofs = 0, palsize = 0, palbits = 0;
      if (!get(5, dirofs) || !get(5, palsize) || !get(3, palbits))
        return stream_error("truncated palette header", br_.pos());
      pal_.direct_offset = static_cast<int>(dirofs);
      pal_.size = palsize > 0 ? static_cast<int>(palsize) + 1 : 0;
      pal_.bits = static_cast<int>(palbits) + 2;
      for (int i = 0; i < pal_.size; ++i) {
        uint32_t entry = 0;
        if (!get(pal_.bits, entry)) return stream_error("truncated palette", br_.pos());
        pal_.values[static_cast<size_t>(i)] = static_cast<int16_t>(entry);
      }
    }
    if (wdiv == 6) return stream_error("invalid WDIV 6 in slice header", slice_bit);
    const bool w_uncompressed = wdiv == kWdivUncompressed;
    int w_div = static_cast<int>(wdiv);
    if (w_uncompressed) {
      // Only remainders: as wide as a palette index, or PALBITS without a palette.
      if (pal_.size > 0) {
        w_div = 0;
        while ((1 << w_div) < pal_.size) ++w_div;
      } else {
        w_div = pal_.bits;
      }
    }
    const int z_div = use_zero_run ? static_cast<int>(zdiv) : 0;

    if (static_cast<int64_t>(out_.size()) + nvalues > max_values_)
      return make_error(Error::InvalidProgram, "weight stream: more weights than the layout's ", max_values_,
                        " (slice at bit ", slice_bit, ")");

    // Decode the chunks.
    const int z_nvalues = nvalues + (newpal ? 1 : 0);
    w_value_.assign(static_cast<size_t>(nvalues), 0);
    z_value_.assign(static_cast<size_t>(z_nvalues), 0);
    const int z_unary_len = z_div < 3 ? 12 : 8;
    const int w_max_symbols = w_uncompressed && w_div > 5 ? 8 : 12;
    int64_t w_pos = 0, z_pos = 0;  // symbols announced by the unary parts
    int w_done = 0, z_done = 0;    // values completed by their remainders
    int64_t w_carry = 0, z_carry = 0;
    ChunkSymbols w_cur, z_cur, w_prev, z_prev;
    do {
      const int64_t balance = use_zero_run ? w_pos - z_pos : 0;
      w_cur = ChunkSymbols{};
      z_cur = ChunkSymbols{};
      w_cur.enabled = (balance < 8 || !use_zero_run) && w_pos < nvalues;
      z_cur.enabled = balance >= 0 && use_zero_run && z_pos < z_nvalues;
      uint32_t w_unary0 = 0;
      if (w_cur.enabled && !w_uncompressed && !get(12, w_unary0))
        return stream_error("truncated weight chunk (WUNARY0)", br_.pos());
      if (z_cur.enabled) {
        uint32_t z_unary = 0;
        if (!get(z_unary_len, z_unary)) return stream_error("truncated zero-run chunk (ZUNARY)", br_.pos());
        int64_t cnt = z_carry;
        for (int i = 0; i < z_unary_len; ++i) {
          if (z_unary & (1u << i)) {
            ++cnt;
          } else {
            z_cur.q[static_cast<size_t>(z_cur.count++)] = cnt;
            cnt = 0;
          }
        }
        z_carry = cnt;
        z_pos += z_cur.count;
      }
      if (w_cur.enabled) {
        const uint32_t mask = (1u << w_max_symbols) - 1;
        const int unary1_len = std::popcount(w_unary0 & mask);
        uint32_t w_unary1 = 0;
        if (!get(unary1_len, w_unary1)) return stream_error("truncated weight chunk (WUNARY1)", br_.pos());
        int64_t cnt = w_carry;
        for (int i = 0; i < w_max_symbols; ++i) {
          int code = 0;
          if (w_unary0 & (1u << i)) {
            code = 1 + static_cast<int>(w_unary1 & 1);
            w_unary1 >>= 1;
          }
          cnt += code;
          if (code < 2 || wtrunc) {
            w_cur.q[static_cast<size_t>(w_cur.count++)] = cnt;
            cnt = 0;
          }
        }
        w_carry = cnt;
        w_pos += w_cur.count;
      }
      if (w_prev.enabled) {
        for (int i = 0; i < w_prev.count && w_done < nvalues; ++i, ++w_done) {
          uint32_t remain = 0;
          if (!get(w_div, remain)) return stream_error("truncated weight remainder", br_.pos());
          const int64_t q = w_prev.q[static_cast<size_t>(i)];
          // The NPU decodes 9-bit palette indices / offsets.
          if (q >= (int64_t{512} >> w_div))
            return stream_error("weight code out of the 9-bit range", br_.pos());
          w_value_[static_cast<size_t>(w_done)] = static_cast<int32_t>((q << w_div) + remain);
        }
      }
      if (z_prev.enabled) {
        const int64_t room = max_values_ - static_cast<int64_t>(out_.size());
        for (int i = 0; i < z_prev.count && z_done < z_nvalues; ++i, ++z_done) {
          uint32_t remain = 0;
          if (!get(z_div, remain)) return stream_error("truncated zero-run remainder", br_.pos());
          const int64_t q = z_prev.q[static_cast<size_t>(i)];
          if (q > (room >> z_div))
            return stream_error("zero run longer than the weights left in the layout", br_.pos());
          const int64_t run = (q << z_div) + remain;
          if (run > room) return stream_error("zero run longer than the weights left in the layout", br_.pos());
          z_value_[static_cast<size_t>(z_done)] = static_cast<int32_t>(run);
        }
      }
      w_prev = w_cur;
      z_prev = z_cur;
    } while (w_prev.enabled || z_prev.enabled);
    if (w_done != nvalues || (use_zero_run && z_done != z_nvalues))
      return stream_error("slice ends before all its values are coded", br_.pos());

    // Interleave the weights and the zero runs.
    auto push_zeros = [&](int64_t n) -> Status {
      if (static_cast<int64_t>(out_.size()) + n > max_values_)
        return make_error(Error::InvalidProgram, "weight stream: more weights than the layout's ", max_values_,
                          " (slice at bit ", slice_bit, ")");
      out_.insert(out_.end(), static_cast<size_t>(n), int16_t{0});
      return Status::ok();
    };
    if (newpal && use_zero_run) VKRT_RETURN_IF_ERROR(push_zeros(z_value_[0]));
    for (int i = 0; i < nvalues; ++i) {
      const int w = w_value_[static_cast<size_t>(i)];
      const int val = w < pal_.size ? pal_.values[static_cast<size_t>(w)] : w - pal_.size + pal_.direct_offset;
      const int mag = val >> 1;
      if (mag > 255)
        return make_error(Error::InvalidProgram, "weight stream: weight magnitude ", mag,
                          " out of the 9-bit range (slice at bit ", slice_bit, ")");
      out_.push_back(static_cast<int16_t>((val & 1) ? -mag : mag));
      if (use_zero_run) VKRT_RETURN_IF_ERROR(push_zeros(z_value_[static_cast<size_t>(i + (newpal ? 1 : 0))]));
    }
    return Status::ok();
  }

  BitReader br_;
  int64_t max_values_;
  std::vector<int16_t> out_;
  Palette pal_;
  bool prev_use_zero_run_ = false;
  std::vector<int32_t> w_value_, z_value_;
};

int round_up(int x, int m) { return (x + m - 1) / m * m; }

// The per-core view of a layout: Vela deals OFM channel c to core c % cores and splits the block depth.
struct CoreLayout {
  int ofm_depth;
  int ofm_block_depth;
  int ifm_ublock;
  int ofm_ublock;
  int ifm_block_depth;
  int decomp_h, decomp_w;
};

Result<CoreLayout> core_layout(const WeightStreamLayout& l) {
  VKRT_ASSIGN_OR_RETURN(const AcceleratorTraits t, accelerator_traits(l.product, l.macs));
  auto bad = [](const char* what, int v) {
    return make_error(Error::InvalidProgram, "weight stream layout: ", what, " ", v, " out of range");
  };
  if (l.ofm_depth < 1 || l.ofm_depth > 65536) return bad("OFM depth", l.ofm_depth);
  if (l.ifm_depth < 1 || l.ifm_depth > 65536) return bad("IFM depth", l.ifm_depth);
  if (l.depthwise && l.ifm_depth != 1) return bad("IFM depth (depthwise weights must have 1)", l.ifm_depth);
  if (l.dilation_x < 1 || l.dilation_x > 2) return bad("dilation x", l.dilation_x);
  if (l.dilation_y < 1 || l.dilation_y > 2) return bad("dilation y", l.dilation_y);
  if (l.kernel_height < 1 || l.dilation_y * (l.kernel_height - 1) > 65535) return bad("kernel height", l.kernel_height);
  if (l.kernel_width < 1 || l.dilation_x * (l.kernel_width - 1) > 65535) return bad("kernel width", l.kernel_width);
  if (l.ifm_bits != 8 && l.ifm_bits != 16) return bad("IFM bits", l.ifm_bits);
  if (l.ofm_block_depth < 1 || l.ofm_block_depth > 65536) return bad("OFM block depth", l.ofm_block_depth);
  if (l.core < 0 || l.core >= t.cores) return bad("core", l.core);
  if (l.depthwise && l.part_kernel_first)
    return make_error(Error::InvalidProgram, "weight stream layout: depthwise with part-kernel-first traversal");
  CoreLayout c{};
  c.ofm_depth = core_ofm_channels(l);
  c.ofm_block_depth = (l.ofm_block_depth + t.cores - 1 - l.core) / t.cores;
  if (c.ofm_depth > 0 && c.ofm_block_depth == 0) return bad("OFM block depth (less than one per core)", l.ofm_block_depth);
  c.ifm_ublock = t.ifm_ublock_depth;
  c.ofm_ublock = t.ofm_ublock_depth;
  c.ifm_block_depth = l.part_kernel_first || l.ifm_bits == 16 ? 16 : 32;
  // The 8×8 sub-kernel limit applies to the dilated kernel (SubKernelMax // dilation).
  c.decomp_h = 8 / l.dilation_y;
  c.decomp_w = 8 / l.dilation_x;
  return c;
}

// Kernel elements of a sub-kernel, padded as the hardware traverses them.
int padded_elements(const WeightStreamLayout& l, int elements) {
  if (l.part_kernel_first) return round_up(elements, l.ifm_bits == 16 ? 2 : 4);
  if (l.depthwise) return round_up(elements, 4);
  return elements;
}

}  // namespace

Result<AcceleratorTraits> accelerator_traits(NpuProduct product, int macs) {
  // architecture_features.py, accelerator_configs: ifm_ublock and ofm_ublock depths, cores.
  if (product == NpuProduct::U55) {
    if (macs == 32) return AcceleratorTraits{8, 4, 1};
    if (macs == 64 || macs == 128 || macs == 256) return AcceleratorTraits{8, 8, 1};
  } else if (product == NpuProduct::U65) {
    if (macs == 256) return AcceleratorTraits{8, 8, 1};
    if (macs == 512) return AcceleratorTraits{8, 8, 2};
  }
  return make_error(Error::NotSupported, "weight stream: no U55/U65 weight format for ",
                    npu_product_name(product), " with ", macs,
                    " MACs (U55: 32, 64, 128, 256; U65: 256, 512)");
}

int core_ofm_channels(const WeightStreamLayout& layout) {
  auto traits = accelerator_traits(layout.product, layout.macs);
  if (!traits.ok()) return 0;
  const int cores = traits->cores;
  if (layout.core < 0 || layout.core >= cores || layout.ofm_depth <= layout.core) return 0;
  return (layout.ofm_depth - layout.core + cores - 1) / cores;
}

Result<int64_t> weight_stream_value_count(const WeightStreamLayout& l) {
  VKRT_ASSIGN_OR_RETURN(const CoreLayout c, core_layout(l));
  if (c.ofm_depth == 0) return int64_t{0};
  // The reorder loop nest is separable: (OFM blocks × micro-blocks) × (IFM blocks × micro-blocks) ×
  // (sub-kernels × padded elements).
  const int full_blocks = c.ofm_depth / c.ofm_block_depth;
  const int rest = c.ofm_depth % c.ofm_block_depth;
  const int64_t ofm_part = int64_t{full_blocks} * round_up(c.ofm_block_depth, c.ofm_ublock) +
                           (rest ? round_up(rest, c.ofm_ublock) : 0);
  int64_t ifm_part = 1;
  if (!l.depthwise) {
    ifm_part = 0;
    for (int z = 0; z < l.ifm_depth; z += c.ifm_block_depth) {
      const int depth = l.part_kernel_first ? std::min(c.ifm_block_depth, l.ifm_depth - z) : c.ifm_block_depth;
      ifm_part += round_up(depth, c.ifm_ublock);
    }
  }
  // Sub-kernels: full ones of decomp and one remainder per axis.
  const int hs[2] = {c.decomp_h, l.kernel_height % c.decomp_h};
  const int hn[2] = {l.kernel_height / c.decomp_h, hs[1] ? 1 : 0};
  const int ws[2] = {c.decomp_w, l.kernel_width % c.decomp_w};
  const int wn[2] = {l.kernel_width / c.decomp_w, ws[1] ? 1 : 0};
  int64_t kernel_part = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      kernel_part += int64_t{hn[i]} * wn[j] * padded_elements(l, hs[i] * ws[j]);
  // ofm_part <= 2^17, ifm_part <= 2^17; bound the product before it can overflow.
  if (kernel_part > kMaxLayoutValues || ofm_part * ifm_part > kMaxLayoutValues / kernel_part)
    return make_error(Error::InvalidProgram, "weight stream layout: more than 2^31 weights (OFM depth ",
                      l.ofm_depth, ", IFM depth ", l.ifm_depth, ", kernel ", l.kernel_height, "x",
                      l.kernel_width, ")");
  return ofm_part * ifm_part * kernel_part;
}

Result<std::vector<int16_t>> mlw_decode(std::span<const uint8_t> stream, int64_t max_values) {
  if (max_values < 0) max_values = 0;
  return MlwDecoder(stream, max_values).run();
}

Result<std::vector<int16_t>> decode_weight_stream(std::span<const uint8_t> stream,
                                                  const WeightStreamLayout& l) {
  VKRT_ASSIGN_OR_RETURN(const CoreLayout c, core_layout(l));
  VKRT_ASSIGN_OR_RETURN(const int64_t count, weight_stream_value_count(l));
  if (count == 0) return std::vector<int16_t>{};  // a core with no channels has an empty stream
  if (count > kMaxValuesPerByte * static_cast<int64_t>(stream.size()) + kMaxValuesPerByte)
    return make_error(Error::InvalidProgram, "weight stream: ", stream.size(),
                      " bytes cannot code the ", count, " weights the layout needs");
  VKRT_ASSIGN_OR_RETURN(const std::vector<int16_t> flat, mlw_decode(stream, count));
  if (static_cast<int64_t>(flat.size()) != count)
    return make_error(Error::InvalidProgram, "weight stream: decodes to ", flat.size(),
                      " weights, the layout needs ", count);

  // Undo Vela's reorder (mlw_encode.c, reorder): walk the same loop nest and put each value back.
  const int I = l.ifm_depth, KH = l.kernel_height, KW = l.kernel_width;
  const int out_ifm = l.depthwise ? 1 : I;
  std::vector<int16_t> out(static_cast<size_t>(c.ofm_depth) * static_cast<size_t>(KH) * static_cast<size_t>(KW) *
                           static_cast<size_t>(out_ifm));
  const int ifm_ublock_z_count = l.depthwise ? 1 : c.ifm_ublock;
  size_t cnt = 0;
  for (int ofm_block_z = 0; ofm_block_z < c.ofm_depth; ofm_block_z += c.ofm_block_depth) {
    const int ofm_block_end = std::min(ofm_block_z + c.ofm_block_depth, c.ofm_depth);
    const int block_depth = ofm_block_end - ofm_block_z;
    for (int ifm_block_z = 0; ifm_block_z < (l.depthwise ? 1 : I); ifm_block_z += c.ifm_block_depth) {
      const int ifm_block_depth = l.depthwise ? c.ifm_ublock
                                  : l.part_kernel_first ? std::min(c.ifm_block_depth, I - ifm_block_z)
                                                        : c.ifm_block_depth;
      for (int sub_y = 0; sub_y < KH; sub_y += c.decomp_h) {
        const int sub_h = std::min(KH - sub_y, c.decomp_h);
        for (int sub_x = 0; sub_x < KW; sub_x += c.decomp_w) {
          const int sub_w = std::min(KW - sub_x, c.decomp_w);
          const int elements = padded_elements(l, sub_w * sub_h);
          const int outer_depth = l.part_kernel_first ? ifm_block_depth : 1;
          const int inner_depth = l.part_kernel_first ? 1 : ifm_block_depth;
          for (int ifm_outer = 0; ifm_outer < outer_depth; ifm_outer += c.ifm_ublock) {
            for (int ofm_ublk = 0; ofm_ublk < block_depth; ofm_ublk += c.ofm_ublock) {
              for (int e = 0; e < elements; ++e) {
                const int kx = e % sub_w, ky = e / sub_w;
                const int wx = sub_x + kx, wy = sub_y + ky;
                for (int ifm_inner = 0; ifm_inner < inner_depth; ifm_inner += c.ifm_ublock) {
                  for (int oz = 0; oz < c.ofm_ublock; ++oz) {
                    const int ofm_z = ofm_block_z + ofm_ublk + oz;
                    for (int iz = 0; iz < ifm_ublock_z_count; ++iz, ++cnt) {
                      const int ifm_z = ifm_block_z + ifm_outer + ifm_inner + iz;
                      // Vela pads with zeros past the IFM/OFM depth and the sub-kernel; past the block
                      // (block depths that are not a multiple of the micro-block) it repeats the next
                      // block's weights, which that block's own copy supersedes.
                      if (ifm_z < I && ofm_z < ofm_block_end && ky < sub_h) {
                        const size_t o = ((static_cast<size_t>(ofm_z) * static_cast<size_t>(KH) +
                                           static_cast<size_t>(wy)) * static_cast<size_t>(KW) +
                                          static_cast<size_t>(wx)) * static_cast<size_t>(out_ifm) +
                                         static_cast<size_t>(l.depthwise ? 0 : ifm_z);
                        out[o] = flat[cnt];
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  if (cnt != flat.size())
    return make_error(Error::Internal, "weight stream: reorder visited ", cnt, " of ", flat.size(), " weights");
  return out;
}

Result<std::vector<int16_t>> decode_weight_streams(std::span<const std::span<const uint8_t>> streams,
                                                   const WeightStreamLayout& layout) {
  VKRT_ASSIGN_OR_RETURN(const AcceleratorTraits traits, accelerator_traits(layout.product, layout.macs));
  const int cores = traits.cores;
  if (static_cast<int>(streams.size()) != cores)
    return make_error(Error::InvalidProgram, "weight streams: ", streams.size(), " streams for ", cores,
                      " cores");
  if (layout.ofm_depth < 1 || layout.ofm_depth > 65536)
    return make_error(Error::InvalidProgram, "weight stream layout: OFM depth ", layout.ofm_depth,
                      " out of range");
  if (cores == 1) {
    WeightStreamLayout l = layout;
    l.core = 0;
    return decode_weight_stream(streams[0], l);
  }
  std::vector<int16_t> out;
  size_t per_ofm = 0;
  for (int core = 0; core < cores; ++core) {
    WeightStreamLayout l = layout;
    l.core = core;
    VKRT_ASSIGN_OR_RETURN(const std::vector<int16_t> part, decode_weight_stream(streams[static_cast<size_t>(core)], l));
    const int n = core_ofm_channels(l);
    if (n == 0) continue;
    if (out.empty()) {
      per_ofm = part.size() / static_cast<size_t>(n);
      out.resize(per_ofm * static_cast<size_t>(layout.ofm_depth));
    }
    for (int i = 0; i < n; ++i)
      std::copy_n(part.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(i) * per_ofm), per_ofm,
                  out.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(core + i * cores) * per_ofm));
  }
  return out;
}

Result<std::vector<ChannelScale>> decode_scale_stream(std::span<const uint8_t> stream, int channels) {
  if (channels < 0) return make_error(Error::InvalidArgument, "scale stream: negative channel count ", channels);
  const size_t need = static_cast<size_t>(channels) * kScaleRecordBytes;
  if (stream.size() < need)
    return make_error(Error::InvalidProgram, "scale stream: ", stream.size(), " bytes for ", channels,
                      " channels (", need, " needed)");
  std::vector<ChannelScale> out(static_cast<size_t>(channels));
  for (size_t c = 0; c < out.size(); ++c) {
    const uint8_t* p = stream.data() + c * kScaleRecordBytes;
    uint64_t bias = 0;
    for (int i = 0; i < 5; ++i) bias |= uint64_t{p[i]} << (8 * i);
    int64_t signed_bias = static_cast<int64_t>(bias);
    if (bias & (uint64_t{1} << 39)) signed_bias -= int64_t{1} << 40;
    const uint32_t scale = uint32_t{p[5]} | uint32_t{p[6]} << 8 | uint32_t{p[7]} << 16 | uint32_t{p[8]} << 24;
    if (p[9] & 0xC0)
      return make_error(Error::InvalidProgram, "scale stream: channel ", c, " has reserved bits set (byte ",
                        hex(p[9]), " at offset ", c * kScaleRecordBytes + 9, ")");
    out[c] = ChannelScale{signed_bias, scale, static_cast<uint8_t>(p[9] & 0x3F)};
  }
  return out;
}

}  // namespace vkrt::ethosu::virtual_npu
