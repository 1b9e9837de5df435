// Writes in the Python evaluator and the objects they reach: assignment targets (names,
// `obj.field`, `d["key"]`, `module.NAME`, unpacking), new dicts and objects, and changes in
// place (a field set, `d["k"] = v`, `vars(obj)[k] = v`) seen through every name and container
// that holds the same object, as Python's references are. A change that cannot be followed
// leaves the object's fields unknown (opaque).
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analyzer/eval/python_eval_internal.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::pyeval {

using py::ExprId;
using py::ExprKind;

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

void Exec::assign(ExprId target, const ValueRef& v, Scope& scope, int depth) {
  const py::Expr& t = m_.expr(target);
  switch (t.kind) {
    case ExprKind::Name: bind_name(t.name, v, scope); break;
    case ExprKind::Tuple:
    case ExprKind::List: {
      const auto items = m_.elts(t);
      const bool exact =
          v && (v->kind == PyValue::Kind::Tuple || v->kind == PyValue::Kind::List) && v->items.size() == items.size();
      for (std::size_t i = 0; i < items.size(); ++i)
        assign(items[i], exact ? v->items[i] : make_unknown(t.span), scope, depth);
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
void Exec::update_at(ExprId target, const std::function<ValueRef(const ValueRef&)>& change, Scope& scope, int depth,
                     int level) {
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
void Exec::write_var(Scope& where, const std::string& name, const ValueRef& v) {
  auto it = where.vars.find(name);
  if (where.born < ev_.branch_depth && it != where.vars.end() && it->second)
    it->second = merge_values(it->second, v);
  else if (it != where.vars.end())
    it->second = v;
  else
    where.vars[name] = v;
}

// `name = v`: a local of `scope`, or a module global where the function declared it `global`.
void Exec::bind_name(const std::string& name, const ValueRef& v, Scope& scope) {
  Scope* target = &scope;
  if (scope.global_names.count(name))
    while (target->parent) target = target->parent;
  write_var(*target, name, v);
}

// Rebinds a name where it lives (a local, or a global read from a function).
void Exec::rebind(const std::string& name, const ValueRef& v, Scope& scope) {
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

std::shared_ptr<PyValue> Exec::new_dict(Span span) {
  auto d = std::make_shared<PyValue>();
  d->kind = PyValue::Kind::Dict;
  d->span = span;
  d->object_id = ++ev_.next_object;
  return d;
}

std::shared_ptr<PyValue> Exec::new_object(const ClassInfo* cls, const std::string& qualified, Span span) {
  auto obj = std::make_shared<PyValue>();
  obj->kind = PyValue::Kind::Object;
  obj->cls = cls;
  obj->qualified = qualified;
  obj->object_id = ++ev_.next_object;
  obj->span = span;
  return obj;
}

ValueRef Exec::register_object(const std::shared_ptr<PyValue>& obj) {
  if (obj->cls && obj->cls->role == ClassRole::TrainerConfig) ev_.objects[obj->object_id] = obj;
  return obj;
}

ValueRef Exec::as_dict(const ValueRef& obj, Span span) {
  if (obj->kind == PyValue::Kind::Dict) return obj;
  if (obj->kind != PyValue::Kind::Object) return make_unknown(span);
  auto d = new_dict(span);
  d->members = obj->members;
  // The dict also holds every field never set explicitly, whose values we do not track here.
  d->complete = false;
  return d;
}

// `held` with every version of `v` inside it (an entry of a dict, a field of an object, an item
// of a list or tuple; 6 levels) replaced by `v`; null when none is. `done` keeps a container
// held twice one; `budget` bounds the walk over large containers.
ValueRef Exec::with_version(const ValueRef& held, const ValueRef& v, int depth,
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
void Exec::rebind_object(const ValueRef& v, Scope& scope) {
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
ValueRef Exec::opaque(const ValueRef& v, Span at) {
  auto copy = std::make_shared<PyValue>(*v);
  for (auto& m : copy->members) m.value = make_unknown(at);
  copy->complete = false;
  return copy;
}

ValueRef Exec::with_member(const ValueRef& obj, const std::string& name, const ValueRef& v, Span at) {
  auto copy = std::make_shared<PyValue>(*obj);
  std::erase_if(copy->members, [&](const Member& m) { return m.name == name; });
  copy->members.push_back({name, v, at});
  return copy;
}

// The object `target` names, changed in a way not followed (see opaque).
void Exec::make_opaque(ExprId target, Span at, Scope& scope, int depth) {
  update_at(
      target,
      [&](const ValueRef& cur) -> ValueRef { return cur->kind == PyValue::Kind::Object ? opaque(cur, at) : nullptr; },
      scope, depth);
}

// The object whose own attribute dict `e` is (`obj.__dict__`, `vars(obj)`), or kNoExpr.
ExprId Exec::dict_of_object(ExprId e) const {
  const py::Expr& x = m_.expr(e);
  if (x.kind == ExprKind::Attribute && x.name == "__dict__") return x.a;
  if (x.kind == ExprKind::Call && m_.args(x).size() == 1 && m_.expr(x.a).kind == ExprKind::Name &&
      m_.expr(x.a).name == "vars")
    return m_.args(x)[0].value;
  return py::kNoExpr;
}

// `vars(obj)` and `obj.__dict__`: the object's own attribute dict. Writes to it are writes to
// the object (view_changed), and the object's changes show in it (with_version).
ValueRef Exec::attribute_dict(const ValueRef& obj, Span span) {
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
ValueRef Exec::current_object(int id, Scope& scope) const {
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
void Exec::view_changed(const ValueRef& before, const ValueRef& after, bool exact, Span at, Scope& scope) {
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

}  // namespace trl::pyeval
