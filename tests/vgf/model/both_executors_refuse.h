// For the validate-once tests: a graph that breaks a TOSA rule must be refused by every executor
// this build has (cpu, and vulkan where a device exists) at prepare, as InvalidProgram, with one
// and the same message, containing `fragment`.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "vgf/cpu/cpu_executor.h"
#include "vgf/executor.h"
#include "vgf/ir/graph.h"

namespace vkrt::vgf {

inline void expect_both_executors_refuse(const Graph& graph, const std::string& fragment, const std::string& what) {
  register_cpu_executor();
  std::vector<std::string> messages;
  for (const char* name : {"cpu", "vulkan"}) {
    auto exec = create_executor(name);
    if (!exec.ok()) {
      std::printf("%s executor unavailable here: %s\n", name, exec.status().to_string().c_str());
      continue;
    }
    Status s = (*exec)->prepare(graph, ExecutorOptions{});
    ASSERT_FALSE(s.is_ok()) << name << ": " << what;
    EXPECT_EQ(s.code(), Error::InvalidProgram) << name << ": " << s.to_string();
    messages.push_back(s.message());
  }
  ASSERT_FALSE(messages.empty());
  for (const std::string& m : messages) {
    EXPECT_EQ(m, messages[0]) << what;
    EXPECT_NE(m.find(fragment), std::string::npos) << m;
  }
}

}  // namespace vkrt::vgf
