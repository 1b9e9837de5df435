#include "analyzer/deps/pin_extractor.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <optional>

#include "analyzer/config/toml_input.hpp"
#include "analyzer/project/project.hpp"

namespace trl::deps {

namespace {

std::string normalize_name(std::string_view n) {
  std::string out;
  for (char c : n) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back(l == '_' || l == '.' ? '-' : l);
  }
  return out;
}

bool modelled(const std::string& name) {
  return name == "trl" || name == "transformers" || name == "accelerate";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string strip_spaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(c);
  return out;
}

Span span_of(const SourceFile& file, std::uint32_t begin, std::uint32_t end) {
  Span s;
  s.file = file.id;
  s.begin = begin;
  s.end = end;
  s.start = file.point_at(begin);
  s.stop = file.point_at(end);
  return s;
}

void add(const SourceFile& file, FileFacts& facts, std::string_view text, std::uint32_t begin, std::uint32_t end) {
  auto pin = parse_requirement(text);
  if (!pin) return;
  pin->span = span_of(file, begin, end);
  facts.pins.push_back(std::move(*pin));
}

void add(const SourceFile& file, FileFacts& facts, std::string_view text, std::uint32_t begin) {
  add(file, facts, text, begin, begin + static_cast<std::uint32_t>(text.size()));
}

// The path of an include line (`-r base.txt`, `--requirement=base.txt`, `-c constraints.txt`);
// empty for any other option.
std::string_view include_path(std::string_view t) {
  for (std::string_view opt : {"--requirement", "--constraint", "-r", "-c"}) {
    if (t.rfind(opt, 0) != 0) continue;
    std::string_view rest = t.substr(opt.size());
    if (!rest.empty() && rest.front() == '=' && opt.size() > 2) return trim(rest.substr(1));
    if (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) return trim(rest);
    if (!rest.empty() && opt.size() == 2) return trim(rest);  // `-rbase.txt`
  }
  return {};
}

// One logical line of a requirements file: the physical lines pip joins, with the file offset of
// each of its characters (for spans).
struct LogicalLine {
  std::string text;
  std::vector<std::uint32_t> at;

  void append(const SourceFile& file, std::string_view part) {
    const auto base = static_cast<std::uint32_t>(part.data() - file.text.data());
    for (std::size_t i = 0; i < part.size(); ++i) {
      text.push_back(part[i]);
      at.push_back(base + static_cast<std::uint32_t>(i));
    }
  }
};

// requirements.txt (pip's requirements file format), read the way pip's req_file.py preprocess()
// does (pip 26.0 src/pip/_internal/req/req_file.py): join_lines first (a line ending in `\` is
// joined with the next, its backslashes dropped; a full-line comment is never continued and ends a
// join), then comments stripped (`#` at the start or after whitespace, to the end of the joined
// line). So `trl \` followed by `==0.19.0` is `trl ==0.19.0`, and pip-compile's `--hash` lines
// are options of the requirement before them. Option lines (--index-url) are skipped, options
// after a requirement (`--hash=sha256:...`) cut off, `-r`/`-c` includes recorded. `${VAR}` is
// expanded by pip at install time (expand_env_variables): parse_requirement leaves such a version
// unknown.
void from_requirements(const SourceFile& file, FileFacts& facts) {
  const auto lines = static_cast<std::uint32_t>(file.line_starts.size());
  auto physical = [&](std::uint32_t line) {
    std::string_view l = file.line_text(line);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    return l;
  };
  for (std::uint32_t line = 0; line < lines;) {
    LogicalLine logical;
    while (line < lines) {
      std::string_view l = physical(line++);
      const std::string_view lead = trim(l);
      const bool comment = !lead.empty() && lead.front() == '#';
      if (comment || l.empty() || l.back() != '\\') {
        if (!comment) logical.append(file, l);  // a comment line adds only a comment, stripped below
        break;
      }
      while (!l.empty() && l.front() == '\\') l.remove_prefix(1);
      while (!l.empty() && l.back() == '\\') l.remove_suffix(1);
      logical.append(file, l);
    }
    std::string_view l = logical.text;
    for (std::size_t i = 0; i < l.size(); ++i)
      if (l[i] == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(l[i - 1])))) {
        l = l.substr(0, i);
        break;
      }
    std::string_view t = trim(l);
    if (t.empty()) continue;
    if (t.rfind("-e ", 0) == 0 || t.rfind("--editable", 0) == 0) {
      t = trim(t.substr(t.find(' ')));
    } else if (t.front() == '-') {
      if (std::string_view path = include_path(t); !path.empty()) facts.pin_includes.emplace_back(path);
      continue;
    }
    // Per-requirement options: `trl==0.19.1 --hash=sha256:...`.
    for (std::size_t at = t.find("--"); at != std::string_view::npos; at = t.find("--", at + 2))
      if (at > 0 && std::isspace(static_cast<unsigned char>(t[at - 1]))) {
        t = trim(t.substr(0, at));
        break;
      }
    if (t.empty()) continue;
    const auto first = static_cast<std::size_t>(t.data() - logical.text.data());
    const std::size_t before = facts.pins.size();
    add(file, facts, t, logical.at[first], logical.at[first + t.size() - 1] + 1);
    // A requirement joined from several lines reads, in messages, with one space where the
    // line break and indentation were.
    if (facts.pins.size() > before) {
      std::string& text = facts.pins.back().text;
      std::string one;
      for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c)) || one.empty() || one.back() != ' ')
          one.push_back(std::isspace(static_cast<unsigned char>(c)) ? ' ' : c);
      text = std::move(one);
    }
  }
}

