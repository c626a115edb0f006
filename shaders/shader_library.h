// The SPIR-V of every shader variant, compiled and validated at build time (shaders/CMakeLists.txt,
// variants.cmake) and embedded here. Variant names: "<op>_<input type>[_<output type>]".
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace vkrt::shaders {

struct ShaderBinary {
  std::string_view name;
  std::span<const uint32_t> words;
};

std::span<const ShaderBinary> all_shaders();
// nullptr when no variant has that name.
const ShaderBinary* find_shader(std::string_view name);

}  // namespace vkrt::shaders
