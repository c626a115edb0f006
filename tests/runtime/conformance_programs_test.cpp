// Every real program in shared/conformance/pte either runs and matches its known result, or
// fails at load with the right error code and a message naming the cause
// (expected values: shared/conformance/pte/README.md, and hand computation where noted).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "common/conformance.h"
#include "vkrt/bundled_program.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt {
namespace {

std::string pte(const std::string& name) { return "pte/" + name; }

// Loads `file`, runs `method` with every tensor input set to ones (like the reference runner).
struct ProgramRun {
  std::unique_ptr<Module> module;
  Method* method = nullptr;
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Tensor> tensors;
};

Status run_with_ones(ProgramRun& r, const std::string& path, const std::string& method, LoadOptions options = {}) {
  VKRT_ASSIGN_OR_RETURN(r.module, Module::load(path, options));
  VKRT_ASSIGN_OR_RETURN(r.method, r.module->load_method(method));
  const auto& meta = r.method->meta();
  r.buffers.resize(meta.inputs.size());
  r.tensors.resize(meta.inputs.size());
  for (size_t i = 0; i < meta.inputs.size(); ++i) {
    const ValueInfo& in = meta.inputs[i];
    if (in.tag != Tag::Tensor) continue;
    r.buffers[i].assign(in.nbytes, 0);
    for (size_t k = 0; k < in.nbytes / element_size(in.dtype); ++k) {
      if (in.dtype == ScalarType::Float) { float one = 1; memcpy(&r.buffers[i][k * 4], &one, 4); }
      else if (in.dtype == ScalarType::Long) { int64_t one = 1; memcpy(&r.buffers[i][k * 8], &one, 8); }
      else if (in.dtype == ScalarType::Int) { int32_t one = 1; memcpy(&r.buffers[i][k * 4], &one, 4); }
      else return make_error(Error::NotSupported, "test helper: dtype");
    }
    VKRT_ASSIGN_OR_RETURN(r.tensors[i], Tensor::make(in.dtype, in.sizes, in.dim_order, r.buffers[i].data()));
    VKRT_RETURN_IF_ERROR(r.method->set_input(i, EValue::from_tensor(&r.tensors[i])));
  }
  return r.method->execute();
}

std::vector<float> floats(const EValue& v) {
  const Tensor& t = v.to_tensor();
  EXPECT_EQ(t.dtype(), ScalarType::Float);
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
}

TEST(ConformancePrograms, AddModelOnesGivesTwos) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("executorch__examples_arduino_examples_AddModel_model.pte"));
  ProgramRun r;
  ASSERT_TRUE(run_with_ones(r, path, "forward").is_ok());
  EXPECT_EQ(floats(r.method->output(0)), (std::vector<float>{2, 2, 2}));
}

TEST(ConformancePrograms, AddModelReadmeExample) {
  // The AddModel README: [1, 2, 3] -> [2, 3, 4] (x + constant 1.0 stored in a segment).
  VKRT_REQUIRE_CONFORMANCE(path, pte("executorch__examples_arduino_examples_AddModel_model.pte"));
  auto module = Module::load(path);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  float x[3] = {1, 2, 3};
  int32_t sizes[1] = {3};
  auto t = Tensor::make(ScalarType::Float, sizes, x);
  ASSERT_TRUE((*method)->set_input(0, EValue::from_tensor(&*t)).is_ok());
  ASSERT_TRUE((*method)->execute().is_ok());
  EXPECT_EQ(floats((*method)->output(0)), (std::vector<float>{2, 3, 4}));
  // A second run reuses the same inputs and gives the same answer.
  ASSERT_TRUE((*method)->execute().is_ok());
  EXPECT_EQ(floats((*method)->output(0)), (std::vector<float>{2, 3, 4}));
}

TEST(ConformancePrograms, FilesWithoutHeaderRun) {
  for (const char* name : {"executorch__extension_apple_ExecuTorch___tests___resources_add.pte",
                           "barakugav_executorch-rs__examples_models_add.pte"}) {
    VKRT_REQUIRE_CONFORMANCE(path, pte(name));
    ProgramRun r;
    Status s = run_with_ones(r, path, "forward");
    ASSERT_TRUE(s.is_ok()) << name << ": " << s.to_string();
    for (float v : floats(r.method->output(0))) EXPECT_EQ(v, 2.0f) << name;
  }
}

