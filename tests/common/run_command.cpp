#include "common/run_command.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>

namespace vkrt::testing {

CommandResult run_command(const std::string& command_line, bool with_stderr) {
  CommandResult r;
  FILE* p = popen((command_line + (with_stderr ? " 2>&1" : " 2>/dev/null")).c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool vulkan_unavailable(const std::string& out) {
  for (const char* sign : {"no Vulkan device", "no Vulkan driver", "libvulkan.so.1) not found",
                           "graph executor 'vulkan' is not registered"}) {
    if (out.find(sign) != std::string::npos) return true;
  }
  return false;
}

std::string tool_command(const char* built, const char* override_variable) {
  const char* command = std::getenv(override_variable);
  return command != nullptr && *command != '\0' ? command : built;
}

}  // namespace vkrt::testing
