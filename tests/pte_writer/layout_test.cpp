// Byte-level checks of the .pte container the writer produces: root offset, identifier, eh00
// fields, segment placement and alignment, constant offsets. Expected values are computed here
// from pte-format §2, §3 and §7, not taken from the writer.
#include <gtest/gtest.h>

#include "pte_bytes.h"
#include "vkrt/pte_writer.h"

namespace vkrt::testing {
namespace {

// out = x + 1.0 (the shape of the AddModel conformance program): one 4-byte constant.
void build_add_one(ProgramBuilder& program) {
  MethodBuilder& m = program.add_method("forward");
  int32_t one = m.add_constant_tensor<float>({}, {1.0f});
  int32_t x = m.add_tensor(TensorSpec::make(ScalarType::Float, {3}).at(1, 16));
  int32_t out = m.add_tensor(TensorSpec::make(ScalarType::Float, {3}).at(1, 0));
  int32_t alpha = m.add_int(1);
  m.add_kernel_call("aten::add.out", {x, one, alpha, out, out});
  m.set_inputs({x}).set_outputs({out});
  m.set_planned_buffer_sizes({32});
}

TEST(PteLayout, HeaderFieldsWithOneConstant) {
  ProgramBuilder program;
  build_add_one(program);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());

  ASSERT_GE(file.size(), 64u);
  EXPECT_EQ(str_at(file, 4, 4), "ET12");
  ExtendedHeader h = read_eh00(file);
  ASSERT_TRUE(h.present) << "a file with segment data carries eh00";
  EXPECT_EQ(h.length, 32u);
  // The root table lies after the 8-byte preamble and the 32-byte padded header.
  EXPECT_GE(u32_at(file, 0), 40u);
  EXPECT_LT(u32_at(file, 0), h.program_size);
  // program_size counts the whole FlatBuffer, headers included; the FlatBuffer's size is a
  // multiple of its largest alignment, so is program_size: 8 here (the 64-bit fields; the
  // constant is in a segment, so no force_align 16 vector is inline).
  EXPECT_EQ(h.program_size % 8, 0u);
  EXPECT_EQ(h.segment_base_offset, round_up(h.program_size, 128));
  EXPECT_EQ(h.segment_data_size, 4u);
  EXPECT_EQ(file.size(), h.segment_base_offset + 4);
  // Bytes between the program and the segments are zero padding.
  for (size_t i = h.program_size; i < h.segment_base_offset; ++i) ASSERT_EQ(file[i], 0) << i;
  // The constant 1.0f = 00 00 80 3f at the segment base.
  EXPECT_EQ(std::vector<uint8_t>(file.begin() + h.segment_base_offset, file.end()),
            (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3f}));

  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(p->segments(), nullptr);
  ASSERT_EQ(p->segments()->size(), 1u);
  EXPECT_EQ(p->segments()->Get(0)->offset(), 0u);
  EXPECT_EQ(p->segments()->Get(0)->size(), 4u);
  ASSERT_NE(p->constant_segment(), nullptr);
  EXPECT_EQ(p->constant_segment()->segment_index(), 0u);
  EXPECT_EQ(to_vector(p->constant_segment()->offsets()), (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(p->version(), 0u);
}

TEST(PteLayout, RootOffsetMovesByThePaddedHeaderLength) {
  // Same content with and without eh00 (force_header): the tables are identical, only the root
  // offset grows by 32 and 32 bytes are inserted after byte 8.
  ProgramBuilder plain;
  MethodBuilder& m1 = plain.add_method("forward");
  m1.set_outputs({m1.add_int(7)});
  ProgramBuilder forced(PteWriteOptions{.force_header = true});
  MethodBuilder& m2 = forced.add_method("forward");
  m2.set_outputs({m2.add_int(7)});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> a, plain.build());
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> b, forced.build());

  EXPECT_FALSE(read_eh00(a).present);
  ExtendedHeader h = read_eh00(b);
  ASSERT_TRUE(h.present);
  EXPECT_EQ(b.size(), a.size() + 32);
  EXPECT_EQ(u32_at(b, 0), u32_at(a, 0) + 32);
  EXPECT_EQ(h.program_size, b.size());
  EXPECT_EQ(h.segment_base_offset, 0u);
  EXPECT_EQ(h.segment_data_size, 0u);
  EXPECT_EQ(std::vector<uint8_t>(a.begin() + 8, a.end()), std::vector<uint8_t>(b.begin() + 40, b.end()));
  ASSERT_NE(verified_program(b), nullptr);
}

