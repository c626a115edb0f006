// Decoding the writer's output with the generated tables gives back what was written: every
// value kind, every instruction kind, several methods; and build() reports inconsistent
// programs with InvalidArgument naming the place (unless validation is turned off).
#include <gtest/gtest.h>

#include "pte_bytes.h"
#include "vkrt/pte_writer.h"

namespace vkrt::testing {
namespace {

TEST(PteDecode, EveryValueKind) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t none = m.add_none();
  int32_t i = m.add_int(-5000000000LL);
  int32_t d = m.add_double(2.5);
  int32_t b = m.add_bool(true);
  int32_t s = m.add_string("hello");
  int32_t il = m.add_int_list({3, -1});  // boxed: adds Int 3 and Int -1 first
  int32_t dl = m.add_double_list({0.25, -8.0});
  int32_t bl = m.add_bool_list({true, false, true});
  TensorSpec spec = TensorSpec::make(ScalarType::Char, {1, 64, 25, 5}).with_dim_order({0, 2, 3, 1}).dynamic_bound();
  spec.planned = PlannedLocation{2, (uint64_t(3) << 32) + 48};  // 64-bit offset -> low/high words
  int32_t t = m.add_tensor(spec);
  int32_t ext = m.add_tensor(TensorSpec::make(ScalarType::Float, {2, 2}).external("linear.weight"));
  int32_t tl = m.add_tensor_list({t, ext});
  int32_t otl = m.add_optional_tensor_list({t, -1});
  m.set_inputs({t, i, d}).set_outputs({s});
  m.set_planned_buffer_sizes({0, int64_t((uint64_t(4) << 32))});
  m.set_container_meta("[1, in]", "[1, out]");
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());

  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->execution_plan()->size(), 1u);
  const et::ExecutionPlan* plan = p->execution_plan()->Get(0);
  EXPECT_EQ(plan->name()->str(), "forward");
  EXPECT_EQ(plan->container_meta_type()->encoded_inp_str()->str(), "[1, in]");
  EXPECT_EQ(plan->container_meta_type()->encoded_out_str()->str(), "[1, out]");
  const auto* values = plan->values();
  ASSERT_EQ(int32_t(values->size()), m.num_values());
  EXPECT_EQ(values->Get(none)->val_type(), et::KernelTypes::Null);
  EXPECT_EQ(values->Get(i)->val_as_Int()->int_val(), -5000000000LL);
  EXPECT_EQ(values->Get(d)->val_as_Double()->double_val(), 2.5);
  EXPECT_TRUE(values->Get(b)->val_as_Bool()->bool_val());
  EXPECT_EQ(values->Get(s)->val_as_String()->string_val()->str(), "hello");

  std::vector<int64_t> items = to_vector(values->Get(il)->val_as_IntList()->items());
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(values->Get(flatbuffers::uoffset_t(items[0]))->val_as_Int()->int_val(), 3);
  EXPECT_EQ(values->Get(flatbuffers::uoffset_t(items[1]))->val_as_Int()->int_val(), -1);
  EXPECT_EQ(to_vector(values->Get(dl)->val_as_DoubleList()->items()), (std::vector<double>{0.25, -8.0}));
  const auto* bools = values->Get(bl)->val_as_BoolList()->items();
  ASSERT_EQ(bools->size(), 3u);
  EXPECT_TRUE(bools->Get(0));
  EXPECT_FALSE(bools->Get(1));
  EXPECT_TRUE(bools->Get(2));

  const et::Tensor* tensor = values->Get(t)->val_as_Tensor();
  EXPECT_EQ(tensor->scalar_type(), et::ScalarType::CHAR);
  EXPECT_EQ(to_vector(tensor->sizes()), (std::vector<int32_t>{1, 64, 25, 5}));
  EXPECT_EQ(to_vector(tensor->dim_order()), (std::vector<uint8_t>{0, 2, 3, 1}));
  EXPECT_EQ(tensor->shape_dynamism(), et::TensorShapeDynamism::DYNAMIC_BOUND);
  EXPECT_EQ(tensor->storage_offset(), 0);
  EXPECT_EQ(tensor->data_buffer_idx(), 0u);
  EXPECT_EQ(tensor->allocation_info()->memory_id(), 2u);
  EXPECT_EQ(tensor->allocation_info()->memory_offset_low(), 48u);
  EXPECT_EQ(tensor->allocation_info()->memory_offset_high(), 3u);
  EXPECT_EQ(tensor->extra_tensor_info(), nullptr);

  const et::Tensor* external = values->Get(ext)->val_as_Tensor();
  EXPECT_EQ(to_vector(external->dim_order()), (std::vector<uint8_t>{0, 1})) << "default dim order";
  EXPECT_EQ(external->allocation_info(), nullptr);
  ASSERT_NE(external->extra_tensor_info(), nullptr);
  EXPECT_EQ(external->extra_tensor_info()->fully_qualified_name()->str(), "linear.weight");
  EXPECT_EQ(external->extra_tensor_info()->location(), et::TensorDataLocation::EXTERNAL);

  EXPECT_EQ(to_vector(values->Get(tl)->val_as_TensorList()->items()), (std::vector<int32_t>{t, ext}));
  EXPECT_EQ(to_vector(values->Get(otl)->val_as_OptionalTensorList()->items()), (std::vector<int32_t>{t, -1}));
  EXPECT_EQ(to_vector(plan->inputs()), (std::vector<int32_t>{t, i, d}));
  EXPECT_EQ(to_vector(plan->outputs()), (std::vector<int32_t>{s}));
  EXPECT_EQ(to_vector(plan->non_const_buffer_sizes()), (std::vector<int64_t>{0, 0, int64_t(uint64_t(4) << 32)}));
}

