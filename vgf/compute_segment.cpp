// COMPUTE-segment factory registration and resource host types (see compute_segment.h).
#include "vgf/compute_segment.h"

#include <atomic>

#include "vgf/ir/graph.h"
#include "vgf/segment_graph.h"

namespace vkrt::vgf {
namespace {

std::atomic<ComputeSegmentFactory> g_factory{nullptr};

ScalarType component_scalar(const VkFormatInfo& info) {
  switch (info.kind) {
    case VkFormatKind::Uint:
      return info.component_bytes == 1 ? ScalarType::Byte : info.component_bytes == 2 ? ScalarType::Short
                                                                                      : ScalarType::Int;
    case VkFormatKind::Sint:
      return info.component_bytes == 1 ? ScalarType::Char : info.component_bytes == 2 ? ScalarType::Short
                                                                                      : ScalarType::Int;
    case VkFormatKind::Float:
      return info.component_bytes == 2 ? ScalarType::Half : ScalarType::Float;
    default:
      return ScalarType::Byte;
  }
}

}  // namespace

void register_compute_segment_factory(ComputeSegmentFactory factory) {
  ComputeSegmentFactory expected = nullptr;
  g_factory.compare_exchange_strong(expected, factory);
}

ComputeSegmentFactory compute_segment_factory() { return g_factory.load(); }

Result<ResourceHostType> resource_host_type(const VgfFile& file, uint32_t mrt_index) {
  VKRT_CHECK_OR_RETURN(mrt_index < file.resources.size(), InvalidProgram, "resource ", mrt_index,
                       " out of range (", file.resources.size(), " resources)");
  const VgfResource& r = file.resources[mrt_index];
  const VkFormatInfo info = vk_format_info(r.vk_format);
  VKRT_CHECK_OR_RETURN(info.components != 0, NotSupported, "resource ", mrt_index, ": VkFormat ", r.vk_format,
                       " is not a format VGF resources use");
  ResourceHostType out;
  out.shape = r.shape.empty() ? std::vector<int64_t>{1} : r.shape;
  for (int64_t d : out.shape) {
    VKRT_CHECK_OR_RETURN(d == kDynamicDim || d >= 0, InvalidProgram, "resource ", mrt_index,
                         ": negative dimension ", d);
  }
  if (is_image_descriptor_type(r.vk_descriptor_type)) {
    const size_t rank = r.shape.size();
    VKRT_CHECK_OR_RETURN(rank == 3 || (rank == 4 && r.shape[0] == 1), InvalidProgram, "image resource ",
                         mrt_index, ": shape must be [1,H,W,C] or [H,W,C]");
    VKRT_CHECK_OR_RETURN(r.shape.back() == int64_t(info.components), InvalidProgram, "image resource ",
                         mrt_index, ": ", r.shape.back(), " channels but its VkFormat ", r.vk_format, " has ",
                         info.components, " components");
    for (int64_t d : r.shape) {
      VKRT_CHECK_OR_RETURN(d > 0, InvalidProgram, "image resource ", mrt_index, ": dimensions must be static and positive");
    }
    out.scalar = component_scalar(info);
    return out;
  }
  VKRT_CHECK_OR_RETURN(info.components == 1, InvalidProgram, "resource ", mrt_index, ": a multi-component VkFormat (",
                       r.vk_format, ") is for image resources only");
  const DType dt = dtype_from_vk_format(r.vk_format);
  out.scalar = dt == DType::Unknown ? component_scalar(info) : dtype_to_scalar_type(dt);
  return out;
}

}  // namespace vkrt::vgf
