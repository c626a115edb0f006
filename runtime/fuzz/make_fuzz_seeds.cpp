// make_fuzz_seeds <repo root>: writes the seed corpus kept in the repository for every fuzz target
// (<part>/fuzz/corpus/<target>/seed-*), built with the project's own writers: the sample programs,
// an Ethos-U program and Vela payloads (tests/ethosu/test_payloads.h), a VgfBackend program with a
// one-op TOSA graph, cortex_m one-op programs, .npy inputs, both Vulkan cache files and hand-built
// command streams for the virtual NPU. Built in the fuzz build (scripts/run-fuzzers.sh); rerun it
// when a format changes, then `scripts/run-fuzzers.sh --merge` grows the corpus from these seeds.
//
// make_fuzz_seeds --vela-streams <dir> <out dir>: writes a virtual_npu_fuzzer input for the command
// stream (with its flash and scratch sizes) of every Vela-compiled *_vela.tflite under <dir>
// (../shared/conformance/ethos-u/tflite); run-fuzzers.sh seeds its runs with them, outside the
// repository (conformance files must not enter it).
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "dscnn_program.h"
#include "sample_programs.h"
#include "vkrt/etdump.h"
#include "vkrt/pte_writer.h"
#ifdef VKRT_SEEDS_ETHOSU
#include "tests/ethosu/test_payloads.h"
#endif
#ifdef VKRT_SEEDS_VGF
#include "vgf/graph_vgf_writer.h"
#endif
#ifdef VKRT_SEEDS_VIRTUAL_NPU
#include "ethosu/fuzz/virtual_npu_fuzz_input.h"
#include "ethosu/tflite/tflite_model.h"
#include "ethosu/tflite/vela_tflite_runner.h"
#include "ethosu/virtual/npu_registers.h"
#endif
#ifdef VKRT_SEEDS_VGF_GRAPHS
#include "mobilenet_v2_graph.h"
#endif
#ifdef VKRT_SEEDS_VULKAN_CACHE
#include "vgf/vulkan/cache_file.h"
#include "vgf/vulkan/fuzz/fuzz_device.h"
#endif

