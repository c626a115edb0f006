// executor_runner as a user runs it: exit codes, stdout in the reference format, input and
// output files, bundled mode, single-dash flags, and one-line errors.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "common/conformance.h"
#include "common/run_command.h"
#include "compute/isa.h"
#include "dscnn_program.h"
#include "run_stats.h"
#include "vkrt/pte_writer.h"

namespace {

using RunResult = vkrt::testing::CommandResult;
using vkrt::testing::run_command;

RunResult run(const std::string& args) { return run_command(std::string(VKRT_EXECUTOR_RUNNER) + " " + args); }

std::string tmp(const std::string& name) { return ::testing::TempDir() + "vkrt_runner_" + name; }

void write_floats(const std::string& path, std::vector<float> v) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 4));
}

const char* kAdd = "pte/executorch__examples_arduino_examples_AddModel_model.pte";

TEST(ExecutorRunner, PrintsReferenceFormat) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  RunResult r = run(path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("OutputX 0: tensor(sizes=[3], [2., 2., 2.])\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Model loaded in"), std::string::npos);
  EXPECT_NE(r.out.find("p50"), std::string::npos);
}

TEST(ExecutorRunner, RawAndNpyInputsAndOutputFiles) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  write_floats(tmp("x.bin"), {1, 2, 3});
  RunResult r = run(path + " --inputs " + tmp("x.bin") + " --output_file " + tmp("out") + " --num_executions 3");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("[2., 3., 4.]"), std::string::npos) << r.out;
  std::ifstream out(tmp("out") + "-0.bin", std::ios::binary);
  float v[3] = {};
  out.read(reinterpret_cast<char*>(v), 12);
  EXPECT_EQ(out.gcount(), 12);
  EXPECT_EQ(v[0], 2.0f);
  EXPECT_EQ(v[2], 4.0f);

  // The same input as a NumPy array (format 1.0 header written by hand, padded to 128 bytes).
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::ofstream npy(tmp("x.npy"), std::ios::binary);
  npy.write("\x93NUMPY\x01\x00", 8);
  char len[2] = {char(header.size() & 0xff), char(header.size() >> 8)};
  npy.write(len, 2);
  npy << header;
  float x[3] = {5, 6, 7};
  npy.write(reinterpret_cast<const char*>(x), 12);
  npy.close();
  r = run(path + " --inputs " + tmp("x.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("[6., 7., 8.]"), std::string::npos) << r.out;
}

// forward(x: Tensor[4], y: Double) = x * y, traced with y = 2.0 (the conformance README).
TEST(ExecutorRunner, PrimitiveInputsDefaultToTheTracedValue) {
  VKRT_REQUIRE_CONFORMANCE(path, "pte/corey-cole_djl-executorch-engine__native_spike_prim_input.pte");
  RunResult r = run(path);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Input 1: Double, using the traced value 2."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OutputX 0: tensor(sizes=[4], [2., 2., 2., 2.])"), std::string::npos) << r.out;

  // Given in a file, the traced value is accepted and any other one is refused by name.
  write_floats(tmp("x4.bin"), {1, 2, 3, 4});
  double y = 2.0;
  std::ofstream(tmp("y.bin"), std::ios::binary).write(reinterpret_cast<const char*>(&y), 8);
  r = run(path + " --inputs " + tmp("x4.bin") + "," + tmp("y.bin"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("[2., 4., 6., 8.]"), std::string::npos) << r.out;
  y = 2.5;
  std::ofstream(tmp("y.bin"), std::ios::binary).write(reinterpret_cast<const char*>(&y), 8);
  r = run(path + " --inputs " + tmp("x4.bin") + "," + tmp("y.bin"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("Double input must equal the traced value 2.000000"), std::string::npos) << r.out;
}

TEST(ExecutorRunner, PrintAllAndSingleDashFlags) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  RunResult r = run("-model_path " + path + " -print_output=all");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Output[0][2]: (float) 2."), std::string::npos) << r.out;
}

