// Fused elementwise chains (vgf/vulkan/elementwise_fusion.h): which ops form a chain (pure),
// the generated GLSL compiled in-process by glslang, and random chains run three ways — fused,
// unfused (VgfBackend.fuse_elementwise=0) and on the CPU executor (the TOSA reference kernels):
// integer results bit-exact, fp32 within the tolerances of docs/vulkan-executor.md; dispatch
// counts; the fallback when a chain's shader does not compile.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include "vgf/cpu/cpu_executor.h"
#include "vgf/vulkan/elementwise_fusion.h"
#include "vgf/vulkan/glsl_compiler.h"
#include "vgf/vulkan/graph_plan.h"
#include "vgf/vulkan/spirv_disk_cache.h"
#include "vulkan_test_util.h"

namespace vkrt::vulkan::testing {
namespace {

vgf::RescaleAttr requant(std::mt19937& rng, int channels, int32_t in_zp, int32_t out_zp, int shift_lo, int shift_hi) {
  vgf::RescaleAttr a;
  std::uniform_int_distribution<int> coin(0, 1);
  a.rounding_mode = coin(rng) ? vgf::RoundingMode::DoubleRound : vgf::RoundingMode::SingleRound;
  a.per_channel = channels > 1 && coin(rng);
  a.input_zp = in_zp;
  a.output_zp = out_zp;
  std::uniform_int_distribution<int32_t> m(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int> s(shift_lo, shift_hi);
  for (int c = 0; c < (a.per_channel ? channels : 1); ++c) {
    a.multiplier.push_back(m(rng));
    a.shift.push_back(int8_t(s(rng)));
  }
  return a;
}

vgf::ClampAttr int_clamp(int64_t lo, int64_t hi) {
  vgf::ClampAttr c;
  c.min_int = lo;
  c.max_int = hi;
  return c;
}

vgf::TableAttr random_table(std::mt19937& rng, size_t entries, int lo, int hi) {
  vgf::TableAttr t;
  std::uniform_int_distribution<int> v(lo, hi);
  for (size_t i = 0; i < entries; ++i) t.table.push_back(int16_t(v(rng)));
  return t;
}

struct Case {
  vgf::Graph graph;
  std::vector<HostTensor> inputs;
  size_t fused_dispatches = 0;    // expected with chain fusion on
  size_t unfused_dispatches = 0;  // expected with it off; 0 = one per op
};

BackendOptions fusion_options(bool fuse) {
  BackendOptions o;
  o.set("VgfBackend.pipeline_cache_dir", "off");
  o.set("VgfBackend.fuse_elementwise", fuse ? "1" : "0");
  return o;
}

// Fused, unfused and CPU results of one case: ints bit-exact, floats within (atol, rtol) of
// the CPU and within 1e-6 relative of the unfused dispatches. Checks the dispatch counts.
void check_three_ways(Case& c, float atol = 0, float rtol = 0) {
  std::vector<HostTensor> cpu_out, fused_out, unfused_out;
  Status cpu = run_on_cpu(c.graph, c.inputs, cpu_out);
  ASSERT_TRUE(cpu.is_ok()) << cpu.message();
  BackendOptions on = fusion_options(true), off = fusion_options(false);
  VulkanExecutorStats fused_stats, unfused_stats;
  Status s = run_on_vulkan(c.graph, c.inputs, fused_out, &on, &fused_stats);
  ASSERT_TRUE(s.is_ok()) << s.message();
  s = run_on_vulkan(c.graph, c.inputs, unfused_out, &off, &unfused_stats);
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_TRUE(fused_stats.chain_failures.empty()) << fused_stats.chain_failures.front();
  EXPECT_EQ(fused_stats.dispatch_count, c.fused_dispatches);
  EXPECT_EQ(unfused_stats.dispatch_count, c.unfused_dispatches ? c.unfused_dispatches : c.graph.ops.size());
  EXPECT_EQ(unfused_stats.fused_chains, 0u);
  ASSERT_EQ(cpu_out.size(), fused_out.size());
  for (size_t i = 0; i < cpu_out.size(); ++i) {
    if (cpu_out[i].dtype == DType::Fp32) {
      EXPECT_TRUE(floats_close(cpu_out[i], fused_out[i], atol, rtol)) << "fused vs cpu, output " << i;
      EXPECT_TRUE(floats_close(unfused_out[i], fused_out[i], 0, 1e-6f)) << "fused vs unfused, output " << i;
    } else {
      EXPECT_TRUE(bytes_equal(cpu_out[i], fused_out[i])) << "fused vs cpu, output " << i;
      EXPECT_TRUE(bytes_equal(cpu_out[i], unfused_out[i])) << "unfused vs cpu, output " << i;
    }
  }
}

// int8 x (and an int32 y that broadcasts) -> RESCALE to int32 -> 1..6 random int32 ops with y
// or constants -> RESCALE to int8 -> CLAMP -> TABLE -> GREATER(., x) -> SELECT(., ., x).
// Every intermediate has the output shape and one reader: one dispatch when fused.
Case random_int_chain(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int64_t h = pick(1, 5), w = pick(1, 6), ch = pick(1, 9);
  Shape s{1, h, w, ch};
  Shape ys = pick(0, 2) == 0 ? s : pick(0, 1) ? Shape{1, 1, w, ch} : Shape{1, h, 1, 1};
  GraphBuilder b;
  TensorId x = b.input(DType::Int8, s);
  TensorId y = b.input(DType::Int32, ys);
  TensorId v = b.tensor(DType::Int32, s);
  b.op(OpKind::RESCALE, {x}, {v}, requant(rng, int(ch), pick(-128, 127), 0, 28, 33));
  const int n = pick(1, 6);
  for (int k = 0; k < n; ++k) {
    TensorId next = b.tensor(DType::Int32, s);
    switch (pick(0, 10)) {
      case 0: b.op(OpKind::ADD, {v, y}, {next}); break;
      case 1: b.op(OpKind::SUB, {y, v}, {next}); break;
      case 2: b.op(OpKind::MAXIMUM, {v, y}, {next}, vgf::NanModeAttr{}); break;
      case 3: b.op(OpKind::MINIMUM, {y, v}, {next}, vgf::NanModeAttr{}); break;
      case 4: b.op(OpKind::BITWISE_XOR, {v, y}, {next}); break;
      case 5: b.op(OpKind::CLAMP, {v}, {next}, int_clamp(pick(-3000, 0), pick(1, 3000))); break;
      case 6: b.op(OpKind::ABS, {v}, {next}); break;
      case 7: b.op(OpKind::NEGATE, {v}, {next}, vgf::NegateAttr{}); break;
      case 8: {
        HostTensor m(DType::Int32, {1, 1, 1, ch});
        fill_random(m, rng, -3, 3);
        vgf::MulAttr mul;
        mul.shift = pick(0, 1) ? 0 : pick(1, 4);
        b.op(OpKind::MUL, {v, b.constant(m)}, {next}, mul);
        break;
      }
      case 9: {
        HostTensor sh(DType::Int32, {1, 1, 1, 1});
        fill_random(sh, rng, 0, 6);
        vgf::ShiftAttr round;
        round.round = pick(0, 1);
        b.op(OpKind::ARITHMETIC_RIGHT_SHIFT, {v, b.constant(sh)}, {next}, round);
        break;
      }
      default: b.op(OpKind::BITWISE_AND, {y, v}, {next}); break;
    }
    v = next;
  }
  TensorId q = b.tensor(DType::Int8, s), c = b.tensor(DType::Int8, s), t = b.tensor(DType::Int8, s);
  b.op(OpKind::RESCALE, {v}, {q}, requant(rng, int(ch), 0, pick(-20, 20), 36, 40));
  b.op(OpKind::CLAMP, {q}, {c}, int_clamp(pick(-128, -10), pick(10, 127)));
  b.op(OpKind::TABLE, {c}, {t}, random_table(rng, 256, -128, 127));
  TensorId gt = b.tensor(DType::Bool, s), out = b.tensor(DType::Int8, s);
  b.op(OpKind::GREATER, {t, x}, {gt});
  b.op(OpKind::SELECT, {gt, t, x}, {out});
  b.output(out);
  Case cs;
  cs.graph = std::move(b.graph);
  cs.inputs.emplace_back(DType::Int8, s);
  cs.inputs.emplace_back(DType::Int32, ys);
  fill_random(cs.inputs[0], rng, -128, 127);
  fill_random(cs.inputs[1], rng, -2000, 2000);
  cs.fused_dispatches = 1;
  return cs;
}

// int16 / int8 / bool ops: shifts that wrap at the element width, BITWISE_NOT, MUL to int32,
// INTDIV, CLZ, narrowing CAST, comparisons and logical ops, SELECT. Shift amounts stay in
// [0, bits) and divisors non-zero (the CPU kernels reject TOSA REQUIRE violations).
Case random_narrow_int_chain(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Shape s{pick(1, 3), pick(1, 7), pick(1, 6)};
  GraphBuilder b;
  TensorId a = b.input(DType::Int16, s), m = b.input(DType::Int8, s);
  auto const_like = [&](DType t, int lo, int hi) {
    HostTensor c(t, {1, 1, s[2]});
    fill_random(c, rng, lo, hi);
    return b.constant(c);
  };
  TensorId v16 = b.tensor(DType::Int16, s);
  switch (pick(0, 2)) {
    case 0: b.op(OpKind::LOGICAL_LEFT_SHIFT, {a, const_like(DType::Int16, 0, 15)}, {v16}); break;
    case 1: b.op(OpKind::LOGICAL_RIGHT_SHIFT, {a, const_like(DType::Int16, 0, 15)}, {v16}); break;
    default: b.op(OpKind::BITWISE_NOT, {a}, {v16}); break;
  }
  TensorId v32 = b.tensor(DType::Int32, s);
  b.op(OpKind::MUL, {v16, const_like(DType::Int16, -300, 300)}, {v32}, vgf::MulAttr{});
  TensorId d32 = b.tensor(DType::Int32, s);
  HostTensor divisor(DType::Int32, {1, 1, s[2]});
  for (int64_t i = 0; i < s[2]; ++i) divisor.as<int32_t>()[i] = (pick(0, 1) ? 1 : -1) * pick(1, 70000);
  if (pick(0, 1)) {
    b.op(OpKind::INTDIV, {v32, b.constant(divisor)}, {d32});
  } else {
    b.op(OpKind::CLZ, {v32}, {d32});
  }
  TensorId n8 = b.tensor(DType::Int8, s);
  b.op(OpKind::CAST, {d32}, {n8});  // keeps the low 8 bits
  TensorId sh8 = b.tensor(DType::Int8, s);
  if (pick(0, 1)) {
    b.op(OpKind::LOGICAL_RIGHT_SHIFT, {n8, const_like(DType::Int8, 0, 7)}, {sh8});
  } else {
    b.op(OpKind::ARITHMETIC_RIGHT_SHIFT, {n8, const_like(DType::Int8, 0, 7)}, {sh8}, vgf::ShiftAttr{pick(0, 1) == 1});
  }
  TensorId eq = b.tensor(DType::Bool, s), gt = b.tensor(DType::Bool, s), both = b.tensor(DType::Bool, s);
  TensorId nb = b.tensor(DType::Bool, s);
  b.op(OpKind::EQUAL, {sh8, m}, {eq});
  b.op(OpKind::GREATER_EQUAL, {m, sh8}, {gt});
  const OpKind logic[] = {OpKind::LOGICAL_AND, OpKind::LOGICAL_OR, OpKind::LOGICAL_XOR};
  b.op(logic[pick(0, 2)], {eq, gt}, {both});
  b.op(OpKind::LOGICAL_NOT, {both}, {nb});
  TensorId wide = b.tensor(DType::Int16, s), out = b.tensor(DType::Int16, s);
  b.op(OpKind::CAST, {sh8}, {wide});
  b.op(OpKind::SELECT, {nb, wide, a}, {out});
  b.output(out);
  Case cs;
  cs.graph = std::move(b.graph);
  cs.inputs.emplace_back(DType::Int16, s);
  cs.inputs.emplace_back(DType::Int8, s);
  fill_random(cs.inputs[0], rng, -32768, 32767);
  fill_random(cs.inputs[1], rng, -8, 8);
  cs.fused_dispatches = 1;
  return cs;
}

// fp32: a random sequence of well-conditioned ops (no FLOOR/CEIL, whose steps would turn
// last-bit differences of SIGMOID/TANH/ERF into whole units) on x and a broadcast y.
Case random_float_chain(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Shape s{1, pick(1, 9), pick(1, 9), pick(1, 4)};
  Shape ys{1, 1, s[2], s[3]};
  GraphBuilder b;
  TensorId x = b.input(DType::Fp32, s), y = b.input(DType::Fp32, ys);
  TensorId v = x;
  const int n = pick(3, 10);
  for (int k = 0; k < n; ++k) {
    TensorId next = b.tensor(DType::Fp32, s);
    vgf::NanModeAttr nan;
    nan.nan_mode = pick(0, 1) ? vgf::NanMode::Propagate : vgf::NanMode::Ignore;
    switch (pick(0, 11)) {
      case 0: b.op(OpKind::ADD, {v, y}, {next}); break;
      case 1: b.op(OpKind::SUB, {y, v}, {next}); break;
      case 2: b.op(OpKind::MUL, {v, y}, {next}, vgf::MulAttr{}); break;
      case 3: b.op(OpKind::MAXIMUM, {v, y}, {next}, nan); break;
      case 4: b.op(OpKind::MINIMUM, {y, v}, {next}, nan); break;
      case 5: b.op(OpKind::ABS, {v}, {next}); break;
      case 6: b.op(OpKind::NEGATE, {v}, {next}, vgf::NegateAttr{}); break;
      case 7: {
        vgf::ClampAttr c;
        c.min_fp = -1.5;
        c.max_fp = 1.25;
        b.op(OpKind::CLAMP, {v}, {next}, c);
        break;
      }
      case 8: b.op(OpKind::SIGMOID, {v}, {next}); break;
      case 9: b.op(OpKind::TANH, {v}, {next}); break;
      case 10: b.op(OpKind::ERF, {v}, {next}); break;
      default: b.op(OpKind::SIN, {v}, {next}); break;
    }
    v = next;
  }
  b.output(v);
  Case cs;
  cs.graph = std::move(b.graph);
  cs.inputs.emplace_back(DType::Fp32, s);
  cs.inputs.emplace_back(DType::Fp32, ys);
  fill_random(cs.inputs[0], rng, -2.0, 2.0);
  fill_random(cs.inputs[1], rng, -1.0, 1.0);
  cs.fused_dispatches = 1;
  return cs;
}

// ---- Chain detection and memory (pure) ----

TEST(ElementwiseChains, TreeOfSingleReaderOpsBecomesOneStep) {
  std::mt19937 rng(1);
  GraphBuilder b;
  Shape s{1, 4, 4, 8};
  TensorId x = b.input(DType::Int8, s), y = b.input(DType::Int8, s);
  TensorId xa = b.tensor(DType::Int32, s), ya = b.tensor(DType::Int32, s), sum = b.tensor(DType::Int32, s);
  TensorId q = b.tensor(DType::Int8, s), out = b.tensor(DType::Int8, s);
  b.op(OpKind::RESCALE, {x}, {xa}, requant(rng, 8, 3, 0, 30, 31));   // op 0
  b.op(OpKind::RESCALE, {y}, {ya}, requant(rng, 8, -7, 0, 30, 31));  // op 1
  b.op(OpKind::ADD, {xa, ya}, {sum});                                 // op 2
  b.op(OpKind::RESCALE, {sum}, {q}, requant(rng, 8, 0, 5, 36, 38));  // op 3
  b.op(OpKind::TABLE, {q}, {out}, random_table(rng, 256, -128, 127));  // op 4
  b.output(out);
  auto steps = fuse_elementwise_chains(b.graph, fuse_ops(b.graph, true), 6);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].chain, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(steps[0].op, 4u);
  EXPECT_EQ(steps[0].output, out);
  // Only the two inputs and the output reach the arena; the int32 intermediates stay in registers.
  std::vector<Shape> shapes;
  for (const auto& t : b.graph.tensors) shapes.push_back(t.shape);
  auto alias = alias_roots(b.graph);
  auto plan = plan_memory(b.graph, shapes, steps, alias, 64);
  ASSERT_TRUE(plan.ok());
  for (TensorId t : {xa, ya, sum, q}) EXPECT_FALSE(plan->placement[t].in_arena) << "tensor " << t;
  for (TensorId t : {x, y, out}) EXPECT_TRUE(plan->placement[t].in_arena) << "tensor " << t;
  // The inputs are read by the chain step and the output written by it: they must not overlap.
  EXPECT_GE(plan->arena_bytes, 3u * 128u);
  // A budget of one outside tensor: ADD reads two, so only RESCALE+TABLE fuse.
  auto tight = fuse_elementwise_chains(b.graph, fuse_ops(b.graph, true), 1);
  ASSERT_EQ(tight.size(), 4u);
  EXPECT_EQ(tight[3].chain, (std::vector<size_t>{3, 4}));
}

TEST(ElementwiseChains, ReadersOutsideTheGroupGraphOutputsAndShapeChangesEndAChain) {
  GraphBuilder b;
  Shape s{2, 3, 5}, small{1, 1, 5};
  TensorId x = b.input(DType::Fp32, s), bias = b.input(DType::Fp32, small);
  TensorId e = b.tensor(DType::Fp32, s), sg = b.tensor(DType::Fp32, s), m = b.tensor(DType::Fp32, s);
  TensorId a = b.tensor(DType::Fp32, s), bexp = b.tensor(DType::Fp32, small), z = b.tensor(DType::Fp32, s);
  TensorId neg = b.tensor(DType::Fp32, s);
  b.op(OpKind::EXP, {x}, {e});                      // 0: e is read by 1, 2 and 6
  b.op(OpKind::SIGMOID, {e}, {sg});                 // 1
  b.op(OpKind::MUL, {sg, e}, {m}, vgf::MulAttr{});  // 2: m is a graph output
  b.op(OpKind::EXP, {bias}, {bexp});                // 3: output shape differs from the chain's
  b.op(OpKind::ADD, {m, bexp}, {a});                // 4
  b.op(OpKind::TANH, {a}, {z});                     // 5
  b.op(OpKind::NEGATE, {e}, {neg}, vgf::NegateAttr{});  // 6
  b.output(m);
  b.output(z);
  b.output(neg);
  auto steps = fuse_elementwise_chains(b.graph, fuse_ops(b.graph, true), 6);
  std::vector<std::vector<size_t>> chains;
  std::vector<size_t> ops;
  for (const auto& st : steps) {
    chains.push_back(st.chain);
    ops.push_back(st.op);
  }
  EXPECT_EQ(ops, (std::vector<size_t>{0, 2, 3, 5, 6}));
  ASSERT_EQ(chains.size(), 5u);
  EXPECT_EQ(chains[1], (std::vector<size_t>{1, 2}));  // SIGMOID, MUL (reads e from outside)
  EXPECT_EQ(chains[3], (std::vector<size_t>{4, 5}));  // ADD, TANH (reads m and bexp)
  EXPECT_TRUE(chains[0].empty() && chains[2].empty() && chains[4].empty());
  auto singles = split_chain(b.graph, steps[3]);
  ASSERT_EQ(singles.size(), 2u);
  EXPECT_EQ(singles[0].op, 4u);
  EXPECT_EQ(singles[1].output, z);
}

TEST(ElementwiseChains, IntermediateReadTwiceInsideTheGroupStaysInRegisters) {
  GraphBuilder b;
  Shape s{4, 4};
  TensorId x = b.input(DType::Fp32, s), y = b.input(DType::Fp32, s);
  TensorId e = b.tensor(DType::Fp32, s), gt = b.tensor(DType::Bool, s), out = b.tensor(DType::Fp32, s);
  b.op(OpKind::EXP, {x}, {e});
  b.op(OpKind::GREATER, {e, y}, {gt});
  b.op(OpKind::SELECT, {gt, e, y}, {out});
  b.output(out);
  auto steps = fuse_elementwise_chains(b.graph, fuse_ops(b.graph, true), 6);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].chain, (std::vector<size_t>{0, 1, 2}));
}

