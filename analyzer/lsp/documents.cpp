#include "analyzer/lsp/documents.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace trl::lsp {

namespace {

// Length of the UTF-8 sequence starting with byte `c` (1 for invalid lead bytes).
std::uint32_t sequence_length(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xe) return 3;
  if ((c >> 3) == 0x1e) return 4;
  return 1;
}

}  // namespace

std::uint32_t utf16_column(std::string_view line, std::uint32_t byte_column) {
  const std::size_t end = std::min<std::size_t>(byte_column, line.size());
  std::uint32_t units = 0;
  std::size_t i = 0;
  while (i < end) {
    const std::uint32_t len = sequence_length(static_cast<unsigned char>(line[i]));
    if (i + len > end) break;  // a column inside a character counts up to its start
    units += len == 4 ? 2 : 1;
    i += len;
  }
  return units;
}

std::uint32_t byte_column(std::string_view line, std::uint32_t character) {
  std::uint32_t units = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    const std::uint32_t len = sequence_length(static_cast<unsigned char>(line[i]));
    const std::uint32_t w = len == 4 ? 2 : 1;
    if (units + w > character) break;
    units += w;
    i = std::min(line.size(), i + len);
  }
  return static_cast<std::uint32_t>(i);
}

std::string_view line_of(std::string_view text, std::uint32_t line) {
  std::size_t start = 0;
  for (std::uint32_t l = 0; l < line; ++l) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
  }
  auto nl = text.find('\n', start);
  std::string_view s = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

std::size_t offset_of(std::string_view text, std::uint32_t line, std::uint32_t character) {
  std::size_t start = 0;
  for (std::uint32_t l = 0; l < line; ++l) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) return text.size();
    start = nl + 1;
  }
  auto nl = text.find('\n', start);
  std::string_view s = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return start + byte_column(s, character);
}

Document& DocumentStore::open(const std::string& uri, const std::string& path, std::string text, std::int64_t version) {
  Document& d = docs_[uri];
  d.uri = uri;
  d.path = path;
  d.text = std::move(text);
  d.version = version;
  return d;
}

Document* DocumentStore::find(const std::string& uri) {
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : &it->second;
}

bool DocumentStore::close(const std::string& uri) {
  return docs_.erase(uri) > 0;
}

DocumentStore::ByteEdit DocumentStore::apply_change(std::string& doc, std::uint32_t start_line,
                                                    std::uint32_t start_char, std::uint32_t end_line,
                                                    std::uint32_t end_char, std::string_view text) {
  std::size_t a = offset_of(doc, start_line, start_char);
  std::size_t b = offset_of(doc, end_line, end_char);
  if (b < a) std::swap(a, b);
  doc.replace(a, b - a, text);
  return {a, b, a + text.size()};
}

LineColumn line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  LineColumn out;
  std::size_t line_start = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string_view::npos && nl < offset; nl = text.find('\n', nl + 1)) {
    ++out.line;
    line_start = nl + 1;
  }
  out.column = static_cast<std::uint32_t>(offset - line_start);
  return out;
}

namespace {
int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string uri_to_path(std::string_view uri) {
  constexpr std::string_view scheme = "file://";
  if (uri.substr(0, scheme.size()) != scheme) return {};
  uri.remove_prefix(scheme.size());
  auto slash = uri.find('/');
  if (slash == std::string_view::npos) return {};
  uri.remove_prefix(slash);  // drop an authority (`file://localhost/...`)
  std::string out;
  for (std::size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%' && i + 2 < uri.size() && hex(uri[i + 1]) >= 0 && hex(uri[i + 2]) >= 0) {
      out += static_cast<char>(hex(uri[i + 1]) * 16 + hex(uri[i + 2]));
      i += 2;
    } else {
      out += uri[i];
    }
  }
  return std::filesystem::path(out).lexically_normal().string();
}

std::string path_to_uri(std::string_view path) {
  static const char* digits = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

}  // namespace trl::lsp
