// The internals the Python evaluator's files share (not for use outside analyzer/eval/): the
// scopes and modules it runs, the state of one evaluation (ProjectEvaluator::Impl), and Exec,
// which runs one module's statements and expressions. The evaluator's files:
//   python_eval.cpp              the entry points (python_eval.hpp) and the state of one evaluation
//   python_eval_imports.cpp      module resolution and import statements
//   python_eval_statements.cpp   statements, control flow, classes, entry points
//   python_eval_expressions.cpp  expressions, attribute reads, operators
//   python_eval_objects.cpp      assignments, objects and dicts changed in place, aliasing
//   python_eval_calls.cpp        calls: arguments, user functions and classes, dispatch to the
//                                library models
//   models/*.cpp                 the library models: what calls of library functions, classes
//                                and methods do (models/library_models.hpp)
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/eval/py_value.hpp"
#include "analyzer/eval/python_eval.hpp"
#include "analyzer/facts/python_ir.hpp"

namespace trl {
namespace pyeval {

constexpr int kMaxCallDepth = 12;
constexpr int kLoopPasses = 3;  // a loop body is run until its effect is stable, at most this often

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

// The arguments of a call, evaluated (Exec::eval_args).
struct Args {
  std::vector<ValueRef> positional;
  std::vector<Member> keywords;
  bool unknown_spread = false;  // *args or **kwargs we could not expand
};

// Drops every member whose name comes again later, keeping the relative order of the rest.
void keep_last_of_each(std::vector<Member>& members);

// `a.b.c` -> `a/b/c`.
std::string dotted_to_path(std::string_view dotted);

// The number a constant stands for (int, float, bool); false for other constants.
bool number(const Scalar& s, double& out);

// A value we do not model that is certainly not None.
ValueRef not_none_value(Span span);

}  // namespace pyeval

struct ProjectEvaluator::Impl {
  using ModuleEnv = pyeval::ModuleEnv;

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
  std::set<std::pair<FileId, py::StmtId>> executed;
  std::set<std::pair<FileId, py::StmtId>> active;
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
  std::map<std::pair<FileId, py::StmtId>, std::vector<std::string>> fn_names;
  std::map<FileId, std::vector<std::pair<std::uint32_t, py::ExprId>>> name_exprs;  // per module, by offset
  std::size_t module_writes = 0;
  // Branches with an unknown outcome open right now, across modules and calls (Scope::born).
  int branch_depth = 0;
  // Memo keys name argument values by address: keep those values alive while the memo is, so
  // that no later value can reuse an address and hit an entry that is not its own (which
  // would make results depend on the allocator, and so on the thread count).
  std::vector<ValueRef> memo_args;

  Impl(const Project& p, const Knowledge& know);

  // Forgets what the previous summary saw.
  void reset();

  // The Python IR of a project file (a script, a docs page's or a notebook's blocks), or null.
  const py::Module* module_of(FileId id) const;

  // ---- module resolution (python_eval_imports.cpp) ----
  std::string_view sub_project_of(FileId from) const;
  std::vector<std::filesystem::path> search_roots(FileId from) const;
  std::pair<FileId, bool> find_module(const std::filesystem::path& rel, FileId from, int level) const;
  std::optional<std::pair<FileId, bool>> find_module_fast(const std::string& rel, FileId from, int level) const;

  // Runs a project module once (at its first import) and returns its environment; null when
  // the file holds no Python or the import chain is too deep.
  ModuleEnv* import_module(FileId id);
  // Modules being imported inside one another. A chain longer than kMaxImportDepth (Python
  // itself stops near its recursion limit) is cut: the deeper module's names are unknown, and
  // the evaluator's stack stays bounded (6,000 chained modules overflowed it).
  static constexpr int kMaxImportDepth = 200;
  int import_depth = 0;
};

namespace pyeval {

// Runs one module's code: its statements, expressions and calls, against the state of the
// evaluation (ev_). Internal to the evaluator: its members are public for the library models
// (models/), which evaluate arguments, make objects and record what the script builds.
class Exec {
 public:
  Exec(ProjectEvaluator::Impl& ev, ModuleEnv& env, bool is_main) : ev_(ev), env_(env), m_(*env.m), main_(is_main) {}

  // ---- modules, statements and control flow (python_eval_statements.cpp) ----
  void run_module();
  void only_lines(std::pair<std::uint32_t, std::uint32_t> lines);
  void run_uncalled_entry_points();
  void mark_dead(const std::vector<py::StmtId>& block);
  void sort_dead();
  bool in_dead_block(const Span& at) const;
  void exec_block(const std::vector<py::StmtId>& body, Scope& scope, Frame& frame, int depth);
  void out_of_steps(Span at);
  void exec(py::StmtId id, Scope& scope, Frame& frame, int depth);
  void forget(py::ExprId target, Scope& scope, int depth);
  ValueRef class_def(py::StmtId id, Scope& scope, int depth);
  void branch(const std::vector<py::StmtId>& a, const std::vector<py::StmtId>& b, Scope& scope, Frame& frame,
              int depth);
  int truth_of(const ValueRef& v, py::ExprId test);
  void record_live(const Scope& scope);