TEST(ElementwiseChains, DynamicShapesAreLeftAlone) {
  GraphBuilder b;
  Shape dyn{1, vgf::kDynamicDim, 4};
  TensorId x = b.input(DType::Fp32, dyn);
  TensorId e = b.tensor(DType::Fp32, dyn), z = b.tensor(DType::Fp32, dyn);
  b.op(OpKind::EXP, {x}, {e});
  b.op(OpKind::TANH, {e}, {z});
  b.output(z);
  auto steps = fuse_elementwise_chains(b.graph, fuse_ops(b.graph, true), 6);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_TRUE(steps[0].chain.empty() && steps[1].chain.empty());
}

// ---- Generated GLSL and the in-process compiler (no device needed) ----

TEST(GlslCompiler, CompilesGeneratedChainAndNamesTheLineOfAnError) {
  Case c = random_int_chain(7);
  auto steps = fuse_elementwise_chains(c.graph, fuse_ops(c.graph, true), 6);
  ASSERT_EQ(steps.size(), 1u);
  auto kernel = generate_chain_kernel(c.graph, steps[0]);
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  EXPECT_NE(kernel->source.find("int apply_scale_32("), std::string::npos);  // common.glsl, verbatim
  EXPECT_NE(kernel->label.find("CHAIN(RESCALE+"), std::string::npos);
  EXPECT_EQ(kernel->inputs.size(), 2u + (kernel->source.find("data_in2") != std::string::npos ? 1u : 0u) +
                                       (kernel->source.find("data_in3") != std::string::npos ? 1u : 0u) +
                                       (kernel->source.find("data_in4") != std::string::npos ? 1u : 0u));
  auto words = compile_glsl_compute(kernel->source, kernel->name);
  ASSERT_TRUE(words.ok()) << words.status().message() << "\n" << kernel->source;
  ASSERT_GT(words->size(), 5u);
  EXPECT_EQ((*words)[0], 0x07230203u);  // SPIR-V magic

  auto bad = compile_glsl_compute("#version 450\nlayout(local_size_x = 1) in;\nvoid main() {\n  nope();\n}\n", "bad");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), Error::InvalidProgram);
  EXPECT_NE(bad.status().message().find("bad:4"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("nope"), std::string::npos) << bad.status().message();
}

