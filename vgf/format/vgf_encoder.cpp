// VGF encoder: header, then module, sequence, resource and constant sections in that order, each
// at an 8-aligned offset with zero padding not counted in its size (format 0.4.3, §1.2).
#include <cstring>

#include "vgf/format/vgf_file.h"
#include "vgf/format/vgf_layout.h"
#include "vgf_generated.h"

namespace vkrt::vgf {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

std::vector<Offset<VGF::BindingSlot>> build_slots(FlatBufferBuilder& b,
                                                  const std::vector<VgfBindingSlot>& slots) {
  std::vector<Offset<VGF::BindingSlot>> out;
  for (const VgfBindingSlot& s : slots) out.push_back(VGF::CreateBindingSlot(b, s.binding, s.mrt_index));
  return out;
}

std::vector<uint8_t> finish(FlatBufferBuilder& b) {
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

std::vector<uint8_t> encode_modules(const VgfFile& f) {
  FlatBufferBuilder b;
  std::vector<Offset<VGF::Module>> modules;
  for (const VgfModule& m : f.modules) {
    Offset<void> code;
    VGF::ModuleCode code_type = VGF::ModuleCode::NONE;
    switch (m.code_kind) {
      case ModuleCodeKind::Spirv:
        code = VGF::CreateSPIRVDirect(b, &m.spirv).Union();
        code_type = VGF::ModuleCode::SPIRV;
        break;
      case ModuleCodeKind::Glsl:
        code = VGF::CreateGLSLDirect(b, m.source.c_str()).Union();
        code_type = VGF::ModuleCode::GLSL;
        break;
      case ModuleCodeKind::Hlsl:
        code = VGF::CreateHLSLDirect(b, m.source.c_str()).Union();
        code_type = VGF::ModuleCode::HLSL;
        break;
      case ModuleCodeKind::None:
        break;
    }
    modules.push_back(VGF::CreateModuleDirect(b, VGF::ModuleType(m.type), m.name.c_str(),
                                              m.entry_point.c_str(), code_type, code));
  }
  b.Finish(VGF::CreateModuleTableDirect(b, &modules));
  return finish(b);
}

std::vector<uint8_t> encode_sequence(const VgfFile& f) {
  FlatBufferBuilder b;
  std::vector<Offset<VGF::SegmentInfo>> segments;
  for (const VgfSegment& s : f.segments) {
    std::vector<Offset<VGF::DescriptorSetInfo>> sets;
    for (const VgfDescriptorSet& d : s.set_infos) {
      auto bindings = build_slots(b, d.bindings);
      sets.push_back(VGF::CreateDescriptorSetInfoDirect(b, &bindings, d.set_index));
    }
    auto inputs = build_slots(b, s.inputs);
    auto outputs = build_slots(b, s.outputs);
    std::vector<uint32_t> dispatch(s.dispatch_shape.begin(), s.dispatch_shape.end());
    std::vector<Offset<VGF::PushConstantRange>> pushes;
    for (const VgfPushConstantRange& p : s.push_constant_ranges) {
      pushes.push_back(VGF::CreatePushConstantRange(b, p.stage_flags, p.offset, p.size));
    }
    std::vector<Offset<VGF::ConstantBinding>> cbind;
    for (const VgfConstantBinding& c : s.constant_bindings) {
      cbind.push_back(VGF::CreateConstantBinding(b, c.graph_constant_id, c.constant_index));
    }
    segments.push_back(VGF::CreateSegmentInfoDirect(
        b, VGF::ModuleType(s.type), s.name.c_str(), s.module_index, &sets, &inputs, &outputs,
        &s.constants, &dispatch, &pushes, cbind.empty() ? nullptr : &cbind));
  }
  auto inputs = build_slots(b, f.inputs);
  auto outputs = build_slots(b, f.outputs);
  std::vector<Offset<flatbuffers::String>> in_names, out_names;
  for (const std::string& n : f.input_names) in_names.push_back(b.CreateString(n));
  for (const std::string& n : f.output_names) out_names.push_back(b.CreateString(n));
  b.Finish(VGF::CreateModelSequenceTableDirect(b, &segments, &inputs, &outputs, &in_names, &out_names));
  return finish(b);
}

std::vector<uint8_t> encode_resources(const VgfFile& f) {
  FlatBufferBuilder b;
  std::vector<Offset<VGF::ModelResourceTableEntry>> entries;
  for (const VgfResource& r : f.resources) {
    auto desc = VGF::CreateDescriptionDirect(b, &r.shape, &r.strides);
    Offset<void> extra;
    VGF::ExtraConfig extra_type = VGF::ExtraConfig::NONE;
    if (r.has_sampler) {
      extra = VGF::CreateSamplerConfig(b, r.sampler.min_filter, r.sampler.mag_filter,
                                       r.sampler.address_mode_u, r.sampler.address_mode_v,
                                       r.sampler.border_color)
                  .Union();
      extra_type = VGF::ExtraConfig::SamplerConfig;
    }
    entries.push_back(VGF::CreateModelResourceTableEntry(
        b, r.vk_descriptor_type, r.vk_format, VGF::ResourceCategory(r.category), desc, extra_type,
        extra, r.alias_group_id));
  }
  b.Finish(VGF::CreateModelResourceTableDirect(b, &entries));
  return finish(b);
}

size_t align8(size_t n) { return (n + 7) & ~size_t(7); }

// Raw CONST00 section (§3): magic, count, 24-byte metadata entries, payloads padded to 8.
std::vector<uint8_t> encode_raw_constants(const VgfFile& f) {
  size_t count = f.constants.size();
  size_t payload_start = 16 + 24 * count;
  size_t payload_size = 0;
  for (const VgfConstant& c : f.constants) payload_size += align8(c.data.size());
  std::vector<uint8_t> out(payload_start + payload_size, 0);
  std::memcpy(out.data(), kConstMagic, 8);
  store_le<uint64_t>(out.data() + 8, count);
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    const VgfConstant& c = f.constants[i];
    uint8_t* meta = out.data() + 16 + 24 * i;
    store_le<uint32_t>(meta, c.mrt_index);
    store_le<int32_t>(meta + 4, int32_t(c.sparsity_dimension));
    store_le<uint64_t>(meta + 8, c.data.size());
    store_le<uint64_t>(meta + 16, offset);
    if (!c.data.empty()) std::memcpy(out.data() + payload_start + offset, c.data.data(), c.data.size());
    offset += align8(c.data.size());
  }
  return out;
}

std::vector<uint8_t> encode_legacy_constants(const VgfFile& f) {
  FlatBufferBuilder b;
  std::vector<Offset<VGF::ConstantData>> data;
  for (const VgfConstant& c : f.constants) {
    std::vector<uint8_t> raw(c.data.begin(), c.data.end());
    data.push_back(VGF::CreateConstantDataDirect(b, c.mrt_index, c.sparsity_dimension, &raw));
  }
  b.Finish(VGF::CreateConstantSectionDirect(b, &data));
  return finish(b);
}

Status check_encodable(const VgfFile& f) {
  for (size_t i = 0; i < f.segments.size(); ++i) {
    VKRT_CHECK_OR_RETURN(f.segments[i].module_index < f.modules.size(), InvalidArgument,
                         "segment ", i, ": module_index out of range");
    for (uint32_t c : f.segments[i].constants) {
      VKRT_CHECK_OR_RETURN(c < f.constants.size(), InvalidArgument, "segment ", i,
                           ": constant index ", c, " out of range");
    }
  }
  auto check = [&](const std::vector<VgfBindingSlot>& v, const char* what) -> Status {
    for (const VgfBindingSlot& s : v) {
      VKRT_CHECK_OR_RETURN(s.mrt_index < f.resources.size(), InvalidArgument, what,
                           ": mrt_index ", s.mrt_index, " out of range");
    }
    return Status::ok();
  };
  VKRT_RETURN_IF_ERROR(check(f.inputs, "model inputs"));
  VKRT_RETURN_IF_ERROR(check(f.outputs, "model outputs"));
  for (const VgfSegment& s : f.segments) {
    VKRT_RETURN_IF_ERROR(check(s.inputs, "segment inputs"));
    VKRT_RETURN_IF_ERROR(check(s.outputs, "segment outputs"));
    for (const VgfDescriptorSet& d : s.set_infos) VKRT_RETURN_IF_ERROR(check(d.bindings, "segment bindings"));
  }
  for (const VgfConstant& c : f.constants) {
    VKRT_CHECK_OR_RETURN(c.mrt_index < f.resources.size(), InvalidArgument,
                         "constant mrt_index ", c.mrt_index, " out of range");
    VKRT_CHECK_OR_RETURN(c.sparsity_dimension >= -1 && c.sparsity_dimension <= INT32_MAX,
                         InvalidArgument, "constant sparsity_dimension out of range");
  }
  return Status::ok();
}

}  // namespace

