#include "analyzer/shell/shell_words.hpp"

namespace trl::shell {

namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Finds the end of a balanced construct starting at `i` (which points just past the opener).
std::size_t skip_balanced(std::string_view s, std::size_t i, char open, char close) {
  int depth = 1;
  while (i < s.size() && depth > 0) {
    char c = s[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '\'' && open != '{') {
      std::size_t q = s.find('\'', i + 1);
      i = q == std::string_view::npos ? s.size() : q + 1;
      continue;
    }
    if (c == open)
      ++depth;
    else if (c == close)
      --depth;
    ++i;
  }
  return i;
}

class Expander {
 public:
  Expander(std::string_view s, const VarLookup& lookup) : s_(s), lookup_(lookup) {}

  // Expands `$...` at position i (s_[i] == '$'); appends to word; returns new position.
  std::size_t dollar(std::size_t i, RawWord& w) {
    if (i + 1 >= s_.size()) {
      w.text.push_back('$');
      return i + 1;
    }
    char n = s_[i + 1];
    if (n == '(') {
      // $(...) or $((...)): needs running code.
      std::size_t end = skip_balanced(s_, i + 2, '(', ')');
      std::string_view inner = s_.substr(i + 2, end > i + 3 ? end - i - 3 : 0);
      // `$(dirname "$0")` is the script's own folder: keep a marker the caller understands.
      if (inner == "dirname \"$0\"" || inner == "dirname $0" || inner == "dirname \"${BASH_SOURCE[0]}\"" ||
          inner == "dirname ${BASH_SOURCE[0]}" || inner == "dirname \"$BASH_SOURCE\"") {
        w.text += "$SCRIPT_DIR$";
      } else {
        w.known = false;
      }
      return end;
    }
    if (n == '{') {
      std::size_t end = skip_balanced(s_, i + 2, '{', '}');
      std::string_view body = s_.substr(i + 2, end > i + 3 ? end - i - 3 : 0);
      braced(body, w);
      return end;
    }
    if (is_name_char(n) && !std::isdigit(static_cast<unsigned char>(n))) {
      std::size_t j = i + 1;
      while (j < s_.size() && is_name_char(s_[j])) ++j;
      variable(s_.substr(i + 1, j - i - 1), w);
      return j;
    }
    if (std::isdigit(static_cast<unsigned char>(n)) || n == '@' || n == '*' || n == '#' || n == '?' || n == '$' ||
        n == '!' || n == '-') {
      w.known = false;  // positional and special parameters
      return i + 2;
    }
    w.text.push_back('$');
    return i + 1;
  }

 private:
  void variable(std::string_view name, RawWord& w) {
    auto v = lookup_(name);
    if (!v || !v->known) {
      w.known = false;
      return;
    }
    w.text += v->text;
  }

  void braced(std::string_view body, RawWord& w) {
    std::size_t j = 0;
    while (j < body.size() && is_name_char(body[j])) ++j;
    std::string_view name = body.substr(0, j);
    std::string_view rest = body.substr(j);
    if (name == "BASH_SOURCE" && (rest == "%/*" || rest == "[0]%/*")) {
      w.text += "$SCRIPT_DIR$";
      return;
    }
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) {
      w.known = false;
      return;
    }
    if (rest.empty()) {
      variable(name, w);
      return;
    }
    // ${VAR:-default} ${VAR-default} ${VAR:=default} ${VAR=default}
    bool colon = rest[0] == ':';
    std::string_view op = rest.substr(colon ? 1 : 0);
    if (!op.empty() && (op[0] == '-' || op[0] == '=')) {
      auto v = lookup_(name);
      bool use_default = !v || (colon && v->known && v->text.empty());
      if (!use_default) {
        if (!v->known)
          w.known = false;
        else
          w.text += v->text;
        return;
      }
      RawWord d = expand_value(op.substr(1), lookup_);
      if (!d.known) w.known = false;
      w.text += d.text;
      return;
    }
    w.known = false;  // ${#VAR}, ${VAR%...}, ${VAR/..}: not modelled
  }

  std::string_view s_;
  const VarLookup& lookup_;
};

}  // namespace

std::vector<RawWord> split_words(std::string_view s, const VarLookup& lookup) {
  std::vector<RawWord> words;
  Expander ex(s, lookup);
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
      i += s[i + 1] == '\r' && i + 2 < s.size() && s[i + 2] == '\n' ? 3 : 2;
      continue;
    }
    if (c == '#' || c == ';' || c == '&' || c == '|') break;
    RawWord w;
    w.begin = static_cast<std::uint32_t>(i);
    bool first = true;
    while (i < s.size()) {
      c = s[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|') break;
      if (c == '\\') {
        if (i + 1 < s.size() && s[i + 1] == '\n') {
          i += 2;
          break;
        }
        if (i + 1 < s.size()) w.text.push_back(s[i + 1]);
        i += 2;
      } else if (c == '\'') {
        std::size_t q = s.find('\'', i + 1);
        if (q == std::string_view::npos) q = s.size();
        w.text.append(s.substr(i + 1, q - i - 1));
        i = q + 1;
      } else if (c == '"') {
        ++i;
        while (i < s.size() && s[i] != '"') {
          if (s[i] == '\\' && i + 1 < s.size() &&
              std::string_view("$`\"\\\n").find(s[i + 1]) != std::string_view::npos) {
            if (s[i + 1] != '\n') w.text.push_back(s[i + 1]);
            i += 2;
          } else if (s[i] == '$') {
            i = ex.dollar(i, w);
          } else if (s[i] == '`') {
            std::size_t q = s.find('`', i + 1);
            w.known = false;
            i = q == std::string_view::npos ? s.size() : q + 1;
          } else {
            w.text.push_back(s[i++]);
          }
        }
        ++i;
      } else if (c == '$') {
        i = ex.dollar(i, w);
      } else if (c == '`') {
        std::size_t q = s.find('`', i + 1);
        w.known = false;
        i = q == std::string_view::npos ? s.size() : q + 1;
      } else if (c == '~' && first) {
        w.known = false;  // the user's home directory
        ++i;
      } else {
        w.text.push_back(c);
        ++i;
      }
      first = false;
    }
    w.end = static_cast<std::uint32_t>(std::min(i, s.size()));
    words.push_back(std::move(w));
  }
  return words;
}

RawWord expand_value(std::string_view text, const VarLookup& lookup) {
  // An assignment value is one word; reuse the splitter on the whole text and join.
  auto parts = split_words(text, lookup);
  RawWord out;
  out.end = static_cast<std::uint32_t>(text.size());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (k) out.text.push_back(' ');
    out.text += parts[k].text;
    out.known = out.known && parts[k].known;
  }
  return out;
}

}  // namespace trl::shell
