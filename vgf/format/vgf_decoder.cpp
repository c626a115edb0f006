// VGF decoder (vgf-format.md §1-§3). Every offset, size and index from the file is checked.
#include <cstring>
#include <limits>

#include "vgf/format/vgf_file.h"
#include "vgf/format/vgf_layout.h"
#include "vgf_generated.h"

namespace vkrt::vgf {
namespace {

constexpr size_t kMaxFlatbufferSection = 0xFFFFFFFFu;  // §1.2: max FlatBuffers size 2^32 - 1

// A FlatBuffers section ready to read: either in place (8-aligned) or an aligned copy.
struct SectionView {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

Result<SectionView> aligned_section(std::span<const uint8_t> file, const SectionRange& range,
                                    const char* name, std::vector<std::vector<uint8_t>>& owned) {
  VKRT_CHECK_OR_RETURN(range.size <= kMaxFlatbufferSection, InvalidProgram, "VGF ", name,
                       " section: size ", range.size, " exceeds the FlatBuffers limit");
  VKRT_CHECK_OR_RETURN(range.size >= 8, InvalidProgram, "VGF ", name, " section: size ",
                       range.size, " is too small for a FlatBuffers table");
  const uint8_t* p = file.data() + range.offset;
  if (reinterpret_cast<uintptr_t>(p) % 8 == 0) return SectionView{p, size_t(range.size)};
  // 0.4.0 files have 4-aligned sections (§1.2); int64 vectors need 8. Copy into a buffer whose
  // heap storage is 16-aligned (operator new) and keep it for spans that point into it.
  owned.emplace_back(p, p + range.size);
  return SectionView{owned.back().data(), size_t(range.size)};
}

template <typename Root>
Result<const Root*> verified_root(const SectionView& s, const char* name) {
  flatbuffers::Verifier verifier(s.data, s.size, /*max_depth=*/64, /*max_tables=*/1000000);
  VKRT_CHECK_OR_RETURN(verifier.VerifyBuffer<Root>(nullptr), InvalidProgram, "VGF ", name,
                       " section: FlatBuffers verification failed");
  return flatbuffers::GetRoot<Root>(s.data);
}

std::string str(const flatbuffers::String* s) { return s ? std::string(s->c_str(), s->size()) : ""; }

// int64 vectors: the FlatBuffers verifier only checks the 4-byte alignment of a vector's length,
// so a hostile file can place 8-byte elements at 4 mod 8 (found by the fuzzer). Copy bytewise.
std::vector<int64_t> read_int64_vector(const flatbuffers::Vector<int64_t>* v) {
  std::vector<int64_t> out;
  if (!v) return out;
  out.resize(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(int64_t));
  return out;
}

std::vector<VgfBindingSlot> slots(const flatbuffers::Vector<flatbuffers::Offset<VGF::BindingSlot>>* v) {
  std::vector<VgfBindingSlot> out;
  if (!v) return out;
  for (const VGF::BindingSlot* b : *v) {
    out.push_back({b ? b->binding() : 0u, b ? b->mrt_index() : 0u});
  }
  return out;
}

Status decode_modules(const VGF::ModuleTable* table, VgfFile& out) {
  if (!table->modules()) return Status::ok();
  for (flatbuffers::uoffset_t i = 0; i < table->modules()->size(); ++i) {
    const VGF::Module* m = table->modules()->Get(i);
    VKRT_CHECK_OR_RETURN(m != nullptr, InvalidProgram, "VGF module ", i, ": null entry");
    VgfModule mod;
    uint8_t type = uint8_t(m->type());
    VKRT_CHECK_OR_RETURN(type <= 1, InvalidProgram, "VGF module ", i, ": unknown module type ",
                         int(type));
    mod.type = ModuleType(type);
    mod.name = str(m->name());
    mod.entry_point = str(m->entry_point());
    switch (m->code_type()) {
      case VGF::ModuleCode::NONE:
        break;
      case VGF::ModuleCode::SPIRV: {
        mod.code_kind = ModuleCodeKind::Spirv;
        const VGF::SPIRV* code = m->code_as_SPIRV();
        if (code && code->words()) mod.spirv.assign(code->words()->begin(), code->words()->end());
        break;
      }
      case VGF::ModuleCode::GLSL:
        mod.code_kind = ModuleCodeKind::Glsl;
        mod.source = m->code_as_GLSL() ? str(m->code_as_GLSL()->code()) : "";
        break;
      case VGF::ModuleCode::HLSL:
        mod.code_kind = ModuleCodeKind::Hlsl;
        mod.source = m->code_as_HLSL() ? str(m->code_as_HLSL()->code()) : "";
        break;
      default:
        return make_error(Error::InvalidProgram, "VGF module ", i, ": unknown code type ",
                          int(m->code_type()));
    }
    out.modules.push_back(std::move(mod));
  }
  return Status::ok();
}

Status decode_resources(const VGF::ModelResourceTable* table, VgfFile& out) {
  if (!table->mrt_entry()) return Status::ok();
  for (flatbuffers::uoffset_t i = 0; i < table->mrt_entry()->size(); ++i) {
    const VGF::ModelResourceTableEntry* e = table->mrt_entry()->Get(i);
    VKRT_CHECK_OR_RETURN(e != nullptr, InvalidProgram, "VGF resource ", i, ": null entry");
    VgfResource r;
    r.vk_descriptor_type = e->vk_descriptor_type();
    r.vk_format = e->vk_format();
    uint8_t cat = uint8_t(e->category());
    VKRT_CHECK_OR_RETURN(cat <= 3, InvalidProgram, "VGF resource ", i, ": unknown category ",
                         int(cat));
    r.category = ResourceCategory(cat);
    if (const VGF::Description* d = e->description()) {
      r.shape = read_int64_vector(d->shape());
      r.strides = read_int64_vector(d->strides());
    }
    if (e->extra_config_type() == VGF::ExtraConfig::SamplerConfig) {
      const VGF::SamplerConfig* s = e->extra_config_as_SamplerConfig();
      r.has_sampler = s != nullptr;
      if (s) {
        r.sampler = {s->min_filter(), s->mag_filter(), s->address_mode_u(), s->address_mode_v(),
                     s->border_color()};
      }
    } else {
      VKRT_CHECK_OR_RETURN(e->extra_config_type() == VGF::ExtraConfig::NONE, InvalidProgram,
                           "VGF resource ", i, ": unknown extra_config type ",
                           int(e->extra_config_type()));
    }
    r.alias_group_id = e->alias_group_id();
    out.resources.push_back(std::move(r));
  }
  return Status::ok();
}

Status check_slots(const std::vector<VgfBindingSlot>& v, size_t mrt_count, const std::string& where) {
  for (size_t k = 0; k < v.size(); ++k) {
    VKRT_CHECK_OR_RETURN(v[k].mrt_index < mrt_count, InvalidProgram, where, "[", k,
                         "]: mrt_index ", v[k].mrt_index, " out of range (", mrt_count,
                         " resources)");
  }
  return Status::ok();
}

Status decode_sequence(const VGF::ModelSequenceTable* table, VgfFile& out) {
  out.inputs = slots(table->inputs());
  out.outputs = slots(table->outputs());
  if (table->input_names()) {
    for (const flatbuffers::String* s : *table->input_names()) out.input_names.push_back(str(s));
  }
  if (table->output_names()) {
    for (const flatbuffers::String* s : *table->output_names()) out.output_names.push_back(str(s));
  }
  if (!table->segments()) return Status::ok();
  for (flatbuffers::uoffset_t i = 0; i < table->segments()->size(); ++i) {
    const VGF::SegmentInfo* s = table->segments()->Get(i);
    VKRT_CHECK_OR_RETURN(s != nullptr, InvalidProgram, "VGF segment ", i, ": null entry");
    VgfSegment seg;
    uint8_t type = uint8_t(s->type());
    VKRT_CHECK_OR_RETURN(type <= 1, InvalidProgram, "VGF segment ", i, ": unknown type ",
                         int(type));
    seg.type = ModuleType(type);
    seg.name = str(s->name());
    seg.module_index = s->module_index();
    if (s->set_infos()) {
      for (const VGF::DescriptorSetInfo* d : *s->set_infos()) {
        VgfDescriptorSet set;
        if (d) {
          set.bindings = slots(d->bindings());
          set.set_index = d->set_index();
        }
        seg.set_infos.push_back(std::move(set));
      }
    }
    seg.inputs = slots(s->inputs());
    seg.outputs = slots(s->outputs());
    if (s->constants()) seg.constants.assign(s->constants()->begin(), s->constants()->end());
    if (s->dispatch_shape()) {
      VKRT_CHECK_OR_RETURN(s->dispatch_shape()->size() == 3, InvalidProgram, "VGF segment ", i,
                           ": dispatch_shape has ", s->dispatch_shape()->size(),
                           " values, expected 3");
      for (int k = 0; k < 3; ++k) seg.dispatch_shape[size_t(k)] = s->dispatch_shape()->Get(flatbuffers::uoffset_t(k));
    }
    if (s->push_constant_ranges()) {
      for (const VGF::PushConstantRange* p : *s->push_constant_ranges()) {
        if (p) seg.push_constant_ranges.push_back({p->stage_flags(), p->offset(), p->size()});
      }
    }
    if (s->constant_bindings()) {
      for (const VGF::ConstantBinding* b : *s->constant_bindings()) {
        if (b) seg.constant_bindings.push_back({b->graph_constant_id(), b->constant_table_index()});
      }
    }
    out.segments.push_back(std::move(seg));
  }
  return Status::ok();
}

// Raw "CONST00" section (format >= 0.4.0), §3.
Status decode_raw_constants(std::span<const uint8_t> section, uint64_t section_offset, VgfFile& out) {
  VKRT_CHECK_OR_RETURN(section.size() >= 16, InvalidProgram,
                       "VGF constant section: ", section.size(), " bytes, header needs 16");
  uint64_t count = load_le<uint64_t>(section.data() + 8);
  uint64_t meta_bytes_max = (section.size() - 16) / 24;
  VKRT_CHECK_OR_RETURN(count <= meta_bytes_max, InvalidProgram, "VGF constant section: count ",
                       count, " needs ", count, " x 24 metadata bytes, only ", section.size() - 16,
                       " available");
  size_t payload_start = 16 + size_t(count) * 24;
  std::span<const uint8_t> payload = section.subspan(payload_start);
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t* meta = section.data() + 16 + i * 24;
    VgfConstant c;
    c.mrt_index = load_le<uint32_t>(meta);
    int32_t sparsity = load_le<int32_t>(meta + 4);
    uint64_t size = load_le<uint64_t>(meta + 8);
    uint64_t offset = load_le<uint64_t>(meta + 16);
    VKRT_CHECK_OR_RETURN(sparsity >= -1, InvalidProgram, "VGF constant ", i,
                         ": invalid sparsity_dimension ", sparsity);
    VKRT_CHECK_OR_RETURN(offset <= payload.size() && size <= payload.size() - offset,
                         InvalidProgram, "VGF constant ", i, ": payload [", offset, ", +", size,
                         ") outside the section's ", payload.size(), " payload bytes (file offset ",
                         section_offset + payload_start, ")");
    c.sparsity_dimension = sparsity;
    c.data = payload.subspan(size_t(offset), size_t(size));
    out.constants.push_back(c);
  }
  return Status::ok();
}

// Legacy FlatBuffers ConstantSection (0.3.x).
Status decode_legacy_constants(const VGF::ConstantSection* table, VgfFile& out) {
  if (!table->data()) return Status::ok();
  for (flatbuffers::uoffset_t i = 0; i < table->data()->size(); ++i) {
    const VGF::ConstantData* d = table->data()->Get(i);
    VKRT_CHECK_OR_RETURN(d != nullptr, InvalidProgram, "VGF constant ", i, ": null entry");
    VgfConstant c;
    c.mrt_index = d->mrt_index();
    c.sparsity_dimension = d->sparsity_dimension();
    VKRT_CHECK_OR_RETURN(c.sparsity_dimension >= -1, InvalidProgram, "VGF constant ", i,
                         ": invalid sparsity_dimension ", c.sparsity_dimension);
    if (d->raw()) c.data = std::span<const uint8_t>(d->raw()->data(), d->raw()->size());
    out.constants.push_back(c);
  }
  return Status::ok();
}

// Cross-table index checks, after all sections are decoded.
Status check_indices(const VgfFile& f) {
  const size_t mrt = f.resources.size();
  VKRT_RETURN_IF_ERROR(check_slots(f.inputs, mrt, "VGF model inputs"));
  VKRT_RETURN_IF_ERROR(check_slots(f.outputs, mrt, "VGF model outputs"));
  for (size_t i = 0; i < f.segments.size(); ++i) {
    const VgfSegment& s = f.segments[i];
    std::string where = "VGF segment " + std::to_string(i);
    VKRT_CHECK_OR_RETURN(s.module_index < f.modules.size(), InvalidProgram, where,
                         ": module_index ", s.module_index, " out of range (", f.modules.size(),
                         " modules)");
    VKRT_RETURN_IF_ERROR(check_slots(s.inputs, mrt, where + " inputs"));
    VKRT_RETURN_IF_ERROR(check_slots(s.outputs, mrt, where + " outputs"));
    for (size_t k = 0; k < s.set_infos.size(); ++k) {
      VKRT_RETURN_IF_ERROR(check_slots(s.set_infos[k].bindings, mrt,
                                       where + " set_infos[" + std::to_string(k) + "].bindings"));
    }
    for (size_t k = 0; k < s.constants.size(); ++k) {
      VKRT_CHECK_OR_RETURN(s.constants[k] < f.constants.size(), InvalidProgram, where,
                           " constants[", k, "] = ", s.constants[k], " out of range (",
                           f.constants.size(), " constants)");
    }
    for (size_t k = 0; k < s.constant_bindings.size(); ++k) {
      VKRT_CHECK_OR_RETURN(s.constant_bindings[k].constant_index < f.constants.size(),
                           InvalidProgram, where, " constant_bindings[", k, "]: index ",
                           s.constant_bindings[k].constant_index, " out of range");
    }
  }
  for (size_t i = 0; i < f.constants.size(); ++i) {
    VKRT_CHECK_OR_RETURN(f.constants[i].mrt_index < mrt, InvalidProgram, "VGF constant ", i,
                         ": mrt_index ", f.constants[i].mrt_index, " out of range (", mrt,
                         " resources)");
  }
  return Status::ok();
}

}  // namespace

Result<VgfHeader> parse_vgf_header(std::span<const uint8_t> bytes) {
  VKRT_CHECK_OR_RETURN(bytes.size() >= kVgfHeaderSize, InvalidProgram, "VGF: file is ",
                       bytes.size(), " bytes, smaller than the 128-byte header");
  VgfHeader h;
  const uint8_t* p = bytes.data();
  if (std::memcmp(p, "VGF1", 4) == 0) {
    h.legacy_magic = false;
  } else if (load_le<uint32_t>(p) == kLegacyVgfMagic) {
    h.legacy_magic = true;
  } else {
    return make_error(Error::InvalidProgram, "VGF: bad magic ", int(p[0]), ",", int(p[1]), ",",
                      int(p[2]), ",", int(p[3]), " (expected 'VGF1')");
  }
  h.vk_header_version = load_le<uint16_t>(p + 4);
  h.version = {p[8], p[9], p[10]};
  // vgf-library: version OK = major 0 and minor <= 4.
  VKRT_CHECK_OR_RETURN(h.version.major == 0 && h.version.minor <= 4, NotSupported,
                       "VGF: unsupported format version ", int(h.version.major), ".",
                       int(h.version.minor), ".", int(h.version.patch), " (supported: 0.0-0.4)");
  static constexpr const char* kNames[4] = {"module", "sequence", "resource", "constant"};
  for (int i = 0; i < 4; ++i) {
    SectionRange& r = h.sections[size_t(i)];
    r.offset = load_le<uint64_t>(p + 16 + 16 * i);
    r.size = load_le<uint64_t>(p + 24 + 16 * i);
    VKRT_CHECK_OR_RETURN(r.offset <= bytes.size() && r.size <= bytes.size() - r.offset,
                         InvalidProgram, "VGF ", kNames[i], " section [", r.offset, ", +", r.size,
                         ") out of bounds (file is ", bytes.size(), " bytes)");
  }
  return h;
}

Status check_vgf_header(std::span<const uint8_t> bytes) {
  auto header = parse_vgf_header(bytes);
  return header.ok() ? Status::ok() : header.status();
}

Result<VgfFile> decode_vgf(std::span<const uint8_t> bytes) {
  VKRT_ASSIGN_OR_RETURN(VgfHeader h, parse_vgf_header(bytes));
  VgfFile f;
  f.legacy_magic = h.legacy_magic;
  f.vk_header_version = h.vk_header_version;
  f.version = h.version;

  VKRT_ASSIGN_OR_RETURN(SectionView mod, aligned_section(bytes, h.sections[0], "module", f.owned_storage));
  VKRT_ASSIGN_OR_RETURN(const VGF::ModuleTable* modules, verified_root<VGF::ModuleTable>(mod, "module"));
  VKRT_RETURN_IF_ERROR(decode_modules(modules, f));

  VKRT_ASSIGN_OR_RETURN(SectionView seq, aligned_section(bytes, h.sections[1], "sequence", f.owned_storage));
  VKRT_ASSIGN_OR_RETURN(const VGF::ModelSequenceTable* sequence,
                        verified_root<VGF::ModelSequenceTable>(seq, "sequence"));
  VKRT_RETURN_IF_ERROR(decode_sequence(sequence, f));

  VKRT_ASSIGN_OR_RETURN(SectionView res, aligned_section(bytes, h.sections[2], "resource", f.owned_storage));
  VKRT_ASSIGN_OR_RETURN(const VGF::ModelResourceTable* resources,
                        verified_root<VGF::ModelResourceTable>(res, "resource"));
  VKRT_RETURN_IF_ERROR(decode_resources(resources, f));

  const SectionRange& cr = h.sections[3];
  std::span<const uint8_t> csec = bytes.subspan(size_t(cr.offset), size_t(cr.size));
  if (csec.size() >= 8 && std::memcmp(csec.data(), kConstMagic, 8) == 0) {
    VKRT_RETURN_IF_ERROR(decode_raw_constants(csec, cr.offset, f));
  } else {
    // Not CONST00: the legacy FlatBuffers ConstantSection (§3).
    f.legacy_constants = true;
    VKRT_ASSIGN_OR_RETURN(SectionView con, aligned_section(bytes, cr, "constant", f.owned_storage));
    VKRT_ASSIGN_OR_RETURN(const VGF::ConstantSection* constants,
                          verified_root<VGF::ConstantSection>(con, "constant"));
    VKRT_RETURN_IF_ERROR(decode_legacy_constants(constants, f));
  }
  VKRT_RETURN_IF_ERROR(check_indices(f));
  return f;
}

VkFormatInfo vk_format_info(uint32_t vk_format) {
  using K = VkFormatKind;
  switch (vk_format) {
    case kVkFormatR8BoolArm: return {1, 1, K::Bool};
    case kVkFormatR8Uint: return {1, 1, K::Uint};
    case kVkFormatR8Sint: return {1, 1, K::Sint};
    case kVkFormatR8Fp8E4M3Arm: case kVkFormatR8Fp8E5M2Arm: return {1, 1, K::Fp8};
    case kVkFormatR16Uint: return {1, 2, K::Uint};
    case kVkFormatR16Sint: return {1, 2, K::Sint};
    case kVkFormatR16Sfloat: return {1, 2, K::Float};
    case kVkFormatR16Bf16Arm: return {1, 2, K::BFloat};
    case kVkFormatR32Uint: return {1, 4, K::Uint};
    case kVkFormatR32Sint: return {1, 4, K::Sint};
    case kVkFormatR32Sfloat: return {1, 4, K::Float};
    case kVkFormatR64Sint: return {1, 8, K::Sint};
    case kVkFormatR8G8Uint: return {2, 1, K::Uint};
    case kVkFormatR8G8Sint: return {2, 1, K::Sint};
    case kVkFormatR16G16Uint: return {2, 2, K::Uint};
    case kVkFormatR16G16Sint: return {2, 2, K::Sint};
    case kVkFormatR16G16Sfloat: return {2, 2, K::Float};
    case kVkFormatR32G32Uint: return {2, 4, K::Uint};
    case kVkFormatR32G32Sint: return {2, 4, K::Sint};
    case kVkFormatR32G32Sfloat: return {2, 4, K::Float};
    case kVkFormatR8G8B8A8Uint: return {4, 1, K::Uint};
    // SNORM is read as signed bytes, as ExecuTorch's VGFSetup.cpp classes it.
    case kVkFormatR8G8B8A8Snorm: case kVkFormatR8G8B8A8Sint: return {4, 1, K::Sint};
    case kVkFormatR16G16B16A16Uint: return {4, 2, K::Uint};
    case kVkFormatR16G16B16A16Sint: return {4, 2, K::Sint};
    case kVkFormatR16G16B16A16Sfloat: return {4, 2, K::Float};
    case kVkFormatR32G32B32A32Uint: return {4, 4, K::Uint};
    case kVkFormatR32G32B32A32Sint: return {4, 4, K::Sint};
    case kVkFormatR32G32B32A32Sfloat: return {4, 4, K::Float};
    default: return {};
  }
}

size_t vk_format_element_size(uint32_t vk_format) {
  const VkFormatInfo info = vk_format_info(vk_format);
  return size_t(info.components) * info.component_bytes;
}

const char* module_type_name(ModuleType t) {
  return t == ModuleType::Compute ? "COMPUTE" : t == ModuleType::Graph ? "GRAPH" : "UNKNOWN";
}

const char* resource_category_name(ResourceCategory c) {
  switch (c) {
    case ResourceCategory::Input: return "INPUT";
    case ResourceCategory::Output: return "OUTPUT";
    case ResourceCategory::Intermediate: return "INTERMEDIATE";
    case ResourceCategory::Constant: return "CONSTANT";
  }
  return "UNKNOWN";
}

}  // namespace vkrt::vgf
