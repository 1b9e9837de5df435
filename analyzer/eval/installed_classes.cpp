#include "analyzer/eval/installed_classes.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <tuple>

#include "analyzer/python/python_extractor.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

constexpr std::uint64_t kMaxModuleBytes = 4u << 20;

std::string read_text(const fs::path& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || size > kMaxModuleBytes) return "";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}
bool quote_char(char c) {
  return c == '`' || c == '\'' || c == '"';
}

// The values a help text lists after "must be one of" (`server` or `colocate`, 'a', 'b'):
// quoted words separated by commas and "or" (tools/knowledge_history.py, help_choices).
std::vector<std::string> help_choices(const std::string& help) {
  std::vector<std::string> out;
  const std::string low = lower(help);
  const auto at = low.find("must be one of");
  if (at == std::string::npos) return out;
  std::size_t i = at + 14;
  while (i < help.size() && (help[i] == ':' || std::isspace(static_cast<unsigned char>(help[i])))) ++i;
  while (i < help.size() && quote_char(help[i])) {
    while (i < help.size() && quote_char(help[i])) ++i;
    const std::size_t start = i;
    while (i < help.size() && word_char(help[i])) ++i;
    if (i == start || i >= help.size() || !quote_char(help[i])) break;
    out.push_back(help.substr(start, i - start));
    while (i < help.size() && quote_char(help[i])) ++i;
    // `, `, ` or `, `, or `
    std::size_t j = i;
    if (j < help.size() && help[j] == ',') ++j;
    std::size_t k = j;
    while (k < help.size() && std::isspace(static_cast<unsigned char>(help[k]))) ++k;
    if (low.compare(k, 3, "or ") == 0 && k > i) {
      k += 3;
      while (k < help.size() && std::isspace(static_cast<unsigned char>(help[k]))) ++k;
    } else if (j == i) {
      break;  // no separator: the list ends
    }
    i = k;
  }
  return out;
}

// Type, nullability and `Literal[...]` values of an annotation's text.
void annotation_info(std::string text, FieldInfo& f) {
  for (std::size_t p; (p = text.find("typing.")) != std::string::npos;) text.erase(p, 7);
  std::vector<std::string> words;
  std::string cur;
  for (char c : text) {
    if (c == '[' || c == ']' || c == ',' || c == '|' || std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) words.push_back(cur);
  f.nullable =
      text.find("Optional[") != std::string::npos || std::find(words.begin(), words.end(), "None") != words.end();
  // Literal["a", "b"]: the quoted values inside the brackets.
  for (std::size_t p = text.find("Literal["); p != std::string::npos; p = text.find("Literal[", p + 1)) {
    std::size_t i = p + 8;
    int depth = 1;
    while (i < text.size() && depth > 0) {
      if (text[i] == '[') ++depth;
      if (text[i] == ']') --depth;
      if (text[i] == '"' || text[i] == '\'') {
        const char q = text[i];
        const std::size_t end = text.find(q, i + 1);
        if (end == std::string::npos) break;
        f.choices.push_back(text.substr(i + 1, end - i - 1));
        i = end;
      }
      ++i;
    }
  }
  std::vector<std::string> core;
  for (std::size_t i = 0; i < words.size(); ++i)
    if (words[i] != "None" && !(i == 0 && (words[i] == "Optional" || words[i] == "Union"))) core.push_back(words[i]);
  static const std::map<std::string, std::string, std::less<>> kinds{
      {"bool", "bool"}, {"int", "int"},   {"float", "float"}, {"str", "str"},    {"dict", "dict"},   {"Dict", "dict"},
      {"list", "list"}, {"List", "list"}, {"tuple", "list"},  {"Tuple", "list"}, {"Literal", "str"},
  };
  const std::string head = core.empty() ? "" : core.front();
  auto it = kinds.find(head);
  f.type = it == kinds.end() ? "object" : it->second;
  std::set<std::string> seen;
  for (const auto& w : core)
    if (auto k = kinds.find(w); k != kinds.end()) seen.insert(k->second);
  if (head == "Union" || (text.find("Union[") != std::string::npos && seen.size() > 1)) f.type = "object";
}

struct Module {
  std::string path;  // under the site-packages folder
  std::string text;
  py::Module ir;
};

std::string last_name(const py::Module& m, py::ExprId id) {
  if (id == py::kNoExpr) return "";
  const py::Expr& e = m.expr(id);
  if (e.kind == py::ExprKind::Call) return last_name(m, e.a);
  if (e.kind == py::ExprKind::Name || e.kind == py::ExprKind::Attribute) return e.name;
  if (e.kind == py::ExprKind::Subscript) return last_name(m, e.a);  // Generic[T]
  return "";
}

// A literal default: numbers, strings (concatenated with `+` too), booleans, None, negated numbers.
bool literal(const py::Module& m, py::ExprId id, Scalar& out) {
  if (id == py::kNoExpr) return false;
  const py::Expr& e = m.expr(id);
  if (e.kind == py::ExprKind::Constant) {
    out = m.constant(e);
    return true;
  }
  if (e.kind == py::ExprKind::UnaryOp && e.name == "-") {
    Scalar v;
    if (!literal(m, e.a, v)) return false;
    if (v.kind == Scalar::Kind::Int) {
      out = Scalar::integer(-v.i);
      out.s = v.s.empty() ? "" : "-" + v.s;
      return true;
    }
    if (v.kind == Scalar::Kind::Float) {
      out = Scalar::floating(-v.f);
      out.s = v.s.empty() ? "" : "-" + v.s;
      return true;
    }
    return false;
  }
  if (e.kind == py::ExprKind::BinOp && e.name == "+") {
    Scalar a, b;
    if (literal(m, e.a, a) && literal(m, e.b, b) && a.kind == Scalar::Kind::Str && b.kind == Scalar::Kind::Str) {
      out = Scalar::string(a.s + b.s);
      return true;
    }
  }
  return false;
}

std::string string_value(const py::Module& m, py::ExprId id) {
  Scalar s;
  return literal(m, id, s) && s.kind == Scalar::Kind::Str ? s.s : "";
}

// A choice or option value as the generator writes it (Python's str() of the constant).
std::string choice_text(const Scalar& v) {
  return v.kind == Scalar::Kind::Str    ? v.s
         : v.kind == Scalar::Kind::Bool ? (v.b ? "True" : "False")
         : !v.s.empty()                 ? v.s
         : v.kind == Scalar::Kind::Int  ? std::to_string(v.i)
                                        : std::to_string(v.f);
}

struct FoundClass {
  std::string file;
  std::vector<std::string> bases;
  std::vector<std::pair<std::string, FieldInfo>> fields;  // declaration order
  // What the release-history generator also records (scan_module): fields whose help text says
  // "deprecated", and fields whose choices come from help text that says "must be one of".
  std::set<std::string> deprecated, choices_from_help;
};

// True when `text` holds the word "deprecated", in any case (a regular expression's `\b`: not
// next to a letter, digit or underscore).
bool says_deprecated(const std::string& text) {
  const std::string l = lower(text);
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = l.find("deprecated"); at != std::string::npos; at = l.find("deprecated", at + 1)) {
    const bool before = at == 0 || !word(l[at - 1]);
    const bool after = at + 10 >= l.size() || !word(l[at + 10]);
    if (before && after) return true;
  }
  return false;
}

