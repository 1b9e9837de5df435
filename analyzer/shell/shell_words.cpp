#include "analyzer/shell/shell_words.hpp"

#include <limits>

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
      if (inner.size() >= 2 && inner.front() == '(' && inner.back() == ')') {
        // $(( arithmetic ))
        if (auto v = eval_arithmetic(inner.substr(1, inner.size() - 2), lookup_)) {
          w.text += std::to_string(*v);
          return end;
        }
        unknown(w);
        return end;
      }
      if (inner == "dirname \"$0\"" || inner == "dirname $0" || inner == "dirname \"${BASH_SOURCE[0]}\"" ||
          inner == "dirname ${BASH_SOURCE[0]}" || inner == "dirname \"$BASH_SOURCE\"") {
        w.text += "$SCRIPT_DIR$";
      } else {
        unknown(w);
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
      unknown(w);  // positional and special parameters
      return i + 2;
    }
    w.text.push_back('$');
    return i + 1;
  }

 private:
  static void unknown(RawWord& w) {
    w.known = false;
    w.text.push_back(kUnknownMark);
  }

  void variable(std::string_view name, RawWord& w) {
    auto v = lookup_(name);
    if (!v) {
      unknown(w);
      return;
    }
    w.text += v->text;
    if (!v->known) {
      w.known = false;
      if (v->text.find(kUnknownMark) == std::string::npos) w.text.push_back(kUnknownMark);
    }
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
      unknown(w);
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
        variable(name, w);
        return;
      }
      // A default holding a default (`${A:-${B:-8}}`) is expanded by a call per level: past a
      // few levels (a generated or hostile text, 25,000 levels overflowed the stack) unknown.
      static thread_local int nested_defaults = 0;
      if (nested_defaults >= 32) {
        unknown(w);
        return;
      }
      ++nested_defaults;
      RawWord d = expand_value(op.substr(1), lookup_);
      --nested_defaults;
      if (!d.known) w.known = false;
      w.text += d.text;
      return;
    }
    unknown(w);  // ${#VAR}, ${VAR%...}, ${VAR/..}: not modelled
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
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '\n') break;  // an unescaped newline ends the command
    if (c == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) {
      i += s[i + 1] == '\r' && i + 2 < s.size() && s[i + 2] == '\n' ? 3 : 2;
      continue;
    }
    if (c == '#' || c == ';' || c == '&' || c == '|') break;
    RawWord w;
    w.begin = static_cast<std::uint32_t>(i);
    bool first = true;
    bool only_expansions = true;  // no quote, escape or literal character: an empty result is no word
    while (i < s.size()) {
      c = s[i];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|') break;
      if (c != '$') only_expansions = false;
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
            w.text.push_back(kUnknownMark);
            i = q == std::string_view::npos ? s.size() : q + 1;
          } else {
            w.text.push_back(s[i++]);
          }
        }
        ++i;
      } else if (c == '$') {
        std::size_t before = w.text.size();
        i = ex.dollar(i, w);
        if (w.text.find_first_of(" \t\n", before) != std::string::npos) w.unquoted_expansion = true;
      } else if (c == '`') {
        std::size_t q = s.find('`', i + 1);
        w.known = false;
        w.text.push_back(kUnknownMark);
        i = q == std::string_view::npos ? s.size() : q + 1;
      } else if (c == '~' && first) {
        w.known = false;  // the user's home directory
        w.text.push_back(kUnknownMark);
        ++i;
      } else {
        w.text.push_back(c);
        ++i;
      }
      first = false;
    }
    w.end = static_cast<std::uint32_t>(std::min(i, s.size()));
    if (w.text.find(kUnknownMark) != std::string::npos) w.known = false;  // re-split text of an earlier expansion
    // Bash removes a word that was only unquoted expansions and expanded to nothing
    // (`EXTRA=""; accelerate launch $EXTRA --config_file ...`); `""` and `"$EXTRA"` stay.
    if (only_expansions && w.known && w.text.empty()) continue;
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

