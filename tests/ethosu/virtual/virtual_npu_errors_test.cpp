// The virtual NPU (ethosu/virtual/virtual_npu.h) on small hand-built command streams:
// - bad streams end the inference with an exact error naming the command and its byte offset
//   (unknown opcodes, truncation, no OP_STOP, every kind of access outside its region, a malformed
//   weight stream, a LUT slot past the LUT area, modes that do not exist, the work limit), and U85
//   streams are refused;
// - the semantics, pinned by values computed by hand (in the comments) rather than by Vela's streams:
//   elementwise ADD with zero points and clamp, average pooling with OFM_SCALE, max pooling with
//   padding, a 1x1 CONV with per-channel scales, NHCWB16 addressing, 4-tile feature maps
//   (Vela's get_address in register_command_stream_generator.py; ../shared/docs/ethos-u.md §6) and a
//   LUT activation DMA'd into internal memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "ethosu/format/driver_payload.h"
#include "ethosu/virtual/npu_registers.h"
#include "ethosu/virtual/virtual_npu.h"
#include "ethosu/virtual/weight_decoder.h"

namespace vkrt::ethosu::virtual_npu {
namespace {

// ---------------------------------------------------------------------------------------------
// A tiny command-stream encoder (ethos-u.md §6.1): cmd0 = opcode | param << 16; cmd1 = opcode |
// 0x4000 | (value >> 32 & 0xFF) << 16, then the low 32 bits of the value.

class Encoder {
 public:
  // The byte offset the next command gets.
  size_t at() const { return words_.size() * 4; }
  Encoder& c0(Cmd0 op, uint16_t param = 0) {
    words_.push_back(uint32_t(op) | uint32_t(param) << 16);
    return *this;
  }
  Encoder& c1(Cmd1 op, uint64_t value) {
    words_.push_back(uint32_t(op) | kCmd1Flag | uint32_t((value >> 32) & 0xFF) << 16);
    words_.push_back(uint32_t(value));
    return *this;
  }
  // OFM_SCALE / OPA_SCALE / OPB_SCALE: the shift in the parameter, the multiplier in the payload.
  Encoder& scale(Cmd1 op, uint32_t multiplier, int shift) {
    words_.push_back(uint32_t(op) | kCmd1Flag | uint32_t(shift & 0x3F) << 16);
    words_.push_back(multiplier);
    return *this;
  }
  Encoder& raw(uint32_t word) {
    words_.push_back(word);
    return *this;
  }
  Encoder& stop() { return c0(Cmd0::OpStop, 0xFFFF); }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out(words_.size() * 4);
    if (!out.empty()) std::memcpy(out.data(), words_.data(), out.size());
    return out;
  }

 private:
  std::vector<uint32_t> words_;
};

// A feature map as the registers describe it: one tile unless tiles are given.
struct Fm {
  int region = 1;
  std::array<uint64_t, 4> base{};
  int h = 1, w = 1, d = 1;
  int64_t stride_y = 0, stride_x = 0, stride_c = 0;
  uint16_t precision = 1;  // signed 8-bit NHWC (OFM: also signed 8-bit, bit 0)
  int16_t zero_point = 0;
  int height0 = 0, height1 = 0, width0 = 0;  // 0: the whole map in tile 0
};

// An NHWC int8 map with packed strides.
Fm nhwc(int region, uint64_t base, int h, int w, int d, int16_t zero_point = 0) {
  Fm f;
  f.region = region;
  f.base = {base, 0, 0, 0};
  f.h = h, f.w = w, f.d = d;
  f.stride_c = 1;
  f.stride_x = d;
  f.stride_y = int64_t(w) * d;
  f.zero_point = zero_point;
  return f;
}

void set_ifm(Encoder& e, const Fm& f) {
  e.c0(Cmd0::IfmRegion, uint16_t(f.region));
  for (int t = 0; t < 4; ++t) e.c1(Cmd1(uint16_t(Cmd1::IfmBase0) + t), f.base[size_t(t)]);
  e.c0(Cmd0::IfmHeight0M1, uint16_t((f.height0 ? f.height0 : f.h) - 1));
  e.c0(Cmd0::IfmHeight1M1, uint16_t((f.height1 ? f.height1 : f.h) - 1));
  e.c0(Cmd0::IfmWidth0M1, uint16_t((f.width0 ? f.width0 : f.w) - 1));
  e.c1(Cmd1::IfmStrideX, uint64_t(f.stride_x)).c1(Cmd1::IfmStrideY, uint64_t(f.stride_y));
  e.c1(Cmd1::IfmStrideC, uint64_t(f.stride_c));
  e.c0(Cmd0::IfmDepthM1, uint16_t(f.d - 1));
  e.c0(Cmd0::IfmPrecision, f.precision);
  e.c0(Cmd0::IfmZeroPoint, uint16_t(f.zero_point));
}

void set_ifm2(Encoder& e, const Fm& f) {
  e.c0(Cmd0::Ifm2Region, uint16_t(f.region));
  for (int t = 0; t < 4; ++t) e.c1(Cmd1(uint16_t(Cmd1::Ifm2Base0) + t), f.base[size_t(t)]);
  e.c0(Cmd0::Ifm2Height0M1, uint16_t((f.height0 ? f.height0 : f.h) - 1));
  e.c0(Cmd0::Ifm2Height1M1, uint16_t((f.height1 ? f.height1 : f.h) - 1));
  e.c0(Cmd0::Ifm2Width0M1, uint16_t((f.width0 ? f.width0 : f.w) - 1));
  e.c1(Cmd1::Ifm2StrideX, uint64_t(f.stride_x)).c1(Cmd1::Ifm2StrideY, uint64_t(f.stride_y));
  e.c1(Cmd1::Ifm2StrideC, uint64_t(f.stride_c));
  e.c0(Cmd0::Ifm2Precision, f.precision);
  e.c0(Cmd0::Ifm2ZeroPoint, uint16_t(f.zero_point));
}

// OFM_PRECISION: signed | size << 1 | NHCWB16 << 6 | global scale << 8 | rounding << 14; the Fm's
// precision is passed as it is.
void set_ofm(Encoder& e, const Fm& f) {
  e.c0(Cmd0::OfmRegion, uint16_t(f.region));
  for (int t = 0; t < 4; ++t) e.c1(Cmd1(uint16_t(Cmd1::OfmBase0) + t), f.base[size_t(t)]);
  e.c0(Cmd0::OfmHeight0M1, uint16_t((f.height0 ? f.height0 : f.h) - 1));
  e.c0(Cmd0::OfmHeight1M1, uint16_t((f.height1 ? f.height1 : f.h) - 1));
  e.c0(Cmd0::OfmWidth0M1, uint16_t((f.width0 ? f.width0 : f.w) - 1));
  e.c1(Cmd1::OfmStrideX, uint64_t(f.stride_x)).c1(Cmd1::OfmStrideY, uint64_t(f.stride_y));
  e.c1(Cmd1::OfmStrideC, uint64_t(f.stride_c));
  e.c0(Cmd0::OfmHeightM1, uint16_t(f.h - 1)).c0(Cmd0::OfmWidthM1, uint16_t(f.w - 1));
  e.c0(Cmd0::OfmDepthM1, uint16_t(f.d - 1));
  e.c0(Cmd0::OfmPrecision, f.precision);
  e.c0(Cmd0::OfmZeroPoint, uint16_t(f.zero_point));
}

void set_clamp(Encoder& e, int16_t lo, int16_t hi) {
  e.c0(Cmd0::ActivationMin, uint16_t(lo)).c0(Cmd0::ActivationMax, uint16_t(hi));
}

// A 1x1 kernel, stride 1, no padding.
void set_kernel_1x1(Encoder& e) {
  e.c0(Cmd0::KernelWidthM1, 0).c0(Cmd0::KernelHeightM1, 0).c0(Cmd0::KernelStride, 0);
  e.c0(Cmd0::IfmPadTop, 0).c0(Cmd0::IfmPadLeft, 0).c0(Cmd0::IfmPadBottom, 0).c0(Cmd0::IfmPadRight, 0);
}

NpuArch arch_of(uint32_t config) {
  auto a = decode_npu_arch(config, 0x10066001);
  EXPECT_TRUE(a.ok()) << a.status().message();
  return a.ok() ? *a : NpuArch{};
}
// CONFIG: product << 28 | SHRAM KiB << 8 | log2(MACs).
NpuArch u55_128() { return arch_of(0x00001807); }
NpuArch u85_256() { return arch_of(0x20003008); }

// Regions 0..3 of `bytes` bytes each (filled with 0xEE so that untouched bytes show), the rest
// unbound; internal memory of the arch's size.
struct Npu {
  NpuArch arch = u55_128();
  std::array<std::vector<uint8_t>, kMaxRegions> regions;
  std::vector<uint8_t> shram;