// The on-disk SPIR-V cache (spirv_disk_cache.h) without a device: round trip, and every kind of
// bad file is a miss rather than words handed to a driver.
TEST(SpirvDiskCache, RoundTripsAndRejectsForeignCorruptAndInvalidFiles) {
  const std::string source = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
  auto words = compile_glsl_compute(source, "tiny");
  ASSERT_TRUE(words.ok()) << words.status().message();
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("vkrt-spv-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  SpirvDiskCache cache(dir.string());
  EXPECT_FALSE(cache.load("fused_ew_1", source));  // no file yet
  cache.store("fused_ew_1", source, *words);
  auto back = cache.load("fused_ew_1", source);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, *words);
  // Same name, other source (a hash collision or a stale file): not ours.
  EXPECT_FALSE(cache.load("fused_ew_1", source + " "));
  // Flipped byte in the words: the checksum catches it.
  const std::string file = cache.path("fused_ew_1");
  std::vector<char> bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 40u);
  for (size_t cut : {size_t(0), size_t(7), size_t(23), bytes.size() - 1}) {  // truncations
    std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), std::streamsize(cut));
    EXPECT_FALSE(cache.load("fused_ew_1", source)) << "truncated to " << cut;
  }
  std::vector<char> flipped = bytes;
  flipped.back() ^= 0x10;
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(flipped.data(), std::streamsize(flipped.size()));
  EXPECT_FALSE(cache.load("fused_ew_1", source));
  // A well-formed file whose words are not valid SPIR-V: SPIRV-Tools refuses it.
  std::vector<uint32_t> garbage = {0x07230203u, 0x00010500u, 0, 1, 0, 0xDEADBEEFu};
  cache.store("fused_ew_2", source, garbage);
  EXPECT_FALSE(cache.load("fused_ew_2", source));
  // Names that are not plain identifiers never become paths.
  EXPECT_EQ(cache.path("../escape"), "");
  EXPECT_EQ(SpirvDiskCache("").path("fused_ew_1"), "");
  std::filesystem::remove_all(dir);
}

