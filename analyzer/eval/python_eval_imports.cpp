// Imports in the Python evaluator: which project file a dotted module name is (the importing
// file's folder, its sub-project and `src/`, configured source folders, the project root),
// running a project module once at its first import, and the `import` / `from ... import`
// statements, which bind project modules and their names, or library symbols.
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/eval/python_eval_internal.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/project.hpp"
#include "analyzer/util/clean_path.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace pyeval {

std::string dotted_to_path(std::string_view dotted) {
  std::string p(dotted);
  for (auto& c : p)
    if (c == '.') c = '/';
  return p;
}

}  // namespace pyeval

// The nearest sub-project folder above a file (empty: none below the project root).
std::string_view ProjectEvaluator::Impl::sub_project_of(FileId from) const {
  if (from == kNoFile || sub_projects.empty()) return {};
  const std::string& file = project.sources.get(from).abs_path;
  std::string_view best;
  for (const auto& dir : sub_projects)
    if (dir.size() > best.size() && file.size() > dir.size() && file.compare(0, dir.size(), dir) == 0 &&
        file[dir.size()] == '/')
      best = dir;
  return best;
}

std::vector<fs::path> ProjectEvaluator::Impl::search_roots(FileId from) const {
  std::vector<fs::path> roots;
  if (from != kNoFile) roots.push_back(fs::path(project.sources.get(from).abs_path).parent_path());
  if (const std::string_view sub = sub_project_of(from); !sub.empty()) {
    roots.push_back(fs::path(std::string(sub)));
    roots.push_back(fs::path(std::string(sub)) / "src");
  }
  if (from != kNoFile)
    if (auto it = project.configured_src_roots.find(from); it != project.configured_src_roots.end())
      for (const auto& folder : it->second) roots.push_back(fs::path(folder));
  roots.push_back(fs::path(project.root));
  roots.push_back(fs::path(project.root) / "src");
  return roots;
}

// A module path (`a/b`) under one of the roots: a file, a package, or a namespace folder.
// Returns the file (kNoFile for a namespace folder) and whether anything was found.
std::pair<FileId, bool> ProjectEvaluator::Impl::find_module(const fs::path& rel, FileId from, int level) const {
  if (auto fast = find_module_fast(rel.native(), from, level)) return *fast;
  std::vector<fs::path> roots;
  if (level > 0) {
    if (from == kNoFile) return {kNoFile, false};
    fs::path base = fs::path(project.sources.get(from).abs_path).parent_path();
    for (int i = 1; i < level; ++i) base = base.parent_path();
    roots.push_back(base);
  } else {
    roots = search_roots(from);
  }
  for (const auto& root : roots) {
    fs::path p = (root / rel).lexically_normal();
    FileId f = project.sources.find_abs((p.string() + ".py"));
    if (f != kNoFile) return {f, true};
    f = project.sources.find_abs((p / "__init__.py").string());
    if (f != kNoFile) return {f, true};
    if (!rel.empty() && package_dirs.count(p.string())) return {kNoFile, true};
  }
  return {kNoFile, false};
}

