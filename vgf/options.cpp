// VgfOptions (vkrt/vgf.h): the one parser of VgfBackend's options, from "VgfBackend.*" backend
// options and, for an absent key, its environment variable. The only getenv in the VGF path.
#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

#include "vkrt/vgf.h"

namespace vkrt {

// ---- Enumerations ----

const char* vgf_executor_name(VgfExecutor executor) {
  switch (executor) {
    case VgfExecutor::Cpu: return "cpu";
    case VgfExecutor::Vulkan: return "vulkan";
    default: return "auto";
  }
}

Result<VgfExecutor> parse_vgf_executor(std::string_view text) {
  if (text.empty() || text == "auto") return VgfExecutor::Auto;
  if (text == "cpu") return VgfExecutor::Cpu;
  if (text == "vulkan") return VgfExecutor::Vulkan;
  return make_error(Error::InvalidArgument, "VGF executor: expected cpu, vulkan or auto, got '", std::string(text),
                    "'");
}

const char* vgf_variants_name(VgfVariants variants) {
  switch (variants) {
    case VgfVariants::Dot: return "dot";
    case VgfVariants::Portable: return "portable";
    case VgfVariants::Coopmat: return "coopmat";
    default: return "auto";
  }
}

Result<VgfVariants> parse_vgf_variants(std::string_view text) {
  if (text.empty() || text == "auto") return VgfVariants::Auto;
  if (text == "dot") return VgfVariants::Dot;
  if (text == "portable") return VgfVariants::Portable;
  if (text == "coopmat") return VgfVariants::Coopmat;
  return make_error(Error::InvalidArgument, "VGF shader variants: expected auto, dot, portable or coopmat, got '",
                    std::string(text), "'");
}

namespace {

const char* bool_text(bool on) { return on ? "1" : "0"; }

bool is_coopmat_layout(std::string_view text) {
  for (std::string_view layout : kVgfCoopmatLayouts) {
    if (text == layout) return true;
  }
  return false;
}

// Where a value came from, for errors: the key, or the environment variable standing for it.
struct Source {
  std::string_view key;
  const char* env = nullptr;  // set when the value came from the environment
  std::string describe(std::string_view value) const {
    if (env) return std::string(env) + "=\"" + std::string(value) + "\" (for " + std::string(key) + ")";
    return std::string(key) + "=\"" + std::string(value) + "\"";
  }
};

// The value of `key`, else of the environment variable `env` (may be null) when set and not
// empty; false when neither.
bool lookup(const BackendOptions& options, std::string_view key, const char* env, std::string* value,
            Source* source) {
  source->key = key;
  source->env = nullptr;
  if (options.has(key)) {
    *value = std::string(options.get(key));
    return true;
  }
  if (env) {
    const char* e = std::getenv(env);
    if (e && *e) {
      *value = e;
      source->env = env;
      return true;
    }
  }
  return false;
}

Status parse_bool(const BackendOptions& options, std::string_view key, const char* env, bool* out) {
  std::string v;
  Source src;
  if (!lookup(options, key, env, &v, &src)) return Status::ok();
  if (v == "1" || v == "true" || v == "on") {
    *out = true;
  } else if (v == "0" || v == "false" || v == "off") {
    *out = false;
  } else {
    return make_error(Error::InvalidArgument, src.describe(v), ": expected 1, 0, true, false, on or off");
  }
  return Status::ok();
}

template <typename Int>
Status parse_int(const BackendOptions& options, std::string_view key, Int min, Int max, Int* out) {
  std::string v;
  Source src;
  if (!lookup(options, key, nullptr, &v, &src)) return Status::ok();
  Int n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < min || n > max) {
    return make_error(Error::InvalidArgument, src.describe(v), ": expected a decimal integer from ", min, " to ",
                      max);
  }
  *out = n;
  return Status::ok();
}

// The pipeline cache directory: the key, else VKRT_VULKAN_CACHE_DIR, else $XDG_CACHE_HOME/vkrt,
// else $HOME/.cache/vkrt, else none; "off" (and an empty key value) = none.
std::string pipeline_cache_dir(const BackendOptions& options) {
  std::string v;
  Source src;
  if (lookup(options, kVgfPipelineCacheDirOption, "VKRT_VULKAN_CACHE_DIR", &v, &src)) return v == "off" ? "" : v;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/vkrt";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/vkrt";
  return "";
}

constexpr std::string_view kKnownKeys[] = {
    kVgfExecutorOption,       kVgfDeviceOption,     kVgfProfileOption,      kVgfValidationOption,
    kVgfPipelineCacheDirOption, kVgfZeroCopyOption, kVgfFusionOption,       kVgfFuseElementwiseOption,
    kVgfVariantsOption,       kVgfCoopmatOption,    kVgfDumpChainsOption,   kVgfNumThreadsOption,
    kVgfMemoryBudgetOption,
};

}  // namespace

