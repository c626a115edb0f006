// The ERROR_IF rules of the op descriptors (vgf/ir/ops/*.cpp, TOSA 1.0): each graph below breaks
// one rule and is refused by validate_graph (so by every reader) and by both executors at
// prepare, with the same message; its neighbour that keeps the rule is accepted, so a rule
// written too broadly fails here too.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "tests/vgf/model/both_executors_refuse.h"
#include "vgf/cpu/cpu_executor.h"
#include "vgf/executor.h"
#include "vgf/ir/graph.h"

namespace vkrt::vgf {
namespace {

TensorInfo tensor(const char* name, DType t, std::vector<int64_t> shape) {
  TensorInfo info;
  info.name = name;
  info.dtype = t;
  info.shape = std::move(shape);
  return info;
}

TensorId constant(Graph& g, const char* name, DType t, std::vector<int64_t> shape) {
  TensorInfo info = tensor(name, t, std::move(shape));
  info.is_constant = true;
  info.owned.assign(size_t(info.element_count()) * dtype_storage_bytes(t), 0);
  return g.add_tensor(std::move(info));
}

// One op over graph inputs `ins` (constants where `constants` says) producing `outs`.
struct OneOp {
  OpKind kind;
  std::vector<TensorInfo> ins;
  std::vector<TensorInfo> outs;
  OpAttributes attr;
  std::vector<bool> constants = {};