  // ---- imports (python_eval_imports.cpp) ----
  void note_patcher(std::string_view dotted);
  void import_from(const py::Stmt& s, Scope& scope);
  // A name a lazy package hands out: bound nowhere when its `__init__.py` runs, imported there
  // under `if TYPE_CHECKING:` for type checkers alone. Runs that one import in the package's
  // module; null when there is none.
  ValueRef lazy_export(ModuleEnv& mod, const std::string& name);
  // True when `dotted`'s top package is a library the knowledge describes (trl, transformers,
  // accelerate): a project importing it by absolute name from its own folder is that library.
  bool library_package(std::string_view dotted) const;
  bool library_itself(const std::string& qualified, const ValueRef& v, const std::string& name) const;
  ValueRef module_ref(const std::string& dotted, FileId file, Span span);
  ValueRef module_value(const std::string& dotted, int level, Span span);

  // ---- expressions (python_eval_expressions.cpp) ----
  ValueRef eval(py::ExprId id, Scope& scope, int depth);
  ValueRef symbol(std::string qualified, Span span);
  ValueRef attribute(const ValueRef& base, const std::string& name, Span span);
  static ValueRef bind_self(const ValueRef& fn, const ValueRef& self);
  ValueRef binop(const std::string& op, const ValueRef& a, const ValueRef& b, Span span);
  static void merge_into(PyValue& d, const ValueRef& x, Span at);

  // ---- assignments, objects and dicts (python_eval_objects.cpp) ----
  void assign(py::ExprId target, const ValueRef& v, Scope& scope, int depth);
  void update_at(py::ExprId target, const std::function<ValueRef(const ValueRef&)>& change, Scope& scope, int depth,
                 int level = 0);
  void write_var(Scope& where, const std::string& name, const ValueRef& v);
  void bind_name(const std::string& name, const ValueRef& v, Scope& scope);
  void rebind(const std::string& name, const ValueRef& v, Scope& scope);
  // A config object or a dict: what a change in place is seen through, by every name and
  // container holding it.
  static bool has_identity(const ValueRef& v) {
    return v && v->object_id != 0 && (v->kind == PyValue::Kind::Object || v->kind == PyValue::Kind::Dict);
  }
  static bool same_identity(const ValueRef& a, const ValueRef& b) {
    return has_identity(a) && has_identity(b) && a->kind == b->kind && a->object_id == b->object_id;
  }
  std::shared_ptr<PyValue> new_dict(Span span);
  std::shared_ptr<PyValue> new_object(const ClassInfo* cls, const std::string& qualified, Span span);
  ValueRef register_object(const std::shared_ptr<PyValue>& obj);
  static ValueRef with_version(const ValueRef& held, const ValueRef& v, int depth,
                               std::map<const PyValue*, ValueRef>& done, std::size_t& budget);
  void rebind_object(const ValueRef& v, Scope& scope);
  static ValueRef opaque(const ValueRef& v, Span at);
  py::ExprId dict_of_object(py::ExprId e) const;
  ValueRef attribute_dict(const ValueRef& obj, Span span);
  ValueRef as_dict(const ValueRef& obj, Span span);
  ValueRef current_object(int id, Scope& scope) const;
  void view_changed(const ValueRef& before, const ValueRef& after, bool exact, Span at, Scope& scope);
  void make_opaque(py::ExprId target, Span at, Scope& scope, int depth);
  static ValueRef with_member(const ValueRef& obj, const std::string& name, const ValueRef& v, Span at);

  // ---- calls (python_eval_calls.cpp) ----
  Args eval_args(const py::Expr& call, Scope& scope, int depth);
  ValueRef call(const py::Expr& e, Scope& scope, int depth);
  ValueRef call_value(const PyValue& fn, const Args& args, Span site, int depth, ValueRef* final_self);
  ValueRef call_function(py::StmtId fid, std::vector<ValueRef> positional, const std::vector<Member>& keywords,
                         Span site, int depth, ValueRef* final_self, bool unknown_rest = false);
  ValueRef instantiate(const ValueRef& cls, const py::Expr& e, Scope& scope, int depth);
  ValueRef fresh_objects(const ValueRef& v, int made_after, std::map<int, int>& ids, int depth);
  const std::vector<std::string>& names_in(py::StmtId fid);

  const std::vector<py::StmtId>& body() const { return section_body_ ? *section_body_ : m_.body; }
  // The module run (its pools hold an expression's arguments, items and constant).
  const py::Module& module() const { return m_; }

  // Byte ranges of module-level blocks a known test skipped (sorted and merged by sort_dead).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> dead_;
  ProjectEvaluator::Impl& ev_;
  ModuleEnv& env_;
  const py::Module& m_;
  bool main_;
  std::optional<std::vector<py::StmtId>> section_body_;  // only_lines: the statements run
};

}  // namespace pyeval
}  // namespace trl