namespace {
using namespace vkrt;
namespace fs = std::filesystem;

int failures = 0;

void write_seed(const fs::path& dir, const std::string& name, const Result<std::vector<uint8_t>>& bytes) {
  if (!bytes.ok()) {
    std::fprintf(stderr, "error: %s: %s\n", name.c_str(), bytes.status().to_string().c_str());
    ++failures;
    return;
  }
  fs::create_directories(dir);
  const Status s = write_bytes_to_file((dir / ("seed-" + name)).string(), *bytes);
  if (!s.is_ok()) {
    std::fprintf(stderr, "error: %s\n", s.to_string().c_str());
    ++failures;
  }
}

std::vector<uint8_t> concat(std::vector<uint8_t> a, std::string_view b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// An .npy file (format 1.0) for input_fuzzer: its two selector bytes (dtype, shape) first.
std::vector<uint8_t> npy_seed(ScalarType dtype, uint8_t shape, const std::string& descr, const std::string& dims,
                              std::string_view data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + dims + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string file = "\x93NUMPY";
  file += char(1);
  file += char(0);
  file += char(header.size() & 0xFF);
  file += char(header.size() >> 8);
  file += header;
  file.append(data);
  return concat({uint8_t(dtype), shape}, file);
}

Result<std::vector<uint8_t>> one_delegate_program(const std::string& backend, std::vector<uint8_t> payload,
                                                  std::vector<std::pair<ScalarType, std::vector<int32_t>>> inputs,
                                                  std::vector<std::pair<ScalarType, std::vector<int32_t>>> outputs) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<int32_t> in, out;
  for (auto& [t, s] : inputs) in.push_back(m.add_planned_tensor(t, s));
  for (auto& [t, s] : outputs) out.push_back(m.add_planned_tensor(t, s));
  std::vector<int32_t> args = in;
  args.insert(args.end(), out.begin(), out.end());
  m.add_delegate_call(m.add_delegate(backend, std::move(payload)), args);
  m.set_inputs(in).set_outputs(out);
  return program.build();
}

// An ETDump with a load run and an execute run holding every kind of event: profile (with a
// delegate id and metadata), allocation, and debug (a tensor, a tensor list).
std::vector<uint8_t> etdump_seed() {
  EtdumpWriter w(/*log_values=*/true);
  w.begin_run("Default");
  w.allocation_event(w.track_allocator("planned_memory"), 64);
  w.profile_event(runtime_event("Program::load_method", -1, 0, 10, 20));
  w.set_bundled_input_index(1);
  w.begin_run("Execute");
  float data[6] = {1, 2, 3, 4, 5, 6};
  const int32_t sizes[] = {2, 3};
  Tensor t = *Tensor::make(ScalarType::Float, sizes, data);
  EValue v = EValue::from_tensor(&t);
  EValue* items[] = {&v, &v};
  w.profile_event(runtime_event("native_call_add.out", 0, 0, 30, 40));
  w.debug_event("native_call_add.out", 0, 0, v);
  w.debug_event("DELEGATE_CALL", 0, 1, EValue::from_tensor_list(items));
  ProfileEventInfo step = runtime_event({}, 0, 1, 50, 60);
  step.delegate_debug_id_str = "VGF_COPY_INPUTS";
  const uint8_t metadata[] = {'c', '=', '1'};
  step.delegate_debug_metadata = metadata;
  w.profile_event(step);
  w.profile_event(runtime_event("Method::execute", -1, 0, 25, 70));
  return w.serialize();
}


#ifdef VKRT_SEEDS_VIRTUAL_NPU
namespace npu {
using namespace vkrt::ethosu;
using namespace vkrt::ethosu::virtual_npu;
using fuzzing::StreamWriter;

uint16_t op(Cmd0 c) { return uint16_t(c); }
uint16_t op(Cmd1 c) { return uint16_t(c); }

// A one-tile NHWC (or NHCWB16: precision bit 6, strides given) feature map's registers. `role` 0 IFM,
// 1 IFM2, 2 OFM.
struct Fm {
  int region = 1;
  uint64_t base = 0;
  int h = 1, w = 1, d = 1;
  uint16_t precision = 1;  // signed int8
  int16_t zero_point = 0;
  int64_t sy = 0, sx = 0, sc = 0;  // 0: packed NHWC
  std::array<uint64_t, 3> tile_base{};  // BASE1..3
  int h0 = 0, h1 = 0, w0 = 0;           // 0: one tile
};

void set_fm(StreamWriter& s, int role, Fm f) {
  if (f.sc == 0) f.sc = 1, f.sx = f.d, f.sy = int64_t(f.w) * f.d;
  const uint16_t c0 = role == 0 ? 0x100 : role == 1 ? 0x180 : 0x110;  // IFM/IFM2/OFM register block
  const uint16_t c1 = role == 0 ? 0x000 : role == 1 ? 0x080 : 0x010;
  s.c0(uint16_t(c0 + 0x0F), uint16_t(f.region));
  s.c1(c1, f.base).c1(uint16_t(c1 + 1), f.tile_base[0]).c1(uint16_t(c1 + 2), f.tile_base[1]);
  s.c1(uint16_t(c1 + 3), f.tile_base[2]);
  s.c1(uint16_t(c1 + 4), uint64_t(f.sx)).c1(uint16_t(c1 + 5), uint64_t(f.sy)).c1(uint16_t(c1 + 6), uint64_t(f.sc));
  s.c0(uint16_t(c0 + 0x0A), uint16_t((f.w0 ? f.w0 : f.w) - 1));
  s.c0(uint16_t(c0 + 0x0B), uint16_t((f.h0 ? f.h0 : f.h) - 1));
  s.c0(uint16_t(c0 + 0x0C), uint16_t((f.h1 ? f.h1 : f.h) - 1));
  if (role == 2) {
    s.c0(op(Cmd0::OfmWidthM1), uint16_t(f.w - 1)).c0(op(Cmd0::OfmHeightM1), uint16_t(f.h - 1));
    s.c0(op(Cmd0::OfmDepthM1), uint16_t(f.d - 1)).c0(op(Cmd0::OfmPrecision), f.precision);
    s.c0(op(Cmd0::OfmZeroPoint), uint16_t(f.zero_point));
  } else {
    if (role == 0) s.c0(op(Cmd0::IfmDepthM1), uint16_t(f.d - 1));
    s.c0(uint16_t(c0 + 0x05), f.precision).c0(uint16_t(c0 + 0x09), uint16_t(f.zero_point));
  }
}

void kernel(StreamWriter& s, int kw, int kh, uint16_t stride, int pad_top, int pad_left, int pad_bottom, int pad_right) {
  s.c0(op(Cmd0::KernelWidthM1), uint16_t(kw - 1)).c0(op(Cmd0::KernelHeightM1), uint16_t(kh - 1));
  s.c0(op(Cmd0::KernelStride), stride);
  s.c0(op(Cmd0::IfmPadTop), uint16_t(pad_top)).c0(op(Cmd0::IfmPadLeft), uint16_t(pad_left));
  s.c0(op(Cmd0::IfmPadBottom), uint16_t(pad_bottom)).c0(op(Cmd0::IfmPadRight), uint16_t(pad_right));
}

void activation(StreamWriter& s, uint16_t function, int16_t lo, int16_t hi) {
  s.c0(op(Cmd0::Activation), function);
  s.c0(op(Cmd0::ActivationMin), uint16_t(lo)).c0(op(Cmd0::ActivationMax), uint16_t(hi));
}

void scale(StreamWriter& s, Cmd1 r, uint32_t multiplier, int shift) { s.c1(op(r), multiplier, uint16_t(shift)); }

void stop(StreamWriter& s) { s.c0(op(Cmd0::OpStop), 0xFFFF); }

// An MLW stream of `values` (uncompressed 9-bit direct values, one slice, no zero runs), padded to
// 16 bytes with end-of-stream markers.
std::vector<uint8_t> weight_stream(const std::vector<int>& values) {
  std::vector<uint8_t> out;
  size_t pos = 0;
  auto put = [&](uint32_t v, int bits) {
    for (int i = 0; i < bits; ++i, ++pos) {
      if (pos % 8 == 0) out.push_back(0);
      out.back() |= uint8_t(((v >> i) & 1) << (pos % 8));
    }
  };
  put(6, 3);
  put(uint32_t(values.size() - 1), 15);
  put(7, 3);
  put(0, 1);
  put(1, 1);
  put(0, 5);
  put(0, 5);
  put(7, 3);
  for (int v : values) put(uint32_t(v < 0 ? (-v) << 1 | 1 : v << 1), 9);
  put(7, 3);
  out.resize((out.size() + 15) / 16 * 16, 0xFF);
  return out;
}

// The scale/bias record of one channel: bias int40, scale uint32, shift.
void scale_record(std::vector<uint8_t>& out, int64_t bias, uint32_t scale, int shift) {
  for (int i = 0; i < 5; ++i) out.push_back(uint8_t(uint64_t(bias) >> (8 * i)));
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(scale >> (8 * i)));
  out.push_back(uint8_t(shift));
}

int64_t value_count(NpuProduct product, int macs, int ofm, int ifm, int kh, int kw, bool depthwise, int block) {
  WeightStreamLayout l;
  l.product = product;
  l.macs = macs;
  l.ofm_depth = ofm;
  l.ifm_depth = ifm;
  l.kernel_height = kh;
  l.kernel_width = kw;
  l.depthwise = depthwise;
  l.ofm_block_depth = block;
  auto n = weight_stream_value_count(l);
  return n.ok() ? *n : 1;
}

std::optional<std::vector<uint8_t>> input(uint8_t arch, std::array<size_t, 4> regions, std::array<uint8_t, 4> layout,
                                          const StreamWriter& s, const std::vector<uint8_t>& flash = {},
                                          uint32_t weights_offset = 0) {
  return fuzzing::write_virtual_npu_input(arch, 0x5A, regions, layout, s.bytes(), flash, weights_offset);
}

// Hand-built streams: each operation kind with real-looking registers (arch bytes: 0 U55-128,
// 1 U65-256, 2 U55-32, 4 U55-256, 5 U65-512, 7 U85-256).
std::vector<std::pair<std::string, std::optional<std::vector<uint8_t>>>> seeds() {
  std::vector<std::pair<std::string, std::optional<std::vector<uint8_t>>>> out;
  {  // ADD of two 1x2x2 maps, then MUL by a scalar, SHR, CLZ and ABS, MAX with broadcast.
    StreamWriter s;
    set_fm(s, 0, {.region = 1, .base = 0, .h = 1, .w = 2, .d = 2, .zero_point = 3});
    set_fm(s, 1, {.region = 1, .base = 16, .h = 1, .w = 2, .d = 2, .zero_point = -2});
    set_fm(s, 2, {.region = 2, .base = 0, .h = 1, .w = 2, .d = 2, .zero_point = 5});
    scale(s, Cmd1::OpaScale, 1, 0);
    scale(s, Cmd1::OpbScale, 1, 0);
    scale(s, Cmd1::OfmScale, 1, 0);
    activation(s, 0, -100, 50);
    s.c0(op(Cmd0::OpElementwise), uint16_t(ElementwiseOp::Add));
    s.c0(op(Cmd0::Ifm2Broadcast), 0x80).c0(op(Cmd0::Ifm2Scalar), 3);
    scale(s, Cmd1::OfmScale, 1073741824, 31);
    s.c0(op(Cmd0::OpElementwise), uint16_t(ElementwiseOp::Mul));
    s.c0(op(Cmd0::OpElementwise), uint16_t(ElementwiseOp::Shr));
    s.c0(op(Cmd0::OpElementwise), uint16_t(ElementwiseOp::Clz));
    s.c0(op(Cmd0::OpElementwise), uint16_t(ElementwiseOp::Abs));
    s.c0(op(Cmd0::Ifm2Broadcast), 0x07);
    s.c0(op(Cmd0::OpElementwise), uint16_t(ElementwiseOp::Max));
    stop(s);
    out.emplace_back("elementwise_u55_128.vnpu", input(0, {64, 64, 64, 0}, {}, s));
  }
  {  // A LUT DMA'd from the flash into internal memory (slot 1 of a U65-256's 48 KiB), then a 1x1
     // average pool with OFM_SCALE through it, and a 2x2 max pool with padding.
    StreamWriter s;
    s.c0(op(Cmd0::Dma0SrcRegion), 0).c0(op(Cmd0::Dma0DstRegion), 0x100);
    s.c1(op(Cmd1::Dma0Src), 0).c1(op(Cmd1::Dma0Dst), 48 * 1024 - 2048 + 256).c1(op(Cmd1::Dma0Len), 256);
    s.c0(op(Cmd0::OpDmaStart)).c0(op(Cmd0::OpDmaWait));
    set_fm(s, 0, {.region = 1, .base = 0, .h = 2, .w = 2, .d = 1});
    set_fm(s, 2, {.region = 2, .base = 0, .h = 2, .w = 2, .d = 1, .precision = 1 | (1 << 8), .zero_point = -3});
    kernel(s, 1, 1, 0, 0, 0, 0, 0);
    scale(s, Cmd1::OfmScale, 3, 1);
    activation(s, 17, -128, 127);
    s.c0(op(Cmd0::OpKernelWait)).c0(op(Cmd0::OpPool), uint16_t(PoolOp::Average));
    set_fm(s, 2, {.region = 2, .base = 16, .h = 2, .w = 2, .d = 1});
    kernel(s, 2, 2, 0, 1, 1, 0, 0);
    activation(s, 0, -128, 127);
    s.c0(op(Cmd0::OpPool), uint16_t(PoolOp::Max));
    set_fm(s, 2, {.region = 2, .base = 32, .h = 1, .w = 1, .d = 1, .precision = 1 | (2 << 1)});
    kernel(s, 1, 1, 0, 0, 0, 0, 0);
    s.c0(op(Cmd0::OpPool), uint16_t(PoolOp::ReduceSum));
    stop(s);
    std::vector<uint8_t> lut(256);
    for (int i = 0; i < 256; ++i) lut[size_t(i)] = uint8_t(255 - i);
    out.emplace_back("pool_lut_u65_256.vnpu", input(1, {256, 64, 64, 0}, {}, s, lut));
  }
  {  // 1x1 CONV, 2 -> 2 channels, per-channel scales, on a U55-128; the flash holds the weight stream
     // (uniform weights 2) and the scales; the layout bytes describe the same stream.
    const int64_t n = value_count(NpuProduct::U55, 128, 2, 2, 1, 1, false, 8);
    std::vector<uint8_t> flash;  // the scales at 0 (padded to 32 bytes), the weights at 32
    const size_t scales_at = 0, weights_at = 32;
    scale_record(flash, 10, 1, 0);
    scale_record(flash, -5, 3, 1);
    flash.resize(weights_at, 0);
    const std::vector<uint8_t> weights = weight_stream(std::vector<int>(size_t(n), 2));
    flash.insert(flash.end(), weights.begin(), weights.end());
    StreamWriter s;
    set_fm(s, 0, {.region = 1, .base = 0, .h = 1, .w = 2, .d = 2});
    set_fm(s, 2, {.region = 2, .base = 0, .h = 1, .w = 2, .d = 2, .zero_point = 1});
    kernel(s, 1, 1, 0, 0, 0, 0, 0);
    s.c0(op(Cmd0::OfmBlkDepthM1), 7);
    s.c0(op(Cmd0::WeightRegion), 0).c1(op(Cmd1::WeightBase), weights_at).c1(op(Cmd1::WeightLength), weights.size());
    s.c0(op(Cmd0::ScaleRegion), 0).c1(op(Cmd1::ScaleBase), scales_at).c1(op(Cmd1::ScaleLength), 20);
    activation(s, 0, -128, 127);
    s.c0(op(Cmd0::OpConv));
    stop(s);
    out.emplace_back("conv_u55_128.vnpu", input(0, {flash.size(), 64, 64, 0}, {1, 1, 0, 0}, s, flash, weights_at));
  }
  {  // 3x3 DEPTHWISE with stride 2 and padding, 4 channels, on a U55-32 (4-deep OFM micro-blocks).
    const int64_t n = value_count(NpuProduct::U55, 32, 4, 1, 3, 3, true, 8);
    std::vector<int> values(static_cast<size_t>(n));
    for (size_t i = 0; i < values.size(); ++i) values[i] = int(i % 7) - 3;
    std::vector<uint8_t> flash;  // the scales at 0 (padded to 48 bytes), the weights at 48
    const size_t scales_at = 0, weights_at = 48;
    for (int c = 0; c < 4; ++c) scale_record(flash, c * 100, 1518500250, 35);
    flash.resize(weights_at, 0);
    const std::vector<uint8_t> weights = weight_stream(values);
    flash.insert(flash.end(), weights.begin(), weights.end());
    StreamWriter s;
    set_fm(s, 0, {.region = 1, .base = 0, .h = 4, .w = 4, .d = 4, .zero_point = -1});
    set_fm(s, 2, {.region = 2, .base = 0, .h = 2, .w = 2, .d = 4});
    kernel(s, 3, 3, 0x3, 1, 1, 0, 0);
    s.c0(op(Cmd0::OfmBlkDepthM1), 7);
    s.c0(op(Cmd0::WeightRegion), 0).c1(op(Cmd1::WeightBase), weights_at).c1(op(Cmd1::WeightLength), weights.size());
    s.c0(op(Cmd0::ScaleRegion), 0).c1(op(Cmd1::ScaleBase), scales_at).c1(op(Cmd1::ScaleLength), 48);
    activation(s, 0, -128, 127);
    s.c0(op(Cmd0::OpDepthwise));
    stop(s);
    out.emplace_back("depthwise_u55_32.vnpu",
                     input(2, {flash.size() + 16, 64, 64, 0}, {3, 0, 0x22, 1}, s, flash, weights_at));
  }
  {  // A 1x2x20 map copied into NHCWB16 and a 4x4 map read from four tiles, on a U55-256.
    StreamWriter s;
    set_fm(s, 0, {.region = 1, .base = 0, .h = 1, .w = 2, .d = 20});
    set_fm(s, 2, {.region = 2, .base = 0, .h = 1, .w = 2, .d = 20, .precision = 1 | (1 << 6), .sy = 64, .sx = 16, .sc = 32});
    kernel(s, 1, 1, 0, 0, 0, 0, 0);
    activation(s, 0, -128, 127);
    s.c0(op(Cmd0::OpPool), uint16_t(PoolOp::Average));
    set_fm(s, 0, {.region = 1, .base = 0, .h = 4, .w = 4, .d = 1, .sy = 4, .sx = 1, .sc = 1,
                  .tile_base = {100, 200, 300}, .h0 = 2, .h1 = 1, .w0 = 3});
    set_fm(s, 2, {.region = 3, .base = 0, .h = 4, .w = 4, .d = 1});
    s.c0(op(Cmd0::OpPool), uint16_t(PoolOp::Average));
    stop(s);
    out.emplace_back("layouts_u55_256.vnpu", input(4, {16, 512, 128, 64}, {}, s));
  }
  {  // LEAKY_RELU and SUB with OPA scaling (IFM_PRECISION bits 8-9) on a U65-512.
    StreamWriter s;
    set_fm(s, 0, {.region = 1, .base = 0, .h = 2, .w = 2, .d = 3, .precision = 1 | (1 << 8)});
    set_fm(s, 1, {.region = 1, .base = 32, .h = 2, .w = 2, .d = 3});
    set_fm(s, 2, {.region = 2, .base = 0, .h = 2, .w = 2, .d = 3});
    scale(s, Cmd1::OpaScale, 1073741824, 1);
    scale(s, Cmd1::OpbScale, 1, 0);
    scale(s, Cmd1::OfmScale, 1073741824, 30);
    activation(s, 0, -128, 127);
    s.c0(op(Cmd0::OpElementwise), uint16_t(ElementwiseOp::Sub));
    s.c0(op(Cmd0::OpElementwise), uint16_t(ElementwiseOp::LeakyRelu));
    stop(s);
    out.emplace_back("elementwise_u65_512.vnpu", input(5, {16, 64, 64, 0}, {15, 7, 0x11, 0x20}, s));
  }
  {  // A U85 stream: refused.
    StreamWriter s;
    stop(s);
    out.emplace_back("u85_refused.vnpu", input(7, {16, 16, 0, 0}, {}, s));
  }
  return out;
}

// --vela-streams: one input per Vela model under `dir`.
int vela_stream_seeds(const fs::path& dir, const fs::path& out_dir) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  int written = 0;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path p = it->path();
    if (!it->is_regular_file() || !p.filename().string().ends_with("_vela.tflite")) continue;
    auto model = ethosu::tflite::load_tflite_file(p.string());
    if (!model.ok()) continue;
    auto program = ethosu::tflite::read_vela_npu_program(*model);
    if (!program.ok() || !program->payload.has_arch) continue;
    const auto arch = fuzzing::arch_byte_for(program->payload.arch.config_register);
    if (!arch) continue;
    auto bytes = fuzzing::write_virtual_npu_input(
        *arch, 0, {program->flash.size(), program->scratch_bytes, program->fast_scratch_bytes, 0}, {},
        program->payload.command_stream, program->flash);
    if (!bytes) continue;
    const std::string name = "conformance-" + p.parent_path().filename().string() + "-" + p.stem().string() + ".vnpu";
    if (write_bytes_to_file((out_dir / name).string(), *bytes).is_ok()) ++written;
  }
  std::printf("make_fuzz_seeds: %d virtual_npu_fuzzer inputs from %s\n", written, dir.string().c_str());
  return 0;
}

}  // namespace npu
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--vela-streams") == 0) {
#ifdef VKRT_SEEDS_VIRTUAL_NPU
    return npu::vela_stream_seeds(argv[2], argv[3]);
