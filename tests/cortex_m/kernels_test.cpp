// The cortex_m kernels through the kernel registry, with ExecuTorch's argument conventions:
// schema variants (scratch present or absent; linear with bias or kernel_sum), channels-last
// activations, raw vs negated zero points, and errors that name the op and the argument.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <deque>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "cortex_m/conv2d.h"
#include "cortex_m/linear.h"
#include "cortex_m/quantized_add.h"
#include "cortex_m/reference/reference_ops.h"
#include "cortex_m/support/thread_runner.h"
#include "vkrt/kernel.h"

// Counts heap allocations while `g_counting` is set (kernels must not allocate, DESIGN.md).
// The replacement pair is malloc/free; GCC's inliner misreports it as mismatched.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
namespace {
std::atomic<bool> g_counting{false};
std::atomic<int> g_allocations{0};
}  // namespace

void* operator new(size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace vkrt::cortex_m {
namespace {

// Owns the tensors and values of one kernel call.
class Call {
 public:
  template <typename T>
  EValue* tensor(std::vector<T>& data, std::vector<int32_t> sizes, std::vector<uint8_t> order = {}) {
    if (order.empty())
      for (size_t i = 0; i < sizes.size(); ++i) order.push_back(uint8_t(i));
    auto t = Tensor::make(CppTypeToScalar<T>::value, sizes, order, data.data());
    EXPECT_TRUE(t.ok()) << t.status().to_string();
    tensors_.push_back(*t);
    return push(EValue::from_tensor(&tensors_.back()));
  }
  EValue* integer(int64_t v) { return push(EValue::from_int(v)); }
  EValue* real(double v) { return push(EValue::from_double(v)); }
  EValue* boolean(bool v) { return push(EValue::from_bool(v)); }
  EValue* none() { return push(EValue()); }
  EValue* ints(std::vector<int64_t> values) {
    auto& items = lists_.emplace_back();
    for (int64_t v : values) items.push_back(push_item(EValue::from_int(v)));
    return push(EValue::from_int_list(items));
  }
  void arg(EValue* v) { args_.push_back(v); }
  void args(std::initializer_list<EValue*> vs) { args_.insert(args_.end(), vs); }

  Status run(const char* name) {
    const KernelFunction fn = KernelRegistry::global().find(name);
    if (!fn) return Status(Error::OperatorMissing, name);
    std::vector<EValue*> all = args_;
    all.push_back(all.back());  // the return slot (same value as out)
    TempAllocator temp(pool_.data(), pool_.size());
    KernelContext ctx(&temp, &runner_);
    g_allocations = 0;
    g_counting = true;
    Status s = fn(ctx, all);
    g_counting = false;
    last_allocations_ = g_allocations.load();
    return s;
  }
  std::vector<EValue*>& raw_args() { return args_; }
  // Heap allocations during the last successful or failed run().
  int last_allocations() const { return last_allocations_; }

 private:
  EValue* push(EValue v) {
    values_.push_back(v);
    return &values_.back();
  }
  EValue* push_item(EValue v) {
    items_.push_back(v);
    return &items_.back();
  }
  std::deque<Tensor> tensors_;
  std::deque<EValue> values_, items_;
  std::deque<std::vector<EValue*>> lists_;
  std::vector<EValue*> args_;
  std::vector<uint8_t> pool_ = std::vector<uint8_t>(1 << 22);
  testing::ThreadRunner runner_{2};
  int last_allocations_ = -1;
};

TEST(CortexMKernels, AllEighteenOperatorsAreRegistered) {
  for (const char* name :
       {"cortex_m::quantize_per_tensor.out", "cortex_m::dequantize_per_tensor.out", "cortex_m::quantized_add.out",
        "cortex_m::quantized_mul.out", "cortex_m::quantized_div.out", "cortex_m::quantized_activation.out",
        "cortex_m::minimum.out", "cortex_m::maximum.out", "cortex_m::quantized_linear.out", "cortex_m::softmax.out",
        "cortex_m::transpose.out", "cortex_m::pad.out", "cortex_m::quantized_conv2d.out",
        "cortex_m::quantized_depthwise_conv2d.out", "cortex_m::quantized_transpose_conv2d.out",
        "cortex_m::quantized_avg_pool2d.out", "cortex_m::quantized_max_pool2d.out",
        "cortex_m::quantized_batch_matmul.out"}) {
    EXPECT_NE(KernelRegistry::global().find(name), nullptr) << name;
  }
}

struct ConvFixture {
  // Logical NCHW [1, 6, 5, 7] stored channels-last; weights OHWI [9, 3, 3, 6].
  std::vector<int8_t> input = std::vector<int8_t>(5 * 7 * 6), weight = std::vector<int8_t>(9 * 3 * 3 * 6);
  std::vector<int32_t> bias = std::vector<int32_t>(9), mult = std::vector<int32_t>(9), shift = std::vector<int32_t>(9);
  std::vector<int8_t> out = std::vector<int8_t>(3 * 4 * 9), scratch;
  ConvFixture() {
    std::mt19937 rng(5);
    for (auto& v : input) v = int8_t(rng());
    for (auto& v : weight) v = int8_t(rng());
    for (int i = 0; i < 9; ++i) bias[i] = int32_t(rng() % 4000) - 2000, mult[i] = 1 << 30 | int32_t(rng() & 0xFFFFFF), shift[i] = -8 + i % 3;
  }
  // stride 2x2, padding 1x1: out 3x4.
  void add_args(Call& c, bool with_scratch) {
    c.args({c.tensor(input, {1, 6, 5, 7}, {0, 2, 3, 1}), c.tensor(weight, {9, 3, 3, 6}), c.tensor(bias, {9}),
            c.ints({2, 2}), c.ints({1, 1}), c.ints({1, 1}), c.integer(-3), c.integer(4), c.tensor(mult, {int32_t(mult.size())}),
            c.tensor(shift, {9}), c.integer(-128), c.integer(127)});
    if (with_scratch) c.arg(c.tensor(scratch, {0}));
    c.arg(c.tensor(out, {1, 9, 3, 4}, {0, 2, 3, 1}));
  }
  std::vector<int8_t> expected() const {
    Conv2dParams p;
    p.in_h = 5, p.in_w = 7, p.in_ch = 6, p.out_h = 3, p.out_w = 4, p.out_ch = 9, p.kernel_h = p.kernel_w = 3;
    p.stride_h = p.stride_w = 2, p.pad_h = p.pad_w = 1, p.input_offset = -3, p.output_offset = 4;
    std::vector<int8_t> want(out.size());
    reference::conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), want.data());
    return want;
  }
};

TEST(CortexMKernels, Conv2dWithAndWithoutScratchArgument) {
  for (bool with_scratch : {true, false}) {
    ConvFixture f;
    Call call;
    f.add_args(call, with_scratch);
    const Status s = call.run("cortex_m::quantized_conv2d.out");
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    EXPECT_EQ(call.last_allocations(), 0) << "the kernel allocated from the heap";
    EXPECT_EQ(f.out, f.expected());
  }
}

TEST(CortexMKernels, Conv2dErrorsNameOpAndArgument) {
  {
    ConvFixture f;
    Call call;
    f.add_args(call, true);
    call.raw_args().erase(call.raw_args().begin() + 2, call.raw_args().begin() + 4);  // 12 + return: too few
    const Status s = call.run("cortex_m::quantized_conv2d.out");
    EXPECT_EQ(s.code(), Error::InvalidArgument);
    EXPECT_NE(s.message().find("expected 14..15 arguments"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("cortex_m::quantized_conv2d.out"), std::string::npos) << s.message();
  }
  {
    ConvFixture f;
    f.mult.resize(8);  // one multiplier short
    Call call;
    f.add_args(call, true);
    const Status s = call.run("cortex_m::quantized_conv2d.out");
    EXPECT_EQ(s.code(), Error::InvalidArgument);
    EXPECT_NE(s.message().find("requantize_multipliers"), std::string::npos) << s.message();
  }
  {
    ConvFixture f;
    f.shift[2] = 40;  // outside CMSIS's [-31, 30]
    Call call;
    f.add_args(call, true);
    const Status s = call.run("cortex_m::quantized_conv2d.out");
    EXPECT_NE(s.message().find("argument 9 (requantize_shifts)"), std::string::npos) << s.message();
  }
  {
    ConvFixture f;
    Call call;
    std::vector<float> wrong(f.input.size());
    call.args({call.tensor(wrong, {1, 6, 5, 7}, {0, 2, 3, 1})});
    f.add_args(call, true);
    call.raw_args().erase(call.raw_args().begin() + 1);  // keep the float tensor as input
    const Status s = call.run("cortex_m::quantized_conv2d.out");
    EXPECT_NE(s.message().find("argument 0 (input)"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("float32"), std::string::npos) << s.message();
  }
}

TEST(CortexMKernels, LinearBiasAndKernelSumFormsAgree) {
  std::mt19937 rng(8);
  std::vector<int8_t> x(2 * 3 * 40), w(11 * 40), out_bias(2 * 3 * 11), out_sum(2 * 3 * 11);
  for (auto& v : x) v = int8_t(rng());
  for (auto& v : w) v = int8_t(rng());
  std::vector<int32_t> bias(11), kernel_sum(11);
  const int32_t in_off = 17;
  for (int o = 0; o < 11; ++o) {
    bias[o] = int32_t(rng() % 1000);
    int32_t sum = 0;
    for (int i = 0; i < 40; ++i) sum += w[o * 40 + i];
    kernel_sum[o] = bias[o] + in_off * sum;  // what the MVE build's AOT pass stores
  }
  for (bool use_sum : {false, true}) {
    Call c;
    c.args({c.tensor(x, {2, 3, 40}), c.tensor(w, {11, 40}), use_sum ? c.none() : c.tensor(bias, {11}),
            use_sum ? c.tensor(kernel_sum, {11}) : c.none(), c.integer(in_off), c.integer(0), c.integer(-3),
            c.ints({1500000000}), c.ints({-9}), c.integer(100), c.integer(-100),
            c.tensor(use_sum ? out_sum : out_bias, {2, 3, 11})});
    const Status s = c.run("cortex_m::quantized_linear.out");
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    EXPECT_EQ(c.last_allocations(), 0);
  }
  EXPECT_EQ(out_bias, out_sum);
  // activation_max (100) comes before activation_min (-100) in the schema.
  for (int8_t v : out_bias) {
    EXPECT_LE(v, 100);
    EXPECT_GE(v, -100);
  }
  LinearParams p;
  p.batches = 6, p.in_features = 40, p.out_features = 11, p.input_offset = in_off, p.output_offset = -3;
  p.multiplier = 1500000000, p.shift = -9, p.activation_min = -100, p.activation_max = 100;
  std::vector<int8_t> want(out_bias.size());
  reference::fully_connected_s8(p, x.data(), w.data(), bias.data(), &p.multiplier, &p.shift, false, want.data());
  EXPECT_EQ(out_bias, want);
}

TEST(CortexMKernels, AddNegatesRawZeroPointsAndBroadcastsChannels) {
  std::vector<int8_t> a(2 * 2 * 3), b(3), out(12);
  for (int i = 0; i < 12; ++i) a[i] = int8_t(i * 9 - 50);
  b = {-7, 0, 9};
  Call c;
  // self [1,3,2,2] channels-last, other [1,3,1,1] (C values): the small operand is `other`.
  c.args({c.tensor(a, {1, 3, 2, 2}, {0, 2, 3, 1}), c.integer(5), c.integer(1 << 30), c.integer(0), c.tensor(b, {1, 3, 1, 1}),
          c.integer(-2), c.integer(1 << 30), c.integer(0), c.integer(1), c.integer(1 << 30), c.integer(-18),
          c.integer(-128), c.integer(127), c.tensor(out, {1, 3, 2, 2}, {0, 2, 3, 1})});
  const Status s = c.run("cortex_m::quantized_add.out");
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(c.last_allocations(), 0);
  for (int i = 0; i < 12; ++i) {
    const int expected = std::clamp((a[i] - 5) + (b[i % 3] + 2) + 1, -128, 127);
    EXPECT_EQ(out[i], expected) << i;
  }
}

TEST(CortexMKernels, SoftmaxChecksDimAndOutputZeroPoint) {
  std::vector<int8_t> in = {1, 2, 3, 4, 5, 6}, out(6);
  for (int64_t dim : {1, -1}) {
    Call c;
    c.args({c.tensor(in, {2, 3}), c.integer(dim), c.integer(0), c.integer(-128), c.integer(1 << 30), c.integer(20),
            c.integer(-3968), c.tensor(out, {2, 3})});
    EXPECT_TRUE(c.run("cortex_m::softmax.out").is_ok());
  }
  Call bad_dim;
  bad_dim.args({bad_dim.tensor(in, {2, 3}), bad_dim.integer(0), bad_dim.integer(0), bad_dim.integer(-128),
                bad_dim.integer(1 << 30), bad_dim.integer(20), bad_dim.integer(-3968), bad_dim.tensor(out, {2, 3})});
  EXPECT_NE(bad_dim.run("cortex_m::softmax.out").message().find("argument 1 (dim)"), std::string::npos);
  Call bad_zp;
  bad_zp.args({bad_zp.tensor(in, {2, 3}), bad_zp.integer(-1), bad_zp.integer(0), bad_zp.integer(0), bad_zp.integer(1 << 30),
               bad_zp.integer(20), bad_zp.integer(-3968), bad_zp.tensor(out, {2, 3})});
  EXPECT_NE(bad_zp.run("cortex_m::softmax.out").message().find("output_zero_point"), std::string::npos);
}

TEST(CortexMKernels, QuantizeTiesToEvenAndDequantizeRoundTrip) {
  std::vector<float> x = {0.375f, 0.625f, -0.375f, 100.0f, -100.0f, 0.0f};
  std::vector<int8_t> q(6);
  Call c;
  c.args({c.tensor(x, {6}), c.real(0.25), c.integer(3), c.integer(-128), c.integer(127), c.integer(1), c.tensor(q, {6})});
  ASSERT_TRUE(c.run("cortex_m::quantize_per_tensor.out").is_ok());
  EXPECT_EQ(q, (std::vector<int8_t>{5, 5, 1, 127, -128, 3}));  // 1.5→2, 2.5→2, −1.5→−2 (+3)
  std::vector<float> back(6);
  Call d;
  d.args({d.tensor(q, {6}), d.real(0.25), d.integer(3), d.integer(-128), d.integer(127), d.integer(1), d.tensor(back, {6})});
  ASSERT_TRUE(d.run("cortex_m::dequantize_per_tensor.out").is_ok());
  EXPECT_EQ(back, (std::vector<float>{0.5f, 0.5f, -0.5f, 31.0f, -32.75f, 0.0f}));
}

// Upstream's quantize checks only the quant_min/quant_max bounds and clamps with max then
// min; dequantize also needs quant_min <= zero_point <= quant_max.
TEST(CortexMKernels, QuantizeParameterChecksAsUpstream) {
  std::vector<float> x = {1.0f, -1.0f};
  std::vector<int8_t> q(2);
  Call wide;  // a zero point outside int8 is accepted: 300 + 4 clamps to 127
  wide.args({wide.tensor(x, {2}), wide.real(0.25), wide.integer(300), wide.integer(-128), wide.integer(127),
             wide.integer(1), wide.tensor(q, {2})});
  ASSERT_TRUE(wide.run("cortex_m::quantize_per_tensor.out").is_ok());
  EXPECT_EQ(q, (std::vector<int8_t>{127, 127}));
  Call crossed;  // quant_min > quant_max: max(q, 10) then min(., -10) = -10
  crossed.args({crossed.tensor(x, {2}), crossed.real(0.25), crossed.integer(0), crossed.integer(10),
                crossed.integer(-10), crossed.integer(1), crossed.tensor(q, {2})});
  ASSERT_TRUE(crossed.run("cortex_m::quantize_per_tensor.out").is_ok());
  EXPECT_EQ(q, (std::vector<int8_t>{-10, -10}));
  Call bound;  // quant_max above the dtype
  bound.args({bound.tensor(x, {2}), bound.real(0.25), bound.integer(0), bound.integer(-128), bound.integer(128),
              bound.integer(1), bound.tensor(q, {2})});
  EXPECT_NE(bound.run("cortex_m::quantize_per_tensor.out").message().find("argument 4 (quant_max)"), std::string::npos);
  std::vector<float> back(2);
  Call zp;  // dequantize: zero point outside [quant_min, quant_max]
  zp.args({zp.tensor(q, {2}), zp.real(0.25), zp.integer(20), zp.integer(-10), zp.integer(10), zp.integer(1),
           zp.tensor(back, {2})});
  EXPECT_NE(zp.run("cortex_m::dequantize_per_tensor.out").message().find("argument 2 (zero_point)"), std::string::npos);
}

// Average pooling: the out tensor must have the size the parameters give (ceil_mode included).
TEST(CortexMKernels, AvgPoolOutputSizeFollowsTheParameters) {
  std::vector<int8_t> in(25), out3(9), out2(4);
  for (int i = 0; i < 25; ++i) in[size_t(i)] = int8_t(i);
  auto pool = [&](std::vector<int8_t>& out, int32_t size, bool ceil_mode) {
    Call c;  // 5x5, kernel 2, stride 2: floor 2x2, ceil 3x3
    c.args({c.tensor(in, {1, 1, 5, 5}), c.ints({2, 2}), c.ints({2, 2}), c.ints({0, 0}), c.boolean(ceil_mode),
            c.integer(0), c.integer(1 << 30), c.integer(1), c.tensor(out, {1, 1, size, size})});
    return c.run("cortex_m::quantized_avg_pool2d.out");
  };
  EXPECT_TRUE(pool(out2, 2, false).is_ok());
  EXPECT_EQ(out2, (std::vector<int8_t>{3, 5, 13, 15}));  // (0+1+5+6)/4 = 3, ...
  EXPECT_TRUE(pool(out3, 3, true).is_ok());
  EXPECT_EQ(out3[2], int8_t(7));                         // the edge window holds 4 and 9: 6.5 -> 7
  const Status wrong = pool(out3, 3, false);
  EXPECT_NE(wrong.message().find("does not match the pooling parameters' 2x2"), std::string::npos) << wrong.message();
}

// quantized_activation maps element i of memory to element i, as upstream: only the element
// counts must agree.
TEST(CortexMKernels, ActivationNeedsOnlyEqualElementCounts) {
  std::vector<int8_t> in = {-128, 0, 127, 5}, lut(256), out(4);
  for (int i = 0; i < 256; ++i) lut[size_t(i)] = int8_t(127 - i);
  Call c;
  c.args({c.tensor(in, {1, 4}), c.tensor(lut, {256}), c.tensor(out, {2, 2})});
  ASSERT_TRUE(c.run("cortex_m::quantized_activation.out").is_ok());
  EXPECT_EQ(out, (std::vector<int8_t>{127, -1, -128, -6}));
  std::vector<int8_t> small(3);
  Call d;
  d.args({d.tensor(in, {4}), d.tensor(lut, {256}), d.tensor(small, {3})});
  EXPECT_NE(d.run("cortex_m::quantized_activation.out").message().find("expected 4 elements"), std::string::npos);
}

TEST(CortexMKernels, TransposeAndPad) {
  std::vector<int8_t> in = {1, 2, 3, 4, 5, 6}, out(6);
  Call t;
  t.args({t.tensor(in, {2, 3}), t.ints({1, 0}), t.tensor(out, {3, 2})});
  ASSERT_TRUE(t.run("cortex_m::transpose.out").is_ok());
  EXPECT_EQ(out, (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));
  std::vector<int8_t> padded(1 * 2 * 4 * 3);
  Call p;  // [1, 1, 2, 3] NHWC-physical input, pad W by 1 on each side.
  p.args({p.tensor(in, {1, 1, 2, 3}), p.ints({0, 1, 1, 0}), p.ints({0, 0, 1, 0}), p.integer(-9),
          p.tensor(padded, {1, 2, 4, 3})});
  ASSERT_TRUE(p.run("cortex_m::pad.out").is_ok());
  const std::vector<int8_t> want = {-9, -9, -9, -9, -9, -9, -9, -9, -9, -9, -9, -9,
                                    -9, -9, -9, 1,  2,  3,  4,  5,  6,  -9, -9, -9};
  EXPECT_EQ(padded, want);
}

TEST(CortexMKernels, MaxPoolRejectsDifferentZeroPoints) {
  std::vector<int8_t> in(16), out(4);
  Call c;
  c.args({c.tensor(in, {1, 1, 4, 4}), c.ints({2, 2}), c.ints({2, 2}), c.ints({0, 0}), c.ints({1, 1}), c.boolean(false),
          c.integer(3), c.integer(4), c.integer(-128), c.integer(127), c.tensor(out, {1, 1, 2, 2})});
  const Status s = c.run("cortex_m::quantized_max_pool2d.out");
  EXPECT_NE(s.message().find("argument 7 (output_zero_point)"), std::string::npos) << s.message();
}

TEST(CortexMKernels, BatchMatmulTakesNegatedZeroPoints) {
  std::vector<int8_t> lhs = {1, 2, 3, 4}, rhs = {5, 6, 7, 8}, out(4);  // [1,2,2] x [1,2,2]^T
  Call c;
  // lhs zp 1 → passed as −1; rhs zp −2 → passed as 2; output zp 3.
  c.args({c.tensor(lhs, {1, 2, 2}), c.integer(-1), c.tensor(rhs, {1, 2, 2}), c.integer(2), c.integer(3),
          c.integer(1 << 30), c.integer(1), c.tensor(out, {1, 2, 2})});
  ASSERT_TRUE(c.run("cortex_m::quantized_batch_matmul.out").is_ok());
  EXPECT_EQ(c.last_allocations(), 0);
  // (1-1)(5+2) + (2-1)(6+2) = 8 → +3 = 11; row 0 col 1: 0·9 + 1·10 = 10 → 13
  EXPECT_EQ(out, (std::vector<int8_t>{11, 13, 2 * 7 + 3 * 8 + 3, 2 * 9 + 3 * 10 + 3}));
}

}  // namespace
}  // namespace vkrt::cortex_m
