// SPIR-V graph writer/reader round trips, the VGF packing of a graph, and the TOSA operand
// table against the Khronos grammar file.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "common/conformance.h"
#include "vgf/cpu/cpu_executor.h"
#include "vgf/format/vgf_file.h"
#include "vgf/graph_vgf_writer.h"
#include "vgf/ir/shape_inference.h"
#include "vgf/segment_graph.h"
#include "vgf/spirv/spirv_graph_reader.h"
#include "vgf/spirv/spirv_graph_writer.h"
#include "vgf/spirv/tosa_operands.h"

namespace vkrt::vgf {
namespace {

TensorId add(Graph& g, DType t, std::vector<int64_t> shape, std::string name) {
  TensorInfo info;
  info.name = std::move(name);
  info.dtype = t;
  info.shape = std::move(shape);
  return g.add_tensor(std::move(info));
}

template <typename T>
TensorId add_const(Graph& g, DType t, std::vector<int64_t> shape, const std::vector<T>& values,
                   std::string name) {
  TensorId id = add(g, t, std::move(shape), std::move(name));
  g.tensors[id].is_constant = true;
  g.tensors[id].owned.resize(values.size() * sizeof(T));
  std::memcpy(g.tensors[id].owned.data(), values.data(), g.tensors[id].owned.size());
  return id;
}

// An int8 network with most op families the readers handle:
// x[1,6,6,2] -> CONV2D(3x3, pad 1) -> RESCALE -> CLAMP -> MAX_POOL2D(2x2/2) -> TABLE
//   -> RESHAPE[1,18] -> CONCAT(axis 1, with itself) -> ... and ADD/MUL on int32.
Graph sample_graph() {
  Graph g;
  g.name = "sample";
  TensorId x = add(g, DType::Int8, {1, 6, 6, 2}, "x");
  g.inputs.push_back({x, "x", 0, 0});
  std::vector<int8_t> w(3 * 3 * 3 * 2);
  for (size_t i = 0; i < w.size(); ++i) w[i] = int8_t(int(i * 37 % 255) - 127);
  TensorId wt = add_const(g, DType::Int8, {3, 3, 3, 2}, w, "w");
  TensorId b = add_const(g, DType::Int32, {3}, std::vector<int32_t>{100, -200, 3000}, "b");
  TensorId acc = add(g, DType::Int32, {1, 6, 6, 3}, "acc");
  ConvAttr ca;
  ca.pad = {1, 1, 1, 1, 0, 0};
  ca.input_zp = -5;
  g.ops.push_back(Op{OpKind::CONV2D, {x, wt, b}, {acc}, ca, "conv"});
  TensorId q = add(g, DType::Int8, {1, 6, 6, 3}, "q");
  RescaleAttr ra;
  ra.scale32 = true;
  ra.rounding_mode = RoundingMode::DoubleRound;
  ra.per_channel = true;
  ra.multiplier = {1073741824, 1500000000, 2000000000};
  ra.shift = {38, 39, 40};
  ra.output_zp = -3;
  g.ops.push_back(Op{OpKind::RESCALE, {acc}, {q}, ra, "rescale"});
  TensorId c = add(g, DType::Int8, {1, 6, 6, 3}, "clamped");
  ClampAttr cl;
  cl.min_int = -100;
  cl.max_int = 90;
  cl.min_fp = -100;
  cl.max_fp = 90;
  g.ops.push_back(Op{OpKind::CLAMP, {q}, {c}, cl, "clamp"});
  TensorId p = add(g, DType::Int8, {1, 3, 3, 3}, "pooled");
  PoolAttr pa;
  pa.kernel = {2, 2};
  pa.stride = {2, 2};
  g.ops.push_back(Op{OpKind::MAX_POOL2D, {c}, {p}, pa, "pool"});
  TensorId t = add(g, DType::Int8, {1, 3, 3, 3}, "table");
  TableAttr ta;
  for (int i = 0; i < 256; ++i) ta.table.push_back(int16_t(int8_t(255 - i)));
  g.ops.push_back(Op{OpKind::TABLE, {p}, {t}, ta, "table"});
  TensorId r = add(g, DType::Int8, {1, 27}, "flat");
  g.ops.push_back(Op{OpKind::RESHAPE, {t}, {r}, ReshapeAttr{{1, 27}}, "reshape"});
  TensorId cat = add(g, DType::Int8, {1, 54}, "cat");
  g.ops.push_back(Op{OpKind::CONCAT, {r, r}, {cat}, AxisAttr{1, NanMode::Propagate}, "concat"});
  g.outputs.push_back({cat, "y", 1, 0});
  return g;
}

void expect_same_graph(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Op& x = a.ops[i];
    const Op& y = b.ops[i];
    EXPECT_EQ(x.kind, y.kind) << "op " << i;
    if (x.kind == OpKind::CLAMP) {
      // Float fields of integer CLAMPs carry the same bounds as doubles.
      EXPECT_EQ(std::get<ClampAttr>(x.attr).min_int, std::get<ClampAttr>(y.attr).min_int);
      EXPECT_EQ(std::get<ClampAttr>(x.attr).max_int, std::get<ClampAttr>(y.attr).max_int);
    } else {
      EXPECT_TRUE(x.attr == y.attr) << "op " << i << " (" << op_name(x.kind) << ") attributes differ";
    }
    ASSERT_EQ(x.inputs.size(), y.inputs.size());
    for (size_t k = 0; k < x.inputs.size(); ++k) {
      const TensorInfo& tx = a.tensors[x.inputs[k]];
      const TensorInfo& ty = b.tensors[y.inputs[k]];
      EXPECT_EQ(tx.dtype, ty.dtype) << "op " << i << " input " << k;
      EXPECT_EQ(tx.shape, ty.shape) << "op " << i << " input " << k;
      EXPECT_EQ(tx.is_constant, ty.is_constant);
      if (tx.is_constant && ty.is_constant) {
        auto bx = tx.constant_bytes(), by = ty.constant_bytes();
        ASSERT_EQ(bx.size(), by.size());
        EXPECT_EQ(0, std::memcmp(bx.data(), by.data(), bx.size())) << "op " << i << " input " << k;
      }
    }
    ASSERT_EQ(x.outputs.size(), y.outputs.size());
    EXPECT_EQ(a.tensors[x.outputs[0]].shape, b.tensors[y.outputs[0]].shape);
    EXPECT_EQ(a.tensors[x.outputs[0]].dtype, b.tensors[y.outputs[0]].dtype);
  }
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
}

std::vector<int8_t> run_cpu(const Graph& g, std::vector<int8_t> input, std::vector<int32_t> in_shape,
                            std::vector<int32_t> out_shape, size_t out_count) {
  auto exec = make_cpu_executor();
  Status s = exec->prepare(g, ExecutorOptions{});
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  std::vector<int8_t> out(out_count, 0);
  auto x = Tensor::make(ScalarType::Char, in_shape, input.data());
  auto y = Tensor::make(ScalarType::Char, out_shape, out.data());
  EXPECT_TRUE(x.ok() && y.ok());
  const Tensor* ins[1] = {&*x};
  Tensor* outs[1] = {&*y};
  if (s.is_ok()) {
    Status r = exec->run(ins, outs, nullptr);
    EXPECT_TRUE(r.is_ok()) << r.to_string();
  }
  return out;
}

TEST(SpirvGraph, SampleGraphRoundTripsAndRunsIdentically) {
  Graph g = sample_graph();
  ASSERT_TRUE(validate_graph(g).is_ok());
  std::vector<int8_t> input(72);
  for (size_t i = 0; i < input.size(); ++i) input[i] = int8_t(int(i * 53 % 256) - 128);
  std::vector<int8_t> direct = run_cpu(g, input, {1, 6, 6, 2}, {1, 54}, 54);
  // CONCAT of a tensor with itself: the halves agree.
  EXPECT_EQ(0, std::memcmp(direct.data(), direct.data() + 27, 27));

  for (size_t min_bytes : {size_t(0), size_t(64), size_t(1) << 30}) {
    auto bytes = write_graph_vgf(g, GraphVgfOptions{VgfVersion{0, 4, 3}, min_bytes});
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    auto file = decode_vgf(*bytes);
    ASSERT_TRUE(file.ok()) << file.status().to_string();
    auto back = build_segment_graph(*file, 0);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    expect_same_graph(g, *back);
    EXPECT_EQ(back->inputs[0].mrt_index, file->segments[0].inputs[0].mrt_index);
    EXPECT_EQ(run_cpu(*back, input, {1, 6, 6, 2}, {1, 54}, 54), direct) << "min_bytes " << min_bytes;
  }
}

TEST(SpirvGraph, EndToEndSampleSurvivesRewriting) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  auto vgf = vkrt::testing::read_file(dir + "/conv2d_rescale_qi8.vgf");
  auto in = vkrt::testing::read_file(dir + "/conv2d_rescale_qi8_input_0.bin");
  auto expected = vkrt::testing::read_file(dir + "/conv2d_rescale_qi8_expected_output_0.bin");
  auto file = decode_vgf(vgf);
  ASSERT_TRUE(file.ok());
  auto g = build_segment_graph(*file, 0);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  for (VgfVersion v : {VgfVersion{0, 4, 3}, VgfVersion{0, 3, 0}}) {
    auto bytes = write_graph_vgf(*g, GraphVgfOptions{v, 64});
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    auto f2 = decode_vgf(*bytes);
    ASSERT_TRUE(f2.ok()) << f2.status().to_string();
    EXPECT_EQ(f2->constants.size(), 2u);  // weights (128 B) and bias (64 B) as graph constants
    auto g2 = build_segment_graph(*f2, 0);
    ASSERT_TRUE(g2.ok()) << g2.status().to_string();
    expect_same_graph(*g, *g2);
    std::vector<int8_t> input(in.begin(), in.end());
    auto out = run_cpu(*g2, input, {1, 32, 32, 8}, {1, 32, 32, 16}, 16384);
    EXPECT_EQ(0, std::memcmp(out.data(), expected.data(), expected.size()));
  }
}

