// The TFLite reader: every conformance model (source and Vela-compiled) loads with the tensors,
// quantisation, constants and operator options that were checked by hand against a JSON dump of the
// files; hand-built flatbuffers exercise the operator-code rule, external buffers and every index
// check; corrupted and truncated files give errors, never crashes.
#include <flatbuffers/flatbuffers.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/conformance.h"
#include "ethosu/tflite/tflite_model.h"
#include "tests/ethosu/conformance_models.h"

namespace vkrt::ethosu::tflite {
namespace {

constexpr const char* kModelsDir = "ethos-u/tflite/models";
constexpr const char* kVelaDir = "ethos-u/tflite/vela-u55-128";

Model load_or_fail(const std::string& path) {
  auto r = load_tflite_file(path);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return Model();
  return std::move(r).value();
}

std::vector<std::string> op_names(const Model& m) {
  std::vector<std::string> names;
  for (const auto& op : m.operators) names.push_back(op.name());
  return names;
}

int32_t read_i32(std::span<const uint8_t> data, size_t i) {
  int32_t v;
  std::memcpy(&v, data.data() + 4 * i, 4);
  return v;
}

// ---- every conformance file loads, and its indices are consistent --------------------------------

TEST(TfliteReader, EveryConformanceModelLoads) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  VKRT_REQUIRE_CONFORMANCE(vela_dir, kVelaDir);
  for (const char* name : testing::kAllModels) {
    for (bool vela : {false, true}) {
      std::string path = vela ? vela_dir + "/" + name + "_vela.tflite" : dir + "/" + name + ".tflite";
      SCOPED_TRACE(path);
      Model m = load_or_fail(path);
      EXPECT_EQ(m.version, 3u);
      EXPECT_EQ(m.subgraph_count, 1u);
      EXPECT_EQ(m.description, vela ? "Vela 3.10.0 Optimised" : "MLIR Converted.");
      ASSERT_FALSE(m.operators.empty());
      ASSERT_FALSE(m.inputs.empty());
      ASSERT_FALSE(m.outputs.empty());
      for (const auto& t : m.tensors) {
        if (t.is_constant()) {
          EXPECT_EQ(t.data.size(), t.byte_size()) << t.name;
        }
        EXPECT_EQ(t.scale.size(), t.zero_point.size()) << t.name;
      }
      for (int32_t i : m.inputs) EXPECT_FALSE(m.tensors[size_t(i)].is_constant());
      for (const auto& op : m.operators) {
        for (int32_t i : op.inputs) EXPECT_TRUE(i == -1 || size_t(i) < m.tensors.size());
        for (int32_t o : op.outputs) EXPECT_LT(size_t(o), m.tensors.size());
      }
      if (vela && std::string(name) != "test_mean_int8") {
        // Every NPU operator: command stream, flash, scratch, fast scratch, then the IFMs.
        bool any = false;
        for (const auto& op : m.operators) {
          if (!op.is(BuiltinOperator::Custom)) continue;
          any = true;
          EXPECT_EQ(op.custom_code, "ethos-u");
          ASSERT_GE(op.inputs.size(), 5u);
          const Tensor& cs = m.tensors[size_t(op.inputs[0])];
          EXPECT_EQ(cs.type, TensorType::UInt8);
          EXPECT_TRUE(cs.is_constant());
          EXPECT_EQ(cs.data.size() % 4, 0u);
          EXPECT_EQ(m.tensors[size_t(op.inputs[2])].data.size(), 0u);  // scratch: no data
        }
        EXPECT_TRUE(any);
      }
    }
  }
}

TEST(TfliteReader, OperatorListsOfTheSourceModels) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  using V = std::vector<std::string>;
  auto ops = [&](const char* name) { return op_names(load_or_fail(dir + "/" + name + ".tflite")); };
  EXPECT_EQ(ops("test_abs_int8"), V{"ABS"});
  EXPECT_EQ(ops("test_logistic_int8"), (V{"MUL", "LOGISTIC"}));
  EXPECT_EQ(ops("test_max_uint8"), (V{"QUANTIZE", "QUANTIZE", "MAXIMUM", "QUANTIZE"}));
  EXPECT_EQ(ops("test_min_uint8"), (V{"QUANTIZE", "QUANTIZE", "MINIMUM", "QUANTIZE"}));
  EXPECT_EQ(ops("test_mlp_uint8"), (V{"QUANTIZE", "RESHAPE", "FULLY_CONNECTED", "FULLY_CONNECTED", "QUANTIZE"}));
  EXPECT_EQ(ops("test_mnist_uint8"),
            (V{"QUANTIZE", "RESHAPE", "SHAPE", "STRIDED_SLICE", "PACK", "RESHAPE", "CONV_2D", "CONV_2D",
               "MAX_POOL_2D", "RESHAPE", "FULLY_CONNECTED", "FULLY_CONNECTED", "QUANTIZE"}));
  EXPECT_EQ(ops("test_transpose_conv2d_int8"), V{"TRANSPOSE_CONV"});
  EXPECT_EQ(ops("test_hardswish_int8"), V{"HARD_SWISH"});
  EXPECT_EQ(ops("test_resize_int8"), V{"RESIZE_BILINEAR"});
  EXPECT_EQ(ops("test_mean_int8"), V{"MEAN"});
}

