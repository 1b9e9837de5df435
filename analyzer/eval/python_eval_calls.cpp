// Calls in the Python evaluator: arguments (with `*list` and `**dict` expanded), calls of the
// project's functions (arguments bound, a summary per function and argument values so that a
// call made again is not run again, objects passed in and changed seen by the caller), methods
// of user classes, user classes instantiated (dataclasses and `__init__`), and calls of
// library names and library values, which the library models evaluate (models/).
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/eval/models/library_models.hpp"
#include "analyzer/eval/python_eval_internal.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::pyeval {

using py::ExprId;
using py::ExprKind;
using py::StmtId;

namespace {

std::string fingerprint(const ValueRef& v) {
  if (!v) return "-";
  if (v->kind == PyValue::Kind::Const)
    return "c" + std::to_string(static_cast<int>(v->constant.kind)) + v->constant.repr();
  if (v->kind == PyValue::Kind::Unknown) return "?";
  return "p" + std::to_string(reinterpret_cast<std::uintptr_t>(v.get()));
}

}  // namespace

// `v` with every object made after `made_after` (inside containers too, 8 levels) copied under a
// new id; `ids` maps old ids to new, so that one object held twice stays one.
ValueRef Exec::fresh_objects(const ValueRef& v, int made_after, std::map<int, int>& ids, int depth) {
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
const std::vector<std::string>& Exec::names_in(StmtId fid) {
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
    for (auto at = std::lower_bound(index->second.begin(), index->second.end(), std::make_pair(span.begin, ExprId{0}));
         at != index->second.end() && at->first < span.end; ++at)
      names.insert(m_.exprs[at->second].name);
    it->second.assign(names.begin(), names.end());
  }
  return it->second;
}

// Calls a function of this module. `final_self` receives `self` as it ended (methods).
// `unknown_rest`: *args/**kwargs we could not expand were passed, so parameters not bound
// explicitly may hold anything (not their defaults).
ValueRef Exec::call_function(StmtId fid, std::vector<ValueRef> positional, const std::vector<Member>& keywords,
                             Span site, int depth, ValueRef* final_self, bool unknown_rest) {
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

Args Exec::eval_args(const py::Expr& call, Scope& scope, int depth) {
  Args out;
  for (const auto& a : m_.args(call)) {
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

ValueRef Exec::call(const py::Expr& e, Scope& scope, int depth) {
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
    // A method of a library value: a dataset, a config, a parser, a dict, a path
    // (models/registry.cpp, kMethodModels).
    if (ValueRef v = call_library_method(*this, MethodCall{e, fn, self, scope, depth})) return v;
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
  // A library name: a class the knowledge describes, or a call the table of library models
  // names (models/registry.cpp, kCallModels).
  if (ValueRef v = call_library(*this, LibraryCall{e, *callee, scope, depth})) return v;
  eval_args(e, scope, depth);
  return make_unknown(e.span);
}

ValueRef Exec::call_value(const PyValue& fn, const Args& args, Span site, int depth, ValueRef* final_self) {
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
ValueRef Exec::instantiate(const ValueRef& cls, const py::Expr& e, Scope& scope, int depth) {
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

}  // namespace trl::pyeval