  explicit Npu(size_t bytes = 64, NpuArch a = u55_128()) : arch(a) {
    for (int r = 0; r < 4; ++r) regions[size_t(r)].assign(bytes, 0xEE);
    shram.assign(std::max<size_t>(shram_bytes(arch), 2048), 0);
  }
  Status run(const Encoder& e, const RunLimits& limits = {}) {
    NpuMemory memory;
    for (int r = 0; r < kMaxRegions; ++r) {
      if (!regions[size_t(r)].empty()) memory.regions[size_t(r)] = {regions[size_t(r)].data(), regions[size_t(r)].size()};
    }
    memory.shram = shram.data();
    memory.shram_size = shram.size();
    const std::vector<uint8_t> stream = e.bytes();
    return run_command_stream(stream, arch, memory, &counters, limits);
  }
  int8_t s8(int region, size_t at) const { return int8_t(regions[size_t(region)][at]); }
  void put(int region, size_t at, std::initializer_list<int> values) {
    for (int v : values) regions[size_t(region)][at++] = uint8_t(v);
  }
  RunCounters counters;
};

// "virtual NPU: command NAME (0xOPC) at byte 0xAT"
std::string where(const char* name, unsigned opcode, size_t at) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "virtual NPU: command %s (0x%03x) at byte 0x%zx", name, opcode, at);
  return buf;
}

#define EXPECT_ERROR(status, code_, text)                         \
  do {                                                            \
    const Status& s_ = (status);                                  \
    EXPECT_EQ(s_.code(), Error::code_) << s_.message();           \
    EXPECT_EQ(s_.message(), std::string(text));                   \
  } while (0)

// An elementwise ADD of two 1x2x2 int8 maps in region 1 (IFM at 0, IFM2 at 16) into region 2 at 0,
// operand scales 1, OFM scale 1 shift 0, clamp [-128, 127].
void elementwise_add_setup(Encoder& e, const Fm& ifm, const Fm& ifm2, const Fm& ofm) {
  set_ifm(e, ifm);
  set_ifm2(e, ifm2);
  set_ofm(e, ofm);
  e.c0(Cmd0::Ifm2Broadcast, 0);
  e.scale(Cmd1::OpaScale, 1, 0).scale(Cmd1::OpbScale, 1, 0).scale(Cmd1::OfmScale, 1, 0);
  e.c0(Cmd0::Activation, 0);
  set_clamp(e, -128, 127);
}

// ---------------------------------------------------------------------------------------------
// A minimal MLW weight stream (weight_decoder.h): one slice, no zero runs (ZDIV 6), uncompressed
// (WDIV 7), a new palette with no entries and PALBITS 7 (9-bit direct values, DIROFS 0), so that each
// weight is its 9-bit code: magnitude << 1 | sign. Then the end-of-stream marker (ZDIV 7), padded.

class BitWriter {
 public:
  void put(uint32_t value, int bits) {
    for (int i = 0; i < bits; ++i) {
      if (pos_ % 8 == 0) bytes_.push_back(0);
      bytes_.back() |= uint8_t(((value >> i) & 1) << (pos_ % 8));
      ++pos_;
    }
  }
  std::vector<uint8_t> bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  size_t pos_ = 0;
};

std::vector<uint8_t> uncompressed_weight_stream(const std::vector<int>& weights) {
  BitWriter w;
  w.put(6, 3);                              // ZDIV: no zero runs
  w.put(uint32_t(weights.size() - 1), 15);  // SLICELEN
  w.put(7, 3);                              // WDIV: uncompressed
  w.put(0, 1);                              // WTRUNC
  w.put(1, 1);                              // NEWPAL
  w.put(0, 5);                              // DIROFS
  w.put(0, 5);                              // PALSIZE: no palette
  w.put(7, 3);                              // PALBITS: 9-bit values
  for (int v : weights) w.put(uint32_t(v < 0 ? (-v) << 1 | 1 : v << 1), 9);
  w.put(7, 3);                              // end of stream
  std::vector<uint8_t> bytes = w.bytes();
  bytes.resize((bytes.size() + 15) / 16 * 16, 0xFF);
  return bytes;
}

// A scale/bias record: bias int40 LE, scale uint32 LE, shift.
void put_scale_record(std::vector<uint8_t>& region, size_t at, int64_t bias, uint32_t scale, int shift) {
  for (int i = 0; i < 5; ++i) region[at + size_t(i)] = uint8_t(uint64_t(bias) >> (8 * i));
  for (int i = 0; i < 4; ++i) region[at + 5 + size_t(i)] = uint8_t(scale >> (8 * i));
  region[at + 9] = uint8_t(shift);
}