// Issue 20: the chain cache reader opened whatever was at the path and read up to 64 MiB before
// looking at it. Now a FIFO (which blocked the open forever), a directory or an oversized sparse
// file is a miss, decided before anything is read; and a failed store (RLIMIT_FSIZE in a child,
// as a full disk) leaves the previous file readable and no temporary file behind.
TEST(SpirvDiskCache, NonRegularOversizedFilesAndFailedStoresAreHarmless) {
  const std::string source = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
  auto words = compile_glsl_compute(source, "tiny");
  ASSERT_TRUE(words.ok()) << words.status().message();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vkrt-spv-bad-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  SpirvDiskCache cache(dir.string());
  auto load_in_child = [&](const std::string& name) {  // exit 0 = a prompt miss
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::alarm(20);
      ::_exit(cache.load(name, source) ? 1 : 0);
    }
    int wstatus = 0;
    ::waitpid(pid, &wstatus, 0);
    return WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
  };
  ASSERT_EQ(::mkfifo(cache.path("fifo").c_str(), 0600), 0);
  EXPECT_TRUE(load_in_child("fifo")) << "a FIFO at the path blocked or was read";
  std::filesystem::create_directory(cache.path("dir"));
  EXPECT_TRUE(load_in_child("dir"));

  // A sparse 1 GiB file with a good file's header: refused from its size, not read.
  cache.store("big", source, *words);
  ASSERT_TRUE(cache.load("big", source));
  std::filesystem::resize_file(cache.path("big"), uint64_t(1) << 30);
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  const long before = ru.ru_maxrss;
  EXPECT_FALSE(cache.load("big", source));
  ::getrusage(RUSAGE_SELF, &ru);
  EXPECT_LT(ru.ru_maxrss - before, 16 * 1024) << "the oversized file was read";

  // A store that fails part way leaves the old entry.
  cache.store("kept", source, *words);
  std::vector<uint32_t> longer(*words);
  longer.resize(words->size() + 4096, 0);
  const uint64_t old_size = std::filesystem::file_size(cache.path("kept"));
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl {old_size + 8, old_size + 8};
    ::setrlimit(RLIMIT_FSIZE, &rl);
    cache.store("kept", source, longer);
    ::_exit(0);
  }
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  auto kept = cache.load("kept", source);
  ASSERT_TRUE(kept) << "a failed store replaced the good file";
  EXPECT_EQ(*kept, *words);
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  }
  std::filesystem::remove_all(dir);
}

