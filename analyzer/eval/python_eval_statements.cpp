// The statements of the Python evaluator: a module's run (all of it, or one docs section), the
// entry points nobody calls, blocks, assignments and deletions, branches merged after an `if`
// whose outcome is unknown, loops run until stable, `try`, `with`, `return`, and class bodies.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/eval/python_eval_internal.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::pyeval {

using py::ExprId;
using py::ExprKind;
using py::StmtId;
using py::StmtKind;

namespace {

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

void Exec::run_module() {
  Frame frame;
  exec_block(body(), env_.globals, frame, 0);
  record_live(env_.globals);
}

// A docs page read for one section (lines [first, second)): the top-level statements written
// there, with the imports, functions and classes of the page's earlier blocks (what the
// section's code may use); assignments and calls of other sections are not run.
void Exec::only_lines(std::pair<std::uint32_t, std::uint32_t> lines) {
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

void Exec::mark_dead(const std::vector<StmtId>& block) {
  if (block.empty()) return;
  dead_.push_back({m_.stmt(block.front()).span.begin, m_.stmt(block.back()).span.end});
}

// After sort_dead(): the ranges sorted and merged, so a lookup is a binary search (a chain of
// 20,000 constant elifs leaves as many ranges).
void Exec::sort_dead() {
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

bool Exec::in_dead_block(const Span& at) const {
  auto it = std::upper_bound(dead_.begin(), dead_.end(), std::make_pair(at.begin, std::uint32_t{0xffffffffu}));
  if (it == dead_.begin()) return false;
  --it;
  return at.begin >= it->first && at.end <= it->second;
}

// Runs functions nobody called from the top level but that are referenced (entry points
// handed to fire/typer/hydra, decorated ones, or `main` itself), with unknown arguments.
void Exec::run_uncalled_entry_points() {
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

void Exec::exec_block(const std::vector<StmtId>& body, Scope& scope, Frame& frame, int depth) {
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
void Exec::out_of_steps(Span at) {
  if (!ev_.cut_at.valid()) ev_.cut_at = at.valid() ? at : Span{env_.file};
}

void Exec::exec(StmtId id, Scope& scope, Frame& frame, int depth) {
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
void Exec::forget(ExprId target, Scope& scope, int depth) {
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
      for (ExprId e : m_.elts(t)) forget(e, scope, depth);
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

ValueRef Exec::class_def(StmtId id, Scope& scope, int depth) {
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

void Exec::branch(const std::vector<StmtId>& a, const std::vector<StmtId>& b, Scope& scope, Frame& frame, int depth) {
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
int Exec::truth_of(const ValueRef& v, ExprId test) {
  const py::Expr& e = m_.expr(test);
  const auto operands = m_.elts(e);
  if (e.kind == ExprKind::Compare && operands.size() == 2) {
    const auto& l = m_.expr(operands[0]);
    const auto& r = m_.expr(operands[1]);
    if ((l.kind == ExprKind::Name && l.name == "__name__") || (r.kind == ExprKind::Name && r.name == "__name__")) {
      const auto ops = m_.ops(e);
      const bool eq = !ops.empty() && ops[0] == "==";
      return (main_ == eq) ? 1 : 0;
    }
  }
  if (v && v->kind == PyValue::Kind::Const) return v->constant.truthy() ? 1 : 0;
  if (v && (v->kind == PyValue::Kind::Object || v->kind == PyValue::Kind::Function || v->kind == PyValue::Kind::Class ||
            v->kind == PyValue::Kind::Module))
    return 1;
  return -1;
}

void Exec::record_live(const Scope& scope) {
  for (const auto& [name, v] : scope.vars) {
    if (v && v->kind == PyValue::Kind::Object && v->cls && v->cls->role == ClassRole::TrainerConfig)
      ev_.live[v->object_id] = v;
  }
}

}  // namespace trl::pyeval
