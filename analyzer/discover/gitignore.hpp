// .gitignore matching: the patterns of every .gitignore from the root down to a path's folder,
// with git's rules (last match wins, `!` re-includes, `/` anchors, trailing `/` for folders, `**`).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace trl {

namespace glob_detail {
// A pattern as tokens: a literal character, `?`, a class, `*` (never crosses `/`), `**` that
// crosses `/` (one written after other characters of a name, `s**/x`), `**/` at the start of a
// segment (no folder or any folders) and a trailing `/**` (at least one character: what is
// inside, not the folder itself). Each reading checked against `git check-ignore` (git 2.39).
struct Token {
  enum Kind { Literal, Any, Class, Star, Cross, Folders, Inside } kind;
  char c = 0;
  std::size_t at = 0;  // Class: where its `[` is in the pattern
};

// A pattern read once: its tokens, and the shapes most .gitignore lines have (`name`, `*.ext`,
// `prefix*`), matched without the general matcher. Matches what glob_match does.
struct Glob {
  Glob() = default;
  explicit Glob(std::string text);
  bool matches(std::string_view path) const;
  std::string text;
  std::vector<Token> tokens;
  enum class Shape { Exact, Suffix, Prefix, Other } shape = Shape::Other;
  std::string fixed;  // the literal part of Exact, Suffix and Prefix
};
}  // namespace glob_detail

// Glob match with `*` and `?` not crossing `/`, `**` crossing folders, `[...]` classes.
bool glob_match(std::string_view pattern, std::string_view path);

class IgnoreRules {
 public:
  // Adds the patterns of a .gitignore found in `dir` (relative to the root, "" for the root).
  void add_file(const std::string& dir, std::string_view content);
  // `path` relative to the root, with forward slashes.
  bool ignored(std::string_view path, bool is_dir) const;

 private:
  struct Pattern {
    std::string dir;  // folder of the .gitignore
    glob_detail::Glob glob;
    bool negate = false;
    bool dir_only = false;
    bool anchored = false;  // contains a slash: relative to `dir`
  };
  std::vector<Pattern> patterns_;
};

}  // namespace trl
