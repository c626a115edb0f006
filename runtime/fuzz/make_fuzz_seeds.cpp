// make_fuzz_seeds <repo root>: writes the seed corpus kept in the repository for every fuzz target
// (<part>/fuzz/corpus/<target>/seed-*), built with the project's own writers: the sample programs,
// an Ethos-U program and Vela payloads (tests/ethosu/test_payloads.h), a VgfBackend program with a
// one-op TOSA graph, cortex_m one-op programs, .npy inputs and both Vulkan cache files. Built in
// the fuzz build (scripts/run-fuzzers.sh); rerun it when a format changes, then
// `scripts/run-fuzzers.sh --merge` grows the corpus from these seeds.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "dscnn_program.h"
#include "sample_programs.h"
#include "vkrt/etdump.h"
#include "vkrt/pte_writer.h"
#ifdef VKRT_SEEDS_ETHOSU
#include "tests/ethosu/test_payloads.h"
#endif
#ifdef VKRT_SEEDS_VGF
#include "vgf/graph_vgf_writer.h"
#endif
#ifdef VKRT_SEEDS_VGF_GRAPHS
#include "mobilenet_v2_graph.h"
#endif
#ifdef VKRT_SEEDS_VULKAN_CACHE
#include "vgf/vulkan/cache_file.h"
#include "vgf/vulkan/fuzz/fuzz_device.h"
#endif

