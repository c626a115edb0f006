#include "inputs.h"

#include <fstream>
#include <iterator>

namespace vkrt::runner {

std::string npy_descr(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return "<f4";
    case ScalarType::Double: return "<f8";
    case ScalarType::Half: return "<f2";
    case ScalarType::Char: return "|i1";
    case ScalarType::Byte: return "|u1";
    case ScalarType::Short: return "<i2";
    case ScalarType::Int: return "<i4";
    case ScalarType::Long: return "<i8";
    case ScalarType::UInt16: return "<u2";
    case ScalarType::UInt32: return "<u4";
    case ScalarType::UInt64: return "<u8";
    case ScalarType::Bool: return "|b1";
    case ScalarType::ComplexFloat: return "<c8";
    case ScalarType::ComplexDouble: return "<c16";
    default: return "";
  }
}

// Finds the value of 'key': in the header dict text (NumPy format 1.0/2.0/3.0).
static std::string dict_value(const std::string& header, const std::string& key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) return "";
  size_t colon = header.find(':', k);
  if (colon == std::string::npos) return "";
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) return "";
  char open = header[start];
  if (open == '\'') {
    size_t end = header.find('\'', start + 1);
    return end == std::string::npos ? "" : header.substr(start + 1, end - start - 1);
  }
  if (open == '(') {
    size_t end = header.find(')', start);
    return end == std::string::npos ? "" : header.substr(start, end - start + 1);
  }
  size_t end = header.find_first_of(",}", start);
  return header.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

static Result<InputData> parse_npy(std::vector<uint8_t> file, const std::string& path, const ValueInfo& expected,
                                   size_t index) {
  auto bad = [&](const std::string& why) {
    return make_error(Error::InvalidArgument, "input ", index, " (", path, "): ", why);
  };
  if (file.size() < 10) return bad("file too short for .npy");
  int major = file[6];
  size_t header_len, header_start;
  if (major == 1) {
    header_len = size_t(file[8]) | size_t(file[9]) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) return bad("file too short for .npy v2");
    header_len = size_t(file[8]) | size_t(file[9]) << 8 | size_t(file[10]) << 16 | size_t(file[11]) << 24;
    header_start = 12;
  } else {
    return bad("unsupported .npy version " + std::to_string(major));
  }
  if (header_start + header_len > file.size()) return bad(".npy header runs past the end of the file");
  std::string header(file.begin() + long(header_start), file.begin() + long(header_start + header_len));
  std::string descr = dict_value(header, "descr");
  std::string want = npy_descr(expected.dtype);
  if (descr != want && !(want.size() == 3 && want[0] == '|' && descr.size() == 3 && descr.substr(1) == want.substr(1)))
    return bad("dtype '" + descr + "' does not match the input's " + scalar_type_name(expected.dtype) + " ('" + want + "')");
  if (dict_value(header, "fortran_order") == "True") return bad("Fortran-order arrays are not supported");
  InputData out;
  out.is_npy = true;
  std::string shape = dict_value(header, "shape");
  for (size_t i = 1; i < shape.size();) {
    size_t j = shape.find_first_of(",)", i);
    if (j == std::string::npos) break;
    std::string num = shape.substr(i, j - i);
    if (num.find_first_not_of(" ") != std::string::npos) {
      long long v = std::stoll(num);
      if (v < 0 || v > INT32_MAX) return bad("bad shape " + shape);
      out.npy_shape.push_back(int32_t(v));
    }
    i = j + 1;
  }
  out.bytes.assign(file.begin() + long(header_start + header_len), file.end());
  return out;
}

Result<InputData> read_input_file(const std::string& path, const ValueInfo& expected, size_t index) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(Error::NotFound, "input ", index, ": cannot open ", path);
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() >= 6 && file[0] == 0x93 && std::string(file.begin() + 1, file.begin() + 6) == "NUMPY")
    return parse_npy(std::move(file), path, expected, index);
  InputData out;
  out.bytes = std::move(file);
  return out;
}

}  // namespace vkrt::runner
