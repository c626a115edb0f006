// Running a tool as a user does, for the tests of executor_runner, vkrt_bench and flatc.
#pragma once

#include <string>

namespace vkrt::testing {

struct CommandResult {
  int exit_code = -1;  // -1 when the command could not start or did not exit normally
  std::string out;     // stdout, and stderr too unless asked otherwise
};

// Runs `command_line` through the shell and collects what it prints.
CommandResult run_command(const std::string& command_line, bool with_stderr = true);

// True when a tool's output says it could not run on Vulkan here: no loader, no driver, no
// device, or a build without the Vulkan executor (VKRT_WITH_VULKAN=OFF, the aarch64 build).
bool vulkan_unavailable(const std::string& tool_output);

// The command line that starts a tool the tests use (`built`: its path from CMake), or a folder
// they read: the environment variable `override_variable` where set, so that scripts/gpu-kit.sh
// can start the packed binary under its own dynamic loader on a GPU host, where the build's path
// does not exist.
std::string tool_command(const char* built, const char* override_variable);

}  // namespace vkrt::testing
