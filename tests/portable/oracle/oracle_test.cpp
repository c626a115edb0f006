// The portable kernels against PyTorch: runs every case gen_cases.py wrote (at build time,
// with Debian's python3-torch) through the registered kernel, and checks that the suite
// covers every operator of ExecuTorch's portable, quantized and Cortex-M (cortex_m::*) yaml
// files. cortex_m calls get a 4 MiB temp pool, as a method would give them.
//
// Case file format (one directive a line, tokens separated by spaces):
//   case <op> <family>/<label>
//   arg N | I <int> | D <float> | B <0|1> | S <word> | IL n ... | DL n ... | BL n ...
//       | T <tensor> | TL n <tensor>... | OTL n (N | T <tensor>)...
//   expect <arg index> <atol> <rtol> T <tensor>      the argument's value after the call
//   expect <arg index>:<item> <atol> <rtol> T <tensor>
//                                                     item <item> of a TensorList argument
//                                                     (the `Tensor(a!)[] out` of split_copy...)
//   error <ErrorName>                                 the call must fail with this code
//   end
// <tensor> = <dtype code> <rank> <sizes...> <dim order...> <dynamic 0|1> <hex bytes | ->;
// bytes are in memory order along the dim order; "-" (an out tensor) is filled with a
// sentinel. Floats are C99 hex floats, inf, -inf or nan. Complex tensors (dtype codes 8-10)
// hold (real, imaginary) pairs and compare part by part. The call gets the arguments in
// order plus a trailing return slot (the last argument), as the executor passes them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../kernel_call.h"
#include "element.h"
#include "op_util.h"
#include "strided.h"

namespace vkrt::portable::testing {
namespace {

struct TensorSpec {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  bool dynamic = false;
  bool has_data = false;
  std::vector<uint8_t> bytes;
};

struct Expectation {
  size_t index = 0;
  long item = -1;  // >= 0: an item of a TensorList argument
  double atol = 0, rtol = 0;
  TensorSpec tensor;
};

// Parses one case's lines into a KernelCall (args) and its expectations.
class CaseParser {
 public:
  explicit CaseParser(KernelCall& call) : call_(call) {}

  bool value(std::istringstream& in, EValue*& out, std::string& err) {
    std::string kind;
    in >> kind;
    if (kind == "N") { out = call_.none(); return true; }
    if (kind == "I") { int64_t v; in >> v; out = call_.integer(v); return bool(in); }
    if (kind == "D") { std::string s; in >> s; out = call_.real(parse_float(s)); return bool(in); }
    if (kind == "B") { int v; in >> v; out = call_.boolean(v != 0); return bool(in); }
    if (kind == "S") { std::string s; in >> s; out = call_.string(s); return bool(in); }
    if (kind == "IL") {
      size_t n; in >> n;
      std::vector<int64_t> items(n);
      for (auto& v : items) in >> v;
      out = call_.int_list(items);
      return bool(in);
    }
    if (kind == "DL") {
      size_t n; in >> n;
      std::vector<double> items(n);
      for (auto& v : items) { std::string s; in >> s; v = parse_float(s); }
      out = call_.double_list(items);
      return bool(in);
    }
    if (kind == "BL") {
      size_t n; in >> n;
      std::vector<bool> items(n);
      for (size_t i = 0; i < n; ++i) { int v; in >> v; items[i] = v != 0; }
      out = call_.bool_list(items);
      return bool(in);
    }
    if (kind == "T") {
      TensorSpec spec;
      if (!tensor(in, spec, err)) return false;
      out = make_tensor(spec);
      return true;
    }
    if (kind == "TL" || kind == "OTL") {
      size_t n; in >> n;
      std::vector<EValue*> items;
      for (size_t i = 0; i < n; ++i) {
        EValue* item = nullptr;
        if (!value(in, item, err)) return false;
        if (kind == "OTL" && item->is_none()) item = nullptr;  // None items are null pointers
        items.push_back(item);
      }
      out = kind == "TL" ? call_.tensor_list(items) : call_.optional_tensor_list(items);
      return true;
    }
    err = "unknown argument kind '" + kind + "'";
    return false;
  }

