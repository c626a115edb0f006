// Weights packed once ahead (what a loaded method does for constant weights) against the
// reference loops, bit for bit: fully connected and convolution over shapes that reach every
// path (1..4-row GEMV over packed panels, the tiled GEMM split by rows or by columns), both
// bias forms, offsets at their ends; a packing that does not belong to the call is ignored;
// and the kernels' load-time preparation through a real one-op program.
#include <gtest/gtest.h>

#include <cstring>
#include <algorithm>
#include <random>
#include <vector>

#include "cortex_m/conv2d.h"
#include "cortex_m/linear.h"
#include "cortex_m/reference/reference_ops.h"
#include "cortex_m/support/test_exec.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

#define PW_CONCAT_INNER(a, b) a##b
#define PW_CONCAT(a, b) PW_CONCAT_INNER(a, b)
#define ASSERT_OK(expr)                                  \
  do {                                                   \
    const ::vkrt::Status pw_status = (expr);             \
    ASSERT_TRUE(pw_status.is_ok()) << pw_status.to_string(); \
  } while (0)
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                              \
  auto PW_CONCAT(pw_result_, __LINE__) = (expr);                                     \
  ASSERT_TRUE(PW_CONCAT(pw_result_, __LINE__).ok()) << PW_CONCAT(pw_result_, __LINE__).status().to_string(); \
  lhs = std::move(PW_CONCAT(pw_result_, __LINE__)).value()