TEST(SpirvGraph, DynamicShapesResolveFromTheInput) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  auto vgf = vkrt::testing::read_file(dir + "/conv2d_rescale_qi8.vgf");
  auto in = vkrt::testing::read_file(dir + "/conv2d_rescale_qi8_input_0.bin");
  auto expected = vkrt::testing::read_file(dir + "/conv2d_rescale_qi8_expected_output_0.bin");
  auto file = decode_vgf(vgf);
  ASSERT_TRUE(file.ok());
  auto built = build_segment_graph(*file, 0);
  ASSERT_TRUE(built.ok());
  Graph g = *built;
  // Make every activation dynamic in N, H, W (as the converter's NSS file is, §4.1).
  for (TensorInfo& t : g.tensors) {
    if (!t.is_constant) t.shape = {kDynamicDim, kDynamicDim, kDynamicDim, t.shape[3]};
  }
  EXPECT_FALSE(graph_is_static(g));
  // The 1x1 conv is pointwise: the first two rows alone give the first two output rows.
  std::vector<int8_t> rows(in.begin(), in.begin() + 2 * 32 * 8);
  auto out = run_cpu(g, rows, {1, 2, 32, 8}, {1, 2, 32, 16}, 2 * 32 * 16);
  EXPECT_EQ(0, std::memcmp(out.data(), expected.data(), out.size()));
  // And it survives a SPIR-V round trip as ranked-unshaped tensor types.
  auto spv = spirv::write_spirv_graph(g, {});
  ASSERT_TRUE(spv.ok()) << spv.status().to_string();
  spirv::SpirvReadOptions ro;
  ro.resolve_graph_constant = [&](uint32_t id) -> Result<std::span<const uint8_t>> {
    return g.tensors[spv->graph_constants.at(id)].constant_bytes();
  };
  auto back = spirv::read_spirv_graph(spv->words, ro);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  // A SPIR-V tensor type is either fully shaped or unshaped: the known channel count is lost
  // (as in the converter's NSS file, whose activation types are all unshaped rank 4).
  EXPECT_EQ(back->tensors[back->inputs[0].tensor].shape,
            (std::vector<int64_t>{kDynamicDim, kDynamicDim, kDynamicDim, kDynamicDim}));
  auto out2 = run_cpu(*back, rows, {1, 2, 32, 8}, {1, 2, 32, 16}, 2 * 32 * 16);
  EXPECT_EQ(out2, out);
}

