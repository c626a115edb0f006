// The TOSA reference-model examples through the .tosa reader and the CPU executor (int8 exact,
// fp32 within 1e-5 relative), .tosa files built here for the ops the examples lack (FFT2D,
// RFFT2D, CONV3D) against hand-computed values, and shape inference against hand-computed shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "common/conformance.h"
#include "tosa_generated.h"
#include "vgf/cpu/cpu_executor.h"
#include "vgf/ir/shape_inference.h"
#include "vgf/tosa_fb/tosa_reader.h"

namespace vkrt::vgf {
namespace {

// Minimal .npy reader (format 1.0/2.0, little-endian, C order) for the reference vectors.
struct Npy {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

bool read_npy(const std::string& path, Npy& out) {
  std::vector<uint8_t> b = vkrt::testing::read_file(path);
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) return false;
  size_t header_len = b[6] == 1 ? size_t(b[8] | (b[9] << 8)) : size_t(b[8] | (b[9] << 8) | (b[10] << 16) | (b[11] << 24));
  size_t start = b[6] == 1 ? 10 : 12;
  if (start + header_len > b.size()) return false;
  std::string h(b.begin() + long(start), b.begin() + long(start + header_len));
  size_t d = h.find("'descr': '");
  if (d == std::string::npos || h.find("'fortran_order': False") == std::string::npos) return false;
  out.descr = h.substr(d + 10, h.find('\'', d + 10) - d - 10);
  size_t s = h.find("'shape': (");
  if (s == std::string::npos) return false;
  std::string dims = h.substr(s + 10, h.find(')', s) - s - 10);
  out.shape.clear();
  for (size_t p = 0; p < dims.size();) {
    while (p < dims.size() && (dims[p] == ' ' || dims[p] == ',')) ++p;
    if (p >= dims.size()) break;
    out.shape.push_back(std::stoll(dims.substr(p)));
    while (p < dims.size() && dims[p] != ',') ++p;
  }
  out.data.assign(b.begin() + long(start + header_len), b.end());
  return true;
}

Status run_graph(const Graph& g, std::vector<Npy>& inputs, std::vector<std::vector<uint8_t>>& outputs) {
  auto exec = make_cpu_executor();
  VKRT_RETURN_IF_ERROR(exec->prepare(g, ExecutorOptions{}));
  std::vector<Tensor> in_t, out_t;
  in_t.reserve(inputs.size());
  out_t.reserve(g.outputs.size());
  std::vector<const Tensor*> ins;
  std::vector<Tensor*> outs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorInfo& info = g.tensors[g.inputs[i].tensor];
    std::vector<int32_t> sizes(inputs[i].shape.begin(), inputs[i].shape.end());
    VKRT_ASSIGN_OR_RETURN(Tensor t, Tensor::make(dtype_to_scalar_type(info.dtype), sizes, inputs[i].data.data()));
    in_t.push_back(t);
    ins.push_back(&in_t.back());
  }
  outputs.resize(g.outputs.size());
  for (size_t j = 0; j < g.outputs.size(); ++j) {
    const TensorInfo& info = g.tensors[g.outputs[j].tensor];
    std::vector<int32_t> sizes(info.shape.begin(), info.shape.end());
    outputs[j].assign(size_t(info.element_count()) * dtype_storage_bytes(info.dtype), 0);
    VKRT_ASSIGN_OR_RETURN(Tensor t, Tensor::make(dtype_to_scalar_type(info.dtype), sizes, outputs[j].data()));
    out_t.push_back(t);
    outs.push_back(&out_t.back());
  }
  return exec->run(ins, outs, nullptr);
}

TEST(TosaExamples, Conv2dInt8IsExact) {
  const std::string dir = "vgf/tosa/test_conv2d_1x1_1x32x32x8_qi8_st11_padSAME_dilat11";
  VKRT_REQUIRE_CONFORMANCE(root, dir);
  auto bytes = vkrt::testing::read_file(root + "/flatbuffer-tflite/test_conv2d_1x1_1x32x32x8_qi8_st11_padSAME_dilat11.tosa");
  auto g = read_tosa_graph(bytes);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  ASSERT_EQ(g->ops.size(), 2u);  // the 7 CONSTs fold into constants/attributes
  EXPECT_EQ(g->ops[0].kind, OpKind::CONV2D);
  EXPECT_EQ(g->ops[1].kind, OpKind::RESCALE);
  const auto& ra = std::get<RescaleAttr>(g->ops[1].attr);
  EXPECT_EQ(ra.output_zp, -2);  // layer_2 = INT8 0xFE
  EXPECT_EQ(ra.shift.at(0), 40);
  EXPECT_EQ(ra.rounding_mode, RoundingMode::DoubleRound);
  std::vector<Npy> in(1);
  Npy expected;
  ASSERT_TRUE(read_npy(root + "/placeholder_0.npy", in[0]));
  ASSERT_TRUE(read_npy(root + "/tflite_result.npy", expected));
  EXPECT_EQ(in[0].descr, "|i1");
  std::vector<std::vector<uint8_t>> out;
  Status s = run_graph(*g, in, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  ASSERT_EQ(out[0].size(), expected.data.size());
  size_t mismatches = 0;
  for (size_t i = 0; i < out[0].size(); ++i) mismatches += out[0][i] != expected.data[i];
  EXPECT_EQ(mismatches, 0u);
}

TEST(TosaExamples, AddFp32BroadcastWithinTolerance) {
  const std::string dir = "vgf/tosa/test_add_1x4x4x4_f32";
  VKRT_REQUIRE_CONFORMANCE(root, dir);
  auto bytes = vkrt::testing::read_file(root + "/flatbuffer-tflite/test_add_1x4x4x4_f32.tosa");
  auto g = read_tosa_graph(bytes);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  std::vector<Npy> in(2);
  Npy expected;
  ASSERT_TRUE(read_npy(root + "/placeholder_0.npy", in[0]));
  ASSERT_TRUE(read_npy(root + "/placeholder_1.npy", in[1]));
  ASSERT_TRUE(read_npy(root + "/tflite_result.npy", expected));
  EXPECT_EQ(in[0].shape, (std::vector<int64_t>{1, 4, 4, 1}));
  EXPECT_EQ(expected.descr, "<f4");
  std::vector<std::vector<uint8_t>> out;
  Status s = run_graph(*g, in, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  ASSERT_EQ(out[0].size(), expected.data.size());
  size_t n = out[0].size() / 4;
  for (size_t i = 0; i < n; ++i) {
    float got, want;
    std::memcpy(&got, out[0].data() + 4 * i, 4);
    std::memcpy(&want, expected.data.data() + 4 * i, 4);
    EXPECT_LE(std::fabs(got - want), 1e-5f * std::max(1.0f, std::fabs(want))) << "element " << i;
  }
}

// ---- .tosa files built with the generated tables: one operator, fp32 tensors.

struct TosaTensorSpec {
  std::string name;
  std::vector<int32_t> shape;
  std::vector<float> data;  // empty: not a constant
};

std::vector<uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(float));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// A .tosa file whose "main" block runs `op` (attribute `attr` of type `type`) from `inputs` to
// `outputs`; its graph inputs are the non-constant tensors of `inputs`, the others CONST outputs.
std::vector<uint8_t> one_op_tosa(tosa_fb::Op op, tosa_fb::Attribute type,
                                 const std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)>& attr,
                                 const std::vector<TosaTensorSpec>& inputs, const std::vector<TosaTensorSpec>& outputs) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<tosa_fb::TosaTensor>> tensors;
  std::vector<flatbuffers::Offset<flatbuffers::String>> op_in, op_out, block_in, block_out;
  for (const auto* list : {&inputs, &outputs}) {
    for (const TosaTensorSpec& t : *list) {
      const std::vector<uint8_t> data = bytes_of(t.data);
      tensors.push_back(tosa_fb::CreateTosaTensorDirect(fbb, t.name.c_str(), &t.shape, tosa_fb::DType::FP32,
                                                        t.data.empty() ? nullptr : &data));
    }
  }
  for (const TosaTensorSpec& t : inputs) {
    op_in.push_back(fbb.CreateString(t.name));
    if (t.data.empty()) block_in.push_back(fbb.CreateString(t.name));
  }
  for (const TosaTensorSpec& t : outputs) {
    op_out.push_back(fbb.CreateString(t.name));
    block_out.push_back(fbb.CreateString(t.name));
  }
  // Constants are CONST outputs, as the TOSA serializer writes them.
  std::vector<flatbuffers::Offset<tosa_fb::TosaOperator>> ops;
  for (const TosaTensorSpec& t : inputs) {
    if (t.data.empty()) continue;
    const std::vector<flatbuffers::Offset<flatbuffers::String>> out{fbb.CreateString(t.name)};
    ops.push_back(tosa_fb::CreateTosaOperatorDirect(fbb, tosa_fb::Op::CONST, tosa_fb::Attribute::NONE, 0, nullptr, &out));
  }
  const auto attribute = attr(fbb);
  ops.push_back(tosa_fb::CreateTosaOperatorDirect(fbb, op, type, attribute, &op_in, &op_out));
  const std::vector<flatbuffers::Offset<tosa_fb::TosaBasicBlock>> blocks{
      tosa_fb::CreateTosaBasicBlockDirect(fbb, "main", &ops, &tensors, &block_in, &block_out)};
  const std::vector<flatbuffers::Offset<tosa_fb::TosaRegion>> regions{
      tosa_fb::CreateTosaRegionDirect(fbb, "main", &blocks)};
  const auto version = tosa_fb::CreateVersion(fbb, 1, 0, 0, false);
  tosa_fb::FinishTosaGraphBuffer(fbb, tosa_fb::CreateTosaGraphDirect(fbb, version, &regions));
  return {fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize()};
}