// ---- hand-checked tensors and options ------------------------------------------------------------

TEST(TfliteReader, Conv2dTensorsQuantisationAndWeights) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  Model m = load_or_fail(dir + "/test_conv2d_int8.tflite");
  ASSERT_EQ(m.tensors.size(), 4u);
  EXPECT_EQ(m.inputs, std::vector<int32_t>{0});
  EXPECT_EQ(m.outputs, std::vector<int32_t>{3});

  const Tensor& in = m.tensors[0];
  EXPECT_EQ(in.name, "serving_default_input_1:0");
  EXPECT_EQ(in.type, TensorType::Int8);
  EXPECT_EQ(in.shape, (std::vector<int32_t>{1, 8, 8, 3}));
  EXPECT_EQ(in.element_count(), 192u);
  EXPECT_FALSE(in.is_constant());
  ASSERT_EQ(in.scale.size(), 1u);
  EXPECT_NEAR(in.scale[0], 0.02953f, 0.000005f);
  EXPECT_EQ(in.zero_point[0], -1);

  const Tensor& bias = m.tensors[1];
  EXPECT_EQ(bias.type, TensorType::Int32);
  EXPECT_EQ(bias.shape, std::vector<int32_t>{2});
  ASSERT_EQ(bias.data.size(), 8u);
  EXPECT_EQ(read_i32(bias.data, 0), 0);
  EXPECT_EQ(read_i32(bias.data, 1), 0);
  EXPECT_EQ(bias.scale.size(), 2u);

  const Tensor& w = m.tensors[2];
  EXPECT_EQ(w.type, TensorType::Int8);
  EXPECT_EQ(w.shape, (std::vector<int32_t>{2, 3, 3, 3}));
  ASSERT_EQ(w.data.size(), 54u);
  EXPECT_EQ(w.data[0], 43);
  EXPECT_EQ(w.data[1], 77);
  EXPECT_EQ(int8_t(w.data[2]), -119);  // 137 as uint8
  ASSERT_EQ(w.scale.size(), 2u);       // per output channel
  EXPECT_EQ(w.quantized_dimension, 0);
  EXPECT_NEAR(w.scale[0], 0.002856f, 0.0000005f);
  EXPECT_NEAR(w.scale[1], 0.002822f, 0.0000005f);
  EXPECT_EQ(w.zero_point, (std::vector<int64_t>{0, 0}));

  const Tensor& out = m.tensors[3];
  EXPECT_EQ(out.shape, (std::vector<int32_t>{1, 6, 6, 2}));
  EXPECT_NEAR(out.scale[0], 0.030745f, 0.0000005f);
  EXPECT_EQ(out.zero_point[0], 8);

  ASSERT_EQ(m.operators.size(), 1u);
  const Operator& op = m.operators[0];
  EXPECT_TRUE(op.is(BuiltinOperator::Conv2d));
  EXPECT_EQ(op.inputs, (std::vector<int32_t>{0, 2, 1}));
  EXPECT_EQ(op.outputs, std::vector<int32_t>{3});
  EXPECT_EQ(op.options.options_type, 1);  // Conv2DOptions
  EXPECT_EQ(op.options.padding, Padding::Valid);
  EXPECT_EQ(op.options.stride_w, 1);
  EXPECT_EQ(op.options.stride_h, 1);
  EXPECT_EQ(op.options.dilation_w, 1);  // schema default, absent from the file
  EXPECT_EQ(op.options.dilation_h, 1);
  EXPECT_EQ(op.options.fused_activation, Activation::None);
}

