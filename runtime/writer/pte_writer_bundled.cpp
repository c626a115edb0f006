// .bpte (BundledProgram v2) writer: a whole .pte plus test cases per method (pte-format §8).
#include <cstring>

#include "bundled_program_generated.h"
#include "vkrt/pte_writer.h"

namespace vkrt {

namespace {

namespace bp = bundled_program_flatbuffer;

constexpr uint32_t kBundledProgramVersion = 2;  // BundledProgram.version written today (§1)

Status check_value(const BundledValueSpec& v, const std::string& where) {
  if (v.kind != BundledValueSpec::Kind::Tensor) {
    VKRT_CHECK_OR_RETURN(v.kind == BundledValueSpec::Kind::Int || v.kind == BundledValueSpec::Kind::Bool ||
                             v.kind == BundledValueSpec::Kind::Double,
                         InvalidArgument, where, "unknown value kind ", int(v.kind));
    return Status::ok();
  }
  TensorSpec layout = TensorSpec::make(v.dtype, v.sizes);
  VKRT_CHECK_OR_RETURN(is_valid_scalar_type(int(v.dtype)), InvalidArgument, where, "scalar type ",
                       int(v.dtype), " is not in the schema");
  for (int32_t s : v.sizes) VKRT_CHECK_OR_RETURN(s >= 0, InvalidArgument, where, "negative size ", s);
  VKRT_CHECK_OR_RETURN(v.dim_order.empty() || v.dim_order.size() == v.sizes.size(), InvalidArgument,
                       where, "dim_order has ", v.dim_order.size(), " entries for rank ", v.sizes.size());
  VKRT_CHECK_OR_RETURN(v.data.size() == layout.nbytes(), InvalidArgument, where, v.data.size(),
                       " bytes of data for a tensor of ", layout.nbytes(), " bytes");
  return Status::ok();
}

flatbuffers::Offset<bp::Value> encode_value(flatbuffers::FlatBufferBuilder& fbb, const BundledValueSpec& v) {
  switch (v.kind) {
    case BundledValueSpec::Kind::Tensor: {
      std::vector<uint8_t> order = v.dim_order;
      for (size_t d = order.size(); d < v.sizes.size(); ++d) order.push_back(uint8_t(d));
      auto sizes = fbb.CreateVector(v.sizes);
      // Tensor.data carries force_align 16 (pte-format §8).
      fbb.ForceVectorAlignment(v.data.size(), sizeof(uint8_t), 16);
      auto data = fbb.CreateVector(v.data);
      auto dim_order = fbb.CreateVector(order);
      auto t = bp::CreateTensor(fbb, int8_t(v.dtype), sizes, data, dim_order);
      return bp::CreateValue(fbb, bp::ValueUnion::Tensor, t.Union());
    }
    case BundledValueSpec::Kind::Int:
      return bp::CreateValue(fbb, bp::ValueUnion::Int, bp::CreateInt(fbb, v.int_val).Union());
    case BundledValueSpec::Kind::Bool:
      return bp::CreateValue(fbb, bp::ValueUnion::Bool, bp::CreateBool(fbb, v.bool_val).Union());
    case BundledValueSpec::Kind::Double:
      return bp::CreateValue(fbb, bp::ValueUnion::Double, bp::CreateDouble(fbb, v.double_val).Union());
  }
  return bp::CreateValue(fbb);
}

}  // namespace

BundledValueSpec BundledValueSpec::tensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> data) {
  BundledValueSpec v;
  v.kind = Kind::Tensor;
  v.dtype = dtype;
  v.sizes = std::move(sizes);
  v.data = std::move(data);
  return v;
}

BundledValueSpec BundledValueSpec::integer(int64_t x) {
  BundledValueSpec v;
  v.kind = Kind::Int;
  v.int_val = x;
  return v;
}

BundledValueSpec BundledValueSpec::boolean(bool x) {
  BundledValueSpec v;
  v.kind = Kind::Bool;
  v.bool_val = x;
  return v;
}

BundledValueSpec BundledValueSpec::real(double x) {
  BundledValueSpec v;
  v.kind = Kind::Double;
  v.double_val = x;
  return v;
}

void BundledProgramBuilder::add_test_case(std::string method_name, BundledTestCaseSpec test_case) {
  for (auto& [name, cases] : suites_) {
    if (name == method_name) {
      cases.push_back(std::move(test_case));
      return;
    }
  }
  suites_.emplace_back(std::move(method_name), std::vector<BundledTestCaseSpec>{std::move(test_case)});
}

Result<std::vector<uint8_t>> BundledProgramBuilder::build() const {
  VKRT_CHECK_OR_RETURN(program_.size() >= 8 && std::memcmp(program_.data() + 4, "ET12", 4) == 0,
                       InvalidArgument, "the bundled program is not a .pte (no ET12 identifier)");
  for (const auto& [name, cases] : suites_) {
    for (size_t c = 0; c < cases.size(); ++c) {
      const std::string prefix = "method '" + name + "' test case " + std::to_string(c) + " ";
      for (size_t i = 0; i < cases[c].inputs.size(); ++i) {
        VKRT_RETURN_IF_ERROR(check_value(cases[c].inputs[i], prefix + "input " + std::to_string(i) + ": "));
      }
      for (size_t i = 0; i < cases[c].expected_outputs.size(); ++i) {
        VKRT_RETURN_IF_ERROR(
            check_value(cases[c].expected_outputs[i], prefix + "output " + std::to_string(i) + ": "));
      }
    }
  }

  flatbuffers::FlatBufferBuilder fbb(program_.size() + 1024);
  std::vector<flatbuffers::Offset<bp::BundledMethodTestSuite>> suites;
  for (const auto& [name, cases] : suites_) {
    std::vector<flatbuffers::Offset<bp::BundledMethodTestCase>> encoded_cases;
    for (const BundledTestCaseSpec& tc : cases) {
      std::vector<flatbuffers::Offset<bp::Value>> inputs, outputs;
      for (const auto& v : tc.inputs) inputs.push_back(encode_value(fbb, v));
      for (const auto& v : tc.expected_outputs) outputs.push_back(encode_value(fbb, v));
      const auto input_list = fbb.CreateVector(inputs);
      const auto output_list = fbb.CreateVector(outputs);
      encoded_cases.push_back(bp::CreateBundledMethodTestCase(fbb, input_list, output_list));
    }
    const auto method_name = fbb.CreateString(name);
    const auto case_list = fbb.CreateVector(encoded_cases);
    suites.push_back(bp::CreateBundledMethodTestSuite(fbb, method_name, case_list));
  }
  // BundledProgram.program carries force_align 32, so the embedded .pte is at least as aligned
  // as a program buffer must be (pte-format §1, §8).
  fbb.ForceVectorAlignment(program_.size(), sizeof(uint8_t), 32);
  auto program = fbb.CreateVector(program_);
  auto root = bp::CreateBundledProgram(fbb, kBundledProgramVersion, fbb.CreateVector(suites), program);
  bp::FinishBundledProgramBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

Status BundledProgramBuilder::write_file(const std::string& path) const {
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, build());
  return write_bytes_to_file(path, bytes);
}

}  // namespace vkrt
