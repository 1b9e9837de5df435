#include "analyzer/discover/gitignore.hpp"

namespace trl {

namespace {

bool match_class(std::string_view pat, std::size_t& pi, char c) {
  // pat[pi] == '['
  std::size_t i = pi + 1;
  bool negate = false;
  if (i < pat.size() && (pat[i] == '!' || pat[i] == '^')) negate = true, ++i;
  bool matched = false;
  bool first = true;
  while (i < pat.size() && (first || pat[i] != ']')) {
    first = false;
    char lo = pat[i];
    if (i + 2 < pat.size() && pat[i + 1] == '-' && pat[i + 2] != ']') {
      if (c >= lo && c <= pat[i + 2]) matched = true;
      i += 3;
    } else {
      if (c == lo) matched = true;
      ++i;
    }
  }
  if (i >= pat.size()) return false;  // unterminated: no match
  pi = i + 1;
  return matched != negate;
}

// Iterative matcher with backtracking for `*` and `**` (no recursion: bounded stack use).
bool match(std::string_view p, std::string_view s) {
  std::size_t pi = 0, si = 0;
  std::size_t star_p = std::string_view::npos, star_s = 0;
  bool star_crosses = false;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      bool dbl = pi + 1 < p.size() && p[pi + 1] == '*';
      if (dbl) {
        pi += 2;
        if (pi < p.size() && p[pi] == '/') ++pi;  // `**/` also matches no folder
        star_crosses = true;
      } else {
        ++pi;
        star_crosses = false;
      }
      star_p = pi;
      star_s = si;
      continue;
    }
    if (pi < p.size() && p[pi] == '[') {
      std::size_t save = pi;
      if (s[si] != '/' && match_class(p, pi, s[si])) {
        ++si;
        continue;
      }
      pi = save;
    } else if (pi < p.size() && (p[pi] == '?' ? s[si] != '/' : p[pi] == s[si])) {
      ++pi;
      ++si;
      continue;
    } else if (pi < p.size() && p[pi] == '\\' && pi + 1 < p.size() && p[pi + 1] == s[si]) {
      pi += 2;
      ++si;
      continue;
    }
    // Backtrack: let the last star take one more character.
    if (star_p != std::string_view::npos && (star_crosses || s[star_s] != '/')) {
      ++star_s;
      si = star_s;
      pi = star_p;
      continue;
    }
    return false;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  return match(pattern, path);
}

void IgnoreRules::add_file(const std::string& dir, std::string_view content) {
  std::size_t start = 0;
  while (start <= content.size()) {
    std::size_t nl = content.find('\n', start);
    std::string line(content.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    start = nl == std::string_view::npos ? content.size() + 1 : nl + 1;
    while (!line.empty() &&
           (line.back() == '\r' || (line.back() == ' ' && (line.size() < 2 || line[line.size() - 2] != '\\'))))
      line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    Pattern p;
    p.dir = dir;
    if (line[0] == '!') {
      p.negate = true;
      line.erase(0, 1);
    } else if (line[0] == '\\') {
      line.erase(0, 1);
    }
    if (!line.empty() && line.back() == '/') {
      p.dir_only = true;
      line.pop_back();
    }
    if (line.empty()) continue;
    p.anchored = line.find('/') != std::string::npos;
    if (line[0] == '/') line.erase(0, 1);
    p.glob = line;
    patterns_.push_back(std::move(p));
  }
}

bool IgnoreRules::ignored(std::string_view path, bool is_dir) const {
  bool result = false;
  for (const auto& p : patterns_) {
    if (p.dir_only && !is_dir) continue;
    std::string_view rel = path;
    if (!p.dir.empty()) {
      if (rel.size() <= p.dir.size() || rel.substr(0, p.dir.size()) != p.dir || rel[p.dir.size()] != '/') continue;
      rel.remove_prefix(p.dir.size() + 1);
    }
    bool hit;
    if (p.anchored) {
      hit = match(p.glob, rel);
    } else {
      auto slash = rel.rfind('/');
      hit = match(p.glob, slash == std::string_view::npos ? rel : rel.substr(slash + 1));
    }
    if (hit) result = !p.negate;
  }
  return result;
}

}  // namespace trl
