// The "cpu" GraphExecutor: runs each IR op with the TOSA reference kernels of
// cpu_fallback/tosa (vkrt_tosa_kernels), bit-exact for integer graphs.
//
// prepare(): validates the graph, infers static shapes, translates every op's attributes into
// the kernels' POD structs once (RESCALE multipliers widened, TABLE tables narrowed, constant
// CONV2D weights packed), checks every op with the kernels' check_<op>() and lists *all*
// unsupported ops in one NotSupported error, allocates one buffer per intermediate tensor and
// the kernel scratch for ExecutorOptions::num_threads. The packed weights and the scratch are
// counted in ExecutorOptions::memory_budget before they are allocated; the intermediates are the
// caller's to count (ModelRunner does). run() binds the caller's tensors and calls the kernels;
// it allocates nothing for static graphs run on the threads prepare was told of. Dynamic graphs
// re-infer shapes from the bound inputs and (re)allocate intermediates when the shapes change
// (the one exception to "no allocation on execute", since their sizes are unknown at init); the
// scratch grows, counted in the budget, for a run with more threads or larger shapes.
#pragma once

#include <memory>

#include "vgf/executor.h"

namespace vkrt::vgf {

std::unique_ptr<GraphExecutor> make_cpu_executor();

// Registers the "cpu" factory (idempotent). The backend calls it; it is also registered from a
// static initialiser when vkrt_vgf_backend is linked whole.
void register_cpu_executor();

}  // namespace vkrt::vgf