bool is_dataclass(const py::Module& m, const py::Stmt& s) {
  for (py::ExprId d : s.decorators)
    if (last_name(m, d) == "dataclass") return true;
  return false;
}

FoundClass read_class(const Module& mod, const py::Stmt& cls, const std::string& version) {
  const py::Module& m = mod.ir;
  FoundClass out;
  out.file = mod.path;
  for (py::ExprId b : cls.bases) {
    const std::string name = last_name(m, b);
    if (!name.empty()) out.bases.push_back(name);
  }
  for (py::StmtId sid : cls.body) {
    const py::Stmt& s = m.stmt(sid);
    if (s.kind != py::StmtKind::Assign || s.annotation == py::kNoExpr || s.targets.size() != 1) continue;
    const py::Expr& target = m.expr(s.targets.front());
    if (target.kind != py::ExprKind::Name) continue;
    const py::Expr& ann = m.expr(s.annotation);
    const std::string ann_text = ann.span.end <= mod.text.size() && ann.span.begin <= ann.span.end
                                     ? mod.text.substr(ann.span.begin, ann.span.end - ann.span.begin)
                                     : std::string();
    if (ann_text.find("ClassVar") != std::string::npos || ann_text.find("InitVar") != std::string::npos) continue;
    FieldInfo f;
    f.name = target.name;
    annotation_info(ann_text, f);
    std::string help;
    if (s.value != py::kNoExpr) {
      const py::Expr& v = m.expr(s.value);
      if (v.kind == py::ExprKind::Call && last_name(m, v.a) == "field") {
        bool init = true;
        for (const auto& a : m.args(v)) {
          if (a.kind != py::Argument::Kind::Keyword) continue;
          Scalar value;
          if (a.keyword == "init" && literal(m, a.value, value) && value.kind == Scalar::Kind::Bool && !value.b)
            init = false;
          if (a.keyword == "default" && literal(m, a.value, value)) {
            f.has_default = true;
            f.default_value = value;
          }
          if (a.keyword == "metadata" && a.value != py::kNoExpr && m.expr(a.value).kind == py::ExprKind::Dict) {
            const py::Expr& meta = m.expr(a.value);
            const auto keys = m.elts(meta);
            const auto values = m.values(meta);
            for (std::size_t i = 0; i < keys.size() && i < values.size(); ++i) {
              const std::string key = string_value(m, keys[i]);
              if (key == "help") help = string_value(m, values[i]);
              if (key == "choices" && values[i] != py::kNoExpr) {
                const py::Expr& list = m.expr(values[i]);
                if (list.kind != py::ExprKind::List && list.kind != py::ExprKind::Tuple) continue;
                f.choices.clear();
                for (py::ExprId c : m.elts(list)) {
                  Scalar choice;
                  if (!literal(m, c, choice) || choice.kind == Scalar::Kind::Null) continue;
                  f.choices.push_back(choice_text(choice));
                }
              }
            }
          }
        }
        if (!init) continue;
      } else {
        Scalar value;
        if (literal(m, s.value, value)) {
          f.has_default = true;
          f.default_value = value;
        }
      }
    }
    if (f.has_default && f.default_value.kind == Scalar::Kind::Null) f.nullable = true;
    out.choices_from_help.erase(f.name);
    if (f.choices.empty() && !help.empty()) {
      f.choices = help_choices(help);
      if (!f.choices.empty()) out.choices_from_help.insert(f.name);
    }
    if (says_deprecated(help))
      out.deprecated.insert(f.name);
    else
      out.deprecated.erase(f.name);
    f.source = mod.path + " of the installed " + version;
    auto existing =
        std::find_if(out.fields.begin(), out.fields.end(), [&](const auto& p) { return p.first == f.name; });
    if (existing != out.fields.end())
      existing->second = f;
    else
      out.fields.emplace_back(f.name, std::move(f));
  }
  return out;
}

