// A file of the analysed project: its text, its kind, and how to turn byte offsets into
// line/column positions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace trl {

using FileId = std::uint32_t;
inline constexpr FileId kNoFile = 0xffffffffu;

// 0-based line and byte column, as tree-sitter reports them.
struct Point {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  // clang-tidy 14 flags the literal 0 of the comparison category a defaulted <=> synthesizes
  // (modernize-use-nullptr; llvm-project issue 53961, fixed in clang-tidy 18).
  auto operator<=>(const Point&) const = default;  // NOLINT(modernize-use-nullptr)
};

// A range of bytes in one file, with its start and end points.
struct Span {
  FileId file = kNoFile;
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  Point start;
  Point stop;
  bool valid() const { return file != kNoFile; }
  bool operator==(const Span&) const = default;
};

// Json: only the JSON files a Python file names in a string literal (see load_referenced_json).
enum class FileKind { Python, Yaml, Shell, Markdown, Makefile, Notebook, Toml, Requirements, SetupCfg, Json, Other };

const char* to_string(FileKind kind);

struct SourceFile {
  FileId id = kNoFile;
  std::string path;      // relative to the current directory, forward slashes (what users see)
  std::string abs_path;  // absolute, normalised
  FileKind kind = FileKind::Other;
  std::string text;
  std::vector<std::uint32_t> line_starts;  // byte offset of each line
  // The file starts with a UTF-8 byte order mark, which `text` holds as three spaces (offsets
  // stay those of the file). Columns of the first line are counted after it, as editors show it.
  bool bom = false;
  // A file the result cache vouched for without reading it (no text, no line index): the
  // display columns of the points its stored findings name, sorted by point. display_column
  // answers from them; a point without one gets column 1.
  std::vector<std::pair<Point, std::uint32_t>> known_columns;

  void index_lines();
  std::string_view line_text(std::uint32_t line) const;  // without the newline
  // 1-based column in Unicode code points, as shown to users.
  std::uint32_t display_column(Point p) const;
  Point point_at(std::uint32_t offset) const;
};

// Owns every file of one analysis; ids are indexes.
class SourceManager {
 public:
  FileId add(std::unique_ptr<SourceFile> file);
  void reserve(std::size_t n) {  // room for `n` files in all
    files_.reserve(n);
    by_abs_.reserve(n);
  }
  const SourceFile& get(FileId id) const { return *files_.at(id); }
  // The file's text and facts may change; its abs_path must not (the lookup keys view it).
  SourceFile& get_mut(FileId id) { return *files_.at(id); }
  std::size_t size() const { return files_.size(); }
  // Lookup by absolute normalised path; kNoFile when absent.
  FileId find_abs(std::string_view abs_path) const;

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
  // Keys view each file's abs_path (files are heap-allocated: they stay where they are), which
  // spares a copy of every path.
  std::unordered_map<std::string_view, FileId> by_abs_;
};

// True when `text` is valid UTF-8.
bool is_valid_utf8(std::string_view text);

// Appends code point `cp` (at most U+10FFFF) to `out`, encoded as UTF-8.
void append_utf8(std::string& out, std::uint32_t cp);

}  // namespace trl
