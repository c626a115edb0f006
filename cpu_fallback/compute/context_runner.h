// A kernel's threads (KernelContext::parallel_for) as the runner a compute::Exec takes: what the
// kernel wrappers (cortex_m, portable) hand the compute core. Apart from exec.h because it
// needs the runtime library (KernelContext), which the compute core itself does not link.
#pragma once

#include <functional>

#include "vkrt/kernel.h"

namespace vkrt::compute {

class ContextRunner final : public ParallelRunner {
 public:
  explicit ContextRunner(KernelContext& ctx) : ctx_(ctx) {}
  int num_threads() const override { return ctx_.num_threads(); }
  void run(int count, const std::function<void(int)>& task) override { ctx_.parallel_for(count, task); }

 private:
  KernelContext& ctx_;
};

}  // namespace vkrt::compute