// Finds the string literal `value` on 1-based `line` of a TOML/CFG file, for its span.
std::uint32_t locate(const SourceFile& file, std::uint32_t line1, std::string_view value) {
  if (line1 == 0 || line1 > file.line_starts.size()) return 0;
  std::string_view l = file.line_text(line1 - 1);
  auto at = l.find(value);
  if (at == std::string_view::npos) return file.line_starts[line1 - 1];
  return file.line_starts[line1 - 1] + static_cast<std::uint32_t>(at);
}

void from_toml_array(const SourceFile& file, FileFacts& facts, const TomlDocument& doc, const toml::array& arr) {
  for (const auto& item : arr) {
    auto value = item.value<std::string>();
    if (!value) continue;
    const std::string s = doc.text(*value);
    add(file, facts, s, locate(file, static_cast<std::uint32_t>(item.source().begin.line), s));
  }
}

// Poetry: `trl = "^0.19"` or `trl = {version = ">=0.19"}`.
void from_poetry(const SourceFile& file, FileFacts& facts, const TomlDocument& doc, const toml::table& deps) {
  for (const auto& [toml_key, node] : deps) {
    const std::string key = doc.text(toml_key.str());
    std::string name = normalize_name(key);
    if (!modelled(name)) continue;
    std::string spec;
    if (auto s = node.value<std::string>()) spec = doc.text(*s);
    if (const auto* t = node.as_table())
      if (auto v = (*t)["version"].value<std::string>()) spec = doc.text(*v);
    if (const auto* t = node.as_table(); t && ((*t)["git"] || (*t)["url"] || (*t)["path"])) spec = "@";
    PackagePin pin;
    pin.package = name;
    pin.text = key + " = " + spec;
    if (spec == "@") {
      pin.direct_url = true;
    } else if (!spec.empty() && (spec[0] == '^' || spec[0] == '~') && spec.size() > 1 && spec[1] != '=') {
      // Poetry caret/tilde: ^0.19 = >=0.19,<0.20 ; ^1.2 = >=1.2,<2.0 ; ~0.19.1 = >=0.19.1,<0.20
      std::string v = spec.substr(1);
      std::vector<long> parts;
      std::size_t start = 0;
      while (start <= v.size()) {
        auto dot = v.find('.', start);
        try {
          parts.push_back(std::stol(v.substr(start, dot - start)));
        } catch (const std::exception&) {
          break;
        }
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      if (parts.empty()) continue;
      std::string upper;
      if (spec[0] == '^') {
        std::size_t i = 0;
        while (i + 1 < parts.size() && parts[i] == 0) ++i;
        for (std::size_t j = 0; j < i; ++j) upper += std::to_string(parts[j]) + ".";
        upper += std::to_string(parts[i] + 1);
      } else {
        upper = parts.size() >= 2 ? std::to_string(parts[0]) + "." + std::to_string(parts[1] + 1)
                                  : std::to_string(parts[0] + 1);
      }
      pin.spec = ">=" + v + ",<" + upper;
    } else if (spec == "*") {
      pin.spec = "";
    } else {
      pin.spec = strip_spaces(spec);
      if (!pin.spec.empty() && std::isdigit(static_cast<unsigned char>(pin.spec[0]))) pin.spec = "==" + pin.spec;
    }
    const auto line = static_cast<std::uint32_t>(node.source().begin.line);
    std::uint32_t begin = locate(file, line, key);
    std::uint32_t end = line >= 1 && line <= file.line_starts.size()
                            ? file.line_starts[line - 1] + static_cast<std::uint32_t>(file.line_text(line - 1).size())
                            : begin;
    pin.span = span_of(file, begin, std::max(begin, end));
    facts.pins.push_back(std::move(pin));
  }
}

void from_pyproject(const SourceFile& file, FileFacts& facts) {
  std::optional<TomlDocument> doc;
  try {
    doc.emplace(file.text, file.path);
  } catch (const toml::parse_error&) {
    return;  // a broken pyproject.toml gives no pins (pip would fail on it too)
  }
  const toml::table& root = doc->table();
  if (const auto* deps = root["project"]["dependencies"].as_array()) from_toml_array(file, facts, *doc, *deps);
  const std::size_t main = facts.pins.size();
  if (const auto* opt = root["project"]["optional-dependencies"].as_table())
    for (const auto& [group, arr] : *opt)
      if (const auto* a = arr.as_array()) from_toml_array(file, facts, *doc, *a);
  if (const auto* groups = root["dependency-groups"].as_table())
    for (const auto& [group, arr] : *groups)
      if (const auto* a = arr.as_array()) from_toml_array(file, facts, *doc, *a);
  for (std::size_t i = main; i < facts.pins.size(); ++i) facts.pins[i].optional = true;
  if (const auto* poetry = root["tool"]["poetry"]["dependencies"].as_table()) from_poetry(file, facts, *doc, *poetry);
}

// setup.cfg: requirement lines under [options] install_requires and [options.extras_require].
void from_setup_cfg(const SourceFile& file, FileFacts& facts) {
  std::string section;
  bool in_list = false;
  for (std::uint32_t line = 0; line < file.line_starts.size(); ++line) {
    std::string_view l = file.line_text(line);
    std::string_view t = trim(l);
    if (t.empty() || t.front() == '#' || t.front() == ';') continue;
    if (t.front() == '[') {
      section = std::string(t);
      in_list = false;
      continue;
    }
    const bool indented = std::isspace(static_cast<unsigned char>(l.front()));
    std::string_view value = t;
    if (!indented) {
      auto eq = t.find('=');
      if (eq == std::string_view::npos) {
        in_list = false;
        continue;
      }
      std::string key = strip_spaces(t.substr(0, eq));
      in_list = (section == "[options]" && key == "install_requires") || section == "[options.extras_require]";
      value = trim(t.substr(eq + 1));
    }
    if (!in_list || value.empty()) continue;
    const std::size_t before = facts.pins.size();
    add(file, facts, value, static_cast<std::uint32_t>(value.data() - file.text.data()));
    if (section == "[options.extras_require]")
      for (std::size_t i = before; i < facts.pins.size(); ++i) facts.pins[i].optional = true;
  }
}

// setup.py: every string literal that reads as a requirement of a modelled library
// (install_requires lists, `_deps = [...]` tables).
void from_setup_py(const SourceFile& file, FileFacts& facts) {
  for (const auto& e : facts.python.exprs) {
    const Scalar& value = facts.python.constant(e);
    if (e.kind != py::ExprKind::Constant || value.kind != Scalar::Kind::Str) continue;
    auto pin = parse_requirement(value.s);
    if (!pin) continue;
    pin->span = e.span;
    facts.pins.push_back(std::move(*pin));
  }
  (void)file;
}

// environment.yml: dependencies: [..., {pip: [requirement, ...]}] and conda specs (`trl=0.19.1`).
void from_environment(const SourceFile& file, FileFacts& facts) {
  (void)file;
  if (facts.yaml.empty() || !facts.yaml.front().root) return;
  const YamlNode& root = *facts.yaml.front().root;
  if (root.kind != YamlNode::Kind::Mapping) return;
  const YamlEntry* deps = root.find("dependencies");
  if (!deps || deps->value->kind != YamlNode::Kind::Sequence) return;
  std::function<void(const YamlNode&, bool)> walk = [&](const YamlNode& list, bool pip) {
    for (const auto& item : list.items) {
      if (item->kind == YamlNode::Kind::Mapping) {
        if (const YamlEntry* p = item->find("pip"); p && p->value->kind == YamlNode::Kind::Sequence)
          walk(*p->value, true);
        continue;
      }
      if (item->kind != YamlNode::Kind::Scalar || item->scalar.kind != Scalar::Kind::Str) continue;
      std::string text = item->scalar.s;
      if (!pip) {
        // conda: name=version (one '=' means version prefix match), name==version, name>=x
        auto eq = text.find('=');
        if (eq != std::string::npos && eq + 1 < text.size() && text[eq + 1] != '=' && eq > 0 && text[eq - 1] != '>' &&
            text[eq - 1] != '<' && text[eq - 1] != '!')
          text = text.substr(0, eq) + "==" + text.substr(eq + 1);
        if (auto bang = text.find("::"); bang != std::string::npos) text = text.substr(bang + 2);
      }
      auto pin = parse_requirement(text);
      if (!pin) continue;
      pin->span = item->span;
      facts.pins.push_back(std::move(*pin));
    }
  };
  walk(*deps->value, false);
}

}  // namespace

