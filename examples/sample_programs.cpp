// The sample programs, built with the public writer API the way exir lays them out: inputs and
// intermediates memory-planned in buffer 1, constants in the constant segment, kernel
// arguments in schema order with the trailing return slot (pte-format §9.3, §9.5).
#include "sample_programs.h"

#include "vkrt/pte_writer.h"
#ifdef VKRT_SAMPLES_WITH_ETHOSU
#include "ethos_u_sample.h"
#endif

namespace vkrt::samples {

namespace {

constexpr int32_t kRows = 2, kCols = 3;

// out = x * 2 + y into `m`; returns nothing, sets inputs and outputs.
void add_mul_method(MethodBuilder& m) {
  int32_t x = m.add_planned_tensor(ScalarType::Float, {kRows, kCols});
  int32_t y = m.add_planned_tensor(ScalarType::Float, {kRows, kCols});
  int32_t two = m.add_constant_tensor<float>({kRows, kCols}, std::vector<float>(kRows * kCols, 2.0f));
  int32_t scaled = m.add_planned_tensor(ScalarType::Float, {kRows, kCols});
  int32_t out = m.add_planned_tensor(ScalarType::Float, {kRows, kCols});
  // aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out) + return slot.
  m.add_kernel_call("aten::mul.out", {x, two, scaled, scaled});
  // aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) + return slot.
  m.add_kernel_call("aten::add.out", {scaled, y, m.add_int(1), out, out});
  m.set_inputs({x, y}).set_outputs({out});
}

std::vector<float> add_mul_reference(const std::vector<float>& x, const std::vector<float>& y) {
  std::vector<float> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * 2.0f + y[i];
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> add_mul_program() {
  ProgramBuilder program;
  add_mul_method(program.add_method("forward"));
  return program.build();
}

Result<std::vector<uint8_t>> add_mul_legacy_program() {
  ProgramBuilder program(PteWriteOptions{.constant_storage = ConstantStorage::InlineBuffer});
  add_mul_method(program.add_method("forward"));
  return program.build();
}

Result<std::vector<uint8_t>> add_mul_bundled() {
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> pte, add_mul_program());
  BundledProgramBuilder bundle(std::move(pte));
  const std::vector<int32_t> sizes{kRows, kCols};
  std::vector<float> ones(kRows * kCols, 1.0f);
  std::vector<float> ramp{0.f, 1.f, 2.f, 3.f, 4.f, 5.f};
  std::vector<float> offsets{0.5f, -0.5f, 10.f, -10.f, 0.25f, 100.f};
  for (const auto& [x, y] : {std::pair{ones, ones}, std::pair{ramp, offsets}}) {
    bundle.add_test_case("forward", {{BundledValueSpec::tensor_of<float>(sizes, x), BundledValueSpec::tensor_of<float>(sizes, y)},
                                     {BundledValueSpec::tensor_of<float>(sizes, add_mul_reference(x, y))}});
  }
  return bundle.build();
}

Result<std::vector<uint8_t>> linear_external_program() {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t x = m.add_planned_tensor(ScalarType::Float, {2, 2});
  int32_t w = m.add_tensor(TensorSpec::make(ScalarType::Float, {2, 2}).external("w"));
  int32_t b = m.add_tensor(TensorSpec::make(ScalarType::Float, {2, 2}).external("b"));
  int32_t wx = m.add_planned_tensor(ScalarType::Float, {2, 2});
  int32_t out = m.add_planned_tensor(ScalarType::Float, {2, 2});
  m.add_kernel_call("aten::mul.out", {w, x, wx, wx});
  m.add_kernel_call("aten::add.out", {wx, b, m.add_int(1), out, out});
  m.set_inputs({x}).set_outputs({out});
  return program.build();
}

Result<std::vector<uint8_t>> linear_external_data() {
  FlatTensorBuilder data;
  data.add_tensor<float>("w", {2, 2}, std::vector<float>(4, 3.0f));
  data.add_tensor<float>("b", {2, 2}, std::vector<float>(4, 2.0f));
  return data.build();
}

Result<std::vector<uint8_t>> const_methods_program() {
  ProgramBuilder program;
  add_mul_method(program.add_method("forward"));
  MethodBuilder& get_int = program.add_method("get_int");
  get_int.set_outputs({get_int.add_int(128)});
  MethodBuilder& get_double = program.add_method("get_double");
  get_double.set_outputs({get_double.add_double(2.5)});
  MethodBuilder& get_bool = program.add_method("get_bool");
  get_bool.set_outputs({get_bool.add_bool(true)});
  MethodBuilder& get_string = program.add_method("get_string");
  get_string.set_outputs({get_string.add_string("vkrt")});
  MethodBuilder& get_tensor = program.add_method("get_tensor");
  get_tensor.set_outputs({get_tensor.add_constant_tensor<int64_t>({3}, {1, 2, 3})});
  return program.build();
}

const std::vector<SampleFile>& all_samples() {
  static const std::vector<SampleFile> samples{
      {"add_mul.pte", "out = x * 2 + y, float [2,3] inputs (ones -> 3)", &add_mul_program},
      {"add_mul.bpte", "add_mul with 2 bundled test cases", &add_mul_bundled},
      {"add_mul_legacy.pte", "add_mul with the deprecated inline constant_buffer, no eh00", &add_mul_legacy_program},
      {"linear_external.pte", "out = w * x + b, w and b EXTERNAL (use with linear_external.ptd; ones -> 5)",
       &linear_external_program},
      {"linear_external.ptd", "FlatTensor data for linear_external.pte: w = 3.0, b = 2.0", &linear_external_data},
      {"const_methods.pte",
       "forward (= add_mul) + get_int 128, get_double 2.5, get_bool true, get_string \"vkrt\", get_tensor [1,2,3]",
       &const_methods_program},
#ifdef VKRT_SAMPLES_WITH_ETHOSU
      {"small_cnn_int8_ethos_u55.pte",
       "Ethos-U INT8: int8 [1,8,8,8] -> EthosUBackend (U55-128, hand-encoded command stream: conv 3x3 + ReLU, "
       "depthwise 3x3 + ReLU, global average pool, fully connected) -> int8 [1,1,1,10]; run it with "
       "executor_runner --ethosu_driver virtual",
       [] { return ethos_u_sample_program(); }},
#endif
  };
  return samples;
}

}  // namespace vkrt::samples
