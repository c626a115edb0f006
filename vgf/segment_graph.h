// From a decoded VGF file to the graph IR of one GRAPH segment: reads the segment's SPIR-V module
// at its entry point, resolves OpGraphConstantARM through the constant section (the segment's
// constant_bindings table when present, else GraphConstantID == constant index, §3), binds graph
// I/O to resource-table entries through the segment's descriptor bindings, fills dynamic
// dimensions from the resource table's shapes, and runs static shape inference.
#pragma once

#include <cstddef>

#include "vgf/format/vgf_file.h"
#include "vgf/ir/graph.h"
#include "vkrt/error.h"

namespace vkrt::vgf {

// The Graph references constant bytes inside `file` (and the bytes `file` was decoded from).
Result<Graph> build_segment_graph(const VgfFile& file, size_t segment_index);

// The TOSA element type a resource format holds (R8_SINT/R8_UINT -> Int8, R64_SINT -> Int48, ...);
// Unknown for formats graphs do not use.
DType dtype_from_vk_format(uint32_t vk_format);

}  // namespace vkrt::vgf