TEST(PteLayout, NoHeaderWithoutSegmentData) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  int32_t x = m.add_planned_tensor(ScalarType::Float, {1});
  int32_t y = m.add_planned_tensor(ScalarType::Float, {1});
  int32_t out = m.add_planned_tensor(ScalarType::Float, {1});
  m.add_kernel_call("aten::add.out", {x, y, m.add_int(1), out, out});
  m.set_inputs({x, y}).set_outputs({out});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());

  EXPECT_EQ(str_at(file, 4, 4), "ET12");
  EXPECT_NE(str_at(file, 8, 4), "eh00");
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  // As exir writes it (the apple add.pte): segments [{0,0}], constant_segment.offsets [0].
  ASSERT_EQ(p->segments()->size(), 1u);
  EXPECT_EQ(p->segments()->Get(0)->offset(), 0u);
  EXPECT_EQ(p->segments()->Get(0)->size(), 0u);
  EXPECT_EQ(to_vector(p->constant_segment()->offsets()), (std::vector<uint64_t>{0}));
  // Three planned f32[1] tensors at 0, 16, 32 -> buffer of 48 bytes after the placeholder.
  EXPECT_EQ(to_vector(p->execution_plan()->Get(0)->non_const_buffer_sizes()), (std::vector<int64_t>{0, 48}));
}

TEST(PteLayout, NoConstantSegmentWhenAskedNotTo) {
  ProgramBuilder program(PteWriteOptions{.always_write_constant_segment = false});
  MethodBuilder& m = program.add_method("forward");
  m.set_outputs({m.add_int(1)});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->constant_segment(), nullptr);
  EXPECT_EQ(p->segments()->size(), 0u);
}

TEST(PteLayout, Legacy24ByteHeader) {
  ProgramBuilder program(PteWriteOptions{.header_form = PteHeaderForm::Legacy24});
  build_add_one(program);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());
  ExtendedHeader h = read_eh00(file);
  ASSERT_TRUE(h.present);
  EXPECT_EQ(h.length, 24u);
  // Still padded to 32: bytes 32..40 are zero, and the tables start at 40.
  for (size_t i = 32; i < 40; ++i) EXPECT_EQ(file[i], 0) << i;
  EXPECT_EQ(h.segment_base_offset, round_up(h.program_size, 128));
  EXPECT_EQ(file.size(), h.segment_base_offset + 4);
  ASSERT_NE(verified_program(file), nullptr);
}

TEST(PteLayout, ConstantsAreSixteenByteAlignedInTheirSegment) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<float> a{1.f};                       // 4 bytes  at 0
  std::vector<float> b{2.f, 3.f, 4.f, 5.f, 6.f};  // 20 bytes at 16
  std::vector<int64_t> c{-7};                      // 8 bytes  at 48
  int32_t ia = m.add_constant_tensor<float>({1}, a);
  int32_t ib = m.add_constant_tensor<float>({5}, b);
  int32_t ic = m.add_constant_tensor<int64_t>({1}, c);
  m.set_outputs({ia, ib, ic});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());

  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(to_vector(p->constant_segment()->offsets()), (std::vector<uint64_t>{0, 0, 16, 48}));
  ExtendedHeader h = read_eh00(file);
  EXPECT_EQ(h.segment_data_size, 56u);
  std::vector<uint8_t> seg = segment_bytes(file, p, 0);
  ASSERT_EQ(seg.size(), 56u);
  EXPECT_EQ(std::memcmp(seg.data() + 0, a.data(), 4), 0);
  EXPECT_EQ(std::memcmp(seg.data() + 16, b.data(), 20), 0);
  EXPECT_EQ(std::memcmp(seg.data() + 48, c.data(), 8), 0);
  for (size_t i = 4; i < 16; ++i) EXPECT_EQ(seg[i], 0);
  // data_buffer_idx 1, 2, 3 and no allocation_info.
  const auto* values = p->execution_plan()->Get(0)->values();
  for (uint32_t i = 0; i < 3; ++i) {
    const auto* t = values->Get(i)->val_as_Tensor();
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->data_buffer_idx(), i + 1);
    EXPECT_EQ(t->allocation_info(), nullptr);
  }
  // Absolute placement: every constant is 16-byte aligned in the file.
  for (uint64_t off : to_vector(p->constant_segment()->offsets())) {
    EXPECT_EQ((h.segment_base_offset + p->segments()->Get(0)->offset() + off) % 16, 0u);
  }
}

