#include "xnnpack_mobilenet_v2.h"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

namespace vkrt::bench {
namespace {

enum class Kind { Conv, Depthwise, Add, GlobalAvgPool, FullyConnected };

// One operator of the network, with its input's size.
struct Layer {
  Kind kind = Kind::Conv;
  int h = 1, w = 1, cin = 0, cout = 0;
  int k = 1, stride = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int oh = 1, ow = 1;
  bool relu6 = false;
  // The first layer of a block with a residual add: its input stays live until the block's Add.
  bool keeps_input = false;
};

// The layer list of examples/mobilenet_v2_graph.cpp's build_mobilenet_v2 at 224x224, batch 1:
// stem 3x3/2 conv, MobileNetV2 Table 2's 17 inverted-residual blocks, 1x1 conv to 1280, global
// average pool and the 1000-class classifier (a 1x1 conv on a 1x1 map there: a fully connected
// layer here, the same multiply-accumulates).
std::vector<Layer> mobilenet_v2_layers() {
  std::vector<Layer> layers;
  int h = 224, w = 224, c = 3;
  auto conv = [&](int cout, int k, int stride, bool depthwise, bool relu6) {
    Layer l;
    l.kind = depthwise ? Kind::Depthwise : Kind::Conv;
    l.h = h, l.w = w, l.cin = c, l.cout = cout, l.k = k, l.stride = stride, l.relu6 = relu6;
    // The sample's TFLite "SAME" padding: k/2 on every side, except that stride-2 layers pad only
    // bottom and right.
    const int pad = k / 2;
    const int before = stride == 2 ? std::max(pad - 1, 0) : pad;
    l.pad_top = l.pad_left = before;
    l.pad_bottom = l.pad_right = pad;
    l.oh = (h + before + pad - k) / stride + 1;
    l.ow = (w + before + pad - k) / stride + 1;
    layers.push_back(l);
    h = l.oh, w = l.ow, c = cout;
  };
  conv(32, 3, 2, false, true);
  // (expansion t, channels c, repeats n, first stride s), as in the generator.
  const int blocks[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                            {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  for (const auto& blk : blocks) {
    for (int i = 0; i < blk[2]; ++i) {
      const int stride = i == 0 ? blk[3] : 1, in_c = c, out_c = blk[1];
      const size_t first = layers.size();
      if (blk[0] != 1) conv(c * blk[0], 1, 1, false, true);  // expand
      conv(c, 3, stride, true, true);                         // depthwise
      conv(out_c, 1, 1, false, false);                        // project (linear)
      if (stride == 1 && in_c == out_c) {
        Layer add;
        add.kind = Kind::Add;
        add.h = add.oh = h, add.w = add.ow = w, add.cin = add.cout = c;
        layers[first].keeps_input = true;
        layers.push_back(add);
      }
    }
  }
  conv(1280, 1, 1, false, true);
  Layer pool;
  pool.kind = Kind::GlobalAvgPool;
  pool.h = h, pool.w = w, pool.cin = pool.cout = c;
  layers.push_back(pool);
  Layer fc;
  fc.kind = Kind::FullyConnected;
  fc.cin = c, fc.cout = 1000;
  layers.push_back(fc);
  return layers;
}

size_t output_bytes(const Layer& l) { return size_t(l.oh) * size_t(l.ow) * size_t(l.cout); }

// Activations are int8 with the sample's zero point (-128) and one scale throughout; its ReLU6 is
// a clamp to [-128, 20], kept here as the operators' output range.
constexpr int8_t kZeroPoint = -128;
constexpr float kScale = 0.05f;
constexpr int8_t kRelu6Max = 20;

}  // namespace

struct XnnpackMobileNetV2::Impl {
  std::vector<Layer> layers;
  pthreadpool_t pool = nullptr;
  std::vector<xnn_operator_t> ops;
  std::vector<int8_t> input;
  // Three activation buffers used in turn, the way a memory planner would reuse them: an
  // inverted-residual block needs its input (for the add), the layer's input and its output.
  std::vector<int8_t> buffers[3];

  ~Impl() {
    for (xnn_operator_t op : ops) xnn_delete_operator(op);
    if (pool) pthreadpool_destroy(pool);
  }
};

XnnpackMobileNetV2::XnnpackMobileNetV2(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
XnnpackMobileNetV2::~XnnpackMobileNetV2() = default;

std::unique_ptr<XnnpackMobileNetV2> XnnpackMobileNetV2::create(int threads, std::string* error) {
  auto impl = std::make_unique<Impl>();
  impl->layers = mobilenet_v2_layers();
  if (threads > 1) {
    impl->pool = pthreadpool_create(size_t(threads));
    if (!impl->pool) {
      *error = "pthreadpool_create(" + std::to_string(threads) + ") failed";
      return nullptr;
    }
  }
  size_t largest = 0;
  for (const Layer& l : impl->layers) largest = std::max(largest, output_bytes(l));
  for (auto& b : impl->buffers) b.assign(largest, 0);
  // The same ramp as vkrt's input (small signed integers), fixed for every run.
  impl->input.resize(size_t(224) * 224 * 3);
  for (size_t i = 0; i < impl->input.size(); ++i) impl->input[i] = int8_t(int(i * 37 % 251) - 125);

  std::mt19937 rng(1);
  std::uniform_int_distribution<int> weight(-127, 127), bias(-2000, 2000);
  // Per-channel scales in [2^-9, 2^-8): the sample's requantization multipliers and shift.
  std::uniform_real_distribution<float> scale(std::ldexp(1.0f, -9), std::ldexp(1.0f, -8));

  const int8_t* x = impl->input.data();
  const int8_t* skip = nullptr;  // a residual block's input, live until its Add
  for (size_t i = 0; i < impl->layers.size(); ++i) {
    const Layer& l = impl->layers[i];
    if (l.keeps_input) skip = x;
    int8_t* y = nullptr;
    for (auto& b : impl->buffers)
      if (b.data() != x && b.data() != skip) {
        y = b.data();
        break;
      }
    xnn_operator_t op = nullptr;
    xnn_status status = xnn_status_success;
    const int8_t out_max = l.relu6 ? kRelu6Max : INT8_MAX;
    switch (l.kind) {
      case Kind::Conv:
      case Kind::Depthwise:
      case Kind::FullyConnected: {
        const bool dw = l.kind == Kind::Depthwise;
        std::vector<int8_t> kernel(size_t(l.cout) * l.k * l.k * (dw ? 1 : l.cin));
        std::vector<int32_t> biases(size_t(l.cout));
        std::vector<float> scales(size_t(l.cout));
        for (auto& v : kernel) v = int8_t(weight(rng));
        for (auto& v : biases) v = bias(rng);
        for (auto& v : scales) v = scale(rng);
        if (l.kind == Kind::FullyConnected) {
          // The QS8 fully connected operator has one kernel scale (this XNNPACK has no per-channel one).
          status = xnn_create_fully_connected_nc_qs8(l.cin, l.cout, l.cin, l.cout, kZeroPoint, kScale, scales[0],
                                                     kernel.data(), biases.data(), kZeroPoint, kScale, INT8_MIN,
                                                     out_max, 0, &op);
          if (status == xnn_status_success)
            status = xnn_setup_fully_connected_nc_qs8(op, 1, x, y, impl->pool);
          break;
        }
        // QC8: int8 weights with a scale per output channel, as the sample's per-channel RESCALE.
        // Depthwise: one group per channel (XNNPACK then picks its depthwise kernels).
        status = xnn_create_convolution2d_nhwc_qc8(
            l.pad_top, l.pad_right, l.pad_bottom, l.pad_left, l.k, l.k, l.stride, l.stride, 1, 1,
            dw ? l.cin : 1, dw ? 1 : l.cin, dw ? 1 : l.cout, l.cin, l.cout, kZeroPoint, kScale, scales.data(),
            kernel.data(), biases.data(), kZeroPoint, kScale, INT8_MIN, out_max, 0, &op);
        if (status == xnn_status_success)
          status = xnn_setup_convolution2d_nhwc_qc8(op, 1, l.h, l.w, x, y, impl->pool);
        break;
      }
      case Kind::Add: {
        // The sample adds in int32 and halves the sum ((a + b) * 2^10 * 2^-11): output scale 2x.
        status = xnn_create_add_nd_qs8(kZeroPoint, kScale, kZeroPoint, kScale, kZeroPoint, 2 * kScale, INT8_MIN,
                                       INT8_MAX, 0, &op);
        const size_t shape[4] = {1, size_t(l.h), size_t(l.w), size_t(l.cin)};
        if (status == xnn_status_success) status = xnn_setup_add_nd_qs8(op, 4, shape, 4, shape, skip, x, y, impl->pool);
        break;
      }
      case Kind::GlobalAvgPool:
        status = xnn_create_global_average_pooling_nwc_qs8(l.cin, l.cin, l.cin, kZeroPoint, kScale, kZeroPoint, kScale,
                                                           INT8_MIN, INT8_MAX, 0, &op);
        if (status == xnn_status_success)
          status = xnn_setup_global_average_pooling_nwc_qs8(op, 1, size_t(l.h) * l.w, x, y, impl->pool);
        break;
    }
    if (op) impl->ops.push_back(op);  // deleted with impl, also on failure
    if (status != xnn_status_success) {
      *error = "XNNPACK: creating or setting up layer " + std::to_string(i) + " failed (xnn_status " +
               std::to_string(int(status)) + ")";
      return nullptr;
    }
    if (l.kind == Kind::Add) skip = nullptr;
    x = y;
  }
  return std::unique_ptr<XnnpackMobileNetV2>(new XnnpackMobileNetV2(std::move(impl)));
}

bool XnnpackMobileNetV2::run(std::string* error) { return run_timed(nullptr, error); }

bool XnnpackMobileNetV2::run_timed(std::vector<double>* layer_ms, std::string* error) {
  using Clock = std::chrono::steady_clock;
  if (layer_ms) layer_ms->assign(impl_->ops.size(), 0.0);
  for (size_t i = 0; i < impl_->ops.size(); ++i) {
    const auto t0 = Clock::now();
    const xnn_status status = xnn_run_operator(impl_->ops[i], impl_->pool);
    if (status != xnn_status_success) {
      *error = "XNNPACK: running layer " + std::to_string(i) + " failed (xnn_status " + std::to_string(int(status)) + ")";
      return false;
    }
    if (layer_ms) (*layer_ms)[i] = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  return true;
}

std::vector<XnnpackMobileNetV2::LayerInfo> XnnpackMobileNetV2::layers() const {
  std::vector<LayerInfo> out;
  for (const Layer& l : impl_->layers) {
    const std::string hw = std::to_string(l.h) + "x" + std::to_string(l.w);
    const std::string k = std::to_string(l.k) + "x" + std::to_string(l.k) + (l.stride == 2 ? "/2 " : " ");
    switch (l.kind) {
      case Kind::Conv:
        out.push_back({"conv", k + hw + " " + std::to_string(l.cin) + "->" + std::to_string(l.cout)});
        break;
      case Kind::Depthwise:
        out.push_back({"depthwise", k + hw + "x" + std::to_string(l.cin)});
        break;
      case Kind::Add:
        out.push_back({"add", hw + "x" + std::to_string(l.cin)});
        break;
      case Kind::GlobalAvgPool:
        out.push_back({"global_avgpool", hw + "x" + std::to_string(l.cin)});
        break;
      case Kind::FullyConnected:
        out.push_back({"fully_connected", std::to_string(l.cin) + "->" + std::to_string(l.cout)});
        break;
    }
  }
  return out;
}

std::string XnnpackMobileNetV2::summary() const {
  int convs = 0, depthwise = 0, adds = 0;
  for (const Layer& l : impl_->layers) {
    convs += l.kind == Kind::Conv || l.kind == Kind::Depthwise;
    depthwise += l.kind == Kind::Depthwise;
    adds += l.kind == Kind::Add;
  }
  return std::to_string(convs) + " convolutions (" + std::to_string(depthwise) + " depthwise), " +
         std::to_string(adds) + " residual adds, global average pool, fully connected 1280->1000";
}

double XnnpackMobileNetV2::macs() const {
  double total = 0;
  for (const Layer& l : impl_->layers) {
    const double per_output = l.kind == Kind::Depthwise ? l.k * l.k : double(l.k) * l.k * l.cin;
    if (l.kind == Kind::Conv || l.kind == Kind::Depthwise || l.kind == Kind::FullyConnected)
      total += double(l.oh) * l.ow * l.cout * per_output;
  }
  return total;
}

}  // namespace vkrt::bench