// Reads modules of one site-packages folder and the dataclasses they define, following the
// imports a class's bases come through.
class Reader {
 public:
  Reader(std::string site, std::string version) : site_(std::move(site)), version_(std::move(version)) {}

  const Module* module(const std::string& path, const std::string* text = nullptr) {
    auto [it, fresh] = modules_.try_emplace(path);
    if (fresh) {
      auto mod = std::make_unique<Module>();
      mod->path = path;
      mod->text = text ? *text : site_.empty() ? "" : read_text(fs::path(site_) / path);
      if (!mod->text.empty()) mod->ir = python::extract(mod->text, kNoFile).module;
      it->second = std::move(mod);
    }
    return it->second->text.empty() ? nullptr : it->second.get();
  }

  // Where `name`, imported in module `from`, is defined: the module path, or "" when not in this
  // site-packages folder's package.
  std::string import_source(const Module& from, const std::string& name) {
    const py::Module& m = from.ir;
    for (py::StmtId sid : m.body) {
      const py::Stmt& s = m.stmt(sid);
      if (s.kind != py::StmtKind::ImportFrom) continue;
      bool names_it = false;
      for (const auto& a : s.names) names_it = names_it || (a.asname.empty() ? a.name : a.asname) == name;
      if (!names_it) continue;
      fs::path base;
      if (s.level > 0) {
        base = fs::path(from.path).parent_path();
        for (int i = 1; i < s.level; ++i) base = base.parent_path();
      }
      std::string dotted = s.module;
      fs::path rel = base;
      std::size_t start = 0;
      while (!dotted.empty() && start <= dotted.size()) {
        const auto dot = dotted.find('.', start);
        rel /= dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      std::error_code ec;
      for (const fs::path& candidate : {fs::path(rel.string() + ".py"), rel / "__init__.py"})
        if (!site_.empty() && fs::is_regular_file(fs::path(site_) / candidate, ec)) return candidate.generic_string();
    }
    return "";
  }

  // Fields of `name` (defined in `mod`) with those of its dataclass bases of the same package
  // first; the bases the package does not define are collected in `bases`.
  bool flatten(const Module& mod, const std::string& name, std::vector<std::pair<std::string, FieldInfo>>& fields,
               std::vector<std::string>& bases, int depth) {
    if (depth > 16) return false;
    const py::Stmt* cls = nullptr;
    for (py::StmtId sid : mod.ir.body) {
      const py::Stmt& s = mod.ir.stmt(sid);
      if (s.kind == py::StmtKind::ClassDef && s.name == name) cls = &s;
    }
    if (!cls || !is_dataclass(mod.ir, *cls)) return false;
    const FoundClass found = read_class(mod, *cls, version_);
    for (const std::string& b : found.bases) {
      if (b == "object" || b == "Generic" || b == "ABC") continue;
      bool flattened = false;
      if (defined_in(mod, b)) {
        flattened = flatten(mod, b, fields, bases, depth + 1);
      } else if (const std::string path = import_source(mod, b); !path.empty()) {
        if (const Module* other = module(path)) flattened = flatten(*other, b, fields, bases, depth + 1);
      }
      if (!flattened && std::find(bases.begin(), bases.end(), b) == bases.end()) bases.push_back(b);
    }
    for (const auto& declared : found.fields) {
      auto it = std::find_if(fields.begin(), fields.end(), [&](const auto& p) { return p.first == declared.first; });
      if (it != fields.end())
        it->second = declared.second;
      else
        fields.push_back(declared);
    }
    return true;
  }

  // The keywords `__init__` of class `name` (defined in `mod`) takes: its parameters after self,
  // and the old names a `deprecate_kwarg("old", ...)` decorator maps onto them. A class without
  // an `__init__` takes its first base's, when the package defines that base. False when that
  // cannot be said: the class or an `__init__` is not found in the package, or it takes **kwargs.
  bool init_keywords(const Module& mod, const std::string& name, std::vector<std::string>& out, int depth) {
    if (depth > 16) return false;
    const py::Module& m = mod.ir;
    const py::Stmt* cls = nullptr;
    for (py::StmtId sid : m.body) {
      const py::Stmt& s = m.stmt(sid);
      if (s.kind == py::StmtKind::ClassDef && s.name == name) cls = &s;
    }
    if (!cls) return false;
    for (py::StmtId sid : cls->body) {
      const py::Stmt& s = m.stmt(sid);
      if (s.kind != py::StmtKind::FunctionDef || s.name != "__init__") continue;
      for (std::size_t i = 1; i < s.params.size(); ++i) {  // after self
        const py::Param& p = s.params[i];
        if (p.kind == py::Param::Kind::DoubleStar) return false;
        if (p.kind == py::Param::Kind::Normal) out.push_back(p.name);
      }
      for (py::ExprId d : s.decorators) {
        const py::Expr& call = m.expr(d);
        if (call.kind != py::ExprKind::Call || last_name(m, call.a) != "deprecate_kwarg") continue;
        for (const auto& a : m.args(call))
          if (a.kind == py::Argument::Kind::Positional) {
            if (const std::string old = string_value(m, a.value); !old.empty()) out.push_back(old);
            break;
          }
      }
      return true;
    }
    for (py::ExprId b : cls->bases) {
      const std::string base = last_name(m, b);
      if (base.empty() || base == "object" || base == "Generic" || base == "ABC") continue;
      if (defined_in(mod, base)) return init_keywords(mod, base, out, depth + 1);
      if (const std::string path = import_source(mod, base); !path.empty())
        if (const Module* other = module(path)) return init_keywords(*other, base, out, depth + 1);
      return false;  // a base outside the package (transformers' Trainer): not followed
    }
    return false;
  }

 private:
  static bool defined_in(const Module& mod, const std::string& name) {
    for (py::StmtId sid : mod.ir.body) {
      const py::Stmt& s = mod.ir.stmt(sid);
      if (s.kind == py::StmtKind::ClassDef && s.name == name) return true;
    }
    return false;
  }

  std::string site_, version_;
  std::map<std::string, std::unique_ptr<Module>> modules_;
};

// The module path (under site-packages) of a knowledge class's file: its `source` without the
// `@version` and the repository's `src/` folder.
std::string module_of(const ClassInfo& cls, const Knowledge& k) {
  std::string file = cls.source.substr(0, cls.source.find('@'));
  if (file.find(' ') != std::string::npos || file.find(".py") == std::string::npos) file.clear();
  if (file.empty())
    if (const ClassHistory* h = k.history(cls.name); h && !h->spans.empty()) file = h->spans.back().file;
  if (file.rfind("src/", 0) == 0) file.erase(0, 4);
  return file;
}

// A module of `package` whose text defines `class name`: the knowledge's file first; else a
// search of the package's modules (TRL and accelerate are small; transformers is not searched).
// True when `text` holds `class name(` or `class name:`.
bool defines_class(const std::string& text, const std::string& name) {
  const std::string needle = "class " + name;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    std::size_t i = at + needle.size();
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && (text[i] == '(' || text[i] == ':')) return true;
  }
  return false;
}

