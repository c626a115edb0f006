// The TFLite models of ../shared/conformance/ethos-u/ the Ethos-U tests read: all 33 (models/), and
// the 31 that Vela put wholly on the NPU (its README: all but test_mean_int8 and test_mnist_uint8),
// each compiled for two NPU configurations (vela-*/). VelaPte.EveryNpuOnlyModelIsListed checks the
// second list against the files.
#pragma once

#include <cstdlib>
#include <string>

namespace vkrt::testing {

inline constexpr const char* kAllModels[] = {
    "test_abs_int8", "test_add_int8", "test_averagepooling2d_int8", "test_concat_int8",
    "test_conv2d_int8", "test_depthwise_conv2d_int8", "test_fullconnected_int8", "test_hardswish_int8",
    "test_leakyrelu_int8", "test_logistic_int8", "test_max_uint8", "test_maxpooling2d_int8",
    "test_mean_int8", "test_min_uint8", "test_mlp_uint8", "test_mnist_uint8", "test_mul_int8",
    "test_pack_int8", "test_pad_c_int8", "test_pad_int8", "test_relu6_int8", "test_relu_int8",
    "test_relu_n1_to_1_int8", "test_reshape_int8", "test_resize_int8", "test_slice_int8",
    "test_softmax_int8", "test_split_int8", "test_strided_slice_int8", "test_sub_int8",
    "test_tanh_int8", "test_transpose_conv2d_int8", "test_unpack_int8"};

inline constexpr const char* kNpuModels[] = {
    "test_abs_int8", "test_add_int8", "test_averagepooling2d_int8", "test_concat_int8",
    "test_conv2d_int8", "test_depthwise_conv2d_int8", "test_fullconnected_int8", "test_hardswish_int8",
    "test_leakyrelu_int8", "test_logistic_int8", "test_max_uint8", "test_maxpooling2d_int8",
    "test_min_uint8", "test_mlp_uint8", "test_mul_int8", "test_pack_int8", "test_pad_c_int8",
    "test_pad_int8", "test_relu6_int8", "test_relu_int8", "test_relu_n1_to_1_int8",
    "test_reshape_int8", "test_resize_int8", "test_slice_int8", "test_softmax_int8",
    "test_split_int8", "test_strided_slice_int8", "test_sub_int8", "test_tanh_int8",
    "test_transpose_conv2d_int8", "test_unpack_int8"};
inline constexpr const char* kVelaConfigs[] = {"vela-u55-128", "vela-u65-256"};

// <conformance>/ethos-u/tflite, or "" when VKRT_CONFORMANCE_DIR is not set.
inline std::string vela_tflite_dir() {
  const char* d = std::getenv("VKRT_CONFORMANCE_DIR");
  return d ? std::string(d) + "/ethos-u/tflite" : std::string();
}

// A case's gtest name: "conv2d_int8_u55_128".
inline std::string vela_case_name(const std::string& model, const std::string& config) {
  std::string name = model.substr(5) + "_" + config.substr(5);
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

}  // namespace vkrt::testing