TEST(SpirvGraph, ReaderRejectsMalformedModules) {
  Graph g = sample_graph();
  auto spv = spirv::write_spirv_graph(g, spirv::SpirvWriteOptions{"", size_t(1) << 30});
  ASSERT_TRUE(spv.ok()) << spv.status().to_string();
  const std::vector<uint32_t>& words = spv->words;
  spirv::SpirvReadOptions ro;
  auto whole = spirv::read_spirv_graph(words, ro);
  ASSERT_TRUE(whole.ok()) << whole.status().to_string();
  // Truncations: every prefix fails cleanly.
  for (size_t n = 0; n < words.size(); n += 3) {
    std::vector<uint32_t> prefix(words.begin(), words.begin() + long(n));
    EXPECT_FALSE(spirv::read_spirv_graph(prefix, ro).ok()) << n << " words";
  }
  // Bad magic; word count 0; not word-aligned bytes; unknown entry point.
  auto bad = words;
  bad[0] = 0x12345678;
  EXPECT_EQ(spirv::read_spirv_graph(bad, ro).error(), Error::InvalidProgram);
  bad = words;
  bad[5] = 0;
  EXPECT_NE(spirv::read_spirv_graph(bad, ro).status().message().find("word count 0"), std::string::npos);
  std::vector<uint8_t> bytes(words.size() * 4 - 1);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  EXPECT_NE(spirv::read_spirv_graph_bytes(bytes, ro).status().message().find("not word-aligned"), std::string::npos);
  ro.entry_point = "nope";
  EXPECT_EQ(spirv::read_spirv_graph(words, ro).error(), Error::NotFound);
  // Graph constants without a resolver are reported, not dereferenced.
  auto with_gc = spirv::write_spirv_graph(g, spirv::SpirvWriteOptions{"", 0});
  ASSERT_TRUE(with_gc.ok());
  auto r = spirv::read_spirv_graph(with_gc->words, spirv::SpirvReadOptions{});
  EXPECT_EQ(r.error(), Error::NotFound) << r.status().to_string();
  // Random single-word corruptions never crash (ASan/UBSan builds check the rest).
  for (size_t i = 5; i < words.size(); i += 2) {
    auto copy = words;
    copy[i] ^= 0x00010001u;
    (void)spirv::read_spirv_graph(copy, spirv::SpirvReadOptions{});
  }
}

