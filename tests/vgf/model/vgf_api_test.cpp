// The public VGF API (vkrt/vgf.h) and `executor_runner model.vgf`: a real VGF (the conformance
// end-to-end sample, with its expected output), and a VGF this test writes with dynamic N/H/W,
// checked against a reference computed here, on the CPU executor and on Vulkan where a device
// exists (int8: bit for bit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "common/conformance.h"
#include "common/fuzz_seeds.h"
#include "common/run_command.h"
#include "vgf/graph_vgf_writer.h"
#include "vgf/ir/graph.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"
#include "vkrt/vgf.h"

namespace vkrt {
namespace {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// ---- The conformance sample: conv2d + rescale, int8 [1,32,32,8] -> [1,32,32,16] ----

struct Sample {
  std::vector<uint8_t> vgf, input, expected;
};

bool load_sample(Sample& s) {
  const std::string dir = vkrt::testing::conformance_path("vgf/end-to-end");
  if (dir.empty()) return false;
  s.vgf = read_file(dir + "/conv2d_rescale_qi8.vgf");
  s.input = read_file(dir + "/conv2d_rescale_qi8_input_0.bin");
  s.expected = read_file(dir + "/conv2d_rescale_qi8_expected_output_0.bin");
  return s.input.size() == 8192 && s.expected.size() == 16384;
}

TEST(VgfApi, ListsTheSampleAndRunsItOnEveryExecutor) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  Sample s;
  ASSERT_TRUE(load_sample(s));
  auto model = VgfModel::load(dir + "/conv2d_rescale_qi8.vgf");
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  EXPECT_EQ(model->format_version(), "0.4.3");
  ASSERT_EQ(model->inputs().size(), 1u);
  ASSERT_EQ(model->outputs().size(), 1u);
  EXPECT_EQ(model->inputs()[0].name, "input_0");
  EXPECT_EQ(model->inputs()[0].dtype, ScalarType::Char);
  EXPECT_EQ(model->inputs()[0].shape, (std::vector<int64_t>{1, 32, 32, 8}));
  EXPECT_EQ(model->inputs()[0].resource, 2u);  // vgf-format.md §4.1
  EXPECT_EQ(model->outputs()[0].shape, (std::vector<int64_t>{1, 32, 32, 16}));
  EXPECT_EQ(model->outputs()[0].kind, "tensor");
  ASSERT_EQ(model->segments().size(), 1u);
  EXPECT_EQ(model->segments()[0].ops, (std::vector<std::string>{"CONV2D", "RESCALE"}));