TEST(GlslCompiler, EqualChainsShareOneSourceText) {
  GraphBuilder b;
  Shape s{3, 7};
  for (int i = 0; i < 2; ++i) {
    TensorId x = b.input(DType::Fp32, s), e = b.tensor(DType::Fp32, s), z = b.tensor(DType::Fp32, s);
    b.op(OpKind::EXP, {x}, {e});
    b.op(OpKind::TANH, {e}, {z});
    b.output(z);
  }
  auto steps = fuse_elementwise_chains(b.graph, fuse_ops(b.graph, true), 6);
  ASSERT_EQ(steps.size(), 2u);
  auto k0 = generate_chain_kernel(b.graph, steps[0]), k1 = generate_chain_kernel(b.graph, steps[1]);
  ASSERT_TRUE(k0.ok() && k1.ok());
  EXPECT_EQ(k0->source, k1->source);
  EXPECT_EQ(k0->name, k1->name);
  EXPECT_NE(k0->inputs, k1->inputs);
}

TEST(GlslCompiler, CompileFailureFallsBackToSingleOpSteps) {
  Case c = random_int_chain(3);
  auto chained = fuse_elementwise_chains(c.graph, fuse_ops(c.graph, true), 6);
  ASSERT_EQ(chained.size(), 1u);
  size_t calls = 0;
  // No device is touched: compilation fails before any pipeline is created.
  ChainPipelines pipelines(nullptr, VK_NULL_HANDLE, [&](std::string_view, std::string_view) -> Result<std::vector<uint32_t>> {
    ++calls;
    return make_error(Error::InvalidProgram, "glslang could not compile: injected failure");
  });
  std::vector<std::string> failures;
  auto steps = pipelines.prepare(c.graph, chained, &failures);
  EXPECT_EQ(calls, 1u);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("CHAIN(RESCALE+"), std::string::npos) << failures[0];
  EXPECT_NE(failures[0].find("injected failure"), std::string::npos) << failures[0];
  EXPECT_NE(failures[0].find("unfused"), std::string::npos) << failures[0];
  auto unfused = fuse_ops(c.graph, true);
  ASSERT_EQ(steps.size(), unfused.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].op, unfused[i].op);
    EXPECT_TRUE(steps[i].chain.empty());
  }
  EXPECT_EQ(pipelines.module_count(), 0u);
}

// ---- On the device: fused vs unfused vs CPU ----

TEST(ElementwiseFusionVulkan, RandomInt8Chains) {
  VKRT_REQUIRE_VULKAN();
  for (uint32_t seed = 100; seed < 112; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Case c = random_int_chain(seed);
    check_three_ways(c);
  }
}

TEST(ElementwiseFusionVulkan, RandomNarrowIntAndBoolChains) {
  VKRT_REQUIRE_VULKAN();
  for (uint32_t seed = 200; seed < 210; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Case c = random_narrow_int_chain(seed);
    check_three_ways(c);
  }
}

TEST(ElementwiseFusionVulkan, RandomFp32Chains) {
  VKRT_REQUIRE_VULKAN();
  for (uint32_t seed = 300; seed < 310; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Case c = random_float_chain(seed);
    // Per-op tolerance of the transcendental shaders, loosened for up to 10 chained ops.
    check_three_ways(c, 1e-4f, 1e-3f);
  }
}

