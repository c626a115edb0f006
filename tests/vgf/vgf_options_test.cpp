// parse_vgf_options (vkrt/vgf.h): defaults, every key, the environment-variable fallbacks, the
// boolean spellings, unknown keys, and the round trip through VgfOptions::to_backend_options.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "vkrt/vgf.h"

namespace vkrt {
namespace {

// Every variable parse_vgf_options reads.
const char* const kEnvVars[] = {"VKRT_VULKAN_DEVICE",    "VKRT_VULKAN_PROFILE",          "VKRT_VULKAN_VALIDATION",
                                "VKRT_VULKAN_CACHE_DIR", "VKRT_VULKAN_ZERO_COPY",        "VKRT_VULKAN_VARIANTS",
                                "VKRT_VULKAN_COOPMAT",   "VKRT_VULKAN_FUSE_ELEMENTWISE", "VKRT_VULKAN_DUMP_CHAINS",
                                "XDG_CACHE_HOME",        "HOME"};

// Clears every variable for the test and restores them after it (ctest sets some of them).
class VgfOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kEnvVars) {
      const char* v = std::getenv(name);
      saved_.push_back(v ? std::optional<std::string>(v) : std::nullopt);
      ::unsetenv(name);
    }
  }
  void TearDown() override {
    for (size_t i = 0; i < saved_.size(); ++i) {
      if (saved_[i]) ::setenv(kEnvVars[i], saved_[i]->c_str(), 1);
      else ::unsetenv(kEnvVars[i]);
    }
  }
  static void set_env(const char* name, const char* value) { ::setenv(name, value, 1); }

 private:
  std::vector<std::optional<std::string>> saved_;
};

VgfOptions parse_ok(const BackendOptions& o) {
  auto r = parse_vgf_options(o);
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  return r.ok() ? *r : VgfOptions{};
}

BackendOptions one(std::string key, std::string value) {
  BackendOptions o;
  o.set(std::move(key), std::move(value));
  return o;
}

// The error of parsing `o`: InvalidArgument, with every one of `needles` in its message.
void expect_invalid(const BackendOptions& o, std::vector<std::string> needles) {
  auto r = parse_vgf_options(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Error::InvalidArgument);
  for (const std::string& n : needles) {
    EXPECT_NE(r.status().message().find(n), std::string::npos) << r.status().message();
  }
}

TEST_F(VgfOptionsTest, DefaultsWithoutKeysOrEnvironment) {
  VgfOptions o = parse_ok({});
  EXPECT_EQ(o, VgfOptions{});  // nothing to fill the cache directory from either
  EXPECT_EQ(o.executor, VgfExecutor::Auto);
  EXPECT_EQ(o.device, "");
  EXPECT_FALSE(o.profile);
  EXPECT_FALSE(o.validation);
  EXPECT_EQ(o.pipeline_cache_dir, "");
  EXPECT_TRUE(o.zero_copy);
  EXPECT_TRUE(o.fusion);
  EXPECT_TRUE(o.fuse_elementwise);
  EXPECT_EQ(o.variants, VgfVariants::Auto);
  EXPECT_EQ(o.coopmat, "");
  EXPECT_FALSE(o.dump_chains);
  EXPECT_EQ(o.num_threads, 1);
  EXPECT_EQ(o.memory_budget_bytes, 0u);
}

TEST_F(VgfOptionsTest, DefaultCacheDirectoryFromXdgThenHome) {
  set_env("HOME", "/home/u");
  EXPECT_EQ(parse_ok({}).pipeline_cache_dir, "/home/u/.cache/vkrt");
  set_env("XDG_CACHE_HOME", "/xdg");
  EXPECT_EQ(parse_ok({}).pipeline_cache_dir, "/xdg/vkrt");
  set_env("VKRT_VULKAN_CACHE_DIR", "/env/cache");
  EXPECT_EQ(parse_ok({}).pipeline_cache_dir, "/env/cache");
  set_env("VKRT_VULKAN_CACHE_DIR", "off");
  EXPECT_EQ(parse_ok({}).pipeline_cache_dir, "");
  EXPECT_EQ(parse_ok(one("VgfBackend.pipeline_cache_dir", "/key")).pipeline_cache_dir, "/key");
  EXPECT_EQ(parse_ok(one("VgfBackend.pipeline_cache_dir", "off")).pipeline_cache_dir, "");
  EXPECT_EQ(parse_ok(one("VgfBackend.pipeline_cache_dir", "")).pipeline_cache_dir, "");
}