TEST(PteDecode, EveryInstructionKind) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t x = m.add_planned_tensor(ScalarType::Float, {4});
  int32_t y = m.add_planned_tensor(ScalarType::Float, {4});
  int32_t cond = m.add_bool(false);
  int32_t del = m.add_delegate("VgfBackend", {1, 2, 3});
  EXPECT_EQ(m.add_kernel_call("aten::relu.out", {x, y, y}), 0);
  EXPECT_EQ(m.add_delegate_call(del, {x, y}), 1);
  EXPECT_EQ(m.add_move(y, x), 2);
  EXPECT_EQ(m.add_jump_false(cond, 4), 3);
  EXPECT_EQ(m.add_free(y), 4);
  EXPECT_EQ(m.num_instructions(), 5);
  m.set_inputs({x}).set_outputs({y});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());

  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  const et::ExecutionPlan* plan = p->execution_plan()->Get(0);
  ASSERT_EQ(plan->chains()->size(), 1u);
  const auto* code = plan->chains()->Get(0)->instructions();
  ASSERT_EQ(code->size(), 5u);
  const auto* k = code->Get(0)->instr_args_as_KernelCall();
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->op_index(), 0);
  EXPECT_EQ(to_vector(k->args()), (std::vector<int32_t>{x, y, y}));
  EXPECT_EQ(plan->operators()->Get(0)->name()->str(), "aten::relu");
  EXPECT_EQ(plan->operators()->Get(0)->overload()->str(), "out");
  const auto* dc = code->Get(1)->instr_args_as_DelegateCall();
  ASSERT_NE(dc, nullptr);
  EXPECT_EQ(dc->delegate_index(), del);
  EXPECT_EQ(to_vector(dc->args()), (std::vector<int32_t>{x, y}));
  const auto* mv = code->Get(2)->instr_args_as_MoveCall();
  ASSERT_NE(mv, nullptr);
  EXPECT_EQ(mv->move_from(), y);
  EXPECT_EQ(mv->move_to(), x);
  const auto* jf = code->Get(3)->instr_args_as_JumpFalseCall();
  ASSERT_NE(jf, nullptr);
  EXPECT_EQ(jf->cond_value_index(), cond);
  EXPECT_EQ(jf->destination_instruction(), 4);
  const auto* fr = code->Get(4)->instr_args_as_FreeCall();
  ASSERT_NE(fr, nullptr);
  EXPECT_EQ(fr->value_index(), y);
}

TEST(PteDecode, KernelNamesSplitIntoNameAndOverload) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t v = m.add_int(0);
  EXPECT_EQ(m.add_kernel_call("aten::add.out", {v}), 0);
  m.add_kernel_call("dim_order_ops::_clone_dim_order.out", {v});
  m.add_kernel_call("aten::eq.Scalar_out", {v});
  m.add_kernel_call("my_ns::no_overload", {v});
  m.add_kernel_call("aten::add.out", {v});  // same operator again: not added twice
  EXPECT_EQ(m.add_operator("aten::add", "out"), 0);
  m.set_outputs({v});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  const auto* ops = p->execution_plan()->Get(0)->operators();
  ASSERT_EQ(ops->size(), 4u);
  const std::pair<const char*, const char*> expect[] = {
      {"aten::add", "out"}, {"dim_order_ops::_clone_dim_order", "out"}, {"aten::eq", "Scalar_out"}, {"my_ns::no_overload", ""}};
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ops->Get(i)->name()->str(), expect[i].first);
    EXPECT_EQ(ops->Get(i)->overload()->str(), expect[i].second);
  }
  const auto* code = p->execution_plan()->Get(0)->chains()->Get(0)->instructions();
  EXPECT_EQ(code->Get(4)->instr_args_as_KernelCall()->op_index(), 0);
}

