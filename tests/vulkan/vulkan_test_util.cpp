#include "vulkan_test_util.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "vgf/graph_vgf_writer.h"
#include "vkrt/pte_writer.h"  // write_bytes_to_file

namespace vkrt::vulkan::testing {

HostTensor::HostTensor(DType t, Shape s) : dtype(t), shape(std::move(s)) {
  bytes.assign(size_t(count()) * vgf::dtype_storage_bytes(t), 0);
}

int64_t HostTensor::count() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

tosa::TensorRef HostTensor::ref() const {
  tosa::TensorRef r;
  r.dtype = dtype;
  r.shape = shape;
  r.data = const_cast<uint8_t*>(bytes.data());
  return r;
}

Tensor HostTensor::tensor() {
  sizes32.assign(shape.begin(), shape.end());
  auto t = Tensor::make(vgf::dtype_to_scalar_type(dtype), sizes32, bytes.data());
  EXPECT_TRUE(t.ok());
  return t.ok() ? *t : Tensor();
}

void fill_random(HostTensor& t, std::mt19937& rng, double lo, double hi) {
  const int64_t n = t.count();
  if (t.dtype == DType::Fp32) {
    std::uniform_real_distribution<float> dist{float(lo), float(hi)};
    for (int64_t i = 0; i < n; ++i) t.as<float>()[i] = dist(rng);
    return;
  }
  std::uniform_int_distribution<int64_t> dist{int64_t(lo), int64_t(hi)};
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = dist(rng);
    switch (t.dtype) {
      case DType::Bool: t.as<uint8_t>()[i] = uint8_t(v & 1); break;
      case DType::Int8: t.as<int8_t>()[i] = int8_t(v); break;
      case DType::Int16: t.as<int16_t>()[i] = int16_t(v); break;
      case DType::Int32: t.as<int32_t>()[i] = int32_t(v); break;
      case DType::Int48: t.as<int64_t>()[i] = v; break;
      default: break;
    }
  }
}

TensorId GraphBuilder::input(DType t, Shape s) {
  TensorId id = tensor(t, std::move(s));
  graph.inputs.push_back({id, "in" + std::to_string(graph.inputs.size()), uint32_t(graph.inputs.size()), 0});
  return id;
}

TensorId GraphBuilder::constant(const HostTensor& value) {
  vgf::TensorInfo info;
  info.name = "c" + std::to_string(graph.tensors.size());
  info.dtype = value.dtype;
  info.shape = value.shape;
  info.is_constant = true;
  info.owned = value.bytes;
  return graph.add_tensor(std::move(info));
}

TensorId GraphBuilder::tensor(DType t, Shape s) {
  vgf::TensorInfo info;
  info.name = "t" + std::to_string(graph.tensors.size());
  info.dtype = t;
  info.shape = std::move(s);
  return graph.add_tensor(std::move(info));
}

void GraphBuilder::op(OpKind kind, std::vector<TensorId> inputs, std::vector<TensorId> outputs,
                      vgf::OpAttributes attr) {
  vgf::Op o;
  o.kind = kind;
  o.inputs = std::move(inputs);
  o.outputs = std::move(outputs);
  o.attr = std::move(attr);
  o.debug_name = std::string(vgf::op_name(kind)) + "_" + std::to_string(graph.ops.size());
  graph.ops.push_back(std::move(o));
}

void GraphBuilder::output(TensorId t) {
  graph.outputs.push_back({t, "out" + std::to_string(graph.outputs.size()), uint32_t(graph.outputs.size()), 0});
}

namespace {

// The device the tests share, created on first use and released by ValidationEnvironment's
// TearDown (before exit: destroyed from a static destructor, it would call into a validation
// layer whose own statics are already gone; sid's layer aborts there).
struct SharedDevice {
  std::shared_ptr<Context> ctx;
  std::string failure;
  bool tried = false;
};
SharedDevice& shared_device() {
  static SharedDevice device;
  return device;
}

}  // namespace

