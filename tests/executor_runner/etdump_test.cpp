// ETDump (docs/etdump.md): the files executor_runner writes with --etdump_path, decoded by
// vkrt's reader and by flatc with the transcribed schema, and upstream's reference file read back.
#include <gtest/gtest.h>


#include <cstdio>
#include <cstring>
#include <string>

#include "common/conformance.h"
#include "common/etdump_checks.h"
#include "common/run_command.h"
#include "sample_programs.h"
#include "vkrt/etdump.h"
#include "vkrt/module.h"
#include "vkrt/pte_writer.h"

namespace {

using vkrt::Etdump;
using vkrt::EtdumpEvent;
using vkrt::EtdumpRun;
using vkrt::EtdumpValue;
using namespace vkrt::testing;

using RunResult = CommandResult;

RunResult run_runner(const std::string& args) { return run_command(std::string(VKRT_EXECUTOR_RUNNER) + " " + args); }

std::string tmp(const std::string& name) { return ::testing::TempDir() + "vkrt_etdump_" + name; }

// Writes a sample program to a temporary file and returns its path.
std::string write_sample(const std::string& name, vkrt::Result<std::vector<uint8_t>> bytes) {
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  const std::string path = tmp(name);
  EXPECT_TRUE(vkrt::write_bytes_to_file(path, bytes.ok() ? *bytes : std::vector<uint8_t>{}).is_ok());
  return path;
}

const std::vector<std::string> kAddMulEvents = {"native_call_mul.out", "OPERATOR_CALL", "native_call_add.out",
                                                "OPERATOR_CALL", "Method::execute"};

// ---- upstream's reference file ----

const char* kReference = "etdump/executorch__docs_source_tutorials_source_etdump.etdp";

TEST(EtdumpReference, ReadsUpstreamFile) {
  VKRT_REQUIRE_CONFORMANCE(path, kReference);
  Etdump etdump = read_etdump_file(path);
  EXPECT_EQ(etdump.version, 0u);
  ASSERT_EQ(etdump.runs.size(), 2u);
  expect_load_run(etdump.runs[0]);
  const EtdumpRun& exec = etdump.runs[1];
  expect_execute_run(exec);
  EXPECT_EQ(exec.bundled_input_index, -1);
  ASSERT_EQ(exec.events.size(), 29u);
  EXPECT_EQ(exec.events[0].name, "native_call_convolution.out");
  EXPECT_EQ(exec.events[0].instruction_id, 0);
  EXPECT_EQ(exec.events[1].name, "OPERATOR_CALL");
  EXPECT_EQ(exec.events[2].name, "native_call_relu.out");
  EXPECT_EQ(exec.events[2].instruction_id, 1);
}

// What vkrt's writer makes of the reference reads back the same: the two share one model.
TEST(EtdumpReference, RoundTripsThroughTheWriter) {
  VKRT_REQUIRE_CONFORMANCE(path, kReference);
  Etdump a = read_etdump_file(path);
  auto b = vkrt::read_etdump(vkrt::write_etdump(a));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  ASSERT_EQ(b->runs.size(), a.runs.size());
  for (size_t r = 0; r < a.runs.size(); ++r) {
    EXPECT_EQ(b->runs[r].name, a.runs[r].name);
    ASSERT_EQ(b->runs[r].events.size(), a.runs[r].events.size());
    for (size_t i = 0; i < a.runs[r].events.size(); ++i) {
      const EtdumpEvent &x = a.runs[r].events[i], &y = b->runs[r].events[i];
      EXPECT_EQ(y.name, x.name);
      EXPECT_EQ(y.chain_index, x.chain_index);
      EXPECT_EQ(y.instruction_id, x.instruction_id);
      EXPECT_EQ(y.start_time, x.start_time);
      EXPECT_EQ(y.end_time, x.end_time);
    }
  }
}

// Every byte is untrusted: truncations, a wrong identifier and flipped bytes give an error or a
// verified decode, never a crash (the sanitizer builds check the "never").
// Regression (etdump_fuzzer in CI): a tensor's int64 `sizes` vector 4 bytes off its alignment,
// which the FlatBuffers verifier accepts; reading it must not be a misaligned load (UBSan in
// `make asan`).
TEST(EtdumpReader, MisalignedInt64VectorFromFuzzer) {
  const std::vector<uint8_t> bytes =
      read_file(std::string(VKRT_ETDUMP_FUZZ_CORPUS) + "/regression-misaligned-int64-vector");
  ASSERT_FALSE(bytes.empty());
  auto etdump = vkrt::read_etdump(bytes);
  if (etdump.ok()) (void)vkrt::write_etdump(*etdump);  // what the fuzzer does with a file that decodes
}

TEST(EtdumpReader, RejectsDamagedFiles) {
  vkrt::Etdump sample;
  sample.runs.push_back({"Execute", -1, {"planned_memory"}, {}});
  EtdumpEvent e;
  e.name = "OPERATOR_CALL";
  sample.runs[0].events.push_back(e);
  std::vector<uint8_t> bytes = vkrt::write_etdump(sample);
  ASSERT_TRUE(vkrt::read_etdump(bytes).ok());
  EXPECT_EQ(std::memcmp(bytes.data() + 8, "ED00", 4), 0);  // size prefix, root offset, identifier
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(vkrt::read_etdump(std::span<const uint8_t>(bytes.data(), n)).ok()) << "truncated to " << n;
  // Eight bytes: the size-prefixed identifier (at 8) would lie past the end (found by etdump_fuzzer).
  const uint8_t eight[] = {0xbc, 0xfc, 0, 0, 0xbc, 0xfc, 0, 0};
  EXPECT_FALSE(vkrt::read_etdump(eight).ok());
  std::vector<uint8_t> wrong_id = bytes;
  wrong_id[8] = 'X';
  auto r = vkrt::read_etdump(wrong_id);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("ED00"), std::string::npos) << r.status().to_string();
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::vector<uint8_t> flipped = bytes;
    flipped[i] ^= 0xff;
    (void)vkrt::read_etdump(flipped);
  }
}