TEST(ExecutorRunner, ErrorsAreOneLineAndExitOne) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  write_floats(tmp("short.bin"), {1, 2});
  RunResult r = run(path + " --inputs " + tmp("short.bin"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("input size (8) and tensor size (12) mismatch!"), std::string::npos) << r.out;

  r = run(path + " --inputs a.bin,b.bin");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("--inputs names 2 files"), std::string::npos) << r.out;

  r = run(path + " --method_name nope");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("method 'nope' not found"), std::string::npos) << r.out;

  r = run("/nonexistent.pte");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("NotFound (0x20)"), std::string::npos) << r.out;

  VKRT_REQUIRE_CONFORMANCE(xnn, "pte/corey-cole_executorch-numpy-runtime__tests_models_add.pte");
  r = run(xnn);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("backend XnnpackBackend not available"), std::string::npos) << r.out;
}

// --list says for each operator and delegate whether this runner can run it.
TEST(ExecutorRunner, ListMarksOperatorsAndDelegatesAvailableOrMissing) {
  VKRT_REQUIRE_CONFORMANCE(xnn, "pte/corey-cole_executorch-numpy-runtime__tests_models_add.pte");
  RunResult r = run(xnn + " --list");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("delegate XnnpackBackend (missing: not linked)"), std::string::npos) << r.out;
  VKRT_REQUIRE_CONFORMANCE(lstm, "pte/corey-cole_djl-executorch-engine__src_test_resources_lstm_lstm.pte");
  r = run(lstm + " --list");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("operator etnp::lstm.out (missing)"), std::string::npos) << r.out;
  VKRT_REQUIRE_CONFORMANCE(add, "pte/corey-cole_djl-executorch-engine__native_spike_prim_input.pte");
  r = run(add + " --list");
  EXPECT_NE(r.out.find("operator aten::mul.out (available)"), std::string::npos) << r.out;
}

TEST(ExecutorRunner, BundledProgramChecksEveryCase) {
  VKRT_REQUIRE_CONFORMANCE(path, "pte/executorch__extension_module_test_resources_bundled_program.bpte");
  RunResult r = run(path);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("TEST: BundleIO index[9] Test_result: PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("10 passed, 0 failed"), std::string::npos) << r.out;
}

// Without a VgfBackend segment both runs use the same kernels, and the runner says so; a
// bundled program is checked against its own expected outputs and refuses the flag.
TEST(ExecutorRunner, CompareWithCpuOnAProgramWithoutVgf) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  RunResult r = run(path + " --compare_with_cpu");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("the method has no VgfBackend segment, so both runs used the same kernels\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Output 0: same values (3 elements)\n"), std::string::npos) << r.out;
  VKRT_REQUIRE_CONFORMANCE(bundled, "pte/executorch__extension_module_test_resources_bundled_program.bpte");
  r = run(bundled + " --compare_with_cpu");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("error: --compare_with_cpu does not apply to a bundled program"), std::string::npos) << r.out;
}

TEST(ExecutorRunner, HelpExplainsFlags) {
  RunResult r = run("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--model_path", "--data_path", "--inputs", "--method_name", "--num_executions",
                           "--print_output", "--output_file", "--bundled", "--profile", "--vgf_executor", "--compare_with_cpu"})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
}

TEST(ExecutorRunner, ProfileTable) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  RunResult r = run(path + " --profile --num_executions 2");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("aten::add.out"), std::string::npos) << r.out;
}

// Bad input exits 1 with exactly one "error:" line: no abort (exit 134, "terminate called").
void expect_one_line_error(const RunResult& r, const std::string& what) {
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find(what), std::string::npos) << r.out;
  size_t lines = 0;
  for (size_t at = r.out.find("error:"); at != std::string::npos; at = r.out.find("error:", at + 1)) ++lines;
  EXPECT_EQ(lines, 1u) << r.out;
  EXPECT_EQ(r.out.find("terminate called"), std::string::npos) << r.out;
}

