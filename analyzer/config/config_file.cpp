#include "analyzer/config/config_file.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

#include "analyzer/config/toml_input.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

// A configuration value independent of the file format, with where it was written.
struct Entry;
struct Value {
  enum class Kind { Null, Scalar, String, List, Map, Other };  // Scalar: a non-string TOML value
  Kind kind = Kind::Null;
  std::string text;
  std::vector<Value> items;
  // A map's keys and values in file order. A struct, not std::pair: std::pair of an incomplete
  // type is undefined behaviour (libstdc++ under clang rejects it).
  std::vector<Entry> entries;
  ConfigLocation where;
};
struct Entry {
  Entry(Located<std::string> k, Value v) : key(std::move(k)), value(std::move(v)) {}
  Located<std::string> key;
  Value value;
};

// A configuration is a small regular file: `extend: /dev/zero` or a FIFO must not hang the run.
constexpr std::uintmax_t kMaxConfigSize = 1u << 20;

std::string read_text(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw ConfigError(path + ": not a regular file (a configuration must be a file)");
  if (std::filesystem::file_size(path, ec) > kMaxConfigSize) throw ConfigError(path + ": configuration file over 1 MB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read configuration file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find('\0') != std::string::npos || !is_valid_utf8(text))
    throw ConfigError(path + ": a configuration file must be UTF-8 text");
  return text;
}

// --- YAML (yaml-cpp) ---

ConfigLocation at(const std::string& path, const YAML::Mark& m, std::size_t length = 0) {
  ConfigLocation w{path, {}, {}};
  if (m.is_null()) return w;
  w.start = Point{static_cast<std::uint32_t>(m.line), static_cast<std::uint32_t>(m.column)};
  w.stop = Point{w.start.line, static_cast<std::uint32_t>(m.column + length)};
  return w;
}

// `budget`: values left to build. Aliases share a node in yaml-cpp, but building values from
// them expands each use: a chain of aliases (`b: [*a, *a, ...]`, `c: [*b, *b, ...]`) would take
// gigabytes. A configuration holds a few hundred values.
constexpr std::size_t kMaxConfigValues = 100000;

Value from_yaml(const YAML::Node& n, const std::string& path, int depth, std::size_t& budget) {
  Value v;
  v.where = at(path, n.Mark(), n.IsScalar() ? n.Scalar().size() : 0);
  if (depth > 64) throw ConfigError(v.where, "configuration nested too deeply");
  if (budget == 0) throw ConfigError(v.where, "configuration too large (aliases expand to more than 100,000 values)");
  --budget;
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: v.kind = Value::Kind::Null; break;
    case YAML::NodeType::Scalar:
      v.kind = Value::Kind::String;
      v.text = n.Scalar();
      break;
    case YAML::NodeType::Sequence:
      v.kind = Value::Kind::List;
      for (const auto& item : n) v.items.push_back(from_yaml(item, path, depth + 1, budget));
      break;
    case YAML::NodeType::Map:
      v.kind = Value::Kind::Map;
      std::unordered_map<std::string, std::uint32_t> seen;  // key -> its line
      for (const auto& kv : n) {
        Located<std::string> key{kv.first.IsScalar() ? kv.first.Scalar() : "",
                                 at(path, kv.first.Mark(), kv.first.IsScalar() ? kv.first.Scalar().size() : 0)};
        if (!kv.first.IsScalar()) throw ConfigError(key.where, "keys must be plain strings");
        // PyYAML and yaml-cpp keep the last of two equal keys; a configuration saying `ignore`
        // twice most likely meant both, so it is an error (TOML rejects it too).
        if (auto [at, fresh] = seen.try_emplace(key.value, key.where.start.line); !fresh)
          throw ConfigError(key.where,
                            "duplicate key `" + key.value + "` (first at line " + std::to_string(at->second + 1) + ")");
        v.entries.emplace_back(std::move(key), from_yaml(kv.second, path, depth + 1, budget));
      }
      break;
  }
  return v;
}

Value parse_yaml(const std::string& path) {
  const std::string text = read_text(path);
  try {
    YAML::Node root = YAML::Load(text);
    std::size_t budget = kMaxConfigValues;
    Value v = from_yaml(root, path, 0, budget);
    if (v.kind == Value::Kind::Null) {  // an empty file: all defaults
      v.kind = Value::Kind::Map;
      return v;
    }
    if (v.kind != Value::Kind::Map) throw ConfigError(v.where, "a trl-lint configuration must be a mapping of keys");
    return v;
  } catch (const YAML::Exception& e) {
    throw ConfigError(at(path, e.mark), "invalid YAML: " + e.msg);
  }
}

// --- TOML (toml++) ---

