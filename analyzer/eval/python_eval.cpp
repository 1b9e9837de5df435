#include "analyzer/eval/python_eval.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_set>

#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/project.hpp"
#include "analyzer/util/clean_path.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

using py::ExprId;
using py::ExprKind;
using py::StmtId;
using py::StmtKind;

constexpr int kMaxCallDepth = 12;
constexpr int kLoopPasses = 3;  // a loop body is run until its effect is stable, at most this often
constexpr int kMaxYamlDepth = 64;

struct Scope {
  std::map<std::string, ValueRef, std::less<>> vars;
  Scope* parent = nullptr;
  std::set<std::string, std::less<>> global_names;  // `global x` in this function: x lives in the module
  // How many branches whose outcome is not known were open when this scope was made (a branch
  // copies the scope it runs in; a call makes its own). A write to a scope made outside the
  // open branches happens on one path only: it is merged with what the scope held
  // (Exec::write_var), as the branch's own copy is merged when the branch ends.
  int born = 0;

  ValueRef lookup(std::string_view name) const {
    for (const Scope* s = this; s; s = s->parent) {
      auto it = s->vars.find(name);
      if (it != s->vars.end()) return it->second;
    }
    return nullptr;
  }
};

struct Frame {
  std::vector<ValueRef> returns;
  bool returned = false;  // an unconditional return was executed
};

struct ModuleEnv {
  FileId file = kNoFile;
  const py::Module* m = nullptr;
  Scope globals;
  enum class State { NotRun, Running, Done } state = State::NotRun;
};

// Drops every member whose name comes again later, keeping the relative order of the rest: the
// result of erasing a name and appending it anew for each member in turn, in linear time (a
// 160,000-key dict literal took 45 s one erase at a time).
void keep_last_of_each(std::vector<Member>& members) {
  if (members.size() < 2) return;
  std::unordered_set<std::string_view> seen;
  seen.reserve(members.size());
  std::vector<char> keep(members.size(), 0);
  for (std::size_t i = members.size(); i-- > 0;) keep[i] = seen.insert(members[i].name).second ? 1 : 0;
  std::size_t out = 0;
  for (std::size_t i = 0; i < members.size(); ++i)
    if (keep[i]) {
      if (out != i) members[out] = std::move(members[i]);
      ++out;
    }
  members.resize(out);
}

bool same_binding(const ValueRef& a, const ValueRef& b) {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  if (a->kind == PyValue::Kind::Const) return a->constant.kind == b->constant.kind && a->constant == b->constant;
  if (a->kind == PyValue::Kind::Unknown) return true;
  return false;
}

bool same_scope(const Scope& a, const Scope& b) {
  if (a.vars.size() != b.vars.size()) return false;
  for (const auto& [name, v] : a.vars) {
    auto it = b.vars.find(name);
    if (it == b.vars.end() || !same_binding(v, it->second)) return false;
  }
  return true;
}

}  // namespace

struct ProjectEvaluator::Impl {
  const Project& project;
  const Knowledge& k;
  std::map<FileId, std::unique_ptr<ModuleEnv>> imported;
  std::set<std::string> package_dirs;  // folders holding project Python files (namespace packages too)
  std::set<FileId> data_files;         // YAML and JSON files the summary being computed loaded
  // The folders that hold a project of their own other than the root: below it, those with a
  // `pyproject.toml`, `setup.py` or `setup.cfg` (a monorepo's sub-projects); the other projects
  // read together with it. A module imports by absolute name from its sub-project's folder and
  // `src/` first, as it does when that folder is analysed alone.
  std::vector<std::string> sub_projects;

  // What the summary being computed has seen.
  std::size_t steps = 0;
  Span cut_at;  // where the step budget ran out (invalid: it did not)
  int next_object = 0;
  std::map<int, ValueRef> objects;
  std::map<int, ValueRef> live;
  std::vector<TrainerUse> trainers;
  std::vector<ValueRef> accelerator_pcs;
  std::vector<ValueRef> parsers;
  std::vector<ModelLoad> model_loads;
  std::vector<Construction> constructions;
  bool parser_keeps_unknown = false;
  std::vector<const Patcher*> patchers;  // patchers imported so far (Knowledge::patcher_of_module)
  std::set<std::pair<FileId, StmtId>> executed;
  std::set<std::pair<FileId, StmtId>> active;
  // A call's summary: what it returned, `self` as it ended, the objects passed in that it changed
  // (Python passes objects by reference), and the first object id it could have made (an object
  // it returns made by the call is a new object at each call, not the memo's one).
  struct CallSummary {
    ValueRef result, self;
    std::vector<ValueRef> changed;
    int made_after = 0;
  };
  std::map<std::string, CallSummary> memo;  // call -> summary
  // The objects passed to the call that just returned and changed by it (CallSummary::changed),
  // for the caller to see through every name that holds them.
  std::vector<ValueRef> changed_by_call;
  // A call's summary holds for the module state it ran in: its key names the values of the
  // module globals the function's body mentions (fn_names), and the count of `module.NAME = v`
  // writes (a module's global read through an attribute).
  std::map<std::pair<FileId, StmtId>, std::vector<std::string>> fn_names;
  std::map<FileId, std::vector<std::pair<std::uint32_t, ExprId>>> name_exprs;  // per module, by offset
  std::size_t module_writes = 0;
  // Branches with an unknown outcome open right now, across modules and calls (Scope::born).
  int branch_depth = 0;
  // Memo keys name argument values by address: keep those values alive while the memo is, so
  // that no later value can reuse an address and hit an entry that is not its own (which
  // would make results depend on the allocator, and so on the thread count).
  std::vector<ValueRef> memo_args;

  Impl(const Project& p, const Knowledge& know) : project(p), k(know) {
    for (FileId id = 0; id < p.sources.size(); ++id) {
      const std::string& abs = p.sources.get(id).abs_path;
      const std::size_t slash = abs.rfind('/');
      if (slash == std::string::npos || slash == 0 || !is_clean_abs_path(abs)) continue;
      const std::string_view name = std::string_view(abs).substr(slash + 1);
      if (name != "pyproject.toml" && name != "setup.py" && name != "setup.cfg") continue;
      std::string dir = abs.substr(0, slash);
      if (dir != p.root) sub_projects.push_back(std::move(dir));
    }
    // The other projects read with this one (several named together).
    for (const auto& r : p.roots)
      if (r != p.root) sub_projects.push_back(r);
    std::sort(sub_projects.begin(), sub_projects.end());
    sub_projects.erase(std::unique(sub_projects.begin(), sub_projects.end()), sub_projects.end());
    std::string_view last_dir;  // the folder of the Python file before, when its folders are in
    for (FileId id = 0; id < p.sources.size(); ++id) {
      if (p.sources.get(id).kind != FileKind::Python) continue;
      const std::string& abs = p.sources.get(id).abs_path;
      if (is_clean_abs_path(abs) && abs != "/") {
        // Discovery's paths, on strings (building paths here was 5% of a run after one file of
        // 20,000 changed): the same folders, up to "/". Files of one folder mostly come one
        // after the other: the folder of the file before is not looked up again.
        const std::string_view parent(abs.data(), std::max<std::size_t>(abs.rfind('/'), 1));
        if (parent == last_dir) continue;
        last_dir = parent;
        std::string dir = clean_parent(abs);
        for (int i = 0; i < 64 && package_dirs.insert(dir).second && dir != "/"; ++i) dir = clean_parent(dir);
        continue;
      }
      last_dir = {};
      fs::path dir = fs::path(abs).parent_path();
      for (int i = 0; i < 64 && !dir.empty() && package_dirs.insert(dir.string()).second; ++i) {
        if (dir == dir.parent_path()) break;
        dir = dir.parent_path();
      }
    }
  }

  void reset() {
    steps = 0;
    import_depth = 0;
    cut_at = Span{};
    objects.clear();
    live.clear();
    trainers.clear();
    accelerator_pcs.clear();
    parsers.clear();
    model_loads.clear();
    constructions.clear();
    parser_keeps_unknown = false;
    patchers.clear();
    executed.clear();
    active.clear();
    memo.clear();
    memo_args.clear();
    changed_by_call.clear();
    module_writes = 0;
    branch_depth = 0;
    data_files.clear();
    imported.clear();  // import-time effects belong to the script that imports the module
  }

  const py::Module* module_of(FileId id) const {
    if (id == kNoFile || id >= project.facts.size() || !project.facts[id].loaded) return nullptr;
    const FileKind kind = project.sources.get(id).kind;
    // Python blocks of Markdown pages and notebook cells are modules too.
    if (kind != FileKind::Python && kind != FileKind::Markdown && kind != FileKind::Notebook) return nullptr;
    return &project.facts[id].python;
  }

  // The nearest sub-project folder above a file (empty: none below the project root).
  std::string_view sub_project_of(FileId from) const {
    if (from == kNoFile || sub_projects.empty()) return {};
    const std::string& file = project.sources.get(from).abs_path;
    std::string_view best;
    for (const auto& dir : sub_projects)
      if (dir.size() > best.size() && file.size() > dir.size() && file.compare(0, dir.size(), dir) == 0 &&
          file[dir.size()] == '/')
        best = dir;
    return best;
  }

