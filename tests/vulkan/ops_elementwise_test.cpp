// Elementwise binary/comparison/unary ops, CLAMP and data movement on the Vulkan executor
// against the CPU TOSA kernels: integer and bool results bit-exact; fp32 arithmetic within
// 1e-6 relative; transcendental fp32 ops within |a-e| <= 1e-5 + 1e-4|e| (SIN/COS 5e-4 absolute,
// the Vulkan precision bound for them).
#include <functional>

#include "vulkan_test_util.h"

namespace vkrt::vulkan::testing {
namespace {

using CpuFn = std::function<Status(const std::vector<HostTensor>&, HostTensor&)>;

struct ElementwiseCase {
  std::string name;
  OpKind kind;
  std::vector<DType> in_types;
  std::vector<Shape> in_shapes;
  DType out_type;
  Shape out_shape;
  vgf::OpAttributes attr;
  double lo, hi;                 // random input range
  CpuFn cpu;
  float atol = 0.0f, rtol = 0.0f;  // fp32 tolerance
  double lo2 = 0, hi2 = 0;       // second input range when different (shift amounts, divisors)
};

void PrintTo(const ElementwiseCase& c, std::ostream* os) { *os << c.name; }

class VulkanElementwise : public ::testing::TestWithParam<ElementwiseCase> {};

TEST_P(VulkanElementwise, MatchesCpu) {
  VKRT_REQUIRE_VULKAN();
  const ElementwiseCase& c = GetParam();
  std::mt19937 rng(99);
  GraphBuilder b;
  std::vector<HostTensor> inputs;
  std::vector<TensorId> ids;
  for (size_t i = 0; i < c.in_types.size(); ++i) {
    HostTensor h(c.in_types[i], c.in_shapes[i]);
    bool second = i == 1 && c.hi2 != c.lo2;
    fill_random(h, rng, second ? c.lo2 : c.lo, second ? c.hi2 : c.hi);
    ids.push_back(b.input(c.in_types[i], c.in_shapes[i]));
    inputs.push_back(std::move(h));
  }
  TensorId out = b.tensor(c.out_type, c.out_shape);
  b.op(c.kind, ids, {out}, c.attr);
  b.output(out);
  HostTensor expected(c.out_type, c.out_shape);
  Status cs = c.cpu(inputs, expected);
  ASSERT_TRUE(cs.is_ok()) << cs.message();
  std::vector<HostTensor> outputs;
  Status r = run_on_vulkan(b.graph, inputs, outputs);
  ASSERT_TRUE(r.is_ok()) << r.message();
  if (c.out_type == DType::Fp32) {
    EXPECT_TRUE(floats_close(expected, outputs[0], c.atol, c.rtol));
  } else {
    EXPECT_TRUE(bytes_equal(expected, outputs[0]));
  }
}

CpuFn binary(tosa::BinaryOp op, tosa::NanMode nan = tosa::NanMode::Propagate, bool round = false) {
  return [=](const std::vector<HostTensor>& in, HostTensor& out) {
    tosa::BinaryAttrs a;
    a.nan_mode = nan;
    a.round = round;
    return tosa::elementwise_binary(op, in[0].ref(), in[1].ref(), a, out.ref());
  };
}
CpuFn compare(tosa::CompareOp op) {
  return [=](const std::vector<HostTensor>& in, HostTensor& out) {
    return tosa::compare(op, in[0].ref(), in[1].ref(), out.ref());
  };
}
CpuFn mul(int32_t shift) {
  return [=](const std::vector<HostTensor>& in, HostTensor& out) {
    tosa::MulAttr a;
    a.shift = shift;
    return tosa::mul(in[0].ref(), in[1].ref(), a, out.ref());
  };
}
CpuFn unary(tosa::UnaryOp op) {
  return [=](const std::vector<HostTensor>& in, HostTensor& out) {
    return tosa::elementwise_unary(op, in[0].ref(), out.ref());
  };
}

ElementwiseCase bin(std::string name, OpKind k, DType t, CpuFn fn, vgf::OpAttributes attr = vgf::NoAttr{},
                    double lo = -100, double hi = 100, DType out = DType::Unknown) {
  ElementwiseCase c;
  c.name = std::move(name);
  c.kind = k;
  c.in_types = {t, t};
  c.in_shapes = {{2, 3, 5}, {1, 3, 1}};  // broadcast on dims 0 and 2
  c.out_type = out == DType::Unknown ? t : out;
  c.out_shape = {2, 3, 5};
  c.attr = std::move(attr);
  c.lo = lo;
  c.hi = hi;
  c.cpu = std::move(fn);
  c.rtol = 1e-6f;
  return c;
}

ElementwiseCase un(std::string name, OpKind k, DType t, CpuFn fn, double lo, double hi, float atol = 0,
                   float rtol = 0, vgf::OpAttributes attr = vgf::NoAttr{}) {
  ElementwiseCase c;
  c.name = std::move(name);
  c.kind = k;
  c.in_types = {t};
  c.in_shapes = {{4, 37}};
  c.out_type = t;
  c.out_shape = {4, 37};
  c.attr = std::move(attr);
  c.lo = lo;
  c.hi = hi;
  c.cpu = std::move(fn);
  c.atol = atol;
  c.rtol = rtol;
  return c;
}

std::vector<ElementwiseCase> cases() {
  using B = tosa::BinaryOp;
  using U = tosa::UnaryOp;
  std::vector<ElementwiseCase> v;
  v.push_back(bin("AddInt32", OpKind::ADD, DType::Int32, binary(B::Add), vgf::NoAttr{}, -2e9, 2e9));
  v.push_back(bin("SubInt32", OpKind::SUB, DType::Int32, binary(B::Sub), vgf::NoAttr{}, -2e9, 2e9));
  v.push_back(bin("AddFp32", OpKind::ADD, DType::Fp32, binary(B::Add)));
  v.push_back(bin("SubFp32", OpKind::SUB, DType::Fp32, binary(B::Sub)));
  v.push_back(bin("MulInt8ToInt32", OpKind::MUL, DType::Int8, mul(0), vgf::MulAttr{0}, -128, 127, DType::Int32));
  v.push_back(bin("MulInt16ToInt32", OpKind::MUL, DType::Int16, mul(0), vgf::MulAttr{0}, -32768, 32767, DType::Int32));
  v.push_back(bin("MulInt32Shift", OpKind::MUL, DType::Int32, mul(10), vgf::MulAttr{10}, -40000, 40000));
  v.push_back(bin("MulInt32NoShiftWraps", OpKind::MUL, DType::Int32, mul(0), vgf::MulAttr{0}, -2e9, 2e9));
  v.push_back(bin("MulFp32", OpKind::MUL, DType::Fp32, mul(0), vgf::MulAttr{0}));
  v.push_back(bin("MaximumInt8", OpKind::MAXIMUM, DType::Int8, binary(B::Maximum), vgf::NanModeAttr{}, -128, 127));
  v.push_back(bin("MinimumInt16", OpKind::MINIMUM, DType::Int16, binary(B::Minimum), vgf::NanModeAttr{}, -32768, 32767));
  v.push_back(bin("MaximumFp32", OpKind::MAXIMUM, DType::Fp32, binary(B::Maximum), vgf::NanModeAttr{}));
  v.push_back(bin("BitwiseAndInt16", OpKind::BITWISE_AND, DType::Int16, binary(B::BitwiseAnd), vgf::NoAttr{}, -32768, 32767));
  v.push_back(bin("BitwiseXorInt32", OpKind::BITWISE_XOR, DType::Int32, binary(B::BitwiseXor), vgf::NoAttr{}, -2e9, 2e9));
  v.push_back(bin("BitwiseOrInt8", OpKind::BITWISE_OR, DType::Int8, binary(B::BitwiseOr), vgf::NoAttr{}, -128, 127));
  auto shift_case = [&](std::string name, OpKind k, DType t, CpuFn fn, vgf::OpAttributes attr, double hi, int bits) {
    ElementwiseCase c = bin(std::move(name), k, t, std::move(fn), std::move(attr), -hi, hi);
    c.lo2 = 0;
    c.hi2 = bits - 1;
    return c;
  };
  v.push_back(shift_case("ArithmeticRightShiftRoundInt32", OpKind::ARITHMETIC_RIGHT_SHIFT, DType::Int32,
                         binary(B::ArithmeticRightShift, tosa::NanMode::Propagate, true), vgf::ShiftAttr{true}, 2e9, 32));
  v.push_back(shift_case("ArithmeticRightShiftInt8", OpKind::ARITHMETIC_RIGHT_SHIFT, DType::Int8,
                         binary(B::ArithmeticRightShift), vgf::ShiftAttr{false}, 127, 8));
  v.push_back(shift_case("LogicalLeftShiftInt16", OpKind::LOGICAL_LEFT_SHIFT, DType::Int16,
                         binary(B::LogicalLeftShift), vgf::NoAttr{}, 32767, 16));
  v.push_back(shift_case("LogicalRightShiftInt8", OpKind::LOGICAL_RIGHT_SHIFT, DType::Int8,
                         binary(B::LogicalRightShift), vgf::NoAttr{}, 127, 8));
  v.push_back(shift_case("LogicalRightShiftInt32", OpKind::LOGICAL_RIGHT_SHIFT, DType::Int32,
                         binary(B::LogicalRightShift), vgf::NoAttr{}, 2e9, 32));
  {
    ElementwiseCase c = bin("IntDivInt32", OpKind::INTDIV, DType::Int32, binary(B::IntDiv), vgf::NoAttr{}, -1e6, 1e6);
    c.lo2 = 1;
    c.hi2 = 1000;
    v.push_back(c);
  }
  {
    ElementwiseCase c = bin("PowFp32", OpKind::POW, DType::Fp32, binary(B::Pow), vgf::NoAttr{}, 0.1, 3);
    c.atol = 1e-5f;
    c.rtol = 1e-4f;
    v.push_back(c);
  }
  v.push_back(bin("LogicalAnd", OpKind::LOGICAL_AND, DType::Bool, binary(B::LogicalAnd), vgf::NoAttr{}, 0, 1));
  v.push_back(bin("LogicalOr", OpKind::LOGICAL_OR, DType::Bool, binary(B::LogicalOr), vgf::NoAttr{}, 0, 1));
  v.push_back(bin("LogicalXor", OpKind::LOGICAL_XOR, DType::Bool, binary(B::LogicalXor), vgf::NoAttr{}, 0, 1));
  v.push_back(bin("EqualInt8", OpKind::EQUAL, DType::Int8, compare(tosa::CompareOp::Equal), vgf::NoAttr{}, -3, 3, DType::Bool));
  v.push_back(bin("GreaterInt32", OpKind::GREATER, DType::Int32, compare(tosa::CompareOp::Greater), vgf::NoAttr{}, -5, 5, DType::Bool));
  v.push_back(bin("GreaterEqualFp32", OpKind::GREATER_EQUAL, DType::Fp32, compare(tosa::CompareOp::GreaterEqual),
                  vgf::NoAttr{}, -2, 2, DType::Bool));
  v.push_back(bin("GreaterInt16", OpKind::GREATER, DType::Int16, compare(tosa::CompareOp::Greater), vgf::NoAttr{}, -5, 5, DType::Bool));

  v.push_back(un("AbsInt8", OpKind::ABS, DType::Int8, unary(U::Abs), -128, 127));
  v.push_back(un("AbsInt32", OpKind::ABS, DType::Int32, unary(U::Abs), -2147483648.0, 2147483647.0));
  v.push_back(un("AbsFp32", OpKind::ABS, DType::Fp32, unary(U::Abs), -5, 5));
  v.push_back(un("BitwiseNotInt16", OpKind::BITWISE_NOT, DType::Int16, unary(U::BitwiseNot), -32768, 32767));
  v.push_back(un("ClzInt32", OpKind::CLZ, DType::Int32, unary(U::Clz), -2e9, 2e9));
  v.push_back(un("LogicalNot", OpKind::LOGICAL_NOT, DType::Bool, unary(U::LogicalNot), 0, 1));
  v.push_back(un("CeilFp32", OpKind::CEIL, DType::Fp32, unary(U::Ceil), -5, 5));
  v.push_back(un("FloorFp32", OpKind::FLOOR, DType::Fp32, unary(U::Floor), -5, 5));
  v.push_back(un("ExpFp32", OpKind::EXP, DType::Fp32, unary(U::Exp), -5, 5, 1e-5f, 1e-4f));
  v.push_back(un("LogFp32", OpKind::LOG, DType::Fp32, unary(U::Log), 0.01, 50, 1e-5f, 1e-4f));
  v.push_back(un("SinFp32", OpKind::SIN, DType::Fp32, unary(U::Sin), -3, 3, 5e-4f, 0));
  v.push_back(un("CosFp32", OpKind::COS, DType::Fp32, unary(U::Cos), -3, 3, 5e-4f, 0));
  v.push_back(un("ReciprocalFp32", OpKind::RECIPROCAL, DType::Fp32, unary(U::Reciprocal), 0.1, 10, 1e-5f, 1e-4f));
  v.push_back(un("RsqrtFp32", OpKind::RSQRT, DType::Fp32, unary(U::Rsqrt), 0.1, 10, 1e-5f, 1e-4f));
  v.push_back(un("SigmoidFp32", OpKind::SIGMOID, DType::Fp32, unary(U::Sigmoid), -8, 8, 1e-5f, 1e-4f));
  v.push_back(un("TanhFp32", OpKind::TANH, DType::Fp32, unary(U::Tanh), -8, 8, 1e-5f, 1e-4f));
  v.push_back(un("ErfFp32", OpKind::ERF, DType::Fp32, unary(U::Erf), -3, 3, 1e-5f, 1e-4f));

  auto negate = [](int64_t in_zp, int64_t out_zp) -> CpuFn {
    return [=](const std::vector<HostTensor>& in, HostTensor& out) {
      tosa::NegateAttr a{int32_t(in_zp), int32_t(out_zp)};
      return tosa::negate(in[0].ref(), a, out.ref());
    };
  };
  v.push_back(un("NegateInt8ZeroPoints", OpKind::NEGATE, DType::Int8, negate(-7, 12), -128, 127, 0, 0,
                 vgf::NegateAttr{-7, 12}));
  v.push_back(un("NegateInt32", OpKind::NEGATE, DType::Int32, negate(0, 0), -2147483648.0, 2147483647.0, 0, 0,
                 vgf::NegateAttr{0, 0}));
  v.push_back(un("NegateFp32", OpKind::NEGATE, DType::Fp32, negate(0, 0), -5, 5, 0, 0, vgf::NegateAttr{0, 0}));
  auto clamp_case = [&](std::string name, DType t, int64_t lo, int64_t hi, double flo, double fhi, double rlo,
                        double rhi) {
    vgf::ClampAttr a;
    a.min_int = lo;
    a.max_int = hi;
    a.min_fp = flo;
    a.max_fp = fhi;
    CpuFn fn = [=](const std::vector<HostTensor>& in, HostTensor& out) {
      tosa::ClampAttr c;
      c.min_int = lo;
      c.max_int = hi;
      c.min_fp = float(flo);
      c.max_fp = float(fhi);
      return tosa::clamp(in[0].ref(), c, out.ref());
    };
    return un(std::move(name), OpKind::CLAMP, t, fn, rlo, rhi, 0, 0, a);
  };
  v.push_back(clamp_case("ClampInt8", DType::Int8, -20, 50, 0, 0, -128, 127));
  v.push_back(clamp_case("ClampInt16", DType::Int16, -2000, 3000, 0, 0, -32768, 32767));
  v.push_back(clamp_case("ClampInt32", DType::Int32, -7, 1 << 20, 0, 0, -2e9, 2e9));
  v.push_back(clamp_case("ClampFp32", DType::Fp32, 0, 0, -0.25, 0.5, -1, 1));
  auto gen = [&](std::string name, OpKind k, std::vector<DType> ts, std::vector<Shape> ss, DType out, Shape so,
                 vgf::OpAttributes attr, double lo, double hi, CpuFn fn) {
    ElementwiseCase c;
    c.name = std::move(name);
    c.kind = k;
    c.in_types = std::move(ts);
    c.in_shapes = std::move(ss);
    c.out_type = out;
    c.out_shape = std::move(so);
    c.attr = std::move(attr);
    c.lo = lo;
    c.hi = hi;
    c.cpu = std::move(fn);
    c.atol = 1e-5f;
    c.rtol = 1e-5f;
    return c;
  };
  auto reduce = [&](std::string name, OpKind k, tosa::ReduceOp rop, DType t, int32_t axis, double lo, double hi) {
    Shape in{3, 4, 5};
    Shape out = in;
    out[size_t(axis)] = 1;
    vgf::AxisAttr a;
    a.axis = axis;
    CpuFn fn = [=](const std::vector<HostTensor>& x, HostTensor& o) {
      tosa::AxisAttr ra;
      ra.axis = axis;
      return tosa::reduce(rop, x[0].ref(), ra, o.ref());
    };
    return gen(std::move(name), k, {t}, {in}, t, out, a, lo, hi, fn);
  };
  v.push_back(reduce("ReduceSumInt32", OpKind::REDUCE_SUM, tosa::ReduceOp::Sum, DType::Int32, 1, -1e9, 1e9));
  v.push_back(reduce("ReduceSumFp32", OpKind::REDUCE_SUM, tosa::ReduceOp::Sum, DType::Fp32, 2, -1, 1));
  v.push_back(reduce("ReduceMaxInt8", OpKind::REDUCE_MAX, tosa::ReduceOp::Max, DType::Int8, 0, -128, 127));
  v.push_back(reduce("ReduceMinInt16", OpKind::REDUCE_MIN, tosa::ReduceOp::Min, DType::Int16, 2, -32768, 32767));
  v.push_back(reduce("ReduceMinFp32", OpKind::REDUCE_MIN, tosa::ReduceOp::Min, DType::Fp32, 1, -5, 5));
  v.push_back(reduce("ReduceProductFp32", OpKind::REDUCE_PRODUCT, tosa::ReduceOp::Product, DType::Fp32, 1, 0.5, 1.5));
  v.push_back(reduce("ReduceAll", OpKind::REDUCE_ALL, tosa::ReduceOp::All, DType::Bool, 2, 0, 1));
  v.push_back(reduce("ReduceAny", OpKind::REDUCE_ANY, tosa::ReduceOp::Any, DType::Bool, 0, 0, 1));
  for (DType t : {DType::Int8, DType::Fp32}) {
    vgf::ArgmaxAttr a;
    a.axis = 1;
    CpuFn fn = [](const std::vector<HostTensor>& x, HostTensor& o) {
      tosa::ArgmaxAttr aa;
      aa.axis = 1;
      return tosa::argmax(x[0].ref(), aa, o.ref());
    };
    // A narrow int8 range makes ties common: the first maximum must win.
    v.push_back(gen(std::string("Argmax_") + vgf::dtype_name(t), OpKind::ARGMAX, {t}, {{3, 6, 4}}, DType::Int32,
                    {3, 4}, a, t == DType::Int8 ? -3 : -5, t == DType::Int8 ? 3 : 5, fn));
  }
  for (DType t : {DType::Int8, DType::Int16, DType::Fp32}) {
    CpuFn fn = [](const std::vector<HostTensor>& x, HostTensor& o) {
      return tosa::select(x[0].ref(), x[1].ref(), x[2].ref(), o.ref());
    };
    v.push_back(gen(std::string("Select_") + vgf::dtype_name(t), OpKind::SELECT, {DType::Bool, t, t},
                    {{2, 1, 5}, {2, 3, 5}, {1, 3, 1}}, t, {2, 3, 5}, vgf::NoAttr{}, -100, 100, fn));
  }
  {
    CpuFn fn = [](const std::vector<HostTensor>& x, HostTensor& o) {
      return tosa::gather(x[0].ref(), x[1].ref(), o.ref());
    };
    ElementwiseCase c = gen("GatherInt16", OpKind::GATHER, {DType::Int16, DType::Int32}, {{2, 7, 3}, {2, 5}},
                            DType::Int16, {2, 5, 3}, vgf::NoAttr{}, -1000, 1000, fn);
    c.lo2 = 0;
    c.hi2 = 6;
    v.push_back(c);
  }
  auto cast = [&](DType from, DType to, double lo, double hi) {
    CpuFn fn = [](const std::vector<HostTensor>& x, HostTensor& o) { return tosa::cast(x[0].ref(), o.ref()); };
    return gen(std::string("Cast_") + vgf::dtype_name(from) + "_" + vgf::dtype_name(to), OpKind::CAST, {from},
               {{5, 13}}, to, {5, 13}, vgf::NoAttr{}, lo, hi, fn);
  };
  v.push_back(cast(DType::Int32, DType::Int8, -1e9, 1e9));  // narrowing wraps
  v.push_back(cast(DType::Int8, DType::Int32, -128, 127));
  v.push_back(cast(DType::Int16, DType::Fp32, -32768, 32767));
  v.push_back(cast(DType::Fp32, DType::Int8, -300, 300));  // saturates, rounds to even
  v.push_back(cast(DType::Fp32, DType::Int32, -3e9, 3e9));
  v.push_back(cast(DType::Fp32, DType::Int16, -4, 4));
  v.push_back(cast(DType::Int32, DType::Bool, -2, 2));
  v.push_back(cast(DType::Bool, DType::Int16, 0, 1));
  v.push_back(cast(DType::Fp32, DType::Bool, -1, 1));
  return v;
}

INSTANTIATE_TEST_SUITE_P(Ops, VulkanElementwise, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<ElementwiseCase>& i) { return i.param.name; });

// ---- Data movement ----

struct MoveCase {
  std::string name;
  OpKind kind;
  DType type;
  std::vector<Shape> in_shapes;
  Shape out_shape;
  vgf::OpAttributes attr;
  std::function<Status(const std::vector<HostTensor>&, HostTensor&)> cpu;
};

class VulkanDataMovement : public ::testing::TestWithParam<MoveCase> {};

TEST_P(VulkanDataMovement, MatchesCpu) {
  VKRT_REQUIRE_VULKAN();
  const MoveCase& c = GetParam();
  std::mt19937 rng(7);
  GraphBuilder b;
  std::vector<HostTensor> inputs;
  std::vector<TensorId> ids;
  for (const Shape& s : c.in_shapes) {
    HostTensor h(c.type, s);
    if (c.type == DType::Fp32) {
      fill_random(h, rng, -10, 10);
    } else {
      fill_random(h, rng, -100, 100);
    }
    ids.push_back(b.input(c.type, s));
    inputs.push_back(std::move(h));
  }
  TensorId out = b.tensor(c.type, c.out_shape);
  b.op(c.kind, ids, {out}, c.attr);
  b.output(out);
  HostTensor expected(c.type, c.out_shape);
  Status cs = c.cpu(inputs, expected);
  ASSERT_TRUE(cs.is_ok()) << cs.message();
  std::vector<HostTensor> outputs;
  Status r = run_on_vulkan(b.graph, inputs, outputs);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_TRUE(bytes_equal(expected, outputs[0]));
}

std::vector<MoveCase> move_cases() {
  std::vector<MoveCase> v;
  for (DType t : {DType::Int8, DType::Int16, DType::Fp32, DType::Int48}) {
    std::string ts = vgf::dtype_name(t);
    {
      vgf::TransposeAttr a;
      a.perms = {2, 0, 3, 1};
      v.push_back({"Transpose_" + ts, OpKind::TRANSPOSE, t, {{2, 3, 4, 5}}, {4, 2, 5, 3}, a,
                   [](const std::vector<HostTensor>& in, HostTensor& out) {
                     tosa::TransposeAttr ta;
                     ta.perms = {2, 0, 3, 1};
                     return tosa::transpose(in[0].ref(), ta, out.ref());
                   }});
    }
    {
      vgf::PadAttr a;
      a.padding = {1, 0, 0, 2, 3, 1};
      a.pad_const_int = -5;
      a.pad_const_fp = 1.5;
      v.push_back({"Pad_" + ts, OpKind::PAD, t, {{2, 3, 4}}, {3, 5, 8}, a,
                   [](const std::vector<HostTensor>& in, HostTensor& out) {
                     tosa::PadAttr pa;
                     pa.padding = {1, 0, 0, 2, 3, 1};
                     pa.pad_const_int = -5;
                     pa.pad_const_fp = 1.5f;
                     return tosa::pad(in[0].ref(), pa, out.ref());
                   }});
    }
    {
      vgf::AxisAttr a;
      a.axis = 1;
      v.push_back({"Concat_" + ts, OpKind::CONCAT, t, {{2, 3, 4}, {2, 1, 4}, {2, 5, 4}}, {2, 9, 4}, a,
                   [](const std::vector<HostTensor>& in, HostTensor& out) {
                     std::vector<tosa::TensorRef> refs;
                     for (const auto& h : in) refs.push_back(h.ref());
                     tosa::AxisAttr ca;
                     ca.axis = 1;
                     return tosa::concat(refs, ca, out.ref());
                   }});
    }
  }
  {
    vgf::SliceAttr a;
    a.start = {1, 0, 2};
    a.size = {2, 3, 3};
    v.push_back({"SliceInt8", OpKind::SLICE, DType::Int8, {{3, 4, 6}}, {2, 3, 3}, a,
                 [](const std::vector<HostTensor>& in, HostTensor& out) {
                   tosa::SliceAttr sa;
                   sa.start = {1, 0, 2};
                   return tosa::slice(in[0].ref(), sa, out.ref());
                 }});
  }
  {
    vgf::TileAttr a;
    a.multiples = {2, 1, 3};
    v.push_back({"TileInt16", OpKind::TILE, DType::Int16, {{2, 3, 2}}, {4, 3, 6}, a,
                 [](const std::vector<HostTensor>& in, HostTensor& out) {
                   tosa::TileAttr ta;
                   ta.multiples = {2, 1, 3};
                   return tosa::tile(in[0].ref(), ta, out.ref());
                 }});
  }
  {
    vgf::AxisAttr a;
    a.axis = 2;
    v.push_back({"ReverseFp32", OpKind::REVERSE, DType::Fp32, {{2, 3, 5}}, {2, 3, 5}, a,
                 [](const std::vector<HostTensor>& in, HostTensor& out) {
                   tosa::AxisAttr ra;
                   ra.axis = 2;
                   return tosa::reverse(in[0].ref(), ra, out.ref());
                 }});
  }
  {
    vgf::ReshapeAttr a;
    a.shape = {6, 5};
    v.push_back({"ReshapeInt32", OpKind::RESHAPE, DType::Int32, {{2, 3, 5}}, {6, 5}, a,
                 [](const std::vector<HostTensor>& in, HostTensor& out) {
                   return tosa::reshape(in[0].ref(), out.ref());
                 }});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Ops, VulkanDataMovement, ::testing::ValuesIn(move_cases()),
                         [](const ::testing::TestParamInfo<MoveCase>& i) { return i.param.name; });

}  // namespace
}  // namespace vkrt::vulkan::testing