namespace {
using namespace vkrt;
namespace fs = std::filesystem;

int failures = 0;

void write_seed(const fs::path& dir, const std::string& name, const Result<std::vector<uint8_t>>& bytes) {
  if (!bytes.ok()) {
    std::fprintf(stderr, "error: %s: %s\n", name.c_str(), bytes.status().to_string().c_str());
    ++failures;
    return;
  }
  fs::create_directories(dir);
  const Status s = write_bytes_to_file((dir / ("seed-" + name)).string(), *bytes);
  if (!s.is_ok()) {
    std::fprintf(stderr, "error: %s\n", s.to_string().c_str());
    ++failures;
  }
}

std::vector<uint8_t> concat(std::vector<uint8_t> a, std::string_view b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// An .npy file (format 1.0) for input_fuzzer: its two selector bytes (dtype, shape) first.
std::vector<uint8_t> npy_seed(ScalarType dtype, uint8_t shape, const std::string& descr, const std::string& dims,
                              std::string_view data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + dims + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string file = "\x93NUMPY";
  file += char(1);
  file += char(0);
  file += char(header.size() & 0xFF);
  file += char(header.size() >> 8);
  file += header;
  file.append(data);
  return concat({uint8_t(dtype), shape}, file);
}

Result<std::vector<uint8_t>> one_delegate_program(const std::string& backend, std::vector<uint8_t> payload,
                                                  std::vector<std::pair<ScalarType, std::vector<int32_t>>> inputs,
                                                  std::vector<std::pair<ScalarType, std::vector<int32_t>>> outputs) {
  ProgramBuilder program;
  MethodBuilder& m = program.add_method("forward");
  std::vector<int32_t> in, out;
  for (auto& [t, s] : inputs) in.push_back(m.add_planned_tensor(t, s));
  for (auto& [t, s] : outputs) out.push_back(m.add_planned_tensor(t, s));
  std::vector<int32_t> args = in;
  args.insert(args.end(), out.begin(), out.end());
  m.add_delegate_call(m.add_delegate(backend, std::move(payload)), args);
  m.set_inputs(in).set_outputs(out);
  return program.build();
}

// An ETDump with a load run and an execute run holding every kind of event: profile (with a
// delegate id and metadata), allocation, and debug (a tensor, a tensor list).
std::vector<uint8_t> etdump_seed() {
  EtdumpWriter w(/*log_values=*/true);
  w.begin_run("Default");
  w.allocation_event(w.track_allocator("planned_memory"), 64);
  w.profile_event(runtime_event("Program::load_method", -1, 0, 10, 20));
  w.set_bundled_input_index(1);
  w.begin_run("Execute");
  float data[6] = {1, 2, 3, 4, 5, 6};
  const int32_t sizes[] = {2, 3};
  Tensor t = *Tensor::make(ScalarType::Float, sizes, data);
  EValue v = EValue::from_tensor(&t);
  EValue* items[] = {&v, &v};
  w.profile_event(runtime_event("native_call_add.out", 0, 0, 30, 40));
  w.debug_event("native_call_add.out", 0, 0, v);
  w.debug_event("DELEGATE_CALL", 0, 1, EValue::from_tensor_list(items));
  ProfileEventInfo step = runtime_event({}, 0, 1, 50, 60);
  step.delegate_debug_id_str = "VGF_COPY_INPUTS";
  const uint8_t metadata[] = {'c', '=', '1'};
  step.delegate_debug_metadata = metadata;
  w.profile_event(step);
  w.profile_event(runtime_event("Method::execute", -1, 0, 25, 70));
  return w.serialize();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <repository root>\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  const fs::path programs = root / "runtime/fuzz/corpus/program_fuzzer";
  for (const auto& sample : samples::all_samples()) {
    if (sample.name.ends_with(".ptd")) write_seed(root / "runtime/fuzz/corpus/ptd_fuzzer", sample.name, sample.build());
    else write_seed(programs, sample.name, sample.build());
  }
  write_seed(root / "runtime/fuzz/corpus/etdump_fuzzer", "every_event.etdp", etdump_seed());

  // cortex_m kernels with program-given arguments.
  const ScalarType F = ScalarType::Float, I8 = ScalarType::Char;
  write_seed(programs, "cortex_m_quantize.pte",
             make_one_op_program("cortex_m::quantize_per_tensor.out",
                                 {OpArg::input(F, {2, 3}), OpArg::real(0.05), OpArg::integer(3), OpArg::integer(-128),
                                  OpArg::integer(127), OpArg::integer(int64_t(I8)), OpArg::output(I8, {2, 3})}));
  write_seed(programs, "cortex_m_dequantize.pte",
             make_one_op_program("cortex_m::dequantize_per_tensor.out",
                                 {OpArg::input(I8, {2, 3}), OpArg::real(0.05), OpArg::integer(3), OpArg::integer(-128),
                                  OpArg::integer(127), OpArg::integer(int64_t(I8)), OpArg::output(F, {2, 3})}));

  // Inputs: float (2,3) .npy, a raw int8 (4,) file, a 0-d bool .npy.
  const fs::path inputs = root / "executor_runner/fuzz/corpus/input_fuzzer";
  write_seed(inputs, "float_2x3.npy", npy_seed(F, 0x02 | (1 << 2) | (2 << 4), "<f4", "(2, 3)", std::string(24, '\0')));
  write_seed(inputs, "int8_4.raw", std::vector<uint8_t>{uint8_t(I8), 0x01 | (3 << 2), 1, 2, 3, 4});
  write_seed(inputs, "bool_scalar.npy", npy_seed(ScalarType::Bool, 0x80, "|b1", "()", std::string(1, '\1')));

#ifdef VKRT_SEEDS_ETHOSU
  using namespace vkrt::ethosu;
  const fs::path ethosu = root / "ethosu/fuzz/corpus/ethosu_fuzzer";
  auto six = testing::sample_contents(), four = testing::sample_contents(VelaIoLayout::Shape4D);
  auto legacy = testing::sample_contents();
  legacy.legacy_scratch_data = true;
  write_seed(ethosu, "cop1_6d.vela", write_vela_bin_stream(six));
  write_seed(ethosu, "cop1_4d.vela", write_vela_bin_stream(four));
  write_seed(ethosu, "cop1_legacy_scratch.vela", write_vela_bin_stream(legacy));
  write_seed(ethosu, "cop2_separate_io.vela", write_vela_bin_stream(testing::sample_contents_separate_io()));
  write_seed(ethosu, "cop1.cmd_data", six.cmd_data);
  write_seed(ethosu, "cop2.cmd_data", testing::sample_contents_separate_io().cmd_data);
  write_seed(programs, "ethosu_delegate.pte",
             one_delegate_program("EthosUBackend", write_vela_bin_stream(six),
                                  {{I8, {2, 3}}, {ScalarType::Short, {4}}}, {{I8, {2, 3}}}));
#endif
#ifdef VKRT_SEEDS_VGF
  {  // VgfBackend: int8 (1,4) -> CLAMP -> int8 (1,4).
    using namespace vkrt::vgf;
    Graph g;
    g.name = "clamp";
    auto tensor = [&g](const char* name) {
      TensorInfo info;
      info.name = name;
      info.dtype = DType::Int8;
      info.shape = {1, 4};
      return g.add_tensor(std::move(info));
    };
    const TensorId x = tensor("x"), y = tensor("y");
    g.inputs.push_back({x, "x", 0, 0});
    ClampAttr clamp;
    clamp.min_int = clamp.min_fp = -10;
    clamp.max_int = clamp.max_fp = 10;
    g.ops.push_back(Op{OpKind::CLAMP, {x}, {y}, clamp, "clamp"});
    g.outputs.push_back({y, "y", 1, 0});
    auto vgf = write_graph_vgf(g);
    if (vgf.ok())
      write_seed(programs, "vgf_delegate.pte", one_delegate_program("VgfBackend", *vgf, {{I8, {1, 4}}}, {{I8, {1, 4}}}));
    else
      write_seed(programs, "vgf_delegate.pte", vgf.status());
    write_seed(root / "vgf/fuzz/corpus/vgf_fuzzer", "clamp.vgf", vgf);
  }
#endif
#ifdef VKRT_SEEDS_VGF_GRAPHS
  // vgf_fuzzer: the recipe samples' small CNN in every precision (convolutions, RESCALE with
  // int32 and int48 inputs, CLAMP, ADD, AVG_POOL2D, RESHAPE; a few KB each).
  for (samples::Precision p : {samples::Precision::Int8, samples::Precision::A16W8, samples::Precision::Fp32})
    write_seed(root / "vgf/fuzz/corpus/vgf_fuzzer", std::string("small_cnn_") + samples::precision_name(p) + ".vgf",
               vgf::write_graph_vgf(samples::build_small_cnn(p)));
#endif
  // program_fuzzer: the Cortex-M recipe sample (every cortex_m conv-like kernel's arguments).
  write_seed(programs, "dscnn_int8_cortex_m.pte", samples::dscnn_int8_program());
#ifdef VKRT_SEEDS_VULKAN_CACHE
  {
    using namespace vkrt::vulkan;
    const fs::path caches = root / "vgf/vulkan/fuzz/corpus/vulkan_cache_fuzzer";
    const DeviceInfo device = fuzzing::fuzz_device();
    // A driver payload: VkPipelineCacheHeaderVersionOne for the device, then 16 bytes of "data".
    std::vector<uint8_t> payload(16 + VK_UUID_SIZE + 16, 0);
    const uint32_t fields[4] = {16 + VK_UUID_SIZE, VK_PIPELINE_CACHE_HEADER_VERSION_ONE, device.vendor_id,
                                device.device_id};
    std::memcpy(payload.data(), fields, sizeof(fields));
    std::memcpy(payload.data() + 16, device.pipeline_cache_uuid.data(), VK_UUID_SIZE);
    write_seed(caches, "pipelines.bin", encode_cache_file(payload, device));
    // A chain file: source text and a SPIR-V header's words.
    const uint32_t words[5] = {0x07230203, 0x00010000, 0, 1, 0};
    write_seed(caches, "chain.spv", encode_chain_cache_file("void main() {}\n", words));
  }
#endif
  return failures ? 1 : 0;
}