TEST(ElementwiseFusionVulkan, Int16TableAndCastsBetweenFloatAndInt) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(21);
  GraphBuilder b;
  Shape s{2, 3, 4, 5};
  TensorId x = b.input(DType::Int8, s), f = b.input(DType::Fp32, s);
  TensorId wide = b.tensor(DType::Int16, s), looked = b.tensor(DType::Int32, s), back = b.tensor(DType::Int8, s);
  b.op(OpKind::RESCALE, {x}, {wide}, requant(rng, 5, 0, 0, 22, 24));  // int8 -> int16, x ~2^8
  b.op(OpKind::TABLE, {wide}, {looked}, random_table(rng, 513, -32768, 32767));
  b.op(OpKind::RESCALE, {looked}, {back}, requant(rng, 5, 0, 0, 45, 47));
  // fp32 values scaled by 4 (exact), floored, cast with round-to-nearest-even and saturation.
  HostTensor four(DType::Fp32, {1, 1, 1, 1});
  four.as<float>()[0] = 4.0f;
  TensorId scaled = b.tensor(DType::Fp32, s), floored = b.tensor(DType::Fp32, s), as_int = b.tensor(DType::Int8, s);
  b.op(OpKind::MUL, {f, b.constant(four)}, {scaled}, vgf::MulAttr{});
  b.op(OpKind::FLOOR, {scaled}, {floored});
  b.op(OpKind::CAST, {floored}, {as_int});
  TensorId mx = b.tensor(DType::Int8, s), as_float = b.tensor(DType::Fp32, s), out = b.tensor(DType::Fp32, s);
  b.op(OpKind::MAXIMUM, {back, as_int}, {mx}, vgf::NanModeAttr{});
  b.op(OpKind::CAST, {mx}, {as_float});
  b.op(OpKind::SUB, {as_float, f}, {out});
  b.output(out);
  Case c;
  c.graph = std::move(b.graph);
  c.inputs.emplace_back(DType::Int8, s);
  c.inputs.emplace_back(DType::Fp32, s);
  fill_random(c.inputs[0], rng, -128, 127);
  fill_random(c.inputs[1], rng, -60.0, 60.0);
  c.fused_dispatches = 1;
  check_three_ways(c, 1e-6f, 1e-6f);  // every fp32 op here is exact or correctly rounded
}

// fp32 -> int8 CAST rounds to nearest even *before* saturating (tosa.md CAST): 127.5 rounds to
// 128 and saturates to 127; it must not wrap to -128. Expected values by hand.
TEST(ElementwiseFusionVulkan, FloatToIntCastRoundsBeforeSaturating) {
  VKRT_REQUIRE_VULKAN();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in = {127.5f, 127.49f, -128.5f, -128.51f, 126.5f, -0.5f, 0.5f, 1.5f, 2.5f, 1e10f, -1e10f, nan};
  const std::vector<int8_t> expected = {127, 127, -128, -128, 126, 0, 0, 2, 2, 127, -128, 0};
  GraphBuilder b;
  Shape s{1, 1, 1, int64_t(in.size())};
  TensorId x = b.input(DType::Fp32, s);
  HostTensor one(DType::Fp32, {1, 1, 1, 1});
  one.as<float>()[0] = 1.0f;
  TensorId scaled = b.tensor(DType::Fp32, s), out = b.tensor(DType::Int8, s);
  b.op(OpKind::MUL, {x, b.constant(one)}, {scaled}, vgf::MulAttr{});
  b.op(OpKind::CAST, {scaled}, {out});
  b.output(out);
  Case c;
  c.graph = std::move(b.graph);
  c.inputs.emplace_back(DType::Fp32, s);
  std::copy(in.begin(), in.end(), c.inputs[0].as<float>());
  c.fused_dispatches = 1;
  check_three_ways(c);
  std::vector<HostTensor> fused;
  BackendOptions on = fusion_options(true);
  ASSERT_TRUE(run_on_vulkan(c.graph, c.inputs, fused, &on, nullptr).is_ok());
  for (size_t i = 0; i < in.size(); ++i) EXPECT_EQ(fused[0].as<int8_t>()[i], expected[i]) << "input " << in[i];
}

TEST(ElementwiseFusionVulkan, Fp32ChainWithBroadcastAndTranscendentals) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(31);
  GraphBuilder b;
  Shape s{1, 6, 5, 8};
  TensorId x = b.input(DType::Fp32, s), y = b.input(DType::Fp32, s);
  HostTensor scale(DType::Fp32, {1, 1, 1, 8}), bias(DType::Fp32, {1, 6, 1, 1});
  fill_random(scale, rng, -2.0, 2.0);
  fill_random(bias, rng, -1.0, 1.0);
  TensorId t0 = b.tensor(DType::Fp32, s), t1 = b.tensor(DType::Fp32, s), t2 = b.tensor(DType::Fp32, s);
  TensorId t3 = b.tensor(DType::Fp32, s), t4 = b.tensor(DType::Fp32, s), gt = b.tensor(DType::Bool, s);
  TensorId t5 = b.tensor(DType::Fp32, s), out = b.tensor(DType::Fp32, s);
  b.op(OpKind::MUL, {x, b.constant(scale)}, {t0}, vgf::MulAttr{});
  b.op(OpKind::ADD, {t0, b.constant(bias)}, {t1});
  b.op(OpKind::SIGMOID, {t1}, {t2});
  b.op(OpKind::MAXIMUM, {t2, y}, {t3}, vgf::NanModeAttr{});
  vgf::ClampAttr c01;
  c01.min_fp = -0.25;
  c01.max_fp = 0.75;
  b.op(OpKind::CLAMP, {t3}, {t4}, c01);
  b.op(OpKind::GREATER, {t4, y}, {gt});
  b.op(OpKind::TANH, {y}, {t5});
  b.op(OpKind::SELECT, {gt, t4, t5}, {out});
  b.output(out);
  Case c;
  c.graph = std::move(b.graph);
  c.inputs.emplace_back(DType::Fp32, s);
  c.inputs.emplace_back(DType::Fp32, s);
  fill_random(c.inputs[0], rng, -3.0, 3.0);
  fill_random(c.inputs[1], rng, -1.0, 1.0);
  c.fused_dispatches = 1;
  check_three_ways(c, 1e-5f, 1e-4f);  // SIGMOID/TANH tolerance (docs/vulkan-executor.md)
}

