#include "analyzer/notebook/notebook_extractor.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace trl::notebook {

namespace {

// One JSON string literal of a cell's `source`, with its place in the .ipynb text.
struct Literal {
  std::size_t begin = 0;  // after the opening quote
  std::size_t end = 0;    // at the closing quote
  std::string decoded;
};

std::size_t skip_ws(std::string_view t, std::size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  return i;
}

// Reads a JSON string literal starting at t[i] == '"'.
bool read_literal(std::string_view t, std::size_t& i, Literal& out) {
  if (i >= t.size() || t[i] != '"') return false;
  std::size_t j = i + 1;
  while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
  if (j >= t.size()) return false;
  try {
    out.decoded = nlohmann::json::parse(t.substr(i, j - i + 1)).get<std::string>();
  } catch (const std::exception&) {
    return false;
  }
  out.begin = i + 1;
  out.end = j;
  i = j + 1;
  return true;
}

// The literals of each `"source":` value, in file order.
std::vector<std::vector<Literal>> source_literals(std::string_view t) {
  std::vector<std::vector<Literal>> out;
  const std::string_view key = "\"source\"";
  std::size_t pos = 0;
  while ((pos = t.find(key, pos)) != std::string_view::npos) {
    if (pos > 0 && t[pos - 1] == '\\') {
      pos += key.size();
      continue;
    }
    std::size_t i = skip_ws(t, pos + key.size());
    pos += key.size();
    if (i >= t.size() || t[i] != ':') continue;
    i = skip_ws(t, i + 1);
    std::vector<Literal> lits;
    if (i < t.size() && t[i] == '"') {
      Literal l;
      if (read_literal(t, i, l)) lits.push_back(std::move(l));
    } else if (i < t.size() && t[i] == '[') {
      i = skip_ws(t, i + 1);
      while (i < t.size() && t[i] == '"') {
        Literal l;
        if (!read_literal(t, i, l)) break;
        lits.push_back(std::move(l));
        i = skip_ws(t, i);
        if (i < t.size() && t[i] == ',') i = skip_ws(t, i + 1);
      }
    }
    out.push_back(std::move(lits));
    pos = i;
  }
  return out;
}

// The .ipynb offset of each byte `decoded` holds (and, last, of the closing quote), read from
// the literal's escapes: `\n` is one byte at its backslash, `\u00e9` two, a surrogate pair four.
// Empty when the count does not come out at the decoded size.
std::vector<std::uint32_t> raw_offsets(std::string_view t, const Literal& l) {
  std::vector<std::uint32_t> out;
  out.reserve(l.decoded.size() + 1);
  auto hex = [&](std::size_t at) -> long {
    if (at + 4 > l.end) return -1;
    long v = 0;
    for (std::size_t k = at; k < at + 4; ++k) {
      const char c = t[k];
      int d = -1;
      if (c >= '0' && c <= '9') d = c - '0';
      if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  for (std::size_t j = l.begin; j < l.end;) {
    const auto at = static_cast<std::uint32_t>(j);
    if (t[j] != '\\') {
      out.push_back(at);
      ++j;
      continue;
    }
    if (j + 1 >= l.end) return {};
    if (t[j + 1] != 'u') {
      out.push_back(at);
      j += 2;
      continue;
    }
    long cp = hex(j + 2);
    if (cp < 0) return {};
    std::size_t used = 6;
    if (cp >= 0xD800 && cp < 0xDC00 && j + 7 < l.end && t[j + 6] == '\\' && t[j + 7] == 'u') {
      const long low = hex(j + 8);
      if (low >= 0xDC00 && low < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        used = 12;
      }
    }
    const int bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (int b = 0; b < bytes; ++b) out.push_back(at);
    j += used;
  }
  out.push_back(static_cast<std::uint32_t>(l.end));
  if (out.size() != l.decoded.size() + 1) return {};
  return out;
}

std::size_t line_begin(std::string_view t, std::size_t offset) {
  std::size_t nl = t.rfind('\n', offset == 0 ? 0 : offset - 1);
  return nl == std::string_view::npos || offset == 0 ? 0 : nl + 1;
}

std::size_t line_end(std::string_view t, std::size_t offset) {
  std::size_t nl = t.find('\n', offset);
  std::size_t e = nl == std::string_view::npos ? t.size() : nl;
  if (e > 0 && t[e - 1] == '\r') --e;
  return e;
}

// `!cmd {python_expr}` interpolates Python values: an unknown word for the shell extractor
// (backticks of the same length).
std::string ipython_shell(std::string s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '{') continue;
    std::size_t j = s.find('}', i);
    if (j == std::string::npos) break;
    // `:` (a no-op command) inside, so the substitution is a valid one.
    s[i] = '`';
    for (std::size_t k = i + 1; k < j; ++k) s[k] = k == i + 1 ? ':' : ' ';
    s[j] = '`';
    i = j;
  }
  return s;
}

}  // namespace

