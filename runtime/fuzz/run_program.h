// What the program fuzzers do with a module they loaded: the load options every fuzz target uses
// (small memory caps; VgfBackend on its CPU executor, EthosUBackend on the recording driver, so that
// delegates run without a GPU or NPU) and a run of every method, with a bundled program's test
// cases loaded and checked when there is one.
#pragma once

#include "vkrt/bundled_program.h"
#include "vkrt/module.h"

namespace vkrt::fuzzing {

// Options for Module::load_from_buffer in every fuzz target.
LoadOptions fuzz_load_options();

// Before each input: forgets what the recording driver recorded for the previous one (it keeps
// every invocation's regions, which would grow without bound over a run).
void reset_backends();

// Builds the metadata of every method, loads it and runs it once on the inputs it holds; with
// `bundled`, also loads each test case's inputs (the first few per method), runs and checks the
// outputs against the expected ones.
void run_every_method(Module& module, const BundledProgram* bundled);

}  // namespace vkrt::fuzzing