// A 1x1 CONV of a 1x2x2 IFM (region 1 at 0) into a 1x2x2 OFM (region 2 at 0): weights in region 0
// at 0 (`weight_length` bytes), scales in region 0 at 512 (2 records), OFM block depth 8.
void conv_setup(Encoder& e, uint64_t weight_base, uint64_t weight_length, uint64_t scale_base,
                uint64_t scale_length) {
  set_ifm(e, nhwc(1, 0, 1, 2, 2));
  set_ofm(e, nhwc(2, 0, 1, 2, 2));
  set_kernel_1x1(e);
  e.c0(Cmd0::OfmBlkDepthM1, 7);
  e.c0(Cmd0::WeightRegion, 0).c1(Cmd1::WeightBase, weight_base).c1(Cmd1::WeightLength, weight_length);
  e.c0(Cmd0::ScaleRegion, 0).c1(Cmd1::ScaleBase, scale_base).c1(Cmd1::ScaleLength, scale_length);
  e.c0(Cmd0::Activation, 0);
  set_clamp(e, -128, 127);
}

// The number of values Vela's reorder writes for conv_setup's layout on a U55-128.
int64_t conv_setup_value_count() {
  WeightStreamLayout l;
  l.product = NpuProduct::U55;
  l.macs = 128;
  l.ofm_depth = 2;
  l.ifm_depth = 2;
  l.ofm_block_depth = 8;
  auto n = weight_stream_value_count(l);
  EXPECT_TRUE(n.ok()) << n.status().message();
  return n.ok() ? *n : 0;
}

// ---------------------------------------------------------------------------------------------
// The stream itself.

TEST(VirtualNpuErrors, UnknownCmd0Opcode) {
  Npu npu;
  Encoder e;
  e.c0(Cmd0::OpKernelWait).c0(Cmd0::IfmPadTop, 1);
  ASSERT_EQ(e.at(), 8u);
  e.raw(0x0FF).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram, "virtual NPU: unknown cmd0 opcode 0x0ff at byte 0x8 (not an Ethos-U55/U65 operation or register)");

  // A U85-only register (IFM_BROADCAST 0x108) and OP_RESIZE are unknown on a U55.
  Encoder u85_reg;
  u85_reg.c1(Cmd1::IfmBase0, 0).raw(0x108).stop();
  EXPECT_ERROR(npu.run(u85_reg), InvalidProgram, "virtual NPU: unknown cmd0 opcode 0x108 at byte 0x8 (not an Ethos-U55/U65 operation or register)");
  Encoder resize;
  resize.c0(Cmd0::OpResize).stop();
  EXPECT_ERROR(npu.run(resize), InvalidProgram, "virtual NPU: command OP_RESIZE (0x007) at byte 0x0 is an Ethos-U85 operation");
  // Command kinds 2 and 3 (bits 14-15) do not exist.
  Encoder kind;
  kind.c0(Cmd0::OpIrq).raw(0x8000 | 0x002).stop();
  EXPECT_ERROR(npu.run(kind), InvalidProgram, "virtual NPU: word 0x00008002 at byte 4 has command kind 2 (only 0, one word, and 1, two words, exist)");
}

TEST(VirtualNpuErrors, UnknownCmd1Opcode) {
  Npu npu;
  Encoder e;
  e.c0(Cmd0::OpIrq).c1(Cmd1::OfmBase0, 0);
  e.raw(0x4000 | 0x3FF).raw(0).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram, "virtual NPU: unknown cmd1 opcode 0x3ff at byte 0xc (not an Ethos-U55/U65 register)");
  // 0x027 is U85's OP_SCALAR.
  Encoder u85;
  u85.raw(0x4000 | 0x027).raw(5).stop();
  EXPECT_ERROR(npu.run(u85), InvalidProgram, "virtual NPU: unknown cmd1 opcode 0x027 at byte 0x0 (not an Ethos-U55/U65 register)");
}

TEST(VirtualNpuErrors, Cmd1TruncatedAtTheEnd) {
  Npu npu;
  Encoder e;
  e.c0(Cmd0::OpIrq).raw(0x4000 | uint32_t(Cmd1::Dma0Len));
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("DMA0_LEN", 0x032, 4) + ": the stream ends inside this two-word command");
}

TEST(VirtualNpuErrors, NoOpStop) {
  Npu npu;
  Encoder e;
  e.c0(Cmd0::OpIrq).c1(Cmd1::IfmBase0, 8).c0(Cmd0::OpKernelWait);
  EXPECT_ERROR(npu.run(e), InvalidProgram, "virtual NPU: the command stream has no OP_STOP");
  EXPECT_ERROR(npu.run(Encoder()), InvalidProgram, "virtual NPU: the command stream has no OP_STOP");
}

TEST(VirtualNpuErrors, StreamNotWholeWords) {
  Npu npu;
  NpuMemory memory;
  memory.shram = npu.shram.data();
  memory.shram_size = npu.shram.size();
  const uint8_t bytes[6] = {0, 0, 0xFF, 0xFF, 0, 0};
  EXPECT_ERROR(run_command_stream(bytes, npu.arch, memory, nullptr), InvalidProgram,
               "command stream of 6 bytes is not whole 32-bit words");
}

TEST(VirtualNpuErrors, U85IsRefused) {
  Npu npu(64, u85_256());
  Encoder e;
  e.stop();
  const Status s = npu.run(e);
  EXPECT_EQ(s.code(), Error::NotSupported);
  EXPECT_EQ(s.message(),
            "Ethos-U85 streams are not supported: the virtual NPU runs Ethos-U55 and Ethos-U65 command streams, and "
            "this one is for Ethos-U85-256 (arch 1.0.6, command stream v0) (no compiler for U85 streams is available "
            "to test against)");
  EXPECT_NE(s.message().find("Ethos-U85"), std::string::npos);
}

TEST(VirtualNpuErrors, TooLittleInternalMemory) {
  Npu npu;
  npu.shram.resize(1024);
  Encoder e;
  e.stop();
  EXPECT_ERROR(npu.run(e), InvalidArgument,
               "the virtual NPU needs 24576 bytes of internal memory for Ethos-U55-128 (arch 1.0.6, command "
               "stream v0)");
}

// ---------------------------------------------------------------------------------------------
// Accesses outside their region.

TEST(VirtualNpuErrors, IfmOutsideItsRegion) {
  Npu npu;
  Encoder e;
  // IFM 1x2x2 at 62: bytes 62..66 of a 64-byte region.
  elementwise_add_setup(e, nhwc(1, 62, 1, 2, 2), nhwc(1, 16, 1, 2, 2), nhwc(2, 0, 1, 2, 2));
  const size_t at = e.at();
  e.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_ELEMENTWISE", 0x006, at) +
                   ": IFM tile 0 reads or writes bytes 62..66 outside region 1 (64 bytes)");
}

TEST(VirtualNpuErrors, Ifm2OutsideItsRegion) {
  Npu npu;
  Encoder e;
  // A 40-bit base: 0x01_0000_0000 + 16.
  elementwise_add_setup(e, nhwc(1, 0, 1, 2, 2), nhwc(1, (uint64_t(1) << 32) + 16, 1, 2, 2),
                        nhwc(2, 0, 1, 2, 2));
  const size_t at = e.at();
  e.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_ELEMENTWISE", 0x006, at) +
                   ": IFM2 tile 0 reads or writes bytes 4294967312..4294967316 outside region 1 (64 bytes)");
}