TEST(PteDecode, OneOpProgramLayout) {
  constexpr ScalarType F = ScalarType::Float;
  ASSERT_OK_AND_ASSIGN(
      std::vector<uint8_t> file,
      make_one_op_program("quantized_decomposed::dequantize_per_tensor.out",
                          {OpArg::input(ScalarType::Char, {4}), OpArg::real(0.5), OpArg::integer(-3), OpArg::integer(-128),
                           OpArg::integer(127), OpArg::integer(1), OpArg::none(), OpArg::output(F, {4})}));
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  const et::ExecutionPlan* plan = p->execution_plan()->Get(0);
  EXPECT_EQ(plan->operators()->Get(0)->name()->str(), "quantized_decomposed::dequantize_per_tensor");
  EXPECT_EQ(plan->operators()->Get(0)->overload()->str(), "out");
  const auto* call = plan->chains()->Get(0)->instructions()->Get(0)->instr_args_as_KernelCall();
  ASSERT_NE(call, nullptr);
  // 8 schema arguments then the return slot repeating the out tensor.
  EXPECT_EQ(to_vector(call->args()), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 7}));
  EXPECT_EQ(to_vector(plan->inputs()), (std::vector<int32_t>{0}));
  EXPECT_EQ(to_vector(plan->outputs()), (std::vector<int32_t>{7}));
  EXPECT_EQ(plan->values()->Get(1)->val_as_Double()->double_val(), 0.5);
  EXPECT_EQ(plan->values()->Get(6)->val_type(), et::KernelTypes::Null);
  const auto* out = plan->values()->Get(7)->val_as_Tensor();
  EXPECT_EQ(out->allocation_info()->memory_offset_low(), 16u) << "int8[4] input at 0, output at 16";

  auto no_output = make_one_op_program("aten::relu.out", {OpArg::input(F, {1})});
  EXPECT_EQ(no_output.error(), Error::InvalidArgument);
}

TEST(PteDecode, SeveralMethodsShareTheConstants) {
  ProgramBuilder program;
  MethodBuilder& fwd = program.add_method("forward");
  int32_t c = fwd.add_constant_tensor<int64_t>({3}, {1, 2, 3});
  fwd.set_outputs({c});
  MethodBuilder& get = program.add_method("get_scalar");
  get.set_outputs({get.add_int(128)});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->execution_plan()->size(), 2u);
  EXPECT_EQ(p->execution_plan()->Get(0)->name()->str(), "forward");
  EXPECT_EQ(p->execution_plan()->Get(1)->name()->str(), "get_scalar");
  EXPECT_EQ(p->execution_plan()->Get(1)->values()->Get(0)->val_as_Int()->int_val(), 128);
  EXPECT_EQ(p->execution_plan()->Get(1)->chains()->Get(0)->instructions()->size(), 0u);
  EXPECT_EQ(to_vector(p->execution_plan()->Get(1)->non_const_buffer_sizes()), (std::vector<int64_t>{0}));
  EXPECT_EQ(segment_bytes(file, p, 0), to_bytes(std::vector<int64_t>{1, 2, 3}));
}

TEST(PteDecode, DerivedPlannedSizesCoverEveryBuffer) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t a = m.add_planned_tensor(ScalarType::Float, {5});      // buffer 1 @0, 20 B
  int32_t b = m.add_planned_tensor(ScalarType::Char, {3}, 3);    // buffer 3 @0, 3 B
  int32_t c = m.add_planned_tensor(ScalarType::Short, {2}, 3);   // buffer 3 @16, 4 B
  m.set_outputs({a, b, c});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  const auto* values = p->execution_plan()->Get(0)->values();
  EXPECT_EQ(values->Get(c)->val_as_Tensor()->allocation_info()->memory_id(), 3u);
  EXPECT_EQ(values->Get(c)->val_as_Tensor()->allocation_info()->memory_offset_low(), 16u);
  EXPECT_EQ(to_vector(p->execution_plan()->Get(0)->non_const_buffer_sizes()), (std::vector<int64_t>{0, 32, 0, 32}));
}

// --- errors -----------------------------------------------------------------------------------

// Builds and expects InvalidArgument with `needle` in the message.
void expect_rejected(const ProgramBuilder& program, const std::string& needle) {
  auto r = program.build();
  ASSERT_FALSE(r.ok()) << "expected an error mentioning '" << needle << "'";
  EXPECT_EQ(r.error(), Error::InvalidArgument) << r.status().to_string();
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().to_string();
}

