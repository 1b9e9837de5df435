// The editor's open documents, and LSP positions (line, UTF-16 code unit) <-> byte offsets.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace trl::lsp {

// UTF-16 code units of the first `byte_column` bytes of `line` (clamped to the line).
std::uint32_t utf16_column(std::string_view line, std::uint32_t byte_column);
// The byte column of UTF-16 column `character` of `line`: clamped to the line's end, and to the
// start of a character when it falls inside a surrogate pair or a multi-byte sequence.
std::uint32_t byte_column(std::string_view line, std::uint32_t character);

// The byte offset of an LSP position in `text`; a line past the end gives the text's end, a
// character past the line's end gives the line's end (before its `\r\n` or `\n`).
std::size_t offset_of(std::string_view text, std::uint32_t line, std::uint32_t character);

// The (line, byte column) of byte `offset` of `text` (clamped to its end).
struct LineColumn {
  std::uint32_t line = 0, column = 0;
};
LineColumn line_column(std::string_view text, std::size_t offset);

// Line `line` of `text` without its terminator (empty past the end).
std::string_view line_of(std::string_view text, std::uint32_t line);

struct Document {
  std::string uri;
  std::string path;  // absolute
  std::string text;
  std::int64_t version = 0;
};

class DocumentStore {
 public:
  Document& open(const std::string& uri, const std::string& path, std::string text, std::int64_t version);
  Document* find(const std::string& uri);
  bool close(const std::string& uri);
  const std::map<std::string, Document>& all() const { return docs_; }

  // Replaces [start, end) (LSP positions, clamped; end before start is swapped) by `text`.
  // Returns the bytes replaced: [start, old_end) of the old text is [start, new_end) now.
  struct ByteEdit {
    std::size_t start = 0, old_end = 0, new_end = 0;
  };
  static ByteEdit apply_change(std::string& doc, std::uint32_t start_line, std::uint32_t start_char,
                               std::uint32_t end_line, std::uint32_t end_char, std::string_view text);

 private:
  std::map<std::string, Document> docs_;
};

// file:///a%20b/c -> /a b/c; empty when the URI is not a file URI.
std::string uri_to_path(std::string_view uri);
std::string path_to_uri(std::string_view path);

}  // namespace trl::lsp