TEST(TfliteReader, DepthwiseAndFullyConnected) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  Model dw = load_or_fail(dir + "/test_depthwise_conv2d_int8.tflite");
  ASSERT_EQ(dw.operators.size(), 1u);
  const Tensor& w = dw.tensors[2];
  EXPECT_EQ(w.shape, (std::vector<int32_t>{1, 2, 2, 3}));
  EXPECT_EQ(w.quantized_dimension, 3);
  EXPECT_EQ(w.scale.size(), 3u);
  EXPECT_EQ(dw.operators[0].options.depth_multiplier, 1);
  EXPECT_EQ(dw.operators[0].options.padding, Padding::Valid);
  EXPECT_EQ(dw.tensors[3].shape, (std::vector<int32_t>{1, 7, 7, 3}));

  Model fc = load_or_fail(dir + "/test_fullconnected_int8.tflite");
  ASSERT_EQ(fc.operators.size(), 1u);
  EXPECT_EQ(fc.operators[0].inputs, (std::vector<int32_t>{0, 1, -1}));  // no bias
  EXPECT_EQ(fc.tensors[1].shape, (std::vector<int32_t>{4, 28}));
  EXPECT_EQ(fc.tensors[1].data.size(), 112u);
  EXPECT_EQ(fc.tensors[0].zero_point[0], -4);
  EXPECT_EQ(fc.tensors[2].zero_point[0], -15);
  EXPECT_FALSE(fc.operators[0].options.keep_num_dims);
}

TEST(TfliteReader, OptionsOfSmallOperators) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  auto first_op = [&](const char* name) { return std::move(load_or_fail(dir + "/" + name + ".tflite").operators.at(0)); };
  EXPECT_FLOAT_EQ(first_op("test_softmax_int8").options.beta, 1.0f);
  EXPECT_FLOAT_EQ(first_op("test_leakyrelu_int8").options.alpha, 0.3f);
  EXPECT_EQ(first_op("test_concat_int8").options.axis, 2);
  EXPECT_EQ(first_op("test_split_int8").options.num_splits, 4);
  EXPECT_EQ(first_op("test_split_int8").inputs, (std::vector<int32_t>{1, 0}));  // axis first
  EXPECT_EQ(first_op("test_unpack_int8").options.num, 3);
  EXPECT_EQ(first_op("test_unpack_int8").options.axis, 0);
  EXPECT_EQ(first_op("test_pack_int8").options.values_count, 3);
  EXPECT_TRUE(first_op("test_mean_int8").options.keep_dims);
  Operator pool = first_op("test_averagepooling2d_int8");
  EXPECT_EQ(pool.options.filter_w, 2);
  EXPECT_EQ(pool.options.filter_h, 2);
  EXPECT_EQ(pool.options.stride_w, 1);
  EXPECT_EQ(pool.options.padding, Padding::Valid);
  Operator resize = first_op("test_resize_int8");
  EXPECT_EQ(resize.options.options_type, 15);  // ResizeBilinearOptions, empty table
  EXPECT_FALSE(resize.options.align_corners);
  EXPECT_FALSE(resize.options.half_pixel_centers);
  Operator tconv = first_op("test_transpose_conv2d_int8");
  EXPECT_EQ(tconv.inputs, (std::vector<int32_t>{1, 3, 0, 2}));  // output shape, weights, input, bias
  EXPECT_EQ(tconv.options.stride_w, 2);
  EXPECT_EQ(tconv.options.stride_h, 2);
  Operator hs = first_op("test_hardswish_int8");
  EXPECT_EQ(hs.options.options_type, 0);
}

