// Checks shared by the ETDump tests (runner, VGF, bundled): decode a file with vkrt's reader and
// check the structure upstream's runtime gives its runs (shared/docs/etdump.md).
#pragma once

#include <gtest/gtest.h>


#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/conformance.h"
#include "common/run_command.h"
#include "vkrt/etdump.h"

namespace vkrt::testing {

inline Etdump read_etdump_file(const std::string& path) {
  std::vector<uint8_t> bytes = read_file(path);
  auto etdump = read_etdump(bytes);
  EXPECT_TRUE(etdump.ok()) << path << ": " << etdump.status().to_string();
  return etdump.ok() ? *etdump : Etdump{};
}

#if defined(VKRT_FLATC) && defined(VKRT_SCHEMA_DIR)
// Decodes an ETDump file with flatc and the transcribed schema (runtime/schema/etdump.fbs), not
// with vkrt's code; returns the JSON text, "" (and a test failure) when flatc fails. The build's
// flatc and schema folder, or VKRT_TEST_FLATC and VKRT_TEST_SCHEMA_DIR where set (scripts/gpu-kit.sh
// carries both to a GPU host, where the build's paths do not exist).
inline std::string flatc_json(const std::string& etdp) {
  const std::string dir = ::testing::TempDir();
  const std::string flatc_command = tool_command(VKRT_FLATC, "VKRT_TEST_FLATC");
  const std::string schema_dir = tool_command(VKRT_SCHEMA_DIR, "VKRT_TEST_SCHEMA_DIR");
  const std::string cmd = flatc_command + " --json --raw-binary --size-prefixed --strict-json -I " + schema_dir +
                          " -o " + dir + " " + schema_dir + "/etdump.fbs -- " + etdp;
  const CommandResult flatc = run_command(cmd);
  EXPECT_EQ(flatc.exit_code, 0) << cmd << ": " << flatc.out;
  std::string base = etdp.substr(etdp.find_last_of('/') + 1);
  base = base.substr(0, base.find_last_of('.'));
  std::ifstream json(dir + base + ".json");
  std::stringstream text;
  text << json.rdbuf();
  EXPECT_FALSE(text.str().empty()) << "flatc wrote no " << dir << base << ".json";
  return text.str();
}
#endif

// The profile events of `run` without a delegate id, by name, in order.
inline std::vector<std::string> runtime_event_names(const EtdumpRun& run) {
  std::vector<std::string> names;
  for (const EtdumpEvent& e : run.events)
    if (e.kind == EtdumpEvent::Kind::Profile && e.delegate_debug_id_str.empty() && e.delegate_debug_id_int == -1)
      names.push_back(e.name);
  return names;
}

// The delegate events of `run` (profile events with a delegate id).
inline std::vector<const EtdumpEvent*> delegate_events(const EtdumpRun& run) {
  std::vector<const EtdumpEvent*> out;
  for (const EtdumpEvent& e : run.events)
    if (e.kind == EtdumpEvent::Kind::Profile && (!e.delegate_debug_id_str.empty() || e.delegate_debug_id_int != -1))
      out.push_back(&e);
  return out;
}

// A load run: "Default" with Method::init inside Program::load_method, the latter last.
inline void expect_load_run(const EtdumpRun& run) {
  EXPECT_EQ(run.name, "Default");
  std::vector<std::string> names = runtime_event_names(run);
  ASSERT_EQ(names, (std::vector<std::string>{"Method::init", "Program::load_method"}));
  const EtdumpEvent& init = run.events[run.events.size() - 2];
  const EtdumpEvent& load = run.events.back();
  EXPECT_EQ(load.chain_index, -1);
  EXPECT_LE(init.start_time, init.end_time);
  EXPECT_LE(load.start_time, init.start_time);
  EXPECT_GE(load.end_time, init.end_time);
}

// An execute run: events appended as they end (runtime events' end times never decrease), every
// span inside Method::execute (last), each OPERATOR_CALL / DELEGATE_CALL enclosing the events
// of its instruction logged just before it, delegate steps inside their DELEGATE_CALL.
inline void expect_execute_run(const EtdumpRun& run) {
  EXPECT_EQ(run.name, "Execute");
  ASSERT_FALSE(run.events.empty());
  const EtdumpEvent& method = run.events.back();
  ASSERT_EQ(method.name, "Method::execute");
  EXPECT_EQ(method.chain_index, -1);
  uint64_t last_end = 0;
  size_t first_of_instruction = 0;
  for (size_t i = 0; i < run.events.size(); ++i) {
    const EtdumpEvent& e = run.events[i];
    if (e.kind != EtdumpEvent::Kind::Profile) continue;
    EXPECT_LE(e.start_time, e.end_time) << "event " << i;
    EXPECT_GE(e.start_time, method.start_time) << "event " << i;
    EXPECT_LE(e.end_time, method.end_time) << "event " << i;
    const bool is_delegate_step = !e.delegate_debug_id_str.empty() || e.delegate_debug_id_int != -1;
    if (!is_delegate_step) {
      EXPECT_GE(e.end_time, last_end) << "event " << i << " (" << e.name << ") ends before the one before it";
      last_end = e.end_time;
    }
    if (e.name == "OPERATOR_CALL" || e.name == "DELEGATE_CALL") {
      for (size_t k = first_of_instruction; k < i; ++k) {
        const EtdumpEvent& inner = run.events[k];
        EXPECT_EQ(inner.instruction_id, e.instruction_id) << "event " << k;
        if (inner.kind != EtdumpEvent::Kind::Profile) continue;
        EXPECT_GE(inner.start_time, e.start_time) << "event " << k << " starts before its " << e.name;
        EXPECT_LE(inner.end_time, e.end_time) << "event " << k << " ends after its " << e.name;
      }
      first_of_instruction = i + 1;
    }
  }
}

}  // namespace vkrt::testing