std::string find_module(const std::string& site, const std::string& package, const std::string& known,
                        const std::string& name) {
  std::error_code ec;
  if (!known.empty() && fs::is_regular_file(fs::path(site) / known, ec) &&
      defines_class(read_text(fs::path(site) / known), name))
    return known;
  if (package != "trl" && package != "accelerate") return "";
  std::vector<std::string> hits;
  std::size_t seen = 0;
  for (fs::recursive_directory_iterator it(fs::path(site) / package, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end && seen < 4000; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".py") continue;
    ++seen;
    if (defines_class(read_text(it->path()), name))
      hits.push_back(fs::path(it->path()).lexically_relative(site).generic_string());
  }
  std::sort(hits.begin(), hits.end());
  // The public class first (TRL keeps older copies under trl/experimental/).
  for (const auto& h : hits)
    if (h.find("experimental") == std::string::npos) return h;
  return hits.empty() ? "" : hits.front();
}

}  // namespace

bool newer_than_knowledge(const Knowledge& k, const VersionTarget& target) {
  const LibraryReleases* lib = k.library(target.library);
  return lib && target.version && !lib->newest.empty() && compare_versions(*target.version, lib->newest) > 0;
}

ReadClass read_dataclass(const std::string& site, const std::string& module_path, const std::string& text,
                         const std::string& name) {
  Reader reader(site, "");
  ReadClass out;
  const Module* mod = reader.module(module_path, &text);
  if (!mod) return out;
  std::vector<std::pair<std::string, FieldInfo>> fields;
  out.found = reader.flatten(*mod, name, fields, out.bases, 0);
  out.file = module_path;
  for (auto& [n, f] : fields) out.fields.emplace(n, std::move(f));
  return out;
}

namespace {

// The libraries other than `own` whose targets are installed releases newer than the knowledge:
// "transformers=/site;" for each, or "" when none.
std::string newer_installed_others(const Knowledge& k, const VersionTargets& targets, const std::string& own) {
  std::string out;
  for (const VersionTarget* other : {&targets.trl, &targets.transformers, &targets.accelerate})
    if (other->library != own && !other->installed_site.empty() && newer_than_knowledge(k, *other))
      out += other->library + "=" + other->installed_site + ";";
  return out;
}

// "TRL 1.10.0", "transformers 5.13.0".
std::string label(const VersionTarget& t) {
  return (t.library == "trl" ? std::string("TRL") : t.library) + " " + t.version.value_or("");
}

// A knowledge class as the installed source of its library (at `target`) defines it: its fields
// with those of the package's own bases, and the bases the package does not define. `file`: the
// module read. False when the class is not found there, or declares no field.
struct InstalledRead {
  std::string file;
  std::vector<std::pair<std::string, FieldInfo>> fields;
  std::vector<std::string> bases;
};
bool read_installed(const Knowledge& k, const ClassInfo& cls, const VersionTarget& target, InstalledRead& out) {
  out.file = find_module(target.installed_site, cls.package, module_of(cls, k), cls.name);
  if (out.file.empty()) return false;
  Reader reader(target.installed_site, label(target));
  const Module* mod = reader.module(out.file);
  return mod && reader.flatten(*mod, cls.name, out.fields, out.bases, 0) && !out.fields.empty();
}

}  // namespace