Npy fp32_input(std::vector<int64_t> shape, const std::vector<float>& values) {
  Npy n;
  n.shape = std::move(shape);
  n.data = bytes_of(values);
  return n;
}

std::vector<float> floats_of(const std::vector<uint8_t>& bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

// The DFT of one row x = [1, 2, 3, 4] (the second row is zero, so both output rows equal it):
// X[l] = sum_n x[n] e^(-2 pi i l n / 4) = [10, -2 + 2i, -2, -2 - 2i]; the inverse sign
// (e^(+...)) conjugates it. Hand-computed, exact in fp32.
TEST(TosaReader, Fft2dForwardAndInverseRunOnTheCpu) {
  for (bool inverse : {false, true}) {
    const auto file = one_op_tosa(
        tosa_fb::Op::FFT2D, tosa_fb::Attribute::Fft2dAttribute,
        [&](flatbuffers::FlatBufferBuilder& b) { return tosa_fb::CreateFft2dAttribute(b, inverse, false).Union(); },
        {{"re", {1, 2, 4}, {}}, {"im", {1, 2, 4}, {}}}, {{"out_re", {1, 2, 4}, {}}, {"out_im", {1, 2, 4}, {}}});
    auto g = read_tosa_graph(file);
    ASSERT_TRUE(g.ok()) << g.status().to_string();
    ASSERT_EQ(g->ops.size(), 1u);
    EXPECT_EQ(g->ops[0].kind, OpKind::FFT2D);
    EXPECT_EQ(std::get<FftAttr>(g->ops[0].attr).inverse, inverse);
    std::vector<Npy> in{fp32_input({1, 2, 4}, {1, 2, 3, 4, 0, 0, 0, 0}), fp32_input({1, 2, 4}, std::vector<float>(8, 0))};
    std::vector<std::vector<uint8_t>> out;
    Status s = run_graph(*g, in, out);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    const float sign = inverse ? -1.0f : 1.0f;
    const std::vector<float> row_re{10, -2, -2, -2}, row_im{0, 2 * sign, 0, -2 * sign};
    std::vector<float> want_re = row_re, want_im = row_im;
    want_re.insert(want_re.end(), row_re.begin(), row_re.end());
    want_im.insert(want_im.end(), row_im.begin(), row_im.end());
    EXPECT_EQ(floats_of(out[0]), want_re) << "inverse " << inverse;
    EXPECT_EQ(floats_of(out[1]), want_im) << "inverse " << inverse;
  }
}

// RFFT2D of the same input: the first W/2 + 1 = 3 columns of the forward DFT.
TEST(TosaReader, Rfft2dRunsOnTheCpu) {
  const auto file = one_op_tosa(
      tosa_fb::Op::RFFT2D, tosa_fb::Attribute::Rfft2dAttribute,
      [](flatbuffers::FlatBufferBuilder& b) { return tosa_fb::CreateRfft2dAttribute(b, false).Union(); },
      {{"x", {1, 2, 4}, {}}}, {{"out_re", {1, 2, 3}, {}}, {"out_im", {1, 2, 3}, {}}});
  auto g = read_tosa_graph(file);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  EXPECT_EQ(g->ops.at(0).kind, OpKind::RFFT2D);
  std::vector<Npy> in{fp32_input({1, 2, 4}, {1, 2, 3, 4, 0, 0, 0, 0})};
  std::vector<std::vector<uint8_t>> out;
  Status s = run_graph(*g, in, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{10, -2, -2, 10, -2, -2}));
  EXPECT_EQ(floats_of(out[1]), (std::vector<float>{0, 2, 0, 0, 2, 0}));
}

