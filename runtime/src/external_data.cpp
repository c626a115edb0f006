#include "external_data.h"

#include <cstring>

#include "flat_tensor_generated.h"
#include "headers.h"

namespace vkrt {

Result<std::unique_ptr<ExternalData>> ExternalData::parse(std::shared_ptr<FileData> file) {
  auto bytes = file->bytes();
  const std::string& name = file->name();
  VKRT_ASSIGN_OR_RETURN(FlatTensorHeader header, parse_flat_tensor_header(bytes, name));

  flatbuffers::Verifier verifier(bytes.data(), header.flatbuffer_end);
  if (!verifier.VerifyBuffer<flat_tensor_flatbuffer::FlatTensor>("FT01"))
    return make_error(Error::InvalidExternalData, name, ": FlatTensor table failed verification");
  auto* root = flat_tensor_flatbuffer::GetFlatTensor(bytes.data());

  auto data = std::make_unique<ExternalData>();
  data->file_ = file;
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

const ExternalEntry* ExternalData::find(std::string_view key) const {
  for (const auto& e : entries_)
    if (e.key == key) return &e;
  return nullptr;
}

}  // namespace vkrt