std::optional<PackagePin> parse_requirement(std::string_view text) {
  std::string_view t = trim(text);
  PackagePin pin;
  pin.text = std::string(t);
  // URL forms: git+https://github.com/huggingface/trl.git@sha#egg=trl
  if (t.find("://") != std::string_view::npos && t.find(" @ ") == std::string_view::npos && t.find('@') != 0) {
    std::string lower(t);
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string lib : {"trl", "transformers", "accelerate"}) {
      for (const std::string& marker : {"#egg=" + lib, "huggingface/" + lib}) {
        auto at = lower.find(marker);
        const std::size_t after = at + marker.size();
        if (at != std::string::npos &&
            (after == lower.size() || std::string_view(".@/#&").find(lower[after]) != std::string_view::npos)) {
          pin.package = lib;
          pin.direct_url = true;
          return pin;
        }
      }
    }
    return std::nullopt;
  }
  std::size_t i = 0;
  while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '-' || t[i] == '_' || t[i] == '.'))
    ++i;
  if (i == 0) return std::nullopt;
  pin.package = normalize_name(t.substr(0, i));
  if (!modelled(pin.package)) return std::nullopt;
  std::string_view rest = t.substr(i);
  if (auto semi = rest.find(';'); semi != std::string_view::npos) {
    rest = rest.substr(0, semi);
    pin.optional = true;  // an environment marker: installed on some machines only
  }
  rest = trim(rest);
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    rest = trim(rest.substr(close + 1));
  }
  if (!rest.empty() && rest.front() == '@') {
    pin.direct_url = true;
    return pin;
  }
  if (!rest.empty() && rest.front() == '(' && rest.back() == ')') rest = rest.substr(1, rest.size() - 2);
  // `trl==${TRL_VERSION}`: pip expands `${VAR}` in requirements files when it installs (pip 26.0
  // req_file.py expand_env_variables; docs/html/reference/requirements-file-format.md "Using
  // environment variables"); elsewhere (pyproject.toml, setup.cfg) nothing expands it and the
  // requirement is not valid as written. Either way the version is not knowable here.
  if (rest.find('$') != std::string_view::npos) {
    pin.env_var = true;
    return pin;
  }
  std::string spec = strip_spaces(rest);
  // What remains must be version clauses (or nothing): otherwise this literal is not a requirement.
  if (!spec.empty() && spec.find_first_of("=<>!~") != 0) return std::nullopt;
  for (char c : spec)
    if (!(std::isalnum(static_cast<unsigned char>(c)) ||
          std::string_view("=<>!~.,*+-_").find(c) != std::string_view::npos))
      return std::nullopt;
  pin.spec = spec;
  return pin;
}

void extract_pins(const SourceFile& file, FileFacts& facts) {
  const std::string name = std::filesystem::path(file.path).filename().string();
  switch (file.kind) {
    case FileKind::Requirements: from_requirements(file, facts); break;
    case FileKind::Toml: from_pyproject(file, facts); break;
    case FileKind::SetupCfg: from_setup_cfg(file, facts); break;
    case FileKind::Python:
      if (name == "setup.py") from_setup_py(file, facts);
      break;
    case FileKind::Yaml:
      if (name == "environment.yml" || name == "environment.yaml") from_environment(file, facts);
      break;
    default: break;
  }
}

}  // namespace trl::deps
