// executor_runner as a user runs it: exit codes, stdout in the reference format, input and
// output files, bundled mode, single-dash flags, and one-line errors.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "common/conformance.h"

namespace {

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};

RunResult run(const std::string& args) {
  std::string cmd = std::string(VKRT_EXECUTOR_RUNNER) + " " + args + " 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

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

}  // namespace