std::shared_ptr<Context> device_or_null(std::string* why) {
  SharedDevice& d = shared_device();
  if (!d.tried) {
    d.tried = true;
    auto r = Context::shared(context_options(vgf_options({})));
    if (r.ok()) {
      d.ctx = *r;
    } else {
      d.failure = r.status().message();
    }
  }
  if (why) *why = d.failure;
  return d.ctx;
}

VgfOptions vgf_options(const BackendOptions& options) {
  auto parsed = parse_vgf_options(options);
  if (!parsed.ok()) {
    ADD_FAILURE() << "parse_vgf_options: " << parsed.status().message();
    return VgfOptions{};
  }
  return std::move(parsed).value();
}

namespace {

// VKRT_TEST_WRITE_VGF=<dir>: every graph a test runs is also written there as a VGF file, named
// after the test and a hash of the bytes (scripts/run-fuzzers.sh seeds vgf_fuzzer with them:
// graphs of every op the executor lowers, with real attributes). Graphs the writer cannot
// encode are left out.
void write_graph_for_fuzzing(const vgf::Graph& graph) {
  const char* dir = std::getenv("VKRT_TEST_WRITE_VGF");
  if (!dir || !*dir) return;
  auto bytes = vgf::write_graph_vgf(graph);
  if (!bytes.ok()) return;
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (uint8_t b : *bytes) hash = (hash ^ b) * 1099511628211ull;
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = test ? std::string(test->test_suite_name()) + "." + test->name() : "graph";
  for (char& c : name) c = c == '/' ? '_' : c;  // parameterised tests: "Suite/Name/3"
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%016llx.vgf", static_cast<unsigned long long>(hash));
  (void)write_bytes_to_file(std::string(dir) + "/" + name + suffix, *bytes);
}

}  // namespace

Status run_graph(vgf::GraphExecutor& executor, const vgf::Graph& graph, const vgf::ExecutorOptions& options,
                 std::vector<HostTensor>& inputs, std::vector<HostTensor>& outputs) {
  write_graph_for_fuzzing(graph);
  VKRT_RETURN_IF_ERROR(executor.prepare(graph, options));
  std::vector<Tensor> in_tensors, out_tensors;
  for (auto& h : inputs) in_tensors.push_back(h.tensor());
  outputs.clear();
  for (const auto& io : graph.outputs) {
    const auto& info = graph.tensor(io.tensor);
    outputs.emplace_back(info.dtype, info.shape);
  }
  for (auto& h : outputs) out_tensors.push_back(h.tensor());
  std::vector<const Tensor*> in_ptrs;
  std::vector<Tensor*> out_ptrs;
  for (auto& t : in_tensors) in_ptrs.push_back(&t);
  for (auto& t : out_tensors) out_ptrs.push_back(&t);
  return executor.run(in_ptrs, out_ptrs, nullptr);
}

Status run_on_vulkan(const vgf::Graph& graph, std::vector<HostTensor>& inputs,
                     std::vector<HostTensor>& outputs, const BackendOptions* options,
                     VulkanExecutorStats* stats) {
  VulkanExecutor executor;
  BackendOptions defaults;
  defaults.set("VgfBackend.pipeline_cache_dir", "off");
  VKRT_ASSIGN_OR_RETURN(const VgfOptions parsed, parse_vgf_options(options ? *options : defaults));
  vgf::ExecutorOptions eo{&parsed};
  VKRT_RETURN_IF_ERROR(run_graph(executor, graph, eo, inputs, outputs));
  if (stats) *stats = executor.stats();
  return Status::ok();
}