TEST(ConformancePrograms, DeprecatedConstantBufferLinearGivesFives) {
  // 3*x + 2 with constants in the deprecated inline constant_buffer.
  VKRT_REQUIRE_CONFORMANCE(path, pte("executorch__test_models_deprecated_ModuleLinear-no-constant-segment.pte"));
  ProgramRun r;
  ASSERT_TRUE(run_with_ones(r, path, "forward").is_ok());
  EXPECT_EQ(floats(r.method->output(0)), (std::vector<float>{5, 5, 5, 5}));
}

TEST(ConformancePrograms, OldConstantBufferProgramsRun) {
  VKRT_REQUIRE_CONFORMANCE(mul, pte("mybigday_node-executorch__lib___fixtures___mul.pte"));
  ProgramRun r;
  ASSERT_TRUE(run_with_ones(r, mul, "forward").is_ok());
  EXPECT_EQ(floats(r.method->output(0)), std::vector<float>(6, 1.0f));  // ones * ones
  // 2023 file: where(mean(x) == c, ...) — ones give [1.] (checked against the reference runner's rule).
  VKRT_REQUIRE_CONFORMANCE(old, pte("executorch_hist_fbba1cbc54__extension_runner_module_test_resources_model.pte"));
  ProgramRun r2;
  Status s = run_with_ones(r2, old, "forward");
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(r2.method->output(0).to_tensor().numel(), 1);
}

TEST(ConformancePrograms, ExternalDataFromPtdGivesFives) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("barakugav_executorch-rs__examples_data_map_model_model.pte"));
  VKRT_REQUIRE_CONFORMANCE(ptd, pte("barakugav_executorch-rs__examples_data_map_model__default_external_constant.ptd"));
  LoadOptions opts;
  opts.data_path = ptd;
  ProgramRun r;
  Status s = run_with_ones(r, path, "forward", opts);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(floats(r.method->output(0)), (std::vector<float>{5, 5, 5, 5}));
}

TEST(ConformancePrograms, ExternalDataMissingPtdIsNamed) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("barakugav_executorch-rs__examples_data_map_model_model.pte"));
  ProgramRun r;
  Status s = run_with_ones(r, path, "forward");
  EXPECT_EQ(s.code(), Error::InvalidExternalData);
  EXPECT_NE(s.message().find("external tensor 'a'"), std::string::npos) << s.message();
}

TEST(ConformancePrograms, FirstPtdSchemaLinear) {
  // linear.ptd uses the first FlatTensor schema. Expected: ones[3,3] @ W^T + b, computed here
  // from the .ptd bytes (segment base 0x110: W = 9 floats at 0, b = 3 floats at 48).
  VKRT_REQUIRE_CONFORMANCE(path, pte("executorch_hist_3e188fe119__extension_module_test_resources_linear.pte"));
  VKRT_REQUIRE_CONFORMANCE(ptd, pte("executorch_hist_3e188fe119__extension_module_test_resources_linear.ptd"));
  auto bytes = testing::read_file(ptd);
  ASSERT_GE(bytes.size(), 0x110u + 60u);
  float w[9], b[3];
  memcpy(w, &bytes[0x110], 36);
  memcpy(b, &bytes[0x110 + 48], 12);
  LoadOptions opts;
  opts.data_path = ptd;
  ProgramRun r;
  Status s = run_with_ones(r, path, "forward", opts);
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  auto out = floats(r.method->output(0));
  ASSERT_EQ(out.size(), 9u);
  for (int row = 0; row < 3; ++row)
    for (int o = 0; o < 3; ++o) EXPECT_NEAR(out[size_t(row * 3 + o)], w[o * 3] + w[o * 3 + 1] + w[o * 3 + 2] + b[o], 1e-6);
}

TEST(ConformancePrograms, ConstMethodsReturnTheirValues) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("corey-cole_executorch-numpy-runtime__tests_models_const_methods.pte"));
  auto module = Module::load(path);
  ASSERT_TRUE(module.ok());
  auto get = [&](const char* name) -> const EValue& {
    auto m = (*module)->load_method(name);
    EXPECT_TRUE(m.ok()) << name;
    EXPECT_TRUE((*m)->execute().is_ok()) << name;
    return (*m)->output(0);
  };
  EXPECT_EQ(get("get_scalar").to_int(), 128);
  EXPECT_DOUBLE_EQ(get("get_double").to_double(), 2.5);
  EXPECT_TRUE(get("get_bool").to_bool());
  const Tensor& t = get("get_tensor").to_tensor();
  ASSERT_EQ(t.dtype(), ScalarType::Long);
  EXPECT_EQ(std::vector<int64_t>(t.data_as<int64_t>(), t.data_as<int64_t>() + 3), (std::vector<int64_t>{1, 2, 3}));
}