const ClassInfo* installed_class(const Knowledge& k, const ClassInfo& cls, const VersionTargets& targets) {
  if (cls.package.empty()) return nullptr;
  const VersionTarget& target = targets.of(cls.package);
  const bool own_installed = !target.installed_site.empty() && newer_than_knowledge(k, target);
  const std::string others = newer_installed_others(k, targets, cls.package);
  if (!own_installed && others.empty()) return nullptr;
  struct Key {
    std::string site, cls, source, others;
    bool operator<(const Key& o) const {
      return std::tie(site, cls, source, others) < std::tie(o.site, o.cls, o.source, o.others);
    }
  };
  static std::mutex mutex;
  static std::map<Key, std::unique_ptr<ClassInfo>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = cache.try_emplace(Key{own_installed ? target.installed_site : "", cls.name, cls.source, others});
  if (!fresh) return it->second.get();
  auto c = std::make_unique<ClassInfo>();
  c->name = cls.name;
  c->package = cls.package;
  c->role = cls.role;
  c->trainer = cls.trainer;
  c->init_positional = cls.init_positional;
  std::vector<std::string> bases;
  if (own_installed) {
    InstalledRead own;
    if (!read_installed(k, cls, target, own)) return nullptr;
    c->source = (fs::path(target.installed_site) / own.file).generic_string();
    c->installed_from.push_back({target.library, *target.version, own.file});
    for (auto& [n, f] : own.fields) c->fields.emplace(n, std::move(f));
    bases = std::move(own.bases);
  } else {
    c->source = cls.source;
    c->fields = cls.fields;
    bases = cls.bases;
  }
  // A base of another library installed newer than the knowledge (TrainingArguments under TRL's
  // configs): its installed fields, flattened in (the class's own declarations win).
  bool changed = own_installed;
  for (const std::string& b : bases) {
    const ClassInfo* known = k.find(b);
    const VersionTarget* base_target = known ? &targets.of(known->package) : nullptr;
    if (known && known->package != cls.package && base_target->library == known->package &&
        !base_target->installed_site.empty() && newer_than_knowledge(k, *base_target)) {
      InstalledRead base;
      if (read_installed(k, *known, *base_target, base)) {
        for (auto& [n, f] : base.fields) c->fields.emplace(n, std::move(f));
        for (const auto& bb : base.bases) c->bases.push_back(bb);
        c->installed_from.push_back({base_target->library, *base_target->version, base.file});
        changed = true;
        continue;
      }
    }
    c->bases.push_back(b);
  }
  if (!changed) return nullptr;
  it->second = std::move(c);
  return it->second.get();
}

std::optional<Knowledge::TrainerKeywords> installed_trainer_keywords(const Knowledge& k, const ClassInfo& trainer,
                                                                     const VersionTargets& targets) {
  if (trainer.package.empty()) return std::nullopt;
  const VersionTarget& target = targets.of(trainer.package);
  if (target.installed_site.empty() || !newer_than_knowledge(k, target)) return std::nullopt;
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::optional<Knowledge::TrainerKeywords>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = cache.try_emplace({target.installed_site, trainer.name});
  if (!fresh) return it->second;
  const std::string file = find_module(target.installed_site, trainer.package, module_of(trainer, k), trainer.name);
  if (file.empty()) return std::nullopt;
  Reader reader(target.installed_site, label(target));
  const Module* mod = reader.module(file);
  Knowledge::TrainerKeywords out;
  if (!mod || !reader.init_keywords(*mod, trainer.name, out.names, 0)) return std::nullopt;
  out.source = file + " of the installed " + label(target) + " (newer than the releases trl-lint knows)";
  it->second = std::move(out);
  return it->second;
}