::testing::AssertionResult bytes_equal(const HostTensor& expected, const HostTensor& actual) {
  if (expected.bytes.size() != actual.bytes.size()) {
    return ::testing::AssertionFailure() << "size " << actual.bytes.size() << " != expected "
                                         << expected.bytes.size();
  }
  const size_t width = vgf::dtype_storage_bytes(expected.dtype);
  size_t mismatches = 0, first = 0;
  for (size_t i = 0; i < expected.bytes.size(); i += width) {
    if (std::memcmp(&expected.bytes[i], &actual.bytes[i], width) != 0) {
      if (mismatches++ == 0) first = i / width;
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  auto value = [&](const HostTensor& t, size_t i) -> long long {
    switch (t.dtype) {
      case DType::Int8: return t.as<int8_t>()[i];
      case DType::Bool: return t.as<uint8_t>()[i];
      case DType::Int16: return t.as<int16_t>()[i];
      case DType::Int32: return t.as<int32_t>()[i];
      default: return (long long)t.as<int64_t>()[i];
    }
  };
  return ::testing::AssertionFailure() << mismatches << " of " << expected.count()
                                       << " elements differ; first at " << first << ": expected "
                                       << value(expected, first) << ", got " << value(actual, first);
}

::testing::AssertionResult floats_close(const HostTensor& expected, const HostTensor& actual,
                                        float atol, float rtol) {
  if (expected.count() != actual.count()) return ::testing::AssertionFailure() << "element counts differ";
  for (int64_t i = 0; i < expected.count(); ++i) {
    float e = expected.as<float>()[i], a = actual.as<float>()[i];
    if (std::isnan(e) && std::isnan(a)) continue;
    if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e))) {
      return ::testing::AssertionFailure() << "element " << i << ": expected " << e << ", got " << a
                                           << " (atol " << atol << ", rtol " << rtol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

namespace {

// LeakSanitizer's suppressions for the Vulkan loader, drivers and layers are in
// vgf/vulkan/context.cpp, for every program that links the executor.

// Turns the validation layer on for the whole binary and fails if it reported anything, the
// destruction of the shared device included.
class ValidationEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { setenv("VKRT_VULKAN_VALIDATION", "1", /*overwrite=*/0); }
  void TearDown() override {
    // Keep the validation layer mapped after the instance is gone: LeakSanitizer attributes
    // what it keeps until exit to its library (suppressed below) only while it is loaded.
    (void)dlopen("libVkLayer_khronos_validation.so", RTLD_LAZY | RTLD_NOLOAD);
    shared_device().ctx.reset();
    EXPECT_EQ(Context::validation_message_count(), 0u)
        << "the Khronos validation layer reported problems (see stderr)";
  }
};

const auto* const kValidationEnvironment = ::testing::AddGlobalTestEnvironment(new ValidationEnvironment());

}  // namespace

Fp16Matmul fp16_matmul(Shape sa, Shape sb, std::mt19937& rng) {
  const Shape so{sa[0], sa[1], sb[2]};
  HostTensor a32(DType::Fp32, sa), b32(DType::Fp32, sb);
  fill_random(a32, rng, -1, 1);
  fill_random(b32, rng, -1, 1);
  Fp16Matmul m;
  for (HostTensor* f32 : {&a32, &b32}) {
    HostTensor f16(DType::Fp16, f32->shape);
    for (int64_t i = 0; i < f32->count(); ++i) {
      _Float16 h = static_cast<_Float16>(f32->as<float>()[i]);  // round to nearest even
      std::memcpy(f16.as<uint16_t>() + i, &h, 2);
      f32->as<float>()[i] = static_cast<float>(h);
    }
    m.inputs.push_back(std::move(f16));
  }
  m.expected = HostTensor(DType::Fp32, so);
  Status s = tosa::matmul(a32.ref(), b32.ref(), tosa::MatmulAttr{}, m.expected.ref());
  EXPECT_TRUE(s.is_ok()) << s.message();
  GraphBuilder b;
  TensorId x = b.input(DType::Fp16, sa);
  TensorId y = b.input(DType::Fp16, sb);
  TensorId z = b.tensor(DType::Fp16, so);
  b.op(OpKind::MATMUL, {x, y}, {z}, vgf::MatmulAttr{});
  b.output(z);
  m.graph = std::move(b.graph);
  return m;
}

HostTensor fp16_to_fp32(const HostTensor& half) {
  HostTensor wide(DType::Fp32, half.shape);
  for (int64_t i = 0; i < wide.count(); ++i) {
    _Float16 h;
    std::memcpy(&h, half.as<uint16_t>() + i, 2);
    wide.as<float>()[i] = static_cast<float>(h);
  }
  return wide;
}

}  // namespace vkrt::vulkan::testing
