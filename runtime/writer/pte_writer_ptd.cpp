// .ptd (FlatTensor) writer: named tensors and blobs for EXTERNAL program tensors and backend
// named data (pte-format §7.5).
#include <cstring>
#include <set>

#include "flat_tensor_generated.h"
#include "vkrt/pte_writer.h"

namespace vkrt {

namespace {

namespace ft = flat_tensor_flatbuffer;

uint64_t round_up(uint64_t v, uint64_t alignment) { return (v + alignment - 1) / alignment * alignment; }
void put_u32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }  // host is little-endian
void put_u64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
uint32_t get_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// FH01 header (pte-format §7.5): magic, uint32 length 40, then four uint64 fields. Inserted
// after the 8-byte preamble with no extra padding (40 keeps the schema's 8-byte alignment).
constexpr size_t kPtdHeaderLength = 40;
constexpr size_t kFlatBufferPreamble = 8;

Status check_layout(const std::string& key, const TensorSpec& t, size_t data_size) {
  VKRT_CHECK_OR_RETURN(is_valid_scalar_type(int(t.dtype)), InvalidArgument, "tensor '", key,
                       "': scalar type ", int(t.dtype), " is not in the schema");
  for (int32_t s : t.sizes) {
    VKRT_CHECK_OR_RETURN(s >= 0, InvalidArgument, "tensor '", key, "': negative size ", s);
  }
  if (!t.dim_order.empty()) {
    VKRT_CHECK_OR_RETURN(t.dim_order.size() == t.sizes.size(), InvalidArgument, "tensor '", key,
                         "': dim_order has ", t.dim_order.size(), " entries for rank ", t.sizes.size());
    std::vector<bool> seen(t.sizes.size(), false);
    for (uint8_t d : t.dim_order) {
      VKRT_CHECK_OR_RETURN(d < t.sizes.size() && !seen[d], InvalidArgument, "tensor '", key,
                           "': dim_order is not a permutation of 0..rank-1");
      seen[d] = true;
    }
  }
  VKRT_CHECK_OR_RETURN(data_size == t.nbytes(), InvalidArgument, "tensor '", key, "': ", data_size,
                       " bytes of data for a layout of ", t.nbytes(), " bytes");
  return Status::ok();
}

}  // namespace

void FlatTensorBuilder::add_tensor(std::string key, ScalarType dtype, std::vector<int32_t> sizes,
                                   std::span<const uint8_t> data, std::vector<uint8_t> dim_order) {
  TensorSpec layout = TensorSpec::make(dtype, std::move(sizes));
  layout.dim_order = std::move(dim_order);
  entries_.push_back(Entry{std::move(key), std::move(layout), {data.begin(), data.end()}});
}

void FlatTensorBuilder::add_blob(std::string key, std::span<const uint8_t> data) {
  entries_.push_back(Entry{std::move(key), std::nullopt, {data.begin(), data.end()}});
}

Result<std::vector<uint8_t>> FlatTensorBuilder::build() const {
  const uint64_t alignment = options_.segment_alignment;
  VKRT_CHECK_OR_RETURN(alignment != 0 && (alignment & (alignment - 1)) == 0, InvalidArgument,
                       "segment_alignment ", alignment, " is not a power of two");
  std::set<std::string> keys;
  for (const Entry& e : entries_) {
    VKRT_CHECK_OR_RETURN(keys.insert(e.key).second, InvalidArgument, "duplicate key '", e.key, "'");
    if (e.layout) VKRT_RETURN_IF_ERROR(check_layout(e.key, *e.layout, e.data.size()));
  }

  SegmentLayout block(alignment);
  flatbuffers::FlatBufferBuilder fbb(512);
  std::vector<flatbuffers::Offset<ft::DataSegment>> segments;
  std::vector<flatbuffers::Offset<ft::NamedData>> named;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    segments.push_back(ft::CreateDataSegment(fbb, block.append(e.data), e.data.size()));
    flatbuffers::Offset<ft::TensorLayout> layout = 0;
    if (e.layout) {
      std::vector<uint8_t> order = e.layout->dim_order;
      for (size_t d = order.size(); d < e.layout->sizes.size(); ++d) order.push_back(uint8_t(d));
      const auto sizes = fbb.CreateVector(e.layout->sizes);
      const auto dim_order = fbb.CreateVector(order);
      layout = ft::CreateTensorLayout(fbb, int8_t(e.layout->dtype), sizes, dim_order);
    }
    const auto key = fbb.CreateString(e.key);
    named.push_back(ft::CreateNamedData(fbb, key, uint32_t(i), layout));
  }
  const auto segment_list = fbb.CreateVector(segments);
  const auto named_list = fbb.CreateVector(named);
  auto root = ft::CreateFlatTensor(fbb, /*version=*/0, segment_list, named_list);
  ft::FinishFlatTensorBuffer(fbb, root);
  // Every segment is followed by padding to the alignment, the last one included.
  std::vector<uint8_t> segment_data = block.bytes;
  segment_data.resize(round_up(segment_data.size(), alignment), 0);
  return assemble_ptd(std::span<const uint8_t>(fbb.GetBufferPointer(), fbb.GetSize()), segment_data,
                      options_);
}

Status FlatTensorBuilder::write_file(const std::string& path) const {
  VKRT_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, build());
  return write_bytes_to_file(path, bytes);
}

Result<std::vector<uint8_t>> assemble_ptd(std::span<const uint8_t> flatbuffer,
                                          std::span<const uint8_t> segment_data,
                                          const PtdWriteOptions& options) {
  const uint64_t alignment = options.segment_alignment;
  VKRT_CHECK_OR_RETURN(alignment != 0 && (alignment & (alignment - 1)) == 0, InvalidArgument,
                       "segment_alignment ", alignment, " is not a power of two");
  VKRT_CHECK_OR_RETURN(flatbuffer.size() >= kFlatBufferPreamble + 4, InvalidArgument,
                       "flatbuffer of ", flatbuffer.size(), " bytes is too short");
  VKRT_CHECK_OR_RETURN(std::memcmp(flatbuffer.data() + 4, "FT01", 4) == 0, InvalidArgument,
                       "flatbuffer identifier is not FT01");
  // The FlatBuffer is [0, flatbuffer_offset + flatbuffer_size): the preamble, the header, then
  // the rest of the tables.
  const uint64_t flatbuffer_offset = kFlatBufferPreamble + kPtdHeaderLength;
  const uint64_t flatbuffer_size = flatbuffer.size() - kFlatBufferPreamble;
  const uint64_t base = round_up(flatbuffer_offset + flatbuffer_size, alignment);
  std::vector<uint8_t> out(base + segment_data.size(), 0);
  std::memcpy(out.data(), flatbuffer.data(), kFlatBufferPreamble);
  put_u32(out.data(), get_u32(flatbuffer.data()) + uint32_t(kPtdHeaderLength));
  uint8_t* header = out.data() + kFlatBufferPreamble;
  std::memcpy(header, "FH01", 4);
  put_u32(header + 4, uint32_t(kPtdHeaderLength));
  put_u64(header + 8, flatbuffer_offset);
  put_u64(header + 16, flatbuffer_size);
  put_u64(header + 24, base);
  put_u64(header + 32, segment_data.size());
  std::memcpy(out.data() + flatbuffer_offset, flatbuffer.data() + kFlatBufferPreamble, flatbuffer_size);
  if (!segment_data.empty()) std::memcpy(out.data() + base, segment_data.data(), segment_data.size());
  return out;
}

}  // namespace vkrt
