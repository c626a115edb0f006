// A VGF whose RESCALE carries one corrupt attribute byte (a shift of 64 or -30, a negative scale32
// multiplier) must be refused, the same way whichever executor would run it: the rule lives in
// the IR validation every reader and executor goes through (RESCALE's descriptor, vgf/ir/ops/type_conversion_ops.cpp). Before,
// the CPU executor refused such a graph and the Vulkan one ran it with meaningless outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/vgf/model/both_executors_refuse.h"
#include "vgf/cpu/cpu_executor.h"
#include "vgf/executor.h"
#include "vgf/format/vgf_file.h"
#include "vgf/graph_vgf_writer.h"
#include "vgf/ir/graph.h"
#include "vgf/segment_graph.h"
#include "vkrt/vgf.h"

namespace vkrt::vgf {
namespace {

constexpr int kChannels = 17;

// int32 [1,2,2,17] -> per-channel RESCALE (scale32, multiplier (1 << 30) + c, shift 40 + c) -> int8.
Graph rescale_graph() {
  Graph g;
  TensorInfo x;
  x.name = "x";
  x.dtype = DType::Int32;
  x.shape = {1, 2, 2, kChannels};
  TensorInfo y = x;
  y.name = "y";
  y.dtype = DType::Int8;
  const TensorId xi = g.add_tensor(std::move(x)), yi = g.add_tensor(std::move(y));
  RescaleAttr r;
  r.scale32 = true;
  r.per_channel = true;
  for (int c = 0; c < kChannels; ++c) {
    r.multiplier.push_back((1 << 30) + c);
    r.shift.push_back(int8_t(40 + c));
  }
  g.inputs.push_back({xi, "x", 0, 0});
  g.ops.push_back(Op{OpKind::RESCALE, {xi}, {yi}, r, "rescale"});
  g.outputs.push_back({yi, "y", 1, 0});
  return g;
}

// The VGF with one OpConstant of the SPIR-V module changed: the constant of integer `width` whose
// literal is `from` (exactly one) gets `to`, the way one flipped byte of a real file would.
std::vector<uint8_t> patched(const std::vector<uint8_t>& good, uint32_t width, uint32_t from, uint32_t to) {
  auto file = decode_vgf(good);
  EXPECT_TRUE(file.ok());
  std::vector<uint32_t>& words = file->modules[0].spirv;
  std::vector<uint32_t> int_width(words.size() > 3 ? words[3] : 0, 0);  // bound: ids < words[3]
  int found = 0;
  for (size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16, opcode = words[at] & 0xffff;
    if (count == 0 || at + count > words.size()) break;
    if (opcode == 21 && count >= 4 && words[at + 1] < int_width.size()) int_width[words[at + 1]] = words[at + 2];
    if (opcode == 43 && count == 4 && words[at + 1] < int_width.size() && int_width[words[at + 1]] == width &&
        words[at + 3] == from) {
      words[at + 3] = to;
      ++found;
    }
    at += count;
  }
  EXPECT_EQ(found, 1) << "constants with value " << from;
  auto bytes = encode_vgf(*file, VgfEncodeOptions{});
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? *bytes : good;
}

struct Corruption {
  const char* what;
  uint32_t width, from, to;
  std::string message;
};

std::vector<Corruption> corruptions() {
  const int32_t negative = -((1 << 30) + 5);
  return {{"shift 64", 8, 40 + 16, 64, "op 0 (RESCALE): shift[16] = 64 outside [2, 62]"},
          {"shift -30", 8, 40 + 3, uint32_t(uint8_t(int8_t(-30))), "op 0 (RESCALE): shift[3] = -30 outside [2, 62]"},
          {"negative multiplier", 32, (1u << 30) + 5, uint32_t(negative),
           "op 0 (RESCALE): multiplier[5] = " + std::to_string(negative) + " out of range for scale32"}};
}

TEST(CorruptRescale, RefusedByEveryReaderWithTheSameMessage) {
  auto good = write_graph_vgf(rescale_graph());
  ASSERT_TRUE(good.ok()) << good.status().to_string();
  ASSERT_TRUE(VgfModel::from_bytes(*good).ok());
  for (const Corruption& c : corruptions()) {
    const std::vector<uint8_t> bad = patched(*good, c.width, c.from, c.to);
    auto file = decode_vgf(bad);
    ASSERT_TRUE(file.ok()) << c.what << ": " << file.status().to_string();  // the container is fine
    auto graph = build_segment_graph(*file, 0);
    ASSERT_FALSE(graph.ok()) << c.what;
    EXPECT_EQ(graph.error(), Error::InvalidProgram);
    EXPECT_NE(graph.status().message().find(c.message), std::string::npos) << graph.status().to_string();
    auto model = VgfModel::from_bytes(bad);
    ASSERT_FALSE(model.ok()) << c.what;
    EXPECT_NE(model.status().message().find(c.message), std::string::npos) << model.status().to_string();
  }
}

// The executors take graphs that did not come from a reader too (tests, the .tosa path): both
// refuse the corrupt attribute at prepare, with the same message.
TEST(CorruptRescale, RefusedByBothExecutorsWithTheSameMessage) {
  for (const Corruption& c : corruptions()) {
    Graph g = rescale_graph();
    RescaleAttr& r = std::get<RescaleAttr>(g.ops[0].attr);
    if (c.what == std::string("shift 64")) r.shift[16] = 64;
    if (c.what == std::string("shift -30")) r.shift[3] = -30;
    if (c.what == std::string("negative multiplier")) r.multiplier[5] = -((1 << 30) + 5);
    expect_both_executors_refuse(g, c.message, c.what);
  }
}

}  // namespace
}  // namespace vkrt::vgf
