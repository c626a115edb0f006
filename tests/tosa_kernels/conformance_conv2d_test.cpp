// CONV2D -> RESCALE on the real TOSA test vector
// shared/conformance/vgf/tosa/test_conv2d_1x1_1x32x32x8_qi8_st11_padSAME_dilat11 (tosa.md §13):
// constants and attributes are read from its .tosa file, the result must equal tflite_result.npy
// byte for byte. The .tosa file is read with flatbuffers' untyped Table API and the field slots
// of tosa.md §3, so this test does not depend on the VGF part's TOSA reader.
#include <flatbuffers/flatbuffers.h>

#include <cstring>
#include <map>
#include <string>

#include "common/conformance.h"
#include "tosa_test_util.h"

namespace vkrt::tosa::test {
namespace {

using flatbuffers::Offset;
using flatbuffers::Table;
using flatbuffers::Vector;

constexpr flatbuffers::voffset_t slot(int i) { return flatbuffers::voffset_t(4 + 2 * i); }
template <typename T>
const Vector<T>* vec(const Table* t, int s) { return t->GetPointer<const Vector<T>*>(slot(s)); }
const Vector<Offset<Table>>* tables(const Table* t, int s) { return vec<Offset<Table>>(t, s); }

struct ConstTensor {
  std::vector<int64_t> shape;
  uint32_t type = 0;
  std::vector<uint8_t> bytes;
};

// Minimal .npy reader for little-endian int8 arrays: returns the raw element bytes.
std::vector<uint8_t> read_npy_i1(const std::string& path, std::vector<int64_t>* shape) {
  std::vector<uint8_t> file = vkrt::testing::read_file(path);
  if (file.size() < 10 || std::memcmp(file.data(), "\x93NUMPY", 6) != 0) {
    ADD_FAILURE() << path << ": not a .npy file";
    return {};
  }
  const size_t header_len = file[6] == 1 ? size_t(file[8] | (file[9] << 8)) : 0;
  const size_t data_start = 10 + header_len;
  const std::string header(file.begin() + 10, file.begin() + long(std::min(data_start, file.size())));
  EXPECT_NE(header.find("'descr': '|i1'"), std::string::npos) << header;
  shape->clear();
  const size_t open = header.find('('), close = header.find(')');
  std::string dims = header.substr(open + 1, close - open - 1);
  size_t pos = 0;
  while (pos < dims.size()) {
    const size_t comma = dims.find(',', pos);
    const std::string part = dims.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (part.find_first_of("0123456789") != std::string::npos) shape->push_back(std::stoll(part));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return std::vector<uint8_t>(file.begin() + long(data_start), file.end());
}

std::vector<int64_t> ints(const Vector<int32_t>* v) {
  std::vector<int64_t> out;
  if (v) for (int32_t x : *v) out.push_back(x);
  return out;
}

TEST(TosaConformance, Conv2dRescaleQi8MatchesTfliteResult) {
  const std::string dir_rel = "vgf/tosa/test_conv2d_1x1_1x32x32x8_qi8_st11_padSAME_dilat11";
  VKRT_REQUIRE_CONFORMANCE(dir, dir_rel);
  const std::vector<uint8_t> file = vkrt::testing::read_file(
      dir + "/flatbuffer-tflite/test_conv2d_1x1_1x32x32x8_qi8_st11_padSAME_dilat11.tosa");
  ASSERT_GT(file.size(), 8u);
  // A fixed reference file, read without a schema-generated verifier; each table is still
  // checked to start inside the buffer before use.
  ASSERT_TRUE(flatbuffers::BufferHasIdentifier(file.data(), "TOSA"));
  flatbuffers::Verifier verifier(file.data(), file.size());
  auto checked = [&](const Table* t) {
    EXPECT_TRUE(t != nullptr && t->VerifyTableStart(verifier));
    return t;
  };

  // TosaGraph.regions[0].blocks[0] (tosa.md §3 slots).
  const Table* graph = checked(flatbuffers::GetRoot<Table>(file.data()));
  const Table* block = checked(tables(checked(tables(graph, 1)->Get(0)), 1)->Get(0));
  std::map<std::string, ConstTensor> consts;
  for (const Table* t : *tables(block, 2)) {
    checked(t);
    const auto* data = vec<uint8_t>(t, 3);
    if (!data || data->size() == 0) continue;  // graph inputs and intermediates carry no data
    ConstTensor c;
    c.shape = ints(vec<int32_t>(t, 1));
    c.type = t->GetField<uint32_t>(slot(2), 0);
    int64_t count = 1;
    for (int64_t d : c.shape) count *= d;
    const size_t esize = c.type == 3 ? 1 : 4;  // INT8 or INT32 in this file
    ASSERT_GE(data->size(), size_t(count) * esize);
    c.bytes.assign(data->begin(), data->begin() + long(size_t(count) * esize));  // data is padded to 8
    consts[t->GetPointer<const flatbuffers::String*>(slot(0))->str()] = c;
  }
  const Table* conv_op = nullptr;
  const Table* rescale_op = nullptr;
  for (const Table* op : *tables(block, 1)) {
    checked(op);
    const uint32_t code = op->GetField<uint32_t>(slot(0), 0);
    if (code == 3) conv_op = op;       // CONV2D
    if (code == 66) rescale_op = op;   // RESCALE
  }
  ASSERT_TRUE(conv_op && rescale_op);
  auto input_name = [](const Table* op, int i) {
    return op->GetPointer<const Vector<Offset<flatbuffers::String>>*>(slot(3))->Get(flatbuffers::uoffset_t(i))->str();
  };
  auto get = [&](const Table* op, int i) -> ConstTensor& { return consts.at(input_name(op, i)); };
  auto i8_at = [](const ConstTensor& c) { return int64_t(int8_t(c.bytes[0])); };

  // CONV2D attributes: pad, stride, dilation, local_bound, acc_type (DType numbers).
  const Table* ca = conv_op->GetPointer<const Table*>(slot(2));
  ConvAttr conv;
  const auto pad = ints(vec<int32_t>(ca, 0)), stride = ints(vec<int32_t>(ca, 1)), dil = ints(vec<int32_t>(ca, 2));
  ASSERT_EQ(pad.size(), 4u);
  ASSERT_EQ(stride.size(), 2u);
  ASSERT_EQ(dil.size(), 2u);
  for (int i = 0; i < 4; ++i) conv.pad[i] = pad[size_t(i)];
  for (int i = 0; i < 2; ++i) conv.stride[i] = stride[size_t(i)], conv.dilation[i] = dil[size_t(i)];
  const auto acc_read = DType(ca->GetField<uint32_t>(slot(4), 0));
  ASSERT_EQ(acc_read, DType::Int32) << "an int8 CONV2D accumulates in int32, read " << dtype_name(acc_read);
  conv.acc_type = AccType::Int32;
  ConstTensor& weight = get(conv_op, 1);
  ConstTensor& bias = get(conv_op, 2);
  conv.input_zp = i8_at(get(conv_op, 3));
  conv.weight_zp = i8_at(get(conv_op, 4));

  // RESCALE attributes: scale32, rounding_mode, per_channel, input_unsigned, output_unsigned.
  const Table* ra = rescale_op->GetPointer<const Table*>(slot(2));
  ConstTensor& mult = get(rescale_op, 1);
  ConstTensor& shift = get(rescale_op, 2);
  std::vector<int32_t> mult_v(mult.bytes.size() / 4), shift_v;
  std::memcpy(mult_v.data(), mult.bytes.data(), mult.bytes.size());
  for (uint8_t b : shift.bytes) shift_v.push_back(int8_t(b));
  RescaleAttr rs;
  rs.multiplier = mult_v;
  rs.shift.assign(shift_v.begin(), shift_v.end());
  rs.scale32 = ra->GetField<uint8_t>(slot(0), 0) != 0;
  rs.rounding_mode = RoundingMode(ra->GetField<uint32_t>(slot(1), 0));
  rs.per_channel = ra->GetField<uint8_t>(slot(2), 0) != 0;
  rs.input_unsigned = ra->GetField<uint8_t>(slot(3), 0) != 0;
  rs.output_unsigned = ra->GetField<uint8_t>(slot(4), 0) != 0;
  ConstTensor& in_zp = get(rescale_op, 3);
  int32_t in_zp_v = 0;
  std::memcpy(&in_zp_v, in_zp.bytes.data(), std::min<size_t>(4, in_zp.bytes.size()));
  rs.input_zp = in_zp.type == 3 ? i8_at(in_zp) : in_zp_v;
  rs.output_zp = i8_at(get(rescale_op, 4));
  EXPECT_EQ(rs.output_zp, -2);  // tosa.md §13
  EXPECT_EQ(rs.rounding_mode, RoundingMode::DoubleRound);

  std::vector<int64_t> in_shape, want_shape;
  std::vector<uint8_t> in_bytes = read_npy_i1(dir + "/placeholder_0.npy", &in_shape);
  std::vector<uint8_t> want = read_npy_i1(dir + "/tflite_result.npy", &want_shape);
  ASSERT_EQ(in_shape, (std::vector<int64_t>{1, 32, 32, 8}));
  ASSERT_EQ(want_shape, (std::vector<int64_t>{1, 32, 32, 16}));
  ASSERT_EQ(in_bytes.size(), size_t(32 * 32 * 8));

  TensorRef in{DType::Int8, in_shape, in_bytes.data()};
  TensorRef w{DType::Int8, weight.shape, weight.bytes.data()};
  TensorRef b{DType::Int32, bias.shape, bias.bytes.data()};
  auto acc = i32({1, 32, 32, 16});
  auto out = i8({1, 32, 32, 16});
  EXPECT_TOSA_OK(conv2d_every_path(in, w, b, conv, acc));
  EXPECT_TOSA_OK(rescale(acc, rs, out));
  int mismatches = 0;
  for (size_t i = 0; i < want.size(); ++i) mismatches += out.data[i] != int8_t(want[i]);
  EXPECT_EQ(mismatches, 0) << "of " << want.size();
}

}  // namespace
}  // namespace vkrt::tosa::test
