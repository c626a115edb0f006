// Tests and benchmarks that call the cortex_m compute functions directly run them on the
// runtime's own pool, so that what they measure is what a Method gets.
#pragma once

#include "vkrt/thread_pool.h"

namespace vkrt::testing {

using ThreadRunner = vkrt::ThreadPool;

}  // namespace vkrt::testing