  static bool tensor(std::istringstream& in, TensorSpec& spec, std::string& err) {
    int dtype = 0, rank = 0, dynamic = 0;
    in >> dtype >> rank;
    spec.dtype = ScalarType(dtype);
    spec.sizes.resize(size_t(rank));
    spec.dim_order.resize(size_t(rank));
    for (auto& s : spec.sizes) in >> s;
    for (auto& d : spec.dim_order) { int v; in >> v; d = uint8_t(v); }
    std::string hex;
    in >> dynamic >> hex;
    spec.dynamic = dynamic != 0;
    if (!in) { err = "truncated tensor"; return false; }
    spec.has_data = hex != "-";
    if (spec.has_data) {
      spec.bytes.resize(hex.size() / 2);
      for (size_t i = 0; i < spec.bytes.size(); ++i) {
        spec.bytes[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
      }
    }
    return true;
  }

  EValue* make_tensor(const TensorSpec& spec) {
    const ShapeDynamism dyn = spec.dynamic ? ShapeDynamism::DynamicBound : ShapeDynamism::Static;
    if (!spec.has_data) return call_.out(spec.dtype, spec.sizes, spec.dim_order, dyn);
    return call_.tensor<uint8_t>(spec.dtype, spec.sizes, spec.bytes, spec.dim_order, dyn);
  }

  static double parse_float(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

 private:
  KernelCall& call_;
};

// Compares `got` with the expectation; an empty string when they agree.
std::string compare(const Tensor& got, const Expectation& e) {
  const TensorSpec& spec = e.tensor;
  std::ostringstream why;
  if (got.dtype() != spec.dtype) {
    why << "dtype " << scalar_type_name(got.dtype()) << ", expected " << scalar_type_name(spec.dtype);
    return why.str();
  }
  if (!std::equal(got.sizes().begin(), got.sizes().end(), spec.sizes.begin(), spec.sizes.end())) {
    why << "shape " << shape_string(got.sizes()) << ", expected " << shape_string(spec.sizes);
    return why.str();
  }
  std::vector<uint8_t> bytes = spec.bytes;
  bytes.resize(bytes.size() + 8);  // zero-size tensors still need a valid pointer
  auto made = Tensor::make(spec.dtype, spec.sizes, spec.dim_order, bytes.data());
  if (!made.ok()) return "bad expectation: " + made.status().to_string();
  const Tensor& want = made.value();
  if (want.nbytes() != spec.bytes.size()) return "expectation holds the wrong number of bytes";
  // A complex element compares as its two parts (n counts parts then), each a float.
  const bool complex = is_complex(spec.dtype);
  const ScalarType dtype = complex_part_type(spec.dtype);
  const int parts = complex ? 2 : 1;
  StridedWalker<2> walk(got.sizes(), {strides_of(got), strides_of(want)});
  const bool floating = is_float_dtype(dtype);
  int bad = 0;
  for (int64_t n = 0; n < got.numel() * parts; ++n) {
    const int64_t part = n % parts;
    const int64_t got_at = walk.offset(0) * parts + part, want_at = walk.offset(1) * parts + part;
    if (part == parts - 1) walk.next();
    bool ok;
    double g = 0, w = 0;
    if (floating) {
      g = load_elem<double>(got.data(), dtype, got_at);
      w = load_elem<double>(want.data(), dtype, want_at);
      if (std::isnan(w) || std::isnan(g)) ok = std::isnan(w) && std::isnan(g);
      else if (std::isinf(w) || std::isinf(g)) ok = g == w;
      else ok = std::fabs(g - w) <= e.atol + e.rtol * std::fabs(w);
    } else {
      const int64_t gi = load_elem<int64_t>(got.data(), dtype, got_at);
      const int64_t wi = load_elem<int64_t>(want.data(), dtype, want_at);
      ok = gi == wi;
      g = double(gi);
      w = double(wi);
    }
    if (!ok && bad++ == 0) {
      why.precision(9);
      why << "element " << n / parts << (complex ? (part ? " (imaginary)" : " (real)") : "")
          << " (logical order) is " << g << ", expected " << w;
    }
  }
  if (bad > 0) why << " (" << bad << " of " << got.numel() * parts << (complex ? " parts" : " elements") << " differ)";
  return why.str();
}

struct Outcome {
  std::string op, label, failure;  // failure empty: passed
};

// Runs every case of the file; returns one outcome per case.
std::vector<Outcome> run_cases(const std::string& path, std::string& file_error) {
  std::ifstream file(path);
  std::vector<Outcome> outcomes;
  if (!file) { file_error = "cannot open " + path; return outcomes; }
  std::string line;
  std::unique_ptr<KernelCall> call;
  std::unique_ptr<CaseParser> parser;
  std::vector<EValue*> args;
  std::vector<Expectation> expectations;
  std::string expected_error, parse_error;
  Outcome current;
  int line_no = 0;
  while (std::getline(file, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    std::string directive;
    in >> directive;
    if (directive == "case") {
      current = Outcome{};
      in >> current.op >> current.label;
      call = std::make_unique<KernelCall>(current.op);
      // The cortex_m kernels take workspace from the temp pool (their optimized paths).
      if (current.op.rfind("cortex_m::", 0) == 0) call->set_temp_pool(size_t(4) << 20);
      parser = std::make_unique<CaseParser>(*call);
      args.clear();
      expectations.clear();
      expected_error.clear();
      parse_error.clear();
    } else if (directive == "arg") {
      EValue* v = nullptr;
      if (!parser->value(in, v, parse_error)) parse_error += " at line " + std::to_string(line_no);
      args.push_back(v);
    } else if (directive == "expect") {
      Expectation e;
      std::string where, atol, rtol, t;
      in >> where >> atol >> rtol >> t;
      const size_t colon = where.find(':');
      e.index = size_t(std::strtoul(where.substr(0, colon).c_str(), nullptr, 10));
      if (colon != std::string::npos) e.item = std::strtol(where.c_str() + colon + 1, nullptr, 10);
      e.atol = CaseParser::parse_float(atol);
      e.rtol = CaseParser::parse_float(rtol);
      if (!CaseParser::tensor(in, e.tensor, parse_error)) parse_error += " at line " + std::to_string(line_no);
      expectations.push_back(std::move(e));
    } else if (directive == "error") {
      in >> expected_error;
    } else if (directive == "end") {
      if (!parse_error.empty()) {
        current.failure = "bad case: " + parse_error;
      } else {
        std::vector<EValue*> with_return = args;
        if (!args.empty()) with_return.push_back(args.back());
        const long before = g_heap_allocations.load();
        Status status = call->run_raw(with_return);
        const long allocations = g_heap_allocations.load() - before;
        if (!expected_error.empty()) {
          if (status.is_ok()) current.failure = "succeeded; expected error " + expected_error;
          else if (expected_error != error_name(status.code()))
            current.failure = "failed with " + status.to_string() + "; expected " + expected_error;
        } else if (!status.is_ok()) {
          current.failure = status.to_string();
        } else if (allocations != 0) {
          current.failure = "allocated on the heap";
        } else {
          for (const Expectation& e : expectations) {
            const EValue* v = e.index < args.size() ? args[e.index] : nullptr;
            std::string where = "argument " + std::to_string(e.index);
            if (v != nullptr && e.item >= 0) {
              where += " item " + std::to_string(e.item);
              const bool listed = v->is_tensor_list() && size_t(e.item) < v->boxed_items().size();
              v = listed ? v->boxed_items()[size_t(e.item)] : nullptr;
            }
            if (v == nullptr || !v->is_tensor()) {
              current.failure = "expectation names " + where + ", not a tensor";
              break;
            }
            std::string why = compare(v->to_tensor(), e);
            if (!why.empty()) {
              current.failure = where + ": " + why;
              break;
            }
          }
        }
      }
      outcomes.push_back(current);
    } else {
      file_error = "line " + std::to_string(line_no) + ": unknown directive '" + directive + "'";
      return outcomes;
    }
  }
  return outcomes;
}

std::vector<std::string> read_list(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> items;
  std::string line;
  while (std::getline(in, line)) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string word;
    if (words >> word) items.push_back(word);
  }
  return items;
}

bool have_cases() {
#ifdef VKRT_ORACLE_CASES
  return true;
#else
  return false;
#endif
}

const char* cases_path() {
#ifdef VKRT_ORACLE_CASES
  return VKRT_ORACLE_CASES;
#else
  return "";
#endif
}

TEST(PortableOracle, EveryCaseMatchesPyTorch) {
  if (!have_cases()) GTEST_SKIP() << "python3-torch was not found at configure time (scripts/install-deps.sh installs it)";
  std::string file_error;
  std::vector<Outcome> outcomes = run_cases(cases_path(), file_error);
  ASSERT_TRUE(file_error.empty()) << file_error;
  std::set<std::string> ops;
  size_t failed = 0;
  for (const Outcome& o : outcomes) {
    ops.insert(o.op);
    if (!o.failure.empty()) {
      if (++failed <= 200) ADD_FAILURE() << o.op << " [" << o.label << "]: " << o.failure;
    }
  }
  std::printf("portable oracle: %zu ops, %zu cases, %zu passed, %zu failed\n", ops.size(), outcomes.size(),
              outcomes.size() - failed, failed);
  EXPECT_GT(outcomes.size(), 0u);
}

// Every operator of the yaml files has a kernel and cases, or is listed in missing_ops.txt
// with the reason; a listed op that has since been implemented must leave that list.
TEST(PortableOracle, CoversEveryOperatorOfThePortableAndQuantizedLibraries) {
  if (!have_cases()) GTEST_SKIP() << "python3-torch was not found at configure time";
  const std::vector<std::string> required = read_list(VKRT_ORACLE_DIR "/required_ops.txt");
  const std::vector<std::string> allowed = read_list(VKRT_ORACLE_DIR "/missing_ops.txt");
  ASSERT_GT(required.size(), 200u);
  std::string file_error;
  std::set<std::string> with_cases;
  for (const Outcome& o : run_cases(cases_path(), file_error)) with_cases.insert(o.op);
  const std::set<std::string> allowed_set(allowed.begin(), allowed.end());
  size_t covered = 0;
  for (const std::string& op : required) {
    const bool registered = KernelRegistry::global().find(op) != nullptr;
    const bool tested = with_cases.count(op) > 0;
    const bool listed = allowed_set.count(op) > 0;
    if (registered && tested) {
      ++covered;
      EXPECT_FALSE(listed) << op << " is implemented and tested: remove it from missing_ops.txt";
    } else if (!listed) {
      ADD_FAILURE() << op << (registered ? " has a kernel but no oracle cases" : " has no kernel")
                    << " (and is not listed in missing_ops.txt)";
    }
  }
  std::printf("portable oracle coverage: %zu of %zu operators registered and checked, %zu listed missing\n",
              covered, required.size(), allowed.size());
}

}  // namespace
}  // namespace vkrt::portable::testing