// A .npy file (format major.0) with the given header dict text and data bytes.
void write_npy(const std::string& path, const std::string& dict, const std::string& data, int major = 1,
               size_t header_len_override = 0) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  size_t len = header_len_override ? header_len_override : header.size();
  std::ofstream npy(path, std::ios::binary);
  npy.write("\x93NUMPY", 6);
  npy.put(char(major));
  npy.put(0);
  npy.put(char(len & 0xff));
  npy.put(char(len >> 8));
  if (major >= 2) {
    npy.put(char(len >> 16));
    npy.put(char(len >> 24));
  }
  npy << header << data;
}

std::string floats3() {
  float x[3] = {5, 6, 7};
  return std::string(reinterpret_cast<const char*>(x), 12);
}

TEST(ExecutorRunnerBadInput, InputsNamingADirectoryIsRefused) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  std::string dir = tmp("input_dir");
  mkdir(dir.c_str(), 0755);
  expect_one_line_error(run(path + " --inputs " + dir), "is a directory");
}

// Only regular files are read, and only up to what the input needs: /dev/zero would otherwise
// be read until memory runs out, and a huge (sparse) file is refused before any of it is read.
TEST(ExecutorRunnerBadInput, InputsAreBoundedRegularFiles) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  expect_one_line_error(run(path + " --inputs /dev/zero"), "/dev/zero is not a regular file");
  std::string big = tmp("sparse.bin");
  { std::ofstream(big, std::ios::binary); }
  ASSERT_EQ(truncate(big.c_str(), off_t(1) << 30), 0);
  expect_one_line_error(run(path + " --inputs " + big), "the file is 1073741824 bytes, more than the input's 12 bytes");
  unlink(big.c_str());
}

TEST(ExecutorRunnerBadInput, NpyHeadersAreCheckedWithoutThrowing) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  std::string f = tmp("bad.npy");
  auto check = [&](const std::string& dict, const std::string& what, const std::string& data = floats3()) {
    write_npy(f, dict, data);
    SCOPED_TRACE(dict);
    expect_one_line_error(run(path + " --inputs " + f), what);
  };
  check("{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }", "a 'shape' dimension is not a number");
  check("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 3), }",
        "a 'shape' dimension is out of range");
  check("{'descr': '<f4', 'fortran_order': False, 'shape': (3000000000,), }", "a 'shape' dimension is out of range");
  check("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }", "a 'shape' dimension is out of range");
  check("{'descr': '<f4', 'fortran_order': False, 'shape': (3 }", "expected ',' or ')' in 'shape'");
  check("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483647, 2147483647, 2147483647), }",
        ".npy data is 12 bytes, its shape needs more than 2^64");
  check("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483647, 2147483647), }",
        ".npy data is 12 bytes, its shape needs 18446744056529682436");
  check("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", ".npy data is 12 bytes, its shape needs 16");
  check("{'descr': '<f4', 'fortran_order': maybe, 'shape': (3,), }", "'fortran_order' is neither True nor False");
  check("{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }", "Fortran-order arrays are not supported");
  check("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", "dtype '<i4' does not match");
  check("{'descr': '<f4', 'shape': (3,), }", "the header lacks");
  check("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}", "unexpected header key 'extra'");
  check("['<f4', False, (3,)]", "the header is not a dict");
  check("{'descr': '<f4, 'fortran_order': False, 'shape': (3,), }", "malformed .npy header");

  write_npy(f, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", floats3(), 1, 60000);
  expect_one_line_error(run(path + " --inputs " + f), ".npy header runs past the end of the file");
  write_npy(f, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", floats3(), 2, 0xfffffff0);
  expect_one_line_error(run(path + " --inputs " + f), "too long");
  write_npy(f, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", floats3(), 9);
  expect_one_line_error(run(path + " --inputs " + f), "unsupported .npy version 9.0");

  // Well-formed format 2.0 and 3.0 files still read.
  for (int major : {2, 3}) {
    write_npy(f, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3,)}", floats3(), major);
    RunResult r = run(path + " --inputs " + f);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("[6., 7., 8.]"), std::string::npos) << r.out;
  }
}

