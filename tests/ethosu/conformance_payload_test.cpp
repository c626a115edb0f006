// Every Ethos-U delegate in the conformance programs (../shared/conformance/pte) parses and
// validates, matches the figures documented for it, and re-encodes to the same bytes with our
// writer. The program is read with the generated FlatBuffers tables, independently of the
// runtime's loader.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/conformance.h"
#include "ethosu/format/driver_payload.h"
#include "ethosu/format/vela_bin_stream.h"
#include "ethosu/format/vela_bin_stream_writer.h"
#include "program_generated.h"

namespace vkrt::ethosu {
namespace {

namespace fb = executorch_flatbuffer;

constexpr const char* kMinimalExample =
    "pte/Arm-Examples_CMSIS-Executorch__ai_layer_engine_model_ethos_u_minimal_example.pte";

struct EthosUDelegatePayload {
  std::string file;
  std::string id;
  std::vector<uint8_t> bytes;  // copied out so it is 16-byte aligned-independent of the file buffer
};

// The INLINE payloads of all EthosUBackend / ArmBackend delegates of a program file.
std::vector<EthosUDelegatePayload> ethos_u_payloads(const std::string& path) {
  std::vector<EthosUDelegatePayload> out;
  std::vector<uint8_t> file = vkrt::testing::read_file(path);
  flatbuffers::Verifier verifier(file.data(), file.size());
  if (!fb::VerifyProgramBuffer(verifier)) return out;  // not a program we can read (e.g. corrupt)
  const fb::Program* program = fb::GetProgram(file.data());
  if (!program->execution_plan()) return out;
  for (const fb::ExecutionPlan* plan : *program->execution_plan()) {
    if (!plan->delegates()) continue;
    for (const fb::BackendDelegate* d : *plan->delegates()) {
      std::string id = d->id() ? d->id()->str() : "";
      if (id != "EthosUBackend" && id != "ArmBackend") continue;
      EXPECT_TRUE(d->processed() && d->processed()->location() == fb::DataLocation::INLINE)
          << path << ": Arm flows store payloads inline";
      uint32_t index = d->processed()->index();
      EXPECT_TRUE(program->backend_delegate_data() && index < program->backend_delegate_data()->size());
      const auto* data = program->backend_delegate_data()->Get(index)->data();
      EthosUDelegatePayload p{path, id, std::vector<uint8_t>(data->begin(), data->end())};
      out.push_back(std::move(p));
    }
  }
  return out;
}

TEST(EthosUConformance, EveryEthosUProgramPayloadParsesAndValidates) {
  VKRT_REQUIRE_CONFORMANCE(dir, "pte");
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pte") continue;
    for (const auto& payload : ethos_u_payloads(entry.path().string())) {
      ++found;
      SCOPED_TRACE(payload.file);
      auto stream = parse_vela_bin_stream(payload.bytes, nullptr);
      ASSERT_TRUE(stream.ok()) << stream.status().to_string();
      auto cmd = parse_driver_payload(stream->cmd_data);
      ASSERT_TRUE(cmd.ok()) << cmd.status().to_string();
      EXPECT_TRUE(cmd->has_arch);
      EXPECT_GT(cmd->summary.operations, 0u);
      // The writer reproduces the payload byte for byte from what the reader found.
      VelaBinStreamContents c;
      c.cmd_data.assign(stream->cmd_data.begin(), stream->cmd_data.end());
      c.weight_data.assign(stream->weight_data.begin(), stream->weight_data.end());
      c.scratch_size = stream->scratch_size;
      c.legacy_scratch_data = stream->scratch_source == ScratchSource::LegacyDataBlock;
      c.inputs = stream->inputs;
      c.outputs = stream->outputs;
      EXPECT_EQ(write_vela_bin_stream(c), payload.bytes);
    }
  }
  EXPECT_GE(found, 1) << "no Ethos-U program found in " << dir;
}

TEST(EthosUConformance, MinimalExampleMatchesTheDocumentedFigures) {
  VKRT_REQUIRE_CONFORMANCE(path, kMinimalExample);
  auto payloads = ethos_u_payloads(path);
  ASSERT_EQ(payloads.size(), 1u);
  EXPECT_EQ(payloads[0].id, "EthosUBackend");
  auto stream = parse_vela_bin_stream(payloads[0].bytes, nullptr);
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  // docs/ethos-u.md §2: cmd_data 908 B, weight_data 32 B, scratch 144, inputs 2 × 36-byte IO at
  // offsets 64 and 16 in region 1, output at offset 0.
  EXPECT_EQ(stream->cmd_data.size(), 908u);
  EXPECT_EQ(stream->weight_data.size(), 32u);
  EXPECT_EQ(stream->scratch_size, 144u);
  EXPECT_EQ(stream->scratch_source, ScratchSource::SizeBlock);
  ASSERT_EQ(stream->inputs.size(), 2u);
  ASSERT_EQ(stream->outputs.size(), 1u);
  EXPECT_EQ(stream->inputs[0].layout, VelaIoLayout::Shape6D);
  EXPECT_EQ(stream->inputs[0].offset, 64);
  EXPECT_EQ(stream->inputs[1].offset, 16);
  EXPECT_EQ(stream->outputs[0].offset, 0);
  for (const auto* io : {&stream->inputs[0], &stream->inputs[1], &stream->outputs[0]}) {
    EXPECT_EQ(io->region, kRegionScratch);
    EXPECT_EQ(io->element_count(), 1);
    EXPECT_EQ(io->elem_size, 1);
  }
  EXPECT_FALSE(stream->uses_separate_io());

  auto cmd = parse_driver_payload(stream->cmd_data);
  ASSERT_TRUE(cmd.ok()) << cmd.status().to_string();
  // §4: COP1, OPTIMIZER_CONFIG with U55-128 config 0x00001807 / id 0x10066001, stream at byte 32.
  EXPECT_EQ(cmd->format, CopFormat::Cop1);
  EXPECT_EQ(cmd->arch.config_register, 0x00001807u);
  EXPECT_EQ(cmd->arch.id_register, 0x10066001u);
  EXPECT_EQ(cmd->arch.product, NpuProduct::U55);
  EXPECT_EQ(cmd->arch.macs_per_cycle, 128u);
  EXPECT_EQ(cmd->command_stream_offset, 32u);
  EXPECT_EQ(cmd->command_stream.size(), 908u - 32u);
  // The stream holds 6 DMA_START and 6 ELEMENTWISE (docs/ethos-u.md §6.2 says "DMA + 4
  // ELEMENTWISE"; the file wins).
  EXPECT_EQ(cmd->summary.operations, 12u);
  EXPECT_TRUE(cmd->summary.regions_referenced & (1u << kRegionScratch));
  EXPECT_EQ(cmd->summary.regions_referenced & ~0b111u, 0u);
}

}  // namespace
}  // namespace vkrt::ethosu
