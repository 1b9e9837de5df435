#include "analyzer/source/source_file.hpp"

#include <algorithm>
#include <cstring>

namespace trl {

const char* to_string(FileKind kind) {
  switch (kind) {
    case FileKind::Python: return "python";
    case FileKind::Yaml: return "yaml";
    case FileKind::Shell: return "shell";
    case FileKind::Markdown: return "markdown";
    case FileKind::Makefile: return "makefile";
    case FileKind::Notebook: return "notebook";
    case FileKind::Toml: return "toml";
    case FileKind::Requirements: return "requirements";
    case FileKind::SetupCfg: return "setup.cfg";
    case FileKind::Json: return "json";
    case FileKind::Other: return "other";
  }
  return "other";
}

void SourceFile::index_lines() {
  line_starts.clear();
  line_starts.push_back(0);
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  for (const char* p = begin; p < end;) {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
    line_starts.push_back(static_cast<std::uint32_t>(p - begin));
  }
}

std::string_view SourceFile::line_text(std::uint32_t line) const {
  if (line >= line_starts.size()) return {};
  std::uint32_t begin = line_starts[line];
  std::uint32_t end = line + 1 < line_starts.size() ? line_starts[line + 1] : static_cast<std::uint32_t>(text.size());
  std::string_view view(text.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r')) view.remove_suffix(1);
  return view;
}

std::uint32_t SourceFile::display_column(Point p) const {
  if (line_starts.empty()) {
    auto it = std::lower_bound(known_columns.begin(), known_columns.end(), p,
                               [](const auto& known, Point q) { return known.first < q; });
    return it != known_columns.end() && it->first == p ? it->second : 1;
  }
  std::string_view line = line_text(p.line);
  std::uint32_t limit = std::min<std::uint32_t>(p.column, static_cast<std::uint32_t>(line.size()));
  std::uint32_t column = 1;
  for (std::uint32_t i = bom && p.line == 0 && limit >= 3 ? 3 : 0; i < limit; ++i) {
    // Count bytes that start a code point (not UTF-8 continuation bytes).
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++column;
  }
  return column;
}

Point SourceFile::point_at(std::uint32_t offset) const {
  auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
  std::uint32_t line = static_cast<std::uint32_t>(it - line_starts.begin()) - 1;
  return Point{line, offset - line_starts[line]};
}

FileId SourceManager::add(std::unique_ptr<SourceFile> file) {
  FileId id = static_cast<FileId>(files_.size());
  file->id = id;
  by_abs_.emplace(std::string_view(file->abs_path), id);
  files_.push_back(std::move(file));
  return id;
}

FileId SourceManager::find_abs(std::string_view abs_path) const {
  auto it = by_abs_.find(abs_path);
  return it == by_abs_.end() ? kNoFile : it->second;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    // ASCII 32 and then eight bytes at a time (most texts are ASCII throughout).
    std::uint64_t block;
    std::uint64_t blocks[4];
    while (n - i >= sizeof blocks) {
      std::memcpy(blocks, text.data() + i, sizeof blocks);
      if ((blocks[0] | blocks[1] | blocks[2] | blocks[3]) & 0x8080808080808080ULL) break;
      i += sizeof blocks;
    }
    while (n - i >= sizeof block) {
      std::memcpy(&block, text.data() + i, sizeof block);
      if (block & 0x8080808080808080ULL) break;
      i += sizeof block;
    }
    if (i == n) break;
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    std::uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and out-of-range code points are invalid.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += len;
  }
  return true;
}

}  // namespace trl