  const std::vector<std::vector<int64_t>> in_shapes = {{1, 32, 32, 8}};
  auto shapes = model->output_shapes(in_shapes);
  ASSERT_TRUE(shapes.ok()) << shapes.status().to_string();
  EXPECT_EQ(*shapes, (std::vector<std::vector<int64_t>>{{1, 32, 32, 16}}));
  auto bad = model->output_shapes(std::vector<std::vector<int64_t>>{{1, 32, 16, 8}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("dimension 2 is 16, the VGF fixes it at 32"), std::string::npos)
      << bad.status().to_string();

  const int32_t in_sizes[] = {1, 32, 32, 8}, out_sizes[] = {1, 32, 32, 16};
  for (VgfExecutor executor : {VgfExecutor::Cpu, VgfExecutor::Auto, VgfExecutor::Vulkan}) {
    VgfOptions options;
    options.executor = executor;
    auto session = VgfSession::create(*model, options);
    if (!session.ok() && executor == VgfExecutor::Vulkan) {
      std::printf("no Vulkan executor here (%s): the vulkan run is skipped\n", session.status().to_string().c_str());
      continue;
    }
    ASSERT_TRUE(session.ok()) << session.status().to_string();
    ASSERT_EQ((*session)->placements().size(), 1u);
    const VgfPlacement& p = (*session)->placements()[0];
    if (executor != VgfExecutor::Auto) {
      EXPECT_EQ(p.executor, vgf_executor_name(executor));
    }
    EXPECT_EQ(p.describe().rfind("segment 'graph_segment_0' (GRAPH): " + p.executor, 0), 0u) << p.describe();
    std::vector<uint8_t> out(16384, 0);
    auto x = Tensor::make(ScalarType::Char, in_sizes, s.input.data());
    auto y = Tensor::make(ScalarType::Char, out_sizes, out.data());
    ASSERT_TRUE(x.ok() && y.ok());
    const Tensor* inputs[] = {&*x};
    Tensor* outputs[] = {&*y};
    ASSERT_TRUE((*session)->run(inputs, outputs).is_ok());
    EXPECT_EQ(out, s.expected) << vgf_executor_name(executor);

    // A float output where the VGF writes int8 is an error naming both types.
    std::vector<float> wrong(16384);
    auto yf = Tensor::make(ScalarType::Float, out_sizes, wrong.data());
    Tensor* wrong_outputs[] = {&*yf};
    Status st = (*session)->run(inputs, wrong_outputs);
    EXPECT_EQ(st.code(), Error::InvalidArgument);
    EXPECT_NE(st.message().find("expected int8"), std::string::npos) << st.to_string();
  }
}

// to_pte wraps the VGF into a program that the runtime loads and VgfBackend runs.
TEST(VgfApi, WrapsTheSampleIntoAProgram) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/end-to-end");
  Sample s;
  ASSERT_TRUE(load_sample(s));
  auto model = VgfModel::from_bytes(s.vgf);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  auto pte = model->to_pte(std::vector<std::vector<int64_t>>{{1, 32, 32, 8}});
  ASSERT_TRUE(pte.ok()) << pte.status().to_string();
  LoadOptions options;
  options.backend_options.set(std::string(kVgfExecutorOption), "cpu");
  auto module = Module::load_from_buffer(*pte, options);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  ASSERT_EQ((*method)->placements().size(), 1u);
  EXPECT_EQ((*method)->placements()[0], "VgfBackend segment 'graph_segment_0' (GRAPH): cpu");
  const int32_t in_sizes[] = {1, 32, 32, 8};
  auto x = Tensor::make(ScalarType::Char, in_sizes, s.input.data());
  ASSERT_TRUE(x.ok());
  ASSERT_TRUE((*method)->set_input(0, EValue::from_tensor(&*x)).is_ok());
  ASSERT_TRUE((*method)->execute().is_ok());
  const Tensor& y = (*method)->output(0).to_tensor();
  ASSERT_EQ(y.nbytes(), s.expected.size());
  EXPECT_EQ(0, std::memcmp(y.data(), s.expected.data(), y.nbytes()));
}

TEST(VgfApi, NamesWhatAFileIsWhenItIsNotAVgf) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::Float, {1});
  m.set_inputs({x}).set_outputs({x});
  auto pte = program.build();
  ASSERT_TRUE(pte.ok());
  auto model = VgfModel::from_bytes(*pte);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error(), Error::InvalidProgram);
  EXPECT_NE(model.status().message().find("not a VGF file: it is an ExecuTorch program (.pte)"), std::string::npos)
      << model.status().to_string();
  auto empty = VgfModel::from_bytes({});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("not a VGF file"), std::string::npos);
  auto missing = VgfModel::load("/nonexistent/model.vgf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), Error::NotFound);
}

// ---- A VGF with dynamic N, H, W: CLAMP(-5, 5) then 2x2/2 MAX_POOL2D, int8 [?,?,?,4] ----