// CONV3D from a .tosa file: the depth-2 kernel [1, 10] with bias 0.5 over depth [1, 2, 3]:
// y = [1 + 20 + 0.5, 2 + 30 + 0.5]; the attribute's six pads and three strides/dilations.
TEST(TosaReader, Conv3dRunsOnTheCpu) {
  const auto file = one_op_tosa(
      tosa_fb::Op::CONV3D, tosa_fb::Attribute::Conv3dAttribute,
      [](flatbuffers::FlatBufferBuilder& b) {
        const std::vector<int32_t> pad(6, 0), ones(3, 1);
        return tosa_fb::CreateConv3dAttributeDirect(b, &pad, &ones, &ones, false, tosa_fb::DType::FP32).Union();
      },
      {{"x", {1, 3, 1, 1, 1}, {}},
       {"w", {1, 2, 1, 1, 1}, {1, 10}},
       {"b", {1}, {0.5f}},
       {"x_zp", {1}, {0}},
       {"w_zp", {1}, {0}}},
      {{"y", {1, 2, 1, 1, 1}, {}}});
  auto g = read_tosa_graph(file);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  ASSERT_EQ(g->ops.size(), 1u);  // the CONSTs fold into constants
  EXPECT_EQ(g->ops[0].kind, OpKind::CONV3D);
  EXPECT_EQ(std::get<ConvAttr>(g->ops[0].attr).acc_type, AccType::Fp32);
  std::vector<Npy> in{fp32_input({1, 3, 1, 1, 1}, {1, 2, 3})};
  std::vector<std::vector<uint8_t>> out;
  Status s = run_graph(*g, in, out);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(floats_of(out[0]), (std::vector<float>{21.5f, 32.5f}));
}