std::vector<RawWord> field_split(const RawWord& word) {
  std::vector<RawWord> out;
  std::size_t i = 0;
  const std::string& t = word.text;
  while (i < t.size()) {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n')) ++i;
    if (i >= t.size()) break;
    std::size_t j = i;
    while (j < t.size() && t[j] != ' ' && t[j] != '\t' && t[j] != '\n') ++j;
    RawWord f;
    f.text = t.substr(i, j - i);
    f.known = f.text.find(kUnknownMark) == std::string::npos;
    f.begin = word.begin;
    f.end = word.end;
    out.push_back(std::move(f));
    i = j;
  }
  return out;
}

namespace {

// A small recursive-descent evaluator for + - * / % and parentheses.
class Arith {
 public:
  Arith(std::string_view s, const VarLookup& lookup) : s_(s), lookup_(lookup) {}
  std::optional<long long> parse() {
    auto v = sum();
    skip();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
  }
  std::optional<long long> sum() {
    auto v = product();
    while (v) {
      skip();
      if (pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) break;
      char op = s_[pos_++];
      auto r = product();
      if (!r) return std::nullopt;
      long long out = 0;
      // Past 64 bits bash wraps around; nothing meant for a launch line does: unknown.
      if (op == '+' ? __builtin_add_overflow(*v, *r, &out) : __builtin_sub_overflow(*v, *r, &out)) return std::nullopt;
      v = out;
    }
    return v;
  }
  std::optional<long long> product() {
    auto v = atom();
    while (v) {
      skip();
      if (pos_ >= s_.size() || (s_[pos_] != '*' && s_[pos_] != '/' && s_[pos_] != '%')) break;
      char op = s_[pos_++];
      if (pos_ < s_.size() && s_[pos_] == '*') return std::nullopt;  // ** not modelled
      auto r = atom();
      if (!r || ((op == '/' || op == '%') && *r == 0)) return std::nullopt;
      // LLONG_MIN / -1 overflows (the CPU traps: SIGFPE), and so does its remainder.
      if ((op == '/' || op == '%') && *r == -1 && *v == std::numeric_limits<long long>::min()) return std::nullopt;
      long long out = 0;
      if (op == '*') {
        if (__builtin_mul_overflow(*v, *r, &out)) return std::nullopt;
      } else {
        out = op == '/' ? *v / *r : *v % *r;
      }
      v = out;
    }
    return v;
  }
  std::optional<long long> atom() {
    if (++depth_ > 64) return std::nullopt;
    skip();
    if (pos_ >= s_.size()) return std::nullopt;
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      auto v = sum();
      skip();
      if (!v || pos_ >= s_.size() || s_[pos_] != ')') return std::nullopt;
      ++pos_;
      return v;
    }
    if (c == '-' || c == '+') {
      ++pos_;
      auto v = atom();
      if (!v || (c == '-' && *v == std::numeric_limits<long long>::min())) return std::nullopt;
      return c == '-' ? -*v : *v;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      long long v = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        if (v > 1'000'000'000'000LL) return std::nullopt;
        v = v * 10 + (s_[pos_++] - '0');
      }
      return v;
    }
    bool dollar = c == '$';
    if (dollar) ++pos_;
    bool brace = dollar && pos_ < s_.size() && s_[pos_] == '{';
    if (brace) ++pos_;
    std::size_t b = pos_;
    while (pos_ < s_.size() && is_name_char(s_[pos_])) ++pos_;
    if (b == pos_) return std::nullopt;
    std::string_view name = s_.substr(b, pos_ - b);
    if (brace) {
      if (pos_ >= s_.size() || s_[pos_] != '}') return std::nullopt;
      ++pos_;
    }
    auto v = lookup_(name);
    if (!v || !v->known) return std::nullopt;
    try {
      std::size_t used = 0;
      long long n = std::stoll(v->text, &used);
      if (used != v->text.size()) return std::nullopt;
      return n;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  std::string_view s_;
  const VarLookup& lookup_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

std::optional<long long> eval_arithmetic(std::string_view expr, const VarLookup& lookup) {
  return Arith(expr, lookup).parse();
}

}  // namespace trl::shell
