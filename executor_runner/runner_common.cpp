// Shared pieces of executor_runner (see runner_common.h).
#include "executor_runner/runner_common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "vkrt/evalue_format.h"
#include "vkrt/tensor.h"

namespace vkrt::runner {
namespace {

// Up to 8 bytes from the start of a regular file; -1 when it cannot be opened or is not one.
int read_head(const std::string& path, uint8_t (&head)[8]) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -1;
  struct stat st {};
  ssize_t n = -1;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) n = ::read(fd, head, sizeof(head));
  ::close(fd);
  return int(n);
}

}  // namespace

ModelFileKind sniff_model_file(const std::string& path) {
  uint8_t head[8] = {};
  const int n = read_head(path, head);
  if (n < 0) return ModelFileKind::Unreadable;
  if (n >= 4 && (std::memcmp(head, "VGF1", 4) == 0 || std::memcmp(head, "\xC3\xD2\xE1\xF0", 4) == 0))
    return ModelFileKind::Vgf;
  if (n == 8 && std::memcmp(head + 4, "BP08", 4) == 0) return ModelFileKind::BundledProgram;
  if (n == 8 && std::memcmp(head + 4, "ET", 2) == 0) return ModelFileKind::Program;
  return ModelFileKind::Other;
}

std::string describe_file_start(const std::string& path) {
  uint8_t head[8] = {};
  const int n = read_head(path, head);
  if (n <= 0) return n == 0 ? "the file is empty" : "it cannot be read";
  std::string text = "it starts with";
  char hex[4];
  for (int i = 0; i < n; ++i) {
    std::snprintf(hex, sizeof(hex), " %02x", head[i]);
    text += hex;
  }
  if (std::memcmp(head, "\x7f" "ELF", 4) == 0 && n >= 4) text += " (an ELF executable)";
  if (n >= 4 && head[0] == 0x03 && head[1] == 0x02 && head[2] == 0x23 && head[3] == 0x07)
    text += " (a bare SPIR-V module, not a VGF container)";
  if (n >= 6 && head[0] == 0x93 && std::memcmp(head + 1, "NUMPY", 5) == 0) text += " (a NumPy .npy array)";
  return text;
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Prints "error: ..." and returns the process exit code 1.
int fail(const std::string& what, const Status& s) {
  fprintf(stderr, "error: %s: %s\n", what.c_str(), s.to_string().c_str());
  return 1;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) parts.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

// Bytes of the value 1 in a dtype (the reference runner fills missing inputs with ones).
std::vector<uint8_t> one_of(ScalarType t) {
  std::vector<uint8_t> b(element_size(t), 0);
  switch (t) {
    case ScalarType::Float: { float f = 1; memcpy(b.data(), &f, 4); break; }
    case ScalarType::Double: { double d = 1; memcpy(b.data(), &d, 8); break; }
    case ScalarType::Half: b[1] = 0x3c; break;
    case ScalarType::BFloat16: b[1] = 0x3f; b[0] = 0x80; break;
    default: if (!b.empty()) b[0] = 1; break;
  }
  return b;
}

void print_output(size_t index, const EValue& v, const std::string& mode) {
  if (mode == "none") return;
  if (mode != "all") {
    printf("OutputX %zu: %s\n", index, format_evalue(v).c_str());
    return;
  }
  if (!v.is_tensor()) {
    printf("Output[%zu]: Not Tensor\n", index);
    return;
  }
  const Tensor& t = v.to_tensor();
  const char* kind = t.dtype() == ScalarType::Float || t.dtype() == ScalarType::Double ? "float"
                     : t.dtype() == ScalarType::Char                                    ? "char"
                     : t.dtype() == ScalarType::Bool                                    ? "bool"
                                                                                        : "int";
  for (int64_t k = 0; k < t.numel(); ++k)
    printf("Output[%zu][%lld]: (%s) %s\n", index, static_cast<long long>(k), kind, format_element(t, k).c_str());
}

Status write_file(const std::string& path, const void* data, size_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return make_error(Error::AccessFailed, "cannot write ", path, ": ", strerror(errno));
  int err = 0;
  const char* p = static_cast<const char*>(data);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, p + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += size_t(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0) return Status::ok();
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(path.c_str());
  return make_error(Error::AccessFailed, "cannot write ", path, ": ", strerror(err));
}

void print_timing(const RunStats& runs) {
  if (runs.count() == 0) return;
  fprintf(stderr, "Executions: %llu; first %.3f ms; p50 %.3f ms, p90 %.3f ms, min %.3f ms, mean %.3f ms%s\n",
          static_cast<unsigned long long>(runs.count()), runs.first(), runs.percentile(0.5), runs.percentile(0.9),
          runs.min(), runs.mean(),
          runs.sampled() ? (" (p50 and p90 from a sample of " + std::to_string(runs.sample_size()) + " runs)").c_str()
                         : "");
}

int report_comparisons(const std::vector<OutputComparison>& results, const Flags& flags, const std::string& note) {
  fprintf(stderr, "Compared with the CPU executor (VgfBackend.executor=cpu; floats within atol %g + rtol %g):%s\n",
          flags.bundleio_atol, flags.bundleio_rtol,
          note.c_str());
  size_t differing = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const OutputComparison& c = results[i];
    const bool exact = c.max_abs_error == 0 && c.pass;
    if (!c.pass) {
      ++differing;
      fprintf(stderr, "Output %zu: DIFFERS in %lld of %lld elements; first %s; max abs error %g, max rel error %g\n", i,
              static_cast<long long>(c.mismatched), static_cast<long long>(c.elements), c.message.c_str(),
              c.max_abs_error, c.max_rel_error);
    } else if (exact) {
      fprintf(stderr, "Output %zu: same values (%lld elements)\n", i, static_cast<long long>(c.elements));
    } else {
      fprintf(stderr, "Output %zu: within tolerance (%lld elements; max abs error %g, max rel error %g)\n", i,
              static_cast<long long>(c.elements), c.max_abs_error, c.max_rel_error);
    }
  }
  if (differing) {
    fprintf(stderr, "error: --compare_with_cpu: %zu of %zu outputs differ from the CPU executor's\n", differing,
            results.size());
    return 1;
  }
  return 0;
}

}  // namespace vkrt::runner