TEST(VirtualNpuErrors, OfmOutsideItsRegion) {
  Npu npu;
  Encoder e;
  // The OFM's row stride makes its second row end at 1000 + 64 + 4.
  Fm ofm = nhwc(2, 1000, 2, 2, 1);
  ofm.stride_y = 64;
  ofm.stride_x = 2;
  elementwise_add_setup(e, nhwc(1, 0, 2, 2, 1), nhwc(1, 16, 2, 2, 1), nhwc(2, 0, 2, 2, 1));
  e.c0(Cmd0::OpIrq);
  set_ofm(e, ofm);
  const size_t at = e.at();
  e.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_ELEMENTWISE", 0x006, at) +
                   ": OFM tile 0 reads or writes bytes 1000..1067 outside region 2 (64 bytes)");
}

TEST(VirtualNpuErrors, FeatureMapInAnUnboundRegion) {
  Npu npu;
  Encoder e;
  elementwise_add_setup(e, nhwc(1, 0, 1, 2, 2), nhwc(1, 16, 1, 2, 2), nhwc(5, 0, 1, 2, 2));
  const size_t at = e.at();
  e.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_ELEMENTWISE", 0x006, at) + ": OFM tile 0 uses region 5, which the driver did not bind");
}

TEST(VirtualNpuErrors, TileOutsideItsRegion) {
  Npu npu;
  Encoder e;
  // A 2x2 IFM in four 1x1 tiles; tile 3 (bottom right) at 64, one past the region.
  Fm ifm = nhwc(1, 0, 2, 2, 1);
  ifm.base = {0, 10, 20, 64};
  ifm.height0 = 1, ifm.height1 = 1, ifm.width0 = 1;
  elementwise_add_setup(e, ifm, nhwc(1, 32, 2, 2, 1), nhwc(2, 0, 2, 2, 1));
  const size_t at = e.at();
  e.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Max)).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_ELEMENTWISE", 0x006, at) +
                   ": IFM tile 3 reads or writes bytes 64..65 outside region 1 (64 bytes)");
}

TEST(VirtualNpuErrors, WeightStreamOutsideItsRegion) {
  Npu npu(1024);
  Encoder e;
  conv_setup(e, 1000, 48, 512, 32);
  const size_t at = e.at();
  e.c0(Cmd0::OpConv).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_CONV", 0x002, at) +
                   ": weight stream reads or writes bytes 1000..1048 outside region 0 (1024 bytes)");
}

TEST(VirtualNpuErrors, ScaleStreamOutsideItsRegion) {
  Npu npu(1024);
  const std::vector<uint8_t> weights = uncompressed_weight_stream(std::vector<int>(size_t(conv_setup_value_count()), 1));
  std::memcpy(npu.regions[0].data(), weights.data(), weights.size());
  Encoder e;
  conv_setup(e, 0, weights.size(), 1020, 20);
  const size_t at = e.at();
  e.c0(Cmd0::OpConv).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_CONV", 0x002, at) +
                   ": scale stream reads or writes bytes 1020..1040 outside region 0 (1024 bytes)");
  // In a region the driver did not bind.
  Encoder unbound;
  conv_setup(unbound, 0, weights.size(), 512, 20);
  unbound.c0(Cmd0::ScaleRegion, 7);
  const size_t at2 = unbound.at();
  unbound.c0(Cmd0::OpConv).stop();
  EXPECT_ERROR(npu.run(unbound), InvalidProgram,
               where("OP_CONV", 0x002, at2) + ": scale stream uses region 7, which the driver did not bind");
}

TEST(VirtualNpuErrors, MalformedWeightStream) {
  Npu npu(1024);
  Encoder e;
  conv_setup(e, 0, 32, 512, 20);
  const size_t at = e.at();
  e.c0(Cmd0::OpConv).stop();
  // Zero bytes: a slice header with NEWPAL = 0 where a palette is needed.
  std::memset(npu.regions[0].data(), 0, 32);
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_CONV", 0x002, at) +
                   ": weight stream: first slice of a section does not define a palette (NEWPAL = 0) at bit 0");
  // 0xFF bytes: nothing but end-of-stream markers.
  std::memset(npu.regions[0].data(), 0xFF, 32);
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_CONV", 0x002, at) + ": weight stream: decodes to 0 weights, the layout needs " +
                   std::to_string(conv_setup_value_count()));
  // A well-formed stream with one weight too few.
  const std::vector<uint8_t> short_stream =
      uncompressed_weight_stream(std::vector<int>(size_t(conv_setup_value_count() - 1), 1));
  std::memcpy(npu.regions[0].data(), short_stream.data(), short_stream.size());
  Encoder e2;
  conv_setup(e2, 0, short_stream.size(), 512, 20);
  const size_t at2 = e2.at();
  e2.c0(Cmd0::OpDepthwise).c0(Cmd0::OpConv).stop();
  // OP_DEPTHWISE first: a depthwise layout has another weight count, so the stream is refused there.
  const Status s = npu.run(e2);
  EXPECT_EQ(s.code(), Error::InvalidProgram);
  EXPECT_EQ(s.message().rfind(where("OP_DEPTHWISE", 0x003, at2) + ": weight stream: ", 0), 0u) << s.message();
}

