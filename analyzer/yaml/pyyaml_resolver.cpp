#include "analyzer/yaml/pyyaml_resolver.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace trl::yaml {

namespace {

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// Skips characters while `ok` holds; returns how many.
template <class Pred>
std::size_t skip(std::string_view t, std::size_t& i, Pred ok) {
  const std::size_t from = i;
  while (i < t.size() && ok(t[i])) ++i;
  return i - from;
}

bool digit_or_underscore(char c) {
  return digit(c) || c == '_';
}

// `(?::[0-5]?[0-9])+` from position i: at least one `:` group of one digit, or of two digits
// the first of which is 0-5. Groups end at a character that is not a digit.
bool sexagesimal_groups(std::string_view t, std::size_t& i) {
  std::size_t groups = 0;
  while (i < t.size() && t[i] == ':') {
    ++i;
    const std::size_t from = i;
    const std::size_t n = skip(t, i, digit);
    if (n == 0 || n > 2 || (n == 2 && t[from] > '5')) return false;
    ++groups;
  }
  return groups > 0;
}

// `[eE][-+][0-9]+` at the end of t, or nothing.
bool optional_exponent_then_end(std::string_view t, std::size_t i) {
  if (i == t.size()) return true;
  if (t[i] != 'e' && t[i] != 'E') return false;
  ++i;
  if (i == t.size() || (t[i] != '-' && t[i] != '+')) return false;
  ++i;
  return skip(t, i, digit) > 0 && i == t.size();
}

// `[0-9]{lo,hi}` from position i.
bool digits(std::string_view t, std::size_t& i, std::size_t lo, std::size_t hi) {
  const std::size_t n = skip(t, i, digit);
  return n >= lo && n <= hi;
}

}  // namespace

// The implicit resolvers of PyYAML 6.0.3 lib/yaml/resolver.py (Resolver.add_implicit_resolver
// for tag:yaml.org,2002:float, int and timestamp), matched by hand: std::regex took longer to
// compile at each start than the rest of a small project's analysis. The patterns are written
// out above each function; tests/unit/test_pyyaml_resolver.cpp checks the functions against
// std::regex with these patterns on generated strings.

//   [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
// | \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
// | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
// | [-+]?\.(?:inf|Inf|INF)
// | \.(?:nan|NaN|NAN)
bool matches_float(std::string_view t) {
  if (t == ".nan" || t == ".NaN" || t == ".NAN") return true;
  std::size_t i = 0;
  const bool sign = !t.empty() && (t[0] == '-' || t[0] == '+');
  if (sign) ++i;
  const std::string_view rest = t.substr(i);
  if (rest == ".inf" || rest == ".Inf" || rest == ".INF") return true;
  if (i < t.size() && t[i] == '.') {
    // `.5`, `.5e+3`: no sign allowed.
    if (sign) return false;
    ++i;
    if (i == t.size() || !digit(t[i])) return false;
    skip(t, i, digit_or_underscore);
    return optional_exponent_then_end(t, i);
  }
  if (i == t.size() || !digit(t[i])) return false;
  skip(t, i, digit_or_underscore);
  if (i < t.size() && t[i] == '.') {
    ++i;
    skip(t, i, digit_or_underscore);
    return optional_exponent_then_end(t, i);
  }
  if (i < t.size() && t[i] == ':') {
    if (!sexagesimal_groups(t, i) || i == t.size() || t[i] != '.') return false;
    ++i;
    skip(t, i, digit_or_underscore);
    return i == t.size();
  }
  return false;
}