#else
    std::fprintf(stderr, "%s: built without the Ethos-U TFLite reader\n", argv[0]);
    return 2;
#endif
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <repository root> | --vela-streams <dir> <out dir>\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  const fs::path programs = root / "runtime/fuzz/corpus/program_fuzzer";
  for (const auto& sample : samples::all_samples()) {
    if (sample.name.ends_with(".ptd")) write_seed(root / "runtime/fuzz/corpus/ptd_fuzzer", sample.name, sample.build());
    else write_seed(programs, sample.name, sample.build());
  }
  write_seed(root / "runtime/fuzz/corpus/etdump_fuzzer", "every_event.etdp", etdump_seed());

  // cortex_m kernels with program-given arguments.
  const ScalarType F = ScalarType::Float, I8 = ScalarType::Char;
  write_seed(programs, "cortex_m_quantize.pte",
             make_one_op_program("cortex_m::quantize_per_tensor.out",
                                 {OpArg::input(F, {2, 3}), OpArg::real(0.05), OpArg::integer(3), OpArg::integer(-128),
                                  OpArg::integer(127), OpArg::integer(int64_t(I8)), OpArg::output(I8, {2, 3})}));
  write_seed(programs, "cortex_m_dequantize.pte",
             make_one_op_program("cortex_m::dequantize_per_tensor.out",
                                 {OpArg::input(I8, {2, 3}), OpArg::real(0.05), OpArg::integer(3), OpArg::integer(-128),
                                  OpArg::integer(127), OpArg::integer(int64_t(I8)), OpArg::output(F, {2, 3})}));

  // Inputs: float (2,3) .npy, a raw int8 (4,) file, a 0-d bool .npy.
  const fs::path inputs = root / "executor_runner/fuzz/corpus/input_fuzzer";
  write_seed(inputs, "float_2x3.npy", npy_seed(F, 0x02 | (1 << 2) | (2 << 4), "<f4", "(2, 3)", std::string(24, '\0')));
  write_seed(inputs, "int8_4.raw", std::vector<uint8_t>{uint8_t(I8), 0x01 | (3 << 2), 1, 2, 3, 4});
  write_seed(inputs, "bool_scalar.npy", npy_seed(ScalarType::Bool, 0x80, "|b1", "()", std::string(1, '\1')));

