#include "analyzer/markdown/markdown_extractor.hpp"

#include <algorithm>
#include <cctype>

namespace trl::markdown {

namespace {

struct Line {
  std::uint32_t begin;  // byte offset
  std::uint32_t end;    // before the newline (and a \r)
};

std::vector<Line> split_lines(std::string_view t) {
  std::vector<Line> out;
  std::uint32_t b = 0;
  for (std::uint32_t i = 0; i <= t.size(); ++i) {
    if (i == t.size() || t[i] == '\n') {
      std::uint32_t e = i;
      if (e > b && t[e - 1] == '\r') --e;
      if (i < t.size() || b < t.size()) out.push_back({b, e});
      b = i + 1;
    }
  }
  return out;
}

std::string blank_copy(std::string_view t) {
  std::string out(t.size(), ' ');
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] == '\n' || t[i] == '\r') out[i] = t[i];
  return out;
}

std::size_t indent_of(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  return n;
}

bool blank(std::string_view s) {
  return indent_of(s) == s.size();
}

BlockLang lang_of(std::string_view info) {
  std::string w;
  for (char c : info) {
    if (c == ' ' || c == '\t' || c == ',') break;
    if (c == '{' || c == '}' || (c == '.' && w.empty())) continue;
    w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (w == "bash" || w == "sh" || w == "shell" || w == "console" || w == "zsh" || w == "shell-session" ||
      w == "shellsession" || w == "shell-script")
    return BlockLang::Shell;
  if (w == "python" || w == "py" || w == "python3" || w == "py3" || w == "pycon") return BlockLang::Python;
  if (w == "yaml" || w == "yml") return BlockLang::Yaml;
  return BlockLang::Other;
}

bool list_item(std::string_view s) {
  s.remove_prefix(indent_of(s));
  if (s.size() >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ') return true;
  std::size_t d = 0;
  while (d < s.size() && std::isdigit(static_cast<unsigned char>(s[d]))) ++d;
  return d > 0 && d + 1 < s.size() && (s[d] == '.' || s[d] == ')') && s[d + 1] == ' ';
}

// Copies lines [first, last] of a block into `out`, each moved left by `dedent` columns.
void place(std::string& out, std::string_view text, const std::vector<Line>& lines, std::uint32_t first,
           std::uint32_t last, std::size_t dedent) {
  for (std::uint32_t l = first; l <= last && l < lines.size(); ++l) {
    std::string_view s = text.substr(lines[l].begin, lines[l].end - lines[l].begin);
    std::size_t cut = std::min(dedent, indent_of(s));
    std::string_view body = s.substr(cut);
    std::copy(body.begin(), body.end(), out.begin() + lines[l].begin);
  }
}

void place_shell(std::string& out, std::string_view text, const std::vector<Line>& lines, std::uint32_t first,
                 std::uint32_t last) {
  // Console transcripts: `$ cmd` lines are commands, other lines are output (unless they
  // continue a command that ended with a backslash).
  bool prompts = false;
  for (std::uint32_t l = first; l <= last && l < lines.size(); ++l) {
    std::string_view s = text.substr(lines[l].begin, lines[l].end - lines[l].begin);
    s.remove_prefix(indent_of(s));
    if (s.rfind("$ ", 0) == 0 || s == "$") prompts = true;
  }
  bool continued = false;
  for (std::uint32_t l = first; l <= last && l < lines.size(); ++l) {
    std::string_view s = text.substr(lines[l].begin, lines[l].end - lines[l].begin);
    std::size_t ind = indent_of(s);
    std::string_view body = s.substr(ind);
    std::size_t skip = ind;
    if (body.rfind("$ ", 0) == 0) {
      skip += 2;
    } else if (prompts && !continued) {
      continue;  // output of the previous command
    }
    std::string_view code = s.substr(skip);
    std::copy(code.begin(), code.end(), out.begin() + lines[l].begin + static_cast<std::ptrdiff_t>(skip));
    continued = !code.empty() && code.back() == '\\';
  }
}

void place_python(std::string& out, std::string_view text, const std::vector<Line>& lines, std::uint32_t first,
                  std::uint32_t last, std::size_t fence_indent) {
  bool doctest = false;
  for (std::uint32_t l = first; l <= last && l < lines.size(); ++l) {
    std::string_view s = text.substr(lines[l].begin, lines[l].end - lines[l].begin);
    s.remove_prefix(indent_of(s));
    if (s.rfind(">>>", 0) == 0) doctest = true;
  }
  if (!doctest) {
    place(out, text, lines, first, last, fence_indent);
    return;
  }
  for (std::uint32_t l = first; l <= last && l < lines.size(); ++l) {
    std::string_view s = text.substr(lines[l].begin, lines[l].end - lines[l].begin);
    std::string_view body = s.substr(indent_of(s));
    if (body.rfind(">>> ", 0) != 0 && body.rfind("... ", 0) != 0 && body != ">>>" && body != "...") continue;
    std::string_view code = body.size() > 4 ? body.substr(4) : std::string_view();
    std::copy(code.begin(), code.end(), out.begin() + lines[l].begin);
  }
}

}  // namespace

Document scan(std::string_view text) {
  Document doc;
  doc.shell_text = blank_copy(text);
  doc.python_text = doc.shell_text;
  doc.yaml_text = doc.shell_text;
  const auto lines = split_lines(text);
  auto line = [&](std::uint32_t l) { return text.substr(lines[l].begin, lines[l].end - lines[l].begin); };
  bool prev_blank = true;
  bool in_list = false;
  for (std::uint32_t l = 0; l < lines.size(); ++l) {
    std::string_view s = line(l);
    std::size_t ind = indent_of(s);
    std::string_view body = s.substr(ind);
    // Fenced block.
    if (body.size() >= 3 && (body.rfind("```", 0) == 0 || body.rfind("~~~", 0) == 0)) {
      const char fc = body[0];
      std::size_t n = 0;
      while (n < body.size() && body[n] == fc) ++n;
      std::string_view info = body.substr(n);
      if (fc == '`' && info.find('`') != std::string_view::npos) goto not_fence;  // inline code
      {
        std::uint32_t close = l + 1;
        for (; close < lines.size(); ++close) {
          std::string_view c = line(close);
          std::string_view cb = c.substr(indent_of(c));
          std::size_t m = 0;
          while (m < cb.size() && cb[m] == fc) ++m;
          if (m >= n && blank(cb.substr(m))) break;
        }
        Block b;
        b.lang = lang_of(info.substr(indent_of(info)));
        b.first_line = l + 1;
        b.last_line = close == l + 1 ? l + 1 : close - 1;
        const bool empty = close == l + 1;
        if (!empty) {
          b.begin = lines[b.first_line].begin;
          b.end = lines[std::min<std::size_t>(b.last_line, lines.size() - 1)].end;
        }
        if (!empty) {
          if (b.lang == BlockLang::Shell) place_shell(doc.shell_text, text, lines, b.first_line, b.last_line);
          if (b.lang == BlockLang::Python) place_python(doc.python_text, text, lines, b.first_line, b.last_line, ind);
          if (b.lang == BlockLang::Yaml) {
            // The opening fence (>= 3 bytes) becomes a document separator.
            doc.yaml_text.replace(lines[l].begin, 3, "---");
            place(doc.yaml_text, text, lines, b.first_line, b.last_line, ind);
          }
          doc.blocks.push_back(b);
        }
        l = close;
        prev_blank = true;
        continue;
      }
    }
  not_fence:
    // An HTML comment (CommonMark HTML block type 2) runs to the line holding `-->`: what it
    // holds, fences included, is not code.
    if (ind < 4 && body.rfind("<!--", 0) == 0) {
      std::uint32_t close = l;
      std::size_t from = 4;
      for (; close < lines.size(); ++close) {
        std::string_view c = close == l ? body : line(close);
        if (c.find("-->", close == l ? from : 0) != std::string_view::npos) break;
      }
      l = std::min<std::uint32_t>(close, static_cast<std::uint32_t>(lines.size()));
      prev_blank = false;
      in_list = false;
      continue;
    }
    if (!body.empty() && body[0] == '#' && ind < 4) {
      std::size_t h = 0;
      while (h < body.size() && body[h] == '#') ++h;
      if (h <= 6 && (h == body.size() || body[h] == ' ' || body[h] == '\t')) {
        doc.headings.push_back({static_cast<int>(h), l});
        prev_blank = false;
        in_list = false;
        continue;
      }
    }
    // Indented code block: 4+ spaces after a blank line, outside a list.
    if (ind >= 4 && prev_blank && !in_list && !blank(s)) {
      std::uint32_t last = l;
      for (std::uint32_t k = l + 1; k < lines.size(); ++k) {
        std::string_view c = line(k);
        if (blank(c)) continue;
        if (indent_of(c) < 4) break;
        last = k;
      }
      Block b;
      b.lang = BlockLang::Shell;
      b.first_line = l;
      b.last_line = last;
      b.indented = true;
      b.begin = lines[l].begin;
      b.end = lines[last].end;
      place_shell(doc.shell_text, text, lines, l, last);
      doc.blocks.push_back(b);
      l = last;
      prev_blank = false;
      continue;
    }
    if (blank(s)) {
      prev_blank = true;
      continue;
    }
    if (list_item(s))
      in_list = true;
    else if (ind == 0)
      in_list = false;
    prev_blank = false;
  }
  return doc;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> enclosing_sections(const std::vector<Heading>& headings,
                                                                        std::uint32_t line, std::uint32_t line_count) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  int level = 7;
  for (std::size_t k = headings.size(); k-- > 0;) {
    const Heading& h = headings[k];
    if (h.line > line || h.level >= level) continue;
    // A level-1 heading is the page title: its section is used only when no deeper heading
    // encloses the line (otherwise unrelated examples of one page would meet).
    if (h.level == 1 && !out.empty()) break;
    level = h.level;
    std::uint32_t end = line_count;
    for (std::size_t j = k + 1; j < headings.size(); ++j)
      if (headings[j].level <= h.level) {
        end = headings[j].line;
        break;
      }
    out.emplace_back(h.line, end);
  }
  if (out.empty()) out.emplace_back(0, line_count);
  return out;
}

}  // namespace trl::markdown
