// Validate once (issue 17): the CPU and Vulkan executors accept exactly the same graphs, less
// their declared capability limits (vgf/fuzz/executors_agree.h, which vgf_fuzzer asserts on every
// input). Here over the graphs of the repository's fuzz corpus and the conformance VGF and .tosa
// files, and over deterministic mutations of their attributes, types and input shapes: each
// mutant that a reader would accept (validate_graph and the shape rules) must get the same
// verdict class from both executors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "common/conformance.h"
#include "vgf/format/vgf_file.h"
#include "vgf/fuzz/executors_agree.h"
#include "vgf/ir/shape_inference.h"
#include "vgf/segment_graph.h"
#include "vgf/tosa_fb/tosa_reader.h"

namespace vkrt::vgf {
namespace {

std::vector<Graph> corpus_graphs() {
  std::vector<std::string> vgf_files, tosa_files;
  // The repository corpus, and VKRT_EXECUTORS_AGREE_DIR when set: e.g. the VGFs of every graph the
  // Vulkan tests run (VKRT_TEST_WRITE_VGF=dir build/tests/vulkan/vulkan_ops_test), as
  // scripts/run-fuzzers.sh seeds vgf_fuzzer with them.
  std::vector<std::string> dirs = {VKRT_VGF_FUZZ_CORPUS_DIR};
  if (const char* extra = std::getenv("VKRT_EXECUTORS_AGREE_DIR")) dirs.push_back(extra);
  for (const std::string& dir : dirs) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) vgf_files.push_back(e.path().string());
  }
  const std::string conformance = ::vkrt::testing::conformance_path("vgf");
  if (!conformance.empty()) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(conformance)) {
      if (e.path().extension() == ".vgf") vgf_files.push_back(e.path().string());
      if (e.path().extension() == ".tosa") tosa_files.push_back(e.path().string());
    }
  }
  std::vector<Graph> graphs;
  for (const std::string& path : vgf_files) {
    auto file = decode_vgf(::vkrt::testing::read_file(path));
    if (!file.ok()) continue;
    for (size_t i = 0; i < file->segments.size(); ++i) {
      auto g = build_segment_graph(*file, i);
      if (g.ok()) graphs.push_back(std::move(g).value());
    }
  }
  for (const std::string& path : tosa_files) {
    const std::vector<uint8_t> bytes = ::vkrt::testing::read_file(path);
    std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    auto g = read_tosa_graph(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(aligned.data()), bytes.size()));
    if (g.ok()) graphs.push_back(std::move(g).value());
  }
  return graphs;
}

// One random change of the kind a corrupt or hand-written file carries: an attribute field, an
// element type, or a graph input dimension.
void mutate(Graph& g, std::mt19937& rng) {
  auto pick = [&](int64_t n) { return int64_t(rng() % uint64_t(n)); };
  const int32_t values[] = {-2, -1, 0, 1, 2, 3, 7, 64, 255, 4096};
  const auto value = [&] { return values[pick(std::size(values))]; };
  const DType types[] = {DType::Int8, DType::Int16, DType::Int32, DType::Int48, DType::Fp32, DType::Fp16, DType::Bool};
  switch (pick(3)) {
    case 0: {  // an attribute
      Op& op = g.ops[size_t(pick(int64_t(g.ops.size())))];
      std::visit(
          [&](auto& a) {
            using A = std::decay_t<decltype(a)>;
            if constexpr (std::is_same_v<A, ConvAttr>) {
              int32_t* fields[] = {&a.pad[0], &a.stride[1], &a.dilation[0], &a.input_zp, &a.weight_zp};
              *fields[pick(5)] = value();
            } else if constexpr (std::is_same_v<A, PoolAttr>) {
              int32_t* fields[] = {&a.kernel[0], &a.stride[1], &a.pad[2], &a.input_zp, &a.output_zp};
              *fields[pick(5)] = value();
            } else if constexpr (std::is_same_v<A, RescaleAttr>) {
              if (!a.shift.empty() && pick(2)) a.shift[0] = int8_t(value());
              else a.input_zp = value();
            } else if constexpr (std::is_same_v<A, ClampAttr>) {
              a.min_int = value();
              a.min_fp = double(value());
            } else if constexpr (std::is_same_v<A, AxisAttr>) {
              a.axis = value();
            } else if constexpr (std::is_same_v<A, MulAttr>) {
              a.shift = value();
            } else if constexpr (std::is_same_v<A, TableAttr>) {
              a.table.resize(size_t(pick(2) ? 256 : 513));
            } else if constexpr (std::is_same_v<A, MatmulAttr>) {
              a.a_zp = value();
            } else if constexpr (std::is_same_v<A, NegateAttr>) {
              a.output_zp = value();
            } else if constexpr (std::is_same_v<A, PadAttr>) {
              if (!a.padding.empty()) a.padding[size_t(pick(int64_t(a.padding.size())))] = value();
            } else if constexpr (std::is_same_v<A, SliceAttr>) {
              if (!a.start.empty()) a.start[0] = value();
            } else if constexpr (std::is_same_v<A, TransposeAttr>) {
              if (!a.perms.empty()) a.perms[0] = value();
            } else if constexpr (std::is_same_v<A, ReshapeAttr>) {
              if (!a.shape.empty()) a.shape[0] = value();
            }
          },
          op.attr);
      break;
    }
    case 1: {  // an op output's element type
      Op& op = g.ops[size_t(pick(int64_t(g.ops.size())))];
      g.tensors[op.outputs[0]].dtype = types[pick(std::size(types))];
      break;
    }
    default: {  // a graph input dimension
      if (g.inputs.empty()) break;
      TensorInfo& t = g.tensors[g.inputs[size_t(pick(int64_t(g.inputs.size())))].tensor];
      if (!t.shape.empty()) t.shape[size_t(pick(int64_t(t.shape.size())))] = pick(10);  // 0 included
    }
  }
}

TEST(ExecutorsAgree, OnTheCorpusAndItsMutants) {
  const std::vector<Graph> graphs = corpus_graphs();
  ASSERT_FALSE(graphs.empty()) << "no graphs in " << VKRT_VGF_FUZZ_CORPUS_DIR;
  std::mt19937 rng(17);
  int compared = 0, refused_by_both = 0;
  for (const Graph& original : graphs) {
    for (int m = 0; m < 300; ++m) {
      Graph g = original;
      if (m > 0) mutate(g, rng);
      if (m % 3 == 2) mutate(g, rng);  // two changes at once
      // What a reader accepts: validated, with the shape rules applied.
      if (!validate_graph(g).is_ok() || !infer_static_shapes(g).is_ok()) continue;
      const auto verdicts = fuzzing::executor_verdicts(g);
      if (!verdicts.compared) continue;
      ++compared;
      refused_by_both += !verdicts.cpu.is_ok() && !verdicts.vulkan.is_ok();
      const std::string why = fuzzing::disagreement(verdicts);
      EXPECT_TRUE(why.empty()) << g.name << " mutant " << m << ": " << why;
    }
  }
  std::printf("%zu graphs, %d valid variants compared, %d refused by both executors\n", graphs.size(), compared,
              refused_by_both);
  EXPECT_GT(compared, 20);
}

}  // namespace
}  // namespace vkrt::vgf
