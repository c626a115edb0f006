#include "external_data.h"

#include <cstring>

#include "flat_tensor_generated.h"
#include "flat_tensor_v0_generated.h"
#include "headers.h"

namespace vkrt {

Result<std::unique_ptr<ExternalData>> ExternalData::parse(std::shared_ptr<FileData> file) {
  auto bytes = file->bytes();
  const std::string& name = file->name();
  VKRT_ASSIGN_OR_RETURN(FlatTensorHeader header, parse_flat_tensor_header(bytes, name));

  auto data = std::make_unique<ExternalData>();
  data->file_ = file;
  flatbuffers::Verifier verifier(bytes.data(), header.flatbuffer_end);
  if (!verifier.VerifyBuffer<flat_tensor_flatbuffer::FlatTensor>("FT01")) {
    // Files from before the named_data layout use the first schema (flat_tensor_v0.fbs).
    flatbuffers::Verifier v0(bytes.data(), header.flatbuffer_end);
    if (!v0.VerifyBuffer<flat_tensor_v0_flatbuffer::FlatTensor>("FT01"))
      return make_error(Error::InvalidExternalData, name, ": FlatTensor table failed verification");
    VKRT_RETURN_IF_ERROR(data->parse_v0(header, name));
    return data;
  }
  auto* root = flat_tensor_flatbuffer::GetFlatTensor(bytes.data());
  const auto* segments = root->segments();
  const auto* named = root->named_data();
  if (!named) return data;
  for (flatbuffers::uoffset_t i = 0; i < named->size(); ++i) {
    const auto* nd = named->Get(i);
    if (!nd->key()) return make_error(Error::InvalidExternalData, name, ": named_data[", i, "] has no key");
    uint32_t seg = nd->segment_index();
    if (!segments || seg >= segments->size())
      return make_error(Error::InvalidExternalData, name, ": named_data[", i, "] (", nd->key()->str(),
                        ") refers to segment ", seg, " of ", segments ? segments->size() : 0);
    const auto* s = segments->Get(seg);
    uint64_t start = 0, end = 0;
    if (__builtin_add_overflow(header.segment_base_offset, s->offset(), &start) ||
        __builtin_add_overflow(start, s->size(), &end) || end > bytes.size())
      return make_error(Error::InvalidExternalData, name, ": segment ", seg, " [", s->offset(), ", +",
                        s->size(), ") lies outside the file (", bytes.size(), " bytes)");
    ExternalEntry e;
    e.key = std::string_view(nd->key()->c_str(), nd->key()->size());
    e.bytes = bytes.subspan(size_t(start), size_t(s->size()));
    if (const auto* layout = nd->tensor_layout()) {
      if (!is_valid_scalar_type(layout->scalar_type()))
        return make_error(Error::InvalidExternalData, name, ": tensor ", e.key, " has unknown scalar type ",
                          int(layout->scalar_type()));
      e.has_layout = true;
      e.dtype = static_cast<ScalarType>(layout->scalar_type());
      if (layout->sizes()) e.sizes.assign(layout->sizes()->begin(), layout->sizes()->end());
      if (layout->dim_order()) e.dim_order.assign(layout->dim_order()->begin(), layout->dim_order()->end());
    }
    data->entries_.push_back(std::move(e));
  }
  return data;
}

Status ExternalData::parse_v0(const FlatTensorHeader& header, const std::string& name) {
  auto bytes = file_->bytes();
  const auto* root = flat_tensor_v0_flatbuffer::GetFlatTensor(bytes.data());
  const auto* segments = root->segments();
  const auto* tensors = root->tensors();
  for (flatbuffers::uoffset_t i = 0; tensors && i < tensors->size(); ++i) {
    const auto* t = tensors->Get(i);
    if (!t->fully_qualified_name())
      return make_error(Error::InvalidExternalData, name, ": tensors[", i, "] has no name");
    int32_t seg = t->segment_index();
    if (!segments || seg < 0 || uint32_t(seg) >= segments->size())
      return make_error(Error::InvalidExternalData, name, ": tensor ", t->fully_qualified_name()->str(),
                        " refers to segment ", seg, " of ", segments ? segments->size() : 0);
    if (!is_valid_scalar_type(t->scalar_type()))
      return make_error(Error::InvalidExternalData, name, ": tensor ", t->fully_qualified_name()->str(),
                        " has unknown scalar type ", int(t->scalar_type()));
    const auto* s = segments->Get(uint32_t(seg));
    uint64_t seg_start = 0, seg_end = 0, start = 0;
    if (__builtin_add_overflow(header.segment_base_offset, s->offset(), &seg_start) ||
        __builtin_add_overflow(seg_start, s->size(), &seg_end) || seg_end > bytes.size() ||
        __builtin_add_overflow(seg_start, t->offset(), &start) || start > seg_end)
      return make_error(Error::InvalidExternalData, name, ": tensor ", t->fully_qualified_name()->str(),
                        " lies outside the file");
    ExternalEntry e;
    e.key = t->fully_qualified_name()->string_view();
    e.bytes = bytes.subspan(size_t(start), size_t(seg_end - start));  // size checked against the tensor later
    e.has_layout = true;
    e.dtype = static_cast<ScalarType>(t->scalar_type());
    if (t->sizes()) e.sizes.assign(t->sizes()->begin(), t->sizes()->end());
    if (t->dim_order()) e.dim_order.assign(t->dim_order()->begin(), t->dim_order()->end());
    entries_.push_back(std::move(e));
  }
  return Status::ok();
}

const ExternalEntry* ExternalData::find(std::string_view key) const {
  for (const auto& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

}  // namespace vkrt
