// Round trips: programs built with the writer, loaded by the reader (vkrt::Module), inspected
// with method_meta and executed with the portable kernels; every format variant the writer can
// produce goes through the reader path that handles it. Expected values are computed here.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "sample_programs.h"
#include "vkrt/backend.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace vkrt {
namespace {

#define ASSERT_OK_AND_ASSIGN(lhs, expr)                                                            \
  auto VKRT_CONCAT(res_, __LINE__) = (expr);                                                       \
  ASSERT_TRUE(VKRT_CONCAT(res_, __LINE__).ok()) << VKRT_CONCAT(res_, __LINE__).status().to_string(); \
  lhs = std::move(VKRT_CONCAT(res_, __LINE__)).value()

// A float tensor input that owns its data.
struct FloatInput {
  std::vector<float> data;
  Tensor tensor;
  FloatInput(std::vector<int32_t> sizes, std::vector<float> values) : data(std::move(values)) {
    auto t = Tensor::make(ScalarType::Float, sizes, data.data());
    EXPECT_TRUE(t.ok()) << t.status().to_string();
    if (t.ok()) tensor = *t;
  }
  EValue value() { return EValue::from_tensor(&tensor); }
};

std::vector<float> float_output(const Method& method, size_t i) {
  const EValue& v = method.output(i);
  EXPECT_TRUE(v.is_tensor());
  if (!v.is_tensor()) return {};
  const Tensor& t = v.to_tensor();
  EXPECT_EQ(t.dtype(), ScalarType::Float);
  const float* p = t.data_as<float>();
  return std::vector<float>(p, p + t.numel());
}

// Loads `bytes` (kept alive by the caller), runs `method` with the given float inputs and
// returns output 0.
std::vector<float> run_floats(const std::vector<uint8_t>& bytes, std::vector<FloatInput>& inputs,
                              std::span<const uint8_t> data_file = {}, const std::string& method_name = "forward") {
  auto module = Module::load_from_buffer(bytes, {}, data_file);
  EXPECT_TRUE(module.ok()) << module.status().to_string();
  if (!module.ok()) return {};
  auto method = (*module)->load_method(method_name);
  EXPECT_TRUE(method.ok()) << method.status().to_string();
  if (!method.ok()) return {};
  for (size_t i = 0; i < inputs.size(); ++i) {
    Status s = (*method)->set_input(i, inputs[i].value());
    EXPECT_TRUE(s.is_ok()) << s.to_string();
  }
  Status s = (*method)->execute();
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  if (!s.is_ok()) return {};
  return float_output(**method, 0);
}

std::vector<float> ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * float(i);
  return v;
}

TEST(RoundTrip, AddMulSampleMetaAndValues) {
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, samples::add_mul_program());
  ASSERT_OK_AND_ASSIGN(auto module, Module::load_from_buffer(bytes));
  EXPECT_EQ(module->method_names(), std::vector<std::string>{"forward"});
  ASSERT_OK_AND_ASSIGN(MethodMeta meta, module->method_meta("forward"));
  ASSERT_EQ(meta.inputs.size(), 2u);
  ASSERT_EQ(meta.outputs.size(), 1u);
  for (const ValueInfo& in : meta.inputs) {
    EXPECT_EQ(in.tag, Tag::Tensor);
    EXPECT_EQ(in.dtype, ScalarType::Float);
    EXPECT_EQ(in.sizes, (std::vector<int32_t>{2, 3}));
    EXPECT_EQ(in.dim_order, (std::vector<uint8_t>{0, 1}));
    EXPECT_EQ(in.nbytes, 24u);
    EXPECT_TRUE(in.memory_planned);
  }
  // Four planned f32[2,3] tensors at 0, 32, 64, 96 (24 bytes each, 16-aligned) -> 128 bytes.
  EXPECT_EQ(meta.planned_buffer_sizes, (std::vector<int64_t>{128}));
  EXPECT_EQ(meta.num_instructions, 2u);
  EXPECT_EQ(meta.operators, (std::vector<std::string>{"aten::mul.out", "aten::add.out"}));

  std::vector<FloatInput> inputs;
  inputs.emplace_back(std::vector<int32_t>{2, 3}, ramp(6, -1.0f, 0.5f));
  inputs.emplace_back(std::vector<int32_t>{2, 3}, ramp(6, 10.0f, -3.0f));
  std::vector<float> out = run_floats(bytes, inputs);
  ASSERT_EQ(out.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(out[i], inputs[0].data[i] * 2 + inputs[1].data[i]) << i;
}

