#include "analyzer/yaml/pyyaml_resolver.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <regex>
#include <string>

namespace trl::yaml {

namespace {

// The implicit resolver regexes of PyYAML 6.0.3 lib/yaml/resolver.py, rewritten without
// the verbose-mode whitespace. PyYAML tries them in registration order, and only those
// registered for the scalar's first character.
const std::regex& float_re() {
  static const std::regex re(R"(^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?)"
                             R"(|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?)"
                             R"(|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*)"
                             R"(|[-+]?\.(?:inf|Inf|INF))"
                             R"(|\.(?:nan|NaN|NAN))$)");
  return re;
}
const std::regex& int_re() {
  static const std::regex re(R"(^(?:[-+]?0b[0-1_]+)"
                             R"(|[-+]?0[0-7_]+)"
                             R"(|[-+]?(?:0|[1-9][0-9_]*))"
                             R"(|[-+]?0x[0-9a-fA-F_]+)"
                             R"(|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$)");
  return re;
}
const std::regex& timestamp_re() {
  static const std::regex re(R"(^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9])"
                             R"(|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?)"
                             R"((?:[Tt]|[ \t]+)[0-9][0-9]?)"
                             R"(:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?)"
                             R"((?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$)");
  return re;
}

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
  const std::string t(text);
  const bool numeric_start = first != '\0' && std::string_view("-+0123456789").find(first) != std::string_view::npos;
  if ((numeric_start || first == '.') && std::regex_match(t, float_re())) return construct_float(text);
  if (numeric_start && std::regex_match(t, int_re())) return construct_int(text);
  if ((first == '\0' || first == '~' || first == 'n' || first == 'N') && is_null_word(text)) return Scalar::null();
  if (first >= '0' && first <= '9' && std::regex_match(t, timestamp_re())) {
    Scalar ts;
    ts.kind = Scalar::Kind::Timestamp;
    ts.s = t;
    return ts;
  }
  return Scalar::string(t);
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
    const bool special = std::regex_match(std::string(text), float_re());
    if (special || (!v.empty() && end == v.c_str() + v.size())) return construct_float(text);
  }
  if (name == "int" && std::regex_match(std::string(text), int_re())) return construct_int(text);
  Scalar r = resolve_plain(text);
  if (name == "bool" && r.kind == Scalar::Kind::Bool) return r;
  if (name == "null") return Scalar::null();
  // A tag that does not fit its text: PyYAML raises while constructing; keep the text.
  return Scalar::string(std::string(text));
}

}  // namespace trl::yaml
