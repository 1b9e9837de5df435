// The expressions of the Python evaluator: names (with the builtins the library models know),
// constants, containers, attribute reads (of library symbols, project modules, classes and
// objects, with the defaults the knowledge gives a library config's fields), subscripts,
// comparisons, boolean and conditional expressions, and arithmetic on known constants.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "analyzer/eval/models/library_models.hpp"
#include "analyzer/eval/python_eval_internal.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::pyeval {

using py::ExprId;
using py::ExprKind;

ValueRef Exec::symbol(std::string qualified, Span span) {
  // `typing.TYPE_CHECKING` is False when a program runs (it is True only for type checkers), so
  // `if TYPE_CHECKING:` imports never happen. A lazy package's `__init__.py` (transformers',
  // TRL's own) imports its whole package there, for the type checkers alone.
  if (qualified == "typing.TYPE_CHECKING" || qualified == "typing_extensions.TYPE_CHECKING")
    return make_const(Scalar::boolean(false), span);
  auto v = std::make_shared<PyValue>();
  v->kind = PyValue::Kind::Symbol;
  v->qualified = std::move(qualified);
  v->cls = ev_.k.find_qualified(v->qualified);
  v->span = span;
  v->patchers_bound = static_cast<std::uint8_t>(std::min<std::size_t>(ev_.patchers.size(), 255));
  return v;
}

ValueRef Exec::attribute(const ValueRef& base, const std::string& name, Span span) {
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

ValueRef Exec::bind_self(const ValueRef& fn, const ValueRef& self) {
  auto b = std::make_shared<PyValue>(*fn);
  b->bound_positional.insert(b->bound_positional.begin(), self);
  return b;
}

ValueRef Exec::eval(ExprId id, Scope& scope, int depth) {
  if (id == py::kNoExpr) return make_unknown();
  const py::Expr& e = m_.expr(id);
  switch (e.kind) {
    case ExprKind::Constant: return make_const(m_.constant(e), e.span);
    case ExprKind::Name: {
      if (ValueRef v = scope.lookup(e.name)) return v;
      if (is_builtin_name(e.name)) return symbol(e.name, e.span);
      return make_unknown(e.span);
    }
    case ExprKind::Attribute: return attribute(eval(e.a, scope, depth), e.name, e.span);
    case ExprKind::Call: return call(e, scope, depth);
    case ExprKind::Dict: {
      auto d = new_dict(e.span);
      const auto keys = m_.elts(e);
      const auto values = m_.values(e);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        ValueRef val = eval(values[i], scope, depth);
        if (keys[i] == py::kNoExpr) {
          merge_into(*d, val, e.span);
          continue;
        }
        ValueRef key = eval(keys[i], scope, depth);
        if (key->kind == PyValue::Kind::Const && key->constant.kind == Scalar::Kind::Str) {
          d->members.push_back({key->constant.s, val, m_.expr(keys[i]).span});
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
      for (ExprId x : m_.elts(e)) {
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
      for (ExprId x : m_.elts(e)) {
        cur = eval(x, scope, depth);
        if (cur->kind != PyValue::Kind::Const) return make_unknown(e.span);
        bool t = cur->constant.truthy();
        if ((e.name == "and" && !t) || (e.name == "or" && t)) return cur;
      }
      return cur ? cur : make_unknown(e.span);
    }
    case ExprKind::Compare: {
      const auto operands = m_.elts(e);
      const auto ops = m_.ops(e);
      if (operands.size() != 2 || ops.size() != 1) return make_unknown(e.span);
      ValueRef a = eval(operands[0], scope, depth), b = eval(operands[1], scope, depth);
      if (a->kind != PyValue::Kind::Const || b->kind != PyValue::Kind::Const) return make_unknown(e.span);
      const std::string& op = ops[0];
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

bool number(const Scalar& s, double& out) {
  if (s.kind == Scalar::Kind::Int) return out = static_cast<double>(s.i), true;
  if (s.kind == Scalar::Kind::Float) return out = s.f, true;
  if (s.kind == Scalar::Kind::Bool) return out = s.b ? 1 : 0, true;
  return false;
}

ValueRef Exec::binop(const std::string& op, const ValueRef& a, const ValueRef& b, Span span) {
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
    if (op == "+") return __builtin_add_overflow(i, j, &r) ? make_unknown(span) : make_const(Scalar::integer(r), span);
    if (op == "-") return __builtin_sub_overflow(i, j, &r) ? make_unknown(span) : make_const(Scalar::integer(r), span);
    if (op == "*") return __builtin_mul_overflow(i, j, &r) ? make_unknown(span) : make_const(Scalar::integer(r), span);
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
void Exec::merge_into(PyValue& d, const ValueRef& x, Span at) {
  if (x->kind == PyValue::Kind::Dict) {
    for (const auto& m : x->members)
      d.members.push_back({m.name, with_step(m.value, at, "merged into a dict"), m.set_at});
    keep_last_of_each(d.members);
    d.complete = d.complete && x->complete;
  } else {
    d.complete = false;
  }
}

ValueRef not_none_value(Span span) {
  auto v = std::make_shared<PyValue>();
  v->span = span;
  v->not_none = true;
  return v;
}

}  // namespace trl::pyeval