// ---- what the runner writes ----

TEST(EtdumpRunner, PortableProgramRuns) {
  const std::string pte = write_sample("add_mul.pte", vkrt::samples::add_mul_program());
  const std::string out = tmp("add_mul.etdp");
  RunResult r = run_runner(pte + " --etdump_path " + out + " --num_executions 2");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("ETDump written to file"), std::string::npos) << r.out;
  Etdump etdump = read_etdump_file(out);
  ASSERT_EQ(etdump.runs.size(), 3u);  // the load, then one per execution
  const EtdumpRun& load = etdump.runs[0];
  expect_load_run(load);
  ASSERT_EQ(load.allocators, std::vector<std::string>{"planned_memory"});
  size_t allocations = 0;
  for (const EtdumpEvent& e : load.events)
    if (e.kind == EtdumpEvent::Kind::Allocation) {
      ++allocations;
      EXPECT_EQ(e.allocator_id, 0);
      EXPECT_GT(e.allocation_size, 0u);
    }
  EXPECT_EQ(allocations, 1u);  // add_mul plans one buffer
  uint64_t previous_end = 0;
  for (size_t k = 1; k < 3; ++k) {
    const EtdumpRun& exec = etdump.runs[k];
    expect_execute_run(exec);
    EXPECT_EQ(exec.bundled_input_index, -1);
    EXPECT_EQ(runtime_event_names(exec), kAddMulEvents);
    const int32_t ids[] = {0, 0, 1, 1};
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(exec.events[i].instruction_id, ids[i]) << i;
      EXPECT_EQ(exec.events[i].chain_index, 0) << i;
    }
    EXPECT_GE(exec.events.back().start_time, previous_end);  // executions follow each other
    previous_end = exec.events.back().end_time;
  }
}

// --profile and --etdump_path together: the table and the ETDump both have every instruction.
TEST(EtdumpRunner, WithTheProfileTable) {
  const std::string pte = write_sample("add_mul_profile.pte", vkrt::samples::add_mul_program());
  const std::string out = tmp("add_mul_profile.etdp");
  RunResult r = run_runner(pte + " --profile --etdump_path " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("aten::add.out"), std::string::npos) << r.out;
  Etdump etdump = read_etdump_file(out);
  ASSERT_EQ(etdump.runs.size(), 2u);
  EXPECT_EQ(runtime_event_names(etdump.runs[1]), kAddMulEvents);
}

