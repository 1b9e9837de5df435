// The Python evaluator's entry points (python_eval.hpp): a script summarised (run as
// `__main__`, then its uncalled entry points, and what it built collected into a
// ScriptSummary), the state one evaluation keeps (ProjectEvaluator::Impl), and the fields a
// dataclass's `__post_init__` assigns. The interpreter itself is in python_eval_*.cpp, the
// models of library calls in models/ (python_eval_internal.hpp lists the files).
#include "analyzer/eval/python_eval.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
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

using py::ExprId;
using py::ExprKind;
using py::StmtId;
using py::StmtKind;
using pyeval::dotted_to_path;
using pyeval::Exec;
using pyeval::ModuleEnv;

ProjectEvaluator::Impl::Impl(const Project& p, const Knowledge& know) : project(p), k(know) {
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

void ProjectEvaluator::Impl::reset() {
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

const py::Module* ProjectEvaluator::Impl::module_of(FileId id) const {
  if (id == kNoFile || id >= project.facts.size() || !project.facts[id].loaded) return nullptr;
  const FileKind kind = project.sources.get(id).kind;
  // Python blocks of Markdown pages and notebook cells are modules too.
  if (kind != FileKind::Python && kind != FileKind::Markdown && kind != FileKind::Notebook) return nullptr;
  return &project.facts[id].python;
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