namespace vkrt::cortex_m {
namespace {

namespace ref = vkrt::cortex_m::reference;

using testing_support::pick;
using testing_support::random_values;
using Runner = testing_support::TestExec;

// The packed-ahead path exists at the AVX2 and AVX-512 VNNI levels (gemm_s8.h).
bool packing_available() {
  LinearParams p;
  p.in_features = 8, p.out_features = 8, p.multiplier = 1 << 30;
  return linear_s8_packed_bytes(p) > 0;
}

// kernel_sum (MVE form) for the same product as `bias` with input offset in_off.
std::vector<int32_t> kernel_sum_of(const LinearParams& p, const std::vector<int8_t>& w, const std::vector<int32_t>& bias) {
  std::vector<int32_t> sums(size_t(p.out_features));
  for (int32_t o = 0; o < p.out_features; ++o) {
    uint32_t s = uint32_t(bias[size_t(o)]);
    for (int32_t i = 0; i < p.in_features; ++i)
      s += uint32_t(p.input_offset) * uint32_t(int32_t(w[size_t(o) * p.in_features + i]) + p.filter_offset);
    sums[size_t(o)] = int32_t(s);
  }
  return sums;
}

void linear_matches_reference_at_any_shape_at_one_level() {
  if (!packing_available()) return;  // this level (portable) never packs ahead
  std::mt19937 rng(2026);
  Runner one(1), two(2);
  for (int iteration = 0; iteration < 250; ++iteration) {
    LinearParams p;
    p.batches = pick(rng, {1, 1, 2, 3, 4, 5, 9, 33, 49, 100});
    p.in_features = pick(rng, {1, 3, 4, 5, 16, 17, 64, 65, 200, 333});
    p.out_features = pick(rng, {1, 5, 12, 16, 17, 33, 64, 100, 659});
    if (iteration % 10 == 0) p.batches = 49, p.in_features = 320, p.out_features = 700;  // threads split columns
    if (iteration % 10 == 1) p.batches = 300, p.in_features = 200, p.out_features = 40;   // threads split rows
    p.input_offset = pick(rng, {128, 128, 0, 3, -127, 127});
    p.filter_offset = pick(rng, {0, 0, 2, -3});
    p.output_offset = pick(rng, {0, -5, 127, -128});
    p.multiplier = int32_t(1u << 30 | (rng() & 0x3FFFFFFF));
    p.shift = pick(rng, {-9, -1, 0, 2});
    p.activation_min = pick(rng, {-128, -128, -20});
    p.activation_max = pick(rng, {127, 127, 30});
    const auto x = random_values<int8_t>(size_t(p.batches) * p.in_features, rng);
    const auto w = random_values<int8_t>(size_t(p.out_features) * p.in_features, rng);
    const auto bias = random_values<int32_t>(size_t(p.out_features), rng, -100000, 100000);
    const size_t n = size_t(p.batches) * p.out_features;
    std::vector<int8_t> want(n);
    ref::fully_connected_s8(p, x.data(), w.data(), bias.data(), &p.multiplier, &p.shift, false, want.data());

    const bool use_kernel_sum = iteration % 3 == 2;
    const auto kernel_sum = kernel_sum_of(p, w, bias);
    const int32_t* b = use_kernel_sum ? nullptr : bias.data();
    const int32_t* ks = use_kernel_sum ? kernel_sum.data() : nullptr;
    std::vector<uint8_t> memory(linear_s8_packed_bytes(p));
    const GemmS8PackedB* packed = linear_s8_pack_weights(p, w.data(), b, ks, memory);
    ASSERT_NE(packed, nullptr);
    for (Runner* r : {&one, &two}) {
      std::vector<int8_t> got(n, 0x55);
      linear_s8(p, x.data(), w.data(), b, ks, got.data(), r->make(linear_s8_scratch_bytes(p, r->runner.num_threads(), packed)),
                packed);
      ASSERT_EQ(got, want) << "iteration " << iteration << ": " << p.batches << "x" << p.in_features << "->"
                           << p.out_features << " in_off " << p.input_offset << " w_off " << p.filter_offset
                           << (use_kernel_sum ? " kernel_sum" : " bias") << ", " << r->runner.num_threads() << " threads";
    }
  }
}

TEST(CortexMPackedWeights, LinearMatchesReferenceAtAnyShape) {
  testing_support::at_every_isa_level(linear_matches_reference_at_any_shape_at_one_level);
}

void convolution_matches_reference_at_any_shape_at_one_level() {
  if (!packing_available()) return;  // this level (portable) never packs ahead
  std::mt19937 rng(7);
  Runner two(2);
  for (int iteration = 0; iteration < 120; ++iteration) {
    Conv2dParams p;
    p.batches = pick(rng, {1, 1, 2});
    p.in_ch = pick(rng, {1, 3, 8, 17, 32, 96});
    p.out_ch = pick(rng, {1, 7, 16, 24, 33, 144});
    p.kernel_h = p.kernel_w = pick(rng, {1, 1, 3});
    p.stride_h = p.stride_w = pick(rng, {1, 2});
    p.pad_h = p.pad_w = p.kernel_h == 3 ? pick(rng, {0, 1}) : 0;
    p.in_h = pick(rng, {1, 2, 7, 14});
    p.in_w = pick(rng, {1, 3, 7, 14});
    if (p.in_h + 2 * p.pad_h < p.kernel_h || p.in_w + 2 * p.pad_w < p.kernel_w) p.pad_h = p.pad_w = 1, p.in_h = p.in_w = 3;
    p.out_h = (p.in_h + 2 * p.pad_h - p.kernel_h) / p.stride_h + 1;
    p.out_w = (p.in_w + 2 * p.pad_w - p.kernel_w) / p.stride_w + 1;
    p.input_offset = pick(rng, {128, 0, 5, -127});
    p.output_offset = pick(rng, {0, -3, 100});
    const int64_t taps = int64_t(p.kernel_h) * p.kernel_w * p.in_ch;
    const auto input = random_values<int8_t>(size_t(p.batches) * p.in_h * p.in_w * p.in_ch, rng);
    const auto weight = random_values<int8_t>(size_t(p.out_ch * taps), rng);
    const auto bias = random_values<int32_t>(size_t(p.out_ch), rng, -50000, 50000);
    std::vector<int32_t> mult(size_t(p.out_ch)), shift(size_t(p.out_ch));
    for (int32_t c = 0; c < p.out_ch; ++c) {
      mult[size_t(c)] = int32_t(1u << 30 | (rng() & 0x3FFFFFFF));
      shift[size_t(c)] = pick(rng, {-10, -7, -1, 0, 1, 3});  // negative and positive per channel
    }
    const size_t n = size_t(p.batches) * p.out_h * p.out_w * p.out_ch;
    std::vector<int8_t> want(n), got(n, 0x55);
    ref::conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), want.data());
    std::vector<uint8_t> memory(conv2d_s8_packed_bytes(p));
    const GemmS8PackedB* packed =
        conv2d_s8_pack_weights(p, weight.data(), bias.data(), mult.data(), shift.data(), memory);
    ASSERT_NE(packed, nullptr);
    conv2d_s8(p, input.data(), weight.data(), bias.data(), mult.data(), shift.data(), got.data(),
              two.make(conv2d_s8_scratch_bytes(p, 2, packed)), packed);
    ASSERT_EQ(got, want) << "iteration " << iteration << ": " << p.in_h << "x" << p.in_w << "x" << p.in_ch << " -> "
                         << p.out_ch << " k" << p.kernel_h << " s" << p.stride_h << " pad " << p.pad_h;
  }
}