TEST(RoundTrip, OneOpProgramRuns) {
  constexpr ScalarType F = ScalarType::Float;
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> add,
                       make_one_op_program("aten::add.out", {OpArg::input(F, {3}), OpArg::input(F, {3}),
                                                             OpArg::integer(2), OpArg::output(F, {3})}));
  std::vector<FloatInput> inputs;
  inputs.emplace_back(std::vector<int32_t>{3}, std::vector<float>{1.f, 2.f, 3.f});
  inputs.emplace_back(std::vector<int32_t>{3}, std::vector<float>{10.f, 20.f, 30.f});
  EXPECT_EQ(run_floats(add, inputs), (std::vector<float>{21.f, 42.f, 63.f})) << "self + alpha * other";

  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> mul,
                       make_one_op_program("aten::mul.out", {OpArg::input(F, {3}),
                                                             OpArg::constant_of<float>({3}, {0.5f, -1.f, 4.f}),
                                                             OpArg::output(F, {3})}));
  inputs.pop_back();
  EXPECT_EQ(run_floats(mul, inputs), (std::vector<float>{0.5f, -2.f, 12.f}));
}

TEST(RoundTrip, EveryConstantStorageAndHeaderFormGivesTheSameResult) {
  struct Variant {
    const char* name;
    PteWriteOptions options;
  };
  const Variant variants[] = {
      {"segment, eh00 32", {}},
      {"segment, eh00 24", {.header_form = PteHeaderForm::Legacy24}},
      {"segment, alignment 4096", {.segment_alignment = 4096}},
      {"inline constant_buffer", {.constant_storage = ConstantStorage::InlineBuffer}},
      {"inline constant_buffer, forced eh00", {.constant_storage = ConstantStorage::InlineBuffer, .force_header = true}},
  };
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.name);
    ProgramBuilder program(v.options);
    MethodBuilder& m = program.add_method("forward");
    int32_t x = m.add_planned_tensor(ScalarType::Float, {4});
    int32_t c = m.add_constant_tensor<float>({4}, {1.f, 2.f, 3.f, 4.f});
    int32_t out = m.add_planned_tensor(ScalarType::Float, {4});
    m.add_kernel_call("aten::mul.out", {x, c, out, out});
    m.set_inputs({x}).set_outputs({out});
    ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, program.build());
    std::vector<FloatInput> inputs;
    inputs.emplace_back(std::vector<int32_t>{4}, std::vector<float>{2.f, -1.f, 0.5f, 10.f});
    EXPECT_EQ(run_floats(bytes, inputs), (std::vector<float>{2.f, -2.f, 1.5f, 40.f}));
  }
}

TEST(RoundTrip, ExternalTensorsFromPtd) {
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> pte, samples::linear_external_program());
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> ptd, samples::linear_external_data());
  std::vector<FloatInput> inputs;
  inputs.emplace_back(std::vector<int32_t>{2, 2}, std::vector<float>{1.f, 1.f, 0.f, -2.f});
  // 3 * x + 2
  EXPECT_EQ(run_floats(pte, inputs, ptd), (std::vector<float>{5.f, 5.f, 2.f, -4.f}));
  // Without the .ptd the load fails (the external tensors cannot be resolved).
  auto module = Module::load_from_buffer(pte);
  if (module.ok()) {
    auto method = (*module)->load_method("forward");
    EXPECT_FALSE(method.ok()) << "loading without the .ptd must fail";
  }
}

TEST(RoundTrip, ConstMethodsReturnTheirValues) {
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, samples::const_methods_program());
  ASSERT_OK_AND_ASSIGN(auto module, Module::load_from_buffer(bytes));
  EXPECT_EQ(module->method_names(),
            (std::vector<std::string>{"forward", "get_int", "get_double", "get_bool", "get_string", "get_tensor"}));
  auto run = [&](const char* name) -> const EValue* {
    auto method = module->load_method(name);
    EXPECT_TRUE(method.ok()) << name << ": " << method.status().to_string();
    if (!method.ok()) return nullptr;
    Status s = (*method)->execute();
    EXPECT_TRUE(s.is_ok()) << name << ": " << s.to_string();
    return &(*method)->output(0);
  };
  const EValue* v = run("get_int");
  ASSERT_NE(v, nullptr);
  ASSERT_TRUE(v->is_int());
  EXPECT_EQ(v->to_int(), 128);
  v = run("get_double");
  ASSERT_NE(v, nullptr);
  ASSERT_TRUE(v->is_double());
  EXPECT_EQ(v->to_double(), 2.5);
  v = run("get_bool");
  ASSERT_NE(v, nullptr);
  ASSERT_TRUE(v->is_bool());
  EXPECT_TRUE(v->to_bool());
  v = run("get_string");
  ASSERT_NE(v, nullptr);
  ASSERT_TRUE(v->is_string());
  EXPECT_EQ(v->to_string(), "vkrt");
  v = run("get_tensor");
  ASSERT_NE(v, nullptr);
  ASSERT_TRUE(v->is_tensor());
  EXPECT_EQ(v->to_tensor().dtype(), ScalarType::Long);
  const int64_t* p = v->to_tensor().data_as<int64_t>();
  EXPECT_EQ(std::vector<int64_t>(p, p + v->to_tensor().numel()), (std::vector<int64_t>{1, 2, 3}));
}

