#include "shaders/shader_library.h"

namespace vkrt::shaders {

const ShaderBinary* find_shader(std::string_view name) {
  for (const ShaderBinary& s : all_shaders()) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

}  // namespace vkrt::shaders
