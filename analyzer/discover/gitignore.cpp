#include "analyzer/discover/gitignore.hpp"

#include <algorithm>
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

using glob_detail::Token;

std::vector<Token> tokenize(std::string_view p) {
  std::vector<Token> out;
  for (std::size_t i = 0; i < p.size();) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      out.push_back({Token::Literal, p[i + 1]});
      i += 2;
    } else if (c == '*') {
      std::size_t n = 0;
      while (i + n < p.size() && p[i + n] == '*') ++n;
      const bool segment_start = i == 0 || p[i - 1] == '/';
      if (n >= 2 && segment_start && i + n < p.size() && p[i + n] == '/') {
        out.push_back({Token::Folders});
        i += n + 1;
      } else if (n >= 2 && segment_start && i + n == p.size() && i > 0) {
        out.push_back({Token::Inside});
        i += n;
      } else {
        // Elsewhere at the start of a segment (`x/**z`, `sub/**.yaml`) git reads a plain `*`;
        // after other characters of a name (`s**/a.yaml`) one that crosses folders.
        out.push_back({n >= 2 && !segment_start ? Token::Cross : Token::Star});
        i += n;
      }
    } else if (c == '?') {
      out.push_back({Token::Any});
      ++i;
    } else if (c == '[') {
      // Where the class closes (a `]` right after `[`, `[!` or `[^` is one of its characters);
      // a class that does not close is a literal `[`.
      std::size_t end = i + 1;
      if (end < p.size() && (p[end] == '!' || p[end] == '^')) ++end;
      if (end < p.size()) ++end;  // the first character, even `]`
      while (end < p.size() && p[end] != ']') ++end;
      if (end < p.size()) {
        out.push_back({Token::Class, 0, i});
        i = end + 1;
      } else {
        out.push_back({Token::Literal, '['});
        ++i;
      }
    } else {
      out.push_back({Token::Literal, c});
      ++i;
    }
  }
  return out;
}

// Whether `tokens` (of `pattern`) match all of `path`: dynamic programming over (token,
// position), linear in their product whatever the stars (a single backtracking point let the `*`
// after a `**` undo it, so `**/*.yaml` matched no file in a subfolder). The two rows are kept per
// thread: discovery asks this for every entry and pattern.
bool match(const std::vector<Token>& tokens, std::string_view pattern, std::string_view path) {
  const std::size_t m = path.size();
  thread_local std::vector<char> ok, next;
  ok.assign(m + 1, 0);
  next.assign(m + 1, 0);
  ok[0] = 1;
  for (const Token& t : tokens) {
    std::fill(next.begin(), next.end(), 0);
    switch (t.kind) {
      case Token::Literal:
        for (std::size_t j = 0; j < m; ++j)
          if (ok[j] && path[j] == t.c) next[j + 1] = 1;
        break;
      case Token::Any:
        for (std::size_t j = 0; j < m; ++j)
          if (ok[j] && path[j] != '/') next[j + 1] = 1;
        break;
      case Token::Class:
        for (std::size_t j = 0; j < m; ++j) {
          std::size_t at = t.at;
          if (ok[j] && path[j] != '/' && match_class(pattern, at, path[j])) next[j + 1] = 1;
        }
        break;
      case Token::Star:
      case Token::Cross:
        for (std::size_t j = 0; j <= m; ++j)
          if (ok[j] || (j > 0 && next[j - 1] && (t.kind == Token::Cross || path[j - 1] != '/'))) next[j] = 1;
        break;
      case Token::Folders: {
        // Nothing, or anything that ends with `/`.
        bool reach = false;
        for (std::size_t j = 0; j <= m; ++j) {
          reach = reach || ok[j];
          if (ok[j]) next[j] = 1;
          if (j < m && path[j] == '/' && reach) next[j + 1] = 1;
        }
        break;
      }
      case Token::Inside:
        for (std::size_t j = 1; j <= m; ++j)
          if (ok[j - 1] || next[j - 1]) next[j] = 1;
        break;
    }
    ok.swap(next);
  }
  return ok[m] != 0;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  return match(tokenize(pattern), pattern, path);
}

glob_detail::Glob::Glob(std::string text) : text(std::move(text)) {
  tokens = tokenize(this->text);
  const auto literal = [](const Token& t) { return t.kind == Token::Literal; };
  const auto literal_text = [](auto begin, auto end) {
    std::string out;
    for (auto t = begin; t != end; ++t) out += t->c;
    return out;
  };
  if (std::all_of(tokens.begin(), tokens.end(), literal)) {
    shape = Shape::Exact;
    fixed = literal_text(tokens.begin(), tokens.end());
  } else if (!tokens.empty() && tokens.front().kind == Token::Star &&
             std::all_of(tokens.begin() + 1, tokens.end(), literal)) {
    shape = Shape::Suffix;
    fixed = literal_text(tokens.begin() + 1, tokens.end());
  } else if (!tokens.empty() && tokens.back().kind == Token::Star &&
             std::all_of(tokens.begin(), tokens.end() - 1, literal)) {
    shape = Shape::Prefix;
    fixed = literal_text(tokens.begin(), tokens.end() - 1);
  }
}

bool glob_detail::Glob::matches(std::string_view path) const {
  // A `*` matches any characters but `/`.
  const auto no_slash = [](std::string_view s) { return s.find('/') == std::string_view::npos; };
  switch (shape) {
    case Shape::Exact: return path == fixed;
    case Shape::Suffix:
      return path.size() >= fixed.size() && path.substr(path.size() - fixed.size()) == fixed &&
             no_slash(path.substr(0, path.size() - fixed.size()));
    case Shape::Prefix:
      return path.size() >= fixed.size() && path.substr(0, fixed.size()) == fixed &&
             no_slash(path.substr(fixed.size()));
    case Shape::Other: break;
  }
  return match(tokens, text, path);
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
    p.glob = glob_detail::Glob(std::move(line));
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
    // Only a pattern that could change the answer is tried.
    if (result == !p.negate) continue;
    const auto slash = p.anchored ? std::string_view::npos : rel.rfind('/');
    if (p.glob.matches(slash == std::string_view::npos ? rel : rel.substr(slash + 1))) result = !p.negate;
  }
  return result;
}

}  // namespace trl