Result<std::vector<uint8_t>> encode_vgf(const VgfFile& file, const VgfEncodeOptions& options) {
  VKRT_CHECK_OR_RETURN(options.version.major == 0 && options.version.minor <= 4, InvalidArgument,
                       "VGF encoder: version must be 0.x with x <= 4");
  VKRT_RETURN_IF_ERROR(check_encodable(file));
  bool raw_constants = options.version.minor >= 4;
  std::array<std::vector<uint8_t>, 4> sections = {
      encode_modules(file), encode_sequence(file), encode_resources(file),
      raw_constants ? encode_raw_constants(file) : encode_legacy_constants(file)};

  std::vector<uint8_t> out(kVgfHeaderSize, 0);
  std::memcpy(out.data(), "VGF1", 4);
  store_le<uint16_t>(out.data() + 4, options.vk_header_version);
  out[8] = options.version.major;
  out[9] = options.version.minor;
  out[10] = options.version.patch;
  for (size_t i = 0; i < 4; ++i) {
    out.resize(align8(out.size()), 0);
    store_le<uint64_t>(out.data() + 16 + 16 * i, out.size());
    store_le<uint64_t>(out.data() + 24 + 16 * i, sections[i].size());
    out.insert(out.end(), sections[i].begin(), sections[i].end());
  }
  return out;
}

}  // namespace vkrt::vgf