TEST(CortexMPackedWeights, ConvolutionMatchesReferenceAtAnyShape) {
  testing_support::at_every_isa_level(convolution_matches_reference_at_any_shape_at_one_level);
}

// A packing built from other weights, another bias or another scale must not be used.
void packing_of_another_call_is_ignored_at_one_level() {
  if (!packing_available()) return;  // this level (portable) never packs ahead
  std::mt19937 rng(5);
  Runner two(2);
  LinearParams p;
  p.batches = 40, p.in_features = 96, p.out_features = 48;
  p.input_offset = 128, p.multiplier = 1 << 30, p.shift = -7;
  const auto x = random_values<int8_t>(size_t(p.batches) * p.in_features, rng);
  const auto w = random_values<int8_t>(size_t(p.out_features) * p.in_features, rng);
  const auto other_w = random_values<int8_t>(w.size(), rng);
  const auto bias = random_values<int32_t>(size_t(p.out_features), rng, -9000, 9000);
  const auto other_bias = random_values<int32_t>(size_t(p.out_features), rng, -9000, 9000);
  std::vector<int8_t> want(size_t(p.batches) * p.out_features);
  ref::fully_connected_s8(p, x.data(), w.data(), bias.data(), &p.multiplier, &p.shift, false, want.data());

  struct Stale {
    const char* what;
    const int8_t* weights;
    const int32_t* bias;
    int32_t multiplier;
  };
  for (const Stale& s : {Stale{"other weights", other_w.data(), bias.data(), p.multiplier},
                         Stale{"other bias", w.data(), other_bias.data(), p.multiplier},
                         Stale{"other multiplier", w.data(), bias.data(), p.multiplier / 2}}) {
    LinearParams packed_for = p;
    packed_for.multiplier = s.multiplier;
    std::vector<uint8_t> memory(linear_s8_packed_bytes(packed_for));
    const GemmS8PackedB* stale = linear_s8_pack_weights(packed_for, s.weights, s.bias, nullptr, memory);
    ASSERT_NE(stale, nullptr);
    std::vector<int8_t> got(want.size(), 0x55);
    linear_s8(p, x.data(), w.data(), bias.data(), nullptr, got.data(), two.make(linear_s8_scratch_bytes(p, 2)), stale);
    EXPECT_EQ(got, want) << s.what;
  }
}

TEST(CortexMPackedWeights, PackingOfAnotherCallIsIgnored) {
  testing_support::at_every_isa_level(packing_of_another_call_is_ignored_at_one_level);
}