// find_module on strings, for the common case where that gives the same answer as the path
// arithmetic above (which was 5% of a run at the open-r1 size): absolute paths without `.`
// or `..` parts, doubled or trailing slashes (discovery's are), and a module path made of
// plain names. Anything else: nullopt, and the general way is taken.
std::optional<std::pair<FileId, bool>> ProjectEvaluator::Impl::find_module_fast(const std::string& rel, FileId from,
                                                                                int level) const {
  if (rel.empty() || rel.front() == '/' || rel.back() == '/' || rel.find('.') != std::string::npos ||
      rel.find("//") != std::string::npos)
    return std::nullopt;
  // (A file with configured `src` folders takes the general way.)
  if (from != kNoFile && project.configured_src_roots.count(from)) return std::nullopt;
  std::string roots[5];
  std::size_t n = 0;
  if (level > 0) {
    if (from == kNoFile) return std::pair<FileId, bool>{kNoFile, false};
    const std::string& file = project.sources.get(from).abs_path;
    if (!is_clean_abs_path(file)) return std::nullopt;
    std::string base = clean_parent(file);
    for (int i = 1; i < level; ++i) base = clean_parent(base);
    roots[n++] = std::move(base);
  } else {
    if (from != kNoFile) {
      const std::string& file = project.sources.get(from).abs_path;
      if (!is_clean_abs_path(file)) return std::nullopt;
      roots[n++] = clean_parent(file);
    }
    if (const std::string_view sub = sub_project_of(from); !sub.empty()) {
      roots[n++] = std::string(sub);
      roots[n++] = std::string(sub) + "/src";
    }
    if (!is_clean_abs_path(project.root)) return std::nullopt;
    roots[n++] = project.root;
    roots[n++] = project.root == "/" ? std::string("/src") : project.root + "/src";
  }
  std::string p;
  for (std::size_t i = 0; i < n; ++i) {
    p.assign(roots[i]);
    if (p != "/") p.push_back('/');
    p.append(rel);
    const std::size_t stem = p.size();
    p.append(".py");
    if (FileId f = project.sources.find_abs(p); f != kNoFile) return std::pair<FileId, bool>{f, true};
    p.resize(stem);
    p.append("/__init__.py");
    if (FileId f = project.sources.find_abs(p); f != kNoFile) return std::pair<FileId, bool>{f, true};
    p.resize(stem);
    if (package_dirs.count(p)) return std::pair<FileId, bool>{kNoFile, true};
  }
  return std::pair<FileId, bool>{kNoFile, false};
}

pyeval::ModuleEnv* ProjectEvaluator::Impl::import_module(FileId id) {
  const py::Module* m = module_of(id);
  if (!m) return nullptr;
  auto& slot = imported[id];
  if (!slot) {
    slot = std::make_unique<ModuleEnv>();
    slot->file = id;
    slot->m = m;
  }
  // A module being imported (a cycle) is seen with the names it has bound so far, as in Python.
  if (slot->state == ModuleEnv::State::NotRun) {
    if (import_depth >= kMaxImportDepth) return nullptr;
    slot->state = ModuleEnv::State::Running;
    ++import_depth;
    pyeval::Exec(*this, *slot, false).run_module();
    --import_depth;
    slot->state = ModuleEnv::State::Done;
  }
  return slot.get();
}

