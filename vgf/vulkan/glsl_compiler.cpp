#include "vgf/vulkan/glsl_compiler.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <spirv-tools/libspirv.hpp>

#include <mutex>
#include <string>

namespace vkrt::vulkan {
namespace {

// glslang keeps process-wide tables (symbol tables per language/version). InitializeProcess is
// reference counted; we take one reference for the life of the process and never finalise,
// so executors created later do not pay for re-initialisation.
void ensure_glslang_initialised() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

// The last lines of a log are the useful ones; keep messages bounded.
std::string trimmed(std::string log) {
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  constexpr size_t kMax = 2000;
  if (log.size() > kMax) log = "..." + log.substr(log.size() - kMax);
  return log;
}

}  // namespace

Result<std::vector<uint32_t>> compile_glsl_compute(std::string_view source, std::string_view name) {
  ensure_glslang_initialised();
  // glslang's parse context is per TShader, but its pool allocator is thread-local; TShader and
  // TProgram objects are created and destroyed on this thread only.
  const std::string text(source);
  const char* strings[] = {text.c_str()};
  const std::string label(name);
  const char* names[] = {label.c_str()};
  glslang::TShader shader(EShLangCompute);
  shader.setStringsWithLengthsAndNames(strings, nullptr, names, 1);
  shader.setEntryPoint("main");
  // Vulkan 1.2 client, SPIR-V 1.5: what the build-time shaders use (glslangValidator
  // --target-env vulkan1.2).
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 450, false, messages)) {
    return make_error(Error::InvalidProgram, "glslang could not compile ", label, ": ",
                      trimmed(shader.getInfoLog()));
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    return make_error(Error::InvalidProgram, "glslang could not link ", label, ": ",
                      trimmed(program.getInfoLog()));
  }
  std::vector<uint32_t> words;
  spv::SpvBuildLogger logger;
  glslang::SpvOptions options;
  options.validate = false;  // validated below with SPIRV-Tools, the error is ours to word
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), words, &logger, &options);
  if (words.empty()) {
    return make_error(Error::InvalidProgram, "glslang produced no SPIR-V for ", label, ": ",
                      trimmed(logger.getAllMessages()));
  }
  VKRT_RETURN_IF_ERROR(validate_spirv(words, label));
  return words;
}

Status validate_spirv(std::span<const uint32_t> words, std::string_view label) {
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_2);
  std::string diagnostics;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& pos, const char* msg) {
    if (diagnostics.size() < 2000) {
      diagnostics += "word " + std::to_string(pos.index) + ": " + msg + "\n";
    }
  });
  if (!tools.Validate(words.data(), words.size())) {
    return make_error(Error::Internal, "SPIR-V for ", label, " is invalid: ", trimmed(diagnostics));
  }
  return Status::ok();
}

}  // namespace vkrt::vulkan