// ---- through a loaded method -----------------------------------------------------------------
template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// quantized_linear with the weights either a program constant (packed at load) or a method
// input (never packed: they may change between runs).
std::vector<uint8_t> linear_program(const LinearParams& p, const std::vector<int8_t>& w, const std::vector<int32_t>& bias,
                                    bool weights_are_input) {
  constexpr ScalarType I8 = ScalarType::Char;
  std::vector<OpArg> args;
  args.push_back(OpArg::input(I8, {int32_t(p.batches), p.in_features}));
  args.push_back(weights_are_input ? OpArg::input(I8, {p.out_features, p.in_features})
                                   : OpArg::constant(TensorSpec::make(I8, {p.out_features, p.in_features}), bytes_of(w)));
  args.push_back(OpArg::constant_of<int32_t>({p.out_features}, bias));
  args.push_back(OpArg::none());
  args.push_back(OpArg::integer(p.input_offset));
  args.push_back(OpArg::integer(p.filter_offset));
  args.push_back(OpArg::integer(p.output_offset));
  args.push_back(OpArg::int_list({p.multiplier}));
  args.push_back(OpArg::int_list({p.shift}));
  args.push_back(OpArg::integer(p.activation_max));
  args.push_back(OpArg::integer(p.activation_min));
  args.push_back(OpArg::output(I8, {int32_t(p.batches), p.out_features}));
  auto program = make_one_op_program("cortex_m::quantized_linear.out", std::move(args));
  EXPECT_TRUE(program.ok()) << program.status().to_string();
  return program.ok() ? std::move(program).value() : std::vector<uint8_t>{};
}

TEST(CortexMPackedWeights, MethodPacksConstantWeightsAtLoadOnly) {
  std::mt19937 rng(11);
  LinearParams p;
  p.batches = 20, p.in_features = 72, p.out_features = 40;
  p.input_offset = 128, p.output_offset = -4, p.multiplier = 1 << 30, p.shift = -6;
  auto w = random_values<int8_t>(size_t(p.out_features) * p.in_features, rng);
  const auto bias = random_values<int32_t>(size_t(p.out_features), rng, -5000, 5000);
  auto x = random_values<int8_t>(size_t(p.batches) * p.in_features, rng);
  const bool packs = packing_available();

  for (bool weights_are_input : {false, true}) {
    SCOPED_TRACE(weights_are_input ? "weights as input" : "constant weights");
    const std::vector<uint8_t> program = linear_program(p, w, bias, weights_are_input);
    ASSERT_OK_AND_ASSIGN(auto module, Module::load_from_buffer(program));
    ASSERT_OK_AND_ASSIGN(Method * method, module->load_method("forward"));
    const bool expect_packed = packs && !weights_are_input;
    // Constant weights: the call is parsed at load (and packed where the CPU has the GEMM);
    // weights as an input: everything is parsed at execute.
    EXPECT_EQ(method->load_stats().prepared_instructions, weights_are_input ? 0u : 1u);
    EXPECT_EQ(method->load_stats().prepared_bytes >= linear_s8_packed_bytes(p) && linear_s8_packed_bytes(p) > 0,
              expect_packed);
    // Two runs; with weights as an input they change in between (a packing would go stale).
    for (int run = 0; run < 2; ++run) {
      if (run == 1 && weights_are_input)
        for (auto& v : w) v = int8_t(-v / 2);
      const int32_t xs[] = {int32_t(p.batches), p.in_features}, ws[] = {p.out_features, p.in_features};
      ASSERT_OK_AND_ASSIGN(Tensor xt, Tensor::make(ScalarType::Char, xs, x.data()));
      ASSERT_OK_AND_ASSIGN(Tensor wt, Tensor::make(ScalarType::Char, ws, w.data()));
      ASSERT_OK(method->set_input(0, EValue::from_tensor(&xt)));
      if (weights_are_input) ASSERT_OK(method->set_input(1, EValue::from_tensor(&wt)));
      ASSERT_OK(method->execute());
      std::vector<int8_t> want(size_t(p.batches) * p.out_features);
      ref::fully_connected_s8(p, x.data(), w.data(), bias.data(), &p.multiplier, &p.shift, false, want.data());
      const Tensor& out = method->output(0).to_tensor();
      ASSERT_EQ(size_t(out.numel()), want.size());
      EXPECT_EQ(std::vector<int8_t>(out.data_as<int8_t>(), out.data_as<int8_t>() + out.numel()), want) << "run " << run;
    }
  }
}