//   [-+]?0b[0-1_]+
// | [-+]?0[0-7_]+
// | [-+]?(?:0|[1-9][0-9_]*)
// | [-+]?0x[0-9a-fA-F_]+
// | [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
bool matches_int(std::string_view t) {
  std::size_t i = 0;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) ++i;
  if (i == t.size()) return false;
  if (t[i] == '0') {
    ++i;
    if (i == t.size()) return true;  // 0
    if (t[i] == 'b') {
      ++i;
      return skip(t, i, [](char c) { return c == '0' || c == '1' || c == '_'; }) > 0 && i == t.size();
    }
    if (t[i] == 'x') {
      ++i;
      return skip(t, i, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == '_'; }) > 0 &&
             i == t.size();
    }
    skip(t, i, [](char c) { return (c >= '0' && c <= '7') || c == '_'; });
    return i == t.size();
  }
  if (t[i] < '1' || t[i] > '9') return false;
  skip(t, i, digit_or_underscore);
  if (i == t.size()) return true;
  return sexagesimal_groups(t, i) && i == t.size();
}

//   [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
// | [0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
//   (?:[Tt]|[ \t]+)[0-9][0-9]?
//   :[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?
//   (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
bool matches_timestamp(std::string_view t) {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  std::size_t i = 0;
  if (!digits(t, i, 4, 4) || i == t.size() || t[i] != '-') return false;
  ++i;
  const std::size_t month_at = i;
  if (!digits(t, i, 1, 2) || i == t.size() || t[i] != '-') return false;
  const bool two_digit_month = i - month_at == 2;
  ++i;
  const std::size_t day_at = i;
  if (!digits(t, i, 1, 2)) return false;
  if (i == t.size()) return two_digit_month && i - day_at == 2;  // the date alone
  if (t[i] == 'T' || t[i] == 't')
    ++i;
  else if (skip(t, i, blank) == 0)
    return false;
  if (!digits(t, i, 1, 2)) return false;
  for (int k = 0; k < 2; ++k) {
    if (i == t.size() || t[i] != ':') return false;
    ++i;
    if (!digits(t, i, 2, 2)) return false;
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    skip(t, i, digit);
  }
  const std::size_t blanks = skip(t, i, blank);
  if (i == t.size()) return blanks == 0;  // blanks belong to a time zone
  if (t[i] == 'Z') return i + 1 == t.size();
  if (t[i] != '-' && t[i] != '+') return false;
  ++i;
  if (!digits(t, i, 1, 2)) return false;
  if (i == t.size()) return true;
  if (t[i] != ':') return false;
  ++i;
  return digits(t, i, 2, 2) && i == t.size();
}

bool matches_exponent_number(std::string_view t) {
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
  if (i < t.size() && digit(t[i])) {
    skip(t, i, digit_or_underscore);
    if (i < t.size() && t[i] == '.') {
      ++i;
      skip(t, i, digit_or_underscore);
    }
  } else if (i < t.size() && t[i] == '.') {
    ++i;
    if (skip(t, i, digit_or_underscore) == 0) return false;
  } else {
    return false;
  }
  if (i == t.size() || (t[i] != 'e' && t[i] != 'E')) return false;
  ++i;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
  return skip(t, i, digit) > 0 && i == t.size();
}