TEST(ConformancePrograms, SeveralMethods) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("corey-cole_executorch-numpy-runtime__tests_models_multi.pte"));
  auto module = Module::load(path);
  ASSERT_TRUE(module.ok());
  EXPECT_EQ((*module)->method_names(), (std::vector<std::string>{"double", "forward"}));
  for (const char* m : {"double", "forward"}) {
    ProgramRun r;
    ASSERT_TRUE(run_with_ones(r, path, m).is_ok()) << m;
    EXPECT_EQ(floats(r.method->output(0)), (std::vector<float>{2, 2}));
  }
  auto missing = (*module)->load_method("backward");
  EXPECT_EQ(missing.error(), Error::NotFound);
  EXPECT_NE(missing.status().message().find("double, forward"), std::string::npos);
}

TEST(ConformancePrograms, LongAndFloatOutputs) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("corey-cole_djl-executorch-engine__native_spike_dtypes.pte"));
  ProgramRun r;
  ASSERT_TRUE(run_with_ones(r, path, "forward").is_ok());
  EXPECT_EQ(r.method->output(0).to_tensor().data_as<int64_t>()[0], 2);
  EXPECT_EQ(floats(r.method->output(1))[0], 2.0f);
}

TEST(ConformancePrograms, MixedDtypeInputs) {
  // _to_dim_order_copy(int64 -> float) then mul: ones give 1.
  VKRT_REQUIRE_CONFORMANCE(path, pte("corey-cole_djl-executorch-engine__src_test_resources_models_named_priced.pte"));
  ProgramRun r;
  Status s = run_with_ones(r, path, "forward");
  ASSERT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_EQ(floats(r.method->output(0)), (std::vector<float>{1}));
}

TEST(ConformancePrograms, PrimitiveInput) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("corey-cole_djl-executorch-engine__native_spike_prim_input.pte"));
  ProgramRun r;
  Status s = run_with_ones(r, path, "forward");  // the Double input is not set
  EXPECT_EQ(s.code(), Error::InvalidArgument);
  EXPECT_EQ(s.message(), "Input 1 has not been set.");
  // Set it to the traced value 2.0: x * 2.
  ASSERT_TRUE(r.method->set_input(1, EValue::from_double(2.0)).is_ok());
  ASSERT_TRUE(r.method->execute().is_ok());
  EXPECT_EQ(floats(r.method->output(0)), (std::vector<float>{2, 2, 2, 2}));
  // Any other value is refused, as upstream does for primitive inputs.
  EXPECT_EQ(r.method->set_input(1, EValue::from_double(3.0)).code(), Error::InvalidArgument);
  EXPECT_EQ(r.method->set_input(1, EValue::from_int(2)).code(), Error::InvalidArgument);
}

TEST(ConformancePrograms, BundledProgramPassesAllCases) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("executorch__extension_module_test_resources_bundled_program.bpte"));
  auto bundled = BundledProgram::load(path);
  ASSERT_TRUE(bundled.ok()) << bundled.status().to_string();
  auto module = Module::load_from_buffer((*bundled)->program());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  const auto* suite = (*bundled)->find_suite("forward");
  ASSERT_NE(suite, nullptr);
  ASSERT_EQ(suite->test_cases.size(), 10u);
  for (const auto& tc : suite->test_cases) {
    ASSERT_TRUE(load_bundled_inputs(**method, tc).is_ok());
    ASSERT_TRUE((*method)->execute().is_ok());
    auto cmp = verify_bundled_outputs(**method, tc);
    ASSERT_TRUE(cmp.ok());
    EXPECT_TRUE(cmp->pass) << cmp->message;
  }
  // A wrong expectation is caught: flip the expected bytes of case 0.
  BundledTestCase wrong = suite->test_cases[0];
  std::vector<uint8_t> bad(wrong.expected_outputs[0].data.begin(), wrong.expected_outputs[0].data.end());
  bad[0] ^= 1;
  wrong.expected_outputs[0].data = bad;
  ASSERT_TRUE(load_bundled_inputs(**method, wrong).is_ok());
  ASSERT_TRUE((*method)->execute().is_ok());
  auto cmp = verify_bundled_outputs(**method, wrong);
  ASSERT_TRUE(cmp.ok());
  EXPECT_FALSE(cmp->pass);
}