TEST(ElementwiseFusionVulkan, ChainsBetweenConvolutionsAndSharedModules) {
  VKRT_REQUIRE_VULKAN();
  std::mt19937 rng(41);
  GraphBuilder b;
  Shape s{1, 4, 4, 4};
  HostTensor w(DType::Int8, {4, 1, 1, 4}), bias(DType::Int32, {4});
  fill_random(w, rng, -127, 127);
  fill_random(bias, rng, -500, 500);
  TensorId x = b.input(DType::Int8, s);
  TensorId cur = x;
  // Two identical conv -> RESCALE blocks, each followed by the same elementwise chain.
  vgf::RescaleAttr conv_rq = requant(rng, 4, 0, -3, 38, 39);
  vgf::RescaleAttr up = requant(rng, 4, -3, 0, 30, 30);
  vgf::RescaleAttr down = requant(rng, 4, 0, 2, 33, 33);
  vgf::TableAttr table = random_table(rng, 256, -128, 127);
  for (int block = 0; block < 2; ++block) {
    TensorId acc = b.tensor(DType::Int32, s), q = b.tensor(DType::Int8, s);
    b.op(OpKind::CONV2D, {cur, b.constant(w), b.constant(bias)}, {acc}, vgf::ConvAttr{});
    b.op(OpKind::RESCALE, {acc}, {q}, conv_rq);
    TensorId wide = b.tensor(DType::Int32, s), sum = b.tensor(DType::Int32, s), n = b.tensor(DType::Int8, s);
    TensorId t = b.tensor(DType::Int8, s);
    b.op(OpKind::RESCALE, {q}, {wide}, up);
    b.op(OpKind::ADD, {wide, wide}, {sum});
    b.op(OpKind::RESCALE, {sum}, {n}, down);
    b.op(OpKind::TABLE, {n}, {t}, table);
    cur = t;
  }
  b.output(cur);
  Case c;
  c.graph = std::move(b.graph);
  c.inputs.emplace_back(DType::Int8, s);
  fill_random(c.inputs[0], rng, -128, 127);
  c.fused_dispatches = 4;     // per block: CONV2D+RESCALE, then the chain
  c.unfused_dispatches = 10;  // per block: CONV2D+RESCALE, then 4 ops
  check_three_ways(c);
  BackendOptions on = fusion_options(true);
  VulkanExecutorStats stats;
  std::vector<HostTensor> out;
  ASSERT_TRUE(run_on_vulkan(c.graph, c.inputs, out, &on, &stats).is_ok());
  EXPECT_EQ(stats.fused_chains, 2u);
  EXPECT_EQ(stats.chain_modules, 1u);  // same source text: compiled once
}

// An int8 TABLE after CONV2D / DEPTHWISE_CONV2D / MATMUL + RESCALE (+ CLAMP) is looked up in the
// producer's epilogue: one dispatch per block instead of three or four, same bytes as the CPU.
TEST(ElementwiseFusionVulkan, TableAfterConvolutionOrMatmulRunsInTheEpilogue) {
  std::mt19937 rng(77);
  // conv 3x3 -> RESCALE -> CLAMP -> TABLE -> depthwise 3x3 -> RESCALE -> TABLE
  GraphBuilder b;
  Shape s{1, 6, 6, 8};
  HostTensor w(DType::Int8, {8, 3, 3, 8}), bias(DType::Int32, {8}), dw(DType::Int8, {3, 3, 8, 1}), dwb(DType::Int32, {8});
  fill_random(w, rng, -127, 127);
  fill_random(bias, rng, -2000, 2000);
  fill_random(dw, rng, -127, 127);
  fill_random(dwb, rng, -2000, 2000);
  vgf::ConvAttr pad1;
  pad1.pad = {1, 1, 1, 1, 0, 0};
  pad1.input_zp = 3;
  TensorId x = b.input(DType::Int8, s);
  TensorId acc = b.tensor(DType::Int32, s), q = b.tensor(DType::Int8, s), c = b.tensor(DType::Int8, s);
  TensorId t = b.tensor(DType::Int8, s), acc2 = b.tensor(DType::Int32, s), q2 = b.tensor(DType::Int8, s);
  TensorId out = b.tensor(DType::Int8, s);
  b.op(OpKind::CONV2D, {x, b.constant(w), b.constant(bias)}, {acc}, pad1);  // op 0
  b.op(OpKind::RESCALE, {acc}, {q}, requant(rng, 8, 0, -4, 38, 40));        // op 1
  b.op(OpKind::CLAMP, {q}, {c}, int_clamp(-100, 90));                       // op 2
  b.op(OpKind::TABLE, {c}, {t}, random_table(rng, 256, -128, 127));        // op 3
  vgf::ConvAttr dpad = pad1;
  dpad.input_zp = 0;
  b.op(OpKind::DEPTHWISE_CONV2D, {t, b.constant(dw), b.constant(dwb)}, {acc2}, dpad);  // op 4
  b.op(OpKind::RESCALE, {acc2}, {q2}, requant(rng, 8, 0, 7, 36, 39));                  // op 5
  b.op(OpKind::TABLE, {q2}, {out}, random_table(rng, 256, -128, 127));                 // op 6
  b.output(out);
  const auto steps = fuse_ops(b.graph, true);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].table, 3);
  EXPECT_EQ(steps[0].output, t);
  EXPECT_EQ(steps[1].table, 6);
  EXPECT_EQ(steps[1].clamp, -1);

  // MATMUL -> RESCALE -> TABLE (per-tensor scale).
  GraphBuilder m;
  TensorId a = m.input(DType::Int8, {1, 5, 7}), bm = m.input(DType::Int8, {1, 7, 6});
  TensorId macc = m.tensor(DType::Int32, {1, 5, 6}), mq = m.tensor(DType::Int8, {1, 5, 6});
  TensorId mout = m.tensor(DType::Int8, {1, 5, 6});
  vgf::MatmulAttr ma;
  ma.a_zp = -2;
  ma.b_zp = 1;
  m.op(OpKind::MATMUL, {a, bm}, {macc}, ma);
  m.op(OpKind::RESCALE, {macc}, {mq}, requant(rng, 1, 0, 5, 35, 37));
  m.op(OpKind::TABLE, {mq}, {mout}, random_table(rng, 256, -128, 127));
  m.output(mout);

  VKRT_REQUIRE_VULKAN();
  struct Run {
    const vgf::Graph* graph;
    std::vector<HostTensor> inputs;
    size_t fused, unfused;
  };
  std::vector<Run> runs;
  runs.push_back({&b.graph, {HostTensor(DType::Int8, s)}, 2, 7});
  runs.push_back({&m.graph, {HostTensor(DType::Int8, {1, 5, 7}), HostTensor(DType::Int8, {1, 7, 6})}, 1, 3});
  for (Run& r : runs) {
    for (HostTensor& in : r.inputs) fill_random(in, rng, -128, 127);
    std::vector<HostTensor> cpu_out, fused_out, unfused_out;
    ASSERT_TRUE(run_on_cpu(*r.graph, r.inputs, cpu_out).is_ok());
    BackendOptions fused, unfused;
    fused.set("VgfBackend.pipeline_cache_dir", "off");
    unfused.set("VgfBackend.pipeline_cache_dir", "off");
    unfused.set("VgfBackend.fusion", "0");
    VulkanExecutorStats fs, us;
    Status st = run_on_vulkan(*r.graph, r.inputs, fused_out, &fused, &fs);
    ASSERT_TRUE(st.is_ok()) << st.message();
    st = run_on_vulkan(*r.graph, r.inputs, unfused_out, &unfused, &us);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(fs.dispatch_count, r.fused);
    EXPECT_EQ(us.dispatch_count, r.unfused);
    EXPECT_TRUE(bytes_equal(cpu_out[0], fused_out[0])) << "fused vs cpu";
    EXPECT_TRUE(bytes_equal(cpu_out[0], unfused_out[0])) << "unfused vs cpu";
  }
}