// A complex64 constant is written with its dtype code (9) and 8-byte (real, imaginary)
// elements, read back as such, and view_as_real_copy splits it into float32 parts.
TEST(RoundTrip, ComplexFloatConstantTensor) {
  const std::vector<float> parts{1.f, -2.f, 0.5f, 3.f, -0.f, INFINITY};  // 3 complex values
  ProgramBuilder program;
  MethodBuilder& get = program.add_method("get_complex");
  get.set_outputs({get.add_constant_tensor(TensorSpec::make(ScalarType::ComplexFloat, {3}), to_bytes(parts))});
  MethodBuilder& m = program.add_method("forward");
  int32_t c = m.add_constant_tensor(TensorSpec::make(ScalarType::ComplexFloat, {3}), to_bytes(parts));
  int32_t out = m.add_planned_tensor(ScalarType::Float, {3, 2});
  m.add_kernel_call("aten::view_as_real_copy.out", {c, out, out});
  m.set_outputs({out});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, program.build());

  ASSERT_OK_AND_ASSIGN(auto module, Module::load_from_buffer(bytes));
  auto got = module->load_method("get_complex");
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  ASSERT_TRUE((*got)->execute().is_ok());
  const EValue& v = (*got)->output(0);
  ASSERT_TRUE(v.is_tensor());
  const Tensor& t = v.to_tensor();
  EXPECT_EQ(t.dtype(), ScalarType::ComplexFloat);
  EXPECT_EQ(t.numel(), 3);
  EXPECT_EQ(t.nbytes(), 24u);
  const float* p = t.data_as<float>();
  EXPECT_EQ(std::vector<float>(p, p + 6), parts);

  std::vector<FloatInput> no_inputs;
  EXPECT_EQ(run_floats(bytes, no_inputs), parts);
}

TEST(RoundTrip, MutableDataInitialisesThePlannedBuffer) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<float> init{0.5f, 1.5f, -2.0f};
  int32_t state = m.add_mutable_tensor(TensorSpec::make(ScalarType::Float, {3}).at(1, 32), to_bytes(init));
  m.set_outputs({state});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, program.build());
  std::vector<FloatInput> none;
  EXPECT_EQ(run_floats(bytes, none), init);
}

// JumpFalse skips, Move copies values: b = a + x where a = 2x, then a += x unless skipped.
std::vector<uint8_t> jump_program(bool cond) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t x = m.add_planned_tensor(ScalarType::Float, {2});
  int32_t a = m.add_planned_tensor(ScalarType::Float, {2});
  int32_t b = m.add_planned_tensor(ScalarType::Float, {2});
  int32_t c = m.add_bool(cond);
  int32_t one = m.add_int(1);
  m.add_kernel_call("aten::add.out", {x, x, one, a, a});  // 0: a = 2x
  m.add_jump_false(c, 3);                                  // 1
  m.add_kernel_call("aten::add.out", {a, x, one, a, a});  // 2: a = 3x
  m.add_kernel_call("aten::add.out", {a, x, one, b, b});  // 3: b = a + x
  m.set_inputs({x}).set_outputs({b});
  auto bytes = program.build();
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

TEST(RoundTrip, JumpFalseSkipsWhenFalse) {
  for (bool cond : {false, true}) {
    std::vector<uint8_t> bytes = jump_program(cond);
    std::vector<FloatInput> inputs;
    inputs.emplace_back(std::vector<int32_t>{2}, std::vector<float>{1.f, -2.f});
    const float k = cond ? 4.f : 3.f;
    EXPECT_EQ(run_floats(bytes, inputs), (std::vector<float>{k, -2.f * k})) << "cond " << cond;
  }
}