TEST(TfliteReader, MnistConstantsAndSharedBuffers) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  Model m = load_or_fail(dir + "/test_mnist_uint8.tflite");
  ASSERT_EQ(m.tensors.size(), 28u);
  EXPECT_EQ(m.inputs, std::vector<int32_t>{0});
  EXPECT_EQ(m.outputs, std::vector<int32_t>{27});
  EXPECT_EQ(m.tensors[0].type, TensorType::UInt8);
  EXPECT_EQ(m.tensors[0].zero_point[0], 0);
  EXPECT_EQ(m.tensors[27].zero_point[0], 116);
  // flatten/Const = [-1, 784].
  ASSERT_EQ(m.tensors[1].data.size(), 8u);
  EXPECT_EQ(read_i32(m.tensors[1].data, 0), -1);
  EXPECT_EQ(read_i32(m.tensors[1].data, 1), 784);
  // Tensors 3 and 5 share buffer 4 (the constant 0).
  EXPECT_EQ(m.tensors[3].buffer, 4u);
  EXPECT_EQ(m.tensors[5].buffer, 4u);
  EXPECT_EQ(m.tensors[3].data.data(), m.tensors[5].data.data());
  EXPECT_EQ(m.tensors[5].shape, std::vector<int32_t>{});  // a scalar
  EXPECT_EQ(m.tensors[5].element_count(), 1u);
  // The big dense weight: 128 x 9216 int8.
  EXPECT_EQ(m.tensors[10].data.size(), 1179648u);
  // Per-channel conv weights: 64 scales along dim 0.
  EXPECT_EQ(m.tensors[12].scale.size(), 64u);
  const Operator& ss = m.operators[3];
  EXPECT_TRUE(ss.is(BuiltinOperator::StridedSlice));
  EXPECT_EQ(ss.options.shrink_axis_mask, 1);
  EXPECT_EQ(m.operators[2].options.out_type, TensorType::Int32);
  EXPECT_EQ(m.operators[6].options.fused_activation, Activation::Relu);
  EXPECT_EQ(m.operators[8].options.stride_w, 2);
}

TEST(TfliteReader, VelaConv2dCustomOperator) {
  VKRT_REQUIRE_CONFORMANCE(dir, kVelaDir);
  Model m = load_or_fail(dir + "/test_conv2d_int8_vela.tflite");
  ASSERT_EQ(m.operators.size(), 1u);
  const Operator& op = m.operators[0];
  EXPECT_EQ(op.builtin_code, 32);
  EXPECT_EQ(op.name(), "CUSTOM 'ethos-u'");
  EXPECT_EQ(op.inputs, (std::vector<int32_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(op.outputs, std::vector<int32_t>{0});
  EXPECT_EQ(op.custom_options.size(), 3u);
  EXPECT_EQ(m.inputs, std::vector<int32_t>{5});
  EXPECT_EQ(m.outputs, std::vector<int32_t>{0});
  EXPECT_EQ(m.tensors[1].name, "main_split_1_command_stream");
  EXPECT_EQ(m.tensors[1].data.size(), 368u);
  // The command stream starts with the COP1 driver-payload magic "COP1".
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(m.tensors[1].data.data()), 4), "COP1");
  EXPECT_EQ(m.tensors[2].name, "main_split_1_flash");
  EXPECT_EQ(m.tensors[2].data.size(), 192u);
  EXPECT_EQ(m.tensors[3].shape, std::vector<int32_t>{432});
  EXPECT_FALSE(m.tensors[3].is_constant());
  EXPECT_EQ(m.tensors[5].shape, (std::vector<int32_t>{1, 8, 8, 3}));
  EXPECT_EQ(m.tensors[5].zero_point[0], -1);
}

