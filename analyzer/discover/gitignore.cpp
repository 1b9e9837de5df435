#include "analyzer/discover/gitignore.hpp"

#include <vector>

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

// One path segment (no `/`) against one pattern segment: `*` any run of characters, `?` one,
// `[...]` a class, `\x` a literal x. Iterative, one backtracking point: enough where `*` never
// crosses anything.
bool match_segment(std::string_view p, std::string_view s) {
  std::size_t pi = 0, si = 0;
  std::size_t star_p = std::string_view::npos, star_s = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') {
      while (pi < p.size() && p[pi] == '*') ++pi;  // `a**b` inside a segment is a plain `*`
      star_p = pi;
      star_s = si;
      continue;
    }
    if (pi < p.size() && p[pi] == '[') {
      std::size_t next = pi;
      if (match_class(p, next, s[si])) {
        pi = next;
        ++si;
        continue;
      }
    } else if (pi < p.size() && p[pi] == '\\' && pi + 1 < p.size()) {
      if (p[pi + 1] == s[si]) {
        pi += 2;
        ++si;
        continue;
      }
    } else if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi;
      ++si;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    pi = star_p;
    si = ++star_s;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::vector<std::string_view> segments(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '/') {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

// A pattern against a path, segment by segment (gitignore): a segment `**` matches any number of
// whole folders (`**/x`, `a/**/b`), a trailing `/**` everything inside (at least one segment);
// `*`, `?` and classes never cross a `/`. Dynamic programming over (pattern, path) segments:
// linear in their product, whatever the number of `**` (a single backtracking point let the
// `*` after a `**` undo it, so `**/*.yaml` matched no file in a subfolder).
bool match(std::string_view pattern, std::string_view path) {
  const std::vector<std::string_view> p = segments(pattern), s = segments(path);
  const std::size_t n = p.size(), m = s.size();
  // ok[j]: the pattern segments so far match the first j path segments.
  std::vector<char> ok(m + 1, 0), next(m + 1, 0);
  ok[0] = 1;
  for (std::size_t i = 0; i < n; ++i) {
    std::fill(next.begin(), next.end(), 0);
    if (p[i] == "**") {
      const bool last = i + 1 == n;
      // Zero or more segments (one or more when it ends the pattern).
      bool any = false;
      for (std::size_t j = 0; j <= m; ++j) {
        if (last ? j > 0 && (any || ok[j - 1]) : (any || ok[j])) next[j] = 1;
        any = any || ok[j];
      }
    } else {
      for (std::size_t j = 0; j < m; ++j)
        if (ok[j] && match_segment(p[i], s[j])) next[j + 1] = 1;
    }
    ok.swap(next);
  }
  return ok[m] != 0;
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
