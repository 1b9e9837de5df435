// .gitignore matching: the patterns of every .gitignore from the root down to a path's folder,
// with git's rules (last match wins, `!` re-includes, `/` anchors, trailing `/` for folders, `**`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trl {

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
    std::string glob;
    bool negate = false;
    bool dir_only = false;
    bool anchored = false;  // contains a slash: relative to `dir`
  };
  std::vector<Pattern> patterns_;
};

}  // namespace trl