ConfigLocation at(const std::string& path, const toml::source_region& r) {
  auto zero = [](toml::source_index i) { return static_cast<std::uint32_t>(i > 0 ? i - 1 : 0); };
  return ConfigLocation{path, Point{zero(r.begin.line), zero(r.begin.column)},
                        Point{zero(r.end.line), zero(r.end.column)}};
}

Value from_toml(const TomlDocument& doc, const toml::node& n, const std::string& path, int depth) {
  Value v;
  v.where = at(path, n.source());
  if (depth > 64) throw ConfigError(v.where, "configuration nested too deeply");
  if (const auto* t = n.as_table()) {
    v.kind = Value::Kind::Map;
    for (const auto& [k, child] : *t)
      v.entries.emplace_back(Located<std::string>{doc.text(k.str()), at(path, k.source())},
                             from_toml(doc, child, path, depth + 1));
  } else if (const auto* a = n.as_array()) {
    v.kind = Value::Kind::List;
    for (const auto& child : *a) v.items.push_back(from_toml(doc, child, path, depth + 1));
  } else if (const auto* s = n.as_string()) {
    v.kind = Value::Kind::String;
    v.text = doc.text(s->get());
  } else {
    v.kind = Value::Kind::Scalar;
    std::ostringstream os;
    n.visit([&](const auto& value) {
      if constexpr (toml::is_number<decltype(value)> || toml::is_boolean<decltype(value)>) os << value;
    });
    v.text = os.str();
  }
  return v;
}

std::optional<Value> parse_pyproject(const std::string& path) {
  const std::string text = read_text(path);
  if (text.find("trl-lint") == std::string::npos) return std::nullopt;
  try {
    const TomlDocument doc(text, path);
    const toml::node* tool = doc.table().get("tool");
    const toml::node* ours = tool && tool->is_table() ? tool->as_table()->get("trl-lint") : nullptr;
    if (!ours) return std::nullopt;
    Value v = from_toml(doc, *ours, path, 0);
    if (v.kind != Value::Kind::Map) throw ConfigError(v.where, "[tool.trl-lint] must be a table");
    return v;
  } catch (const toml::parse_error& e) {
    throw ConfigError(at(path, e.source()), std::string("invalid TOML: ") + std::string(e.description()));
  }
}

// A TOML configuration of our own (`.trl-lint.toml`, `trl-lint.toml`, or any `--config X.toml`):
// the keys at its top level, or under [tool.trl-lint] when it has that table.
Value parse_toml_config(const std::string& path) {
  const std::string text = read_text(path);
  try {
    const TomlDocument doc(text, path);
    const toml::node* tool = doc.table().get("tool");
    const toml::node* ours = tool && tool->is_table() ? tool->as_table()->get("trl-lint") : nullptr;
    Value v = from_toml(doc, ours ? *ours : static_cast<const toml::node&>(doc.table()), path, 0);
    if (v.kind != Value::Kind::Map) throw ConfigError(v.where, "a trl-lint configuration must be a table of keys");
    return v;
  } catch (const toml::parse_error& e) {
    throw ConfigError(at(path, e.source()), std::string("invalid TOML: ") + std::string(e.description()));
  }
}

std::optional<Value> parse_config(const std::string& path) {
  const fs::path p(path);
  if (p.filename() == "pyproject.toml") return parse_pyproject(path);
  if (p.extension() == ".toml") return parse_toml_config(path);
  return parse_yaml(path);
}

// --- Interpretation ---

const std::vector<std::string> kTopKeys = {"extend",   "select",           "ignore",  "extend-select",
                                           "severity", "per-file-ignores", "exclude", "target-versions",
                                           "runs",     "cache-dir",        "fail-on", "src"};
const std::vector<std::string> kRunKeys = {"name", "script", "config", "accelerate-config", "args", "env"};
const std::vector<std::string> kLibraries = {"trl", "transformers", "accelerate"};
const std::vector<std::string> kSeverities = {"error", "warning", "info"};

std::optional<Severity> severity_from_string(const std::string& text) {
  if (text == "error") return Severity::Error;
  if (text == "warning") return Severity::Warning;
  if (text == "info") return Severity::Info;
  return std::nullopt;
}

[[noreturn]] void unknown(const Located<std::string>& key, const std::vector<std::string>& valid, const char* what) {
  std::string message = std::string("unknown ") + what + " `" + key.value + "`";
  if (auto s = did_you_mean(key.value, valid)) message += "; did you mean `" + *s + "`?";
  std::string list;
  for (const auto& k : valid) list += (list.empty() ? "" : ", ") + k;
  throw ConfigError(key.where, message + " (expected one of: " + list + ")");
}

