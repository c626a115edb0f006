#include "vkrt/bundled_program.h"

#include <cstring>

#include "api_boundary.h"
#include "bundled_program_generated.h"
#include "file_data.h"

namespace vkrt {

namespace bp = bundled_program_flatbuffer;

bool BundledProgram::is_bundled(std::span<const uint8_t> bytes) {
  return bytes.size() >= 8 && memcmp(bytes.data() + 4, "BP08", 4) == 0;
}

Result<std::unique_ptr<BundledProgram>> BundledProgram::load(const std::string& path) {
  return detail::guard_api("BundledProgram::load", [&]() -> Result<std::unique_ptr<BundledProgram>> {
    VKRT_ASSIGN_OR_RETURN(auto file, FileData::map(path));
    VKRT_ASSIGN_OR_RETURN(auto bundled, parse(file->bytes()));
    bundled->owner_ = file;
    return bundled;
  });
}

static Result<BundledValue> parse_value(const bp::Value* v, const char* role, size_t index) {
  BundledValue out;
  if (!v) return make_error(Error::InvalidProgram, "bundled ", role, " ", index, " is null");
  if (v->val_type() != bp::ValueUnion::NONE && !v->val())
    return make_error(Error::InvalidProgram, "bundled ", role, " ", index, " has a type tag but no value");
  switch (v->val_type()) {
    case bp::ValueUnion::Tensor: {
      const auto* t = v->val_as_Tensor();
      if (!is_valid_scalar_type(t->scalar_type()))
        return make_error(Error::InvalidProgram, "bundled ", role, " ", index, ": unknown scalar type ",
                          int(t->scalar_type()));
      out.tag = Tag::Tensor;
      out.dtype = static_cast<ScalarType>(t->scalar_type());
      if (t->sizes()) out.sizes.assign(t->sizes()->begin(), t->sizes()->end());
      if (t->dim_order()) out.dim_order.assign(t->dim_order()->begin(), t->dim_order()->end());
      if (out.dim_order.empty())
        for (size_t i = 0; i < out.sizes.size(); ++i) out.dim_order.push_back(uint8_t(i));
      if (t->data()) out.data = {t->data()->data(), t->data()->size()};
      auto layout = Tensor::make(out.dtype, out.sizes, out.dim_order, nullptr);
      if (!layout.ok())
        return make_error(Error::InvalidProgram, "bundled ", role, " ", index, ": ", layout.status().message());
      if (layout->nbytes() != out.data.size())
        return make_error(Error::InvalidProgram, "bundled ", role, " ", index, ": ", out.data.size(),
                          " data bytes for a tensor of ", layout->nbytes());
      break;
    }
    case bp::ValueUnion::Int: out.tag = Tag::Int; out.int_value = v->val_as_Int()->int_val(); break;
    case bp::ValueUnion::Bool: out.tag = Tag::Bool; out.bool_value = v->val_as_Bool()->bool_val(); break;
    case bp::ValueUnion::Double: out.tag = Tag::Double; out.double_value = v->val_as_Double()->double_val(); break;
    default:
      return make_error(Error::InvalidProgram, "bundled ", role, " ", index, " has unknown value type ",
                        int(v->val_type()));
  }
  return out;
}

Result<std::unique_ptr<BundledProgram>> BundledProgram::parse(std::span<const uint8_t> bytes) {
  return detail::guard_api("BundledProgram::parse", [&]() -> Result<std::unique_ptr<BundledProgram>> {
    if (!is_bundled(bytes)) return make_error(Error::InvalidProgram, "not a bundled program (no 'BP08' identifier)");
    flatbuffers::Verifier verifier(bytes.data(), bytes.size());
    if (!verifier.VerifyBuffer<bp::BundledProgram>("BP08"))
      return make_error(Error::InvalidProgram, "bundled program FlatBuffer failed verification");
    const auto* root = bp::GetBundledProgram(bytes.data());
    std::unique_ptr<BundledProgram> out(new BundledProgram());
    if (!root->program() || root->program()->size() == 0)
      return make_error(Error::InvalidProgram, "bundled program holds no program");
    out->program_ = {root->program()->data(), root->program()->size()};
    if (const auto* suites = root->method_test_suites()) {
      for (const auto* s : *suites) {
        BundledTestSuite suite;
        suite.method_name = s->method_name() ? s->method_name()->str() : "";
        if (const auto* cases = s->test_cases()) {
          for (const auto* c : *cases) {
            BundledTestCase tc;
            size_t i = 0;
            if (c->inputs())
              for (const auto* v : *c->inputs()) {
                VKRT_ASSIGN_OR_RETURN(auto bv, parse_value(v, "input", i++));
                tc.inputs.push_back(std::move(bv));
              }
            i = 0;
            if (c->expected_outputs())
              for (const auto* v : *c->expected_outputs()) {
                VKRT_ASSIGN_OR_RETURN(auto bv, parse_value(v, "expected output", i++));
                tc.expected_outputs.push_back(std::move(bv));
              }
            suite.test_cases.push_back(std::move(tc));
          }
        }
        out->suites_.push_back(std::move(suite));
      }
    }
    return out;
  });
}

const BundledTestSuite* BundledProgram::find_suite(const std::string& method) const {
  for (const auto& s : suites_)
    if (s.method_name == method) return &s;
  return nullptr;
}

Status load_bundled_inputs(Method& method, const BundledTestCase& tc) {
  return detail::guard_api("load_bundled_inputs", [&]() -> Status {
    if (tc.inputs.size() != method.num_inputs())
      return make_error(Error::InvalidArgument, "test case has ", tc.inputs.size(), " inputs, method ",
                        method.meta().name, " takes ", method.num_inputs());
    for (size_t i = 0; i < tc.inputs.size(); ++i) {
      const BundledValue& v = tc.inputs[i];
      EValue ev;
      Tensor t;
      switch (v.tag) {
        case Tag::Tensor: {
          VKRT_ASSIGN_OR_RETURN(t, Tensor::make(v.dtype, v.sizes, v.dim_order, const_cast<uint8_t*>(v.data.data())));
          ev = EValue::from_tensor(&t);
          break;
        }
        case Tag::Int: ev = EValue::from_int(v.int_value); break;
        case Tag::Bool: ev = EValue::from_bool(v.bool_value); break;
        case Tag::Double: ev = EValue::from_double(v.double_value); break;
        default: break;
      }
      // Planned inputs are copied; unplanned ones keep pointing into the .bpte, which outlives the run.
      VKRT_RETURN_IF_ERROR(method.set_input(i, ev));
    }
    return Status::ok();
  });
}

Result<BundledComparison> verify_bundled_outputs(const Method& method, const BundledTestCase& tc, double rtol,
                                                 double atol) {
  return detail::guard_api("verify_bundled_outputs", [&]() -> Result<BundledComparison> {
    if (tc.expected_outputs.size() != method.num_outputs())
      return make_error(Error::InvalidArgument, "test case expects ", tc.expected_outputs.size(),
                        " outputs, method has ", method.num_outputs());
    OutputComparer comparer(rtol, atol);
    for (size_t o = 0; o < tc.expected_outputs.size(); ++o) {
      const BundledValue& want = tc.expected_outputs[o];
      const EValue& got = method.output(o);
      const std::string name = "output " + std::to_string(o);
      switch (want.tag) {
        case Tag::Int: comparer.compare_scalar(name, got, EValue::from_int(want.int_value)); continue;
        case Tag::Bool: comparer.compare_scalar(name, got, EValue::from_bool(want.bool_value)); continue;
        case Tag::Double: comparer.compare_scalar(name, got, EValue::from_double(want.double_value)); continue;
        case Tag::Tensor: break;
        default:
          if (got.tag() != want.tag)
            comparer.fail(name + ": expected " + tag_name(want.tag) + ", got " + tag_name(got.tag()));
          continue;
      }
      if (!got.is_tensor()) {
        comparer.fail(name + ": expected Tensor, got " + tag_name(got.tag()));
        continue;
      }
      const Tensor& t = got.to_tensor();
      bool same_sizes = t.rank() == int(want.sizes.size());
      for (int d = 0; same_sizes && d < t.rank(); ++d) same_sizes = t.size(d) == want.sizes[size_t(d)];
      if (t.dtype() != want.dtype || !same_sizes || t.nbytes() != want.data.size()) {
        comparer.fail(name + ": dtype or sizes differ from the expected tensor");
        continue;
      }
      comparer.compare_tensor(name, t.dtype(), t.numel(), t.data(), want.data.data());
    }
    return comparer.result();
  });
}

}  // namespace vkrt
