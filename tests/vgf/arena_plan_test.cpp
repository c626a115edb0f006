// The lifetime arena both graph executors place their intermediates in (vgf/ir/arena_plan.h),
// and the cpu executor's use of it: a layout worked out by hand, the invariants on random
// lifetimes, saturation, a graph whose intermediates share bytes and still compute what the ops
// say, and fused chains whose intermediates take no bytes where they never write them.
#include "vgf/ir/arena_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "vgf/cpu/cpu_executor.h"
#include "vgf/executor.h"
#include "vgf/ir/graph.h"
#include "vkrt/backend.h"
#include "vkrt/memory_budget.h"
#include "vkrt/tensor.h"
#include "vkrt/vgf.h"

namespace vkrt::vgf {
namespace {

bool live_together(const ArenaBlock& a, const ArenaBlock& b) { return a.first <= b.last && b.first <= a.last; }

TEST(ArenaPlan, LayoutWorkedOutByHand) {
  // Placed largest first at 64-byte alignment:
  //   C 300 [2,3] at 0;
  //   B 200 [1,2] meets C at step 2: above it, at 320;
  //   A 100 [0,1] meets B only: below it, at 0 (C is not live then);
  //   D  50 [0,3] meets all three: past A (0-100) to 128, past C (0-300) to 320, past B to 576.
  const std::vector<ArenaBlock> blocks = {{100, 0, 1}, {200, 1, 2}, {300, 2, 3}, {50, 0, 3}};
  const ArenaLayout layout = place_in_arena(blocks, 64);
  EXPECT_EQ(layout.offsets, (std::vector<uint64_t>{0, 320, 0, 576}));
  EXPECT_EQ(layout.arena_bytes, 626u);
  EXPECT_EQ(layout.peak_live_bytes, 550u);  // step 2: B, C and D
  EXPECT_EQ(layout.total_bytes, 650u);
}

TEST(ArenaPlan, TensorsLiveAtTheSameStepNeverShareBytes) {
  std::mt19937 rng(11);
  for (int round = 0; round < 50; ++round) {
    const uint64_t alignment = uint64_t(1) << (rng() % 8);
    std::vector<ArenaBlock> blocks(1 + rng() % 120);
    for (ArenaBlock& b : blocks) {
      b.bytes = rng() % 4 == 0 ? 0 : rng() % 100000;
      b.first = int64_t(rng() % 60) - 1;
      b.last = b.first + int64_t(rng() % 8);
    }
    const ArenaLayout layout = place_in_arena(blocks, alignment);
    ASSERT_EQ(layout.offsets.size(), blocks.size());
    uint64_t end = 0;
    for (size_t i = 0; i < blocks.size(); ++i) {
      EXPECT_EQ(layout.offsets[i] % alignment, 0u);
      const uint64_t size_i = std::max<uint64_t>(blocks[i].bytes, 16);
      end = std::max(end, layout.offsets[i] + size_i);
      for (size_t j = 0; j < i; ++j) {
        if (!live_together(blocks[i], blocks[j])) continue;
        const uint64_t size_j = std::max<uint64_t>(blocks[j].bytes, 16);
        EXPECT_TRUE(layout.offsets[i] + size_i <= layout.offsets[j] || layout.offsets[j] + size_j <= layout.offsets[i])
            << "round " << round << ": blocks " << j << " and " << i << " overlap";
      }
    }
    EXPECT_EQ(layout.arena_bytes, end);
    EXPECT_GE(layout.arena_bytes, layout.peak_live_bytes);
    uint64_t total = 0;
    for (const ArenaBlock& b : blocks) total += b.bytes;
    EXPECT_EQ(layout.total_bytes, total);
  }
}

TEST(ArenaPlan, SizesPastTwoToTheSixtyFourSaturate) {
  const uint64_t half = uint64_t(1) << 63;
  const std::vector<ArenaBlock> blocks = {{half, 0, 1}, {half, 1, 2}, {half, 2, 3}};
  const ArenaLayout layout = place_in_arena(blocks, 64);
  EXPECT_EQ(layout.arena_bytes, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(layout.total_bytes, std::numeric_limits<uint64_t>::max());
}

// x → x0 = x + x, then t1 = x0 + x0, ..., t6 = t5 + t5, y = t6 + x0: six 256 KiB tensors in a
// chain, with x0 live to the end (a residual connection). One buffer each would take seven;
// by lifetime, x0 and two of the chain at a time take three.
TEST(CpuExecutorArena, IntermediatesShareBytesByLifetime) {
  constexpr int32_t kSide = 256;
  constexpr uint64_t kTensorBytes = uint64_t(kSide) * kSide * 4;
  Graph g;
  auto add_tensor = [&](std::string name) {
    TensorInfo info;
    info.name = std::move(name);
    info.dtype = DType::Int32;
    info.shape = {kSide, kSide};
    return g.add_tensor(std::move(info));
  };
  const TensorId x = add_tensor("x"), x0 = add_tensor("x0");
  g.inputs.push_back({x, "x", 0, 0});
  g.ops.push_back(Op{OpKind::ADD, {x, x}, {x0}, NoAttr{}, "skip"});
  TensorId t = x0;
  for (int i = 1; i <= 6; ++i) {
    const TensorId next = add_tensor("t" + std::to_string(i));
    g.ops.push_back(Op{OpKind::ADD, {t, t}, {next}, NoAttr{}, "double" + std::to_string(i)});
    t = next;
  }
  const TensorId y = add_tensor("y");
  g.ops.push_back(Op{OpKind::ADD, {t, x0}, {y}, NoAttr{}, "residual"});
  g.outputs.push_back({y, "y", 1, 0});

  MemoryBudget budget(uint64_t(1) << 30);
  ExecutorOptions options;
  options.memory_budget = &budget;
  auto exec = make_cpu_executor();
  ASSERT_TRUE(exec->prepare(g, options).is_ok());
  // The arena plus the ADDs' scratch (none, or a little): three tensors, not seven.
  EXPECT_GE(budget.used(), 3 * kTensorBytes);
  EXPECT_LT(budget.used(), 4 * kTensorBytes);

  std::vector<int32_t> in(size_t(kSide) * kSide), out(in.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int32_t(i % 2001) - 1000;
  const int32_t sizes[2] = {kSide, kSide};
  auto xt = Tensor::make(ScalarType::Int, sizes, in.data());
  auto yt = Tensor::make(ScalarType::Int, sizes, out.data());
  ASSERT_TRUE(xt.ok() && yt.ok());
  const Tensor* ins[1] = {&*xt};
  Tensor* outs[1] = {&*yt};
  for (int run = 0; run < 2; ++run) {  // a second run reads nothing the first left behind
    std::fill(out.begin(), out.end(), 0);
    const Status s = exec->run(ins, outs, nullptr);
    ASSERT_TRUE(s.is_ok()) << s.to_string();
    // y = 2^6·x0 + x0 = 65·(2x) = 130x.
    for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], 130 * in[i]) << "element " << i << ", run " << run;
  }
}

// A residual add as TOSA carries it, RESCALE, RESCALE → ADD → RESCALE, runs as one kernel at
// the ADD's turn, and reads both int8 inputs there, not at their RESCALEs' turns:
//   0: x1 = CLAMP(x)            int8
//   1: x2 = CLAMP(x, ±50)       int8
//   2: a32 = RESCALE(x1) ×1     (run by op 5)
//   3: b32 = RESCALE(x2) ×1     (run by op 5)
//   4: z = CAST(x)              int32, placed first (its id is the lowest of the largest)
//   5: s = ADD(a32, b32)        the fused kernel: reads x1 and x2
//   6: y = RESCALE(s) ×1/4      graph output (run by op 5)
//   7: y2 = ADD(z, z)           graph output
// Were x1's life to end at op 2, z (written at op 4) would take its bytes.
TEST(CpuExecutorArena, FusedResidualAddReadsItsInputsAtItsOwnTurn) {
  constexpr int32_t kSide = 64;
  Graph g;
  auto add_tensor = [&](const char* name, DType dtype) {
    TensorInfo info;
    info.name = name;
    info.dtype = dtype;
    info.shape = {kSide, kSide};
    return g.add_tensor(std::move(info));
  };
  const TensorId x = add_tensor("x", DType::Int8), z = add_tensor("z", DType::Int32),
                 x1 = add_tensor("x1", DType::Int8), x2 = add_tensor("x2", DType::Int8),
                 a32 = add_tensor("a32", DType::Int32), b32 = add_tensor("b32", DType::Int32),
                 s = add_tensor("s", DType::Int32), y = add_tensor("y", DType::Int8),
                 y2 = add_tensor("y2", DType::Int32);
  g.inputs.push_back({x, "x", 0, 0});
  ClampAttr all, narrow;
  all.min_int = -128, all.max_int = 127, all.min_fp = -128, all.max_fp = 127;
  narrow.min_int = -50, narrow.max_int = 50, narrow.min_fp = -50, narrow.max_fp = 50;
  RescaleAttr widen;  // v·2^30 >> 30: v
  widen.multiplier = {1 << 30};
  widen.shift = {30};
  RescaleAttr quarter = widen;  // (v·2^30 + 2^31) >> 32: floor((v + 2) / 4)
  quarter.shift = {32};
  g.ops.push_back(Op{OpKind::CLAMP, {x}, {x1}, all, "x1"});
  g.ops.push_back(Op{OpKind::CLAMP, {x}, {x2}, narrow, "x2"});
  g.ops.push_back(Op{OpKind::RESCALE, {x1}, {a32}, widen, "a32"});
  g.ops.push_back(Op{OpKind::RESCALE, {x2}, {b32}, widen, "b32"});
  g.ops.push_back(Op{OpKind::CAST, {x}, {z}, NoAttr{}, "z"});
  g.ops.push_back(Op{OpKind::ADD, {a32, b32}, {s}, NoAttr{}, "s"});
  g.ops.push_back(Op{OpKind::RESCALE, {s}, {y}, quarter, "y"});
  g.ops.push_back(Op{OpKind::ADD, {z, z}, {y2}, NoAttr{}, "y2"});
  g.outputs.push_back({y, "y", 1, 0});
  g.outputs.push_back({y2, "y2", 2, 0});

  VgfOptions vgf_options;
  vgf_options.profile = true;  // to see that the residual add ran as one kernel
  ExecutorOptions options;
  options.options = &vgf_options;
  auto exec = make_cpu_executor();
  const Status prepared = exec->prepare(g, options);
  ASSERT_TRUE(prepared.is_ok()) << prepared.to_string();

  std::vector<int8_t> in(size_t(kSide) * kSide), out(in.size(), 0);
  std::vector<int32_t> out2(in.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int8_t(int(i * 97 % 256) - 128);
  const int32_t sizes[2] = {kSide, kSide};
  auto xt = Tensor::make(ScalarType::Char, sizes, in.data());
  auto yt = Tensor::make(ScalarType::Char, sizes, out.data());
  auto y2t = Tensor::make(ScalarType::Int, sizes, out2.data());
  ASSERT_TRUE(xt.ok() && yt.ok() && y2t.ok());
  const Tensor* ins[1] = {&*xt};
  Tensor* outs[2] = {&*yt, &*y2t};
  const Status ran = exec->run(ins, outs, nullptr);
  ASSERT_TRUE(ran.is_ok()) << ran.to_string();
  bool fused = false;
  for (const DelegateProfileEntry& step : exec->op_profile()) fused |= step.name == "RESCALE+RESCALE+ADD+RESCALE [cpu]";
  EXPECT_TRUE(fused) << "the residual add did not run as one kernel";
  for (size_t i = 0; i < in.size(); ++i) {
    const int v = in[i] + std::clamp<int>(in[i], -50, 50);
    ASSERT_EQ(out[i], int8_t((v + 2) >> 2)) << "element " << i << ", x " << int(in[i]);
    ASSERT_EQ(out2[i], 2 * in[i]) << "element " << i;
  }
}


// A constant tensor of `shape` holding `values`.
template <typename T>
TensorId add_constant(Graph& g, const char* name, DType dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
  TensorInfo info;
  info.name = name;
  info.dtype = dtype;
  info.shape = std::move(shape);
  info.is_constant = true;
  info.owned.resize(values.size() * sizeof(T));
  std::memcpy(info.owned.data(), values.data(), info.owned.size());
  return g.add_tensor(std::move(info));
}

TensorId add_tensor(Graph& g, const char* name, DType dtype, std::vector<int64_t> shape) {
  TensorInfo info;
  info.name = name;
  info.dtype = dtype;
  info.shape = std::move(shape);
  return g.add_tensor(std::move(info));
}

// A 1x1 CONV2D → RESCALE (→ CLAMP) chain over 32x32 pixels, 16 channels in and 64 out, its result
// the graph's output; `wide`: int16 input, int48 sums, and a RESCALE (scale16) to int8, which no
// fused form takes. Returns the sums' bytes.
struct ChainGraph {
  Graph g;
  uint64_t sums_bytes = 0;
  std::vector<int8_t> weights;
  std::vector<int32_t> bias32;
  std::vector<int64_t> bias48;
};
constexpr int64_t kPixels = 32 * 32, kIn = 16, kOut = 64;

ChainGraph chain_graph(bool wide) {
  ChainGraph c;
  Graph& g = c.g;
  for (int64_t i = 0; i < kOut * kIn; ++i) c.weights.push_back(int8_t(i * 37 % 255 - 127));
  for (int64_t o = 0; o < kOut; ++o) c.bias32.push_back(int32_t(o * 101 - 3000)), c.bias48.push_back(o * 7001 - 200000);
  const DType in_type = wide ? DType::Int16 : DType::Int8, sum_type = wide ? DType::Int48 : DType::Int32;
  const TensorId x = add_tensor(g, "x", in_type, {1, 32, 32, kIn});
  const TensorId w = add_constant(g, "w", DType::Int8, {kOut, 1, 1, kIn}, c.weights);
  const TensorId b = wide ? add_constant(g, "b", DType::Int48, {kOut}, c.bias48)
                          : add_constant(g, "b", DType::Int32, {kOut}, c.bias32);
  const TensorId sums = add_tensor(g, "sums", sum_type, {1, 32, 32, kOut});
  const TensorId y = add_tensor(g, "y", DType::Int8, {1, 32, 32, kOut});
  g.inputs.push_back({x, "x", 0, 0});
  ConvAttr conv;
  conv.acc_type = wide ? AccType::Int48 : AccType::Int32;
  conv.input_zp = wide ? 0 : -3;
  g.ops.push_back(Op{OpKind::CONV2D, {x, w, b}, {sums}, conv, "conv"});
  RescaleAttr r;
  r.scale32 = !wide;
  r.rounding_mode = RoundingMode::SingleRound;
  r.multiplier = {wide ? 1 << 14 : 1 << 30};
  r.shift = {int8_t(wide ? 30 : 36)};
  r.output_zp = wide ? 0 : 5;
  if (wide) {
    g.ops.push_back(Op{OpKind::RESCALE, {sums}, {y}, r, "rescale"});
  } else {
    const TensorId rescaled = add_tensor(g, "rescaled", DType::Int8, {1, 32, 32, kOut});
    g.ops.push_back(Op{OpKind::RESCALE, {sums}, {rescaled}, r, "rescale"});
    ClampAttr relu;
    relu.min_int = 5, relu.max_int = 127, relu.min_fp = 5, relu.max_fp = 127;
    g.ops.push_back(Op{OpKind::CLAMP, {rescaled}, {y}, relu, "relu"});
  }
  g.outputs.push_back({y, "y", 1, 0});
  c.sums_bytes = uint64_t(kPixels * kOut) * (wide ? 8 : 4);
  return c;
}

// The chain's output by hand: int8, Σ (x + 3)·w + bias, then (v·2^30 + 2^35) >> 36, + 5,
// clamped to [5, 127]; int16, Σ x·w + bias, then (v·2^14 + 2^29) >> 30 saturated to int8.
template <typename In>
int8_t expected(const ChainGraph& c, const std::vector<In>& x, int64_t pixel, int64_t o) {
  constexpr bool kWide = sizeof(In) == 2;
  int64_t v = kWide ? c.bias48[size_t(o)] : c.bias32[size_t(o)];
  for (int64_t i = 0; i < kIn; ++i)
    v += (int64_t(x[size_t(pixel * kIn + i)]) + (kWide ? 0 : 3)) * c.weights[size_t(o * kIn + i)];
  if (kWide) return int8_t(std::clamp<int64_t>((v * (1 << 14) + (int64_t(1) << 29)) >> 30, -128, 127));
  const int64_t rescaled = std::clamp<int64_t>(((v * (int64_t(1) << 30) + (int64_t(1) << 35)) >> 36) + 5, -128, 127);
  return int8_t(std::max<int64_t>(rescaled, 5));
}

template <typename In>
void run_chain(const ChainGraph& c, bool fuses) {
  MemoryBudget budget(uint64_t(1) << 30);
  ExecutorOptions options;
  options.memory_budget = &budget;
  auto exec = make_cpu_executor();
  const Status prepared = exec->prepare(c.g, options);
  ASSERT_TRUE(prepared.is_ok()) << prepared.to_string();
  // Fused: the weights packed ahead and the scratch, no sums. Otherwise the sums are there.
  if (fuses)
    EXPECT_LT(budget.used(), c.sums_bytes);
  else
    EXPECT_GE(budget.used(), c.sums_bytes);
  std::vector<In> x(size_t(kPixels * kIn));
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = sizeof(In) == 2 ? In(int64_t(i * 7919 % 60001) - 30000) : In(int64_t(i * 7919 % 256) - 128);
  std::vector<int8_t> y(size_t(kPixels * kOut), 0);
  const int32_t in_sizes[4] = {1, 32, 32, int32_t(kIn)}, out_sizes[4] = {1, 32, 32, int32_t(kOut)};
  auto xt = Tensor::make(sizeof(In) == 2 ? ScalarType::Short : ScalarType::Char, in_sizes, x.data());
  auto yt = Tensor::make(ScalarType::Char, out_sizes, y.data());
  ASSERT_TRUE(xt.ok() && yt.ok());
  const Tensor* ins[1] = {&*xt};
  Tensor* outs[1] = {&*yt};
  const Status ran = exec->run(ins, outs, nullptr);
  ASSERT_TRUE(ran.is_ok()) << ran.to_string();
  for (int64_t p = 0; p < kPixels; ++p)
    for (int64_t o = 0; o < kOut; ++o)
      ASSERT_EQ(y[size_t(p * kOut + o)], expected(c, x, p, o)) << "pixel " << p << ", channel " << o;
}

TEST(CpuExecutorArena, FusedChainsGiveNoBytesToWhatTheyNeverWrite) {
  run_chain<int8_t>(chain_graph(/*wide=*/false), /*fuses=*/true);
  run_chain<int16_t>(chain_graph(/*wide=*/true), /*fuses=*/false);
}

}  // namespace
}  // namespace vkrt::vgf
