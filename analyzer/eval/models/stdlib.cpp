// Models of Python's builtins and standard library: dict(...), setattr / getattr with a name
// we can read, int / float / str / bool of a constant, vars(obj), dataclasses.asdict /
// replace, functools.partial, the methods of dicts (get, update, setdefault, pop, clear, copy,
// ...), and `obj.to_dict()`.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>

#include "analyzer/eval/models/library_models.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::pyeval {

namespace {

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

}  // namespace

// dict(other, key=value, **more): a new dict.
ValueRef builtin_dict(Exec& ex, const LibraryCall& call) {
  const py::Expr& e = call.e;
  Args args = ex.eval_args(e, call.scope, call.depth);
  auto d = ex.new_dict(e.span);
  if (!args.positional.empty()) Exec::merge_into(*d, args.positional[0], e.span);
  for (auto& kw : args.keywords) d->members.push_back(kw);
  keep_last_of_each(d->members);
  if (args.unknown_spread) d->complete = false;
  return d;
}

// setattr(obj, "field", v) is obj.field = v; with a name we cannot read, any field may change.
// Declines a call without exactly three arguments.
ValueRef builtin_setattr(Exec& ex, const LibraryCall& call) {
  const py::Expr& e = call.e;
  const auto args = ex.module().args(e);
  if (args.size() != 3) return nullptr;
  ValueRef name = ex.eval(args[1].value, call.scope, call.depth);
  ValueRef v = ex.eval(args[2].value, call.scope, call.depth);
  ex.update_at(
      args[0].value,
      [&](const ValueRef& cur) -> ValueRef {
        if (cur->kind != PyValue::Kind::Object) return nullptr;
        if (name->kind == PyValue::Kind::Const && name->constant.kind == Scalar::Kind::Str)
          return Exec::with_member(cur, name->constant.s, v, e.span);
        return Exec::opaque(cur, e.span);
      },
      call.scope, call.depth);
  return make_const(Scalar::null(), e.span);
}

// getattr(obj, "field"[, default]): the attribute, when the name is known. Declines a call with
// fewer than two arguments.
ValueRef builtin_getattr(Exec& ex, const LibraryCall& call) {
  const py::Expr& e = call.e;
  const auto args = ex.module().args(e);
  if (args.size() < 2) return nullptr;
  ValueRef obj = ex.eval(args[0].value, call.scope, call.depth);
  ValueRef name = ex.eval(args[1].value, call.scope, call.depth);
  if (name->kind == PyValue::Kind::Const && name->constant.kind == Scalar::Kind::Str)
    return ex.attribute(obj, name->constant.s, e.span);
  return make_unknown(e.span);
}

// int(x), float(x), str(x), bool(x) of one positional argument: the converted constant.
ValueRef builtin_conversion(Exec& ex, const LibraryCall& call) {
  const py::Expr& e = call.e;
  const auto args = ex.module().args(e);
  if (args.size() != 1 || args[0].kind != py::Argument::Kind::Positional) return nullptr;
  return convert(call.callee.qualified, ex.eval(args[0].value, call.scope, call.depth), e.span);
}

// vars(obj): the object's own attribute dict (Exec::attribute_dict).
ValueRef builtin_vars(Exec& ex, const LibraryCall& call) {
  Args args = ex.eval_args(call.e, call.scope, call.depth);
  return args.positional.empty() ? make_unknown(call.e.span) : ex.attribute_dict(args.positional[0], call.e.span);
}

// dataclasses.asdict(obj): a new dict of the object's fields.
ValueRef dataclasses_asdict(Exec& ex, const LibraryCall& call) {
  Args args = ex.eval_args(call.e, call.scope, call.depth);
  return args.positional.empty() ? make_unknown(call.e.span) : ex.as_dict(args.positional[0], call.e.span);
}

// functools.partial(f, *args, **kwargs): `f` with those arguments bound.
ValueRef functools_partial(Exec& ex, const LibraryCall& call) {
  Args args = ex.eval_args(call.e, call.scope, call.depth);
  if (args.positional.empty() || args.positional[0]->kind != PyValue::Kind::Function) return make_unknown(call.e.span);
  auto f = std::make_shared<PyValue>(*args.positional[0]);
  for (std::size_t i = 1; i < args.positional.size(); ++i) f->bound_positional.push_back(args.positional[i]);
  for (auto& kw : args.keywords) f->bound_keywords.push_back(kw);
  return f;
}

// dataclasses.replace(obj, field=value): a new object with those fields replaced.
ValueRef dataclasses_replace(Exec& ex, const LibraryCall& call) {
  const py::Expr& e = call.e;
  Args args = ex.eval_args(e, call.scope, call.depth);
  if (args.positional.empty() || args.positional[0]->kind != PyValue::Kind::Object) return make_unknown(e.span);
  auto obj = std::make_shared<PyValue>(*args.positional[0]);
  obj->object_id = ++ex.ev_.next_object;
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
  if (obj->cls && obj->cls->role == ClassRole::TrainerConfig) ex.ev_.objects[obj->object_id] = obj;
  return obj;
}

// `obj.to_dict()` (TrainingArguments.to_dict) and `obj.__dict__()`: a dict of the object's
// fields. Declines other methods.
ValueRef object_to_dict(Exec& ex, const MethodCall& call) {
  if (call.fn.name != "to_dict" && call.fn.name != "__dict__") return nullptr;
  ex.eval_args(call.e, call.scope, call.depth);
  return ex.as_dict(call.self, call.e.span);
}

// The methods of a dict (any other returns an unknown value).
ValueRef dict_method(Exec& ex, const MethodCall& call) {
  const ValueRef& self = call.self;
  const py::Expr& fn = call.fn;
  const py::Expr& e = call.e;
  Scope& scope = call.scope;
  const int depth = call.depth;
  Args args = ex.eval_args(e, scope, depth);
  if (fn.name == "get" && !args.positional.empty() && args.positional[0]->kind == PyValue::Kind::Const) {
    if (const Member* m = self->member(args.positional[0]->constant.s)) return m->value;
    if (!self->complete) return make_unknown(e.span);
    return args.positional.size() > 1 ? args.positional[1] : make_const(Scalar::null(), e.span);
  }
  // A method that changes the dict in place: the new version goes where `fn.a` names it (a
  // name, `cfg["training"]`, `self.kwargs`), and to every other name holding the same dict.
  auto store = [&](const ValueRef& d) {
    ex.update_at(
        fn.a, [&](const ValueRef& cur) -> ValueRef { return cur->kind == PyValue::Kind::Dict ? d : nullptr; }, scope,
        depth);
    // A write to `vars(obj)` held in a name: obj's fields change with it (pop, clear and the
    // writes not followed leave them unknown: view_changed).
    ex.view_changed(self, d, d->complete || !self->complete, e.span, scope);
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
    if (!args.positional.empty()) Exec::merge_into(*d, args.positional[0], e.span);
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
      store(Exec::opaque(self, e.span));
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
    store(Exec::opaque(self, e.span));
    return make_unknown(e.span);
  }
  if (fn.name == "copy") {
    // A new dict with the same entries: a write to it leaves `self` as it was.
    auto d = std::make_shared<PyValue>(*self);
    d->object_id = ++ex.ev_.next_object;
    return d;
  }
  return make_unknown(e.span);
}

}  // namespace trl::pyeval
