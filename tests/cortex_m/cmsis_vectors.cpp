#include "cortex_m/cmsis_vectors.h"

#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

namespace vkrt::testing::cmsis {
namespace {

bool read_text(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

// Removes comments and joins backslash-continued lines.
std::string clean(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      if (i < text.size()) out += '\n';
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 1;
      out += ' ';
    } else if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      ++i;
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      out += ' ';
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Parses a comma-separated list of integers inside braces; trailing comma allowed.
bool parse_int_list(const std::string& body, std::vector<int64_t>* out) {
  size_t i = 0;
  while (i < body.size()) {
    while (i < body.size() && (std::isspace(static_cast<unsigned char>(body[i])) || body[i] == ',')) ++i;
    if (i >= body.size()) break;
    size_t j = i;
    if (body[j] == '-' || body[j] == '+') ++j;
    while (j < body.size() && std::isalnum(static_cast<unsigned char>(body[j]))) ++j;
    std::string token = body.substr(i, j - i);
    // Integer suffixes (LL, U) and a leading '+'.
    while (!token.empty() && (token.back() == 'L' || token.back() == 'l' || token.back() == 'U' || token.back() == 'u'))
      token.pop_back();
    if (!token.empty() && token[0] == '+') token.erase(0, 1);
    int64_t v = 0;
    const auto r = std::from_chars(token.data(), token.data() + token.size(), v);
    if (token.empty() || r.ec != std::errc() || r.ptr != token.data() + token.size()) return false;
    out->push_back(v);
    i = j;
  }
  return true;
}

}  // namespace

std::string VectorData::parse(const std::string& raw, const std::string& file) {
  const std::string text = clean(raw);
  size_t i = 0;
  while (i < text.size()) {
    // Statement starts: skip whitespace.
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) break;
    if (text[i] == '#') {
      const size_t end = text.find('\n', i);
      const std::string line = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
      i = end == std::string::npos ? text.size() : end + 1;
      if (line.compare(0, 7, "#define") != 0) continue;
      size_t k = 7;
      while (k < line.size() && std::isspace(static_cast<unsigned char>(line[k]))) ++k;
      const size_t name_begin = k;
      while (k < line.size() && is_ident_char(line[k])) ++k;
      if (k == name_begin) return file + ": #define without a name";
      defines_[line.substr(name_begin, k - name_begin)] = trim(line.substr(k));
      continue;
    }
    if (text.compare(i, 5, "const") == 0 && i + 5 < text.size() && !is_ident_char(text[i + 5])) {
      const size_t semi = text.find(';', i);
      if (semi == std::string::npos) return file + ": declaration without ';' at offset " + std::to_string(i);
      const std::string decl = text.substr(i + 5, semi - i - 5);
      i = semi + 1;
      const size_t eq = decl.find('=');
      if (eq == std::string::npos) return file + ": declaration without '=': " + trim(decl.substr(0, 60));
      std::string lhs = trim(decl.substr(0, eq));
      const std::string rhs = trim(decl.substr(eq + 1));
      // lhs: "<type> name[N]" or "<type> *const name"
      const bool pointer = lhs.find('*') != std::string::npos;
      const size_t bracket = lhs.find('[');
      if (bracket != std::string::npos) lhs = trim(lhs.substr(0, bracket));
      size_t e = lhs.size();
      while (e > 0 && is_ident_char(lhs[e - 1])) --e;
      const std::string name = lhs.substr(e);
      std::string type = trim(lhs.substr(0, e));
      if (name.empty()) return file + ": declaration without a name";
      if (pointer) {
        if (rhs == "NULL" || rhs == "0" || rhs == "nullptr") {
          aliases_[name] = "";
        } else {
          for (char c : rhs)
            if (!is_ident_char(c)) return file + ": unsupported initializer for " + name;
          aliases_[name] = rhs;
        }
        continue;
      }
      if (rhs.size() < 2 || rhs.front() != '{' || rhs.back() != '}')
        return file + ": array " + name + " is not a braced list";
      CArray array;
      array.type = type;
      if (!parse_int_list(rhs.substr(1, rhs.size() - 2), &array.values))
        return file + ": array " + name + " holds a value that is not an integer";
      arrays_[name] = std::move(array);
      continue;
    }
    // Anything else (e.g. "static", stray tokens): skip to the end of the statement or line.
    const size_t next = text.find_first_of(";\n", i);
    i = next == std::string::npos ? text.size() : next + 1;
  }
  return "";
}

std::string VectorData::load_from(const std::map<std::string, std::string>& files, const std::string& entry) {
  const auto it = files.find(entry);
  if (it == files.end()) return entry + ": missing";
  const std::string text = clean(it->second);
  std::istringstream lines(text);
  std::string line;
  int includes = 0;
  while (std::getline(lines, line)) {
    const std::string t = trim(line);
    if (t.compare(0, 8, "#include") != 0) continue;
    const size_t q0 = t.find('"'), q1 = t.rfind('"');
    if (q0 == std::string::npos || q1 <= q0) continue;  // <stdint.h>
    const std::string name = t.substr(q0 + 1, q1 - q0 - 1);
    if (name.empty() || name.find('/') != std::string::npos || name.find("..") != std::string::npos)
      return entry + ": refusing include \"" + name + "\"";
    const auto f = files.find(name);
    if (f == files.end()) return entry + ": included header " + name + " not found";
    if (std::string err = parse(f->second, name); !err.empty()) return err;
    ++includes;
  }
  if (includes == 0) return entry + ": includes no headers";
  return "";
}

std::string VectorData::load(const std::string& dir) {
  std::map<std::string, std::string> files;
  std::string entry;
  if (!read_text(dir + "/test_data.h", &entry)) return dir + "/test_data.h: cannot read";
  files["test_data.h"] = entry;
  std::istringstream lines(clean(entry));
  std::string line;
  while (std::getline(lines, line)) {
    const std::string t = trim(line);
    if (t.compare(0, 8, "#include") != 0) continue;
    const size_t q0 = t.find('"'), q1 = t.rfind('"');
    if (q0 == std::string::npos || q1 <= q0) continue;
    const std::string name = t.substr(q0 + 1, q1 - q0 - 1);
    if (name.empty() || name.find('/') != std::string::npos || name.find("..") != std::string::npos)
      return dir + "/test_data.h: refusing include \"" + name + "\"";
    std::string text;
    if (!read_text(dir + "/" + name, &text)) return dir + "/" + name + ": cannot read";
    files[name] = std::move(text);
  }
  return load_from(files, "test_data.h");
}

std::optional<std::string> VectorData::define_text(const std::string& name) const {
  const auto it = defines_.find(name);
  if (it == defines_.end()) return std::nullopt;
  return it->second;
}

std::optional<int64_t> VectorData::define_int(const std::string& name) const {
  const auto text = define_text(name);
  if (!text) return std::nullopt;
  std::string t = *text;
  // Values may be parenthesised: (-5)
  while (t.size() >= 2 && t.front() == '(' && t.back() == ')') t = trim(t.substr(1, t.size() - 2));
  std::vector<int64_t> values;
  if (!parse_int_list(t, &values) || values.size() != 1) return std::nullopt;
  return values[0];
}

std::optional<std::vector<int64_t>> VectorData::define_list(const std::string& name) const {
  const auto text = define_text(name);
  if (!text || text->size() < 2 || text->front() != '{' || text->back() != '}') return std::nullopt;
  std::vector<int64_t> values;
  if (!parse_int_list(text->substr(1, text->size() - 2), &values)) return std::nullopt;
  return values;
}

const CArray* VectorData::array(const std::string& name) const {
  std::string current = name;
  for (int hops = 0; hops < 8; ++hops) {
    const auto a = arrays_.find(current);
    if (a != arrays_.end()) return &a->second;
    const auto p = aliases_.find(current);
    if (p == aliases_.end() || p->second.empty()) return nullptr;
    current = p->second;
  }
  return nullptr;
}

bool VectorData::has_symbol(const std::string& name) const {
  return arrays_.count(name) || aliases_.count(name) || defines_.count(name);
}

std::string parse_index(const std::string& text, std::vector<IndexEntry>* out) {
  std::istringstream lines(text);
  std::string line;
  bool header = true;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (header) {
      header = false;
      continue;
    }
    if (trim(line).empty()) continue;
    const size_t t1 = line.find('\t');
    if (t1 == std::string::npos) return "INDEX.tsv: line without tab: " + line.substr(0, 60);
    const size_t t2 = line.find('\t', t1 + 1);
    IndexEntry e;
    e.dir = line.substr(0, t1);
    if (e.dir.empty() || e.dir.find('/') != std::string::npos || e.dir.find("..") != std::string::npos)
      return "INDEX.tsv: bad folder name: " + e.dir;
    const std::string tests = line.substr(t1 + 1, t2 == std::string::npos ? std::string::npos : t2 - t1 - 1);
    std::istringstream parts(tests);
    std::string part;
    while (std::getline(parts, part, ';'))
      if (!trim(part).empty()) e.unit_tests.push_back(trim(part));
    out->push_back(std::move(e));
  }
  return "";
}

}  // namespace vkrt::testing::cmsis
