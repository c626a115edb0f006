// Rebuilding real files (shared/conformance/pte, written by exir) with the writer:
// - the container layer (assemble_pte / assemble_ptd) reproduces every real file byte for byte
//   from its FlatBuffer tables and segment bytes (header fields, padding, segment placement);
// - the builders, given the content of a real program, produce the same header form, segment
//   table, constant offsets, segment bytes and tables.
#include <gtest/gtest.h>

#include <filesystem>

#include "pte_bytes.h"
#include "vkrt/pte_writer.h"

namespace vkrt::testing {
namespace {

constexpr const char* kAddModel = "pte/executorch__examples_arduino_examples_AddModel_model.pte";
constexpr const char* kBundled = "pte/executorch__extension_module_test_resources_bundled_program.bpte";
constexpr const char* kDataMapPtd = "pte/barakugav_executorch-rs__examples_data_map_model__default_external_constant.ptd";

// Splits a .pte with eh00 into (FlatBuffer without header, segment block) and reassembles it.
void expect_pte_reassembles(const std::vector<uint8_t>& file, const std::string& name) {
  SCOPED_TRACE(name);
  ExtendedHeader h = read_eh00(file);
  ASSERT_TRUE(h.present);
  ASSERT_LE(h.program_size, file.size());
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  std::vector<uint8_t> flatbuffer(file.begin(), file.begin() + 8);
  const uint32_t root = u32_at(file, 0) - 32;
  std::memcpy(flatbuffer.data(), &root, 4);
  flatbuffer.insert(flatbuffer.end(), file.begin() + 40, file.begin() + h.program_size);
  // The segment block ends with the last segment (no trailing padding).
  uint64_t segment_end = 0;
  if (p->segments() != nullptr) {
    for (const auto* s : *p->segments()) segment_end = std::max<uint64_t>(segment_end, s->offset() + s->size());
  }
  if (h.length >= 32) {
    EXPECT_EQ(h.segment_data_size, segment_end);
  }
  ASSERT_EQ(h.segment_base_offset + segment_end, file.size());
  std::vector<uint8_t> segments(file.begin() + h.segment_base_offset, file.end());

  PteWriteOptions options;
  options.header_form = h.length >= 32 ? PteHeaderForm::Current32 : PteHeaderForm::Legacy24;
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> rebuilt, assemble_pte(flatbuffer, segments, options));
  EXPECT_EQ(rebuilt.size(), file.size());
  EXPECT_TRUE(rebuilt == file) << "reassembled file differs";
}

TEST(ConformanceRebuild, AddModelContainerByteForByte) {
  VKRT_REQUIRE_CONFORMANCE(path, kAddModel);
  std::vector<uint8_t> file = read_file(path);
  // The facts of pte-format §2 about this file, read by hand.
  ExtendedHeader h = read_eh00(file);
  EXPECT_EQ(u32_at(file, 0), 0x3cu);
  EXPECT_EQ(h.length, 0x20u);
  EXPECT_EQ(h.program_size, 0x410u);
  EXPECT_EQ(h.segment_base_offset, 0x480u);
  EXPECT_EQ(h.segment_data_size, 4u);
  expect_pte_reassembles(file, kAddModel);
}

TEST(ConformanceRebuild, EveryRealProgramWithHeaderReassembles) {
  VKRT_REQUIRE_CONFORMANCE(dir, "pte");
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pte") continue;
    std::vector<uint8_t> file = read_file(entry.path().string());
    if (file.size() < 64 || str_at(file, 4, 4) != "ET12" || !read_eh00(file).present) continue;
    expect_pte_reassembles(file, entry.path().filename().string());
    ++count;
  }
  EXPECT_GE(count, 10) << "expected the conformance programs with eh00 headers";
}

TEST(ConformanceRebuild, BundledInnerProgramWith24ByteHeader) {
  VKRT_REQUIRE_CONFORMANCE(path, kBundled);
  std::vector<uint8_t> file = read_file(path);
  const bp::BundledProgram* b = verified_bundled(file);
  ASSERT_NE(b, nullptr);
  std::vector<uint8_t> inner = to_vector(b->program());
  ExtendedHeader h = read_eh00(inner);
  ASSERT_TRUE(h.present);
  EXPECT_EQ(h.length, 24u);
  EXPECT_EQ(h.program_size, 0x630u);
  EXPECT_EQ(h.segment_base_offset, 0x680u);
  expect_pte_reassembles(inner, "bundled inner program");
}

