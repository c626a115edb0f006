// make_sample_programs <outdir>: writes the sample programs (examples/sample_programs.h) built
// with vkrt's writer, and prints one line per file. `make run` runs executor_runner on
// <outdir>/add_mul.pte afterwards.
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "dscnn_program.h"
#include "sample_programs.h"
#ifdef VKRT_SAMPLES_WITH_VGF
#include "vgf_samples.h"
#endif
#include "vkrt/pte_writer.h"

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fprintf(stderr,
                 "usage: %s <outdir>\n"
                 "Writes sample ExecuTorch programs (.pte, .ptd, .bpte) built with vkrt's writer into <outdir>.\n",
                 argv[0]);
    return argc == 2 ? 0 : 2;
  }
  const std::filesystem::path outdir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(outdir, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create %s: %s\n", outdir.c_str(), ec.message().c_str());
    return 1;
  }
  using namespace vkrt::samples;
  std::vector<SampleFile> samples = all_samples();
  // One sample per Arm recipe (deterministic weights; README "Sample programs").
  samples.push_back({"dscnn_int8_cortex_m.pte",
                     "Cortex-M INT8: float [1,1,49,10] -> cortex_m quantize, depthwise + pointwise conv, avg pool, "
                     "linear, dequantize -> float [1,12] (DS-CNN keyword spotting)",
                     [] { return dscnn_int8_program(); }});
#ifdef VKRT_SAMPLES_WITH_VGF
  samples.push_back({"mobilenet_v2_int8_vgf.pte",
                     "VGF INT8: int8 [1,224,224,3] -> VgfBackend (MobileNetV2-shaped TOSA graph) -> int8 [1,1000]; "
                     "run on the GPU with executor_runner --profile",
                     [] { return mobilenet_v2_vgf_program(1, 224, Precision::Int8); }});
  samples.push_back({"mobilenet_v2_fp32_vgf.pte",
                     "VGF FP32: float [1,224,224,3] -> VgfBackend (MobileNetV2-shaped fp32 TOSA graph) -> float [1,1000]",
                     [] { return mobilenet_v2_vgf_program(1, 224, Precision::Fp32); }});
  samples.push_back({"small_cnn_a16w8_vgf.pte",
                     "TOSA A16W8: int16 [1,32,32,3] -> VgfBackend (small CNN, int16 activations, int8 weights, "
                     "int48 accumulators) -> int16 [1,10]",
                     [] { return small_cnn_vgf_program(Precision::A16W8); }});
  samples.push_back({"small_cnn_int8.vgf",
                     "a bare VGF file (no program around it): int8 [1,32,32,3] -> small CNN -> int8 [1,10]; "
                     "executor_runner runs it directly",
                     [] { return small_cnn_vgf(Precision::Int8); }});
#endif
  for (const auto& sample : samples) {
    const std::string path = (outdir / sample.name).string();
    vkrt::Result<std::vector<uint8_t>> bytes = sample.build();
    if (!bytes.ok()) {
      std::fprintf(stderr, "error: building %s: %s\n", sample.name.c_str(), bytes.status().to_string().c_str());
      return 1;
    }
    vkrt::Status written = vkrt::write_bytes_to_file(path, *bytes);
    if (!written.is_ok()) {
      std::fprintf(stderr, "error: %s\n", written.to_string().c_str());
      return 1;
    }
    std::printf("wrote %s (%zu bytes): %s\n", path.c_str(), bytes->size(), sample.what.c_str());
  }
  return 0;
}