namespace {

bool is_bool_word(std::string_view t, bool& value) {
  static constexpr std::string_view yes[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static constexpr std::string_view no[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  for (auto w : yes)
    if (t == w) return value = true, true;
  for (auto w : no)
    if (t == w) return value = false, true;
  return false;
}

bool is_null_word(std::string_view t) {
  return t.empty() || t == "~" || t == "null" || t == "Null" || t == "NULL";
}

std::string strip_underscores(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  for (char c : t)
    if (c != '_') out.push_back(c);
  return out;
}

// SafeConstructor.construct_yaml_int: base by prefix, sexagesimal with ':'.
Scalar construct_int(std::string_view text) {
  std::string v = strip_underscores(text);
  int sign = 1;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    if (v[0] == '-') sign = -1;
    v.erase(0, 1);
  }
  Scalar out = Scalar::integer(0);
  out.s = std::string(text);
  try {
    if (v == "0") return out;
    long long magnitude = 0;
    if (v.rfind("0b", 0) == 0) {
      magnitude = std::stoll(v.substr(2), nullptr, 2);
    } else if (v.rfind("0x", 0) == 0) {
      magnitude = std::stoll(v.substr(2), nullptr, 16);
    } else if (v[0] == '0') {
      magnitude = std::stoll(v, nullptr, 8);
    } else if (v.find(':') != std::string::npos) {
      long long base = 1;
      std::size_t end = v.size();
      while (true) {
        std::size_t colon = v.rfind(':', end - 1);
        std::size_t start = colon == std::string::npos ? 0 : colon + 1;
        magnitude += std::stoll(v.substr(start, end - start)) * base;
        base *= 60;
        if (colon == std::string::npos) break;
        end = colon;
      }
    } else {
      magnitude = std::stoll(v);
    }
    out.i = sign * magnitude;
  } catch (const std::exception&) {
    // Larger than 64 bits: Python keeps it exact; we keep it as a float approximation.
    out = Scalar::floating(sign * std::stod(v.empty() ? "0" : v));
    out.kind = Scalar::Kind::Int;
    out.i = sign > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    out.s = std::string(text);
  }
  return out;
}

// SafeConstructor.construct_yaml_float.
Scalar construct_float(std::string_view text) {
  std::string v = strip_underscores(text);
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double sign = 1;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    if (v[0] == '-') sign = -1;
    v.erase(0, 1);
  }
  Scalar out = Scalar::floating(0);
  out.s = std::string(text);
  if (v == ".inf") {
    out.f = sign * std::numeric_limits<double>::infinity();
  } else if (v == ".nan") {
    out.f = std::numeric_limits<double>::quiet_NaN();
  } else if (v.find(':') != std::string::npos) {
    double base = 1, value = 0;
    std::size_t end = v.size();
    while (true) {
      std::size_t colon = v.rfind(':', end - 1);
      std::size_t start = colon == std::string::npos ? 0 : colon + 1;
      value += std::stod(v.substr(start, end - start)) * base;
      base *= 60;
      if (colon == std::string::npos) break;
      end = colon;
    }
    out.f = sign * value;
  } else {
    out.f = sign * std::strtod(v.c_str(), nullptr);
  }
  return out;
}

}  // namespace

Scalar resolve_plain(std::string_view text) {
  const char first = text.empty() ? '\0' : text[0];
  bool b;
  if (std::string_view("yYnNtTfFoO").find(first) != std::string_view::npos && is_bool_word(text, b))
    return Scalar::boolean(b);
  const bool numeric_start = first != '\0' && std::string_view("-+0123456789").find(first) != std::string_view::npos;
  if ((numeric_start || first == '.') && matches_float(text)) return construct_float(text);
  if (numeric_start && matches_int(text)) return construct_int(text);
  if ((first == '\0' || first == '~' || first == 'n' || first == 'N') && is_null_word(text)) return Scalar::null();
  if (first >= '0' && first <= '9' && matches_timestamp(text)) {
    Scalar ts;
    ts.kind = Scalar::Kind::Timestamp;
    ts.s = std::string(text);
    return ts;
  }
  return Scalar::string(std::string(text));
}

Scalar resolve_tagged(std::string_view tag, std::string_view text, bool plain) {
  std::string_view name = tag;
  if (name.rfind("tag:yaml.org,2002:", 0) == 0)
    name.remove_prefix(18);
  else if (name.rfind("!!", 0) == 0)
    name.remove_prefix(2);
  else
    return plain ? resolve_plain(text) : Scalar::string(std::string(text));
  if (name == "str") return Scalar::string(std::string(text));
  // With an explicit tag PyYAML calls the constructor directly: `!!float 1e-5` is float("1e-5").
  if (name == "float") {
    std::string v = strip_underscores(text);
    char* end = nullptr;
    errno = 0;
    std::strtod(v.c_str(), &end);
    const bool special = matches_float(text);
    if (special || (!v.empty() && end == v.c_str() + v.size())) return construct_float(text);
  }
  if (name == "int" && matches_int(text)) return construct_int(text);
  Scalar r = resolve_plain(text);
  if (name == "bool" && r.kind == Scalar::Kind::Bool) return r;
  if (name == "null") return Scalar::null();
  // A tag that does not fit its text: PyYAML raises while constructing; keep the text.
  return Scalar::string(std::string(text));
}

}  // namespace trl::yaml
