#include "program.h"

namespace vkrt {

Result<std::span<const uint8_t>> ProgramNamedData::get(std::string_view key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return v;
  return make_error(Error::NotFound, "named data key '", key, "' is not in the program or its .ptd file");
}

Result<std::unique_ptr<Program>> Program::load(std::shared_ptr<FileData> file,
                                               std::shared_ptr<FileData> data_file) {
  auto bytes = file->bytes();
  VKRT_ASSIGN_OR_RETURN(ProgramHeader header, parse_program_header(bytes, file->name()));

  // Verify the whole table tree before any field is read (shared/docs/pte-format.md §9.1).
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 128;
  opts.max_tables = 10'000'000;
  flatbuffers::Verifier verifier(bytes.data(), size_t(header.program_size), opts);
  if (!verifier.VerifyBuffer<fb::Program>("ET12"))
    return make_error(Error::InvalidProgram, file->name(),
                      ": program FlatBuffer failed verification (corrupt or truncated file)");

  std::unique_ptr<Program> p(new Program());
  p->file_ = std::move(file);
  p->header_ = header;
  p->root_ = fb::GetProgram(bytes.data());
  if (!p->root_->execution_plan() || p->root_->execution_plan()->size() == 0)
    return make_error(Error::InvalidProgram, p->name(), ": program has no methods");
  VKRT_RETURN_IF_ERROR(p->index_segments());
  for (const auto* plan : *p->root_->execution_plan())
    p->method_names_.push_back(plan->name() ? plan->name()->str() : "");

  if (data_file) {
    VKRT_ASSIGN_OR_RETURN(p->external_, ExternalData::parse(data_file));
    p->data_file_ = std::move(data_file);
  }
  VKRT_RETURN_IF_ERROR(p->index_named_data());
  return p;
}

Status Program::index_segments() {
  auto bytes = file_->bytes();
  const auto* segs = root_->segments();
  size_t count = segs ? segs->size() : 0;
  for (size_t i = 0; i < count; ++i) {
    const auto* s = segs->Get(flatbuffers::uoffset_t(i));
    uint64_t start = 0, end = 0;
    bool overflow = __builtin_add_overflow(header_.segment_base_offset, s->offset(), &start) ||
                    __builtin_add_overflow(start, s->size(), &end);
    if (s->size() == 0) {
      segments_.emplace_back();
      continue;
    }
    if (header_.segment_base_offset == 0)
      return make_error(Error::InvalidProgram, name(), ": segment ", i, " has ", s->size(),
                        " bytes but the file has no segment data (no eh00 header)");
    if (overflow || end > bytes.size())
      return make_error(Error::InvalidProgram, name(), ": segment ", i, " [", start, ", ", end,
                        ") lies outside the file (", bytes.size(), " bytes)");
    segments_.push_back(bytes.subspan(size_t(start), size_t(s->size())));
  }
  if (const auto* cs = root_->constant_segment()) {
    size_t offsets = cs->offsets() ? cs->offsets()->size() : 0;
    if (offsets > 1) {
      if (cs->segment_index() >= segments_.size())
        return make_error(Error::InvalidProgram, name(), ": constant_segment refers to segment ",
                          cs->segment_index(), " of ", segments_.size());
      if (root_->constant_buffer() && root_->constant_buffer()->size() > 0)
        return make_error(Error::InvalidProgram, name(),
                          ": both constant_segment and the deprecated constant_buffer hold constants");
      constant_segment_ = segments_[cs->segment_index()];
    }
  }
  return Status::ok();
}

Status Program::index_named_data() {
  if (const auto* nd = root_->named_data()) {
    for (flatbuffers::uoffset_t i = 0; i < nd->size(); ++i) {
      const auto* e = nd->Get(i);
      if (!e->key()) return make_error(Error::InvalidProgram, name(), ": named_data[", i, "] has no key");
      if (e->segment_index() >= segments_.size())
        return make_error(Error::InvalidProgram, name(), ": named_data '", e->key()->str(),
                          "' refers to segment ", e->segment_index(), " of ", segments_.size());
      named_data_.entries_.emplace_back(std::string_view(e->key()->c_str(), e->key()->size()),
                                        segments_[e->segment_index()]);
    }
  }
  if (external_) {
    for (const auto& e : external_->entries()) named_data_.entries_.emplace_back(e.key, e.bytes);
  }
  return Status::ok();
}

size_t Program::num_methods() const { return root_->execution_plan()->size(); }

const fb::ExecutionPlan* Program::find_plan(std::string_view method) const {
  for (const auto* plan : *root_->execution_plan()) {
    if (plan->name() && plan->name()->string_view() == method) return plan;
  }
  return nullptr;
}

Result<std::span<const uint8_t>> Program::segment(uint32_t index) const {
  if (index >= segments_.size())
    return make_error(Error::InvalidProgram, name(), ": segment index ", index, " out of range (",
                      segments_.size(), " segments)");
  return segments_[index];
}

Result<const uint8_t*> Program::constant_data(uint32_t idx, size_t nbytes) const {
  const auto* cs = root_->constant_segment();
  if (!constant_segment_.empty() || (cs && cs->offsets() && cs->offsets()->size() > 1)) {
    const auto* offsets = cs->offsets();
    if (idx >= offsets->size())
      return make_error(Error::InvalidProgram, name(), ": constant index ", idx, " out of range (",
                        offsets->size(), " constants)");
    uint64_t off = load_element(offsets, idx), end = 0;
    if (__builtin_add_overflow(off, uint64_t(nbytes), &end) || end > constant_segment_.size())
      return make_error(Error::InvalidProgram, name(), ": constant ", idx, " (", nbytes, " bytes at offset ",
                        off, ") runs past the constant segment (", constant_segment_.size(), " bytes)");
    return constant_segment_.data() + off;
  }
  const auto* buffers = root_->constant_buffer();
  if (!buffers || idx >= buffers->size())
    return make_error(Error::InvalidProgram, name(), ": constant index ", idx, " out of range (",
                      buffers ? buffers->size() : 0, " constant buffers)");
  const auto* storage = buffers->Get(idx)->storage();
  size_t have = storage ? storage->size() : 0;
  if (nbytes > have)
    return make_error(Error::InvalidProgram, name(), ": constant_buffer[", idx, "] has ", have,
                      " bytes, tensor needs ", nbytes);
  return storage ? storage->data() : nullptr;
}

Result<std::span<const uint8_t>> Program::mutable_data(uint32_t idx, size_t nbytes) const {
  const auto* mds = root_->mutable_data_segments();
  if (!mds || mds->size() == 0)
    return make_error(Error::InvalidProgram, name(), ": tensor refers to mutable data ", idx,
                      " but the program has no mutable_data_segments");
  const auto* sub = mds->Get(0);
  VKRT_ASSIGN_OR_RETURN(auto seg, segment(sub->segment_index()));
  if (!sub->offsets() || idx >= sub->offsets()->size())
    return make_error(Error::InvalidProgram, name(), ": mutable data index ", idx, " out of range");
  uint64_t off = load_element(sub->offsets(), idx), end = 0;
  if (__builtin_add_overflow(off, uint64_t(nbytes), &end) || end > seg.size())
    return make_error(Error::InvalidProgram, name(), ": mutable data ", idx, " runs past its segment");
  return seg.subspan(size_t(off), nbytes);
}

Result<std::span<const uint8_t>> Program::delegate_payload(const fb::BackendDelegateDataReference* ref) const {
  if (!ref) return make_error(Error::InvalidProgram, name(), ": delegate has no processed data reference");
  if (ref->location() == fb::DataLocation::INLINE) {
    const auto* inl = root_->backend_delegate_data();
    if (!inl || ref->index() >= inl->size())
      return make_error(Error::InvalidProgram, name(), ": inline delegate data index ", ref->index(),
                        " out of range (", inl ? inl->size() : 0, " entries)");
    const auto* data = inl->Get(ref->index())->data();
    if (!data) return std::span<const uint8_t>();
    return std::span<const uint8_t>(data->data(), data->size());
  }
  if (ref->location() == fb::DataLocation::SEGMENT) return segment(ref->index());
  return make_error(Error::InvalidProgram, name(), ": unknown delegate data location ", int(ref->location()));
}

}  // namespace vkrt
