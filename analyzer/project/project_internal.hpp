// What the parts of project loading share: reading a file from disk, recording an internal
// error on one file, and the word scan that links deferred Python files to the names of them.
//   project.cpp          reading the files (disk, overlays, the result cache's records), the
//                        project's queries of the disk, and edits of one file
//   project_extract.cpp  extracting each file's facts, and the order extraction runs in
//   prefilter_reach.cpp  the pre-filter's scan of Python text and the deferred files others reach
//   referenced_json.cpp  the JSON files a project's files name
#pragma once

#include <cctype>
#include <cstdint>
#include <exception>
#include <string_view>

#include "analyzer/project/project.hpp"

namespace trl::project_detail {

// Reads a file with the checks every later stage relies on: size, text, UTF-8. One open, one
// fstat and as few reads as the size allows (this runs over every file of the repository).
void read_file(SourceFile& file, FileFacts& facts, std::uint64_t max_size);

// Replaces file `i`'s facts with a TRL901 problem: an internal error while reading it.
void record_internal_error(Project& project, std::size_t i, const std::exception& e);

// Calls `fn` with the parts of every word of `text`, split at anything but letters, digits, `_`,
// `-` and non-ASCII bytes (a module's name may be non-ASCII): `scripts/train.py` gives
// `scripts`, `train`, `py`. With `dotted`, only the words with a `.` inside, whole
// (`prep.v2.py`), and again without a final `.py` (`prep.v2`, the name of that module).
template <class Fn>
void for_each_word(std::string_view text, Fn fn, bool dotted = false) {
  auto word_char = [&](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || c == '_' || c == '-' || u >= 0x80 || (dotted && c == '.');
  };
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !word_char(text[i])) ++i;
    const std::size_t b = i;
    while (i < text.size() && word_char(text[i])) ++i;
    if (i == b) continue;
    std::string_view w = text.substr(b, i - b);
    if (!dotted) {
      fn(w);
      continue;
    }
    while (!w.empty() && w.back() == '.') w.remove_suffix(1);  // the end of a sentence
    if (w.find('.') == std::string_view::npos) continue;
    fn(w);
    if (w.size() > 3 && w.substr(w.size() - 3) == ".py") fn(w.substr(0, w.size() - 3));
  }
}

// The other name a module is reached by: its package's for `pkg/__main__.py` (`python -m pkg`
// runs it); "" for any other file.
std::string_view main_module_alias(std::string_view path);

}  // namespace trl::project_detail