TEST(PteLayout, DeprecatedInlineConstantBuffer) {
  ProgramBuilder program(PteWriteOptions{.constant_storage = ConstantStorage::InlineBuffer});
  MethodBuilder& m = program.add_method("forward");
  std::vector<float> three(4, 3.0f), two(4, 2.0f);
  m.add_constant_tensor<float>({2, 2}, three);
  m.add_constant_tensor<float>({2, 2}, two);
  m.set_outputs({0, 1});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());

  EXPECT_FALSE(read_eh00(file).present) << "no segment data, so no header";
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->constant_segment(), nullptr);
  ASSERT_NE(p->constant_buffer(), nullptr);
  ASSERT_EQ(p->constant_buffer()->size(), 3u);
  EXPECT_EQ(p->constant_buffer()->Get(0)->storage()->size(), 0u) << "entry 0 is the placeholder";
  for (uint32_t i = 1; i < 3; ++i) {
    const auto* storage = p->constant_buffer()->Get(i)->storage();
    ASSERT_EQ(storage->size(), 16u);
    // force_align 16, relative to the buffer start.
    EXPECT_EQ((storage->data() - file.data()) % 16, 0);
    const std::vector<float>& expect = i == 1 ? three : two;
    EXPECT_EQ(std::memcmp(storage->data(), expect.data(), 16), 0);
  }
}

TEST(PteLayout, SegmentsAreOrderedAndAligned) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  m.add_constant_tensor<float>({3}, {1.f, 2.f, 3.f});
  std::vector<uint8_t> payload(200);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = uint8_t(i * 7);
  int32_t d = m.add_delegate("XnnpackBackend", payload, {}, PayloadLocation::Segment);
  int32_t x = m.add_planned_tensor(ScalarType::Float, {3});
  int32_t y = m.add_planned_tensor(ScalarType::Float, {3});
  m.add_delegate_call(d, {x, y});
  m.set_inputs({x}).set_outputs({y});
  std::vector<uint8_t> blob_a(33, 0xaa), blob_b(5, 0xbb);
  program.add_named_data("weights_a", blob_a);
  program.add_named_data("weights_b", blob_b);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());

  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  ExtendedHeader h = read_eh00(file);
  ASSERT_TRUE(h.present);
  EXPECT_EQ(h.segment_base_offset % 128, 0u);
  // [constant (12 B) @0, delegate (200 B) @128, named a (33 B) @384, named b (5 B) @512]
  ASSERT_EQ(p->segments()->size(), 4u);
  const uint64_t expect_offset[] = {0, 128, 384, 512}, expect_size[] = {12, 200, 33, 5};
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p->segments()->Get(i)->offset(), expect_offset[i]) << i;
    EXPECT_EQ(p->segments()->Get(i)->size(), expect_size[i]) << i;
  }
  EXPECT_EQ(h.segment_data_size, 512u + 5u);
  EXPECT_EQ(file.size(), h.segment_base_offset + 517);
  EXPECT_EQ(segment_bytes(file, p, 1), payload);
  EXPECT_EQ(segment_bytes(file, p, 2), blob_a);
  EXPECT_EQ(segment_bytes(file, p, 3), blob_b);

  const auto* delegate = p->execution_plan()->Get(0)->delegates()->Get(0);
  EXPECT_EQ(delegate->id()->str(), "XnnpackBackend");
  EXPECT_EQ(delegate->processed()->location(), et::DataLocation::SEGMENT);
  EXPECT_EQ(delegate->processed()->index(), 1u);
  ASSERT_EQ(p->named_data()->size(), 2u);
  EXPECT_EQ(p->named_data()->Get(0)->key()->str(), "weights_a");
  EXPECT_EQ(p->named_data()->Get(0)->segment_index(), 2u);
  EXPECT_EQ(p->named_data()->Get(1)->key()->str(), "weights_b");
  EXPECT_EQ(p->named_data()->Get(1)->segment_index(), 3u);
}