TEST(PteErrors, IndicesOutOfRange) {
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    int32_t v = m.add_int(1);
    m.add_kernel_call("aten::add.out", {v, 7});
    expect_rejected(program, "method 'forward': instruction 0: arg 1 = 7 out of range (1 values)");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.add_kernel_call(3, {});
    expect_rejected(program, "op_index 3 out of range");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.add_delegate_call(0, {});
    expect_rejected(program, "delegate_index 0 out of range (0 delegates)");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.set_inputs({0});
    expect_rejected(program, "input 0 = value 0 out of range");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.set_outputs({-1});
    expect_rejected(program, "output 0 = value -1 out of range");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.add_jump_false(m.add_bool(true), 5);
    expect_rejected(program, "jump destination 5 out of range");
  }
}

TEST(PteErrors, WrongKindsOfValues) {
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.add_int_list_of_values({m.add_double(1.0)});
    expect_rejected(program, "value 1 (IntList): item 0 = 0 is not the index of an Int value");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.add_tensor_list({m.add_int(1)});
    expect_rejected(program, "is not the index of a Tensor value");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.add_jump_false(m.add_int(1), 0);
    expect_rejected(program, "is Int, not Bool or a Bool tensor");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.add_free(m.add_int(1));
    expect_rejected(program, "which is not a Tensor value");
  }
}

TEST(PteErrors, BadTensors) {
  {
    ProgramBuilder program;
    program.add_method("forward").add_tensor(TensorSpec::make(ScalarType::Float, {2, 3}).with_dim_order({0, 0}));
    expect_rejected(program, "dim_order is not a permutation");
  }
  {
    ProgramBuilder program;
    program.add_method("forward").add_tensor(TensorSpec::make(ScalarType::Float, {2, -3}));
    expect_rejected(program, "size[1] = -3 is negative");
  }
  {
    ProgramBuilder program;
    program.add_method("forward").add_tensor(TensorSpec::make(ScalarType(100), {2}));
    expect_rejected(program, "scalar type 100 is not in the schema");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.add_tensor(TensorSpec::make(ScalarType::Float, {8}).at(1, 16));
    m.set_planned_buffer_sizes({32});
    expect_rejected(program, "offset 16 + 32 bytes exceeds planned buffer 1 of 32 bytes");
  }
  {
    ProgramBuilder program;
    program.add_method("forward").add_planned_tensor(ScalarType::Float, {1}, 0);
    expect_rejected(program, "memory_id 0 is not a planned buffer");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    m.add_constant_tensor(TensorSpec::make(ScalarType::Float, {4}), std::vector<uint8_t>(8));
    expect_rejected(program, "constant 1 holds 8 bytes, tensor needs 16");
  }
  {
    ProgramBuilder program;
    MethodBuilder& m = program.add_method("forward");
    TensorSpec spec = TensorSpec::make(ScalarType::Float, {1});
    spec.data_buffer_idx = 4;
    m.add_tensor(spec);
    expect_rejected(program, "constant index 4 out of range (0 constants)");
  }
}

TEST(PteErrors, DuplicateNames) {
  {
    ProgramBuilder program;
    program.add_method("forward");
    program.add_method("forward");
    expect_rejected(program, "duplicate method name 'forward'");
  }
  {
    ProgramBuilder program;
    program.add_method("forward");
    program.add_named_data("k", std::vector<uint8_t>{1});
    program.add_named_data("k", std::vector<uint8_t>{2});
    expect_rejected(program, "duplicate named_data key 'k'");
  }
}

TEST(PteErrors, ValidationOffStillWritesAVerifiableFile) {
  ProgramBuilder program(PteWriteOptions{.validate = false});
  MethodBuilder& m = program.add_method("forward");
  TensorSpec spec = TensorSpec::make(ScalarType::Float, {4}).at(9, 1000);
  spec.storage_offset = 3;
  m.add_tensor(spec);
  m.add_kernel_call(42, {100});
  m.set_inputs({55});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  const et::ExecutionPlan* plan = p->execution_plan()->Get(0);
  EXPECT_EQ(plan->values()->Get(0)->val_as_Tensor()->storage_offset(), 3);
  EXPECT_EQ(plan->values()->Get(0)->val_as_Tensor()->allocation_info()->memory_id(), 9u);
  EXPECT_EQ(plan->chains()->Get(0)->instructions()->Get(0)->instr_args_as_KernelCall()->op_index(), 42);
  EXPECT_EQ(to_vector(plan->inputs()), (std::vector<int32_t>{55}));
}

TEST(PteErrors, BuildIsRepeatable) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  m.set_outputs({m.add_constant_tensor<float>({2}, {1.f, 2.f})});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> a, program.build());
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> b, program.build());
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace vkrt::testing
