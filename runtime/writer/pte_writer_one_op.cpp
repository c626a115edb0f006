// make_one_op_program: the few-lines way for kernel tests to get a runnable program.
#include "vkrt/pte_writer.h"

namespace vkrt {

namespace {
OpArg tensor_arg(OpArg::Kind kind, ScalarType dtype, std::vector<int32_t> sizes) {
  OpArg a;
  a.kind = kind;
  a.tensor = TensorSpec::make(dtype, std::move(sizes));
  return a;
}
}  // namespace

OpArg OpArg::input(ScalarType dtype, std::vector<int32_t> sizes) { return tensor_arg(Kind::Input, dtype, std::move(sizes)); }
OpArg OpArg::output(ScalarType dtype, std::vector<int32_t> sizes) { return tensor_arg(Kind::Output, dtype, std::move(sizes)); }

OpArg OpArg::constant(TensorSpec spec, std::vector<uint8_t> data) {
  OpArg a;
  a.kind = Kind::Constant;
  a.tensor = std::move(spec);
  a.data = std::move(data);
  return a;
}

OpArg OpArg::none() { return OpArg{}; }

OpArg OpArg::integer(int64_t v) {
  OpArg a;
  a.kind = Kind::Int;
  a.int_val = v;
  return a;
}

OpArg OpArg::real(double v) {
  OpArg a;
  a.kind = Kind::Double;
  a.double_val = v;
  return a;
}

OpArg OpArg::boolean(bool v) {
  OpArg a;
  a.kind = Kind::Bool;
  a.bool_val = v;
  return a;
}

OpArg OpArg::string(std::string v) {
  OpArg a;
  a.kind = Kind::String;
  a.string_val = std::move(v);
  return a;
}

OpArg OpArg::int_list(std::vector<int64_t> v) {
  OpArg a;
  a.kind = Kind::IntList;
  a.int_items = std::move(v);
  return a;
}

OpArg OpArg::double_list(std::vector<double> v) {
  OpArg a;
  a.kind = Kind::DoubleList;
  a.double_items = std::move(v);
  return a;
}

OpArg OpArg::bool_list(std::vector<bool> v) {
  OpArg a;
  a.kind = Kind::BoolList;
  a.bool_items = std::move(v);
  return a;
}

Result<std::vector<uint8_t>> make_one_op_program(std::string_view kernel_name, std::vector<OpArg> args,
                                                 PteWriteOptions options) {
  ProgramBuilder program(options);
  MethodBuilder& m = program.add_method("forward");
  std::vector<int32_t> call_args, inputs, outputs;
  for (OpArg& a : args) {
    int32_t index = -1;
    switch (a.kind) {
      case OpArg::Kind::Input:
      case OpArg::Kind::Output:
        index = m.add_planned_tensor(a.tensor.dtype, a.tensor.sizes);
        (a.kind == OpArg::Kind::Input ? inputs : outputs).push_back(index);
        break;
      case OpArg::Kind::Constant: index = m.add_constant_tensor(std::move(a.tensor), a.data); break;
      case OpArg::Kind::None: index = m.add_none(); break;
      case OpArg::Kind::Int: index = m.add_int(a.int_val); break;
      case OpArg::Kind::Double: index = m.add_double(a.double_val); break;
      case OpArg::Kind::Bool: index = m.add_bool(a.bool_val); break;
      case OpArg::Kind::String: index = m.add_string(std::move(a.string_val)); break;
      case OpArg::Kind::IntList: index = m.add_int_list(a.int_items); break;
      case OpArg::Kind::DoubleList: index = m.add_double_list(std::move(a.double_items)); break;
      case OpArg::Kind::BoolList: index = m.add_bool_list(std::move(a.bool_items)); break;
    }
    call_args.push_back(index);
  }
  VKRT_CHECK_OR_RETURN(!outputs.empty(), InvalidArgument, "one-op program for ", std::string(kernel_name),
                       " has no OpArg::output");
  // The trailing return slot (pte-format §9.5): the out tensor for .out variants.
  call_args.push_back(outputs.size() == 1 ? outputs[0] : m.add_tensor_list(outputs));
  m.add_kernel_call(kernel_name, std::move(call_args));
  m.set_inputs(std::move(inputs)).set_outputs(std::move(outputs));
  return program.build();
}

}  // namespace vkrt