TEST(ExecutorRunnerBadInput, NumThreadsIsBounded) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  expect_one_line_error(run(path + " --num_threads 100000"), "--num_threads 100000 is more than 1024");
  RunResult r = run(path + " --num_threads 4");
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// --cpu_isa and VKRT_CPU_ISA pin the CPU kernels' level: the DS-CNN sample (cortex_m kernels)
// prints the same outputs at every level the CPU has; a level it lacks or an unknown name is a
// one-line error naming what it has or accepts.
TEST(ExecutorRunner, CpuIsaPinsTheLevelWithTheSameOutputs) {
  const auto program = vkrt::samples::dscnn_int8_program();
  ASSERT_TRUE(program.ok()) << program.status().to_string();
  const std::string path = tmp("dscnn.pte");
  ASSERT_TRUE(vkrt::write_bytes_to_file(path, *program).is_ok());
  // The output's raw bytes (--output_file) at the detected level, then at each level.
  auto output_bytes = [](const std::string& base) {
    std::ifstream f(base + "-0.bin", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  };
  const RunResult detected = run(path + " --print_output none --output_file " + tmp("isa_detected"));
  ASSERT_EQ(detected.exit_code, 0) << detected.out;
  const std::string want = output_bytes(tmp("isa_detected"));
  ASSERT_EQ(want.size(), 12u * sizeof(float));  // 12 class scores
  for (const char* name : {"portable", "avx2", "avx512bw", "avx512vnni", "neon", "dotprod", "i8mm"}) {
    vkrt::compute::Isa isa;
    ASSERT_TRUE(vkrt::compute::parse_isa(name, &isa));
    const auto levels = vkrt::compute::available_isas();
    const bool available = std::find(levels.begin(), levels.end(), isa) != levels.end();
    const std::string base = tmp(std::string("isa_") + name);
    const RunResult r = run(path + " --print_output none --cpu_isa " + name + " --output_file " + base);
    if (!available) {
      expect_one_line_error(r, std::string("--cpu_isa: this CPU has no ") + name);
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << name << ": " << r.out;
    EXPECT_EQ(output_bytes(base), want) << name;
    const RunResult env = run_command("VKRT_CPU_ISA=" + std::string(name) + " " + VKRT_EXECUTOR_RUNNER + " " + path +
                                      " --print_output none --output_file " + base + "_env");
    ASSERT_EQ(env.exit_code, 0) << name << ": " << env.out;
    EXPECT_EQ(output_bytes(base + "_env"), want) << name;
  }
  expect_one_line_error(run(path + " --cpu_isa sse9"), "unknown ISA level 'sse9' (accepted: portable, avx2");
  expect_one_line_error(run_command(std::string("VKRT_CPU_ISA=avx9 ") + VKRT_EXECUTOR_RUNNER + " " + path),
                        "VKRT_CPU_ISA: unknown ISA level 'avx9'");
}

TEST(ExecutorRunnerBadInput, NumExecutionsZeroIsRefused) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  RunResult r = run(path + " --num_executions 0");
  expect_one_line_error(r, "--num_executions 0");
  EXPECT_EQ(r.out.find("OutputX"), std::string::npos) << r.out;
}

// Timings are kept in a bounded sample: past RunStats::kSampleSize runs the percentiles come
// from a uniform sample and the runner says so.
TEST(ExecutorRunnerBadInput, RunStatisticsUseBoundedMemory) {
  vkrt::runner::RunStats stats;
  for (int i = 0; i < 1000000; ++i) stats.add(double(i % 1000));
  EXPECT_EQ(stats.count(), 1000000u);
  EXPECT_EQ(stats.sample_size(), vkrt::runner::RunStats::kSampleSize);
  EXPECT_TRUE(stats.sampled());
  EXPECT_EQ(stats.first(), 0.0);
  EXPECT_EQ(stats.min(), 0.0);
  EXPECT_NEAR(stats.mean(), 499.5, 1e-6);
  EXPECT_NEAR(stats.percentile(0.5), 500, 25);
  EXPECT_NEAR(stats.percentile(0.9), 900, 25);

  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  RunResult r = run(path + " --num_executions 20000 --print_output none");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("Executions: 20000; "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(p50 and p90 from a sample of 10000 runs)"), std::string::npos) << r.out;
}

// A write that fails (a full disk: /dev/full behind a symlink; a file-size limit) is an error
// naming the file and the reason, and no truncated output file is left behind.
TEST(ExecutorRunnerBadInput, FailedOutputWritesAreErrors) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  RunResult r;
  if (access("/dev/full", W_OK) == 0) {  // absent in some containers
    std::string base = tmp("full");
    unlink((base + "-0.bin").c_str());
    ASSERT_EQ(symlink("/dev/full", (base + "-0.bin").c_str()), 0);
    r = run(path + " --output_file " + base);
    expect_one_line_error(r, "cannot write " + base + "-0.bin: No space left on device");
    EXPECT_EQ(r.out.find("Wrote output"), std::string::npos) << r.out;
    unlink((base + "-0.bin").c_str());
  }

  // RLIMIT_FSIZE 0 (SIGXFSZ ignored): the write fails with EFBIG after the file was created.
  std::string limited = tmp("limited");
  unlink((limited + "-0.bin").c_str());
  r = run_command("sh -c \"trap '' XFSZ; ulimit -f 0; exec " + std::string(VKRT_EXECUTOR_RUNNER) + " " + path +
                " --output_file " + limited + "\"");
  expect_one_line_error(r, "cannot write " + limited + "-0.bin: File too large");
  struct stat st {};
  EXPECT_NE(lstat((limited + "-0.bin").c_str(), &st), 0) << "a truncated output file was left behind";
}

// Every command-line error is one line and exit 1 (CLI11's own codes are 104 to 109); --help
// still exits 0.
TEST(ExecutorRunnerBadInput, CommandLineErrorsExitOne) {
  for (const char* args : {"--bogus", "--num_executions abc", "--num_executions -1", "--print_output xyz",
                           "--inputs", "--num_threads 1.5"}) {
    SCOPED_TRACE(args);
    expect_one_line_error(run(std::string("x.pte ") + args), "error: ");
  }
  EXPECT_EQ(run("--help").exit_code, 0);
  EXPECT_EQ(run("-h").exit_code, 0);
}

// --memory_budget bounds what a file may make the runtime allocate; the load says how much of
// it the method took.
TEST(ExecutorRunnerBadInput, MemoryBudgetFlag) {
  VKRT_REQUIRE_CONFORMANCE(path, kAdd);
  RunResult r = run(path + " --memory_budget 64M");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("bytes of the memory budget used"), std::string::npos) << r.out;
  expect_one_line_error(run(path + " --memory_budget 1K"), "but the memory budget has");
  expect_one_line_error(run(path + " --memory_budget 12X"), "--memory_budget: '12X' is not a byte count");
  expect_one_line_error(run(path + " --memory_budget 0"), "--memory_budget 0");
}

// A driver that computes nothing (the recording driver) must not pass for a real run.
TEST(ExecutorRunnerBadInput, RecordingDriverSaysOutputsAreNotComputed) {
  VKRT_REQUIRE_CONFORMANCE(path, "pte/Arm-Examples_CMSIS-Executorch__ai_layer_engine_model_ethos_u_minimal_example.pte");
  RunResult r = run(path + " --ethosu_driver recording");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("warning: EthosUBackend: driver 'recording' does not run the NPU; the delegate's outputs are "
                       "not computed"),
            std::string::npos)
      << r.out;
}

}  // namespace