  Graph graph() const {
    Graph g;
    std::vector<TensorId> in_ids, out_ids;
    for (size_t i = 0; i < ins.size(); ++i) {
      if (i < constants.size() && constants[i]) {
        in_ids.push_back(constant(g, ins[i].name.c_str(), ins[i].dtype, ins[i].shape));
      } else {
        in_ids.push_back(g.add_tensor(ins[i]));
        g.inputs.push_back({in_ids.back(), ins[i].name, uint32_t(i), 0});
      }
    }
    for (size_t k = 0; k < outs.size(); ++k) {
      out_ids.push_back(g.add_tensor(outs[k]));
      g.outputs.push_back({out_ids.back(), outs[k].name, uint32_t(ins.size() + k), 0});
    }
    g.ops.push_back(Op{kind, in_ids, out_ids, attr, "op"});
    return g;
  }
};

struct RuleCase {
  const char* rule;
  OneOp broken;
  OneOp kept;  // the same op with the rule kept
  std::string message;
};

std::vector<RuleCase> cases() {
  const std::vector<int64_t> s = {1, 4, 4, 8};
  auto i8 = [&](const char* n) { return tensor(n, DType::Int8, s); };
  std::vector<RuleCase> out;

  MulAttr bad_shift;
  bad_shift.shift = 3;
  auto i32 = [&](const char* n) { return tensor(n, DType::Int32, s); };
  out.push_back({"MUL shift only for int32", {OpKind::MUL, {i8("a"), i8("b")}, {i32("y")}, bad_shift},
                 {OpKind::MUL, {i8("a"), i8("b")}, {i32("y")}, MulAttr{}},
                 "op 0 (MUL): shift 3 is only allowed with int32 inputs, not int8"});

  TableAttr long_table, table;
  long_table.table.assign(513, 0);
  table.table.assign(256, 0);
  out.push_back({"TABLE size for int8", {OpKind::TABLE, {i8("a")}, {i8("y")}, long_table},
                 {OpKind::TABLE, {i8("a")}, {i8("y")}, table},
                 "op 0 (TABLE): an int8 input needs a 256-entry table, got 513"});

  ClampAttr inverted, clamp;
  inverted.min_int = 10;
  inverted.max_int = -10;
  clamp.min_int = -10;
  clamp.max_int = 10;
  out.push_back({"CLAMP max below min", {OpKind::CLAMP, {i8("a")}, {i8("y")}, inverted},
                 {OpKind::CLAMP, {i8("a")}, {i8("y")}, clamp}, "op 0 (CLAMP): max_val -10 is below min_val 10"});

  // int16 activations (A16W8) carry no zero point: TOSA ERROR_IF(in_t != int8 && input_zp != 0).
  ConvAttr zp16, conv;
  zp16.acc_type = conv.acc_type = AccType::Int48;
  zp16.input_zp = 5;
  auto conv_op = [&](const ConvAttr& a) {
    return OneOp{OpKind::CONV2D,
                 {tensor("x", DType::Int16, {1, 4, 4, 8}), tensor("w", DType::Int8, {2, 1, 1, 8}),
                  tensor("b", DType::Int48, {2})},
                 {tensor("y", DType::Int48, {1, 4, 4, 2})},
                 a,
                 {false, true, true}};
  };
  out.push_back({"CONV2D zero point on int16", conv_op(zp16), conv_op(conv),
                 "op 0 (CONV2D): input_zp 5 must be 0 for int16 tensors"});

  PoolAttr wide_pad, pool;
  wide_pad.kernel = {2, 2};
  wide_pad.stride = {2, 2};
  wide_pad.pad = {2, 0, 0, 0};
  pool.kernel = {2, 2};
  pool.stride = {2, 2};
  auto pool_op = [&](const PoolAttr& a, int64_t oh) {
    return OneOp{OpKind::MAX_POOL2D, {i8("x")}, {tensor("y", DType::Int8, {1, oh, 2, 8})}, a};
  };
  out.push_back({"pool pad below kernel", pool_op(wide_pad, 3), pool_op(pool, 2),
                 "op 0 (MAX_POOL2D): pad[0] = 2 must be below the kernel size 2"});

  ResizeAttr big, resize;
  big.scale = {4096, 2048, 2, 1};
  resize.scale = {2, 1, 2, 1};
  auto resize_op = [&](const ResizeAttr& a) {
    return OneOp{OpKind::RESIZE, {i8("x")}, {tensor("y", DType::Int8, {1, 7, 7, 8})}, a};
  };
  out.push_back({"RESIZE scale numerator", resize_op(big), resize_op(resize),
                 "op 0 (RESIZE): scale_y_n 4096 exceeds 2048"});

  // Found by vgf_fuzzer's agreement check: an int48 PAD constant beyond 48 bits, which the CPU
  // kernel refused and the Vulkan executor ran.
  PadAttr wide_const, pad;
  wide_const.padding = pad.padding = {0, 0, 1, 1, 1, 1, 0, 0};
  wide_const.pad_const_int = -(int64_t(1) << 48);
  pad.pad_const_int = -(int64_t(1) << 47);
  auto pad_op = [&](const PadAttr& a) {
    return OneOp{OpKind::PAD, {tensor("x", DType::Int48, {1, 2, 2, 1})}, {tensor("y", DType::Int48, {1, 4, 4, 1})}, a};
  };
  out.push_back({"PAD constant within int48", pad_op(wide_const), pad_op(pad),
                 "op 0 (PAD): pad_const -281474976710656 outside the int48 range"});

  auto fft_op = [&](DType t) {
    return OneOp{OpKind::RFFT2D, {tensor("x", t, {1, 4, 8})}, {tensor("re", t, {1, 4, 5}), tensor("im", t, {1, 4, 5})},
                 FftAttr{}};
  };
  out.push_back({"RFFT2D is fp32 only", fft_op(DType::Fp16), fft_op(DType::Fp32),
                 "op 0 (RFFT2D): input 0 is fp16, not fp32"});
  return out;
}

TEST(OpRules, ValidateGraphRefusesTheBrokenOpAndKeepsItsNeighbour) {
  for (const RuleCase& c : cases()) {
    Status broken = validate_graph(c.broken.graph());
    ASSERT_FALSE(broken.is_ok()) << c.rule;
    EXPECT_EQ(broken.code(), Error::InvalidProgram) << c.rule;
    EXPECT_NE(broken.message().find(c.message), std::string::npos) << c.rule << ": " << broken.to_string();
    Status kept = validate_graph(c.kept.graph());
    EXPECT_TRUE(kept.is_ok()) << c.rule << ": " << kept.to_string();
  }
}

TEST(OpRules, BothExecutorsRefuseWithTheSameMessage) {
  for (const RuleCase& c : cases()) expect_both_executors_refuse(c.broken.graph(), c.message, c.rule);
}

}  // namespace
}  // namespace vkrt::vgf