#ifdef VKRT_SEEDS_ETHOSU
  using namespace vkrt::ethosu;
  const fs::path ethosu = root / "ethosu/fuzz/corpus/ethosu_fuzzer";
  auto six = testing::sample_contents(), four = testing::sample_contents(VelaIoLayout::Shape4D);
  auto legacy = testing::sample_contents();
  legacy.legacy_scratch_data = true;
  write_seed(ethosu, "cop1_6d.vela", write_vela_bin_stream(six));
  write_seed(ethosu, "cop1_4d.vela", write_vela_bin_stream(four));
  write_seed(ethosu, "cop1_legacy_scratch.vela", write_vela_bin_stream(legacy));
  write_seed(ethosu, "cop2_separate_io.vela", write_vela_bin_stream(testing::sample_contents_separate_io()));
  write_seed(ethosu, "cop1.cmd_data", six.cmd_data);
  write_seed(ethosu, "cop2.cmd_data", testing::sample_contents_separate_io().cmd_data);
  write_seed(programs, "ethosu_delegate.pte",
             one_delegate_program("EthosUBackend", write_vela_bin_stream(six),
                                  {{I8, {2, 3}}, {ScalarType::Short, {4}}}, {{I8, {2, 3}}}));
#endif
#ifdef VKRT_SEEDS_VIRTUAL_NPU
  for (auto& [name, bytes] : npu::seeds()) {
    if (bytes) write_seed(root / "ethosu/fuzz/corpus/virtual_npu_fuzzer", name, *bytes);
    else write_seed(root / "ethosu/fuzz/corpus/virtual_npu_fuzzer", name, Status(Error::Internal, "not encodable"));
  }
