// executor_runner on a VGF file (`executor_runner model.vgf`): the file runs through the public
// VGF API (vkrt/vgf.h) with the flags that apply to it (docs/executor_runner.md "VGF files").
#pragma once

#include "executor_runner/runner_common.h"

namespace vkrt::runner {

// Returns the process exit code.
int run_vgf_file(const Flags& flags);

}  // namespace vkrt::runner