TEST(ConformanceRebuild, DataMapPtdContainerByteForByte) {
  VKRT_REQUIRE_CONFORMANCE(path, kDataMapPtd);
  std::vector<uint8_t> file = read_file(path);
  ASSERT_EQ(str_at(file, 8, 4), "FH01");
  const uint64_t fb_offset = u64_at(file, 16), fb_size = u64_at(file, 24);
  const uint64_t base = u64_at(file, 32), data_size = u64_at(file, 40);
  ASSERT_EQ(u32_at(file, 12), 40u);
  ASSERT_EQ(fb_offset, 48u);
  ASSERT_EQ(base + data_size, file.size());
  std::vector<uint8_t> flatbuffer(file.begin(), file.begin() + 8);
  const uint32_t root = u32_at(file, 0) - 40;
  std::memcpy(flatbuffer.data(), &root, 4);
  flatbuffer.insert(flatbuffer.end(), file.begin() + fb_offset, file.begin() + fb_offset + fb_size);
  std::vector<uint8_t> segments(file.begin() + base, file.end());
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> rebuilt, assemble_ptd(flatbuffer, segments));
  EXPECT_TRUE(rebuilt == file) << "reassembled .ptd differs";
}

// The AddModel content (out = x + 1.0, x f32[3]) through the builder.
TEST(ConformanceRebuild, AddModelContentThroughTheBuilder) {
  VKRT_REQUIRE_CONFORMANCE(path, kAddModel);
  std::vector<uint8_t> real = read_file(path);
  const et::Program* rp = verified_program(real);
  ASSERT_NE(rp, nullptr);

  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  m.add_constant_tensor<float>({}, {1.0f});
  int32_t x = m.add_tensor(TensorSpec::make(ScalarType::Float, {3}).at(1, 16));
  int32_t out = m.add_tensor(TensorSpec::make(ScalarType::Float, {3}).at(1, 0));
  int32_t alpha = m.add_int(1);
  m.add_kernel_call("aten::add.out", {x, 0, alpha, out, out});
  m.set_inputs({x}).set_outputs({out});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> ours, program.build());
  const et::Program* op = verified_program(ours);
  ASSERT_NE(op, nullptr);

  // Container: same header form and segment placement rule, same segment table and bytes.
  ExtendedHeader rh = read_eh00(real), oh = read_eh00(ours);
  EXPECT_EQ(oh.length, rh.length);
  EXPECT_EQ(oh.segment_data_size, rh.segment_data_size);
  EXPECT_EQ(rh.segment_base_offset, round_up(rh.program_size, 128));
  EXPECT_EQ(oh.segment_base_offset, round_up(oh.program_size, 128));
  EXPECT_EQ(std::vector<uint8_t>(ours.begin() + oh.segment_base_offset, ours.end()),
            std::vector<uint8_t>(real.begin() + rh.segment_base_offset, real.end()));
  ASSERT_EQ(op->segments()->size(), rp->segments()->size());
  EXPECT_EQ(op->segments()->Get(0)->offset(), rp->segments()->Get(0)->offset());
  EXPECT_EQ(op->segments()->Get(0)->size(), rp->segments()->Get(0)->size());
  EXPECT_EQ(to_vector(op->constant_segment()->offsets()), to_vector(rp->constant_segment()->offsets()));

  // Tables: same values, instruction, operator and memory plan.
  const et::ExecutionPlan* r = rp->execution_plan()->Get(0);
  const et::ExecutionPlan* o = op->execution_plan()->Get(0);
  EXPECT_EQ(o->name()->str(), r->name()->str());
  ASSERT_EQ(o->values()->size(), r->values()->size());
  for (uint32_t i = 0; i < r->values()->size(); ++i) {
    SCOPED_TRACE("value " + std::to_string(i));
    const et::EValue* rv = r->values()->Get(i);
    const et::EValue* ov = o->values()->Get(i);
    ASSERT_EQ(ov->val_type(), rv->val_type());
    if (rv->val_type() == et::KernelTypes::Int) {
      EXPECT_EQ(ov->val_as_Int()->int_val(), rv->val_as_Int()->int_val());
    }
    if (rv->val_type() != et::KernelTypes::Tensor) continue;
    const et::Tensor* rt = rv->val_as_Tensor();
    const et::Tensor* ot = ov->val_as_Tensor();
    EXPECT_EQ(ot->scalar_type(), rt->scalar_type());
    EXPECT_EQ(to_vector(ot->sizes()), to_vector(rt->sizes()));
    EXPECT_EQ(to_vector(ot->dim_order()), to_vector(rt->dim_order()));
    EXPECT_EQ(ot->data_buffer_idx(), rt->data_buffer_idx());
    ASSERT_EQ(ot->allocation_info() == nullptr, rt->allocation_info() == nullptr);
    if (rt->allocation_info() != nullptr) {
      EXPECT_EQ(ot->allocation_info()->memory_id(), rt->allocation_info()->memory_id());
      EXPECT_EQ(ot->allocation_info()->memory_offset_low(), rt->allocation_info()->memory_offset_low());
    }
  }
  EXPECT_EQ(to_vector(o->inputs()), to_vector(r->inputs()));
  EXPECT_EQ(to_vector(o->outputs()), to_vector(r->outputs()));
  EXPECT_EQ(to_vector(o->non_const_buffer_sizes()), to_vector(r->non_const_buffer_sizes()));
  EXPECT_EQ(o->operators()->Get(0)->name()->str(), r->operators()->Get(0)->name()->str());
  EXPECT_EQ(o->operators()->Get(0)->overload()->str(), r->operators()->Get(0)->overload()->str());
  const auto* rk = r->chains()->Get(0)->instructions()->Get(0)->instr_args_as_KernelCall();
  const auto* ok = o->chains()->Get(0)->instructions()->Get(0)->instr_args_as_KernelCall();
  EXPECT_EQ(to_vector(ok->args()), to_vector(rk->args()));
}