TEST(VirtualNpuErrors, DmaSourceAndDestinationOutsideTheirRegions) {
  Npu npu;
  auto dma = [](uint16_t src_region, uint64_t src, uint16_t dst_region, uint64_t dst, uint64_t len,
                size_t& at) {
    Encoder e;
    e.c0(Cmd0::Dma0SrcRegion, src_region).c0(Cmd0::Dma0DstRegion, dst_region);
    e.c1(Cmd1::Dma0Src, src).c1(Cmd1::Dma0Dst, dst).c1(Cmd1::Dma0Len, len);
    at = e.at();
    e.c0(Cmd0::OpDmaStart).c0(Cmd0::OpDmaWait).stop();
    return e;
  };
  size_t at = 0;
  Encoder src = dma(0, 60, 1, 0, 20, at);
  EXPECT_ERROR(npu.run(src), InvalidProgram,
               where("OP_DMA_START", 0x010, at) + ": DMA source reads or writes bytes 60..80 outside region 0 (64 bytes)");
  Encoder dst = dma(0, 0, 2, 50, 20, at);
  EXPECT_ERROR(npu.run(dst), InvalidProgram,
               where("OP_DMA_START", 0x010, at) +
                   ": DMA destination reads or writes bytes 50..70 outside region 2 (64 bytes)");
  Encoder unbound = dma(6, 0, 2, 0, 4, at);
  EXPECT_ERROR(npu.run(unbound), InvalidProgram,
               where("OP_DMA_START", 0x010, at) + ": DMA source uses region 6, which the driver did not bind");
  // An address whose end wraps around 2^64 is still outside (40-bit length and address).
  Encoder huge = dma(0, 0xFFFFFFFFFFull, 1, 0, 0xFFFFFFFFFFull, at);
  EXPECT_ERROR(npu.run(huge), InvalidProgram,
               where("OP_DMA_START", 0x010, at) +
                   ": DMA source reads or writes bytes 1099511627775..2199023255550 outside region 0 (64 bytes)");
  // Internal memory (bit 8): 24 KiB on a U55-128; 8 bytes at 24570 run 2 past its end.
  Encoder shram = dma(0, 0, 0x100, 24570, 8, at);
  EXPECT_ERROR(npu.run(shram), InvalidProgram,
               where("OP_DMA_START", 0x010, at) + ": DMA destination 24570..24578 outside internal memory (24576 bytes)");
  Encoder shram_src = dma(0x100, 24576, 1, 0, 1, at);
  EXPECT_ERROR(npu.run(shram_src), InvalidProgram,
               where("OP_DMA_START", 0x010, at) + ": DMA source 24576..24577 outside internal memory (24576 bytes)");
  // 2-D DMA (stride mode bits 9-10) is refused by name.
  Encoder two_d = dma(0x200, 0, 1, 0, 4, at);
  EXPECT_ERROR(npu.run(two_d), NotSupported,
               where("OP_DMA_START", 0x010, at) +
                   ": 2-D/3-D DMA (stride mode 1/0) is not supported by the virtual NPU");
  // In range: the copy happens.
  npu.put(0, 4, {1, 2, 3, 4});
  Encoder ok = dma(0, 4, 3, 60, 4, at);
  EXPECT_TRUE(npu.run(ok).is_ok());
  EXPECT_EQ(npu.regions[3][60], 1);
  EXPECT_EQ(npu.regions[3][63], 4);
}

TEST(VirtualNpuErrors, LutSlotPastTheLutArea) {
  Npu npu;
  Encoder e;
  // A 32-bit OFM uses 4-byte entries: slot 5 would need bytes 1280..2304 of the 2048-byte area.
  Fm ofm = nhwc(2, 0, 1, 2, 2);
  ofm.precision = 1 | (2 << 1);
  ofm.stride_c = 4, ofm.stride_x = 8, ofm.stride_y = 16;
  elementwise_add_setup(e, nhwc(1, 0, 1, 2, 2), nhwc(1, 16, 1, 2, 2), ofm);
  e.c0(Cmd0::Activation, 16 + 5);
  const size_t at = e.at();
  e.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  EXPECT_ERROR(npu.run(e), InvalidProgram,
               where("OP_ELEMENTWISE", 0x006, at) + ": LUT slot 5 with 4-byte entries runs past the LUT area");
  // Functions other than none and LUT slots 16-23.
  Encoder tanh;
  elementwise_add_setup(tanh, nhwc(1, 0, 1, 2, 2), nhwc(1, 16, 1, 2, 2), nhwc(2, 0, 1, 2, 2));
  tanh.c0(Cmd0::Activation, 3);
  const size_t at2 = tanh.at();
  tanh.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  EXPECT_ERROR(npu.run(tanh), NotSupported,
               where("OP_ELEMENTWISE", 0x006, at2) +
                   ": activation function 3 is not supported by the virtual NPU (LUT slots 16-23 and none are)");
}

TEST(VirtualNpuErrors, ModesThatDoNotExist) {
  Npu npu;
  Encoder pool;
  set_ifm(pool, nhwc(1, 0, 1, 2, 2));
  set_ofm(pool, nhwc(2, 0, 1, 2, 2));
  set_kernel_1x1(pool);
  const size_t at = pool.at();
  pool.c0(Cmd0::OpPool, 3).stop();
  EXPECT_ERROR(npu.run(pool), InvalidProgram,
               where("OP_POOL", 0x005, at) + ": pooling mode 3 does not exist on Ethos-U55");

  Encoder ew;
  elementwise_add_setup(ew, nhwc(1, 0, 1, 2, 2), nhwc(1, 16, 1, 2, 2), nhwc(2, 0, 1, 2, 2));
  const size_t at2 = ew.at();
  ew.c0(Cmd0::OpElementwise, 10).stop();
  EXPECT_ERROR(npu.run(ew), InvalidProgram,
               where("OP_ELEMENTWISE", 0x006, at2) + ": elementwise function 10 does not exist on Ethos-U55");

  // Rounding mode 3 (OFM_PRECISION bits 14-15).
  Encoder round;
  Fm ofm = nhwc(2, 0, 1, 2, 2);
  ofm.precision = 1 | (3 << 14);
  elementwise_add_setup(round, nhwc(1, 0, 1, 2, 2), nhwc(1, 16, 1, 2, 2), ofm);
  const size_t at3 = round.at();
  round.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  EXPECT_ERROR(npu.run(round), InvalidProgram,
               where("OP_ELEMENTWISE", 0x006, at3) + ": rounding mode 3 does not exist");

  // IFM upscale mode 3.
  Encoder up;
  set_ifm(up, nhwc(1, 0, 1, 2, 2));
  set_ofm(up, nhwc(2, 0, 1, 2, 2));
  set_kernel_1x1(up);
  up.c0(Cmd0::IfmUpscale, 3);
  const size_t at4 = up.at();
  up.c0(Cmd0::OpPool, uint16_t(PoolOp::Max)).stop();
  EXPECT_ERROR(npu.run(up), InvalidProgram, where("OP_POOL", 0x005, at4) + ": IFM upscale mode 3 does not exist");
}

TEST(VirtualNpuErrors, WorkLimit) {
  Npu npu;
  Encoder e;
  elementwise_add_setup(e, nhwc(1, 0, 1, 2, 2), nhwc(1, 16, 1, 2, 2), nhwc(2, 0, 1, 2, 2));
  e.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add));
  const size_t at = e.at();
  e.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  RunLimits limits;
  limits.max_work = 7;  // the first ADD takes 4 of its 4 elements' worth, the second finds 3 left
  EXPECT_ERROR(npu.run(e, limits), OutOfResources,
               where("OP_ELEMENTWISE", 0x006, at) +
                   ": OP_ELEMENTWISE needs 4 units of work, more than the virtual NPU allows per inference");
  limits.max_work = 8;
  EXPECT_TRUE(npu.run(e, limits).is_ok());
}