Located<std::string> string_of(const Value& v, const std::string& key) {
  if (v.kind == Value::Kind::String) return {v.text, v.where};
  if (v.kind == Value::Kind::Scalar)
    throw ConfigError(v.where, "`" + key + "` must be a string; quote it (\"" + v.text + "\")");
  throw ConfigError(v.where, "`" + key + "` must be a string");
}

// A list of strings; a single string is accepted as a one-element list.
std::vector<Located<std::string>> strings_of(const Value& v, const std::string& key) {
  std::vector<Located<std::string>> out;
  if (v.kind == Value::Kind::Null) return out;
  if (v.kind != Value::Kind::List) {
    out.push_back(string_of(v, key));
    return out;
  }
  for (const auto& item : v.items) out.push_back(string_of(item, key));
  return out;
}

std::vector<std::string> selectors_of(const Value& v, const std::string& key) {
  std::vector<std::string> out;
  for (auto& s : strings_of(v, key)) {
    // `TRL101, TRL2` in one string is accepted, as on the command line.
    std::stringstream ss(s.value);
    std::string part;
    while (std::getline(ss, part, ',')) {
      part.erase(0, part.find_first_not_of(" \t"));
      part.erase(part.find_last_not_of(" \t") + 1);
      if (part.empty()) continue;
      check_selector(part, &s.where);
      out.push_back(part);
    }
  }
  return out;
}

const Value& mapping(const Value& v, const std::string& key) {
  if (v.kind != Value::Kind::Map) throw ConfigError(v.where, "`" + key + "` must be a mapping");
  return v;
}

bool looks_like_version(const std::string& s) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '+' && c != '-') return false;
  return true;
}

DeclaredRunSpec read_run(const Value& v, const std::string& base_dir, std::size_t index) {
  if (v.kind != Value::Kind::Map) throw ConfigError(v.where, "each entry of `runs` must be a mapping");
  DeclaredRunSpec run;
  run.base_dir = base_dir;
  run.where = v.where;
  for (const auto& [key, value] : v.entries) {
    if (key.value == "name") {
      run.name = string_of(value, "name").value;
    } else if (key.value == "script") {
      run.script = string_of(value, "script");
    } else if (key.value == "config") {
      run.config = string_of(value, "config");
    } else if (key.value == "accelerate-config") {
      run.accelerate_config = string_of(value, "accelerate-config");
    } else if (key.value == "args") {
      if (value.kind == Value::Kind::String) {
        // One string is split at whitespace, like a command line without quoting.
        std::istringstream words(value.text);
        for (std::string w; words >> w;) run.args.push_back({w, value.where});
      } else {
        run.args = strings_of(value, "args");
      }
    } else if (key.value == "env") {
      for (const auto& [name, val] : mapping(value, "env").entries) {
        Located<std::string> text = val.kind == Value::Kind::Scalar ? Located<std::string>{val.text, val.where}
                                                                    : string_of(val, "env." + name.value);
        run.env.emplace_back(name, text);
      }
    } else {
      unknown(key, kRunKeys, "key in a run");
    }
  }
  if (!run.script) throw ConfigError(v.where, "run " + std::to_string(index + 1) + " has no `script`");
  return run;
}

struct Chain {
  std::vector<std::string> stack;  // files being loaded, outermost first (cycle detection)
};

Settings load(const std::string& abs_path, Chain& chain, const ConfigLocation* extended_from);