TEST(TfliteReader, VelaMnistKeepsCpuOperators) {
  VKRT_REQUIRE_CONFORMANCE(dir, kVelaDir);
  Model m = load_or_fail(dir + "/test_mnist_uint8_vela.tflite");
  EXPECT_EQ(op_names(m), (std::vector<std::string>{"STRIDED_SLICE", "PACK", "CUSTOM 'ethos-u'", "RESHAPE",
                                                   "CUSTOM 'ethos-u'"}));
  EXPECT_EQ(m.tensors[2].data.size(), 953248u);  // flash shared by both NPU operators
  EXPECT_EQ(m.operators[2].inputs[1], 2);
  EXPECT_EQ(m.operators[4].inputs[1], 2);
}

// ---- corrupted and truncated files ----------------------------------------------------------------

TEST(TfliteReader, RejectsTruncatedFiles) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  std::vector<uint8_t> bytes = testing::read_file(dir + "/test_conv2d_int8.tflite");
  ASSERT_GT(bytes.size(), 100u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + std::ptrdiff_t(n));
    auto r = load_tflite(std::move(cut));
    ASSERT_FALSE(r.ok()) << "truncated to " << n << " bytes";
    EXPECT_EQ(r.error(), Error::InvalidProgram);
  }
  auto empty = load_tflite({});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("too small"), std::string::npos) << empty.status().message();
}

TEST(TfliteReader, RejectsWrongIdentifier) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  std::vector<uint8_t> bytes = testing::read_file(dir + "/test_abs_int8.tflite");
  ASSERT_GT(bytes.size(), 8u);
  bytes[7] = '2';  // "TFL2"
  auto r = load_tflite(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'TFL2', expected 'TFL3'"), std::string::npos) << r.status().message();
  auto missing = load_tflite_file(dir + "/no_such_model.tflite");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), Error::NotFound);
  EXPECT_NE(missing.status().message().find("no_such_model.tflite"), std::string::npos);
}

// Every single-byte corruption of a small model either loads (a harmless change) or gives an error;
// the checks after verification must hold the result together (indices valid, data sizes consistent).
TEST(TfliteReader, SurvivesEveryByteCorruption) {
  VKRT_REQUIRE_CONFORMANCE(dir, kModelsDir);
  for (const char* name : {"test_split_int8", "test_conv2d_int8"}) {
    std::vector<uint8_t> bytes = testing::read_file(dir + "/" + name + ".tflite");
    size_t rejected = 0;
    for (size_t i = 0; i < bytes.size(); ++i) {
      for (uint8_t value : {uint8_t(bytes[i] ^ 0xFF), uint8_t(bytes[i] + 1), uint8_t(0x80)}) {
        std::vector<uint8_t> bad = bytes;
        bad[i] = value;
        auto r = load_tflite(std::move(bad));
        if (!r.ok()) {
          ++rejected;
          EXPECT_FALSE(r.status().message().empty());
          continue;
        }
        const Model& m = r.value();
        for (const auto& t : m.tensors) {
          if (t.is_constant()) {
            ASSERT_EQ(t.data.size(), t.byte_size());
          }
        }
        for (const auto& op : m.operators)
          for (int32_t x : op.inputs) ASSERT_TRUE(x == -1 || size_t(x) < m.tensors.size());
      }
    }
    EXPECT_GT(rejected, 0u);
  }
}

// ---- hand-built models ------------------------------------------------------------------------------

// Builds a one-operator model with the raw flatbuffers API, field slots written from schema.fbs
// independently of tflite_schema.fbs (slot n is at vtable offset 4 + 2n).
struct TinySpec {
  uint32_t version = 3;
  int8_t deprecated_builtin_code = 0;
  int32_t builtin_code = 0;          // 0 = absent (default)
  const char* custom_code = nullptr;
  uint32_t opcode_index = 0;
  std::vector<int32_t> op_inputs = {0};
  std::vector<int32_t> op_outputs = {1};
  std::vector<int32_t> graph_inputs = {0};
  std::vector<int32_t> graph_outputs = {1};
  // Tensor 0 gets buffer `t0_buffer`; buffer 1 holds `data` inline, or outside the flatbuffer.
  uint32_t t0_buffer = 0;
  std::vector<int32_t> t0_shape = {2, 2};
  int8_t t0_type = 9;  // INT8
  std::vector<uint8_t> data;
  bool external_data = false;
  uint64_t external_offset_override = 0;
  std::vector<float> t0_scale = {0.5f};
  std::vector<int64_t> t0_zero_point = {3};
  int32_t t0_quantized_dimension = 0;
};