TEST(ConformancePrograms, UnknownBackendsAreNamed) {
  for (const char* name : {"corey-cole_djl-executorch-engine__native_spike_add.pte",
                           "corey-cole_djl-executorch-engine__native_spike_add_unplanned.pte",
                           "corey-cole_djl-executorch-engine__native_spike_conv.pte",
                           "corey-cole_executorch-numpy-runtime__tests_models_add.pte",
                           "corey-cole_executorch-numpy-runtime__tests_models_dynamic.pte",
                           "corey-cole_executorch-numpy-runtime__tests_models_quantized.pte"}) {
    VKRT_REQUIRE_CONFORMANCE(path, pte(name));
    auto module = Module::load(path);
    ASSERT_TRUE(module.ok()) << name << ": " << module.status().to_string();
    auto m = (*module)->load_method("forward");
    EXPECT_EQ(m.error(), Error::NotFound) << name;
    EXPECT_NE(m.status().message().find("backend XnnpackBackend not available (registered:"), std::string::npos)
        << m.status().message();
  }
  VKRT_REQUIRE_CONFORMANCE(ov, pte("corey-cole_djl-executorch-engine__src_test_resources_models_openvino_openvino_tiny.pte"));
  auto module = Module::load(ov);
  ASSERT_TRUE(module.ok());
  auto m = (*module)->load_method("forward");
  EXPECT_EQ(m.error(), Error::NotFound);
  EXPECT_NE(m.status().message().find("OpenvinoBackend"), std::string::npos);
}

TEST(ConformancePrograms, MissingOperatorIsNamed) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("corey-cole_djl-executorch-engine__src_test_resources_lstm_lstm.pte"));
  auto module = Module::load(path);
  ASSERT_TRUE(module.ok());
  auto m = (*module)->load_method("forward");
  EXPECT_EQ(m.error(), Error::OperatorMissing);
  EXPECT_NE(m.status().message().find("etnp::lstm.out"), std::string::npos) << m.status().message();
}

// A program that lacks both a backend and two operators names all three in one error.
TEST(ConformancePrograms, MissingBackendsAndOperatorsAreNamedTogether) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  const int32_t x = m.add_planned_tensor(ScalarType::Float, {2});
  const int32_t y = m.add_planned_tensor(ScalarType::Float, {2});
  const int32_t z = m.add_planned_tensor(ScalarType::Float, {2});
  m.add_delegate_call(m.add_delegate("NoSuchBackend", {1, 2, 3}), {x, y});
  m.add_kernel_call("test::no_such_op.out", {y, z, z});
  m.add_kernel_call("test::another_missing.out", {z, z, z});
  m.set_inputs({x});
  m.set_outputs({z});
  auto bytes = program.build();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto module = Module::load_from_buffer(bytes.value());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  EXPECT_EQ(method.error(), Error::NotFound);
  const std::string& msg = method.status().message();
  EXPECT_NE(msg.find("backend NoSuchBackend not available"), std::string::npos) << msg;
  EXPECT_NE(msg.find("missing operators test::no_such_op.out, test::another_missing.out"), std::string::npos) << msg;
}

TEST(ConformancePrograms, CorruptFileIsRefused) {
  VKRT_REQUIRE_CONFORMANCE(path, pte("corey-cole_djl-executorch-engine__src_test_resources_models_corrupt.pte"));
  auto module = Module::load(path);
  EXPECT_EQ(module.error(), Error::InvalidProgram);
  EXPECT_NE(module.status().message().find("'ET12'"), std::string::npos) << module.status().message();
}

TEST(ConformancePrograms, MissingFileIsNotFound) {
  auto module = Module::load("/nonexistent/model.pte");
  EXPECT_EQ(module.error(), Error::NotFound);
  EXPECT_NE(module.status().message().find("/nonexistent/model.pte"), std::string::npos);
}

}  // namespace
}  // namespace vkrt