TEST(ElementwiseFusionVulkan, ExecutorRunsAChainUnfusedWhenItsShaderDoesNotCompile) {
  VKRT_REQUIRE_VULKAN();
  Case c = random_int_chain(9);
  std::vector<HostTensor> expected;
  ASSERT_TRUE(run_on_cpu(c.graph, c.inputs, expected).is_ok());
  VulkanExecutor executor;
  executor.set_chain_compiler([](std::string_view source, std::string_view name) -> Result<std::vector<uint32_t>> {
    // A real glslang error: the generated text with a stray token appended.
    return compile_glsl_compute(std::string(source) + "\n}} oops", name);
  });
  BackendOptions on = fusion_options(true);
  const VgfOptions on_parsed = vgf_options(on);
  vgf::ExecutorOptions eo{&on_parsed};
  Status s = executor.prepare(c.graph, eo);
  ASSERT_TRUE(s.is_ok()) << s.message();
  const auto& stats = executor.stats();
  ASSERT_EQ(stats.chain_failures.size(), 1u);
  EXPECT_NE(stats.chain_failures[0].find("glslang could not compile"), std::string::npos) << stats.chain_failures[0];
  EXPECT_NE(stats.chain_failures[0].find("CHAIN(RESCALE+"), std::string::npos) << stats.chain_failures[0];
  EXPECT_EQ(stats.fused_chains, 0u);
  EXPECT_EQ(stats.dispatch_count, c.graph.ops.size());
  std::vector<Tensor> in_tensors;
  for (auto& h : c.inputs) in_tensors.push_back(h.tensor());
  HostTensor out(expected[0].dtype, expected[0].shape);
  Tensor out_tensor = out.tensor();
  std::vector<const Tensor*> in_ptrs{&in_tensors[0], &in_tensors[1]};
  std::vector<Tensor*> out_ptrs{&out_tensor};
  s = executor.run(in_ptrs, out_ptrs, nullptr);
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_TRUE(bytes_equal(expected[0], out));
}

// Warm init: a second executor with the same pipeline cache directory reads the chain's SPIR-V
// from disk instead of running glslang; a corrupted file is recompiled (and rewritten).
TEST(ElementwiseFusionVulkan, CompiledChainsPersistBesideThePipelineCache) {
  VKRT_REQUIRE_VULKAN();
  Case c = random_int_chain(5);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("vkrt-chain-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  BackendOptions options;
  options.set("VgfBackend.pipeline_cache_dir", dir.string());
  auto run = [&](VulkanExecutorStats* stats) {
    std::vector<HostTensor> out;
    Status s = run_on_vulkan(c.graph, c.inputs, out, &options, stats);
    EXPECT_TRUE(s.is_ok()) << s.message();
    return out;
  };
  VulkanExecutorStats cold, warm, repaired;
  std::vector<HostTensor> expected = run(&cold);
  EXPECT_EQ(cold.chain_compiles, 1u);
  EXPECT_EQ(cold.chain_disk_hits, 0u);
  std::vector<HostTensor> again = run(&warm);
  EXPECT_EQ(warm.chain_compiles, 0u);
  EXPECT_EQ(warm.chain_disk_hits, 1u);
  ASSERT_EQ(again.size(), expected.size());
  EXPECT_TRUE(bytes_equal(again[0], expected[0]));
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".spv") continue;
    std::fstream f(entry.path(), std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(-3, std::ios::end);
    f.put('\x7f');
  }
  std::vector<HostTensor> after = run(&repaired);
  EXPECT_EQ(repaired.chain_compiles, 1u);
  EXPECT_EQ(repaired.chain_disk_hits, 0u);
  EXPECT_TRUE(bytes_equal(after[0], expected[0]));
  VulkanExecutorStats rewritten;
  run(&rewritten);
  EXPECT_EQ(rewritten.chain_disk_hits, 1u);
  std::filesystem::remove_all(dir);
}

TEST(ElementwiseFusionVulkan, EnvironmentVariableDisablesChains) {
  VKRT_REQUIRE_VULKAN();
  Case c = random_int_chain(5);
  const char* old = std::getenv("VKRT_VULKAN_FUSE_ELEMENTWISE");
  std::string saved = old ? old : "";
  setenv("VKRT_VULKAN_FUSE_ELEMENTWISE", "0", 1);
  BackendOptions defaults;
  defaults.set("VgfBackend.pipeline_cache_dir", "off");
  VulkanExecutorStats stats;
  std::vector<HostTensor> out;
  Status s = run_on_vulkan(c.graph, c.inputs, out, &defaults, &stats);
  if (old) setenv("VKRT_VULKAN_FUSE_ELEMENTWISE", saved.c_str(), 1); else unsetenv("VKRT_VULKAN_FUSE_ELEMENTWISE");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(stats.fused_chains, 0u);
  EXPECT_EQ(stats.dispatch_count, c.graph.ops.size());
  // The option wins over the environment.
  setenv("VKRT_VULKAN_FUSE_ELEMENTWISE", "0", 1);
  BackendOptions on = fusion_options(true);
  s = run_on_vulkan(c.graph, c.inputs, out, &on, &stats);
  if (old) setenv("VKRT_VULKAN_FUSE_ELEMENTWISE", saved.c_str(), 1); else unsetenv("VKRT_VULKAN_FUSE_ELEMENTWISE");
  ASSERT_TRUE(s.is_ok()) << s.message();
  EXPECT_EQ(stats.dispatch_count, 1u);
}

}  // namespace
}  // namespace vkrt::vulkan::testing
