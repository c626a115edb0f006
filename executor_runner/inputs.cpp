#include "inputs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>

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

Result<std::vector<uint8_t>> encode_npy(const Tensor& t) {
  const std::string descr = npy_descr(t.dtype());
  if (descr.empty())
    return make_error(Error::InvalidArgument, "no .npy dtype for ", scalar_type_name(t.dtype()));
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (int d = 0; d < t.rank(); ++d) dict += std::to_string(t.size(d)) + (t.rank() == 1 ? "," : d + 1 < t.rank() ? ", " : "");
  dict += "), }";
  // Magic (6) + version (2) + header length (2) + dict, padded with spaces to a multiple of 64
  // and ended by a newline, as NumPy writes it.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  static const uint8_t kMagicAndVersion[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  std::vector<uint8_t> out(10 + dict.size() + t.nbytes());
  std::memcpy(out.data(), kMagicAndVersion, 8);
  out[8] = uint8_t(dict.size() & 0xff);
  out[9] = uint8_t(dict.size() >> 8);
  std::memcpy(out.data() + 10, dict.data(), dict.size());
  if (t.nbytes()) std::memcpy(out.data() + 10 + dict.size(), t.data(), t.nbytes());
  return out;
}

namespace {

// The header dict of a .npy file: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
// Parsed by hand, without throwing calls: every field is checked and any other text refused.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int32_t> shape;
};

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  // Returns "" on success, else why the header is malformed.
  std::string parse(NpyHeader& out) {
    bool have_descr = false, have_order = false, have_shape = false;
    skip_space();
    if (!eat('{')) return "the header is not a dict";
    for (;;) {
      skip_space();
      if (eat('}')) break;
      std::string key;
      if (!string_literal(key)) return "a header key is not a quoted string";
      skip_space();
      if (!eat(':')) return "no ':' after header key '" + key + "'";
      skip_space();
      if (key == "descr") {
        if (have_descr || !string_literal(out.descr)) return "bad 'descr' value";
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_order) return "'fortran_order' given twice";
        if (word("True")) out.fortran_order = true;
        else if (word("False")) out.fortran_order = false;
        else return "'fortran_order' is neither True nor False";
        have_order = true;
      } else if (key == "shape") {
        if (have_shape) return "'shape' given twice";
        std::string why = tuple(out.shape);
        if (!why.empty()) return why;
        have_shape = true;
      } else {
        return "unexpected header key '" + key + "'";
      }
      skip_space();
      if (eat(',')) continue;
      if (eat('}')) break;
      return "expected ',' or '}' in the header";
    }
    skip_space();
    if (pos_ != s_.size()) return "text after the header dict";
    if (!have_descr || !have_order || !have_shape) return "the header lacks 'descr', 'fortran_order' or 'shape'";
    return "";
  }

 private:
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  bool string_literal(std::string& out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return false;
    char quote = s_[pos_++];
    size_t end = s_.find(quote, pos_);
    if (end == std::string_view::npos) return false;
    out.assign(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return true;
  }
  // "()", "(3,)", "(2, 3)", "(2, 3,)": non-negative dimensions up to INT32_MAX.
  std::string tuple(std::vector<int32_t>& out) {
    if (!eat('(')) return "'shape' is not a tuple";
    out.clear();
    for (;;) {
      skip_space();
      if (eat(')')) return "";
      int64_t v = 0;
      const char* first = s_.data() + pos_;
      const char* last = s_.data() + s_.size();
      auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec == std::errc::result_out_of_range || (ec == std::errc() && (v < 0 || v > INT32_MAX)))
        return "a 'shape' dimension is out of range";
      if (ec != std::errc() || ptr == first) return "a 'shape' dimension is not a number";
      pos_ += size_t(ptr - first);
      if (out.size() >= kMaxNpyDims) return "'shape' has more than " + std::to_string(kMaxNpyDims) + " dimensions";
      out.push_back(int32_t(v));
      skip_space();
      if (eat(',')) continue;
      if (eat(')')) return "";
      return "expected ',' or ')' in 'shape'";
    }
  }

  static constexpr size_t kMaxNpyDims = 32;
  std::string_view s_;
  size_t pos_ = 0;
};

