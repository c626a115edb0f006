// The TOSA 1.0 ERROR_IF rules on an op's attributes that do not depend on shapes resolved at
// execute (tosa.md), checked by validate_graph() so that every reader refuses a graph that breaks
// them and both executors see only graphs that keep them: a VGF with a corrupt RESCALE shift is
// refused the same way whichever executor would run it, instead of running on one of them with
// meaningless outputs. Today: RESCALE. Issue 17 moves every op's rules into its descriptor.
#pragma once

#include <cstddef>

#include "vgf/ir/graph.h"
#include "vkrt/error.h"

namespace vkrt::vgf {

// InvalidProgram naming the op, the attribute and the rule: "op 3 (RESCALE): shift[17] = 64
// outside [2, 62]". Operand ids must already be in range (validate_graph checks them first).
Status check_op_attributes(const Graph& graph, size_t op_index);

}  // namespace vkrt::vgf
