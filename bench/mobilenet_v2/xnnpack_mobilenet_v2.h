// MobileNetV2 224 int8 built from XNNPACK's operator API, for mobilenet_v2_bench to time beside
// vkrt's sample program. The layers are those of examples/mobilenet_v2_graph.cpp (the sample's
// generator): the same shapes, strides, paddings, channel counts, ReLU6 clamps and residual adds,
// so both sides do the same arithmetic; weights and quantization parameters are deterministic
// random ones of the same kind (int8 weights, int32 biases, per-channel requantization scales of
// about 2^-8.5), not the sample's own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vkrt::bench {

class XnnpackMobileNetV2 {
 public:
  // Creates and sets up every operator for `threads` threads (1: on the calling thread), once:
  // run() then only runs them. nullptr on failure, with *error naming the operator.
  // xnn_initialize must have succeeded.
  static std::unique_ptr<XnnpackMobileNetV2> create(int threads, std::string* error);
  ~XnnpackMobileNetV2();

  // One inference on a fixed input; false (and *error) if an operator failed.
  bool run(std::string* error);
  // The same, timing each operator: (*layer_ms)[i] is layer i's wall-clock time (resized to
  // layers().size()).
  bool run_timed(std::vector<double>* layer_ms, std::string* error);

  // The operators in run order, for the per-layer table: what each is ("conv", "depthwise",
  // "add", "global_avgpool", "fully_connected") and its shape, "1x1 56x56 24->144".
  struct LayerInfo {
    std::string kind;
    std::string shape;
  };
  std::vector<LayerInfo> layers() const;

  // What the network is, for the report: "52 convolutions (17 depthwise), 10 adds, ..." and its
  // multiply-accumulates.
  std::string summary() const;
  double macs() const;

 private:
  struct Impl;
  explicit XnnpackMobileNetV2(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkrt::bench
