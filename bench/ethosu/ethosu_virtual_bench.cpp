// ethosu_virtual_bench: every Vela-compiled model of the conformance folder that Vela put wholly
// on the NPU, on the virtual NPU: how many inferences a second this host simulates, and the
// performance model's cycle estimate next to Vela's own (U55-128, from the folder's README).
//
//   ethosu_virtual_bench [conformance dir] [--min_time SECONDS]
//
// The conformance dir defaults to $VKRT_CONFORMANCE_DIR. Not a test: it prints figures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "compute/isa.h"
#include "ethosu/tflite/tflite_model.h"
#include "ethosu/tflite/vela_tflite_runner.h"
#include "ethosu/virtual/weight_cache.h"

namespace {

using namespace vkrt::ethosu;

// Vela 3.10.0's NPU cycle estimates for U55-128 (../shared/conformance/ethos-u/README.md).
struct VelaEstimate {
  const char* model;
  long cycles;
};
constexpr VelaEstimate kVelaU55_128[] = {
    {"test_abs_int8", 5}, {"test_add_int8", 6}, {"test_averagepooling2d_int8", 40},
    {"test_concat_int8", 157}, {"test_conv2d_int8", 913}, {"test_depthwise_conv2d_int8", 750},
    {"test_fullconnected_int8", 123}, {"test_hardswish_int8", 638}, {"test_leakyrelu_int8", 642},
    {"test_logistic_int8", 638}, {"test_max_uint8", 148}, {"test_maxpooling2d_int8", 39},
    {"test_min_uint8", 148}, {"test_mlp_uint8", 18115}, {"test_mul_int8", 5}, {"test_pack_int8", 117},
    {"test_pad_c_int8", 374}, {"test_pad_int8", 1582}, {"test_relu6_int8", 36}, {"test_relu_int8", 38},
    {"test_relu_n1_to_1_int8", 38}, {"test_resize_int8", 82}, {"test_slice_int8", 37},
    {"test_softmax_int8", 1226}, {"test_split_int8", 168}, {"test_strided_slice_int8", 37},
    {"test_sub_int8", 6}, {"test_tanh_int8", 642}, {"test_transpose_conv2d_int8", 4146},
    {"test_unpack_int8", 111}};

long vela_cycles(const std::string& model, const std::string& config) {
  if (config != "vela-u55-128") return -1;
  for (const VelaEstimate& e : kVelaU55_128)
    if (model == e.model) return e.cycles;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir = std::getenv("VKRT_CONFORMANCE_DIR") ? std::getenv("VKRT_CONFORMANCE_DIR") : "";
  double min_time = 0.2;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min_time") == 0 && i + 1 < argc) {
      min_time = std::atof(argv[++i]);
    } else if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("usage: ethosu_virtual_bench [conformance dir] [--min_time SECONDS]\n");
      return 0;
    } else {
      dir = argv[i];
    }
  }
  if (dir.empty() || !std::filesystem::is_directory(dir + "/ethos-u/tflite")) {
    std::fprintf(stderr, "ethosu_virtual_bench: no conformance folder (give it or set VKRT_CONFORMANCE_DIR)\n");
    return 1;
  }
  std::printf("virtual Ethos-U NPU on %s (host CPU: %s), at least %.2f s per model\n", dir.c_str(),
              vkrt::compute::cpu_model_name().c_str(), min_time);
  std::printf("%-28s %-13s %4s %4s %7s %10s %10s %10s %6s %12s\n", "model", "config", "ops", "DMAs", "MACs",
              "est. total", "est. NPU", "Vela NPU", "ratio", "inferences/s");
  for (const char* config : {"vela-u55-128", "vela-u65-256"}) {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/ethos-u/tflite/" + config))
      files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    for (const std::string& path : files) {
      std::string model = std::filesystem::path(path).stem().string();
      model = model.substr(0, model.size() - 5);  // "_vela"
      auto vela = tflite::load_tflite_file(path);
      if (!vela.ok()) {
        std::printf("%-28s %-13s %s\n", model.c_str(), config, vela.status().message().c_str());
        continue;
      }
      auto program = tflite::read_vela_npu_program(*vela);
      if (!program.ok()) {
        std::printf("%-28s %-13s skipped: %s\n", model.c_str(), config, program.status().message().c_str());
        continue;
      }
      std::mt19937 rng(7);
      std::vector<std::vector<uint8_t>> inputs;
      for (int32_t t : vela->inputs) {
        std::vector<uint8_t> bytes(vela->tensors[size_t(t)].byte_size());
        for (uint8_t& b : bytes) b = uint8_t(rng());
        inputs.push_back(std::move(bytes));
      }
      virtual_npu::RunCounters counters;
      virtual_npu::WeightCache weights;  // as the virtual driver keeps them: decoded at the first run
      int runs = 0;
      const auto start = std::chrono::steady_clock::now();
      double elapsed = 0;
      do {
        auto out = tflite::run_vela_npu_program(*vela, *program, inputs, &counters, &weights);
        if (!out.ok()) {
          std::printf("%-28s %-13s failed: %s\n", model.c_str(), config, out.status().message().c_str());
          break;
        }
        ++runs;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      } while (elapsed < min_time);
      if (runs == 0) continue;
      const long vela_estimate = vela_cycles(model, config);
      char vela_text[32] = "-", ratio_text[32] = "-";
      if (vela_estimate > 0) {
        std::snprintf(vela_text, sizeof vela_text, "%ld", vela_estimate);
        std::snprintf(ratio_text, sizeof ratio_text, "%.2f", double(counters.estimated_npu_cycles) / double(vela_estimate));
      }
      std::printf("%-28s %-13s %4llu %4llu %7llu %10llu %10llu %10s %6s %12.0f\n", model.c_str(), config,
                  (unsigned long long)counters.operations, (unsigned long long)counters.dma_transfers,
                  (unsigned long long)counters.macs, (unsigned long long)counters.estimated_cycles,
                  (unsigned long long)counters.estimated_npu_cycles, vela_text, ratio_text, double(runs) / elapsed);
    }
  }
  std::printf("est. total: the performance model's cycles with memory time and latencies; est. NPU: its compute\n"
              "cycles alone; ratio: est. NPU / Vela's NPU cycles (ethosu/virtual/performance_model.h)\n");
  return 0;
}
