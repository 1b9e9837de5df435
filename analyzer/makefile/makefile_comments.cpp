#include "analyzer/makefile/makefile_comments.hpp"

namespace trl::makefile {

namespace {

// Offset of the comment's `#` in a recipe line (shell rules), or npos.
std::size_t recipe_comment(std::string_view line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else if (c == '\\' && quote == '"')
        ++i;
      continue;
    }
    if (c == '\\') {
      ++i;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t' || line[i - 1] == ';')) {
      return i;
    }
  }
  return std::string_view::npos;
}

// Offset of the comment's `#` in any other line (make's rules: only `\#` escapes it), or npos.
std::size_t make_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line[i] == '#') {
      return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::vector<Comment> comments(std::string_view text, FileId file) {
  std::vector<Comment> out;
  std::uint32_t line_no = 0;
  std::size_t start = 0;
  bool continued = false;       // the previous line ended with a backslash
  bool in_recipe_line = false;  // the logical line being continued is a recipe line
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!continued) in_recipe_line = !line.empty() && line.front() == '\t';
    std::size_t hash = in_recipe_line ? recipe_comment(line) : make_comment(line);
    if (hash != std::string_view::npos) {
      auto b = static_cast<std::uint32_t>(start + hash);
      auto e = static_cast<std::uint32_t>(start + line.size());
      Comment c;
      c.span = Span{file, b, e, Point{line_no, static_cast<std::uint32_t>(hash)},
                    Point{line_no, static_cast<std::uint32_t>(line.size())}};
      c.text = std::string(line.substr(hash));
      out.push_back(std::move(c));
      continued = false;  // a comment ends the logical line's code
    } else {
      continued = !line.empty() && line.back() == '\\';
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
    ++line_no;
  }
  return out;
}

}  // namespace trl::makefile