TEST(PteLayout, CustomSegmentAlignment) {
  ProgramBuilder program(PteWriteOptions{.segment_alignment = 64});
  MethodBuilder& m = program.add_method("forward");
  m.add_constant_tensor<float>({1}, {1.f});
  m.set_outputs({0});
  program.add_named_data("k", std::vector<uint8_t>(3, 1));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  ExtendedHeader h = read_eh00(file);
  EXPECT_EQ(h.segment_base_offset, round_up(h.program_size, 64));
  EXPECT_EQ(p->segments()->Get(1)->offset(), 64u);

  ProgramBuilder bad(PteWriteOptions{.segment_alignment = 100});
  bad.add_method("forward");
  auto r = bad.build();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), Error::InvalidArgument);
}

TEST(PteLayout, InlineDelegatePayloadsAreAlignedAndShared) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<uint8_t> vela(37, 0x5a), other(3, 1);
  int32_t d0 = m.add_delegate("EthosUBackend", vela,
                              {CompileSpecEntry::text("target", "ethos-u55-128"),
                               CompileSpecEntry::text("output_format", "vela")});
  int32_t d1 = m.add_delegate("EthosUBackend", vela);  // identical payload: stored once
  int32_t d2 = m.add_delegate("VgfBackend", other);
  EXPECT_EQ(d0, 0);
  EXPECT_EQ(d1, 1);
  EXPECT_EQ(d2, 2);
  m.set_outputs({m.add_int(0)});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());

  EXPECT_FALSE(read_eh00(file).present) << "inline payloads are not segment data";
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->backend_delegate_data()->size(), 2u);
  const auto* data0 = p->backend_delegate_data()->Get(0)->data();
  EXPECT_EQ((data0->data() - file.data()) % 16, 0);
  EXPECT_EQ(to_vector(data0), vela);
  EXPECT_EQ(to_vector(p->backend_delegate_data()->Get(1)->data()), other);
  const auto* delegates = p->execution_plan()->Get(0)->delegates();
  ASSERT_EQ(delegates->size(), 3u);
  EXPECT_EQ(delegates->Get(0)->processed()->location(), et::DataLocation::INLINE);
  EXPECT_EQ(delegates->Get(0)->processed()->index(), 0u);
  EXPECT_EQ(delegates->Get(1)->processed()->index(), 0u);
  EXPECT_EQ(delegates->Get(2)->processed()->index(), 1u);
  const auto* specs = delegates->Get(0)->compile_specs();
  ASSERT_EQ(specs->size(), 2u);
  EXPECT_EQ(specs->Get(0)->key()->str(), "target");
  EXPECT_EQ(std::string(specs->Get(0)->value()->begin(), specs->Get(0)->value()->end()), "ethos-u55-128");
  EXPECT_EQ(specs->Get(1)->key()->str(), "output_format");
}

TEST(PteLayout, MutableDataSegment) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<float> init{0.5f, 1.5f};
  int32_t state = m.add_mutable_tensor(TensorSpec::make(ScalarType::Float, {2}).at(1, 0), to_bytes(init));
  m.set_outputs({state});
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> file, program.build());
  const et::Program* p = verified_program(file);
  ASSERT_NE(p, nullptr);
  // Segment 0: empty constant segment; segment 1: mutable data.
  ASSERT_EQ(p->segments()->size(), 2u);
  ASSERT_NE(p->mutable_data_segments(), nullptr);
  ASSERT_EQ(p->mutable_data_segments()->size(), 1u);
  const auto* sub = p->mutable_data_segments()->Get(0);
  EXPECT_EQ(sub->segment_index(), 1u);
  EXPECT_EQ(to_vector(sub->offsets()), (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(segment_bytes(file, p, 1), to_bytes(init));
  const auto* t = p->execution_plan()->Get(0)->values()->Get(0)->val_as_Tensor();
  EXPECT_EQ(t->data_buffer_idx(), 1u);
  ASSERT_NE(t->allocation_info(), nullptr);
  EXPECT_EQ(to_vector(p->execution_plan()->Get(0)->non_const_buffer_sizes()), (std::vector<int64_t>{0, 16}));
}

TEST(PteLayout, WriteFile) {
  ProgramBuilder program;
  build_add_one(program);
  std::string path = ::testing::TempDir() + "/pte_writer_write_file.pte";
  ASSERT_TRUE(program.write_file(path).is_ok());
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> expect, program.build());
  EXPECT_EQ(read_file(path), expect);
  Status bad = program.write_file("/nonexistent-dir/x.pte");
  EXPECT_EQ(bad.code(), Error::NotFound) << bad.to_string();
}

}  // namespace
}  // namespace vkrt::testing
