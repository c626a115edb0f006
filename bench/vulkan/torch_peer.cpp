#include "torch_peer.h"

#include <cstdio>
#include <sstream>

namespace vkrt::bench {

std::string GemmShape::text() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

bool parse_gemm_shape(const std::string& text, GemmShape* out) {
  int64_t v[3] = {0, 0, 0};
  int count = 0;
  size_t pos = 0;
  while (count < 3) {
    size_t used = 0;
    try {
      v[count] = std::stoll(text.substr(pos), &used);
    } catch (...) {
      return false;
    }
    if (used == 0 || v[count] <= 0) return false;
    ++count;
    pos += used;
    if (pos == text.size()) break;
    if (text[pos] != 'x') return false;
    ++pos;
  }
  if (pos != text.size() || (count != 1 && count != 3)) return false;
  *out = count == 1 ? GemmShape{v[0], v[0], v[0]} : GemmShape{v[0], v[1], v[2]};
  return true;
}

std::vector<GemmFigure> parse_torch_output(const std::string& text) {
  std::vector<GemmFigure> figures;
  std::istringstream lines(text);
  std::string line;
  std::string unavailable;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string tag, dtype, shape, value;
    if (!(words >> tag) || tag != "torch") continue;
    if (!(words >> dtype)) continue;
    if (dtype == "unavailable") {
      std::getline(words, unavailable);
      figures.push_back({"*", {}, 0, "PyTorch unavailable:" + unavailable});
      continue;
    }
    GemmFigure f;
    f.dtype = dtype;
    if (!(words >> shape) || !parse_gemm_shape(shape, &f.shape) || !(words >> value)) continue;
    if (value == "error") {
      std::getline(words, f.note);
      f.note = "error:" + f.note;
    } else {
      try {
        f.gops = std::stod(value);
      } catch (...) {
        f.note = "unparsable figure '" + value + "'";
      }
    }
    figures.push_back(f);
  }
  return figures;
}

std::vector<GemmFigure> run_torch_peer(const std::string& python, const std::string& script,
                                       const std::vector<GemmShape>& shapes) {
  std::string command = "'" + python + "' '" + script + "'";
  for (const GemmShape& s : shapes) command += " " + s.text();
  command += " 2>&1";
  std::string output;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
    const int rc = ::pclose(pipe);
    if (rc != 0 && output.find("torch ") == std::string::npos)
      return {{"*", {}, 0, "'" + command + "' failed: " + output.substr(0, 200)}};
  } else {
    return {{"*", {}, 0, "cannot run '" + command + "'"}};
  }
  return parse_torch_output(output);
}

void print_peer_table(const std::vector<GemmFigure>& ours, const std::vector<GemmFigure>& torch) {
  std::printf("\nGEMM vs PyTorch on the same device (GOP/s; ours from GPU timestamps)\n");
  std::printf("%-20s %-5s %12s %12s %8s\n", "shape MxNxK", "dtype", "vkrt", "torch", "ratio");
  for (const GemmFigure& o : ours) {
    const GemmFigure* peer = nullptr;
    std::string note;
    for (const GemmFigure& t : torch) {
      if (t.dtype == "*") note = t.note;
      if (t.dtype == o.dtype && t.shape == o.shape) peer = &t;
    }
    if (peer && peer->gops > 0) {
      std::printf("%-20s %-5s %12.1f %12.1f %7.1f%%\n", o.shape.text().c_str(), o.dtype.c_str(), o.gops,
                  peer->gops, 100.0 * o.gops / peer->gops);
    } else {
      if (peer) note = peer->note;
      std::printf("%-20s %-5s %12.1f %12s %8s  %s\n", o.shape.text().c_str(), o.dtype.c_str(), o.gops, "-", "-",
                  note.empty() ? "no PyTorch figure" : note.c_str());
    }
  }
}

}  // namespace vkrt::bench