TEST(RoundTrip, MoveCopiesAValue) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t src = m.add_int(7);
  int32_t dst = m.add_int(0);
  m.add_move(src, dst);
  m.set_outputs({dst});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, program.build());
  ASSERT_OK_AND_ASSIGN(auto module, Module::load_from_buffer(bytes));
  ASSERT_OK_AND_ASSIGN(Method * method, module->load_method("forward"));
  ASSERT_TRUE(method->execute().is_ok());
  ASSERT_TRUE(method->output(0).is_int());
  EXPECT_EQ(method->output(0).to_int(), 7);
}

TEST(RoundTrip, MissingOperatorIsReportedAtLoad) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t x = m.add_planned_tensor(ScalarType::Float, {2});
  m.add_kernel_call("vkrt_writer_test::does_not_exist.out", {x, x});
  m.set_inputs({x}).set_outputs({x});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, program.build());
  ASSERT_OK_AND_ASSIGN(auto module, Module::load_from_buffer(bytes));
  auto method = module->load_method("forward");
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::OperatorMissing);
  EXPECT_NE(method.status().message().find("vkrt_writer_test::does_not_exist.out"), std::string::npos)
      << method.status().to_string();
}

// --- delegates ----------------------------------------------------------------------------------

// Records what init saw; execute writes out[i] = in[i] + payload[0].
struct SeenAtInit {
  std::vector<uint8_t> payload;
  std::map<std::string, std::string> specs;
  std::vector<uint8_t> named_blob;
};
std::vector<SeenAtInit>& seen() {
  static std::vector<SeenAtInit> s;
  return s;
}

class AddPayloadHandle : public DelegateHandle {
 public:
  float addend = 0;
};

class WriterTestBackend : public Backend {
 public:
  std::string_view name() const override { return "WriterTestBackend"; }
  Result<std::unique_ptr<DelegateHandle>> init(BackendInitContext& ctx, std::span<const uint8_t> processed,
                                               std::span<const CompileSpec> compile_specs) override {
    SeenAtInit s;
    s.payload.assign(processed.begin(), processed.end());
    for (const CompileSpec& cs : compile_specs) {
      s.specs[std::string(cs.key)] = std::string(cs.value.begin(), cs.value.end());
    }
    auto blob = ctx.named_data->get("blob");
    if (blob.ok()) s.named_blob.assign(blob->begin(), blob->end());
    seen().push_back(s);
    auto handle = std::make_unique<AddPayloadHandle>();
    handle->addend = processed.empty() ? 0.f : float(processed[0]);
    return std::unique_ptr<DelegateHandle>(std::move(handle));
  }
  Status execute(BackendExecuteContext&, DelegateHandle& handle, std::span<EValue* const> args) override {
    VKRT_CHECK_OR_RETURN(args.size() == 2 && args[0]->is_tensor() && args[1]->is_tensor(), InvalidArgument,
                         "WriterTestBackend wants (tensor in, tensor out)");
    const Tensor& in = args[0]->to_tensor();
    Tensor& out = args[1]->to_tensor();
    const float addend = static_cast<AddPayloadHandle&>(handle).addend;
    for (int64_t i = 0; i < in.numel(); ++i) out.data_as<float>()[i] = in.data_as<float>()[i] + addend;
    return Status::ok();
  }
};
VKRT_REGISTER_BACKEND("WriterTestBackend", std::make_shared<WriterTestBackend>());

TEST(RoundTrip, DelegatePayloadsInlineAndInSegments) {
  for (PayloadLocation where : {PayloadLocation::Inline, PayloadLocation::Segment}) {
    SCOPED_TRACE(where == PayloadLocation::Inline ? "inline" : "segment");
    seen().clear();
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    std::vector<uint8_t> payload(300);
    payload[0] = 5;
    for (size_t i = 1; i < payload.size(); ++i) payload[i] = uint8_t(i);
    int32_t d = m.add_delegate("WriterTestBackend", payload,
                               {CompileSpecEntry::text("target", "test-target"), CompileSpecEntry::text("k", "v")}, where);
    int32_t x = m.add_planned_tensor(ScalarType::Float, {3});
    int32_t y = m.add_planned_tensor(ScalarType::Float, {3});
    m.add_delegate_call(d, {x, y});
    m.set_inputs({x}).set_outputs({y});
    std::vector<uint8_t> blob{4, 3, 2, 1};
    program.add_named_data("blob", blob);
    ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, program.build());

    std::vector<FloatInput> inputs;
    inputs.emplace_back(std::vector<int32_t>{3}, std::vector<float>{1.f, 2.f, -3.f});
    EXPECT_EQ(run_floats(bytes, inputs), (std::vector<float>{6.f, 7.f, 2.f}));
    ASSERT_EQ(seen().size(), 1u) << "init once per delegate";
    EXPECT_EQ(seen()[0].payload, payload);
    EXPECT_EQ(seen()[0].specs["target"], "test-target");
    EXPECT_EQ(seen()[0].specs["k"], "v");
    EXPECT_EQ(seen()[0].named_blob, blob);
  }
}