TEST(TosaReader, RejectsGarbage) {
  std::vector<uint8_t> junk(64, 0xAB);
  EXPECT_EQ(read_tosa_graph(junk).error(), Error::InvalidProgram);
  std::vector<uint8_t> empty;
  EXPECT_FALSE(read_tosa_graph(empty).ok());
}

// ---- Shape inference ----

Graph one_op(OpKind kind, OpAttributes attr, std::vector<std::vector<int64_t>> in_shapes,
             DType in_dtype = DType::Int8, DType out_dtype = DType::Int32) {
  Graph g;
  Op op;
  op.kind = kind;
  op.attr = std::move(attr);
  for (size_t i = 0; i < in_shapes.size(); ++i) {
    TensorInfo t;
    t.name = "in" + std::to_string(i);
    // A convolution's bias has the output's type (TOSA: int8 input, int32 bias and output).
    const bool conv_bias = i == 2 && (kind == OpKind::CONV2D || kind == OpKind::DEPTHWISE_CONV2D ||
                                      kind == OpKind::TRANSPOSE_CONV2D || kind == OpKind::CONV3D);
    t.dtype = conv_bias ? out_dtype : in_dtype;
    t.shape = in_shapes[i];
    TensorId id = g.add_tensor(t);
    g.inputs.push_back({id, t.name, uint32_t(i), 0});
    op.inputs.push_back(id);
  }
  TensorInfo out;
  out.name = "out";
  out.dtype = out_dtype;
  out.ranked = false;
  op.outputs.push_back(g.add_tensor(out));
  g.ops.push_back(op);
  g.outputs.push_back({op.outputs[0], "out", 9, 0});
  return g;
}