// The int16 form (arm_fully_connected_s16): constant weights packed into the A16W8 panels at load
// where the level has them, and read from there by calls of 16 rows or more (fewer read the
// weights in place); the method's output that of linear_s16's portable loop (which the CMSIS-NN
// vectors check).
TEST(CortexMPackedWeights, MethodPacksInt16LinearWeightsAtLoad) {
  std::mt19937 rng(13);
  LinearParams p;
  p.batches = 20, p.in_features = 200, p.out_features = 24;  // 16 rows or more: the panel form
  p.multiplier = 1 << 30, p.shift = -9, p.activation_min = -32768, p.activation_max = 32767;
  const auto w = random_values<int8_t>(size_t(p.out_features) * p.in_features, rng);
  const auto bias = random_values<int64_t>(size_t(p.out_features), rng, -100000, 100000);
  const auto x = random_values<int16_t>(size_t(p.batches) * p.in_features, rng, -32768, 32767);
  constexpr ScalarType I16 = ScalarType::Short, I8 = ScalarType::Char;
  std::vector<OpArg> args;
  args.push_back(OpArg::input(I16, {int32_t(p.batches), p.in_features}));
  args.push_back(OpArg::constant(TensorSpec::make(I8, {p.out_features, p.in_features}), bytes_of(w)));
  args.push_back(OpArg::constant_of<int64_t>({p.out_features}, bias));
  args.push_back(OpArg::none());
  for (int32_t v : {p.input_offset, p.filter_offset, p.output_offset}) args.push_back(OpArg::integer(v));
  args.push_back(OpArg::int_list({p.multiplier}));
  args.push_back(OpArg::int_list({p.shift}));
  args.push_back(OpArg::integer(p.activation_max));
  args.push_back(OpArg::integer(p.activation_min));
  args.push_back(OpArg::output(I16, {int32_t(p.batches), p.out_features}));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> program, make_one_op_program("cortex_m::quantized_linear.out", std::move(args)));
  ASSERT_OK_AND_ASSIGN(auto module, Module::load_from_buffer(program));
  ASSERT_OK_AND_ASSIGN(Method * method, module->load_method("forward"));
  const size_t packed_bytes = linear_s16_packed_bytes(p);
  EXPECT_EQ(method->load_stats().prepared_instructions, 1u);
  if (packed_bytes > 0) {
    EXPECT_GE(method->load_stats().prepared_bytes, packed_bytes);
    // The program's own weight bytes zeroed after load: a kernel that reads its packing gives the
    // loaded weights' output, one that packed per call would give the bias alone.
    const auto at = std::search(program.begin(), program.end(), reinterpret_cast<const uint8_t*>(w.data()),
                                reinterpret_cast<const uint8_t*>(w.data() + w.size()));
    ASSERT_NE(at, program.end());
    std::fill_n(at, w.size(), uint8_t(0));
  }
  const int32_t xs[] = {int32_t(p.batches), p.in_features};
  ASSERT_OK_AND_ASSIGN(Tensor xt, Tensor::make(I16, xs, const_cast<int16_t*>(x.data())));
  ASSERT_OK(method->set_input(0, EValue::from_tensor(&xt)));
  ASSERT_OK(method->execute());
  std::vector<int16_t> want(size_t(p.batches) * p.out_features);
  linear_s16(p, x.data(), w.data(), bias.data(), nullptr, want.data());  // no scratch: the portable loop
  const Tensor& out = method->output(0).to_tensor();
  ASSERT_EQ(size_t(out.numel()), want.size());
  EXPECT_EQ(std::vector<int16_t>(out.data_as<int16_t>(), out.data_as<int16_t>() + out.numel()), want);
}

}  // namespace
}  // namespace vkrt::cortex_m