TEST(EtdumpRunner, DecodedByFlatcWithTheTranscribedSchema) {
  const std::string pte = write_sample("add_mul_flatc.pte", vkrt::samples::add_mul_program());
  const std::string out = tmp("add_mul_flatc.etdp");
  ASSERT_EQ(run_runner(pte + " --etdump_path " + out).exit_code, 0);
  const std::string text = flatc_json(out);
  for (const char* want :
       {"\"run_data\"", "\"name\": \"Default\"", "\"name\": \"Program::load_method\"", "\"name\": \"Execute\"",
        "\"name\": \"native_call_add.out\"", "\"name\": \"OPERATOR_CALL\"", "\"name\": \"Method::execute\"",
        "\"allocators\"", "\"allocation_event\"", "\"start_time\"", "\"end_time\""})
    EXPECT_NE(text.find(want), std::string::npos) << want << " missing from\n" << text;
}

TEST(EtdumpRunner, DebugBufferHoldsEachInstructionsOutput) {
  const std::string pte = write_sample("add_mul_debug.pte", vkrt::samples::add_mul_program());
  const std::string out = tmp("add_mul_debug.etdp"), buffer = tmp("add_mul_debug.bin");
  RunResult r = run_runner(pte + " --etdump_path " + out + " --etdump_debug_buffer " + buffer);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Etdump etdump = read_etdump_file(out);
  std::vector<uint8_t> data = read_file(buffer);
  ASSERT_EQ(etdump.runs.size(), 2u);
  std::vector<const EtdumpEvent*> debug;
  for (const EtdumpEvent& e : etdump.runs[1].events)
    if (e.kind == EtdumpEvent::Kind::Debug) debug.push_back(&e);
  ASSERT_EQ(debug.size(), 2u);
  // Inputs are ones: x * 2 = 2, then + y = 3.
  const float expected[] = {2.0f, 3.0f};
  const char* names[] = {"native_call_mul.out", "native_call_add.out"};
  for (size_t i = 0; i < 2; ++i) {
    const EtdumpEvent& e = *debug[i];
    EXPECT_EQ(e.name, names[i]);
    EXPECT_EQ(e.instruction_id, int32_t(i));
    ASSERT_EQ(e.value.type, EtdumpValue::Type::Tensor);
    ASSERT_EQ(e.value.tensors.size(), 1u);
    const auto& t = e.value.tensors[0];
    EXPECT_EQ(t.scalar_type, int8_t(vkrt::ScalarType::Float));
    EXPECT_EQ(t.sizes, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(t.strides, (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(t.offset % 64, 0);
    ASSERT_GE(t.offset, 0);
    ASSERT_LE(size_t(t.offset) + 6 * sizeof(float), data.size());
    for (size_t k = 0; k < 6; ++k) {
      float v;
      std::memcpy(&v, data.data() + t.offset + k * sizeof(float), sizeof v);
      EXPECT_EQ(v, expected[i]) << names[i] << " element " << k;
    }
  }
}

TEST(EtdumpRunner, BundledRunsCarryTheTestCaseIndex) {
  const std::string bpte = write_sample("add_mul.bpte", vkrt::samples::add_mul_bundled());
  const std::string out = tmp("add_mul_bundled.etdp");
  RunResult r = run_runner(bpte + " --bundled --etdump_path " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Etdump etdump = read_etdump_file(out);
  ASSERT_GE(etdump.runs.size(), 3u);  // the load and at least two test cases
  expect_load_run(etdump.runs[0]);
  EXPECT_EQ(etdump.runs[0].bundled_input_index, -1);
  for (size_t k = 1; k < etdump.runs.size(); ++k) {
    expect_execute_run(etdump.runs[k]);
    EXPECT_EQ(etdump.runs[k].bundled_input_index, int32_t(k - 1));
    EXPECT_EQ(runtime_event_names(etdump.runs[k]), kAddMulEvents);
  }
  const std::string json = flatc_json(out);  // flatc reads the indices too
  EXPECT_NE(json.find("\"bundled_input_index\": 1"), std::string::npos) << json;
}

// Through the library: an op with two out arguments (max.dim_max: values and indices, returned
// as a tensor list) gives one debug event per out argument, each with its bytes in the buffer.
TEST(EtdumpLibrary, DebugEventPerOutArgument) {
  vkrt::ProgramBuilder program;
  vkrt::MethodBuilder& m = program.add_method("forward");
  const int32_t x = m.add_planned_tensor(vkrt::ScalarType::Float, {2, 3});
  const int32_t values = m.add_planned_tensor(vkrt::ScalarType::Float, {2});
  const int32_t indices = m.add_planned_tensor(vkrt::ScalarType::Long, {2});
  m.add_kernel_call("aten::max.dim_max",
                    {x, m.add_int(1), m.add_bool(false), values, indices, m.add_tensor_list({values, indices})});
  m.set_inputs({x});
  m.set_outputs({values, indices});
  auto bytes = program.build();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();

  vkrt::EtdumpWriter etdump(/*log_values=*/true);
  vkrt::LoadOptions options;
  options.event_tracer = &etdump;
  auto module = vkrt::Module::load_from_buffer(*bytes, options);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  float input[6] = {1, 5, 2, 7, 3, 4};
  const int32_t sizes[] = {2, 3};
  auto t = vkrt::Tensor::make(vkrt::ScalarType::Float, sizes, input);
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE((*method)->set_input(0, vkrt::EValue::from_tensor(&*t)).is_ok());
  vkrt::Status executed = (*method)->execute();
  ASSERT_TRUE(executed.is_ok()) << executed.to_string();

  ASSERT_EQ(etdump.etdump().runs.size(), 2u);
  std::vector<const EtdumpEvent*> debug;
  for (const EtdumpEvent& e : etdump.etdump().runs[1].events)
    if (e.kind == EtdumpEvent::Kind::Debug) debug.push_back(&e);
  ASSERT_EQ(debug.size(), 2u);
  const std::vector<uint8_t>& data = etdump.debug_buffer();
  auto read_at = [&](const vkrt::EtdumpTensor& tensor, auto element) {
    std::vector<decltype(element)> out(2);
    EXPECT_LE(size_t(tensor.offset) + sizeof(element) * 2, data.size());
    if (size_t(tensor.offset) + sizeof(element) * 2 <= data.size())
      std::memcpy(out.data(), data.data() + tensor.offset, sizeof(element) * 2);
    return out;
  };
  for (const EtdumpEvent* e : debug) {
    EXPECT_EQ(e->name, "native_call_max.dim_max");
    EXPECT_EQ(e->instruction_id, 0);
    ASSERT_EQ(e->value.tensors.size(), 1u);
  }
  EXPECT_EQ(debug[0]->value.tensors[0].scalar_type, int8_t(vkrt::ScalarType::Float));
  EXPECT_EQ(read_at(debug[0]->value.tensors[0], 0.0f), (std::vector<float>{5, 7}));
  EXPECT_EQ(debug[1]->value.tensors[0].scalar_type, int8_t(vkrt::ScalarType::Long));
  EXPECT_EQ(read_at(debug[1]->value.tensors[0], int64_t(0)), (std::vector<int64_t>{1, 0}));
}

// A tracer set after loading sees the executions it is set for, and none after it is unset.
TEST(EtdumpLibrary, SetEventTracerAfterLoading) {
  auto bytes = vkrt::samples::add_mul_program();
  ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
  auto module = vkrt::Module::load_from_buffer(*bytes);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto method = (*module)->load_method("forward");
  ASSERT_TRUE(method.ok()) << method.status().to_string();
  float ones[6] = {1, 1, 1, 1, 1, 1};
  const int32_t sizes[] = {2, 3};
  auto t = vkrt::Tensor::make(vkrt::ScalarType::Float, sizes, ones);
  ASSERT_TRUE(t.ok());
  for (size_t i = 0; i < (*method)->num_inputs(); ++i)
    ASSERT_TRUE((*method)->set_input(i, vkrt::EValue::from_tensor(&*t)).is_ok());
  vkrt::EtdumpWriter etdump;
  (*method)->set_event_tracer(&etdump);
  ASSERT_TRUE((*method)->execute().is_ok());
  (*method)->set_event_tracer(nullptr);
  ASSERT_TRUE((*method)->execute().is_ok());
  ASSERT_EQ(etdump.etdump().runs.size(), 1u);
  expect_execute_run(etdump.etdump().runs[0]);
  EXPECT_EQ(runtime_event_names(etdump.etdump().runs[0]), kAddMulEvents);
}

TEST(EtdumpRunner, DebugBufferNeedsEtdumpPath) {
  RunResult r = run_runner("--etdump_debug_buffer " + tmp("x.bin") + " model.pte");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("--etdump_debug_buffer needs --etdump_path"), std::string::npos) << r.out;
  RunResult help = run_runner("--help");
  EXPECT_NE(help.out.find("--etdump_path"), std::string::npos);
  EXPECT_NE(help.out.find("--etdump_debug_buffer"), std::string::npos);
}

}  // namespace