std::vector<uint8_t> build_tiny(const TinySpec& s, uint64_t external_offset) {
  flatbuffers::FlatBufferBuilder b;
  // Buffers: [0] empty sentinel, [1] data.
  flatbuffers::Offset<void> buf0, buf1;
  {
    auto start = b.StartTable();
    buf0 = flatbuffers::Offset<void>(b.EndTable(start));
  }
  {
    flatbuffers::Offset<flatbuffers::Vector<uint8_t>> vec;
    if (!s.external_data && !s.data.empty()) {
      b.ForceVectorAlignment(s.data.size(), 1, 16);
      vec = b.CreateVector(s.data);
    }
    auto start = b.StartTable();
    if (!vec.IsNull()) b.AddOffset(4, vec);
    if (s.external_data) {
      b.AddElement<uint64_t>(6, external_offset, 0);
      b.AddElement<uint64_t>(8, s.data.size(), 0);
    }
    buf1 = flatbuffers::Offset<void>(b.EndTable(start));
  }
  auto buffers = b.CreateVector(std::vector<flatbuffers::Offset<void>>{buf0, buf1});

  auto make_tensor = [&](uint32_t buffer, const std::vector<int32_t>& shape, int8_t type, const char* name,
                         bool quant) {
    auto shape_v = b.CreateVector(shape);
    auto name_s = b.CreateString(name);
    flatbuffers::Offset<void> q;
    if (quant) {
      auto scale = b.CreateVector(s.t0_scale);
      auto zp = b.CreateVector(s.t0_zero_point);
      auto start = b.StartTable();
      b.AddOffset(8, scale);    // slot 2: scale
      b.AddOffset(10, zp);      // slot 3: zero_point
      b.AddElement<int32_t>(16, s.t0_quantized_dimension, 0);  // slot 6 (details takes 4 and 5)
      q = flatbuffers::Offset<void>(b.EndTable(start));
    }
    auto start = b.StartTable();
    b.AddOffset(4, shape_v);
    b.AddElement<int8_t>(6, type, 0);
    b.AddElement<uint32_t>(8, buffer, 0);
    b.AddOffset(10, name_s);
    if (quant) b.AddOffset(12, q);
    return flatbuffers::Offset<void>(b.EndTable(start));
  };
  auto t0 = make_tensor(s.t0_buffer, s.t0_shape, s.t0_type, "t0", true);
  auto t1 = make_tensor(0, {2, 2}, 9, "t1", false);
  auto tensors = b.CreateVector(std::vector<flatbuffers::Offset<void>>{t0, t1});

  auto op_in = b.CreateVector(s.op_inputs);
  auto op_out = b.CreateVector(s.op_outputs);
  flatbuffers::Offset<void> op;
  {
    auto start = b.StartTable();
    b.AddElement<uint32_t>(4, s.opcode_index, 0);
    b.AddOffset(6, op_in);
    b.AddOffset(8, op_out);
    op = flatbuffers::Offset<void>(b.EndTable(start));
  }
  auto ops = b.CreateVector(std::vector<flatbuffers::Offset<void>>{op});
  auto g_in = b.CreateVector(s.graph_inputs);
  auto g_out = b.CreateVector(s.graph_outputs);
  flatbuffers::Offset<void> sg;
  {
    auto start = b.StartTable();
    b.AddOffset(4, tensors);
    b.AddOffset(6, g_in);
    b.AddOffset(8, g_out);
    b.AddOffset(10, ops);
    sg = flatbuffers::Offset<void>(b.EndTable(start));
  }
  auto subgraphs = b.CreateVector(std::vector<flatbuffers::Offset<void>>{sg});

  flatbuffers::Offset<flatbuffers::String> custom;
  if (s.custom_code) custom = b.CreateString(s.custom_code);
  flatbuffers::Offset<void> code;
  {
    auto start = b.StartTable();
    b.AddElement<int8_t>(4, s.deprecated_builtin_code, 0);
    if (s.custom_code) b.AddOffset(6, custom);
    b.AddElement<int32_t>(8, 1, 1);
    b.AddElement<int32_t>(10, s.builtin_code, 0);
    code = flatbuffers::Offset<void>(b.EndTable(start));
  }
  auto codes = b.CreateVector(std::vector<flatbuffers::Offset<void>>{code});
  auto desc = b.CreateString("tiny");
  auto start = b.StartTable();
  b.AddElement<uint32_t>(4, s.version, 0);
  b.AddOffset(6, codes);
  b.AddOffset(8, subgraphs);
  b.AddOffset(10, desc);
  b.AddOffset(12, buffers);
  auto root = b.EndTable(start);
  b.Finish(flatbuffers::Offset<void>(root), "TFL3");
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

std::vector<uint8_t> tiny(const TinySpec& s) {
  if (!s.external_data) return build_tiny(s, 0);
  // Place the data after the flatbuffer, 16-aligned: build once to learn the size (the offset field
  // has the same width whatever its value), then again with the real offset.
  size_t size = build_tiny(s, 1234).size();
  uint64_t offset = s.external_offset_override ? s.external_offset_override : (size + 15) / 16 * 16;
  std::vector<uint8_t> bytes = build_tiny(s, offset);
  EXPECT_EQ(bytes.size(), size);
  bytes.resize((size + 15) / 16 * 16, 0);
  bytes.insert(bytes.end(), s.data.begin(), s.data.end());
  return bytes;
}

Status load_status(const TinySpec& s) {
  auto r = load_tflite(tiny(s));
  return r.ok() ? Status::ok() : r.status();
}

void expect_error(const TinySpec& s, Error code, const std::string& fragment) {
  Status st = load_status(s);
  ASSERT_FALSE(st.is_ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(st.code(), code) << st.to_string();
  EXPECT_NE(st.message().find(fragment), std::string::npos) << st.message();
}

TEST(TfliteReader, TinyModelLoads) {
  TinySpec s;
  s.deprecated_builtin_code = 19;  // RELU
  s.builtin_code = 19;
  auto r = load_tflite(tiny(s));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->description, "tiny");
  ASSERT_EQ(r->tensors.size(), 2u);
  EXPECT_EQ(r->tensors[0].name, "t0");
  EXPECT_EQ(r->tensors[0].scale, std::vector<float>{0.5f});
  EXPECT_EQ(r->tensors[0].zero_point, std::vector<int64_t>{3});
  EXPECT_TRUE(r->tensors[1].scale.empty());
  EXPECT_EQ(r->operators[0].name(), "RELU");
}

TEST(TfliteReader, BuiltinCodeIsTheLargerOfTheTwoFields) {
  struct Case {
    int8_t deprecated;
    int32_t builtin;
    int32_t expected;
  } cases[] = {
      {4, 0, 4},        // schema < 3a: only the int8 field is written (DEPTHWISE_CONV_2D)
      {25, 25, 25},     // both written (SOFTMAX)
      {127, 150, 150},  // code above 127: placeholder in the int8 field (GELU)
      {0, 0, 0},        // ADD
      {0, 117, 117},    // only the new field (HARD_SWISH)
  };
  for (const Case& c : cases) {
    TinySpec s;
    s.deprecated_builtin_code = c.deprecated;
    s.builtin_code = c.builtin;
    auto r = load_tflite(tiny(s));
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    EXPECT_EQ(r->operators[0].builtin_code, c.expected) << int(c.deprecated) << "/" << c.builtin;
  }
  TinySpec custom;
  custom.deprecated_builtin_code = 32;
  custom.builtin_code = 32;
  custom.custom_code = "ethos-u";
  auto r = load_tflite(tiny(custom));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->operators[0].custom_code, "ethos-u");
  custom.custom_code = nullptr;
  expect_error(custom, Error::InvalidProgram, "CUSTOM operator with no custom_code");
}