TEST(ShapeInference, Conv2dStridePadDilation) {
  ConvAttr a;
  a.pad = {1, 2, 0, 1, 0, 0};
  a.stride = {2, 3, 1};
  a.dilation = {1, 2, 1};
  // OH = (10-1+1+2-(3-1)*1)/2+1 = 6; OW = (13-1+0+1-(3-1)*2)/3+1 = 4
  Graph g = one_op(OpKind::CONV2D, a, {{2, 10, 13, 4}, {7, 3, 3, 4}, {7}});
  ASSERT_TRUE(infer_static_shapes(g).is_ok());
  EXPECT_EQ(g.tensors[g.outputs[0].tensor].shape, (std::vector<int64_t>{2, 6, 4, 7}));
}

TEST(ShapeInference, InexactConvDivisionIsAnError) {
  ConvAttr a;
  a.stride = {2, 2, 1};
  Graph g = one_op(OpKind::CONV2D, a, {{1, 10, 10, 4}, {7, 2, 2, 4}, {7}});  // (10-1-1)/2 exact
  EXPECT_TRUE(infer_static_shapes(g).is_ok());
  Graph bad = one_op(OpKind::CONV2D, a, {{1, 10, 10, 4}, {7, 3, 3, 4}, {7}});  // 7/2 inexact
  Status s = infer_static_shapes(bad);
  EXPECT_EQ(s.code(), Error::InvalidProgram);
  EXPECT_NE(s.message().find("CONV2D"), std::string::npos) << s.to_string();
}

TEST(ShapeInference, DepthwiseTransposePoolResize) {
  ConvAttr d;
  Graph g1 = one_op(OpKind::DEPTHWISE_CONV2D, d, {{1, 5, 5, 3}, {3, 3, 3, 2}, {6}});
  ASSERT_TRUE(infer_static_shapes(g1).is_ok());
  EXPECT_EQ(g1.tensors[g1.outputs[0].tensor].shape, (std::vector<int64_t>{1, 3, 3, 6}));
  TransposeConvAttr t;
  t.stride = {2, 2};
  t.out_pad = {0, -1, 1, 0};
  // OH = (4-1)*2 + 0 - 1 + 3 = 8; OW = (5-1)*2 + 1 + 0 + 3 = 12
  Graph g2 = one_op(OpKind::TRANSPOSE_CONV2D, t, {{1, 4, 5, 2}, {9, 3, 3, 2}, {9}});
  ASSERT_TRUE(infer_static_shapes(g2).is_ok());
  EXPECT_EQ(g2.tensors[g2.outputs[0].tensor].shape, (std::vector<int64_t>{1, 8, 12, 9}));
  PoolAttr p;
  p.kernel = {3, 3};
  p.stride = {2, 2};
  p.pad = {1, 1, 1, 1};
  Graph g3 = one_op(OpKind::AVG_POOL2D, p, {{1, 7, 9, 5}}, DType::Int8, DType::Int8);
  ASSERT_TRUE(infer_static_shapes(g3).is_ok());
  EXPECT_EQ(g3.tensors[g3.outputs[0].tensor].shape, (std::vector<int64_t>{1, 4, 5, 5}));
  ResizeAttr r;
  r.scale = {4, 2, 4, 2};  // x2 upscale: OH = ((3-1)*4 - 0 + 2)/2 + 1 = 6
  r.border = {2, 2};
  Graph g4 = one_op(OpKind::RESIZE, r, {{1, 3, 3, 8}}, DType::Int8, DType::Int8);
  ASSERT_TRUE(infer_static_shapes(g4).is_ok());
  EXPECT_EQ(g4.tensors[g4.outputs[0].tensor].shape, (std::vector<int64_t>{1, 6, 6, 8}));
}