TEST_F(VgfOptionsTest, EveryKey) {
  BackendOptions b;
  b.set("VgfBackend.executor", "vulkan");
  b.set("VgfBackend.device", "NVIDIA");
  b.set("VgfBackend.profile", "1");
  b.set("VgfBackend.validation", "true");
  b.set("VgfBackend.pipeline_cache_dir", "/tmp/c");
  b.set("VgfBackend.zero_copy", "off");
  b.set("VgfBackend.fusion", "0");
  b.set("VgfBackend.fuse_elementwise", "false");
  b.set("VgfBackend.variants", "coopmat");
  b.set("VgfBackend.coopmat", "16w");
  b.set("VgfBackend.dump_chains", "on");
  b.set("VgfBackend.num_threads", "8");
  b.set("VgfBackend.memory_budget_bytes", "1048576");
  b.set("EthosUBackend.driver", "recording");  // another backend's key: not looked at
  VgfOptions o = parse_ok(b);
  EXPECT_EQ(o.executor, VgfExecutor::Vulkan);
  EXPECT_EQ(o.device, "NVIDIA");
  EXPECT_TRUE(o.profile);
  EXPECT_TRUE(o.validation);
  EXPECT_EQ(o.pipeline_cache_dir, "/tmp/c");
  EXPECT_FALSE(o.zero_copy);
  EXPECT_FALSE(o.fusion);
  EXPECT_FALSE(o.fuse_elementwise);
  EXPECT_EQ(o.variants, VgfVariants::Coopmat);
  EXPECT_EQ(o.coopmat, "16w");
  EXPECT_TRUE(o.dump_chains);
  EXPECT_EQ(o.num_threads, 8);
  EXPECT_EQ(o.memory_budget_bytes, 1048576u);

  EXPECT_EQ(parse_ok(one("VgfBackend.executor", "cpu")).executor, VgfExecutor::Cpu);
  EXPECT_EQ(parse_ok(one("VgfBackend.executor", "auto")).executor, VgfExecutor::Auto);
  EXPECT_EQ(parse_ok(one("VgfBackend.variants", "dot")).variants, VgfVariants::Dot);
  EXPECT_EQ(parse_ok(one("VgfBackend.variants", "portable")).variants, VgfVariants::Portable);
  EXPECT_EQ(parse_ok(one("VgfBackend.coopmat", "auto")).coopmat, "");
  for (std::string_view layout : kVgfCoopmatLayouts) {
    EXPECT_EQ(parse_ok(one("VgfBackend.coopmat", std::string(layout))).coopmat, layout);
  }
}