// A stream whose work count overflows 64 bits if multiplied naively: a 65536x65536x65536 MAX pool
// with 65536-wide kernel and all strides 0 (every element at the same byte) must be refused by the
// work limit, not run for 2^48 elements.
TEST(VirtualNpuErrors, WorkCountDoesNotWrapAround) {
  Npu npu;
  Encoder e;
  Fm ifm = nhwc(1, 0, 1, 1, 1);
  ifm.h = 1, ifm.w = 1, ifm.d = 65536;
  ifm.stride_x = ifm.stride_y = ifm.stride_c = 0;
  Fm ofm = ifm;
  ofm.region = 2;
  ofm.h = ofm.w = 65536;
  ofm.height0 = ofm.height1 = ofm.width0 = 65536;
  set_ifm(e, ifm);
  set_ofm(e, ofm);
  set_kernel_1x1(e);
  e.c0(Cmd0::KernelWidthM1, 0xFFFF);
  e.c0(Cmd0::IfmPadRight, 0xFF);
  set_clamp(e, -128, 127);
  const size_t at = e.at();
  e.c0(Cmd0::OpPool, uint16_t(PoolOp::Max)).stop();
  RunLimits limits;
  limits.max_work = uint64_t(1) << 22;
  const Status s = npu.run(e, limits);
  EXPECT_EQ(s.code(), Error::OutOfResources) << s.message();
  EXPECT_EQ(s.message().rfind(where("OP_POOL", 0x005, at) + ": OP_POOL needs ", 0), 0u) << s.message();

  // REDUCE_SUM sums over the IFM's channels too: 65536 of them per OFM element.
  Encoder r;
  Fm small_ofm = ofm;
  small_ofm.h = small_ofm.w = 16;
  small_ofm.height0 = small_ofm.height1 = small_ofm.width0 = 16;
  small_ofm.d = 1;
  set_ifm(r, ifm);
  set_ofm(r, small_ofm);
  set_kernel_1x1(r);
  set_clamp(r, -128, 127);
  const size_t at2 = r.at();
  r.c0(Cmd0::OpPool, uint16_t(PoolOp::ReduceSum)).stop();
  const Status s2 = npu.run(r, limits);
  EXPECT_EQ(s2.code(), Error::OutOfResources) << s2.message();
  EXPECT_EQ(s2.message().rfind(where("OP_POOL", 0x005, at2) + ": OP_POOL needs ", 0), 0u) << s2.message();
}

// ---------------------------------------------------------------------------------------------
// Semantics, by hand.

TEST(VirtualNpuErrors, ElementwiseAddWithZeroPointsAndClamp) {
  Npu npu;
  // IFM (zp 3) and IFM2 (zp -2), 1x2x2 NHWC: elements (x, c) in order (0,0) (0,1) (1,0) (1,1).
  npu.put(1, 0, {10, -20, 100, 127});
  npu.put(1, 16, {1, 2, -128, 127});
  Encoder e;
  elementwise_add_setup(e, nhwc(1, 0, 1, 2, 2, 3), nhwc(1, 16, 1, 2, 2, -2), nhwc(2, 8, 1, 2, 2, 5));
  set_clamp(e, -100, 50);
  e.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  ASSERT_TRUE(npu.run(e).is_ok());
  // a - 3:        7, -23,   97, 124
  // b + 2:        3,   4, -126, 129
  // sum:         10, -19,  -29, 253
  // + OFM zp 5:  15, -14,  -24, 258 -> 127 (int8)
  // clamp [-100, 50]: 15, -14, -24, 50
  EXPECT_EQ(npu.s8(2, 8), 15);
  EXPECT_EQ(npu.s8(2, 9), -14);
  EXPECT_EQ(npu.s8(2, 10), -24);
  EXPECT_EQ(npu.s8(2, 11), 50);
  EXPECT_EQ(npu.regions[2][7], 0xEE);  // nothing written around the OFM
  EXPECT_EQ(npu.regions[2][12], 0xEE);
  EXPECT_EQ(npu.counters.operations, 1u);
  EXPECT_EQ(npu.counters.ofm_elements, 4u);

  // The same with IFM2 a scalar (IFM2_BROADCAST bit 7; IFM2_SCALAR -7, IFM2 zp -2: b = -5).
  Encoder s;
  elementwise_add_setup(s, nhwc(1, 0, 1, 2, 2, 3), nhwc(1, 16, 1, 2, 2, -2), nhwc(2, 8, 1, 2, 2, 5));
  s.c0(Cmd0::Ifm2Broadcast, 0x80).c0(Cmd0::Ifm2Scalar, uint16_t(int16_t(-7)));
  s.c0(Cmd0::OpElementwise, uint16_t(ElementwiseOp::Add)).stop();
  ASSERT_TRUE(npu.run(s).is_ok());
  // a - 3 - 5 + 5 = a - 3: 7, -23, 97, 124
  EXPECT_EQ(npu.s8(2, 8), 7);
  EXPECT_EQ(npu.s8(2, 9), -23);
  EXPECT_EQ(npu.s8(2, 10), 97);
  EXPECT_EQ(npu.s8(2, 11), 124);
}

TEST(VirtualNpuErrors, AveragePool1x1WithOfmScale) {
  Npu npu;
  npu.put(1, 0, {10, -7, 3, 100});
  Encoder e;
  set_ifm(e, nhwc(1, 0, 1, 2, 2));
  Fm ofm = nhwc(2, 0, 1, 2, 2, -3);
  ofm.precision = 1 | (1 << 8);  // signed int8, OFM_SCALE instead of a scale stream, TFL rounding
  set_ofm(e, ofm);
  set_kernel_1x1(e);
  e.scale(Cmd1::OfmScale, 3, 1);  // x 1.5
  e.c0(Cmd0::Activation, 0);
  set_clamp(e, -128, 127);
  e.c0(Cmd0::OpPool, uint16_t(PoolOp::Average)).stop();
  ASSERT_TRUE(npu.run(e).is_ok());
  // x * 3 / 2 rounded half up (TFL mode, shift < 31): 15, -10.5 -> -10, 4.5 -> 5, 150
  // + OFM zp -3: 12, -13, 2, 147 -> 127
  EXPECT_EQ(npu.s8(2, 0), 12);
  EXPECT_EQ(npu.s8(2, 1), -13);
  EXPECT_EQ(npu.s8(2, 2), 2);
  EXPECT_EQ(npu.s8(2, 3), 127);

  // The same in TRUNCATE mode (bits 14-15 = 1): 15, -10.5 -> -11, 4.5 -> 4, 150. The virtual NPU
  // truncates by an arithmetic shift (toward minus infinity); whether the hardware truncates toward
  // zero (-10) instead is not known here (no TRM read; Vela's streams in the conformance set do not
  // tell): this pins the model's choice.
  ofm.precision = 1 | (1 << 8) | (1 << 14);
  Encoder t;
  set_ifm(t, nhwc(1, 0, 1, 2, 2));
  set_ofm(t, ofm);
  set_kernel_1x1(t);
  t.scale(Cmd1::OfmScale, 3, 1);
  set_clamp(t, -128, 127);
  t.c0(Cmd0::OpPool, uint16_t(PoolOp::Average)).stop();
  ASSERT_TRUE(npu.run(t).is_ok());
  EXPECT_EQ(npu.s8(2, 0), 12);
  EXPECT_EQ(npu.s8(2, 1), -14);
  EXPECT_EQ(npu.s8(2, 2), 1);
  EXPECT_EQ(npu.s8(2, 3), 127);
}