TEST(ShapeInference, BroadcastAndDataMovement) {
  Graph g = one_op(OpKind::ADD, NoAttr{}, {{1, 4, 1, 3}, {2, 1, 5, 3}}, DType::Int32, DType::Int32);
  ASSERT_TRUE(infer_static_shapes(g).is_ok());
  EXPECT_EQ(g.tensors[g.outputs[0].tensor].shape, (std::vector<int64_t>{2, 4, 5, 3}));
  Graph bad = one_op(OpKind::ADD, NoAttr{}, {{1, 4}, {1, 3}}, DType::Int32, DType::Int32);
  EXPECT_EQ(infer_static_shapes(bad).code(), Error::InvalidProgram);
  Graph r = one_op(OpKind::RESHAPE, ReshapeAttr{{3, -1}}, {{2, 3, 4}}, DType::Int8, DType::Int8);
  ASSERT_TRUE(infer_static_shapes(r).is_ok());
  EXPECT_EQ(r.tensors[r.outputs[0].tensor].shape, (std::vector<int64_t>{3, 8}));
  Graph t = one_op(OpKind::TRANSPOSE, TransposeAttr{{2, 0, 1}}, {{2, 3, 4}}, DType::Int8, DType::Int8);
  ASSERT_TRUE(infer_static_shapes(t).is_ok());
  EXPECT_EQ(t.tensors[t.outputs[0].tensor].shape, (std::vector<int64_t>{4, 2, 3}));
  Graph p = one_op(OpKind::PAD, PadAttr{{0, 0, 1, 2, 3, 0}, 0, 0.0}, {{2, 3, 4}}, DType::Int8, DType::Int8);
  ASSERT_TRUE(infer_static_shapes(p).is_ok());
  EXPECT_EQ(p.tensors[p.outputs[0].tensor].shape, (std::vector<int64_t>{2, 6, 7}));
  Graph c = one_op(OpKind::CONCAT, AxisAttr{1, NanMode::Propagate}, {{2, 3}, {2, 5}}, DType::Int8, DType::Int8);
  ASSERT_TRUE(infer_static_shapes(c).is_ok());
  EXPECT_EQ(c.tensors[c.outputs[0].tensor].shape, (std::vector<int64_t>{2, 8}));
  Graph a = one_op(OpKind::ARGMAX, ArgmaxAttr{1, NanMode::Propagate}, {{2, 3, 4}}, DType::Int8, DType::Int32);
  ASSERT_TRUE(infer_static_shapes(a).is_ok());
  EXPECT_EQ(a.tensors[a.outputs[0].tensor].shape, (std::vector<int64_t>{2, 4}));
  Graph s = one_op(OpKind::SLICE, SliceAttr{{0, 1}, {2, 3}}, {{2, 3}}, DType::Int8, DType::Int8);
  EXPECT_EQ(infer_static_shapes(s).code(), Error::InvalidProgram);  // 1 + 3 > 3
}