Notebook scan(std::string_view text) {
  Notebook nb;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // what() reads "[json.exception.parse_error.101] parse error at line 3, column 1: syntax error
    // while parsing array - unexpected end of input; expected ']'": the position goes into the
    // span, the reason into the message.
    std::string reason = e.what();
    if (const auto colon = reason.find(": "); reason.rfind("[json.exception", 0) == 0 && colon != std::string::npos)
      reason = reason.substr(colon + 2);
    nb.error = "notebook is not valid JSON: " + reason;
    nb.error_offset = e.byte > 0 ? std::min<std::size_t>(e.byte - 1, text.size()) : 0;
    return nb;
  } catch (const std::exception&) {
    nb.error = "notebook is not valid JSON";
    return nb;
  }
  if (!j.is_object() || !j.contains("cells") || !j["cells"].is_array()) {
    nb.error = "notebook has no `cells` list";
    return nb;
  }
  nb.valid = true;
  nb.shell_text.assign(text.size(), ' ');
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' || text[i] == '\r') nb.shell_text[i] = text[i];
  nb.python_text = nb.shell_text;
  // The 0-based line of each offset the pieces start at (cells come in text order).
  std::size_t counted_to = 0;
  std::uint32_t counted_lines = 0;
  auto line_of = [&](std::size_t offset) {
    for (; counted_to < offset && counted_to < text.size(); ++counted_to)
      if (text[counted_to] == '\n') ++counted_lines;
    return counted_lines;
  };
  const auto& cells = j["cells"];
  auto sources = source_literals(text);
  if (sources.size() != cells.size()) {
    nb.cells_skipped = cells.size();
    return nb;
  }
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (!cells[c].is_object() || cells[c].value("cell_type", "") != "code") continue;
    const auto& lits = sources[c];
    // Placeable: each literal holds at most one line (ending in \n) and sits on its own .ipynb line.
    bool ok = true;
    std::size_t prev_line = std::string_view::npos;
    for (std::size_t k = 0; k < lits.size() && ok; ++k) {
      const std::string& d = lits[k].decoded;
      auto nl = d.find('\n');
      if (nl != std::string::npos && nl + 1 != d.size()) ok = false;
      std::size_t lb = line_begin(text, lits[k].begin);
      if (lb == prev_line) ok = false;
      prev_line = lb;
    }
    if (!ok) {
      ++nb.cells_skipped;
      continue;
    }
    auto body = [&](std::size_t k) {
      std::string d = lits[k].decoded;
      if (!d.empty() && d.back() == '\n') d.pop_back();
      if (!d.empty() && d.back() == '\r') d.pop_back();
      return d;
    };
    std::string first = lits.empty() ? "" : body(0);
    std::string_view head = std::string_view(first).substr(0, first.find_first_of(" \t"));
    const bool shell_cell = head == "%%bash" || head == "%%sh" || first.rfind("%%script bash", 0) == 0 ||
                            first.rfind("%%script sh", 0) == 0;
    const bool other_magic = !shell_cell && first.rfind("%%", 0) == 0;
    // Records where the `length` bytes placed at `at` came from (see Placement): `from` is the
    // decoded index of the first, or npos for text made up here (%env), which points at the
    // line's start.
    std::vector<std::uint32_t> raw;
    auto place = [&](std::size_t at, std::size_t length, std::size_t from) {
      if (raw.empty()) return;
      Placement p{static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(length), {}};
      p.raw.reserve(length + 1);
      for (std::size_t i = 0; i <= length; ++i)
        p.raw.push_back(raw[from == std::string::npos ? 0 : std::min(from + i, raw.size() - 1)]);
      nb.placements.push_back(std::move(p));
    };
    bool continued = false;   // the previous `!` line ended with a backslash
    bool cell_piece = false;  // a piece of this %%bash cell was started
    for (std::size_t k = 0; k < lits.size(); ++k) {
      const bool continues_piece = continued;
      std::string line = body(k);
      std::size_t from = 0;
      raw = raw_offsets(text, lits[k]);
      const std::size_t lb = line_begin(text, lits[k].begin);
      const std::size_t le = line_end(text, lits[k].begin);
      std::size_t lead = 0;
      while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
      std::string shell;
      bool is_shell = false;
      if (shell_cell) {
        if (k == 0) continue;
        shell = line;
        is_shell = true;
      } else if (other_magic) {
        continue;
      } else if (continued) {
        shell = ipython_shell(line);
        is_shell = true;
      } else if (lead < line.size() && line[lead] == '!') {
        shell = ipython_shell(line.substr(lead + 1));
        from = lead + 1;
        is_shell = true;
      } else if (lead < line.size() && line[lead] == '%') {
        // %env NAME=value and %cd DIR change the state later `!` lines see.
        std::string magic = line.substr(lead + 1);
        if (magic.rfind("env ", 0) == 0) {
          std::string a = magic.substr(4);
          auto sp = a.find_first_of(" =");
          if (sp != std::string::npos) a[sp] = '=';
          shell = "export " + a;
          from = std::string::npos;
          is_shell = true;
        } else if (magic.rfind("cd ", 0) == 0) {
          shell = magic;
          from = lead + 1;
          is_shell = true;
        } else {
          continue;
        }
      }
      continued = is_shell && !shell.empty() && shell.back() == '\\';
      if (is_shell) {
        // Right-aligned so that a trailing backslash meets the newline.
        if (shell.size() > le - lb) continue;
        std::copy(shell.begin(), shell.end(), nb.shell_text.begin() + static_cast<std::ptrdiff_t>(le - shell.size()));
        place(le - shell.size(), shell.size(), from);
        const bool magic = !shell_cell && !continues_piece && line[lead] == '%';
        if ((shell_cell && cell_piece) || (!shell_cell && continues_piece && !nb.shell_pieces.empty())) {
          nb.shell_pieces.back().end = static_cast<std::uint32_t>(le);
        } else {
          nb.shell_pieces.push_back(
              {static_cast<std::uint32_t>(lb), static_cast<std::uint32_t>(le), line_of(lb), !magic});
          cell_piece = shell_cell;
        }
      } else {
        if (line.size() > le - lb) continue;
        std::copy(line.begin(), line.end(), nb.python_text.begin() + static_cast<std::ptrdiff_t>(lb));
        place(lb, line.size(), 0);
      }
    }
  }
  return nb;
}

std::uint32_t file_offset(const std::vector<Placement>& placements, std::uint32_t offset) {
  // Placements are in text order and do not overlap: the last one starting at or before `offset`.
  auto it = std::upper_bound(placements.begin(), placements.end(), offset,
                             [](std::uint32_t o, const Placement& p) { return o < p.virtual_begin; });
  if (it == placements.begin()) return offset;
  const Placement& p = *std::prev(it);
  if (offset > p.virtual_begin + p.length || p.raw.size() != p.length + std::size_t{1}) return offset;
  return p.raw[offset - p.virtual_begin];
}

}  // namespace trl::notebook