TEST(VirtualNpuErrors, MaxPoolWithPadding) {
  Npu npu;
  // IFM 2x2x1:  -10 -50
  //              -3  -7
  npu.put(1, 0, {-10, -50, -3, -7});
  Encoder e;
  set_ifm(e, nhwc(1, 0, 2, 2, 1));
  set_ofm(e, nhwc(2, 0, 2, 2, 1));
  // 2x2 kernel, stride 1, padding top 1 and left 1: OFM(y, x) is the max over IFM rows y-1..y and
  // columns x-1..x that exist; padding takes no part (it would be 0 > every value here).
  e.c0(Cmd0::KernelWidthM1, 1).c0(Cmd0::KernelHeightM1, 1).c0(Cmd0::KernelStride, 0);
  e.c0(Cmd0::IfmPadTop, 1).c0(Cmd0::IfmPadLeft, 1).c0(Cmd0::IfmPadBottom, 0).c0(Cmd0::IfmPadRight, 0);
  e.c0(Cmd0::Activation, 0);
  set_clamp(e, -128, 127);
  e.c0(Cmd0::OpPool, uint16_t(PoolOp::Max)).stop();
  ASSERT_TRUE(npu.run(e).is_ok());
  // OFM(0,0) = max{-10} = -10; OFM(0,1) = max{-10,-50} = -10;
  // OFM(1,0) = max{-10,-3} = -3; OFM(1,1) = max{-10,-50,-3,-7} = -3
  EXPECT_EQ(npu.s8(2, 0), -10);
  EXPECT_EQ(npu.s8(2, 1), -10);
  EXPECT_EQ(npu.s8(2, 2), -3);
  EXPECT_EQ(npu.s8(2, 3), -3);

  // Stride 2 in x (KERNEL_STRIDE bit 0), no padding, 1x2 kernel over a 1x4 IFM: max of pairs.
  npu.put(1, 0, {5, -1, 8, 9});
  Encoder s;
  set_ifm(s, nhwc(1, 0, 1, 4, 1));
  set_ofm(s, nhwc(2, 0, 1, 2, 1));
  s.c0(Cmd0::KernelWidthM1, 1).c0(Cmd0::KernelHeightM1, 0).c0(Cmd0::KernelStride, 1);
  s.c0(Cmd0::IfmPadTop, 0).c0(Cmd0::IfmPadLeft, 0);
  set_clamp(s, -128, 127);
  s.c0(Cmd0::OpPool, uint16_t(PoolOp::Max)).stop();
  ASSERT_TRUE(npu.run(s).is_ok());
  EXPECT_EQ(npu.s8(2, 0), 5);
  EXPECT_EQ(npu.s8(2, 1), 9);
}

TEST(VirtualNpuErrors, ConvolutionWithPerChannelScales) {
  Npu npu(1024);
  // Every weight 2 (Vela's padding values included, so the reorder does not matter here).
  const std::vector<uint8_t> weights = uncompressed_weight_stream(std::vector<int>(size_t(conv_setup_value_count()), 2));
  std::memcpy(npu.regions[0].data(), weights.data(), weights.size());
  put_scale_record(npu.regions[0], 512, 10, 1, 0);    // channel 0: (acc + 10)
  put_scale_record(npu.regions[0], 522, -5, 3, 1);    // channel 1: (acc - 5) * 3 / 2, rounded half up
  // IFM 1x2x2 (zp 0): pixel 0 = (4, -1), pixel 1 = (20, 30)
  npu.put(1, 0, {4, -1, 20, 30});
  Encoder e;
  conv_setup(e, 0, weights.size(), 512, 20);
  e.c0(Cmd0::OfmZeroPoint, 1);
  e.c0(Cmd0::OpConv).stop();
  const Status s = npu.run(e);
  ASSERT_TRUE(s.is_ok()) << s.message();
  // acc = 2 * (c0 + c1): pixel 0: 6, pixel 1: 100
  // channel 0: 6 + 10 = 16, 100 + 10 = 110; + zp 1: 17, 111
  // channel 1: (6 - 5) * 1.5 = 1.5 -> 2; (100 - 5) * 1.5 = 142.5 -> 143; + zp 1: 3, 144 -> 127
  EXPECT_EQ(npu.s8(2, 0), 17);
  EXPECT_EQ(npu.s8(2, 1), 3);
  EXPECT_EQ(npu.s8(2, 2), 111);
  EXPECT_EQ(npu.s8(2, 3), 127);
  EXPECT_EQ(npu.counters.macs, 2u * 2u * 2u);  // 2 pixels x 2 OFM channels x 2 IFM channels
}

TEST(VirtualNpuErrors, Nhcwb16AddressingOf20Channels) {
  // A 1x2x20 NHWC map copied (1x1 average pool) into NHCWB16 and back. NHCWB16 (Vela's get_strides
  // and get_address): stride_x = 16 bytes, stride_c = 16 * width = 32 bytes (one brick of the row),
  // stride_y = width * round_up(20, 16) = 64; element (x, c) at x * 16 + (c / 16) * 32 + c % 16.
  Npu npu(128);
  std::vector<int> values;
  for (int x = 0; x < 2; ++x)
    for (int c = 0; c < 20; ++c) values.push_back(x * 20 + c + 1);  // 1..40
  for (size_t i = 0; i < values.size(); ++i) npu.regions[1][i] = uint8_t(values[i]);
  Fm brick;
  brick.region = 2;
  brick.h = 1, brick.w = 2, brick.d = 20;
  brick.stride_x = 16, brick.stride_c = 32, brick.stride_y = 64;
  brick.precision = 1 | (1 << 6);
  Encoder e;
  set_ifm(e, nhwc(1, 0, 1, 2, 20));
  set_ofm(e, brick);
  set_kernel_1x1(e);
  e.c0(Cmd0::Activation, 0);
  set_clamp(e, -128, 127);
  e.c0(Cmd0::OpPool, uint16_t(PoolOp::Average));
  // ... and back: NHCWB16 IFM (IFM_PRECISION bit 6) into NHWC region 3.
  Fm back_in = brick;
  back_in.precision = 1 | (1 << 6);
  set_ifm(e, back_in);
  set_ofm(e, nhwc(3, 0, 1, 2, 20));
  e.c0(Cmd0::OpPool, uint16_t(PoolOp::Average)).stop();
  const Status s = npu.run(e);
  ASSERT_TRUE(s.is_ok()) << s.message();
  for (int x = 0; x < 2; ++x) {
    for (int c = 0; c < 20; ++c) {
      const size_t at = size_t(x * 16 + (c / 16) * 32 + c % 16);
      EXPECT_EQ(npu.regions[2][at], x * 20 + c + 1) << "x " << x << " c " << c;
      EXPECT_EQ(npu.regions[3][size_t(x * 20 + c)], x * 20 + c + 1) << "x " << x << " c " << c;
    }
  }
  // Brick 0 is bytes 0..31 (x 0: 0..15, x 1: 16..31), brick 1 is 32..63 with channels 16..19 only:
  // x 0 at 32..35, x 1 at 48..51; the rest is untouched.
  EXPECT_EQ(npu.regions[2][16], 21);  // x 1, c 0
  EXPECT_EQ(npu.regions[2][32], 17);  // x 0, c 16
  EXPECT_EQ(npu.regions[2][48], 37);  // x 1, c 16
  EXPECT_EQ(npu.regions[2][36], 0xEE);
  EXPECT_EQ(npu.regions[2][52], 0xEE);
  EXPECT_EQ(npu.regions[2][64], 0xEE);
}

