#include "report.h"

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace vkrt::bench {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

const PlacementRun* find(const Report& r, const std::string& name) {
  for (const auto& p : r.placements)
    if (p.name == name && p.error.empty()) return &p;
  return nullptr;
}

// The matplotlib script: two panels, latency distributions (box plot with every run as a dot) and
// the ten slowest steps of each placement's profiled run.
constexpr const char* kPlotScript = R"PY(
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
report = json.load(open(sys.argv[1]))
ok = [p for p in report["placements"] if not p.get("error")]
fig, (lat, steps) = plt.subplots(1, 2, figsize=(14, 5.5), gridspec_kw={"width_ratios": [1, 1.6]})
fig.suptitle("vkrt_bench %s (%s), %d runs, %s" % (report["model"].split("/")[-1], report["method"], report["runs"], report["cpu"]), fontsize=11)
data = [p["latencies_ms"] for p in ok]
lat.boxplot(data, labels=[p["name"] for p in ok], showfliers=False)
for i, d in enumerate(data):
    lat.scatter([i + 1 + 0.08 * ((k % 5) - 2) for k in range(len(d))], d, s=6, alpha=0.5)
medians = sorted(sorted(d)[len(d) // 2] for d in data if d)
if medians and medians[0] > 0 and medians[-1] / medians[0] > 10:
    lat.set_yscale("log")  # placements an order of magnitude apart: both stay readable
lat.set_ylabel("latency per run (ms)")
lat.set_title("latency distribution (p50 line, box p25-p75)")
lat.grid(axis="y", alpha=0.3)
names, values, colors = [], [], []
palette = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
for i, p in enumerate(ok):
    top = sorted(p["steps"], key=lambda s: -s["ms"])[:10]
    for s in reversed(top):
        label = s["name"] if len(s["name"]) <= 48 else s["name"][:45] + "..."
        names.append("%s: %s" % (p["name"], label))
        values.append(s["ms"])
        colors.append(palette[i % len(palette)])
steps.barh(range(len(values)), values, color=colors)
steps.set_yticks(range(len(values)))
steps.set_yticklabels(names, fontsize=7)
steps.set_xlabel("time in the profiled run (ms; GPU timestamps on vulkan)")
steps.set_title("10 slowest steps per placement")
steps.grid(axis="x", alpha=0.3)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
)PY";

}  // namespace

void print_table(const Report& r) {
  std::printf("vkrt_bench %s, method %s: %u runs after %u warm-up, %d thread(s); %s\n", r.options.model_path.c_str(),
              r.method.c_str(), r.options.runs, r.options.warmup, r.options.threads, r.cpu.c_str());
  std::printf("%-9s %9s %11s %11s %9s %9s %9s %9s %9s %9s %9s %12s\n", "placement", "load ms", "init cold", "init warm",
              "first ms", "p50 ms", "p90 ms", "p99 ms", "min ms", "mean ms", "runs/s", "delegate ms");
  for (const PlacementRun& p : r.placements) {
    if (!p.error.empty()) {
      std::printf("%-9s did not run: %s\n", p.name.c_str(), p.error.c_str());
      continue;
    }
    char steps[32] = "-";
    if (p.delegate_steps_ms >= 0)
      std::snprintf(steps, sizeof(steps), "%.4g%s", p.delegate_steps_ms, p.steps_are_gpu_time ? " GPU" : " CPU");
    const double mean = p.runs.mean();
    // %.4g: four significant digits whether a run takes 10 us or 10 s.
    std::printf("%-9s %9.4g %11.4g %11.4g %9.4g %9.4g %9.4g %9.4g %9.4g %9.4g %9.4g %12s\n", p.name.c_str(), p.load_ms,
                p.init_cold_ms, p.init_warm_ms, p.first_run_ms, p.runs.percentile(0.5), p.runs.percentile(0.9),
                p.runs.percentile(0.99), p.runs.min(), mean, mean > 0 ? 1000.0 / mean : 0.0, steps);
  }
  const PlacementRun* gpu = find(r, "vulkan");
  const PlacementRun* cpu = find(r, "cpu");
  if (gpu && cpu && gpu->runs.percentile(0.5) > 0)
    std::printf("GPU/CPU speed-up (p50): %.2fx\n", cpu->runs.percentile(0.5) / gpu->runs.percentile(0.5));
  const Comparison& c = r.comparison;
  if (c.done) {
    std::printf("Outputs %s: %s (largest difference %g)%s\n", c.against.c_str(),
                c.exact ? "identical" : "differ", c.max_abs_difference,
                c.integer_outputs && !c.exact ? "; integer outputs must be identical" : "");
    if (!c.exact && !c.first_difference.empty()) std::printf("  first difference: %s\n", c.first_difference.c_str());
  }
  std::printf("delegate ms: the delegates' own step times in one profiled run (Vulkan: GPU timestamps; CPU "
              "executor: wall time per TOSA op)\n");
}

std::string to_json(const Report& r) {
  std::ostringstream o;
  o << "{\"tool\":\"vkrt_bench\",\"model\":" << json_string(r.options.model_path)
    << ",\"method\":" << json_string(r.method) << ",\"runs\":" << r.options.runs << ",\"warmup\":" << r.options.warmup
    << ",\"threads\":" << r.options.threads << ",\"cpu\":" << json_string(r.cpu) << ",\"placements\":[";
  for (size_t i = 0; i < r.placements.size(); ++i) {
    const PlacementRun& p = r.placements[i];
    o << (i ? "," : "") << "{\"name\":" << json_string(p.name);
    if (!p.error.empty()) {
      o << ",\"error\":" << json_string(p.error) << "}";
      continue;
    }
    o << ",\"load_ms\":" << json_number(p.load_ms) << ",\"init_cold_ms\":" << json_number(p.init_cold_ms)
      << ",\"init_warm_ms\":" << json_number(p.init_warm_ms) << ",\"first_run_ms\":" << json_number(p.first_run_ms)
      << ",\"p50_ms\":" << json_number(p.runs.percentile(0.5)) << ",\"p90_ms\":" << json_number(p.runs.percentile(0.9))
      << ",\"p99_ms\":" << json_number(p.runs.percentile(0.99)) << ",\"min_ms\":" << json_number(p.runs.min())
      << ",\"mean_ms\":" << json_number(p.runs.mean())
      << ",\"runs_per_s\":" << json_number(p.runs.mean() > 0 ? 1000.0 / p.runs.mean() : 0)
      << ",\"delegate_steps_ms\":" << (p.delegate_steps_ms >= 0 ? json_number(p.delegate_steps_ms) : "null")
      << ",\"delegate_steps_are_gpu_time\":" << (p.steps_are_gpu_time ? "true" : "false") << ",\"latencies_ms\":[";
    const std::vector<double>& l = p.runs.sample();
    for (size_t k = 0; k < l.size(); ++k) o << (k ? "," : "") << json_number(l[k]);
    o << "],\"steps\":[";
    for (size_t k = 0; k < p.steps.size(); ++k)
      o << (k ? "," : "") << "{\"name\":" << json_string(p.steps[k].name) << ",\"ms\":" << json_number(p.steps[k].ms)
        << "}";
    o << "]}";
  }
  o << "]";
  const PlacementRun* gpu = find(r, "vulkan");
  const PlacementRun* cpu = find(r, "cpu");
  if (gpu && cpu && gpu->runs.percentile(0.5) > 0)
    o << ",\"speedup_p50\":" << json_number(cpu->runs.percentile(0.5) / gpu->runs.percentile(0.5));
  if (r.comparison.done)
    o << ",\"comparison\":{\"between\":" << json_string(r.comparison.against)
      << ",\"identical\":" << (r.comparison.exact ? "true" : "false")
      << ",\"max_abs_difference\":" << json_number(r.comparison.max_abs_difference) << "}";
  o << "}\n";
  return o.str();
}

Status draw_plot(const Report& report, const std::string& png_path) {
  // The python3 on PATH, else Debian's (a PATH python, e.g. pyenv's, may lack Debian's packages).
  std::string python;
  for (const char* candidate : {"python3", "/usr/bin/python3"}) {
    if (std::system((std::string(candidate) + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0) {
      python = candidate;
      break;
    }
  }
  if (python.empty())
    return make_error(Error::NotSupported, "--plot needs python3 with matplotlib (Debian: apt-get install "
                      "python3-matplotlib)");
  const std::string json_path = png_path + ".json";
  const std::string script_path = png_path + ".plot.py";
  // Paths are quoted for the shell; a quote inside one is refused rather than escaped.
  if (png_path.find('\'') != std::string::npos)
    return make_error(Error::InvalidArgument, "--plot: the path may not contain a single quote");
  {
    std::ofstream json(json_path), script(script_path);
    json << to_json(report);
    script << kPlotScript;
    if (!json.flush() || !script.flush())
      return make_error(Error::AccessFailed, "cannot write ", json_path, " or ", script_path);
  }
  const std::string cmd = python + " '" + script_path + "' '" + json_path + "' '" + png_path + "'";
  const int status = std::system(cmd.c_str());
  std::remove(script_path.c_str());
  if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return make_error(Error::Internal, "drawing ", png_path, " failed (", cmd, ")");
  return Status::ok();
}

}  // namespace vkrt::bench