TEST(TfliteReader, InlineAndExternalBuffers) {
  TinySpec s;
  s.t0_buffer = 1;
  s.data = {1, 2, 3, 4};
  auto r = load_tflite(tiny(s));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(std::vector<uint8_t>(r->tensors[0].data.begin(), r->tensors[0].data.end()), s.data);

  s.external_data = true;
  std::vector<uint8_t> bytes = tiny(s);
  auto e = load_tflite(bytes);
  ASSERT_TRUE(e.ok()) << e.status().to_string();
  const Tensor& t = e->tensors[0];
  EXPECT_EQ(std::vector<uint8_t>(t.data.begin(), t.data.end()), s.data);
  // The span points at the end of the file, inside the model's own bytes.
  EXPECT_EQ(t.data.data(), e->bytes.data() + e->bytes.size() - 4);

  s.external_offset_override = 1u << 20;  // past the end of the file
  expect_error(s, Error::InvalidProgram, "lies outside the file");
  s.external_offset_override = ~uint64_t{0} - 1;  // offset + size overflows
  expect_error(s, Error::InvalidProgram, "lies outside the file");
}

TEST(TfliteReader, RejectsBadIndicesAndSizes) {
  {
    TinySpec s;
    s.t0_buffer = 7;
    expect_error(s, Error::InvalidProgram, "tensor 0 't0': buffer index 7 but the model has 2 buffers");
  }
  {
    TinySpec s;
    s.t0_buffer = 1;
    s.data = {1, 2, 3};  // 2x2 int8 needs 4
    expect_error(s, Error::InvalidProgram, "holds 3 bytes but the tensor's shape and type need 4");
  }
  {
    TinySpec s;
    s.op_inputs = {0, 2};
    expect_error(s, Error::InvalidProgram, "operator 0: inputs[1] is tensor 2 but the subgraph has 2 tensors");
  }
  {
    TinySpec s;
    s.op_inputs = {0, -1};  // absent optional input: fine
    EXPECT_TRUE(load_status(s).is_ok());
    s.op_outputs = {-1};
    expect_error(s, Error::InvalidProgram, "outputs[0] is tensor -1");
  }
  {
    TinySpec s;
    s.graph_outputs = {5};
    expect_error(s, Error::InvalidProgram, "subgraph 0 outputs[0] is tensor 5");
  }
  {
    TinySpec s;
    s.opcode_index = 1;
    expect_error(s, Error::InvalidProgram, "opcode_index 1 but the model has 1 operator codes");
  }
  {
    TinySpec s;
    s.t0_shape = {2, -1};
    expect_error(s, Error::InvalidProgram, "shape[1] is -1");
  }
  {
    TinySpec s;
    s.t0_shape = {65536, 65536, 2};
    expect_error(s, Error::InvalidProgram, "2^31");
  }
  {
    TinySpec s;
    s.t0_type = 42;
    expect_error(s, Error::InvalidProgram, "type 42 is not a TFLite TensorType");
  }
  {
    TinySpec s;
    s.t0_scale = {0.5f, 0.25f};
    s.t0_zero_point = {0};
    expect_error(s, Error::InvalidProgram, "2 scales but 1 zero points");
    s.t0_zero_point = {0, 0};
    s.t0_quantized_dimension = 1;
    EXPECT_TRUE(load_status(s).is_ok());  // dim 1 has size 2
    s.t0_quantized_dimension = 2;
    expect_error(s, Error::InvalidProgram, "quantized_dimension 2 is outside");
    s.t0_shape = {2, 3};
    s.t0_quantized_dimension = 1;
    expect_error(s, Error::InvalidProgram, "2 scales but dim 1 has size 3");
  }
  {
    TinySpec s;
    s.version = 2;
    expect_error(s, Error::NotSupported, "schema version 2, expected 3");
  }
}

}  // namespace
}  // namespace vkrt::ethosu::tflite