TEST_F(VgfOptionsTest, EnvironmentWhenTheKeyIsAbsent) {
  set_env("VKRT_VULKAN_DEVICE", "llvmpipe");
  set_env("VKRT_VULKAN_PROFILE", "1");
  set_env("VKRT_VULKAN_VALIDATION", "on");
  set_env("VKRT_VULKAN_CACHE_DIR", "/env/cache");
  set_env("VKRT_VULKAN_ZERO_COPY", "0");
  set_env("VKRT_VULKAN_FUSE_ELEMENTWISE", "false");
  set_env("VKRT_VULKAN_VARIANTS", "dot");
  set_env("VKRT_VULKAN_COOPMAT", "8b");
  set_env("VKRT_VULKAN_DUMP_CHAINS", "1");
  VgfOptions o = parse_ok({});
  EXPECT_EQ(o.device, "llvmpipe");
  EXPECT_TRUE(o.profile);
  EXPECT_TRUE(o.validation);
  EXPECT_EQ(o.pipeline_cache_dir, "/env/cache");
  EXPECT_FALSE(o.zero_copy);
  EXPECT_FALSE(o.fuse_elementwise);
  EXPECT_EQ(o.variants, VgfVariants::Dot);
  EXPECT_EQ(o.coopmat, "8b");
  EXPECT_TRUE(o.dump_chains);

  // A key wins over its variable, even with an empty value (device "" = the default ranking).
  BackendOptions keys;
  keys.set("VgfBackend.device", "");
  keys.set("VgfBackend.profile", "0");
  keys.set("VgfBackend.validation", "0");
  keys.set("VgfBackend.zero_copy", "1");
  keys.set("VgfBackend.fuse_elementwise", "1");
  keys.set("VgfBackend.variants", "auto");
  keys.set("VgfBackend.coopmat", "");
  keys.set("VgfBackend.dump_chains", "0");
  VgfOptions k = parse_ok(keys);
  EXPECT_EQ(k.device, "");
  EXPECT_FALSE(k.profile);
  EXPECT_FALSE(k.validation);
  EXPECT_TRUE(k.zero_copy);
  EXPECT_TRUE(k.fuse_elementwise);
  EXPECT_EQ(k.variants, VgfVariants::Auto);
  EXPECT_EQ(k.coopmat, "");
  EXPECT_FALSE(k.dump_chains);

  // An empty variable counts as unset.
  set_env("VKRT_VULKAN_DEVICE", "");
  set_env("VKRT_VULKAN_PROFILE", "");
  EXPECT_EQ(parse_ok({}).device, "");
  EXPECT_FALSE(parse_ok({}).profile);
}

TEST_F(VgfOptionsTest, BooleanSpellings) {
  for (const char* key : {"VgfBackend.profile", "VgfBackend.validation", "VgfBackend.zero_copy", "VgfBackend.fusion",
                          "VgfBackend.fuse_elementwise", "VgfBackend.dump_chains"}) {
    SCOPED_TRACE(key);
    for (const char* yes : {"1", "true", "on"}) {
      auto r = parse_vgf_options(one(key, yes));
      ASSERT_TRUE(r.ok()) << r.status().to_string();
    }
    for (const char* no : {"0", "false", "off"}) ASSERT_TRUE(parse_vgf_options(one(key, no)).ok());
    for (const char* bad : {"", "yes", "TRUE", "2", " 1", "On"}) {
      SCOPED_TRACE(bad);
      expect_invalid(one(key, bad), {key, std::string("\"") + bad + "\"", "expected 1, 0, true, false, on or off"});
    }
  }
  EXPECT_TRUE(parse_ok(one("VgfBackend.profile", "on")).profile);
  EXPECT_FALSE(parse_ok(one("VgfBackend.zero_copy", "false")).zero_copy);
  // A malformed variable names the variable and the key it stands for.
  set_env("VKRT_VULKAN_ZERO_COPY", "no");
  expect_invalid({}, {"VKRT_VULKAN_ZERO_COPY=\"no\"", "VgfBackend.zero_copy"});
}

TEST_F(VgfOptionsTest, MalformedValues) {
  expect_invalid(one("VgfBackend.executor", "gpu"), {"VgfBackend.executor=\"gpu\"", "auto, cpu or vulkan"});
  expect_invalid(one("VgfBackend.variants", "DOT"), {"VgfBackend.variants=\"DOT\"", "auto, dot, portable or coopmat"});
  expect_invalid(one("VgfBackend.coopmat", "32"), {"VgfBackend.coopmat=\"32\"", "16w"});
  expect_invalid(one("VgfBackend.num_threads", "0"), {"VgfBackend.num_threads=\"0\"", "1 to 1024"});
  expect_invalid(one("VgfBackend.num_threads", "1025"), {"VgfBackend.num_threads"});
  expect_invalid(one("VgfBackend.num_threads", "4x"), {"VgfBackend.num_threads"});
  expect_invalid(one("VgfBackend.memory_budget_bytes", "-1"), {"VgfBackend.memory_budget_bytes"});
  expect_invalid(one("VgfBackend.memory_budget_bytes", "1G"), {"VgfBackend.memory_budget_bytes"});
  set_env("VKRT_VULKAN_VARIANTS", "fastest");
  expect_invalid({}, {"VKRT_VULKAN_VARIANTS=\"fastest\"", "VgfBackend.variants"});
  set_env("VKRT_VULKAN_VARIANTS", "");
  set_env("VKRT_VULKAN_COOPMAT", "32");
  expect_invalid({}, {"VKRT_VULKAN_COOPMAT=\"32\""});
}

