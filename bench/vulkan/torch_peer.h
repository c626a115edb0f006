// PyTorch as a speed peer for the GEMM benchmarks: runs torch_gemm.py on the same shapes and
// prints our GPU throughput next to PyTorch's, with the ratio (vulkan_bench --torch=python3).
// PyTorch is only present on the GPU host; elsewhere the table says it is unavailable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vkrt::bench {

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  std::string text() const;  // "MxNxK"
  bool operator==(const GemmShape&) const = default;
};

// Parses "4096" (a cube) or "MxNxK"; false on anything else.
bool parse_gemm_shape(const std::string& text, GemmShape* out);

// One throughput figure: dtype "int8" or "fp16"; gops <= 0 with `note` set when there is none.
struct GemmFigure {
  std::string dtype;
  GemmShape shape;
  double gops = 0;
  std::string note;
};

// Runs `python script shape...` and parses its lines (format in torch_gemm.py). On failure to
// start, returns one figure per requested (dtype, shape) carrying the reason as its note.
std::vector<GemmFigure> run_torch_peer(const std::string& python, const std::string& script,
                                       const std::vector<GemmShape>& shapes);

// Parses the script's output (split out so that tests can feed it text).
std::vector<GemmFigure> parse_torch_output(const std::string& text);

// Prints "shape dtype ours torch ratio" rows for every figure of ours, matched by dtype and shape.
void print_peer_table(const std::vector<GemmFigure>& ours, const std::vector<GemmFigure>& torch);

}  // namespace vkrt::bench
