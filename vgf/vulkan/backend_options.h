// Reading VgfBackend's BackendOptions in the Vulkan library (the executor and the COMPUTE-segment
// runner): an option wins over its environment variable (docs/vulkan-executor.md "Options and
// environment"). The only place the library reads the environment for options.
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "vkrt/backend.h"

namespace vkrt::vulkan {

// Off unless set to "1"/"true"/"on" (option first, then `env`, which may be null).
inline bool option_on(const BackendOptions* options, std::string_view key, const char* env) {
  if (options && options->has(key)) {
    std::string_view v = options->get(key);
    return v == "1" || v == "true" || v == "on";
  }
  const char* e = env ? std::getenv(env) : nullptr;
  return e && (std::strcmp(e, "1") == 0 || std::strcmp(e, "true") == 0);
}

// On unless set to "0"/"false"/"off" (option first, then `env`).
inline bool option_default_on(const BackendOptions* options, std::string_view key, const char* env) {
  auto off = [](std::string_view v) { return v == "0" || v == "false" || v == "off"; };
  if (options && options->has(key)) return !off(options->get(key));
  const char* e = env ? std::getenv(env) : nullptr;
  return !(e && off(e));
}

// The option's text; empty when unset.
inline std::string option_string(const BackendOptions* options, std::string_view key) {
  return options ? std::string(options->get(key)) : std::string();
}

}  // namespace vkrt::vulkan