TEST(ShapeInference, DynamicDimsResolveAtExecute) {
  ConvAttr a;
  a.pad = {1, 1, 1, 1, 0, 0};
  Graph g = one_op(OpKind::CONV2D, a, {{kDynamicDim, kDynamicDim, kDynamicDim, 4}, {7, 3, 3, 4}, {7}});
  g.tensors[g.inputs[1].tensor].is_constant = false;
  ASSERT_TRUE(infer_static_shapes(g).is_ok());
  EXPECT_EQ(g.tensors[g.outputs[0].tensor].shape, (std::vector<int64_t>{kDynamicDim, kDynamicDim, kDynamicDim, 7}));
  EXPECT_FALSE(graph_is_static(g));
  std::vector<Shape> inputs = {{2, 9, 11, 4}, {7, 3, 3, 4}, {7}};
  auto shapes = infer_shapes(g, inputs);
  ASSERT_TRUE(shapes.ok()) << shapes.status().to_string();
  EXPECT_EQ((*shapes)[g.outputs[0].tensor], (Shape{2, 9, 11, 7}));
  // A bound shape that contradicts a static dimension is rejected, naming the input.
  std::vector<Shape> wrong = {{2, 9, 11, 5}, {7, 3, 3, 4}, {7}};
  auto bad = infer_shapes(g, wrong);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("input 0"), std::string::npos) << bad.status().to_string();
}

// A CONV3D graph: input [1,3,1,1,1] (depth 3), weight [1,2,1,1,1] (a depth-2 kernel), bias [1],
// output [1,2,1,1,1]; `dtype` for every tensor.
// (TosaReader.Conv3dRunsOnTheCpu runs one from a .tosa file.)
Graph conv3d_graph(DType dtype, const float weight[2], float bias) {
  Graph g;
  // Constants hold `data` for fp32, zeros otherwise.
  auto add = [&](const char* name, std::vector<int64_t> shape, bool constant, const float* data) {
    TensorInfo t;
    t.name = name;
    t.dtype = dtype;
    t.shape = std::move(shape);
    t.is_constant = constant;
    if (constant) {
      t.owned.resize(size_t(t.element_count()) * dtype_storage_bytes(dtype));
      if (dtype == DType::Fp32) std::memcpy(t.owned.data(), data, t.owned.size());
    }
    return g.add_tensor(std::move(t));
  };
  const TensorId x = add("x", {1, 3, 1, 1, 1}, false, nullptr), w = add("w", {1, 2, 1, 1, 1}, true, weight),
                 b = add("b", {1}, true, &bias), y = add("y", {1, 2, 1, 1, 1}, false, nullptr);
  g.inputs.push_back({x, "x", 0, 0});
  ConvAttr conv;
  conv.acc_type = AccType::Fp32;
  g.add_op(OpKind::CONV3D, {x, w, b}, y, conv);
  g.outputs.push_back({y, "y", 1, 0});
  return g;
}

// A valid TOSA graph the CPU kernels have no code for (fp16 CONV3D: TOSA allows it, the kernels
// compute int8, int16 and fp32) is a capability limit: NotSupported at prepare, naming the op.
TEST(CpuExecutor, UnsupportedTypesAreListedAtPrepare) {
  const float weight[2] = {0.0f, 0.0f};
  const Graph g = conv3d_graph(DType::Fp16, weight, 0.0f);
  Status valid = validate_graph(g);
  ASSERT_TRUE(valid.is_ok()) << valid.to_string();
  auto exec = make_cpu_executor();
  Status s = exec->prepare(g, ExecutorOptions{});
  EXPECT_EQ(s.code(), Error::NotSupported);
  EXPECT_NE(s.message().find("op 0 (CONV3D"), std::string::npos) << s.to_string();
  EXPECT_NE(s.message().find("input dtype fp16 not supported"), std::string::npos) << s.to_string();
}

}  // namespace
}  // namespace vkrt::vgf