Result<VgfOptions> parse_vgf_options(const BackendOptions& options) {
  for (const auto& [key, value] : options.all()) {
    if (!std::string_view(key).starts_with(kVgfOptionPrefix)) continue;
    bool known = false;
    for (std::string_view k : kKnownKeys) known |= key == k;
    if (!known) {
      std::string list;
      for (std::string_view k : kKnownKeys) list += (list.empty() ? "" : ", ") + std::string(k);
      return make_error(Error::InvalidArgument, "unknown VgfBackend option ", key, "=\"", value, "\" (known: ", list,
                        ")");
    }
  }

  VgfOptions o;
  std::string v;
  Source src;
  if (lookup(options, kVgfExecutorOption, nullptr, &v, &src)) {
    auto e = parse_vgf_executor(v);
    if (!e.ok()) return make_error(Error::InvalidArgument, src.describe(v), ": expected auto, cpu or vulkan");
    o.executor = *e;
  }
  if (lookup(options, kVgfDeviceOption, "VKRT_VULKAN_DEVICE", &v, &src)) o.device = v;
  VKRT_RETURN_IF_ERROR(parse_bool(options, kVgfProfileOption, "VKRT_VULKAN_PROFILE", &o.profile));
  VKRT_RETURN_IF_ERROR(parse_bool(options, kVgfValidationOption, "VKRT_VULKAN_VALIDATION", &o.validation));
  o.pipeline_cache_dir = pipeline_cache_dir(options);
  VKRT_RETURN_IF_ERROR(parse_bool(options, kVgfZeroCopyOption, "VKRT_VULKAN_ZERO_COPY", &o.zero_copy));
  VKRT_RETURN_IF_ERROR(parse_bool(options, kVgfFusionOption, nullptr, &o.fusion));
  VKRT_RETURN_IF_ERROR(
      parse_bool(options, kVgfFuseElementwiseOption, "VKRT_VULKAN_FUSE_ELEMENTWISE", &o.fuse_elementwise));
  if (lookup(options, kVgfVariantsOption, "VKRT_VULKAN_VARIANTS", &v, &src)) {
    auto p = parse_vgf_variants(v);
    if (!p.ok()) {
      return make_error(Error::InvalidArgument, src.describe(v), ": expected auto, dot, portable or coopmat");
    }
    o.variants = *p;
  }
  if (lookup(options, kVgfCoopmatOption, "VKRT_VULKAN_COOPMAT", &v, &src)) {
    if (v == "auto") v.clear();
    if (!v.empty() && !is_coopmat_layout(v)) {
      return make_error(Error::InvalidArgument, src.describe(v),
                        ": expected auto, 16w, 16, 16b, 16x, 16y, 16z, 8w, 8 or 8b");
    }
    o.coopmat = v;
  }
  VKRT_RETURN_IF_ERROR(parse_bool(options, kVgfDumpChainsOption, "VKRT_VULKAN_DUMP_CHAINS", &o.dump_chains));
  VKRT_RETURN_IF_ERROR(parse_int(options, kVgfNumThreadsOption, 1, 1024, &o.num_threads));
  VKRT_RETURN_IF_ERROR(
      parse_int<uint64_t>(options, kVgfMemoryBudgetOption, 0, UINT64_MAX, &o.memory_budget_bytes));
  return o;
}

Status check_vgf_options(const VgfOptions& o) {
  VKRT_CHECK_OR_RETURN(o.num_threads >= 1 && o.num_threads <= 1024, InvalidArgument,
                       "VgfOptions::num_threads: ", o.num_threads, " (1 to 1024)");
  VKRT_CHECK_OR_RETURN(o.coopmat.empty() || is_coopmat_layout(o.coopmat), InvalidArgument, "VgfOptions::coopmat: \"",
                       o.coopmat, "\" (expected \"\", 16w, 16, 16b, 16x, 16y, 16z, 8w, 8 or 8b)");
  return Status::ok();
}

BackendOptions VgfOptions::to_backend_options() const {
  BackendOptions out;
  auto set = [&out](std::string_view key, std::string value) { out.set(std::string(key), std::move(value)); };
  set(kVgfExecutorOption, vgf_executor_name(executor));
  set(kVgfDeviceOption, device);
  set(kVgfProfileOption, bool_text(profile));
  set(kVgfValidationOption, bool_text(validation));
  set(kVgfPipelineCacheDirOption, pipeline_cache_dir.empty() ? "off" : pipeline_cache_dir);
  set(kVgfZeroCopyOption, bool_text(zero_copy));
  set(kVgfFusionOption, bool_text(fusion));
  set(kVgfFuseElementwiseOption, bool_text(fuse_elementwise));
  set(kVgfVariantsOption, vgf_variants_name(variants));
  set(kVgfCoopmatOption, coopmat.empty() ? "auto" : coopmat);
  set(kVgfDumpChainsOption, bool_text(dump_chains));
  set(kVgfNumThreadsOption, std::to_string(num_threads));
  set(kVgfMemoryBudgetOption, std::to_string(memory_budget_bytes));
  return out;
}

}  // namespace vkrt