namespace {

// The string values of an enum class's members (`NO = "no"`), in order, each once.
std::vector<std::string> enum_members(const py::Module& m, const py::Stmt& cls) {
  std::vector<std::string> out;
  for (py::StmtId sid : cls.body) {
    const py::Stmt& s = m.stmt(sid);
    if (s.kind != py::StmtKind::Assign || s.annotation != py::kNoExpr || s.targets.size() != 1) continue;
    if (m.expr(s.targets.front()).kind != py::ExprKind::Name || s.value == py::kNoExpr) continue;
    const py::Expr& v = m.expr(s.value);
    if (v.kind != py::ExprKind::Constant || m.constant(v).kind != Scalar::Kind::Str) continue;
    const std::string& value = m.constant(v).s;
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  return out;
}

// Calls each expression under `id` (itself included) with `visit`.
template <typename Visit>
void walk_expr(const py::Module& m, py::ExprId id, Visit& visit, int depth = 0) {
  if (id == py::kNoExpr || depth > 256) return;
  const py::Expr& e = m.expr(id);
  visit(e);
  for (py::ExprId c : {e.a, e.b, e.c}) walk_expr(m, c, visit, depth + 1);
  for (py::ExprId c : m.elts(e)) walk_expr(m, c, visit, depth + 1);
  for (py::ExprId c : m.values(e)) walk_expr(m, c, visit, depth + 1);
  for (const auto& arg : m.args(e)) walk_expr(m, arg.value, visit, depth + 1);
}

// Calls `on_stmt` on each statement of `body` and of every block nested in it (functions and
// classes included), and `on_expr` on each of their expressions.
template <typename OnStmt, typename OnExpr>
void walk_stmts(const py::Module& m, const std::vector<py::StmtId>& body, OnStmt& on_stmt, OnExpr& on_expr,
                int depth = 0) {
  if (depth > 64) return;
  for (py::StmtId sid : body) {
    const py::Stmt& s = m.stmt(sid);
    on_stmt(s);
    for (py::ExprId t : s.targets) walk_expr(m, t, on_expr);
    walk_expr(m, s.value, on_expr);
    walk_expr(m, s.annotation, on_expr);
    for (py::ExprId d : s.decorators) walk_expr(m, d, on_expr);
    for (py::ExprId b : s.bases) walk_expr(m, b, on_expr);
    for (const auto& p : s.params) walk_expr(m, p.default_value, on_expr);
    walk_stmts(m, s.body, on_stmt, on_expr, depth + 1);
    walk_stmts(m, s.orelse, on_stmt, on_expr, depth + 1);
    for (const auto& h : s.handlers) walk_stmts(m, h, on_stmt, on_expr, depth + 1);
  }
}

// `self.f = E(self.f)` anywhere in `body` (nested blocks included): f -> E.
void enum_conversions(const py::Module& m, const std::vector<py::StmtId>& body,
                      std::vector<std::pair<std::string, std::string>>& out) {
  auto self_attr = [&](py::ExprId id) -> std::string {
    if (id == py::kNoExpr) return "";
    const py::Expr& e = m.expr(id);
    if (e.kind != py::ExprKind::Attribute || e.a == py::kNoExpr) return "";
    const py::Expr& base = m.expr(e.a);
    return base.kind == py::ExprKind::Name && base.name == "self" ? e.name : "";
  };
  auto on_stmt = [&](const py::Stmt& s) {
    if (s.kind != py::StmtKind::Assign || s.targets.size() != 1 || s.value == py::kNoExpr) return;
    const std::string field = self_attr(s.targets.front());
    const py::Expr& call = m.expr(s.value);
    if (field.empty() || call.kind != py::ExprKind::Call || call.a == py::kNoExpr ||
        m.expr(call.a).kind != py::ExprKind::Name)
      return;
    const auto args = m.args(call);
    if (args.size() == 1 && args.front().kind == py::Argument::Kind::Positional &&
        self_attr(args.front().value) == field)
      out.emplace_back(field, m.expr(call.a).name);
  };
  auto no_expr = [](const py::Expr&) {};
  walk_stmts(m, body, on_stmt, no_expr);
}

// The source text of an expression.
std::string text_of(const Module& mod, py::ExprId id) {
  if (id == py::kNoExpr) return "";
  const Span& sp = mod.ir.expr(id).span;
  return sp.begin <= sp.end && sp.end <= mod.text.size() ? mod.text.substr(sp.begin, sp.end - sp.begin) : "";
}

// A string literal's text; for an f-string, its text outside the `{...}` fields (what a warning
// says around its interpolations).
std::string message_text(const Module& mod, py::ExprId id) {
  if (id == py::kNoExpr) return "";
  if (mod.ir.expr(id).kind != py::ExprKind::FString) return string_value(mod.ir, id);
  const std::string raw = text_of(mod, id);
  std::string out;
  int braces = 0;
  std::size_t i = raw.find_first_of("'\"");
  if (i == std::string::npos) return "";
  const char quote = raw[i];
  for (++i; i < raw.size(); ++i) {
    const char c = raw[i];
    if (braces == 0 && c == quote) break;
    if (c == '{' && i + 1 < raw.size() && raw[i + 1] == '{' && braces == 0) {
      out += '{';
      ++i;
    } else if (c == '{') {
      ++braces;
    } else if (c == '}' && braces > 0) {
      --braces;
    } else if (braces == 0) {
      out += c;
    }
  }
  return out;
}

// The options a `launch_command_parser` function adds (`parser.add_argument("--name", ...)`).
void launch_options(const Module& mod, const py::Stmt& fn, std::vector<ModuleScan::Option>& out) {
  const py::Module& m = mod.ir;
  auto on_expr = [&](const py::Expr& e) {
    if (e.kind != py::ExprKind::Call || e.a == py::kNoExpr) return;
    const py::Expr& callee = m.expr(e.a);
    if (callee.kind != py::ExprKind::Attribute || callee.name != "add_argument") return;
    ModuleScan::Option o;
    for (const auto& arg : m.args(e)) {
      if (arg.kind == py::Argument::Kind::Positional) {
        Scalar v;
        if (literal(m, arg.value, v) && v.kind == Scalar::Kind::Str && m.expr(arg.value).kind == py::ExprKind::Constant)
          o.names.push_back(v.s);
        continue;
      }
      if (arg.kind != py::Argument::Kind::Keyword) continue;
      if (arg.keyword == "action") {
        Scalar v;
        if (literal(m, arg.value, v) && v.kind == Scalar::Kind::Str) o.action = v.s;
      } else if (arg.keyword == "type") {
        o.type = text_of(mod, arg.value);
        o.has_type = true;
      } else if (arg.keyword == "choices" && arg.value != py::kNoExpr) {
        const py::Expr& list = m.expr(arg.value);
        if (list.kind != py::ExprKind::List && list.kind != py::ExprKind::Tuple) continue;
        o.has_choices = true;
        for (py::ExprId c : m.elts(list))
          if (m.expr(c).kind == py::ExprKind::Constant) o.choices.push_back(choice_text(m.constant(m.expr(c))));
      } else if (arg.keyword == "help") {
        o.help = message_text(mod, arg.value);
      }
    }
    out.push_back(std::move(o));
  };
  auto on_stmt = [](const py::Stmt&) {};
  walk_stmts(m, fn.body, on_stmt, on_expr);
}

// Parameters an `__init__` tests in an `if` whose body warns that they are deprecated ("The `p`
// argument is deprecated", "Parameter 'p' has been deprecated").
std::set<std::string> deprecated_in_body(const Module& mod, const py::Stmt& fn, const std::set<std::string>& params) {
  const py::Module& m = mod.ir;
  std::set<std::string> found;
  auto on_stmt = [&](const py::Stmt& s) {
    if (s.kind != py::StmtKind::If) return;
    std::set<std::string> tested;
    auto names = [&](const py::Expr& e) {
      if (e.kind == py::ExprKind::Name && params.count(e.name)) tested.insert(e.name);
    };
    walk_expr(m, s.value, names);
    if (tested.empty()) return;
    auto warns = [&](const py::Expr& e) {
      if (e.kind != py::ExprKind::Call || e.a == py::kNoExpr) return;
      const py::Expr& callee = m.expr(e.a);
      if (callee.kind != py::ExprKind::Attribute ||
          (callee.name != "warn" && callee.name != "warning" && callee.name != "warning_once"))
        return;
      const auto args = m.args(e);
      if (args.empty() || args.front().kind != py::Argument::Kind::Positional) return;
      const std::string said = message_text(mod, args.front().value);
      for (const auto& p : tested) {
        const std::string& q = p;  // a parameter name: letters, digits and `_`, nothing to escape
        const std::regex re("(?:^|\\bthe\\s+|\\bparameter\\s+|\\bargument\\s+)[`'\"]" + q +
                                "[`'\"]\\s+(?:argument\\s+|parameter\\s+)?(?:is|has been)\\s+deprecated",
                            std::regex::icase | std::regex::ECMAScript);
        if (std::regex_search(said, re)) found.insert(p);
      }
    };
    auto no_stmt = [](const py::Stmt&) {};
    walk_stmts(m, s.body, no_stmt, warns);
  };
  auto no_expr = [](const py::Expr&) {};
  walk_stmts(m, fn.body, on_stmt, no_expr);
  return found;
}

// The signature of an `__init__`: its parameters after self, the old names its decorators take
// for them (`deprecate_kwarg`), and which the source deprecates.
ModuleScan::Init read_init(const Module& mod, const py::Stmt& fn) {
  const py::Module& m = mod.ir;
  ModuleScan::Init init;
  std::size_t first = !fn.params.empty() && (fn.params.front().name == "self" || fn.params.front().name == "cls");
  for (std::size_t i = first; i < fn.params.size(); ++i) {
    const py::Param& p = fn.params[i];
    ModuleScan::Param out;
    out.name = p.name;
    out.pos = static_cast<int>(i - first);
    out.kind = p.kind == py::Param::Kind::Star         ? "varargs"
               : p.kind == py::Param::Kind::DoubleStar ? "varkw"
               : p.keyword_only                        ? "kw"
                                                       : "pos";
    if (p.kind == py::Param::Kind::Normal) {
      if (p.default_value == py::kNoExpr)
        out.required = true;
      else
        out.has_default = literal(m, p.default_value, out.default_value);
    }
    init.params.push_back(std::move(out));
  }
  // Only *args/**kwargs, passed on to super().__init__: the signature is the base's.
  bool named = false, star = false;
  for (const auto& p : init.params) {
    named = named || p.kind == "pos" || p.kind == "kw";
    star = star || p.kind == "varargs" || p.kind == "varkw";
  }
  if (!named && star) {
    auto super_init = [&](const py::Expr& e) {
      if (e.kind != py::ExprKind::Call || e.a == py::kNoExpr) return;
      const py::Expr& callee = m.expr(e.a);
      if (callee.kind != py::ExprKind::Attribute || callee.name != "__init__" || callee.a == py::kNoExpr) return;
      const py::Expr& target = m.expr(callee.a);
      if (target.kind == py::ExprKind::Call && target.a != py::kNoExpr && m.expr(target.a).kind == py::ExprKind::Name &&
          m.expr(target.a).name == "super")
        init.forwards_all = true;
    };
    auto no_stmt = [](const py::Stmt&) {};
    walk_stmts(m, fn.body, no_stmt, super_init);
  }
  std::set<std::string> names;
  for (const auto& p : init.params) names.insert(p.name);
  std::set<std::string> deprecated;
  for (py::ExprId d : fn.decorators) {
    const py::Expr& call = m.expr(d);
    if (call.kind != py::ExprKind::Call) continue;
    const std::string name = last_name(m, d);
    const auto args = m.args(call);
    std::vector<py::ExprId> positional;
    for (const auto& a : args)
      if (a.kind == py::Argument::Kind::Positional) positional.push_back(a.value);
    auto keyword = [&](std::string_view k) {
      for (const auto& a : args)
        if (a.kind == py::Argument::Kind::Keyword && a.keyword == k) return a.value;
      return py::kNoExpr;
    };
    if (name == "_deprecate_arguments") {
      const py::ExprId list = keyword("deprecated_args");
      if (list == py::kNoExpr) continue;
      const py::Expr& l = m.expr(list);
      if (l.kind != py::ExprKind::List && l.kind != py::ExprKind::Tuple) continue;
      for (py::ExprId e : m.elts(l))
        if (m.expr(e).kind == py::ExprKind::Constant && m.constant(m.expr(e)).kind == Scalar::Kind::Str)
          deprecated.insert(m.constant(m.expr(e)).s);
    } else if (name == "deprecate_kwarg" && !positional.empty()) {
      const std::string old = string_value(m, positional.front());
      py::ExprId new_expr = keyword("new_name");
      if (new_expr == py::kNoExpr && positional.size() > 2) new_expr = positional[2];
      const std::string renamed = new_expr == py::kNoExpr ? "" : string_value(m, new_expr);
      if (old.empty()) continue;
      auto same = std::find_if(init.aliases.begin(), init.aliases.end(), [&](const auto& a) { return a.first == old; });
      if (names.count(old))
        deprecated.insert(old);
      else if (same != init.aliases.end())
        same->second = renamed;  // the last decorator for a name wins
      else
        init.aliases.emplace_back(old, renamed);
    }
  }
  for (const auto& p : deprecated_in_body(mod, fn, names)) deprecated.insert(p);
  for (auto& p : init.params) p.deprecated = deprecated.count(p.name) > 0;
  return init;
}

// `from X import a as b` statements at the top of a module or inside its `with`, `if` and `try`
// blocks.
void import_froms(const py::Module& m, const std::vector<py::StmtId>& body, std::vector<ModuleScan::ImportFrom>& out,
                  int depth = 0) {
  if (depth > 32) return;
  for (py::StmtId sid : body) {
    const py::Stmt& s = m.stmt(sid);
    if (s.kind == py::StmtKind::ImportFrom) {
      ModuleScan::ImportFrom i;
      i.level = s.level;
      i.module = s.module;
      for (const auto& n : s.names) i.names.emplace_back(n.name, n.asname);
      out.push_back(std::move(i));
    } else if (s.kind == py::StmtKind::With || s.kind == py::StmtKind::If || s.kind == py::StmtKind::Try) {
      import_froms(m, s.body, out, depth + 1);
      import_froms(m, s.orelse, out, depth + 1);
      for (const auto& h : s.handlers) import_froms(m, h, out, depth + 1);
    }
  }
}

}  // namespace

ModuleScan scan_module(const std::string& path, const std::string& text) {
  ModuleScan out;
  Module mod;
  mod.path = path;
  mod.text = text;
  if (text.empty()) return out;
  mod.ir = python::extract(mod.text, kNoFile).module;
  const py::Module& m = mod.ir;
  for (py::StmtId sid : m.body) {
    const py::Stmt& s = m.stmt(sid);
    if (s.kind != py::StmtKind::ClassDef) continue;
    bool is_enum = false;
    for (py::ExprId b : s.bases) {
      const std::string base = last_name(m, b);
      is_enum = is_enum || (base.size() >= 4 && base.compare(base.size() - 4, 4, "Enum") == 0);
    }
    if (is_enum) {
      if (auto values = enum_members(m, s); !values.empty()) out.enums.emplace_back(s.name, std::move(values));
      continue;
    }
    if (!is_dataclass(m, s)) continue;
    FoundClass found = read_class(mod, s, "");
    ModuleScan::Class c;
    c.name = s.name;
    c.bases = std::move(found.bases);
    for (auto& [name, info] : found.fields) {
      ModuleScan::Field f;
      f.info = std::move(info);
      f.info.source.clear();
      f.deprecated = found.deprecated.count(name) > 0;
      f.choices_from_help = found.choices_from_help.count(name) > 0;
      c.fields.emplace_back(name, std::move(f));
    }
    for (py::StmtId member : s.body) {
      const py::Stmt& fn = m.stmt(member);
      if (fn.kind == py::StmtKind::FunctionDef && fn.name == "__post_init__")
        enum_conversions(m, fn.body, c.enum_conversions);
    }
    out.dataclasses.push_back(std::move(c));
  }
  // Classes named `*Trainer` (not private): their bases as written and their own `__init__`.
  for (py::StmtId sid : m.body) {
    const py::Stmt& s = m.stmt(sid);
    if (s.kind != py::StmtKind::ClassDef || s.name.size() < 7 || s.name.front() == '_' ||
        s.name.compare(s.name.size() - 7, 7, "Trainer") != 0)
      continue;
    ModuleScan::Trainer t;
    t.name = s.name;
    for (py::ExprId b : s.bases) t.bases.push_back(text_of(mod, b));
    for (py::StmtId member : s.body) {
      const py::Stmt& fn = m.stmt(member);
      if (fn.kind == py::StmtKind::FunctionDef && fn.name == "__init__") {
        t.init = read_init(mod, fn);
        break;
      }
    }
    out.trainers.push_back(std::move(t));
  }
  if (!out.trainers.empty()) import_froms(m, m.body, out.imports);
  // `accelerate launch`'s options: every `launch_command_parser` function, at any depth.
  auto on_stmt = [&](const py::Stmt& s) {
    if (s.kind == py::StmtKind::FunctionDef && s.name == "launch_command_parser") launch_options(mod, s, out.options);
  };
  auto no_expr = [](const py::Expr&) {};
  walk_stmts(m, m.body, on_stmt, no_expr);
  return out;
}

}  // namespace trl