#endif
#ifdef VKRT_SEEDS_VGF
  {  // VgfBackend: int8 (1,4) -> CLAMP -> int8 (1,4).
    using namespace vkrt::vgf;
    Graph g;
    g.name = "clamp";
    auto tensor = [&g](const char* name) {
      TensorInfo info;
      info.name = name;
      info.dtype = DType::Int8;
      info.shape = {1, 4};
      return g.add_tensor(std::move(info));
    };
    const TensorId x = tensor("x"), y = tensor("y");
    g.inputs.push_back({x, "x", 0, 0});
    ClampAttr clamp;
    clamp.min_int = clamp.min_fp = -10;
    clamp.max_int = clamp.max_fp = 10;
    g.ops.push_back(Op{OpKind::CLAMP, {x}, {y}, clamp, "clamp"});
    g.outputs.push_back({y, "y", 1, 0});
    auto vgf = write_graph_vgf(g);
    if (vgf.ok())
      write_seed(programs, "vgf_delegate.pte", one_delegate_program("VgfBackend", *vgf, {{I8, {1, 4}}}, {{I8, {1, 4}}}));
    else
      write_seed(programs, "vgf_delegate.pte", vgf.status());
    write_seed(root / "vgf/fuzz/corpus/vgf_fuzzer", "clamp.vgf", vgf);
  }