Settings interpret(const Value& root, const std::string& path, Chain& chain) {
  const std::string base_dir = fs::path(path).parent_path().string();
  Settings s;
  // `extend` first, wherever it is written: this file's keys then override the inherited ones.
  for (const auto& [key, value] : root.entries) {
    if (key.value != "extend") continue;
    Located<std::string> target = string_of(value, "extend");
    fs::path p = fs::path(target.value);
    if (p.is_relative()) p = fs::path(base_dir) / p;
    s = load(p.lexically_normal().string(), chain, &target.where);
  }
  s.files.insert(s.files.begin(), path);
  SelectionLayer layer;
  bool has_layer = false;
  for (const auto& [key, value] : root.entries) {
    const std::string& k = key.value;
    if (k == "extend") continue;
    if (k == "select") {
      layer.select = selectors_of(value, k);
      has_layer = true;
    } else if (k == "extend-select") {
      layer.extend_select = selectors_of(value, k);
      has_layer = true;
    } else if (k == "ignore") {
      layer.ignore = selectors_of(value, k);
      has_layer = true;
    } else if (k == "severity") {
      for (const auto& [code, level] : mapping(value, k).entries) {
        check_selector(code.value, &code.where);
        Located<std::string> l = string_of(level, "severity." + code.value);
        const auto severity = severity_from_string(l.value);
        if (!severity) unknown(l, kSeverities, "severity");
        s.severity[code.value] = *severity;
      }
    } else if (k == "per-file-ignores") {
      s.per_file_ignores.clear();  // a key written here replaces the inherited one
      for (const auto& [glob, codes] : mapping(value, k).entries)
        s.per_file_ignores.push_back({PathPattern{base_dir, glob.value}, selectors_of(codes, k + "." + glob.value)});
    } else if (k == "exclude") {
      s.exclude.clear();
      for (const auto& g : strings_of(value, k)) s.exclude.push_back(PathPattern{base_dir, g.value});
    } else if (k == "target-versions") {
      for (const auto& [lib, version] : mapping(value, k).entries) {
        if (std::find(kLibraries.begin(), kLibraries.end(), lib.value) == kLibraries.end())
          unknown(lib, kLibraries, "library in `target-versions`");
        Located<std::string> v = string_of(version, "target-versions." + lib.value);
        if (!looks_like_version(v.value))
          throw ConfigError(v.where, "`" + v.value + "` is not a version (expected e.g. \"0.19.1\")");
        s.target_versions[lib.value] = v;
      }
    } else if (k == "src") {
      s.src.clear();  // a key written here replaces the inherited one
      for (auto folder : strings_of(value, k)) {
        if (folder.value.empty()) throw ConfigError(folder.where, "`src` entries must not be empty");
        fs::path p = fs::path(folder.value);
        if (p.is_relative()) p = fs::path(base_dir) / p;
        folder.value = p.lexically_normal().string();
        while (folder.value.size() > 1 && folder.value.back() == '/') folder.value.pop_back();
        s.src.push_back(std::move(folder));
      }
    } else if (k == "cache-dir") {
      Located<std::string> dir = string_of(value, k);
      if (dir.value.empty()) throw ConfigError(dir.where, "`cache-dir` must not be empty");
      fs::path p = fs::path(dir.value);
      if (p.is_relative()) p = fs::path(base_dir) / p;
      dir.value = p.lexically_normal().string();
      s.cache_dir = dir;
    } else if (k == "fail-on") {
      const Located<std::string> level = string_of(value, k);
      const auto severity = severity_from_string(level.value);
      if (!severity) unknown(level, kSeverities, "severity in `fail-on`");
      s.fail_on = Located<Severity>{*severity, level.where};
    } else if (k == "runs") {
      s.runs.clear();
      if (value.kind != Value::Kind::List) throw ConfigError(value.where, "`runs` must be a list of runs");
      for (std::size_t i = 0; i < value.items.size(); ++i) s.runs.push_back(read_run(value.items[i], base_dir, i));
    } else {
      unknown(key, kTopKeys, "configuration key");
    }
  }
  if (has_layer) s.selection.push_back(std::move(layer));
  return s;
}

Settings load(const std::string& abs_path, Chain& chain, const ConfigLocation* extended_from) {
  for (const auto& f : chain.stack) {
    if (f != abs_path) continue;
    std::string cycle;
    for (const auto& g : chain.stack) cycle += g + " -> ";
    throw ConfigError(*extended_from, "`extend` cycle: " + cycle + abs_path);
  }
  std::error_code ec;
  if (!fs::is_regular_file(abs_path, ec)) {
    if (extended_from) throw ConfigError(*extended_from, "`extend`: no such file: " + abs_path);
    throw ConfigError(abs_path + ": no such configuration file");
  }
  std::optional<Value> root = parse_config(abs_path);
  if (!root) {
    const std::string message = abs_path + " has no [tool.trl-lint] table";
    if (extended_from) throw ConfigError(*extended_from, "`extend`: " + message);
    throw ConfigError(message);
  }
  chain.stack.push_back(abs_path);
  Settings s = interpret(*root, abs_path, chain);
  chain.stack.pop_back();
  return s;
}

}  // namespace

bool is_config_file(const std::string& abs_path) {
  const std::string name = fs::path(abs_path).filename().string();
  std::error_code ec;
  if (!fs::is_regular_file(abs_path, ec)) return false;
  if (name == ".trl-lint.yaml" || name == ".trl-lint.yml" || name == ".trl-lint.toml" || name == "trl-lint.toml")
    return true;
  if (name != "pyproject.toml") return false;
  // A cheap look first; a pyproject that mentions us is parsed (and must then be valid).
  std::ifstream in(abs_path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find("tool.trl-lint") == std::string::npos && text.find("trl-lint") == std::string::npos) return false;
  return parse_pyproject(abs_path).has_value();
}

Settings load_config_file(const std::string& abs_path) {
  Chain chain;
  return load(fs::path(abs_path).lexically_normal().string(), chain, nullptr);
}

}  // namespace trl