namespace pyeval {

// An import of a library that patches TRL's classes (Knowledge::patcher_of_module): what the
// script builds from here on is built with the patched classes.
void Exec::note_patcher(std::string_view dotted) {
  if (const Patcher* p = ev_.k.patcher_of_module(dotted))
    if (std::find(ev_.patchers.begin(), ev_.patchers.end(), p) == ev_.patchers.end()) ev_.patchers.push_back(p);
}

void Exec::import_from(const py::Stmt& s, Scope& scope) {
  if (s.module == "__future__") return;
  const std::string dotted = s.module;
  if (s.level == 0) {
    note_patcher(dotted);
    for (const auto& a : s.names) note_patcher(dotted + "." + a.name);
  }
  auto [file, found] = s.level > 0 || !dotted.empty() ? ev_.find_module(dotted_to_path(dotted), env_.file, s.level)
                                                      : std::pair<FileId, bool>{kNoFile, false};
  if (!found) {
    if (s.level > 0) {
      for (const auto& a : s.names) scope.vars[a.asname.empty() ? a.name : a.asname] = make_unknown(a.span);
      return;
    }
    // A library: names are symbols, recognised later through the knowledge base.
    for (const auto& a : s.names)
      scope.vars[a.asname.empty() ? a.name : a.asname] = symbol(dotted + "." + a.name, a.span);
    return;
  }
  ModuleEnv* mod = file != kNoFile ? ev_.import_module(file) : nullptr;
  if (s.star) {
    if (!mod) return;
    // `__all__` when it is a known list of names, else every public name.
    std::set<std::string> names;
    if (ValueRef all = mod->globals.lookup("__all__");
        all && (all->kind == PyValue::Kind::List || all->kind == PyValue::Kind::Tuple)) {
      for (const auto& n : all->items)
        if (n->kind == PyValue::Kind::Const && n->constant.kind == Scalar::Kind::Str) names.insert(n->constant.s);
    } else {
      for (const auto& [n, v] : mod->globals.vars)
        if (!n.empty() && n[0] != '_') names.insert(n);
    }
    for (const auto& n : names)
      if (ValueRef v = mod->globals.lookup(n)) scope.vars[n] = with_step(v, s.span, "imported from " + dotted);
    return;
  }
  for (const auto& a : s.names) {
    const std::string bind = a.asname.empty() ? a.name : a.asname;
    ValueRef v = mod ? mod->globals.lookup(a.name) : nullptr;
    if (s.level == 0 && library_itself(dotted + "." + a.name, v, a.name)) {
      scope.vars[bind] = symbol(dotted + "." + a.name, a.span);
      continue;
    }
    // (Not in a library's own repository: its lazy names the knowledge does not describe stay
    // unknown there, as they did when its whole package was evaluated for each script.)
    if (!v && mod && !(s.level == 0 && library_package(dotted))) v = lazy_export(*mod, a.name);
    if (!v) {
      // `from pkg import submodule`
      auto [sub, sub_found] =
          ev_.find_module(dotted_to_path(dotted.empty() ? a.name : dotted + "/" + a.name), env_.file, s.level);
      if (sub_found) v = module_ref(dotted.empty() ? a.name : dotted + "." + a.name, sub, a.span);
    }
    scope.vars[bind] =
        v ? with_step(v, a.span, "imported from " + (dotted.empty() ? "." : dotted)) : make_unknown(a.span);
  }
}

bool Exec::library_package(std::string_view dotted) const {
  const std::string_view root = dotted.substr(0, dotted.find('.'));
  for (const auto& [name, cls] : ev_.k.classes())
    if (cls.package == root) return true;
  return false;
}

ValueRef Exec::lazy_export(ModuleEnv& mod, const std::string& name) {
  if (!mod.m) return nullptr;
  const py::Module& m = *mod.m;
  auto is_type_checking = [&](py::ExprId id) {
    if (id == py::kNoExpr) return false;
    const py::Expr& e = m.expr(id);
    return (e.kind == py::ExprKind::Name || e.kind == py::ExprKind::Attribute) && e.name == "TYPE_CHECKING";
  };
  for (py::StmtId id : m.body) {
    const py::Stmt& branch = m.stmt(id);
    if (branch.kind != py::StmtKind::If || !is_type_checking(branch.value)) continue;
    for (py::StmtId inner : branch.body) {
      const py::Stmt& imp = m.stmt(inner);
      if (imp.kind != py::StmtKind::ImportFrom || imp.star) continue;
      for (const auto& a : imp.names)
        if ((a.asname.empty() ? a.name : a.asname) == name) {
          Exec(ev_, mod, false).import_from(imp, mod.globals);
          return mod.globals.lookup(name);
        }
    }
  }
  return nullptr;
}

// The project is the library itself (huggingface/trl's own repository: `from trl import
// SFTConfig` finds its `trl/` package): a name the knowledge describes under that package
// keeps the knowledge class when the project defines a class of that name there (or binds it
// in a way we cannot follow, as a lazy module does). Evaluating the library's own code would
// only see a subclass of TrainingArguments and lose every fact about the config.
bool Exec::library_itself(const std::string& qualified, const ValueRef& v, const std::string& name) const {
  if (!ev_.k.find_qualified(qualified)) return false;
  std::function<bool(const ValueRef&, int)> defines = [&](const ValueRef& x, int depth) {
    if (!x || x->kind == PyValue::Kind::Unknown) return true;
    if (x->kind == PyValue::Kind::Class) return x->qualified == name;
    if (x->kind == PyValue::Kind::OneOf && depth < 8) {
      for (const auto& alt : x->items)
        if (!defines(alt, depth + 1)) return false;
      return true;
    }
    return false;
  };
  return defines(v, 0);
}

ValueRef Exec::module_ref(const std::string& dotted, FileId file, Span span) {
  auto v = std::make_shared<PyValue>();
  v->kind = PyValue::Kind::Module;
  v->qualified = dotted;
  v->module_file = file;
  v->span = span;
  return v;
}

// `import a.b`: a project module (file or namespace folder) or a library symbol.
ValueRef Exec::module_value(const std::string& dotted, int level, Span span) {
  auto [file, found] = ev_.find_module(dotted_to_path(dotted), env_.file, level);
  if (found) return module_ref(dotted, file, span);
  return symbol(dotted, span);
}

}  // namespace pyeval
}  // namespace trl