#endif
#ifdef VKRT_SEEDS_VGF_GRAPHS
  // vgf_fuzzer: the recipe samples' small CNN in every precision (convolutions, RESCALE with
  // int32 and int48 inputs, CLAMP, ADD, AVG_POOL2D, RESHAPE; a few KB each).
  for (samples::Precision p : {samples::Precision::Int8, samples::Precision::A16W8, samples::Precision::Fp32})
    write_seed(root / "vgf/fuzz/corpus/vgf_fuzzer", std::string("small_cnn_") + samples::precision_name(p) + ".vgf",
               vgf::write_graph_vgf(samples::build_small_cnn(p)));
#endif
  // program_fuzzer: the Cortex-M recipe sample (every cortex_m conv-like kernel's arguments).
  write_seed(programs, "dscnn_int8_cortex_m.pte", samples::dscnn_int8_program());
#ifdef VKRT_SEEDS_VULKAN_CACHE
  {
    using namespace vkrt::vulkan;
    const fs::path caches = root / "vgf/vulkan/fuzz/corpus/vulkan_cache_fuzzer";
    const DeviceInfo device = vulkan::fuzzing::fuzz_device();
    // A driver payload: VkPipelineCacheHeaderVersionOne for the device, then 16 bytes of "data".
    std::vector<uint8_t> payload(16 + VK_UUID_SIZE + 16, 0);
    const uint32_t fields[4] = {16 + VK_UUID_SIZE, VK_PIPELINE_CACHE_HEADER_VERSION_ONE, device.vendor_id,
                                device.device_id};
    std::memcpy(payload.data(), fields, sizeof(fields));
    std::memcpy(payload.data() + 16, device.pipeline_cache_uuid.data(), VK_UUID_SIZE);
    write_seed(caches, "pipelines.bin", encode_cache_file(payload, device));
    // A chain file: source text and a SPIR-V header's words.
    const uint32_t words[5] = {0x07230203, 0x00010000, 0, 1, 0};
    write_seed(caches, "chain.spv", encode_chain_cache_file("void main() {}\n", words));
  }
#endif
  return failures ? 1 : 0;
}
