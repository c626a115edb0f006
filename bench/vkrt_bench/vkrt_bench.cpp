// vkrt_bench model.pte: runs a program with its VgfBackend segments on the Vulkan device and on
// the CPU executor (a program without VGF segments runs once, as placed), after warm-up, and
// prints one table: load time, delegate init cold and warm (pipeline cache), first run,
// p50/p90/p99/min/mean, throughput, the delegates' own step time (GPU timestamps on Vulkan),
// the GPU/CPU speed-up and the largest difference between the placements' outputs.
// --json prints the same as JSON (docs/vkrt_bench.md); --plot out.png draws it.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <sstream>

#include "compute/isa.h"
#include "placement_run.h"
#include "report.h"
#include "vkrt/output_compare.h"

namespace vkrt::bench {
namespace {

// "1,3,224,224" -> sizes; InvalidArgument naming the text otherwise.
Result<std::vector<int32_t>> parse_sizes(const std::string& text) {
  std::vector<int32_t> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0 || v > INT32_MAX)
      return make_error(Error::InvalidArgument, "--input_sizes: '", text, "' is not a list of sizes such as 1,3,224,224");
    sizes.push_back(int32_t(v));
  }
  return sizes;
}

Comparison compare(const PlacementRun& got, const PlacementRun& expected) {
  Comparison c;
  c.against = got.name + " vs " + expected.name;
  auto results = compare_method_outputs(*got.method, *expected.method, 0, 0);
  if (!results.ok()) {
    c.first_difference = results.status().to_string();
    c.exact = false;
    c.done = true;
    return c;
  }
  c.done = true;
  c.integer_outputs = true;
  for (size_t o = 0; o < got.method->num_outputs(); ++o) {
    const EValue& v = got.method->output(o);
    if (v.is_tensor() && (is_floating(v.to_tensor().dtype()) || is_complex(v.to_tensor().dtype()))) c.integer_outputs = false;
  }
  for (const OutputComparison& r : *results) {
    c.max_abs_difference = std::max(c.max_abs_difference, r.max_abs_error);
    if (!r.pass && c.exact) c.first_difference = r.message;
    c.exact = c.exact && r.pass;
  }
  return c;
}

int run(int argc, char** argv) {
  BenchOptions options;
  std::vector<std::string> input_sizes;
  std::string placements_flag = "auto", plot_path;
  bool json = false;
  CLI::App app{"vkrt_bench: times a program with its VGF segments on the Vulkan device and on the CPU executor, and "
               "compares the two. Prints a table (or --json) on stdout, progress on stderr; exit 1 on any error."};
  app.add_option("model", options.model_path, "Program file (.pte)")->required();
  app.add_option("--data_path", options.data_path, "External data file (.ptd) for EXTERNAL tensors");
  app.add_option("--method_name", options.method_name, "Method to run (default: the first)");
  app.add_option("--runs", options.runs, "Timed runs per placement (after the warm-up)")->capture_default_str()
      ->check(CLI::Range(1u, 100000000u));
  app.add_option("--warmup", options.warmup, "Untimed runs before the timed ones")->capture_default_str();
  app.add_option("--num_threads", options.threads, "Threads for CPU kernels and the CPU executor")
      ->capture_default_str()->check(CLI::Range(1, 1024));
  app.add_option("--device", options.device, "Vulkan device: index or name substring (VgfBackend.device)");
  app.add_option("--ethosu_driver", options.ethosu_driver,
                 "Ethos-U driver for EthosUBackend segments: ethosu-char | drm-accel | virtual (the virtual NPU on the "
                 "CPU) | recording; default: the first NPU device found");
  app.add_option("--placements", placements_flag,
                 "auto (vulkan and cpu when the program has VGF segments), vulkan, cpu, or vulkan,cpu")
      ->capture_default_str();
  app.add_option("--input_sizes", input_sizes,
                 "Sizes of each dynamic input, in input order (e.g. 1,3,160,160); default: the upper bound");
  app.add_flag("--json", json, "Print JSON instead of the table (schema: docs/vkrt_bench.md)");
  app.add_option("--plot", plot_path, "Draw the latency distributions and per-step times into this PNG "
                 "(needs python3-matplotlib; the JSON is written beside it as <png>.json)");
  app.add_flag("!--no_progress", options.progress, "No progress line on stderr");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "error: %s (see --help)\n", e.what());
    return 1;
  }
  if (!compute::isa_environment_error().empty()) {  // VKRT_CPU_ISA, read at start-up
    std::fprintf(stderr, "error: %s\n", compute::isa_environment_error().c_str());
    return 1;
  }
  for (const std::string& text : input_sizes) {
    auto sizes = parse_sizes(text);
    if (!sizes.ok()) {
      std::fprintf(stderr, "error: %s\n", sizes.status().message().c_str());
      return 1;
    }
    options.input_sizes.push_back(*sizes);
  }

  auto vgf = uses_vgf_backend(options);
  if (!vgf.ok()) {
    std::fprintf(stderr, "error: cannot load %s: %s\n", options.model_path.c_str(), vgf.status().to_string().c_str());
    return 1;
  }
  std::vector<std::pair<std::string, std::string>> placements;  // (name, VgfBackend.executor)
  if (placements_flag == "auto") {
    if (*vgf) placements = {{"vulkan", "vulkan"}, {"cpu", "cpu"}};
    else placements = {{"default", ""}};
  } else {
    std::stringstream in(placements_flag);
    std::string name;
    while (std::getline(in, name, ',')) {
      if (name != "vulkan" && name != "cpu") {
        std::fprintf(stderr, "error: --placements: unknown placement '%s' (auto, vulkan, cpu)\n", name.c_str());
        return 1;
      }
      placements.emplace_back(name, name);
    }
  }

  Report report;
  report.options = options;
  report.cpu = compute::cpu_model_name() + ", CPU kernels at ISA level " + compute::isa_name(compute::active_isa());
  for (const auto& [name, executor] : placements) {
    report.placements.push_back(run_placement(options, name, executor));
    if (!report.placements.back().error.empty())
      std::fprintf(stderr, "warning: placement %s did not run: %s\n", name.c_str(),
                   report.placements.back().error.c_str());
  }
  for (const PlacementRun& p : report.placements)
    if (p.method) report.method = p.method->meta().name;
  if (report.method.empty()) {
    std::fprintf(stderr, "error: no placement of %s ran\n", options.model_path.c_str());
    return 1;
  }
  if (report.placements.size() == 2 && report.placements[0].method && report.placements[1].method)
    report.comparison = compare(report.placements[0], report.placements[1]);

  if (json) std::fputs(to_json(report).c_str(), stdout);
  else print_table(report);
  if (!plot_path.empty()) {
    Status s = draw_plot(report, plot_path);
    if (!s.is_ok()) {
      std::fprintf(stderr, "error: %s\n", s.to_string().c_str());
      return 1;
    }
    std::fprintf(stderr, "Wrote %s (data: %s.json)\n", plot_path.c_str(), plot_path.c_str());
  }
  return 0;
}

}  // namespace
}  // namespace vkrt::bench

int main(int argc, char** argv) {
  try {
    return vkrt::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
  }
  return 1;
}
