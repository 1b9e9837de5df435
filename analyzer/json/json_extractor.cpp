#include "analyzer/json/json_extractor.hpp"

#include <charconv>
#include <nlohmann/json.hpp>
#include <string>

#include "rules/tool/tool_rules.hpp"

namespace trl::json {

namespace {

using NodePtr = std::shared_ptr<const YamlNode>;
constexpr int kMaxDepth = 200;
constexpr std::size_t kMaxPositionedSize = 1u << 20;

bool is_json_int(std::string_view s) {
  std::size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
  if (i >= s.size()) return false;
  for (; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

// A scalar of the YAML reading re-resolved the way Python's json module reads it: plain
// `true`/`false`/`null` and numbers (an integer without `.`/`e`, else a float); quoted text is
// a string with JSON escapes.
Scalar json_scalar(const YamlNode& n) {
  if (n.style != ScalarStyle::Plain) {
    if (n.style == ScalarStyle::DoubleQuoted) {
      auto decoded = nlohmann::json::parse("\"" + n.raw + "\"", nullptr, false);
      if (decoded.is_string()) return Scalar::string(decoded.get<std::string>());
    }
    return Scalar::string(n.raw);
  }
  if (n.raw == "true") return Scalar::boolean(true);
  if (n.raw == "false") return Scalar::boolean(false);
  if (n.raw == "null") return Scalar::null();
  if (is_json_int(n.raw)) {
    std::int64_t v = 0;
    auto [p, ec] = std::from_chars(n.raw.data(), n.raw.data() + n.raw.size(), v);
    if (ec == std::errc() && p == n.raw.data() + n.raw.size()) {
      Scalar s = Scalar::integer(v);
      s.s = n.raw;
      return s;
    }
  }
  Scalar s = Scalar::floating(std::strtod(n.raw.c_str(), nullptr));
  s.s = n.raw;
  return s;
}

NodePtr rebuild(const YamlNode& n, int depth) {
  auto out = std::make_shared<YamlNode>();
  out->kind = n.kind;
  out->span = n.span;
  out->raw = n.raw;
  out->style = n.style;
  if (depth > kMaxDepth) {
    out->kind = YamlNode::Kind::Invalid;
    return out;
  }
  switch (n.kind) {
    case YamlNode::Kind::Scalar: out->scalar = json_scalar(n); break;
    case YamlNode::Kind::Mapping:
      for (const auto& e : n.entries) out->entries.push_back({e.key, e.key_span, rebuild(*e.value, depth + 1)});
      break;
    case YamlNode::Kind::Sequence:
      for (const auto& i : n.items) out->items.push_back(rebuild(*i, depth + 1));
      break;
    case YamlNode::Kind::Invalid: break;
  }
  return out;
}

// The values without positions, for JSON the YAML reading cannot follow.
NodePtr from_json(const nlohmann::json& j, Span at, int depth) {
  auto out = std::make_shared<YamlNode>();
  out->span = at;
  if (depth > kMaxDepth) return out;
  if (j.is_object()) {
    out->kind = YamlNode::Kind::Mapping;
    for (auto it = j.begin(); it != j.end(); ++it)
      out->entries.push_back({it.key(), at, from_json(*it, at, depth + 1)});
  } else if (j.is_array()) {
    out->kind = YamlNode::Kind::Sequence;
    for (const auto& i : j) out->items.push_back(from_json(i, at, depth + 1));
  } else {
    out->kind = YamlNode::Kind::Scalar;
    if (j.is_boolean())
      out->scalar = Scalar::boolean(j.get<bool>());
    else if (j.is_number_integer())
      out->scalar = Scalar::integer(j.get<std::int64_t>());
    else if (j.is_number())
      out->scalar = Scalar::floating(j.get<double>());
    else if (j.is_string())
      out->scalar = Scalar::string(j.get<std::string>());
  }
  return out;
}

// Python's json module reads the bare words NaN, Infinity and -Infinity as floats (its
// default `allow_nan`; json/scanner.py, CPython 3.12): training metrics hold them. nlohmann's
// parser does not; they are replaced, outside strings, by numbers of the same length for the
// validity check (the values themselves come from the positioned reading, where strtod reads the
// words).
std::string with_python_constants(std::string_view text, bool& changed) {
  std::string out;
  changed = false;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    std::string_view rest = text.substr(i);
    const char* word = nullptr;
    const char* number = nullptr;
    if (rest.rfind("NaN", 0) == 0) {
      word = "NaN";
      number = "0.0";
    } else if (rest.rfind("Infinity", 0) == 0) {
      word = "Infinity";
      number = "1.000000";
    } else if (rest.rfind("-Infinity", 0) == 0) {
      word = "-Infinity";
      number = "-1.000000";
    }
    if (!word) continue;
    if (!changed) out.assign(text);
    changed = true;
    const std::size_t n = std::char_traits<char>::length(word);
    out.replace(i, n, number);
    i += n - 1;
  }
  return out;
}

}  // namespace

std::size_t nesting(std::string_view text) {
  std::size_t depth = 0, most = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      most = std::max(most, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return most;
}

yaml::YamlFacts extract(std::string_view text, FileId file) {
  yaml::YamlFacts out;
  // nlohmann's parser recurses once per nesting level: refuse what would exhaust the stack.
  if (nesting(text) > static_cast<std::size_t>(kMaxDepth)) {
    out.problems.push_back({tool_rules::kSyntaxError, "JSON nested more than 200 levels deep; skipped", Span{file}});
    return out;
  }
  nlohmann::json parsed;
  bool constants = false;
  const std::string replaced = with_python_constants(text, constants);
  try {
    parsed = nlohmann::json::parse(constants ? std::string_view(replaced) : text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    auto colon = what.find("] ");
    // Located at the character the parser stopped on (`byte` counts from 1).
    const std::size_t at = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    std::uint32_t line = 0, line_start = 0;
    for (std::size_t i = 0; i < at; ++i)
      if (text[i] == '\n') {
        ++line;
        line_start = static_cast<std::uint32_t>(i + 1);
      }
    const auto a = static_cast<std::uint32_t>(at);
    const std::uint32_t b = at < text.size() && text[at] != '\n' ? a + 1 : a;
    Span where{file, a, b, Point{line, a - line_start}, Point{line, b - line_start}};
    out.problems.push_back({tool_rules::kSyntaxError,
                            "not valid JSON: " + (colon == std::string::npos ? what : what.substr(colon + 2)), where});
    return out;
  } catch (const nlohmann::json::exception&) {
    // A number out of the double range: Python reads 1e999 as inf. The positioned reading
    // below gives the values; without it, the file's values are not known.
    parsed = nlohmann::json();
  }
  // Positions come from reading the text as YAML, which costs more than the JSON parse: big
  // files (tokenizers, data) keep their values without positions.
  yaml::YamlFacts as_yaml;
  if (text.size() <= kMaxPositionedSize) as_yaml = yaml::extract(text, file);
  if (as_yaml.problems.empty() && as_yaml.documents.size() == 1 && as_yaml.documents[0].root) {
    out.documents.push_back({rebuild(*as_yaml.documents[0].root, 0)});
    return out;
  }
  if (parsed.is_null() && !as_yaml.problems.empty()) return out;
  Span whole{file};
  out.documents.push_back({from_json(parsed, whole, 0)});
  return out;
}

}  // namespace trl::json