// The data_map .ptd content (a = 3.0 x4, b = 2.0 x4, f32[2,2]) through FlatTensorBuilder.
TEST(ConformanceRebuild, DataMapPtdContentThroughTheBuilder) {
  VKRT_REQUIRE_CONFORMANCE(path, kDataMapPtd);
  std::vector<uint8_t> real = read_file(path);
  FlatTensorBuilder builder;
  builder.add_tensor<float>("a", {2, 2}, std::vector<float>(4, 3.0f));
  builder.add_tensor<float>("b", {2, 2}, std::vector<float>(4, 2.0f));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> ours, builder.build());

  // Header: same length, flatbuffer offset and segment data; base follows the tables.
  EXPECT_EQ(str_at(ours, 4, 8), str_at(real, 4, 8));  // "FT01FH01"
  EXPECT_EQ(u32_at(ours, 12), u32_at(real, 12));
  EXPECT_EQ(u64_at(ours, 16), u64_at(real, 16));
  EXPECT_EQ(u64_at(ours, 40), u64_at(real, 40));
  EXPECT_EQ(u64_at(ours, 32), round_up(u64_at(ours, 16) + u64_at(ours, 24), 16));
  EXPECT_EQ(std::vector<uint8_t>(ours.begin() + u64_at(ours, 32), ours.end()),
            std::vector<uint8_t>(real.begin() + u64_at(real, 32), real.end()));
  const ft::FlatTensor* rf = verified_flat_tensor(real);
  const ft::FlatTensor* of = verified_flat_tensor(ours);
  ASSERT_NE(rf, nullptr);
  ASSERT_NE(of, nullptr);
  ASSERT_EQ(of->segments()->size(), rf->segments()->size());
  for (uint32_t i = 0; i < rf->segments()->size(); ++i) {
    EXPECT_EQ(of->segments()->Get(i)->offset(), rf->segments()->Get(i)->offset());
    EXPECT_EQ(of->segments()->Get(i)->size(), rf->segments()->Get(i)->size());
  }
  ASSERT_EQ(of->named_data()->size(), rf->named_data()->size());
  for (uint32_t i = 0; i < rf->named_data()->size(); ++i) {
    const auto* rn = rf->named_data()->Get(i);
    const auto* on = of->named_data()->Get(i);
    EXPECT_EQ(on->key()->str(), rn->key()->str());
    EXPECT_EQ(on->segment_index(), rn->segment_index());
    EXPECT_EQ(on->tensor_layout()->scalar_type(), rn->tensor_layout()->scalar_type());
    EXPECT_EQ(to_vector(on->tensor_layout()->sizes()), to_vector(rn->tensor_layout()->sizes()));
    EXPECT_EQ(to_vector(on->tensor_layout()->dim_order()), to_vector(rn->tensor_layout()->dim_order()));
  }
}

}  // namespace
}  // namespace vkrt::testing
