// The shared TOSA conformance examples (../shared/conformance/vgf/tosa/, read at test time) run
// on the Vulkan executor: int8 CONV2D -> RESCALE byte for byte against the TFLite result, fp32
// ADD with broadcast within 1e-6 relative. Skips when the folder or a Vulkan device is absent.
#include "tests/common/conformance.h"
#include "vgf/tosa_fb/tosa_reader.h"
#include "vulkan_test_util.h"

namespace vkrt::vulkan::testing {
namespace {

// The data bytes of a .npy file (format 1.x/2.x: magic, version, header length, header, data).
std::vector<uint8_t> npy_data(const std::vector<uint8_t>& file) {
  if (file.size() < 10 || std::memcmp(file.data(), "\x93NUMPY", 6) != 0) return {};
  size_t header_len, start;
  if (file[6] == 1) {
    header_len = size_t(file[8]) | size_t(file[9]) << 8;
    start = 10;
  } else {
    if (file.size() < 12) return {};
    header_len = size_t(file[8]) | size_t(file[9]) << 8 | size_t(file[10]) << 16 | size_t(file[11]) << 24;
    start = 12;
  }
  if (start + header_len > file.size()) return {};
  return std::vector<uint8_t>(file.begin() + long(start + header_len), file.end());
}

void run_example(const std::string& dir, const std::vector<std::string>& inputs, const std::string& result,
                 bool exact) {
  // <dir>/flatbuffer-tflite/<example name>.tosa (see its desc.json).
  std::string name = dir.substr(dir.find_last_of('/') + 1);
  auto bytes = ::vkrt::testing::read_file(dir + "/flatbuffer-tflite/" + name + ".tosa");
  ASSERT_FALSE(bytes.empty());
  auto graph = vgf::read_tosa_graph(bytes);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  ASSERT_EQ(graph->inputs.size(), inputs.size());
  std::vector<HostTensor> in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& info = graph->tensor(graph->inputs[i].tensor);
    HostTensor h(info.dtype, info.shape);
    auto data = npy_data(::vkrt::testing::read_file(dir + "/" + inputs[i]));
    ASSERT_EQ(data.size(), h.bytes.size()) << inputs[i];
    h.bytes = data;
    in.push_back(std::move(h));
  }
  std::vector<HostTensor> out;
  VulkanExecutorStats stats;
  Status s = run_on_vulkan(*graph, in, out, nullptr, &stats);
  ASSERT_TRUE(s.is_ok()) << s.message();
  HostTensor expected = out[0];
  expected.bytes = npy_data(::vkrt::testing::read_file(dir + "/" + result));
  ASSERT_EQ(expected.bytes.size(), out[0].bytes.size());
  if (exact) {
    EXPECT_TRUE(bytes_equal(expected, out[0]));
  } else {
    EXPECT_TRUE(floats_close(expected, out[0], 1e-6f, 1e-6f));
  }
}

TEST(VulkanConformance, TosaConv2dRescaleInt8MatchesTflite) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/tosa/test_conv2d_1x1_1x32x32x8_qi8_st11_padSAME_dilat11");
  VKRT_REQUIRE_VULKAN();
  run_example(dir, {"placeholder_0.npy"}, "tflite_result.npy", true);
}

TEST(VulkanConformance, TosaAddFp32Broadcast) {
  VKRT_REQUIRE_CONFORMANCE(dir, "vgf/tosa/test_add_1x4x4x4_f32");
  VKRT_REQUIRE_VULKAN();
  run_example(dir, {"placeholder_0.npy", "placeholder_1.npy"}, "tflite_result.npy", false);
}

}  // namespace
}  // namespace vkrt::vulkan::testing
