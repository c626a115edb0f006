// vkrt_bench's outputs: the table for people, the JSON for machines (docs/vkrt_bench.md gives its
// schema), and the plot (drawn by python3-matplotlib from the JSON).
#pragma once

#include <string>
#include <vector>

#include "placement_run.h"

namespace vkrt::bench {

struct Comparison {
  bool done = false;       // two placements ran and were compared
  std::string against;     // "vulkan vs cpu"
  double max_abs_difference = 0;
  bool exact = true;       // every output identical
  bool integer_outputs = false;  // every output an integer tensor (must then be exact)
  std::string first_difference;
};

struct Report {
  BenchOptions options;
  std::string method;
  std::string cpu;  // the host CPU's model name
  std::vector<PlacementRun> placements;
  Comparison comparison;
};

void print_table(const Report& report);
std::string to_json(const Report& report);

// Writes the JSON next to `png_path` and runs python3 with matplotlib to draw the latency
// distribution of each placement and the per-step times of its profiled run. NotSupported
// naming the package when python3-matplotlib is missing.
Status draw_plot(const Report& report, const std::string& png_path);

}  // namespace vkrt::bench