TEST(RoundTrip, UnknownBackendNamesItAtLoad) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t d = m.add_delegate("NoSuchBackend", {1, 2, 3});
  int32_t x = m.add_planned_tensor(ScalarType::Float, {3});
  m.add_delegate_call(d, {x, x});
  m.set_inputs({x}).set_outputs({x});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, program.build());
  ASSERT_OK_AND_ASSIGN(auto module, Module::load_from_buffer(bytes));
  auto method = module->load_method("forward");
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::NotFound);
  EXPECT_NE(method.status().message().find("NoSuchBackend"), std::string::npos) << method.status().to_string();
}

TEST(RoundTrip, DynamicBoundInputIsReportedAsSuch) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t x = m.add_tensor(TensorSpec::make(ScalarType::Float, {8}).dynamic_bound().at(1, 0));
  m.set_inputs({x}).set_outputs({x});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, program.build());
  ASSERT_OK_AND_ASSIGN(auto module, Module::load_from_buffer(bytes));
  ASSERT_OK_AND_ASSIGN(MethodMeta meta, module->method_meta("forward"));
  ASSERT_EQ(meta.inputs.size(), 1u);
  EXPECT_EQ(meta.inputs[0].dynamism, ShapeDynamism::DynamicBound);
  EXPECT_EQ(meta.inputs[0].sizes, (std::vector<int32_t>{8}));
  EXPECT_EQ(meta.planned_buffer_sizes, (std::vector<int64_t>{32}));
}

TEST(RoundTrip, InconsistentProgramsWrittenWithoutValidationAreRefused) {
  // The writer can produce what the reader must refuse: each case loads to an error, not a crash.
  struct Case {
    const char* what;
    void (*build)(MethodBuilder&);
  };
  const Case cases[] = {
      {"planned tensor past its buffer",
       [](MethodBuilder& m) {
         m.set_outputs({m.add_tensor(TensorSpec::make(ScalarType::Float, {8}).at(1, 16))});
         m.set_planned_buffer_sizes({32});
       }},
      {"memory_id beyond the buffers",
       [](MethodBuilder& m) {
         m.set_outputs({m.add_tensor(TensorSpec::make(ScalarType::Float, {1}).at(3, 0))});
         m.set_planned_buffer_sizes({16});  // only buffer 1 exists
       }},
      {"kernel argument out of range", [](MethodBuilder& m) { m.add_kernel_call("aten::add.out", {0, 1, 99}); }},
      {"output index out of range", [](MethodBuilder& m) { m.set_outputs({42}); }},
      {"constant index out of range",
       [](MethodBuilder& m) {
         TensorSpec t = TensorSpec::make(ScalarType::Float, {2});
         t.data_buffer_idx = 9;
         m.set_outputs({m.add_tensor(t)});
       }},
      {"non-zero storage_offset",
       [](MethodBuilder& m) {
         TensorSpec t = TensorSpec::make(ScalarType::Float, {2}).at(1, 0);
         t.storage_offset = 1;
         m.set_outputs({m.add_tensor(t)});
       }},
      {"IntList item that is not an Int", [](MethodBuilder& m) { m.set_outputs({m.add_int_list_of_values({m.add_double(1)})}); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ProgramBuilder program(PteWriteOptions{.validate = false});
    c.build(program.add_method("forward"));
    ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> bytes, program.build());
    auto module = Module::load_from_buffer(bytes);
    if (!module.ok()) continue;  // refused at program load: fine
    auto method = (*module)->load_method("forward");
    if (!method.ok()) {
      EXPECT_NE(method.error(), Error::Ok);
      continue;
    }
    // Loading succeeded: then running must fail cleanly.
    EXPECT_FALSE((*method)->execute().is_ok()) << "inconsistent program accepted";
  }
}

}  // namespace
}  // namespace vkrt