TEST(VirtualNpuErrors, FourTileFeatureMaps) {
  // A 4x4x1 IFM in four tiles (HEIGHT0 2, HEIGHT1 1, WIDTH0 3), row stride 4, column stride 1:
  //   tile 0 (base 0):   rows 0-1, columns 0-2: (y, x) at 0 + y*4 + x
  //   tile 1 (base 100): rows 0-0, column 3:    (y, x) at 100 + y*4 + (x-3)
  //   tile 2 (base 200): rows 2-3, columns 0-2: (y, x) at 200 + (y-2)*4 + x
  //   tile 3 (base 300): rows 1-3, column 3:    (y, x) at 300 + (y-1)*4 + (x-3)
  // (Vela's get_address: x >= WIDTH0 picks tile 1, then 3 when y >= HEIGHT1, else y >= HEIGHT0
  // picks tile 2.) Element (y, x) holds 10*y + x; a 1x1 average pool copies it to a plain 4x4 OFM.
  Npu npu(512);
  auto tiled_address = [](int y, int x, const std::array<uint64_t, 4>& base, int h0, int h1, int w0) {
    if (x >= w0) return y < h1 ? base[1] + uint64_t(y * 4 + x - w0) : base[3] + uint64_t((y - h1) * 4 + x - w0);
    return y < h0 ? base[0] + uint64_t(y * 4 + x) : base[2] + uint64_t((y - h0) * 4 + x);
  };
  const std::array<uint64_t, 4> in_base = {0, 100, 200, 300};
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) npu.regions[1][tiled_address(y, x, in_base, 2, 1, 3)] = uint8_t(10 * y + x);
  EXPECT_EQ(npu.regions[1][100], 3);    // (0, 3) in tile 1
  EXPECT_EQ(npu.regions[1][300], 13);   // (1, 3) in tile 3
  EXPECT_EQ(npu.regions[1][308], 33);   // (3, 3) in tile 3
  EXPECT_EQ(npu.regions[1][204], 30);   // (3, 0) in tile 2

  Fm ifm;
  ifm.region = 1;
  ifm.base = in_base;
  ifm.h = 4, ifm.w = 4, ifm.d = 1;
  ifm.stride_y = 4, ifm.stride_x = 1, ifm.stride_c = 1;
  ifm.height0 = 2, ifm.height1 = 1, ifm.width0 = 3;
  Encoder e;
  set_ifm(e, ifm);
  set_ofm(e, nhwc(2, 0, 4, 4, 1));
  set_kernel_1x1(e);
  e.c0(Cmd0::Activation, 0);
  set_clamp(e, -128, 127);
  e.c0(Cmd0::OpPool, uint16_t(PoolOp::Average));
  // And back out into a tiled OFM with another split (HEIGHT0 3, HEIGHT1 2, WIDTH0 1) in region 3.
  Fm ofm = ifm;
  ofm.region = 3;
  ofm.base = {0, 100, 200, 300};
  ofm.height0 = 3, ofm.height1 = 2, ofm.width0 = 1;
  set_ifm(e, nhwc(2, 0, 4, 4, 1));
  set_ofm(e, ofm);
  e.c0(Cmd0::OpPool, uint16_t(PoolOp::Average)).stop();
  const Status s = npu.run(e);
  ASSERT_TRUE(s.is_ok()) << s.message();
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 4; ++x) {
      EXPECT_EQ(npu.regions[2][size_t(y * 4 + x)], 10 * y + x) << y << "," << x;
      EXPECT_EQ(npu.regions[3][tiled_address(y, x, ofm.base, 3, 2, 1)], 10 * y + x) << y << "," << x;
    }
  }
  // The OFM's tile 1 holds rows 0-1 of columns 1-3 (at 100 + y*4 + x-1), tile 3 rows 2-3 (at 300 +
  // (y-2)*4 + x-1), tile 2 row 3 of column 0 (at 200).
  EXPECT_EQ(npu.regions[3][100], 1);
  EXPECT_EQ(npu.regions[3][106], 13);
  EXPECT_EQ(npu.regions[3][300], 21);
  EXPECT_EQ(npu.regions[3][306], 33);
  EXPECT_EQ(npu.regions[3][200], 30);
  EXPECT_EQ(npu.regions[3][201], 0xEE);
}

TEST(VirtualNpuErrors, LutActivationDmadIntoInternalMemory) {
  // LUT slot 2 (ACTIVATION 18) in the top 2 KiB of internal memory: 24576 - 2048 + 2 * 256 = 23040.
  // Entry i = 255 - i; an int8 value v looks up entry v + 128, read as int8.
  Npu npu(512);
  for (int i = 0; i < 256; ++i) npu.regions[0][size_t(i)] = uint8_t(255 - i);
  npu.put(1, 0, {-128, 0, 5, 127});
  Encoder e;
  e.c0(Cmd0::Dma0SrcRegion, 0).c0(Cmd0::Dma0DstRegion, 0x100);
  e.c1(Cmd1::Dma0Src, 0).c1(Cmd1::Dma0Dst, 23040).c1(Cmd1::Dma0Len, 256);
  e.c0(Cmd0::OpDmaStart).c0(Cmd0::OpDmaWait);
  set_ifm(e, nhwc(1, 0, 1, 2, 2));
  set_ofm(e, nhwc(2, 0, 1, 2, 2));
  set_kernel_1x1(e);
  e.c0(Cmd0::Activation, 16 + 2);
  set_clamp(e, -128, 125);
  e.c0(Cmd0::OpPool, uint16_t(PoolOp::Average)).stop();
  const Status s = npu.run(e);
  ASSERT_TRUE(s.is_ok()) << s.message();
  // -128 -> entry 0 = 255 -> -1; 0 -> entry 128 = 127 -> clamp 125; 5 -> entry 133 = 122;
  // 127 -> entry 255 = 0.
  EXPECT_EQ(npu.s8(2, 0), -1);
  EXPECT_EQ(npu.s8(2, 1), 125);
  EXPECT_EQ(npu.s8(2, 2), 122);
  EXPECT_EQ(npu.s8(2, 3), 0);
  EXPECT_EQ(npu.counters.dma_transfers, 1u);
  EXPECT_EQ(npu.counters.dma_bytes, 256u);
}

}  // namespace
}  // namespace vkrt::ethosu::virtual_npu