TEST_F(VgfOptionsTest, UnknownKeysOfThisBackendOnly) {
  expect_invalid(one("VgfBackend.fuse_elementwize", "0"),
                 {"unknown VgfBackend option", "VgfBackend.fuse_elementwize=\"0\"", "VgfBackend.fuse_elementwise"});
  expect_invalid(one("VgfBackend.", "1"), {"unknown VgfBackend option"});
  // Keys of other backends, and ones that only look alike, are not VgfBackend's to judge.
  BackendOptions other;
  other.set("EthosUBackend.driver", "recording");
  other.set("VgfBackendX.profile", "maybe");
  other.set("vgfbackend.profile", "maybe");
  EXPECT_EQ(parse_ok(other), VgfOptions{});
}

TEST_F(VgfOptionsTest, RoundTripThroughBackendOptions) {
  std::vector<VgfOptions> cases(3);
  cases[1].executor = VgfExecutor::Cpu;
  cases[1].device = "1";
  cases[1].profile = true;
  cases[1].validation = true;
  cases[1].pipeline_cache_dir = "/var/cache/x";
  cases[1].zero_copy = false;
  cases[1].fusion = false;
  cases[1].fuse_elementwise = false;
  cases[1].variants = VgfVariants::Portable;
  cases[1].coopmat = "16z";
  cases[1].dump_chains = true;
  cases[1].num_threads = 1024;
  cases[1].memory_budget_bytes = UINT64_MAX;
  cases[2].executor = VgfExecutor::Vulkan;
  cases[2].variants = VgfVariants::Coopmat;
  cases[2].coopmat = "8";
  for (const VgfOptions& want : cases) {
    EXPECT_EQ(parse_ok(want.to_backend_options()), want);
  }
  // Every field is written, so the environment changes nothing in the round trip.
  for (const char* name : kEnvVars) set_env(name, "1");
  for (const VgfOptions& want : cases) {
    EXPECT_EQ(parse_ok(want.to_backend_options()), want);
  }
  // And every key written is one the parser knows.
  const BackendOptions written = cases[0].to_backend_options();
  for (const auto& [key, value] : written.all()) {
    EXPECT_EQ(key.rfind("VgfBackend.", 0), 0u) << key;
  }
  EXPECT_EQ(written.all().size(), 13u);
}

TEST_F(VgfOptionsTest, CheckTypedOptions) {
  EXPECT_TRUE(check_vgf_options(VgfOptions{}).is_ok());
  VgfOptions o;
  o.num_threads = 0;
  EXPECT_EQ(check_vgf_options(o).code(), Error::InvalidArgument);
  o.num_threads = 4;
  o.coopmat = "17";
  Status s = check_vgf_options(o);
  EXPECT_EQ(s.code(), Error::InvalidArgument);
  EXPECT_NE(s.message().find("VgfOptions::coopmat"), std::string::npos) << s.message();
}

TEST(VgfOptionsNames, EnumNamesParseBack) {
  for (VgfExecutor e : {VgfExecutor::Auto, VgfExecutor::Cpu, VgfExecutor::Vulkan}) {
    EXPECT_EQ(*parse_vgf_executor(vgf_executor_name(e)), e);
  }
  for (VgfVariants v : {VgfVariants::Auto, VgfVariants::Dot, VgfVariants::Portable, VgfVariants::Coopmat}) {
    EXPECT_EQ(*parse_vgf_variants(vgf_variants_name(v)), v);
  }
  EXPECT_EQ(*parse_vgf_variants(""), VgfVariants::Auto);
  EXPECT_FALSE(parse_vgf_variants("Dot").ok());
}

}  // namespace
}  // namespace vkrt