  std::vector<fs::path> search_roots(FileId from) const {
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
  std::pair<FileId, bool> find_module(const fs::path& rel, FileId from, int level) const {
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
  std::optional<std::pair<FileId, bool>> find_module_fast(const std::string& rel, FileId from, int level) const {
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

  ModuleEnv* import_module(FileId id);
  // Modules being imported inside one another. A chain longer than kMaxImportDepth (Python
  // itself stops near its recursion limit) is cut: the deeper module's names are unknown, and
  // the evaluator's stack stays bounded (6,000 chained modules overflowed it).
  static constexpr int kMaxImportDepth = 200;
  int import_depth = 0;
};

namespace {

std::string dotted_to_path(std::string_view dotted) {
  std::string p(dotted);
  for (auto& c : p)
    if (c == '.') c = '/';
  return p;
}

class Exec {
 public:
  Exec(ProjectEvaluator::Impl& ev, ModuleEnv& env, bool is_main) : ev_(ev), env_(env), m_(*env.m), main_(is_main) {}

  void run_module() {
    Frame frame;
    exec_block(body(), env_.globals, frame, 0);
    record_live(env_.globals);
  }

  // A docs page read for one section (lines [first, second)): the top-level statements written
  // there, with the imports, functions and classes of the page's earlier blocks (what the
  // section's code may use); assignments and calls of other sections are not run.
  void only_lines(std::pair<std::uint32_t, std::uint32_t> lines) {
    section_body_.emplace();
    for (StmtId id : m_.body) {
      const py::Stmt& s = m_.stmt(id);
      const std::uint32_t line = s.span.start.line;
      const bool definition = s.kind == StmtKind::Import || s.kind == StmtKind::ImportFrom ||
                              s.kind == StmtKind::FunctionDef || s.kind == StmtKind::ClassDef;
      if ((line >= lines.first && line < lines.second) || (line < lines.first && definition))
        section_body_->push_back(id);
    }
  }

  // Runs functions nobody called from the top level but that are referenced (entry points
  // handed to fire/typer/hydra, decorated ones, or `main` itself), with unknown arguments.
  // Byte ranges of module-level blocks a known test skipped.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> dead_;
  void mark_dead(const std::vector<StmtId>& block) {
    if (block.empty()) return;
    dead_.push_back({m_.stmt(block.front()).span.begin, m_.stmt(block.back()).span.end});
  }
  // After sort_dead(): the ranges sorted and merged, so a lookup is a binary search (a chain of
  // 20,000 constant elifs leaves as many ranges).
  void sort_dead() {
    std::sort(dead_.begin(), dead_.end());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> merged;
    for (const auto& r : dead_) {
      if (!merged.empty() && r.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, r.second);
      else
        merged.push_back(r);
    }
    dead_ = std::move(merged);
  }
  bool in_dead_block(const Span& at) const {
    auto it = std::upper_bound(dead_.begin(), dead_.end(), std::make_pair(at.begin, std::uint32_t{0xffffffffu}));
    if (it == dead_.begin()) return false;
    --it;
    return at.begin >= it->first && at.end <= it->second;
  }

  void run_uncalled_entry_points() {
    sort_dead();
    std::set<std::string> referenced;
    for (const auto& e : m_.exprs)
      if (e.kind == ExprKind::Name && !in_dead_block(e.span)) referenced.insert(e.name);
    for (StmtId id : body()) {
      const auto& s = m_.stmt(id);
      if (s.kind != StmtKind::FunctionDef || ev_.executed.count({env_.file, id})) continue;
      if (s.name != "main" && !referenced.count(s.name) && s.decorators.empty()) continue;
      call_function(id, {}, {}, s.span, 0, nullptr, true);
    }
  }

  // `v` with every object made after `made_after` (inside containers too, 8 levels) copied under a
  // new id; `ids` maps old ids to new, so that one object held twice stays one.
  ValueRef fresh_objects(const ValueRef& v, int made_after, std::map<int, int>& ids, int depth) {
    if (!v || depth > 8) return v;
    if (v->kind == PyValue::Kind::Object) {
      if (v->object_id <= made_after) return v;
      auto copy = std::make_shared<PyValue>(*v);
      auto [at, added] = ids.try_emplace(v->object_id, 0);
      if (added) at->second = ++ev_.next_object;
      copy->object_id = at->second;
      for (auto& m : copy->members) m.value = fresh_objects(m.value, made_after, ids, depth + 1);
      return register_object(copy);
    }
    if (v->kind == PyValue::Kind::Dict || v->kind == PyValue::Kind::Tuple || v->kind == PyValue::Kind::List) {
      std::shared_ptr<PyValue> copy;
      auto own = [&]() -> PyValue& {
        if (!copy) copy = std::make_shared<PyValue>(*v);
        return *copy;
      };
      // A dict the call made: another call makes another one.
      if (v->kind == PyValue::Kind::Dict && v->object_id > made_after) {
        auto [at, added] = ids.try_emplace(v->object_id, 0);
        if (added) at->second = ++ev_.next_object;
        own().object_id = at->second;
      }
      for (std::size_t i = 0; i < v->items.size(); ++i)
        if (ValueRef f = fresh_objects(v->items[i], made_after, ids, depth + 1); f != v->items[i]) own().items[i] = f;
      for (std::size_t i = 0; i < v->members.size(); ++i)
        if (ValueRef f = fresh_objects(v->members[i].value, made_after, ids, depth + 1); f != v->members[i].value)
          own().members[i].value = f;
      if (copy) return copy;
    }
    return v;
  }

  // The names a function's body mentions (once per function): what of the module's globals a
  // call's summary depends on.
  const std::vector<std::string>& names_in(StmtId fid) {
    auto [it, fresh] = ev_.fn_names.try_emplace({env_.file, fid});
    if (fresh) {
      auto [index, built] = ev_.name_exprs.try_emplace(env_.file);
      if (built) {
        for (ExprId i = 0; i < m_.exprs.size(); ++i)
          if (m_.exprs[i].kind == ExprKind::Name) index->second.emplace_back(m_.exprs[i].span.begin, i);
        std::sort(index->second.begin(), index->second.end());
      }
      const Span& span = m_.stmt(fid).span;
      std::set<std::string> names;
      for (auto at =
               std::lower_bound(index->second.begin(), index->second.end(), std::make_pair(span.begin, ExprId{0}));
           at != index->second.end() && at->first < span.end; ++at)
        names.insert(m_.exprs[at->second].name);
      it->second.assign(names.begin(), names.end());
    }
    return it->second;
  }

  // Calls a function of this module. `final_self` receives `self` as it ended (methods).
  // `unknown_rest`: *args/**kwargs we could not expand were passed, so parameters not bound
  // explicitly may hold anything (not their defaults).
  ValueRef call_function(StmtId fid, std::vector<ValueRef> positional, const std::vector<Member>& keywords, Span site,
                         int depth, ValueRef* final_self, bool unknown_rest = false) {
    ev_.executed.insert({env_.file, fid});
    // Every call counts as a step, even of an empty function: calls in default values and
    // nested calls could otherwise multiply without executing a single statement.
    if (depth > kMaxCallDepth || ev_.active.count({env_.file, fid})) return make_unknown(site);
    if (++ev_.steps > kEvaluationSteps) {
      out_of_steps(site);
      return make_unknown(site);
    }
    const py::Stmt& f = m_.stmt(fid);
    // Summaries per call: the same function with the same argument values runs once.
    std::string key = std::to_string(env_.file) + ":" + std::to_string(fid) + (unknown_rest ? "*" : "") + "@" +
                      std::to_string(ev_.module_writes);
    for (const auto& name : names_in(fid))
      if (auto g = env_.globals.vars.find(name); g != env_.globals.vars.end())
        key += "|" + name + ":" + fingerprint(g->second);
    for (const auto& p : positional) key += "|" + fingerprint(p);
    for (const auto& kw : keywords) key += "|" + kw.name + "=" + fingerprint(kw.value);
    if (auto it = ev_.memo.find(key); it != ev_.memo.end()) {
      const auto& memo = it->second;
      if (final_self) *final_self = memo.self;
      ev_.changed_by_call = memo.changed;
      // Objects the call made, in what it returns (a config, a dict or tuple holding one): another
      // call makes other objects.
      std::map<int, int> ids;
      return fresh_objects(memo.result, memo.made_after, ids, 0);
    }
    const int made_after = ev_.next_object;
    Scope local;
    local.parent = &env_.globals;
    local.born = ev_.branch_depth;
    std::size_t pi = 0;
    for (const auto& p : f.params) {
      if (p.kind == py::Param::Kind::Star) {
        auto rest = std::make_shared<PyValue>();
        rest->kind = PyValue::Kind::Tuple;
        while (pi < positional.size()) rest->items.push_back(positional[pi++]);
        local.vars[p.name] = rest;
        continue;
      }
      if (p.kind == py::Param::Kind::DoubleStar) {
        auto rest = new_dict(site);
        for (const auto& kw : keywords) {
          bool named = false;
          for (const auto& q : f.params) named = named || (q.name == kw.name && q.kind == py::Param::Kind::Normal);
          if (!named) rest->members.push_back(kw);
        }
        local.vars[p.name] = rest;
        continue;
      }
      ValueRef v;
      for (const auto& kw : keywords)
        if (kw.name == p.name) v = kw.value;
      if (!v && !p.keyword_only && pi < positional.size()) v = positional[pi++];
      if (v) v = with_step(v, site, "passed to " + f.name + "() as `" + p.name + "`");
      if (!v && unknown_rest) v = make_unknown(site);
      if (!v && p.default_value != py::kNoExpr) v = eval(p.default_value, env_.globals, depth);
      local.vars[p.name] = v ? v : make_unknown(f.span);
    }
    // The objects passed in, to see which the body changed.
    std::vector<ValueRef> passed;
    for (const auto& [name, v] : local.vars)
      if (has_identity(v)) passed.push_back(v);
    ev_.active.insert({env_.file, fid});
    Frame frame;
    exec_block(f.body, local, frame, depth);
    ev_.active.erase({env_.file, fid});
    record_live(local);
    std::vector<ValueRef> changed;
    for (const auto& before : passed) {
      // The object's version at the end, through any local name that still holds it.
      ValueRef now;
      for (const auto& [name, v] : local.vars)
        if (same_identity(v, before) && v != before) now = v;
      if (now) changed.push_back(now);
    }
    ValueRef result;
    for (const auto& r : frame.returns) result = result ? merge_values(result, r) : r;
    if (!frame.returned) result = result ? merge_values(result, make_const(Scalar::null(), site)) : nullptr;
    if (!result)
      result = make_const(Scalar::null(), site);
    else
      result = with_step(result, site, "returned by " + f.name + "()");
    ValueRef self = local.lookup("self");
    ev_.memo[key] = {result, self, changed, made_after};
    for (const auto& p : positional) ev_.memo_args.push_back(p);
    for (const auto& kw : keywords) ev_.memo_args.push_back(kw.value);
    if (final_self) *final_self = self;
    ev_.changed_by_call = std::move(changed);
    return result;
  }

 private:
  static std::string fingerprint(const ValueRef& v) {
    if (!v) return "-";
    if (v->kind == PyValue::Kind::Const)
      return "c" + std::to_string(static_cast<int>(v->constant.kind)) + v->constant.repr();
    if (v->kind == PyValue::Kind::Unknown) return "?";
    return "p" + std::to_string(reinterpret_cast<std::uintptr_t>(v.get()));
  }

  // ---- statements ----
  void exec_block(const std::vector<StmtId>& body, Scope& scope, Frame& frame, int depth) {
    for (StmtId id : body) {
      if (frame.returned) return;
      if (++ev_.steps > kEvaluationSteps) {
        out_of_steps(m_.stmt(id).span);
        return;
      }
      exec(id, scope, frame, depth);
    }
  }

  // The first place the step budget ran out: the summary is cut short there.
  void out_of_steps(Span at) {
    if (!ev_.cut_at.valid()) ev_.cut_at = at.valid() ? at : Span{env_.file};
  }

  void exec(StmtId id, Scope& scope, Frame& frame, int depth) {
    const py::Stmt& s = m_.stmt(id);
    switch (s.kind) {
      case StmtKind::Expr: eval(s.value, scope, depth); break;
      case StmtKind::Assign: {
        if (s.value == py::kNoExpr) break;  // annotation only
        ValueRef v = eval(s.value, scope, depth);
        for (ExprId t : s.targets) assign(t, v, scope, depth);
        break;
      }
      case StmtKind::AugAssign: {
        if (s.targets.empty()) break;
        ValueRef cur = eval(s.targets[0], scope, depth);
        ValueRef rhs = eval(s.value, scope, depth);
        std::string op = s.op;
        if (!op.empty() && op.back() == '=') op.pop_back();
        ValueRef v = binop(op, cur, rhs, s.span);
        // `d |= other` updates the dict in place: every name holding it sees the change.
        const bool in_place = op == "|" && cur->kind == PyValue::Kind::Dict && v->kind == PyValue::Kind::Dict;
        if (in_place) {
          auto same = std::make_shared<PyValue>(*v);
          same->object_id = cur->object_id;
          v = same;
        }
        assign(s.targets[0], v, scope, depth);
        if (in_place) {
          rebind_object(v, scope);
          view_changed(cur, v, rhs->kind == PyValue::Kind::Dict && rhs->complete, s.span, scope);
        }
        break;
      }
      case StmtKind::Import:
        for (const auto& a : s.names) {
          note_patcher(a.name);
          if (!a.asname.empty()) {
            scope.vars[a.asname] = module_value(a.name, 0, a.span);
          } else {
            std::string root = a.name.substr(0, a.name.find('.'));
            scope.vars[root] = module_value(root, 0, a.span);
          }
        }
        break;
      case StmtKind::ImportFrom: import_from(s, scope); break;
      case StmtKind::FunctionDef: {
        auto f = std::make_shared<PyValue>();
        f->kind = PyValue::Kind::Function;
        f->function = id;
        f->module_file = env_.file;
        f->qualified = s.name;
        f->span = s.span;
        scope.vars[s.name] = f;
        break;
      }
      case StmtKind::ClassDef: scope.vars[s.name] = class_def(id, scope, depth); break;
      case StmtKind::If: {
        ValueRef test = eval(s.value, scope, depth);
        int truth = truth_of(test, s.value);
        // At module level each statement runs once: a branch skipped there never runs, and the
        // functions only it names are not entry points (run_uncalled_entry_points).
        if (truth != -1 && !scope.parent) mark_dead(truth == 1 ? s.orelse : s.body);
        if (truth == 1)
          exec_block(s.body, scope, frame, depth);
        else if (truth == 0)
          exec_block(s.orelse, scope, frame, depth);
        else
          branch(s.body, s.orelse, scope, frame, depth);
        break;
      }
      case StmtKind::For:
      case StmtKind::While: {
        // The body runs zero or more times: merge "not run" with each pass until stable.
        if (s.kind == StmtKind::For && !s.targets.empty()) {
          ValueRef iter = eval(s.value, scope, depth);
          ValueRef item = make_unknown(s.span);
          if ((iter->kind == PyValue::Kind::List || iter->kind == PyValue::Kind::Tuple) && !iter->items.empty()) {
            item = iter->items.front();
            for (std::size_t i = 1; i < iter->items.size(); ++i) item = merge_values(item, iter->items[i]);
          }
          assign(s.targets[0], item, scope, depth);
        }
        for (int pass = 0; pass < kLoopPasses; ++pass) {
          Scope before = scope;
          std::vector<StmtId> none;
          branch(s.body, none, scope, frame, depth);
          if (same_scope(before, scope)) break;
        }
        exec_block(s.orelse, scope, frame, depth);
        break;
      }
      case StmtKind::With:
        for (std::size_t i = 0; i < s.bases.size(); ++i) {
          ValueRef ctx = eval(s.bases[i], scope, depth);
          if (i < s.targets.size() && s.targets[i] != py::kNoExpr) assign(s.targets[i], ctx, scope, depth);
        }
        exec_block(s.body, scope, frame, depth);
        break;
      case StmtKind::Try: {
        exec_block(s.body, scope, frame, depth);
        for (const auto& h : s.handlers) {
          std::vector<StmtId> none;
          branch(h, none, scope, frame, depth);
        }
        exec_block(s.orelse, scope, frame, depth);
        break;
      }
      case StmtKind::Return:
        frame.returns.push_back(s.value == py::kNoExpr ? make_const(Scalar::null(), s.span)
                                                       : eval(s.value, scope, depth));
        frame.returned = true;
        break;
      case StmtKind::Other: break;
      case StmtKind::Global:
        if (scope.parent)  // at module level it changes nothing
          for (const auto& a : s.names) scope.global_names.insert(a.name);
        break;
      case StmtKind::Delete:
        for (ExprId t : s.targets) forget(t, scope, depth);
        break;
    }
  }

  // `del target`: a name is unbound, a dict key removed; an attribute deleted leaves the object's
  // fields unknown (reading it would raise; what the code then does is not followed).
  void forget(ExprId target, Scope& scope, int depth) {
    const py::Expr& t = m_.expr(target);
    switch (t.kind) {
      case ExprKind::Name: {
        Scope* where = &scope;
        if (scope.global_names.count(t.name))
          while (where->parent) where = where->parent;
        where->vars.erase(t.name);
        break;
      }
      case ExprKind::Tuple:
      case ExprKind::List:
        for (ExprId e : t.elts) forget(e, scope, depth);
        break;
      case ExprKind::Subscript: {
        ValueRef key = eval(t.b, scope, depth);
        update_at(
            t.a,
            [&](const ValueRef& cur) -> ValueRef {
              if (cur->kind != PyValue::Kind::Dict) return nullptr;
              if (key->kind != PyValue::Kind::Const || key->constant.kind != Scalar::Kind::Str)
                return opaque(cur, t.span);
              auto d = std::make_shared<PyValue>(*cur);
              std::erase_if(d->members, [&](const Member& m) { return m.name == key->constant.s; });
              return d;
            },
            scope, depth);
        break;
      }
      case ExprKind::Attribute: make_opaque(t.a, t.span, scope, depth); break;
      default: break;
    }
  }

  // An import of a library that patches TRL's classes (Knowledge::patcher_of_module): what the
  // script builds from here on is built with the patched classes.
  void note_patcher(std::string_view dotted) {
    if (const Patcher* p = ev_.k.patcher_of_module(dotted))
      if (std::find(ev_.patchers.begin(), ev_.patchers.end(), p) == ev_.patchers.end()) ev_.patchers.push_back(p);
  }

  void import_from(const py::Stmt& s, Scope& scope) {
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

  // The project is the library itself (huggingface/trl's own repository: `from trl import
  // SFTConfig` finds its `trl/` package): a name the knowledge describes under that package
  // keeps the knowledge class when the project defines a class of that name there (or binds it
  // in a way we cannot follow, as a lazy module does). Evaluating the library's own code would
  // only see a subclass of TrainingArguments and lose every fact about the config.
  bool library_itself(const std::string& qualified, const ValueRef& v, const std::string& name) const {
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

  ValueRef module_ref(const std::string& dotted, FileId file, Span span) {
    auto v = std::make_shared<PyValue>();
    v->kind = PyValue::Kind::Module;
    v->qualified = dotted;
    v->module_file = file;
    v->span = span;
    return v;
  }

  // `import a.b`: a project module (file or namespace folder) or a library symbol.
  ValueRef module_value(const std::string& dotted, int level, Span span) {
    auto [file, found] = ev_.find_module(dotted_to_path(dotted), env_.file, level);
    if (found) return module_ref(dotted, file, span);
    return symbol(dotted, span);
  }

  ValueRef class_def(StmtId id, Scope& scope, int depth) {
    const py::Stmt& s = m_.stmt(id);
    auto c = std::make_shared<PyValue>();
    c->kind = PyValue::Kind::Class;
    c->function = id;
    c->module_file = env_.file;
    c->qualified = s.name;
    c->span = s.span;
    for (ExprId d : s.decorators) {
      const py::Expr& e = m_.expr(d);
      const py::Expr& target = e.kind == ExprKind::Call ? m_.expr(e.a) : e;
      if ((target.kind == ExprKind::Name || target.kind == ExprKind::Attribute) && target.name == "dataclass")
        c->is_dataclass = true;
    }
    // A class derived from a library config keeps that config's role and fields.
    for (ExprId b : s.bases) {
      ValueRef base = eval(b, scope, depth);
      if (base->cls && !c->cls) c->cls = base->cls;
      if (base->kind == PyValue::Kind::Class) {
        if (!c->cls) c->cls = base->cls;
        for (const auto& f : base->dataclass_fields) c->dataclass_fields.push_back(f);
        for (const auto& m : base->members) c->members.push_back(m);
      }
    }
    Scope body;
    body.parent = &env_.globals;
    body.born = ev_.branch_depth;
    Frame frame;
    exec_block(s.body, body, frame, depth);
    for (StmtId sid : s.body) {
      const py::Stmt& st = m_.stmt(sid);
      if (st.kind == StmtKind::Assign && st.annotation != py::kNoExpr && st.targets.size() == 1 &&
          m_.expr(st.targets[0]).kind == ExprKind::Name) {
        const std::string& name = m_.expr(st.targets[0]).name;
        if (std::find(c->dataclass_fields.begin(), c->dataclass_fields.end(), name) == c->dataclass_fields.end())
          c->dataclass_fields.push_back(name);
      }
    }
    for (const auto& [name, v] : body.vars) c->members.push_back({name, v, v ? v->span : s.span});
    keep_last_of_each(c->members);
    return c;
  }

  void branch(const std::vector<StmtId>& a, const std::vector<StmtId>& b, Scope& scope, Frame& frame, int depth) {
    // Copying and merging the scope costs work of its own: charge it to the step budget so a
    // generated file with thousands of variables and branches stays bounded.
    ev_.steps += scope.vars.size() / 16;
    if (ev_.steps > kEvaluationSteps) {
      out_of_steps(!a.empty() ? m_.stmt(a.front()).span : !b.empty() ? m_.stmt(b.front()).span : Span{env_.file});
      return;
    }
    Scope left = scope, right = scope;
    Frame fa, fb;
    ++ev_.branch_depth;
    left.born = right.born = ev_.branch_depth;
    exec_block(a, left, fa, depth);
    exec_block(b, right, fb, depth);
    --ev_.branch_depth;
    for (auto& r : fa.returns) frame.returns.push_back(r);
    for (auto& r : fb.returns) frame.returns.push_back(r);
    if (fa.returned && fb.returned) frame.returned = true;
    // A path that returned does not reach the code after the branch.
    if (fa.returned && !fb.returned) {
      scope.vars = right.vars;
      return;
    }
    if (fb.returned && !fa.returned) {
      scope.vars = left.vars;
      return;
    }
    std::map<std::string, ValueRef, std::less<>> merged;
    for (const auto& [name, v] : left.vars) {
      auto it = right.vars.find(name);
      merged[name] = it == right.vars.end() ? v : merge_values(v, it->second);
    }
    for (const auto& [name, v] : right.vars)
      if (!merged.count(name)) merged[name] = v;
    scope.vars = std::move(merged);
    for (const auto& [name, v] : scope.vars)
      if (v && v->kind == PyValue::Kind::Object && ev_.objects.count(v->object_id)) ev_.objects[v->object_id] = v;
  }

  // 1 true, 0 false, -1 unknown. `if __name__ == "__main__":` follows how the module runs.
  int truth_of(const ValueRef& v, ExprId test) {
    const py::Expr& e = m_.expr(test);
    if (e.kind == ExprKind::Compare && e.elts.size() == 2) {
      const auto& l = m_.expr(e.elts[0]);
      const auto& r = m_.expr(e.elts[1]);
      if ((l.kind == ExprKind::Name && l.name == "__name__") || (r.kind == ExprKind::Name && r.name == "__name__")) {
        const bool eq = !e.ops.empty() && e.ops[0] == "==";
        return (main_ == eq) ? 1 : 0;
      }
    }
    if (v && v->kind == PyValue::Kind::Const) return v->constant.truthy() ? 1 : 0;
    if (v && (v->kind == PyValue::Kind::Object || v->kind == PyValue::Kind::Function ||
              v->kind == PyValue::Kind::Class || v->kind == PyValue::Kind::Module))
      return 1;
    return -1;
  }

  void assign(ExprId target, const ValueRef& v, Scope& scope, int depth) {
    const py::Expr& t = m_.expr(target);
    switch (t.kind) {
      case ExprKind::Name: bind_name(t.name, v, scope); break;
      case ExprKind::Tuple:
      case ExprKind::List: {
        const bool exact = v && (v->kind == PyValue::Kind::Tuple || v->kind == PyValue::Kind::List) &&
                           v->items.size() == t.elts.size();
        for (std::size_t i = 0; i < t.elts.size(); ++i)
          assign(t.elts[i], exact ? v->items[i] : make_unknown(t.span), scope, depth);
        break;
      }
      case ExprKind::Attribute: {
        // module.NAME = value: the module's global, for everything that reads it afterwards.
        if (const py::Expr& base = m_.expr(t.a); base.kind == ExprKind::Name) {
          ValueRef mod = scope.lookup(base.name);
          if (mod && mod->kind == PyValue::Kind::Module && mod->module_file != kNoFile) {
            if (ModuleEnv* env = ev_.import_module(mod->module_file)) {
              write_var(env->globals, t.name, v);
              ++ev_.module_writes;
            }
            break;
          }
        }
        // obj.field = value: a new version of the object, seen through every name holding it;
        // `h.args.packing = v` and `cfg["training"]["packing"] = v` update the containers on the
        // way to the name.
        update_at(
            t.a,
            [&](const ValueRef& cur) -> ValueRef {
              if (cur->kind != PyValue::Kind::Object && cur->kind != PyValue::Kind::Class) return nullptr;
              return with_member(cur, t.name, v, t.span);
            },
            scope, depth);
        break;
      }
      case ExprKind::Subscript: {
        ValueRef key = eval(t.b, scope, depth);
        // `obj.__dict__["k"] = v` and `vars(obj)["k"] = v` set the object's field `k` (the dict is
        // the object's own); a key not known may be any field.
        if (ExprId owner = dict_of_object(t.a); owner != py::kNoExpr) {
          if (key->kind == PyValue::Kind::Const && key->constant.kind == Scalar::Kind::Str)
            update_at(
                owner,
                [&](const ValueRef& cur) -> ValueRef {
                  return cur->kind == PyValue::Kind::Object ? with_member(cur, key->constant.s, v, t.span) : nullptr;
                },
                scope, depth);
          else
            make_opaque(owner, t.span, scope, depth);
          break;
        }
        const bool known_key = key->kind == PyValue::Kind::Const && key->constant.kind == Scalar::Kind::Str;
        ValueRef before, after;
        update_at(
            t.a,
            [&](const ValueRef& cur) -> ValueRef {
              if (cur->kind != PyValue::Kind::Dict) return nullptr;
              before = cur;
              if (known_key) return after = with_member(cur, key->constant.s, v, t.span);
              auto copy = std::make_shared<PyValue>(*cur);
              copy->complete = false;
              return after = copy;
            },
            scope, depth);
        // `d = vars(obj); d["packing"] = False` sets obj.packing.
        view_changed(before, after, known_key, t.span, scope);
        break;
      }
      default: break;
    }
  }

  // Replaces the value `target` names (a name, `a.b`, `a["k"]`, nested) with `change(value)`,
  // rebuilding each container on the way to the name. `change` returns null to leave it: a value
  // we do not model. A container on the way that is not followed (unknown, or a field not set
  // yet) leaves everything as it was.
  void update_at(ExprId target, const std::function<ValueRef(const ValueRef&)>& change, Scope& scope, int depth,
                 int level = 0) {
    const py::Expr& t = m_.expr(target);
    if (level > 32) return;
    if (t.kind == ExprKind::Name) {
      ValueRef cur = scope.lookup(t.name);
      if (!cur) return;
      ValueRef next = change(cur);
      if (!next) return;
      rebind(t.name, next, scope);
      rebind_object(next, scope);
      return;
    }
    if (t.kind == ExprKind::Attribute) {
      update_at(
          t.a,
          [&](const ValueRef& outer) -> ValueRef {
            if (outer->kind != PyValue::Kind::Object && outer->kind != PyValue::Kind::Class) return nullptr;
            const Member* m = outer->member(t.name);
            if (!m || !m->value) return nullptr;
            ValueRef inner = change(m->value);
            if (!inner) return nullptr;
            rebind_object(inner, scope);
            return with_member(outer, t.name, inner, m->set_at);
          },
          scope, depth, level + 1);
      return;
    }
    if (t.kind == ExprKind::Subscript) {
      ValueRef key = eval(t.b, scope, depth);
      if (key->kind != PyValue::Kind::Const || key->constant.kind != Scalar::Kind::Str) return;
      update_at(
          t.a,
          [&](const ValueRef& outer) -> ValueRef {
            if (outer->kind != PyValue::Kind::Dict) return nullptr;
            const Member* m = outer->member(key->constant.s);
            if (!m || !m->value) return nullptr;
            ValueRef inner = change(m->value);
            if (!inner) return nullptr;
            rebind_object(inner, scope);
            return with_member(outer, key->constant.s, inner, m->set_at);
          },
          scope, depth, level + 1);
    }
  }

  // Every write to a variable. In a scope made before a branch that is still open (a module
  // global from a function called in an `if`, the caller's names that an object changed in place
  // is seen through), the write may not happen: the value is merged with the old one.
  void write_var(Scope& where, const std::string& name, const ValueRef& v) {
    auto it = where.vars.find(name);
    if (where.born < ev_.branch_depth && it != where.vars.end() && it->second)
      it->second = merge_values(it->second, v);
    else if (it != where.vars.end())
      it->second = v;
    else
      where.vars[name] = v;
  }

  // `name = v`: a local of `scope`, or a module global where the function declared it `global`.
  void bind_name(const std::string& name, const ValueRef& v, Scope& scope) {
    Scope* target = &scope;
    if (scope.global_names.count(name))
      while (target->parent) target = target->parent;
    write_var(*target, name, v);
  }

  // Rebinds a name where it lives (a local, or a global read from a function).
  void rebind(const std::string& name, const ValueRef& v, Scope& scope) {
    bool done = false;
    for (Scope* s = &scope; s && !done; s = s->parent) {
      if (s->vars.count(name)) {
        write_var(*s, name, v);
        done = true;
      }
    }
    if (!done) write_var(scope, name, v);
    if (v->kind == PyValue::Kind::Object && ev_.objects.count(v->object_id)) ev_.objects[v->object_id] = v;
  }

  // A config object or a dict: what a change in place is seen through, by every name and
  // container holding it.
  static bool has_identity(const ValueRef& v) {
    return v && v->object_id != 0 && (v->kind == PyValue::Kind::Object || v->kind == PyValue::Kind::Dict);
  }
  static bool same_identity(const ValueRef& a, const ValueRef& b) {
    return has_identity(a) && has_identity(b) && a->kind == b->kind && a->object_id == b->object_id;
  }

  std::shared_ptr<PyValue> new_dict(Span span) {
    auto d = std::make_shared<PyValue>();
    d->kind = PyValue::Kind::Dict;
    d->span = span;
    d->object_id = ++ev_.next_object;
    return d;
  }

  // `held` with every version of `v` inside it (an entry of a dict, a field of an object, an item
  // of a list or tuple; 6 levels) replaced by `v`; null when none is. `done` keeps a container
  // held twice one; `budget` bounds the walk over large containers.
  static ValueRef with_version(const ValueRef& held, const ValueRef& v, int depth,
                               std::map<const PyValue*, ValueRef>& done, std::size_t& budget) {
    if (!held || held == v || budget == 0) return nullptr;
    --budget;
    if (same_identity(held, v)) return v;
    // `d = vars(obj)`: d is obj's own attribute dict, so it shows the object's new fields.
    if (held->kind == PyValue::Kind::Dict && held->view_of != 0 && v->kind == PyValue::Kind::Object &&
        held->view_of == v->object_id) {
      auto view = std::make_shared<PyValue>(*held);
      view->members = v->members;
      return view;
    }
    if (depth > 6) return nullptr;
    if (held->kind != PyValue::Kind::Dict && held->kind != PyValue::Kind::Object && held->kind != PyValue::Kind::List &&
        held->kind != PyValue::Kind::Tuple)
      return nullptr;
    if (auto it = done.find(held.get()); it != done.end()) return it->second;
    std::shared_ptr<PyValue> copy;
    auto own = [&]() -> PyValue& {
      if (!copy) copy = std::make_shared<PyValue>(*held);
      return *copy;
    };
    for (std::size_t i = 0; i < held->items.size(); ++i)
      if (ValueRef r = with_version(held->items[i], v, depth + 1, done, budget)) own().items[i] = r;
    for (std::size_t i = 0; i < held->members.size(); ++i)
      if (ValueRef r = with_version(held->members[i].value, v, depth + 1, done, budget)) own().members[i].value = r;
    done[held.get()] = copy;
    return copy;
  }

  // An object or dict changed in place: every name in reach that holds it, directly or inside a
  // container (an alias, the caller's argument, `kwargs = {"args": args}`), sees the new
  // version, as Python's references would.
  void rebind_object(const ValueRef& v, Scope& scope) {
    if (!has_identity(v)) return;
    std::vector<std::tuple<Scope*, std::string, ValueRef>> holders;
    std::map<const PyValue*, ValueRef> done;
    for (Scope* s = &scope; s; s = s->parent) {
      std::size_t budget = 1 << 14;
      for (auto& [name, held] : s->vars)
        if (ValueRef now = with_version(held, v, 0, done, budget)) holders.emplace_back(s, name, now);
      // A walk over every name and what they hold: charged (40,000 aliases).
      ev_.steps += ((1 << 14) - budget) / 16 + 1;
    }
    // Each holder is written (and, in a branch whose outcome is not known, merged with what it
    // held): charged by its size, so that thousands of holders written thousands of times end at
    // the step limit, not in minutes.
    const std::size_t merge_cost = 1 + (v->members.size() + v->items.size()) / 4;
    for (auto& [where, name, now] : holders) {
      ev_.steps += 1 + (now->members.size() + now->items.size()) / 4;
      if (where->born < ev_.branch_depth) ev_.steps += merge_cost;  // merged, `v` entry by entry
      write_var(*where, name, now);
    }
    if (v->kind == PyValue::Kind::Object && ev_.objects.count(v->object_id)) ev_.objects[v->object_id] = v;
  }

  // An object or dict after a change we cannot follow (setattr with a computed name,
  // vars(obj).update(...), a library method that sets fields, d.pop(unknown)): every field or
  // entry it had may differ, and any other may be set.
  static ValueRef opaque(const ValueRef& v, Span at) {
    auto copy = std::make_shared<PyValue>(*v);
    for (auto& m : copy->members) m.value = make_unknown(at);
    copy->complete = false;
    return copy;
  }

  // The object whose own attribute dict `e` is (`obj.__dict__`, `vars(obj)`), or kNoExpr.
  ExprId dict_of_object(ExprId e) const {
    const py::Expr& x = m_.expr(e);
    if (x.kind == ExprKind::Attribute && x.name == "__dict__") return x.a;
    if (x.kind == ExprKind::Call && x.args.size() == 1 && m_.expr(x.a).kind == ExprKind::Name &&
        m_.expr(x.a).name == "vars")
      return x.args[0].value;
    return py::kNoExpr;
  }

  // `vars(obj)` and `obj.__dict__`: the object's own attribute dict. Writes to it are writes to
  // the object (view_changed), and the object's changes show in it (with_version).
  ValueRef attribute_dict(const ValueRef& obj, Span span) {
    ValueRef d = as_dict(obj, span);
    if (obj->kind == PyValue::Kind::Object && obj->object_id != 0) {
      auto view = std::make_shared<PyValue>(*d);
      view->view_of = obj->object_id;
      return view;
    }
    return d;
  }

  // The current version of the object with identity `id` that a name in reach holds (directly or
  // in a container, 3 levels), or null.
  ValueRef current_object(int id, Scope& scope) const {
    if (auto it = ev_.objects.find(id); it != ev_.objects.end()) return it->second;
    std::size_t budget = 1 << 12;
    std::function<ValueRef(const ValueRef&, int)> find = [&](const ValueRef& v, int level) -> ValueRef {
      if (!v || budget == 0) return nullptr;
      --budget;
      if (v->kind == PyValue::Kind::Object && v->object_id == id) return v;
      if (level >= 3) return nullptr;
      for (const auto& m : v->members)
        if (ValueRef r = find(m.value, level + 1)) return r;
      for (const auto& i : v->items)
        if (ValueRef r = find(i, level + 1)) return r;
      return nullptr;
    };
    for (Scope* s = &scope; s; s = s->parent)
      for (const auto& [name, held] : s->vars)
        if (ValueRef r = find(held, 0)) return r;
    return nullptr;
  }

  // The attribute dict `before` of an object (`d = vars(obj)`) became `after` by a write through
  // the dict: the object changes with it. `exact`: `after` holds every change (entries set to
  // values we know); otherwise, or when an entry left (the attribute would fall back to the
  // class's), the object's fields are no longer known.
  void view_changed(const ValueRef& before, const ValueRef& after, bool exact, Span at, Scope& scope) {
    if (!before || before->kind != PyValue::Kind::Dict || before->view_of == 0) return;
    ValueRef obj = current_object(before->view_of, scope);
    if (!obj) return;
    if (exact && after && after->kind == PyValue::Kind::Dict)
      for (const auto& m : before->members)
        if (!after->member(m.name)) exact = false;
    ValueRef next = obj;
    if (!exact || !after) {
      next = opaque(obj, at);
    } else {
      for (const auto& m : after->members) {
        const Member* old = before->member(m.name);
        if (!old || old->value != m.value) next = with_member(next, m.name, m.value, m.set_at);
      }
      if (!after->complete && before->complete) next = opaque(next, at);
    }
    if (next == obj) return;
    rebind_object(next, scope);
  }

  // The object `target` names, changed in a way not followed (see opaque).
  void make_opaque(ExprId target, Span at, Scope& scope, int depth) {
    update_at(
        target,
        [&](const ValueRef& cur) -> ValueRef { return cur->kind == PyValue::Kind::Object ? opaque(cur, at) : nullptr; },
        scope, depth);
  }

  static ValueRef with_member(const ValueRef& obj, const std::string& name, const ValueRef& v, Span at) {
    auto copy = std::make_shared<PyValue>(*obj);
    std::erase_if(copy->members, [&](const Member& m) { return m.name == name; });
    copy->members.push_back({name, v, at});
    return copy;
  }

  void record_live(const Scope& scope) {
    for (const auto& [name, v] : scope.vars) {
      if (v && v->kind == PyValue::Kind::Object && v->cls && v->cls->role == ClassRole::TrainerConfig)
        ev_.live[v->object_id] = v;
    }
  }

  // ---- expressions ----
  ValueRef symbol(std::string qualified, Span span) {
    auto v = std::make_shared<PyValue>();
    v->kind = PyValue::Kind::Symbol;
    v->qualified = std::move(qualified);
    v->cls = ev_.k.find_qualified(v->qualified);
    v->span = span;
    v->patchers_bound = static_cast<std::uint8_t>(std::min<std::size_t>(ev_.patchers.size(), 255));
    return v;
  }

  ValueRef attribute(const ValueRef& base, const std::string& name, Span span) {
    switch (base->kind) {
      case PyValue::Kind::Symbol: return symbol(base->qualified + "." + name, span);
      case PyValue::Kind::Module: {
        ModuleEnv* mod = base->module_file != kNoFile ? ev_.import_module(base->module_file) : nullptr;
        ValueRef found_v = mod ? mod->globals.lookup(name) : nullptr;
        if (library_itself(base->qualified + "." + name, found_v, name))
          return symbol(base->qualified + "." + name, span);
        if (found_v) return with_step(found_v, span, "read from module " + base->qualified);
        auto [sub, found] = ev_.find_module(dotted_to_path(base->qualified + "." + name), env_.file, 0);
        if (found) return module_ref(base->qualified + "." + name, sub, span);
        return make_unknown(span);
      }
      case PyValue::Kind::Class:
        if (const Member* m = base->member(name)) return m->value;
        return make_unknown(span);
      case PyValue::Kind::Object: {
        if (name == "__dict__") return attribute_dict(base, span);
        if (const Member* m = base->member(name)) return m->value;
        if (base->user_class) {
          if (const Member* m = base->user_class->member(name)) {
            if (m->value && m->value->kind == PyValue::Kind::Function) return bind_self(m->value, base);
            return m->value;
          }
        }
        if (!base->from_parser && base->complete && base->cls)
          if (const FieldInfo* f = ev_.k.field(*base->cls, name); f && f->has_default)
            return make_const(f->default_value, span);
        if (base->from_parser && base->cls && ev_.k.field(*base->cls, name)) {
          // `model_args.attn_implementation`: whatever argv/--config give that field.
          auto v = std::make_shared<PyValue>();
          v->span = span;
          v->parser_field = name;
          return v;
        }
        return make_unknown(span);
      }
      default: return make_unknown(span);
    }
  }

  static ValueRef bind_self(const ValueRef& fn, const ValueRef& self) {
    auto b = std::make_shared<PyValue>(*fn);
    b->bound_positional.insert(b->bound_positional.begin(), self);
    return b;
  }

  ValueRef eval(ExprId id, Scope& scope, int depth) {
    if (id == py::kNoExpr) return make_unknown();
    const py::Expr& e = m_.expr(id);
    switch (e.kind) {
      case ExprKind::Constant: return make_const(e.constant, e.span);
      case ExprKind::Name: {
        if (ValueRef v = scope.lookup(e.name)) return v;
        static const std::set<std::string, std::less<>> builtins = {
            "dict", "int", "float", "str", "bool", "setattr", "getattr", "vars", "open", "len", "list", "tuple"};
        if (builtins.count(e.name)) return symbol(e.name, e.span);
        return make_unknown(e.span);
      }
      case ExprKind::Attribute: return attribute(eval(e.a, scope, depth), e.name, e.span);
      case ExprKind::Call: return call(e, scope, depth);
      case ExprKind::Dict: {
        auto d = new_dict(e.span);
        for (std::size_t i = 0; i < e.elts.size(); ++i) {
          ValueRef val = eval(e.values[i], scope, depth);
          if (e.elts[i] == py::kNoExpr) {
            merge_into(*d, val, e.span);
            continue;
          }
          ValueRef key = eval(e.elts[i], scope, depth);
          if (key->kind == PyValue::Kind::Const && key->constant.kind == Scalar::Kind::Str) {
            d->members.push_back({key->constant.s, val, m_.expr(e.elts[i]).span});
          } else if (key->kind != PyValue::Kind::Const) {
            d->complete = false;
          }
        }
        keep_last_of_each(d->members);
        return d;
      }
      case ExprKind::List:
      case ExprKind::Tuple:
      case ExprKind::Set: {
        auto l = std::make_shared<PyValue>();
        l->kind = e.kind == ExprKind::Tuple ? PyValue::Kind::Tuple : PyValue::Kind::List;
        l->span = e.span;
        for (ExprId x : e.elts) {
          if (m_.expr(x).kind == ExprKind::Starred) return make_unknown(e.span);
          l->items.push_back(eval(x, scope, depth));
        }
        return l;
      }
      case ExprKind::BinOp: return binop(e.name, eval(e.a, scope, depth), eval(e.b, scope, depth), e.span);
      case ExprKind::UnaryOp: {
        ValueRef a = eval(e.a, scope, depth);
        if (a->kind != PyValue::Kind::Const) return make_unknown(e.span);
        const Scalar& c = a->constant;
        if (e.name == "not") return make_const(Scalar::boolean(!c.truthy()), e.span);
        if (e.name == "-" && c.kind == Scalar::Kind::Int && c.i != std::numeric_limits<std::int64_t>::min())
          return make_const(Scalar::integer(-c.i), e.span);
        if (e.name == "-" && c.kind == Scalar::Kind::Float) return make_const(Scalar::floating(-c.f), e.span);
        if (e.name == "+") return a;
        return make_unknown(e.span);
      }
      case ExprKind::BoolOp: {
        // Python returns the deciding operand.
        ValueRef cur;
        for (ExprId x : e.elts) {
          cur = eval(x, scope, depth);
          if (cur->kind != PyValue::Kind::Const) return make_unknown(e.span);
          bool t = cur->constant.truthy();
          if ((e.name == "and" && !t) || (e.name == "or" && t)) return cur;
        }
        return cur ? cur : make_unknown(e.span);
      }
      case ExprKind::Compare: {
        if (e.elts.size() != 2 || e.ops.size() != 1) return make_unknown(e.span);
        ValueRef a = eval(e.elts[0], scope, depth), b = eval(e.elts[1], scope, depth);
        if (a->kind != PyValue::Kind::Const || b->kind != PyValue::Kind::Const) return make_unknown(e.span);
        const std::string& op = e.ops[0];
        if (op == "==" || op == "is") return make_const(Scalar::boolean(a->constant == b->constant), e.span);
        if (op == "!=" || op == "is not") return make_const(Scalar::boolean(!(a->constant == b->constant)), e.span);
        double x, y;
        if (!number(a->constant, x) || !number(b->constant, y)) return make_unknown(e.span);
        if (op == "<") return make_const(Scalar::boolean(x < y), e.span);
        if (op == "<=") return make_const(Scalar::boolean(x <= y), e.span);
        if (op == ">") return make_const(Scalar::boolean(x > y), e.span);
        if (op == ">=") return make_const(Scalar::boolean(x >= y), e.span);
        return make_unknown(e.span);
      }
      case ExprKind::NamedExpr: {
        // `(x := value)`: binds x in the enclosing function (PEP 572) and is the value.
        ValueRef v = eval(e.a, scope, depth);
        bind_name(e.name, v, scope);
        return v;
      }
      case ExprKind::IfExp: {
        ValueRef test = eval(e.b, scope, depth);
        if (test->kind == PyValue::Kind::Const)
          return test->constant.truthy() ? eval(e.a, scope, depth) : eval(e.c, scope, depth);
        // Either arm may run: what they bind (`:=`) is a write on one path.
        ++ev_.branch_depth;
        ValueRef yes = eval(e.a, scope, depth), no = eval(e.c, scope, depth);
        --ev_.branch_depth;
        return merge_values(yes, no);
      }
      case ExprKind::Subscript: {
        ValueRef base = eval(e.a, scope, depth);
        ValueRef key = eval(e.b, scope, depth);
        if (base->kind == PyValue::Kind::Dict && key->kind == PyValue::Kind::Const &&
            key->constant.kind == Scalar::Kind::Str) {
          if (const Member* m = base->member(key->constant.s)) return m->value;
        }
        if ((base->kind == PyValue::Kind::List || base->kind == PyValue::Kind::Tuple) &&
            key->kind == PyValue::Kind::Const && key->constant.kind == Scalar::Kind::Int) {
          std::int64_t i = key->constant.i;
          std::int64_t n = static_cast<std::int64_t>(base->items.size());
          if (i < 0) i += n;
          if (i >= 0 && i < n) return base->items[static_cast<std::size_t>(i)];
        }
        // A split of a dataset (`ds["train"]`), a row or a column: never None.
        if (base->kind == PyValue::Kind::Unknown && base->not_none) return not_none_value(e.span);
        return make_unknown(e.span);
      }
      default: return make_unknown(e.span);
    }
  }

  static bool number(const Scalar& s, double& out) {
    if (s.kind == Scalar::Kind::Int) return out = static_cast<double>(s.i), true;
    if (s.kind == Scalar::Kind::Float) return out = s.f, true;
    if (s.kind == Scalar::Kind::Bool) return out = s.b ? 1 : 0, true;
    return false;
  }

  ValueRef binop(const std::string& op, const ValueRef& a, const ValueRef& b, Span span) {
    if (op == "|" && a->kind == PyValue::Kind::Dict && b->kind == PyValue::Kind::Dict) {
      auto d = std::make_shared<PyValue>(*a);
      d->span = span;
      d->object_id = ++ev_.next_object;  // `a | b` is a new dict
      merge_into(*d, b, span);
      return d;
    }
    if (op == "/" && a->kind == PyValue::Kind::Path && b->kind == PyValue::Kind::Const &&
        b->constant.kind == Scalar::Kind::Str) {
      // pathlib: Path("configs") / "x.yaml"
      auto p = std::make_shared<PyValue>();
      p->kind = PyValue::Kind::Path;
      p->qualified = a->qualified.empty() ? b->constant.s : a->qualified + "/" + b->constant.s;
      p->span = span;
      return p;
    }
    if (a->kind != PyValue::Kind::Const || b->kind != PyValue::Kind::Const) return make_unknown(span);
    const Scalar &x = a->constant, &y = b->constant;
    if (op == "+" && x.kind == Scalar::Kind::Str && y.kind == Scalar::Kind::Str)
      return make_const(Scalar::string(x.s + y.s), span);
    const bool ints = (x.kind == Scalar::Kind::Int || x.kind == Scalar::Kind::Bool) &&
                      (y.kind == Scalar::Kind::Int || y.kind == Scalar::Kind::Bool);
    double p, q;
    if (!number(x, p) || !number(y, q)) return make_unknown(span);
    if (ints) {
      // Python's ints have no bound: a result past 64 bits is unknown here, not wrapped (and
      // INT64_MIN // -1 would trap with SIGFPE).
      std::int64_t i = x.kind == Scalar::Kind::Bool ? x.b : x.i, j = y.kind == Scalar::Kind::Bool ? y.b : y.i;
      std::int64_t r = 0;
      if (op == "+")
        return __builtin_add_overflow(i, j, &r) ? make_unknown(span) : make_const(Scalar::integer(r), span);
      if (op == "-")
        return __builtin_sub_overflow(i, j, &r) ? make_unknown(span) : make_const(Scalar::integer(r), span);
      if (op == "*")
        return __builtin_mul_overflow(i, j, &r) ? make_unknown(span) : make_const(Scalar::integer(r), span);
      if ((op == "//" || op == "%") && j != 0) {
        if (i == std::numeric_limits<std::int64_t>::min() && j == -1) return make_unknown(span);
        // Floor division and a remainder with the divisor's sign; neither step can overflow.
        const std::int64_t rem = i % j;
        const bool adjust = rem != 0 && ((rem < 0) != (j < 0));
        if (op == "//") return make_const(Scalar::integer(i / j - (adjust ? 1 : 0)), span);
        return make_const(Scalar::integer(adjust ? rem + j : rem), span);
      }
    }
    if (op == "+") return make_const(Scalar::floating(p + q), span);
    if (op == "-") return make_const(Scalar::floating(p - q), span);
    if (op == "*") return make_const(Scalar::floating(p * q), span);
    if (op == "/" && q != 0) return make_const(Scalar::floating(p / q), span);
    return make_unknown(span);
  }

  // `{**x}` / `dict.update(x)` / `x | y`: the entries of x join d; an unknown x makes d incomplete.
  static void merge_into(PyValue& d, const ValueRef& x, Span at) {
    if (x->kind == PyValue::Kind::Dict) {
      for (const auto& m : x->members)
        d.members.push_back({m.name, with_step(m.value, at, "merged into a dict"), m.set_at});
      keep_last_of_each(d.members);
      d.complete = d.complete && x->complete;
    } else {
      d.complete = false;
    }
  }

  struct Args {
    std::vector<ValueRef> positional;
    std::vector<Member> keywords;
    bool unknown_spread = false;  // *args or **kwargs we could not expand
  };

  Args eval_args(const py::Expr& call, Scope& scope, int depth) {
    Args out;
    for (const auto& a : call.args) {
      if (a.kind == py::Argument::Kind::Positional && a.value != py::kNoExpr) {
        // `SFTConfig(packing=True, ...)`: an example's `...` means "more arguments here". Any
        // keyword may be among them: the call is not complete, as with an unknown **kwargs.
        const py::Expr& x = m_.expr(a.value);
        if (x.kind == ExprKind::Unknown && x.name == "...") {
          out.unknown_spread = true;
          continue;
        }
      }
      ValueRef v = eval(a.value, scope, depth);
      switch (a.kind) {
        case py::Argument::Kind::Positional: out.positional.push_back(v); break;
        case py::Argument::Kind::Keyword: out.keywords.push_back({a.keyword, v, a.span}); break;
        case py::Argument::Kind::Star:
          if (v->kind == PyValue::Kind::List || v->kind == PyValue::Kind::Tuple)
            for (auto& it : v->items) out.positional.push_back(it);
          else
            out.unknown_spread = true;
          break;
        case py::Argument::Kind::DoubleStar:
          if (v->kind == PyValue::Kind::Dict) {
            for (const auto& m : v->members)
              out.keywords.push_back({m.name, with_step(m.value, a.span, "passed as **kwargs"), m.set_at});
            if (!v->complete) out.unknown_spread = true;
          } else {
            out.unknown_spread = true;
          }
          break;
      }
    }
    return out;
  }

  ValueRef call(const py::Expr& e, Scope& scope, int depth) {
    const py::Expr& fn = m_.expr(e.a);
    // Method calls on values we track.
    if (fn.kind == ExprKind::Attribute) {
      // vars(obj).update(...), obj.__dict__.update(...) and the like change obj's fields.
      static const std::set<std::string, std::less<>> kDictWrites = {"update", "setdefault",  "pop",        "popitem",
                                                                     "clear",  "__setitem__", "__delitem__"};
      if (kDictWrites.count(fn.name)) {
        if (const ExprId owner = dict_of_object(fn.a); owner != py::kNoExpr) {
          eval_args(e, scope, depth);
          make_opaque(owner, e.span, scope, depth);
          return make_unknown(e.span);
        }
      }
      ValueRef self = eval(fn.a, scope, depth);
      if (self->kind == PyValue::Kind::Unknown && self->not_none && dataset_method(fn.name)) {
        eval_args(e, scope, depth);
        return not_none_value(e.span);
      }
      // TrainingArguments' set_training, set_optimizer, set_dataloader, ... assign fields
      // (transformers training_args.py): what they set is not followed, so it is not known.
      if (self->kind == PyValue::Kind::Object && !self->user_class && self->cls &&
          self->cls->role == ClassRole::TrainerConfig && fn.name.rfind("set_", 0) == 0) {
        eval_args(e, scope, depth);
        make_opaque(fn.a, e.span, scope, depth);
        return make_unknown(e.span);
      }
      if (self->kind == PyValue::Kind::Object && self->cls && self->cls->role == ClassRole::ArgParser)
        return parser_method(*self, fn.name, e, scope, depth);
      if (self->kind == PyValue::Kind::Dict) return dict_method(self, fn, e, scope, depth);
      if (self->kind == PyValue::Kind::Path && (fn.name == "read_text" || fn.name == "open")) return self;
      if (self->kind == PyValue::Kind::Object && (fn.name == "to_dict" || fn.name == "__dict__")) {
        eval_args(e, scope, depth);
        return as_dict(self, e.span);
      }
      if (self->kind == PyValue::Kind::Object && self->user_class) {
        ValueRef method = attribute(self, fn.name, fn.span);
        if (method->kind == PyValue::Kind::Function) {
          Args args = eval_args(e, scope, depth);
          ValueRef final_self;
          ev_.changed_by_call.clear();
          ValueRef result = call_value(*method, args, e.span, depth, &final_self);
          std::vector<ValueRef> changed = std::move(ev_.changed_by_call);
          // A method that changed `self`: the caller's name now holds the new version.
          const py::Expr& recv = m_.expr(fn.a);
          if (final_self && final_self != self && final_self->kind == PyValue::Kind::Object &&
              recv.kind == ExprKind::Name)
            rebind(recv.name, final_self, scope);
          for (const auto& c : changed) rebind_object(c, scope);
          return result;
        }
      }
    }
    ValueRef callee = eval(e.a, scope, depth);
    if (callee->kind == PyValue::Kind::Function) {
      Args args = eval_args(e, scope, depth);
      ev_.changed_by_call.clear();
      ValueRef result = call_value(*callee, args, e.span, depth, nullptr);
      std::vector<ValueRef> changed = std::move(ev_.changed_by_call);
      for (const auto& c : changed) rebind_object(c, scope);
      return result;
    }
    if (callee->kind == PyValue::Kind::Class) return instantiate(callee, e, scope, depth);
    if (callee->kind != PyValue::Kind::Symbol) {
      eval_args(e, scope, depth);
      return make_unknown(e.span);
    }
    const std::string& q = callee->qualified;
    if (callee->cls) return construct(*callee, e, scope, depth);
    if (q == "dict") {
      Args args = eval_args(e, scope, depth);
      auto d = new_dict(e.span);
      if (!args.positional.empty()) merge_into(*d, args.positional[0], e.span);
      for (auto& kw : args.keywords) d->members.push_back(kw);
      keep_last_of_each(d->members);
      if (args.unknown_spread) d->complete = false;
      return d;
    }
    if (q == "setattr" && e.args.size() == 3) {
      const py::Expr& target = m_.expr(e.args[0].value);
      ValueRef name = eval(e.args[1].value, scope, depth);
      ValueRef v = eval(e.args[2].value, scope, depth);
      (void)target;
      // setattr(obj, "field", v) is obj.field = v; with a name we cannot read, any field may change.
      update_at(
          e.args[0].value,
          [&](const ValueRef& cur) -> ValueRef {
            if (cur->kind != PyValue::Kind::Object) return nullptr;
            if (name->kind == PyValue::Kind::Const && name->constant.kind == Scalar::Kind::Str)
              return with_member(cur, name->constant.s, v, e.span);
            return opaque(cur, e.span);
          },
          scope, depth);
      return make_const(Scalar::null(), e.span);
    }
    if (q == "getattr" && e.args.size() >= 2) {
      ValueRef obj = eval(e.args[0].value, scope, depth);
      ValueRef name = eval(e.args[1].value, scope, depth);
      if (name->kind == PyValue::Kind::Const && name->constant.kind == Scalar::Kind::Str)
        return attribute(obj, name->constant.s, e.span);
      return make_unknown(e.span);
    }
    if (is_dataset_loader(q)) {
      eval_args(e, scope, depth);
      return not_none_value(e.span);
    }
    if (is_model_load(q)) {
      Args args = eval_args(e, scope, depth);
      ModelLoad load;
      load.span = e.span;
      load.complete = !args.unknown_spread;
      for (const auto& kw : args.keywords)
        if (kw.name == "attn_implementation") load.attn_implementation = kw.value;
      ev_.model_loads.push_back(load);
      return make_unknown(e.span);
    }
    if ((q == "int" || q == "float" || q == "str" || q == "bool") && e.args.size() == 1 &&
        e.args[0].kind == py::Argument::Kind::Positional)
      return convert(q, eval(e.args[0].value, scope, depth), e.span);
    if (q == "vars") {
      Args args = eval_args(e, scope, depth);
      return args.positional.empty() ? make_unknown(e.span) : attribute_dict(args.positional[0], e.span);
    }
    if (q == "dataclasses.asdict" || q == "asdict") {
      Args args = eval_args(e, scope, depth);
      return args.positional.empty() ? make_unknown(e.span) : as_dict(args.positional[0], e.span);
    }
    if (q == "functools.partial" || q == "partial") {
      Args args = eval_args(e, scope, depth);
      if (args.positional.empty() || args.positional[0]->kind != PyValue::Kind::Function) return make_unknown(e.span);
      auto f = std::make_shared<PyValue>(*args.positional[0]);
      for (std::size_t i = 1; i < args.positional.size(); ++i) f->bound_positional.push_back(args.positional[i]);
      for (auto& kw : args.keywords) f->bound_keywords.push_back(kw);
      return f;
    }
    if (q == "dataclasses.replace" || q == "replace") {
      Args args = eval_args(e, scope, depth);
      if (args.positional.empty() || args.positional[0]->kind != PyValue::Kind::Object) return make_unknown(e.span);
      auto obj = std::make_shared<PyValue>(*args.positional[0]);
      obj->object_id = ++ev_.next_object;
      if (args.unknown_spread) {
        // replace(args, **overrides) with overrides we cannot read: any field may be replaced.
        for (auto& m : obj->members) m.value = make_unknown(e.span);
        obj->complete = false;
        // Nor do the values parsed from the launch's --config and flags survive.
        obj->from_parser = false;
        obj->parser_reads_config = false;
      }
      for (auto& kw : args.keywords) obj->members.push_back(kw);
      keep_last_of_each(obj->members);
      if (obj->cls && obj->cls->role == ClassRole::TrainerConfig) ev_.objects[obj->object_id] = obj;
      return obj;
    }
    if (q == "open" || q == "pathlib.Path" || q == "Path" || q == "pathlib.PurePath") {
      Args args = eval_args(e, scope, depth);
      if (args.positional.empty()) return make_unknown(e.span);
      const ValueRef& p = args.positional[0];
      auto out = std::make_shared<PyValue>();
      out->kind = PyValue::Kind::Path;
      out->span = e.span;
      if (p->kind == PyValue::Kind::Path)
        out->qualified = p->qualified;
      else if (p->kind == PyValue::Kind::Const && p->constant.kind == Scalar::Kind::Str)
        out->qualified = p->constant.s;
      else
        return make_unknown(e.span);
      return out;
    }
    if (q == "yaml.safe_load" || q == "yaml.load" || q == "yaml.full_load" || q == "omegaconf.OmegaConf.load") {
      Args args = eval_args(e, scope, depth);
      if (args.positional.empty()) return make_unknown(e.span);
      return load_yaml(args.positional[0], e.span, q == "omegaconf.OmegaConf.load");
    }
    if (q == "json.load" || q == "json.loads") {
      // json.load(open("x.json")), json.loads(Path("x.json").read_text())
      Args args = eval_args(e, scope, depth);
      if (args.positional.empty()) return make_unknown(e.span);
      return load_yaml(args.positional[0], e.span, false, FileKind::Json);
    }
    eval_args(e, scope, depth);
    return make_unknown(e.span);
  }

  ValueRef call_value(const PyValue& fn, const Args& args, Span site, int depth, ValueRef* final_self) {
    std::vector<ValueRef> positional = fn.bound_positional;
    for (auto& p : args.positional) positional.push_back(p);
    std::vector<Member> keywords = fn.bound_keywords;
    for (auto& kw : args.keywords) keywords.push_back(kw);
    if (fn.module_file == env_.file)
      return call_function(fn.function, std::move(positional), keywords, site, depth + 1, final_self,
                           args.unknown_spread);
    ModuleEnv* other = ev_.import_module(fn.module_file);
    if (!other) return make_unknown(site);
    Exec ex(ev_, *other, false);
    return ex.call_function(fn.function, std::move(positional), keywords, site, depth + 1, final_self,
                            args.unknown_spread);
  }

  // A user class called: a dataclass gets its fields from the arguments; other classes run
  // `__init__` with `self` bound. A class derived from a library config is that config.
  ValueRef instantiate(const ValueRef& cls, const py::Expr& e, Scope& scope, int depth) {
    Args args = eval_args(e, scope, depth);
    auto obj = new_object(cls->cls, cls->qualified, e.span);
    obj->user_class = cls;
    // A __post_init__ of the user's class (the library dataclass's __init__ calls it) may set any
    // field: the fields left unset are not known to keep their defaults.
    obj->complete = !args.unknown_spread && !(cls->cls && cls->member("__post_init__"));
    if (cls->is_dataclass) {
      std::size_t pi = 0;
      for (const auto& f : cls->dataclass_fields) {
        ValueRef v;
        Span at = e.span;
        for (const auto& kw : args.keywords)
          if (kw.name == f) v = kw.value, at = kw.set_at;
        if (!v && pi < args.positional.size()) v = args.positional[pi++];
        if (!v)
          if (const Member* m = cls->member(f)) v = m->value;
        if (v) obj->members.push_back({f, v, at});
      }
      // Keywords that are not our fields belong to the library base class.
      for (const auto& kw : args.keywords)
        if (!obj->member(kw.name)) obj->members.push_back(kw);
      // What __post_init__ assigns replaces what the arguments set.
      if (cls->cls)
        for (const auto& f : post_init_writes(ev_.project, *cls)) {
          std::erase_if(obj->members, [&](const Member& m) { return m.name == f; });
          obj->members.push_back({f, make_unknown(e.span), e.span});
        }
    } else if (const Member* init = cls->member("__init__"); init && init->value->kind == PyValue::Kind::Function) {
      ValueRef bound = bind_self(init->value, obj);
      ValueRef final_self;
      call_value(*bound, args, e.span, depth, &final_self);
      if (final_self && final_self->kind == PyValue::Kind::Object) {
        auto done = std::make_shared<PyValue>(*final_self);
        // A user __init__ of a library config hands its arguments on (super().__init__(**kwargs))
        // in ways not followed: the fields it did not assign itself are not known.
        if (cls->cls) done->complete = false;
        return register_object(done);
      }
    } else {
      for (const auto& kw : args.keywords) obj->members.push_back(kw);
    }
    return register_object(obj);
  }

  ValueRef register_object(const std::shared_ptr<PyValue>& obj) {
    if (obj->cls && obj->cls->role == ClassRole::TrainerConfig) ev_.objects[obj->object_id] = obj;
    return obj;
  }

  ValueRef as_dict(const ValueRef& obj, Span span) {
    if (obj->kind == PyValue::Kind::Dict) return obj;
    if (obj->kind != PyValue::Kind::Object) return make_unknown(span);
    auto d = new_dict(span);
    d->members = obj->members;
    // The dict also holds every field never set explicitly, whose values we do not track here.
    d->complete = false;
    return d;
  }

  // transformers/peft model classes loaded with from_pretrained (AutoModelForCausalLM,
  // Qwen2ForCausalLM, AutoModelForVision2Seq, ...), not tokenizers, processors or configs.
  // A value we do not model that is certainly not None.
  static ValueRef not_none_value(Span span) {
    auto v = std::make_shared<PyValue>();
    v->span = span;
    v->not_none = true;
    return v;
  }

  // The datasets library's loaders and builders: they return a dataset or raise (datasets
  // load.py load_dataset / load_from_disk, arrow_dataset.py Dataset.from_* and
  // dataset_dict.py DatasetDict.from_*; concatenate_datasets and interleave_datasets in
  // combine.py).
  static bool is_dataset_loader(const std::string& q) {
    static const std::set<std::string, std::less<>> kLoaders = {"datasets.load_dataset", "datasets.load_from_disk",
                                                                "datasets.concatenate_datasets",
                                                                "datasets.interleave_datasets"};
    if (kLoaders.count(q)) return true;
    for (std::string_view cls : {"datasets.Dataset.from_", "datasets.DatasetDict.from_",
                                 "datasets.IterableDataset.from_", "datasets.arrow_dataset.Dataset.from_"})
      if (q.rfind(cls, 0) == 0) return true;
    return false;
  }

  // Methods of Dataset, DatasetDict and IterableDataset that return a dataset (or a dict of
  // them), never None (datasets arrow_dataset.py, dataset_dict.py, iterable_dataset.py).
  static bool dataset_method(std::string_view name) {
    static const std::set<std::string, std::less<>> kMethods = {"train_test_split",
                                                                "select",
                                                                "map",
                                                                "filter",
                                                                "shuffle",
                                                                "remove_columns",
                                                                "rename_column",
                                                                "rename_columns",
                                                                "select_columns",
                                                                "with_format",
                                                                "with_transform",
                                                                "sort",
                                                                "flatten",
                                                                "cast",
                                                                "cast_column",
                                                                "add_column",
                                                                "take",
                                                                "skip",
                                                                "shard",
                                                                "class_encode_column",
                                                                "batch",
                                                                "unique"};
    return kMethods.count(name) != 0;
  }

  static bool is_model_load(const std::string& q) {
    constexpr std::string_view suffix = ".from_pretrained";
    if (q.size() <= suffix.size() || q.compare(q.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
    std::string cls = q.substr(0, q.size() - suffix.size());
    cls = cls.substr(cls.rfind('.') == std::string::npos ? 0 : cls.rfind('.') + 1);
    for (std::string_view no : {"Tokenizer", "Processor", "Config", "FeatureExtractor", "PeftModel"})
      if (cls.find(no) != std::string::npos) return false;
    return cls.find("Model") != std::string::npos;
  }

  ValueRef convert(const std::string& type, const ValueRef& v, Span span) {
    if (v->kind != PyValue::Kind::Const) return make_unknown(span);
    const Scalar& c = v->constant;
    try {
      if (type == "bool") return make_const(Scalar::boolean(c.truthy()), span);
      if (type == "int") {
        if (c.kind == Scalar::Kind::Int) return v;
        if (c.kind == Scalar::Kind::Float) return make_const(Scalar::integer(static_cast<std::int64_t>(c.f)), span);
        if (c.kind == Scalar::Kind::Bool) return make_const(Scalar::integer(c.b), span);
        if (c.kind == Scalar::Kind::Str) {
          std::size_t used = 0;
          long long x = std::stoll(c.s, &used);
          if (used == c.s.size()) return make_const(Scalar::integer(x), span);
        }
      }
      if (type == "float") {
        double x;
        if (number(c, x)) return make_const(Scalar::floating(x), span);
        if (c.kind == Scalar::Kind::Str) {
          std::size_t used = 0;
          double y = std::stod(c.s, &used);
          if (used == c.s.size()) return make_const(Scalar::floating(y), span);
        }
      }
      if (type == "str" && c.kind == Scalar::Kind::Str) return v;
    } catch (const std::exception&) {
    }
    return make_unknown(span);
  }

  ValueRef dict_method(const ValueRef& self, const py::Expr& fn, const py::Expr& e, Scope& scope, int depth) {
    Args args = eval_args(e, scope, depth);
    if (fn.name == "get" && !args.positional.empty() && args.positional[0]->kind == PyValue::Kind::Const) {
      if (const Member* m = self->member(args.positional[0]->constant.s)) return m->value;
      if (!self->complete) return make_unknown(e.span);
      return args.positional.size() > 1 ? args.positional[1] : make_const(Scalar::null(), e.span);
    }
    // A method that changes the dict in place: the new version goes where `fn.a` names it (a
    // name, `cfg["training"]`, `self.kwargs`), and to every other name holding the same dict.
    auto store = [&](const ValueRef& d) {
      update_at(
          fn.a, [&](const ValueRef& cur) -> ValueRef { return cur->kind == PyValue::Kind::Dict ? d : nullptr; }, scope,
          depth);
      // A write to `vars(obj)` held in a name: obj's fields change with it (pop, clear and the
      // writes not followed leave them unknown: view_changed).
      view_changed(self, d, d->complete || !self->complete, e.span, scope);
    };
    if (fn.name == "update" || fn.name == "setdefault") {
      auto d = std::make_shared<PyValue>(*self);
      if (fn.name == "setdefault") {
        if (args.positional.size() == 2 && args.positional[0]->kind == PyValue::Kind::Const &&
            !self->member(args.positional[0]->constant.s))
          d->members.push_back({args.positional[0]->constant.s, args.positional[1], e.span});
        else if (args.positional.empty() || args.positional[0]->kind != PyValue::Kind::Const)
          d->complete = false;
        store(d);
        return make_unknown(e.span);
      }
      if (!args.positional.empty()) merge_into(*d, args.positional[0], e.span);
      for (auto& kw : args.keywords) d->members.push_back(kw);
      keep_last_of_each(d->members);
      if (args.unknown_spread) d->complete = false;
      store(d);
      return make_const(Scalar::null(), e.span);
    }
    if (fn.name == "pop") {
      // d.pop("k"[, default]): the key leaves the dict; an unknown key may be any of them.
      if (args.positional.empty() || args.positional[0]->kind != PyValue::Kind::Const ||
          args.positional[0]->constant.kind != Scalar::Kind::Str) {
        store(opaque(self, e.span));
        return make_unknown(e.span);
      }
      const std::string& key = args.positional[0]->constant.s;
      ValueRef out = args.positional.size() > 1 ? args.positional[1] : make_unknown(e.span);
      if (const Member* m = self->member(key))
        out = m->value;
      else if (!self->complete)
        out = make_unknown(e.span);
      auto d = std::make_shared<PyValue>(*self);
      std::erase_if(d->members, [&](const Member& m) { return m.name == key; });
      store(d);
      return out;
    }
    if (fn.name == "clear") {
      auto d = std::make_shared<PyValue>(*self);
      d->members.clear();
      d->complete = true;
      store(d);
      return make_const(Scalar::null(), e.span);
    }
    if (fn.name == "popitem" || fn.name == "__setitem__" || fn.name == "__delitem__") {
      store(opaque(self, e.span));
      return make_unknown(e.span);
    }
    if (fn.name == "copy") {
      // A new dict with the same entries: a write to it leaves `self` as it was.
      auto d = std::make_shared<PyValue>(*self);
      d->object_id = ++ev_.next_object;
      return d;
    }
    return make_unknown(e.span);
  }

  std::shared_ptr<PyValue> new_object(const ClassInfo* cls, const std::string& qualified, Span span) {
    auto obj = std::make_shared<PyValue>();
    obj->kind = PyValue::Kind::Object;
    obj->cls = cls;
    obj->qualified = qualified;
    obj->object_id = ++ev_.next_object;
    obj->span = span;
    return obj;
  }

  ValueRef construct(const PyValue& callee, const py::Expr& e, Scope& scope, int depth) {
    const ClassInfo& cls = *callee.cls;
    Args args = eval_args(e, scope, depth);
    auto obj = new_object(&cls, callee.qualified, e.span);
    for (auto& kw : args.keywords) obj->members.push_back(kw);
    keep_last_of_each(obj->members);
    obj->complete = !args.unknown_spread;
    // The patchers that reach this class: all imported so far, except one that rebinds the
    // class by name after the name was bound here.
    std::vector<const Patcher*> patched_by;
    for (std::size_t i = 0; i < ev_.patchers.size(); ++i) {
      const PatchedClass* pc = ev_.k.patched_class(*ev_.patchers[i], cls);
      if (pc && (!pc->rebinds || i < callee.patchers_bound)) patched_by.push_back(ev_.patchers[i]);
    }
    ev_.constructions.push_back(
        {&cls, callee.qualified, e.span, args.keywords, args.unknown_spread, args.positional, std::move(patched_by)});
    switch (cls.role) {
      case ClassRole::TrainerConfig: ev_.objects[obj->object_id] = obj; break;
      case ClassRole::Trainer: {
        TrainerUse use;
        use.trainer = &cls;
        use.span = e.span;
        if (const Member* m = obj->member("model"))
          use.model = m->value;
        else if (!args.positional.empty())
          use.model = args.positional[0];
        if (const Member* a = obj->member("args"))
          use.args = a->value;
        else if (args.positional.size() > 1)
          use.args = args.positional[1];
        ev_.trainers.push_back(use);
        break;
      }
      case ClassRole::Accelerator:
        if (const Member* pc = obj->member("parallelism_config")) ev_.accelerator_pcs.push_back(pc->value);
        break;
      case ClassRole::ArgParser: {
        // TrlParser((ScriptArguments, SFTConfig, ModelConfig)) or HfArgumentParser(SFTConfig)
        ValueRef types = !args.positional.empty() ? args.positional[0] : nullptr;
        if (const Member* dt = obj->member("dataclass_types")) types = dt->value;
        if (types && (types->kind == PyValue::Kind::Tuple || types->kind == PyValue::Kind::List))
          obj->parser_classes = types->items;
        else if (types)
          obj->parser_classes.push_back(types);
        ev_.parsers.push_back(obj);
        break;
      }
      default: break;
    }
    return obj;
  }

  // HfArgumentParser.parse_args_into_dataclasses / TrlParser.parse_args_and_config read argv and
  // --config; parse_yaml_file / parse_json_file read a file we can see (values passed unchanged:
  // transformers hf_argparser.py parse_dict, no type conversion).
  ValueRef parser_method(const PyValue& parser, const std::string& method, const py::Expr& e, Scope& scope, int depth) {
    Args args = eval_args(e, scope, depth);
    bool from_argv = method == "parse_args_and_config" || method == "parse_args_into_dataclasses";
    // Arguments given in the call (`args=[...]`, the first parameter of both) replace argv: what
    // the launch line passes does not reach the dataclasses, and what the list holds is not
    // followed here (TrlParser.parse_args_and_config: `args = list(args) if args is not None else
    // sys.argv[1:]`, trl/scripts/utils.py v0.13.0..v1.9.0; HfArgumentParser likewise, transformers
    // hf_argparser.py). The dataclasses are then unknown.
    bool explicit_args = false;
    if (from_argv) {
      if (!args.positional.empty() &&
          !(args.positional[0]->is_const() && args.positional[0]->constant.kind == Scalar::Kind::Null))
        explicit_args = true;
      for (const auto& kw : args.keywords)
        if (kw.name == "args" && !(kw.value->is_const() && kw.value->constant.kind == Scalar::Kind::Null))
          explicit_args = true;
    }
    const bool from_file = method == "parse_yaml_file" || method == "parse_json_file" || method == "parse_dict";
    if (!from_argv && !from_file) return make_unknown(e.span);
    ValueRef data;
    if (from_file) {
      // The first parameter: parse_yaml_file(yaml_file), parse_json_file(json_file), parse_dict(args).
      static const std::pair<std::string_view, std::string_view> first_param[] = {
          {"parse_yaml_file", "yaml_file"}, {"parse_json_file", "json_file"}, {"parse_dict", "args"}};
      ValueRef arg = args.positional.empty() ? nullptr : args.positional[0];
      for (const auto& [m, param] : first_param)
        for (const auto& kw : args.keywords)
          if (!arg && m == method && kw.name == param) arg = kw.value;
      if (!arg) return make_unknown(e.span);
      data = method == "parse_dict"        ? arg
             : method == "parse_json_file" ? load_yaml(arg, e.span, true, FileKind::Json)
                                           : load_yaml(arg, e.span, true);
      if (data->kind != PyValue::Kind::Dict) return make_unknown(e.span);
    }
    auto tuple = std::make_shared<PyValue>();
    tuple->kind = PyValue::Kind::Tuple;
    tuple->span = e.span;
    for (const auto& c : parser.parser_classes) {
      const ClassInfo* info = c->cls;
      if ((c->kind == PyValue::Kind::Symbol || c->kind == PyValue::Kind::Class) && (info || c->is_dataclass)) {
        auto obj = new_object(info, c->qualified, e.span);
        if (c->kind == PyValue::Kind::Class) obj->user_class = c;
        if (explicit_args) {
          obj->complete = false;
        } else if (from_argv) {
          obj->from_parser = true;
          // Only parse_args_and_config reads `--config` (TrlParser, trl/scripts/utils.py);
          // HfArgumentParser.parse_args_into_dataclasses leaves the flag to argparse, which
          // rejects it (transformers hf_argparser.py: "Some specified arguments are not used").
          obj->parser_reads_config = method == "parse_args_and_config";
        } else {
          for (const auto& m : data->members) {
            bool mine =
                (info && ev_.k.field(*info, m.name)) ||
                (c->kind == PyValue::Kind::Class && std::find(c->dataclass_fields.begin(), c->dataclass_fields.end(),
                                                              m.name) != c->dataclass_fields.end());
            if (mine) obj->members.push_back(m);
          }
          obj->complete = data->complete;
        }
        tuple->items.push_back(register_object(obj));
      } else {
        tuple->items.push_back(make_unknown(e.span));
      }
    }
    for (const auto& kw : args.keywords) {
      if (kw.name == "return_remaining_strings" && !(kw.value->is_const() && !kw.value->constant.truthy())) {
        tuple->items.push_back(make_unknown(e.span));
        ev_.parser_keeps_unknown = true;
      }
      // TrlParser.parse_args_and_config(fail_with_unknown_args=False) hands unknown keys back too;
      // anything but a known False may do so.
      if (kw.name == "fail_with_unknown_args" && !(kw.value->is_const() && kw.value->constant.truthy()))
        ev_.parser_keeps_unknown = true;
    }
    return tuple;
  }

  // yaml.safe_load(open("x.yaml")) and friends: the YAML file's values, with spans into it.
  // `source` is a Path (or open file); `path_string` also accepts a plain string as the path
  // (OmegaConf.load, parse_yaml_file take file names; yaml.safe_load would parse a string itself).
  // `kind` is the kind of file the loader reads: JSON loaders take only the JSON files Python
  // names (read with JSON semantics), YAML loaders only YAML files.
  ValueRef load_yaml(const ValueRef& source, Span site, bool path_string = false, FileKind kind = FileKind::Yaml) {
    std::string path;
    if (source->kind == PyValue::Kind::Path)
      path = source->qualified;
    else if (path_string && source->kind == PyValue::Kind::Const && source->constant.kind == Scalar::Kind::Str)
      path = source->constant.s;
    if (path.empty()) return make_unknown(site);
    std::vector<std::string> bases{ev_.project.root,
                                   fs::path(ev_.project.sources.get(env_.file).abs_path).parent_path().string()};
    std::error_code ec;
    bases.push_back(fs::current_path(ec).string());
    FileId id = ev_.project.resolve(path, bases);
    if (id != kNoFile) ev_.data_files.insert(id);
    if (id == kNoFile || ev_.project.sources.get(id).kind != kind || ev_.project.facts[id].yaml.empty() ||
        !ev_.project.facts[id].yaml.front().root)
      return make_unknown(site);
    std::size_t budget = 10000;
    ValueRef v = from_yaml(*ev_.project.facts[id].yaml.front().root, 0, budget);
    // Building the value is work of its own: charged to the step budget, so that thousands of
    // loads of a large file stay bounded like thousands of statements.
    ev_.steps += (10000 - budget) / 16;
    return with_step(v, site, "loaded from " + ev_.project.sources.get(id).path);
  }

  static ValueRef from_yaml(const YamlNode& n, int depth, std::size_t& budget) {
    if (depth > kMaxYamlDepth || budget == 0) return make_unknown(n.span);
    --budget;
    switch (n.kind) {
      case YamlNode::Kind::Scalar: return make_const(n.scalar, n.span);
      case YamlNode::Kind::Mapping: {
        auto d = std::make_shared<PyValue>();
        d->kind = PyValue::Kind::Dict;
        d->span = n.span;
        for (const auto& e : n.entries)
          d->members.push_back({e.key, from_yaml(*e.value, depth + 1, budget), e.key_span});
        keep_last_of_each(d->members);
        return d;
      }
      case YamlNode::Kind::Sequence: {
        auto l = std::make_shared<PyValue>();
        l->kind = PyValue::Kind::List;
        l->span = n.span;
        for (const auto& i : n.items) l->items.push_back(from_yaml(*i, depth + 1, budget));
        return l;
      }
      default: return make_unknown(n.span);
    }
  }

  const std::vector<StmtId>& body() const { return section_body_ ? *section_body_ : m_.body; }

  ProjectEvaluator::Impl& ev_;
  ModuleEnv& env_;
  const py::Module& m_;
  bool main_;
  std::optional<std::vector<StmtId>> section_body_;  // only_lines: the statements run
};

}  // namespace

ModuleEnv* ProjectEvaluator::Impl::import_module(FileId id) {
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
    Exec(*this, *slot, false).run_module();
    --import_depth;
    slot->state = ModuleEnv::State::Done;
  }
  return slot.get();
}

ProjectEvaluator::ProjectEvaluator(const Project& project, const Knowledge& knowledge)
    : impl_(std::make_unique<Impl>(project, knowledge)) {}

ProjectEvaluator::~ProjectEvaluator() = default;

FileId ProjectEvaluator::resolve_import(std::string_view dotted, int level, FileId from) const {
  return impl_->find_module(dotted_to_path(dotted), from, level).first;
}

ScriptSummary ProjectEvaluator::summarize(FileId file, std::optional<std::pair<std::uint32_t, std::uint32_t>> lines) {
  Impl& ev = *impl_;
  ev.reset();
  ScriptSummary out;
  const py::Module* m = ev.module_of(file);
  if (!m) return out;
  ModuleEnv main;
  main.file = file;
  main.m = m;
  main.state = ModuleEnv::State::Running;
  Exec ex(ev, main, true);
  if (lines) ex.only_lines(*lines);
  ex.run_module();
  ex.run_uncalled_entry_points();
  out.trainers = ev.trainers;
  out.accelerator_parallelism = ev.accelerator_pcs;
  out.parsers = ev.parsers;
  out.model_loads = ev.model_loads;
  out.constructions = ev.constructions;
  out.parser_keeps_unknown = ev.parser_keeps_unknown;
  std::set<int> seen;
  for (const auto& t : ev.trainers) {
    if (t.args && t.args->kind == PyValue::Kind::Object && seen.insert(t.args->object_id).second)
      out.trainer_configs.push_back(t.args);
  }
  // A script that builds a config and no trainer (one that hands it to a helper of its own) is
  // judged on the configs it holds at the end. When a trainer was built with args we could not
  // follow (`copy.deepcopy(base)`, a function of another library), those configs may never reach
  // it: nothing is judged.
  if (out.trainer_configs.empty() && ev.trainers.empty()) {
    for (const auto& [id, v] : ev.live) out.trainer_configs.push_back(v);
  }
  out.is_entry = !ev.trainers.empty() || !out.trainer_configs.empty();
  if (ev.cut_at.valid()) {
    // The rest of the script is unseen: keep that it trains, drop what it configures.
    out.cut_short = ev.cut_at;
    out.trainer_configs.clear();
    out.trainers.clear();
    out.accelerator_parallelism.clear();
    out.parsers.clear();
    out.model_loads.clear();
    out.constructions.clear();
    out.parser_keeps_unknown = false;
  }
  std::set<FileId> read(ev.data_files.begin(), ev.data_files.end());
  for (const auto& [id, env] : ev.imported) read.insert(id);
  read.erase(file);
  out.modules.assign(read.begin(), read.end());
  return out;
}

namespace {

// `self.X = ...` / `self.X += ...` anywhere in `body` (nested blocks included).
void collect_self_writes(const py::Module& m, const std::vector<StmtId>& body, std::set<std::string>& out, int depth) {
  if (depth > 64) return;
  for (StmtId id : body) {
    const py::Stmt& st = m.stmt(id);
    if (st.kind == StmtKind::FunctionDef || st.kind == StmtKind::ClassDef) continue;
    if (st.kind == StmtKind::Assign || st.kind == StmtKind::AugAssign)
      for (ExprId t : st.targets) {
        if (t == py::kNoExpr) continue;
        const py::Expr& x = m.expr(t);
        if (x.kind == ExprKind::Attribute && x.a != py::kNoExpr && m.expr(x.a).kind == ExprKind::Name &&
            m.expr(x.a).name == "self")
          out.insert(x.name);
      }
    collect_self_writes(m, st.body, out, depth + 1);
    collect_self_writes(m, st.orelse, out, depth + 1);
    for (const auto& h : st.handlers) collect_self_writes(m, h, out, depth + 1);
  }
}

}  // namespace

std::set<std::string> post_init_writes(const Project& project, const PyValue& cls) {
  std::set<std::string> out;
  const Member* post = cls.member("__post_init__");
  if (!post || !post->value || post->value->kind != PyValue::Kind::Function) return out;
  const FileId file = post->value->module_file;
  if (file == kNoFile || file >= project.facts.size()) return out;
  const py::Module& m = project.facts[file].python;
  const StmtId fid = post->value->function;
  if (fid >= m.stmts.size()) return out;
  collect_self_writes(m, m.stmt(fid).body, out, 0);
  return out;
}

ScriptSummary evaluate_module(const py::Module& module, const Knowledge& knowledge) {
  Project project;
  project.root = "/nonexistent-trl-lint-root";
  auto file = std::make_unique<SourceFile>();
  file->path = "__main__.py";
  file->abs_path = project.root + "/__main__.py";
  file->kind = FileKind::Python;
  file->index_lines();
  project.sources.add(std::move(file));
  project.facts.resize(1);
  project.facts[0].python = module;
  project.facts[0].loaded = true;
  ProjectEvaluator ev(project, knowledge);
  return ev.summarize(0);
}

}  // namespace trl