TEST(SpirvGraph, SignExtensionOfUnsignedTypedConstants) {
  // vgf-format.md §6.3: OpConstant %uchar 254 as a zero point is -2; %uint 0xFFFFFFFF is -1.
  Graph g;
  TensorId x = add(g, DType::Int8, {1, 2}, "x");
  g.inputs.push_back({x, "x", 0, 0});
  TensorId y = add(g, DType::Int8, {1, 2}, "y");
  RescaleAttr ra;
  ra.multiplier = {1 << 30};
  ra.shift = {30};
  ra.input_zp = -128;
  ra.output_zp = -2;
  g.ops.push_back(Op{OpKind::RESCALE, {x}, {y}, ra, "r"});
  g.outputs.push_back({y, "y", 1, 0});
  auto spv = spirv::write_spirv_graph(g, {});
  ASSERT_TRUE(spv.ok()) << spv.status().to_string();
  auto back = spirv::read_spirv_graph(spv->words, {});
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  const auto& rb = std::get<RescaleAttr>(back->ops[0].attr);
  EXPECT_EQ(rb.input_zp, -128);
  EXPECT_EQ(rb.output_zp, -2);
  // The same zero point read as unsigned (input_unsigned) is zero-extended: 0x80 = 128.
  g.ops[0].attr = [&] {
    RescaleAttr u = ra;
    u.input_unsigned = true;
    u.input_zp = 128;
    return u;
  }();
  auto spv2 = spirv::write_spirv_graph(g, {});
  ASSERT_TRUE(spv2.ok());
  auto back2 = spirv::read_spirv_graph(spv2->words, {});
  ASSERT_TRUE(back2.ok()) << back2.status().to_string();
  EXPECT_EQ(std::get<RescaleAttr>(back2->ops[0].attr).input_zp, 128);
}

// The op descriptors' names, opcodes and SPIR-V operand lists (vgf/ir/ops/*.cpp) against
// extinst.tosa.001000.1.grammar.json.
TEST(TosaOperands, MatchTheKhronosGrammar) {
  VKRT_REQUIRE_CONFORMANCE(path, "vgf/grammar/tosa.grammar.json");
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string json = ss.str();
  int checked = 0;
  for (int k = 0; k < kOpKindCount; ++k) {
    OpKind op = OpKind(k);
    std::string key = std::string("\"opname\": \"") + op_name(op) + "\"";
    size_t at = json.find(key);
    ASSERT_NE(at, std::string::npos) << op_name(op);
    size_t end = json.find("\"opname\"", at + key.size());
    if (end == std::string::npos) end = json.size();
    std::vector<std::string> names;
    for (size_t p = json.find("\"name\": \"", at); p < end; p = json.find("\"name\": \"", p + 1)) {
      size_t s = p + 9;
      names.push_back(json.substr(s, json.find('"', s) - s));
    }
    auto ours = spirv::tosa_operand_names(op);
    ASSERT_EQ(names.size(), ours.size()) << op_name(op);
    for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(names[i], ours[i]) << op_name(op);
    // The opcode in the grammar is our enum value.
    size_t oc = json.find("\"opcode\": ", at);
    EXPECT_EQ(std::stoi(json.substr(oc + 10)), k) << op_name(op);
    ++checked;
  }
  EXPECT_EQ(checked, 66);
}

}  // namespace
}  // namespace vkrt::vgf
