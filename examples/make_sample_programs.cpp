// make_sample_programs <outdir>: writes the sample programs (examples/sample_programs.h) built
// with vkrt's writer, and prints one line per file. `make run` runs executor_runner on
// <outdir>/add_mul.pte afterwards.
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

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
  std::vector<vkrt::samples::SampleFile> samples = vkrt::samples::all_samples();
#ifdef VKRT_SAMPLES_WITH_VGF
  samples.push_back({"mobilenet_v2_int8_vgf.pte",
                     "int8 [1,224,224,3] -> VgfBackend (MobileNetV2-shaped TOSA graph, random weights) -> "
                     "int8 [1,1000]; run on the GPU with executor_runner --profile",
                     [] { return vkrt::samples::mobilenet_v2_vgf_program(1, 224); }});
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