std::vector<uint8_t> dynamic_pool_vgf() {
  using namespace vgf;
  Graph g;
  auto tensor = [&](const char* name) {
    TensorInfo info;
    info.name = name;
    info.dtype = DType::Int8;
    info.shape = {kDynamicDim, kDynamicDim, kDynamicDim, 4};
    return g.add_tensor(std::move(info));
  };
  const TensorId x = tensor("x"), t = tensor("t"), y = tensor("y");
  g.inputs.push_back({x, "x", 0, 0});
  ClampAttr clamp;
  clamp.min_int = -5;
  clamp.max_int = 5;
  g.ops.push_back(Op{OpKind::CLAMP, {x}, {t}, clamp, "clamp"});
  PoolAttr pool;
  pool.kernel = {2, 2};
  pool.stride = {2, 2};
  g.ops.push_back(Op{OpKind::MAX_POOL2D, {t}, {y}, pool, "pool"});
  g.outputs.push_back({y, "y", 1, 0});
  auto bytes = write_graph_vgf(g);
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

std::vector<int8_t> pattern(size_t n) {
  std::vector<int8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = int8_t(int((i * 37) % 256) - 128);
  return v;
}

// The reference: max over each 2x2 window of clamp(x, -5, 5), NHWC.
std::vector<int8_t> reference_pool(const std::vector<int8_t>& x, int n, int h, int w) {
  std::vector<int8_t> y(size_t(n) * (h / 2) * (w / 2) * 4);
  for (int b = 0; b < n; ++b)
    for (int oy = 0; oy < h / 2; ++oy)
      for (int ox = 0; ox < w / 2; ++ox)
        for (int c = 0; c < 4; ++c) {
          int best = -128;
          for (int ky = 0; ky < 2; ++ky)
            for (int kx = 0; kx < 2; ++kx) {
              const int v = x[((size_t(b) * h + oy * 2 + ky) * w + ox * 2 + kx) * 4 + c];
              best = std::max(best, std::clamp(v, -5, 5));
            }
          y[((size_t(b) * (h / 2) + oy) * (w / 2) + ox) * 4 + c] = int8_t(best);
        }
  return y;
}

TEST(VgfApi, DynamicShapesComeFromTheInputs) {
  vkrt::testing::write_fuzz_seed("dynamic_pool.vgf", dynamic_pool_vgf());
  auto model = VgfModel::from_bytes(dynamic_pool_vgf());
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  EXPECT_EQ(model->inputs()[0].shape, (std::vector<int64_t>{-1, -1, -1, 4}));
  EXPECT_EQ(model->outputs()[0].shape, (std::vector<int64_t>{-1, -1, -1, 4}));
  auto shapes = model->output_shapes(std::vector<std::vector<int64_t>>{{2, 6, 10, 4}});
  ASSERT_TRUE(shapes.ok()) << shapes.status().to_string();
  EXPECT_EQ(*shapes, (std::vector<std::vector<int64_t>>{{2, 3, 5, 4}}));
  auto odd = model->output_shapes(std::vector<std::vector<int64_t>>{{1, 5, 4, 4}});
  EXPECT_FALSE(odd.ok());  // a 2x2/2 window does not divide 5 rows exactly
  auto channels = model->output_shapes(std::vector<std::vector<int64_t>>{{1, 4, 4, 3}});
  ASSERT_FALSE(channels.ok());
  EXPECT_NE(channels.status().message().find("dimension 3 is 3, the VGF fixes it at 4"), std::string::npos);

  for (VgfExecutor executor : {VgfExecutor::Cpu, VgfExecutor::Vulkan}) {
    VgfOptions options;
    options.executor = executor;
    auto session = VgfSession::create(*model, options);
    if (!session.ok() && executor == VgfExecutor::Vulkan) continue;  // no device here
    ASSERT_TRUE(session.ok()) << session.status().to_string();
    // Two shapes through one session: each run's input shape fixes the dims.
    for (auto [n, h, w] : {std::array<int, 3>{2, 6, 10}, std::array<int, 3>{1, 4, 2}}) {
      std::vector<int8_t> x = pattern(size_t(n) * h * w * 4);
      std::vector<int8_t> y(size_t(n) * (h / 2) * (w / 2) * 4, 99);
      const int32_t in_sizes[] = {n, h, w, 4}, out_sizes[] = {n, h / 2, w / 2, 4};
      auto xt = Tensor::make(ScalarType::Char, in_sizes, x.data());
      auto yt = Tensor::make(ScalarType::Char, out_sizes, y.data());
      ASSERT_TRUE(xt.ok() && yt.ok());
      const Tensor* inputs[] = {&*xt};
      Tensor* outputs[] = {&*yt};
      Status st = (*session)->run(inputs, outputs);
      ASSERT_TRUE(st.is_ok()) << vgf_executor_name(executor) << ": " << st.to_string();
      EXPECT_EQ(y, reference_pool(x, n, h, w)) << vgf_executor_name(executor) << " " << n << "x" << h << "x" << w;
    }
  }
}

// ---- executor_runner model.vgf ----

#ifdef VKRT_EXECUTOR_RUNNER
using vkrt::testing::run_command;
using vkrt::testing::vulkan_unavailable;

// A .npy file written by hand (format 1.0), independent of the runner's writer.
std::vector<uint8_t> npy_int8(const std::vector<int8_t>& data, const std::string& shape) {
  std::string dict = "{'descr': '|i1', 'fortran_order': False, 'shape': (" + shape + "), }";
  dict.append(64 - (10 + dict.size() + 1) % 64, ' ');
  dict += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += char(1);
  bytes += char(0);
  bytes += char(dict.size());
  bytes += char(0);
  bytes += dict;
  bytes.append(reinterpret_cast<const char*>(data.data()), data.size());
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

TEST(VgfRunner, RunsADynamicVgfFromNpyInputsAndWritesNpyOutputs) {
  const std::string dir = ::testing::TempDir();
  const std::string vgf = dir + "vkrt_dynamic_pool.vgf", npy = dir + "vkrt_dynamic_pool_in.npy",
                    base = dir + "vkrt_dynamic_pool_out";
  write_file(vgf, dynamic_pool_vgf());
  const std::vector<int8_t> x = pattern(2 * 6 * 10 * 4);
  write_file(npy, npy_int8(x, "2, 6, 10, 4"));
  std::remove((base + "-0.npy").c_str());
  const std::string runner = std::string(VKRT_EXECUTOR_RUNNER) + " " + vgf;
  auto r = run_command(runner + " --inputs " + npy + " --output_file " + base + " --vgf_executor cpu");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("vkrt: segment 'graph_segment_0' (GRAPH): cpu\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OutputX 0: tensor(sizes=[2, 3, 5, 4]"), std::string::npos) << r.out;
  const std::vector<uint8_t> written = read_file(base + "-0.npy");
  const std::vector<int8_t> want = reference_pool(x, 2, 6, 10);
  ASSERT_GT(written.size(), want.size());
  const std::string header(written.begin(), written.end() - long(want.size()));
  EXPECT_NE(header.find("'descr': '|i1', 'fortran_order': False, 'shape': (2, 3, 5, 4), }"), std::string::npos)
      << header;
  EXPECT_EQ(0, std::memcmp(written.data() + header.size(), want.data(), want.size()));

  // Raw bytes need the shape; with it they give the same result.
  const std::string raw = dir + "vkrt_dynamic_pool_in.bin";
  write_file(raw, std::vector<uint8_t>(x.begin(), x.end()));
  auto no_shape = run_command(runner + " --inputs " + raw);
  EXPECT_EQ(no_shape.exit_code, 1) << no_shape.out;
  EXPECT_NE(no_shape.out.find("raw bytes need --input_shapes"), std::string::npos) << no_shape.out;
  auto shaped = run_command(runner + " --inputs " + raw + " --input_shapes 2,6,10,4 --print_output all");
  ASSERT_EQ(shaped.exit_code, 0) << shaped.out;
  EXPECT_NE(shaped.out.find("Output[0][119]: (char) " + std::to_string(int(want[119])) + "\n"), std::string::npos)
      << shaped.out;
  auto defaults = run_command(runner);
  EXPECT_EQ(defaults.exit_code, 1) << defaults.out;
  EXPECT_NE(defaults.out.find("input 0 has dynamic dimensions [?, ?, ?, 4]: give its shape with --input_shapes"),
            std::string::npos)
      << defaults.out;

  // --list: segments, ops, and the dynamic dims.
  auto list = run_command(runner + " --list");
  ASSERT_EQ(list.exit_code, 0) << list.out;
  EXPECT_NE(list.out.find("segment 0 'graph_segment_0': GRAPH, 2 ops\n    op 0 CLAMP\n    op 1 MAX_POOL2D\n"),
            std::string::npos)
      << list.out;
  EXPECT_NE(list.out.find("input 0: int8 [?, ?, ?, 4] (? = dynamic), tensor (resource 0), name input_0"),
            std::string::npos)
      << list.out;

  // Both executors agree (on Vulkan where a device exists, else both runs are on the CPU).
  auto compare = run_command(runner + " --inputs " + npy + " --compare_with_cpu --print_output none --vgf_executor vulkan");
  if (compare.exit_code != 0 && vulkan_unavailable(compare.out)) {
    std::printf("no Vulkan device: comparing CPU with CPU (%s)\n", compare.out.c_str());
    compare = run_command(runner + " --inputs " + npy + " --compare_with_cpu --print_output none");
  } else {
    EXPECT_NE(compare.out.find("(GRAPH): vulkan on "), std::string::npos) << compare.out;
  }
  ASSERT_EQ(compare.exit_code, 0) << compare.out;
  EXPECT_NE(compare.out.find("Output 0: same values (120 elements)"), std::string::npos) << compare.out;
}

TEST(VgfRunner, RefusesWhatDoesNotApplyAndNamesUnknownFiles) {
  const std::string dir = ::testing::TempDir();
  const std::string vgf = dir + "vkrt_dynamic_pool_flags.vgf";
  write_file(vgf, dynamic_pool_vgf());
  const std::string runner = std::string(VKRT_EXECUTOR_RUNNER) + " ";
  for (const char* flag : {"--method_name forward", "--etdump_path /tmp/x.etdp", "--data_path /tmp/x.ptd"}) {
    auto r = run_command(runner + vgf + " --input_shapes 1,2,2,4 " + flag);
    EXPECT_EQ(r.exit_code, 1) << flag << ": " << r.out;
    EXPECT_NE(r.out.find("error: VGF file " + vgf + ": "), std::string::npos) << r.out;
  }
  auto count = run_command(runner + vgf + " --input_shapes '1,2,2,4;1,2,2,4'");
  EXPECT_EQ(count.exit_code, 1);
  EXPECT_NE(count.out.find("--input_shapes gives 2 shapes, the VGF has 1 inputs"), std::string::npos) << count.out;

  const std::string text = dir + "vkrt_not_a_model.txt";
  write_file(text, std::vector<uint8_t>{'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'});
  auto other = run_command(runner + text);
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.out.find("is neither an ExecuTorch program (.pte, identifier 'ET..' at byte 4) nor a VGF file "
                           "('VGF1' at byte 0): it starts with 68 65 6c 6c 6f 20 77 6f"),
            std::string::npos)
      << other.out;
  auto bundled = run_command(runner + vgf + " --bundled");
  EXPECT_EQ(bundled.exit_code, 1);
  EXPECT_NE(bundled.out.find("is a VGF file, not a bundled program"), std::string::npos) << bundled.out;
}
#endif

}  // namespace
}  // namespace vkrt