Result<InputData> parse_npy(std::vector<uint8_t> file, const std::string& path, const ValueInfo& expected,
                            size_t index) {
  auto bad = [&](const std::string& why) {
    return make_error(Error::InvalidArgument, "input ", index, " (", path, "): ", why);
  };
  if (file.size() < 10) return bad("file too short for .npy");
  const int major = file[6], minor = file[7];
  size_t header_len, header_start;
  if (major == 1) {
    header_len = size_t(file[8]) | size_t(file[9]) << 8;
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) return bad("file too short for .npy v2");
    header_len = size_t(file[8]) | size_t(file[9]) << 8 | size_t(file[10]) << 16 | size_t(file[11]) << 24;
    header_start = 12;
  } else {
    return bad("unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor));
  }
  if (minor != 0) return bad("unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor));
  if (header_len > kMaxNpyHeaderBytes) return bad(".npy header of " + std::to_string(header_len) + " bytes is too long");
  if (header_len > file.size() - header_start) return bad(".npy header runs past the end of the file");
  std::string_view text(reinterpret_cast<const char*>(file.data()) + header_start, header_len);
  NpyHeader header;
  std::string why = HeaderParser(text).parse(header);
  if (!why.empty()) return bad("malformed .npy header: " + why);
  std::string want = npy_descr(expected.dtype);
  const std::string& descr = header.descr;
  if (descr != want && !(want.size() == 3 && want[0] == '|' && descr.size() == 3 && descr.substr(1) == want.substr(1)))
    return bad("dtype '" + descr + "' does not match the input's " + scalar_type_name(expected.dtype) + " ('" + want + "')");
  if (header.fortran_order) return bad("Fortran-order arrays are not supported");
  // The data must hold exactly the elements the shape names (each dimension is at most INT32_MAX;
  // a product past 2^64 is reported as such, not wrapped).
  const size_t data_bytes = file.size() - header_start - header_len;
  uint64_t need = element_size(expected.dtype);
  bool overflow = false;
  for (int32_t d : header.shape) {
    if (d == 0) { need = 0; overflow = false; break; }
    if (overflow) continue;
    if (need > UINT64_MAX / uint64_t(d)) overflow = true;
    else need *= uint64_t(d);
  }
  if (overflow || need != data_bytes)
    return bad(".npy data is " + std::to_string(data_bytes) + " bytes, " +
               (overflow ? std::string("its shape needs more than 2^64") : "its shape needs " + std::to_string(need)));
  InputData out;
  out.is_npy = true;
  out.npy_shape = std::move(header.shape);
  out.bytes.assign(file.begin() + long(header_start + header_len), file.end());
  return out;
}

}  // namespace

Result<InputData> read_input_file(const std::string& path, const ValueInfo& expected, size_t index) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below like any other
  // file that is not a regular one.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return make_error(Error::NotFound, "input ", index, ": cannot open ", path, ": ", strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0)
    return make_error(Error::AccessFailed, "input ", index, ": cannot stat ", path, ": ", strerror(errno));
  if (S_ISDIR(st.st_mode))
    return make_error(Error::InvalidArgument, "input ", index, ": ", path, " is a directory, not an input file");
  if (!S_ISREG(st.st_mode))
    return make_error(Error::InvalidArgument, "input ", index, ": ", path,
                      " is not a regular file (devices, pipes and sockets are not read)");
  // Scalar inputs are 8 bytes at most; a .npy file adds its header to the data.
  const uint64_t need = std::max<uint64_t>(expected.nbytes, 8);
  const uint64_t limit = need + kMaxNpyHeaderBytes + 12;
  const uint64_t size = uint64_t(st.st_size);
  if (size > limit)
    return make_error(Error::InvalidArgument, "input ", index, " (", path, "): the file is ", size,
                      " bytes, more than the input's ", expected.nbytes, " bytes (plus at most ", kMaxNpyHeaderBytes,
                      " of .npy header)");
  std::vector<uint8_t> file(static_cast<size_t>(size));
  size_t got = 0;
  while (got < file.size()) {
    ssize_t n = ::read(fd, file.data() + got, file.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(Error::AccessFailed, "input ", index, ": cannot read ", path, ": ", strerror(errno));
    if (n == 0) break;  // the file shrank since fstat
    got += size_t(n);
  }
  file.resize(got);
  return parse_input_bytes(std::move(file), path, expected, index);
}

Result<InputData> parse_input_bytes(std::vector<uint8_t> file, const std::string& path, const ValueInfo& expected,
                                    size_t index) {
  if (file.size() >= 6 && file[0] == 0x93 && memcmp(file.data() + 1, "NUMPY", 5) == 0)
    return parse_npy(std::move(file), path, expected, index);
  InputData out;
  out.bytes = std::move(file);
  return out;
}

Result<Tensor> input_tensor(const std::vector<int32_t>& npy_shape, bool is_npy, std::span<uint8_t> bytes,
                            const ValueInfo& info, const std::string& path, size_t index) {
  std::vector<int32_t> sizes = is_npy ? npy_shape : info.sizes;
  if (is_npy && sizes.size() != info.sizes.size() && info.dynamism == ShapeDynamism::Static) sizes = info.sizes;
  VKRT_ASSIGN_OR_RETURN(Tensor t, Tensor::make(info.dtype, sizes, info.dim_order, bytes.data()));
  if (bytes.size() != t.nbytes())
    return make_error(Error::InvalidArgument, "input ", index, " (", path, "): input size (", bytes.size(),
                      ") and tensor size (", t.nbytes(), ") mismatch!");
  return t;
}

}  // namespace vkrt::runner
