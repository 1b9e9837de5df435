#include "analyzer/eval/python_eval.hpp"

#include <map>
#include <set>

#include "analyzer/facts/yaml_node.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl {

namespace {

using py::ExprId;
using py::ExprKind;
using py::StmtId;
using py::StmtKind;

constexpr int kMaxCallDepth = 8;
constexpr std::size_t kMaxSteps = 200000;  // statements executed per module, all calls included

struct Scope {
  std::map<std::string, ValueRef, std::less<>> vars;
  Scope* parent = nullptr;

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

class Interpreter {
 public:
  Interpreter(const py::Module& m, const Knowledge& k, const YamlLoader& yaml) : m_(m), k_(k), yaml_(yaml) {}

  ScriptSummary run() {
    Frame frame;
    exec_block(m_.body, globals_, frame, 0);
    record_live(globals_);
    // Functions nobody called from the top level but that are referenced (entry points
    // passed to fire/typer/hydra, or `main` itself): run them with unknown arguments.
    std::set<std::string> referenced;
    for (const auto& e : m_.exprs)
      if (e.kind == ExprKind::Name) referenced.insert(e.name);
    for (StmtId id : m_.body) {
      const auto& s = m_.stmt(id);
      if (s.kind != StmtKind::FunctionDef || executed_.count(id)) continue;
      if (s.name != "main" && !referenced.count(s.name) && s.decorators.empty()) continue;
      call_function(id, {}, {}, s.span, 0);
    }
    ScriptSummary out;
    out.trainers = trainers_;
    out.accelerator_parallelism = accelerator_pcs_;
    out.parsers = parsers_;
    out.constructions = constructions_;
    out.parser_keeps_unknown = parser_keeps_unknown_;
    std::set<int> seen;
    for (const auto& t : trainers_) {
      if (t.args && t.args->kind == PyValue::Kind::Object && seen.insert(t.args->object_id).second)
        out.trainer_configs.push_back(t.args);
    }
    if (out.trainer_configs.empty()) {
      for (const auto& [id, v] : live_) out.trainer_configs.push_back(v);
    }
    out.is_entry = !trainers_.empty() || !out.trainer_configs.empty();
    return out;
  }

 private:
  // ---- statements ----
  void exec_block(const std::vector<StmtId>& body, Scope& scope, Frame& frame, int depth) {
    for (StmtId id : body) {
      if (frame.returned || ++steps_ > kMaxSteps) return;
      exec(id, scope, frame, depth);
    }
  }

  void exec(StmtId id, Scope& scope, Frame& frame, int depth) {
    const py::Stmt& s = m_.stmt(id);
    switch (s.kind) {
      case StmtKind::Expr: eval(s.value, scope, depth); break;
      case StmtKind::Assign: {
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
        assign(s.targets[0], binop(op, cur, rhs, m_.stmt(id).span), scope, depth);
        break;
      }
      case StmtKind::Import:
        for (const auto& a : s.names) {
          if (!a.asname.empty()) {
            scope.vars[a.asname] = symbol(a.name, a.span);
          } else {
            std::string root = a.name.substr(0, a.name.find('.'));
            scope.vars[root] = symbol(root, a.span);
          }
        }
        break;
      case StmtKind::ImportFrom: {
        std::string base = std::string(static_cast<std::size_t>(s.level), '.') + s.module;
        for (const auto& a : s.names) {
          std::string qualified = base.empty() || base.back() == '.' ? base + a.name : base + "." + a.name;
          scope.vars[a.asname.empty() ? a.name : a.asname] = symbol(qualified, a.span);
        }
        break;
      }
      case StmtKind::FunctionDef: {
        auto f = std::make_shared<PyValue>();
        f->kind = PyValue::Kind::Function;
        f->function = id;
        f->module = &m_;
        f->span = s.span;
        scope.vars[s.name] = f;
        break;
      }
      case StmtKind::ClassDef: scope.vars[s.name] = symbol("<local>." + s.name, s.span); break;
      case StmtKind::If: {
        ValueRef test = eval(s.value, scope, depth);
        int truth = truth_of(test, s.value, scope);
        if (truth == 1) {
          exec_block(s.body, scope, frame, depth);
        } else if (truth == 0) {
          exec_block(s.orelse, scope, frame, depth);
        } else {
          branch(s.body, s.orelse, scope, frame, depth);
        }
        break;
      }
      case StmtKind::For:
      case StmtKind::While: {
        // The body may run zero or more times: run it once and merge with not running it.
        if (s.kind == StmtKind::For && !s.targets.empty()) assign(s.targets[0], make_unknown(s.span), scope, depth);
        branch(s.body, s.orelse, scope, frame, depth);
        break;
      }
      case StmtKind::With:
        if (s.value != py::kNoExpr) {
          ValueRef v = eval(s.value, scope, depth);
          if (!s.targets.empty()) assign(s.targets[0], v, scope, depth);
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
    }
  }

  void branch(const std::vector<StmtId>& a, const std::vector<StmtId>& b, Scope& scope, Frame& frame, int depth) {
    Scope left = scope, right = scope;
    Frame fa, fb;
    exec_block(a, left, fa, depth);
    exec_block(b, right, fb, depth);
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
  }

  // 1 true, 0 false, -1 unknown. `if __name__ == "__main__":` is true: the script is run.
  int truth_of(const ValueRef& v, ExprId test, const Scope&) {
    const py::Expr& e = m_.expr(test);
    if (e.kind == ExprKind::Compare && e.elts.size() == 2) {
      const auto& l = m_.expr(e.elts[0]);
      const auto& r = m_.expr(e.elts[1]);
      if ((l.kind == ExprKind::Name && l.name == "__name__") || (r.kind == ExprKind::Name && r.name == "__name__"))
        return 1;
    }
    if (v && v->kind == PyValue::Kind::Const) return v->constant.truthy() ? 1 : 0;
    return -1;
  }

  void assign(ExprId target, const ValueRef& v, Scope& scope, int depth) {
    const py::Expr& t = m_.expr(target);
    switch (t.kind) {
      case ExprKind::Name: scope.vars[t.name] = v; break;
      case ExprKind::Tuple:
      case ExprKind::List: {
        const bool exact = v && (v->kind == PyValue::Kind::Tuple || v->kind == PyValue::Kind::List) &&
                           v->items.size() == t.elts.size();
        for (std::size_t i = 0; i < t.elts.size(); ++i)
          assign(t.elts[i], exact ? v->items[i] : make_unknown(t.span), scope, depth);
        break;
      }
      case ExprKind::Attribute: {
        // obj.field = value on a config object: a new version of the object.
        const py::Expr& obj = m_.expr(t.a);
        if (obj.kind != ExprKind::Name) break;
        ValueRef cur = scope.lookup(obj.name);
        if (!cur || cur->kind != PyValue::Kind::Object) break;
        rebind(obj.name, with_member(cur, t.name, v, t.span), scope);
        break;
      }
      case ExprKind::Subscript: {
        const py::Expr& obj = m_.expr(t.a);
        if (obj.kind != ExprKind::Name) break;
        ValueRef cur = scope.lookup(obj.name);
        if (!cur || cur->kind != PyValue::Kind::Dict) break;
        ValueRef key = eval(t.b, scope, depth);
        if (key->kind == PyValue::Kind::Const && key->constant.kind == Scalar::Kind::Str) {
          rebind(obj.name, with_member(cur, key->constant.s, v, t.span), scope);
        } else {
          auto copy = std::make_shared<PyValue>(*cur);
          copy->complete = false;
          rebind(obj.name, copy, scope);
        }
        break;
      }
      default: break;
    }
  }

  // Rebinds a name where it lives (a local, or a global read from a function).
  void rebind(const std::string& name, ValueRef v, Scope& scope) {
    for (Scope* s = &scope; s; s = s->parent) {
      auto it = s->vars.find(name);
      if (it != s->vars.end()) {
        it->second = v;
        break;
      }
    }
    if (v->kind == PyValue::Kind::Object && objects_.count(v->object_id)) objects_[v->object_id] = v;
  }

  ValueRef with_member(const ValueRef& obj, const std::string& name, const ValueRef& v, Span at) {
    auto copy = std::make_shared<PyValue>(*obj);
    std::erase_if(copy->members, [&](const Member& m) { return m.name == name; });
    copy->members.push_back({name, v, at});
    return copy;
  }

  void record_live(const Scope& scope) {
    for (const auto& [name, v] : scope.vars) {
      if (v && v->kind == PyValue::Kind::Object && v->cls && v->cls->role == ClassRole::TrainerConfig)
        live_[v->object_id] = v;
    }
  }

  // ---- expressions ----
  ValueRef symbol(std::string qualified, Span span) {
    auto v = std::make_shared<PyValue>();
    v->kind = PyValue::Kind::Symbol;
    v->qualified = std::move(qualified);
    v->cls = k_.find_qualified(v->qualified);
    v->span = span;
    return v;
  }

  ValueRef eval(ExprId id, Scope& scope, int depth) {
    if (id == py::kNoExpr) return make_unknown();
    const py::Expr& e = m_.expr(id);
    switch (e.kind) {
      case ExprKind::Constant: return make_const(e.constant, e.span);
      case ExprKind::Name: {
        if (ValueRef v = scope.lookup(e.name)) return v;
        // Builtins the evaluator models (unless shadowed above).
        static const std::set<std::string, std::less<>> builtins = {"dict", "int",     "float", "str",
                                                                    "bool", "setattr", "open"};
        if (builtins.count(e.name)) return symbol(e.name, e.span);
        return make_unknown(e.span);
      }
      case ExprKind::Attribute: {
        ValueRef base = eval(e.a, scope, depth);
        if (base->kind == PyValue::Kind::Symbol) return symbol(base->qualified + "." + e.name, e.span);
        if (base->kind == PyValue::Kind::Object) {
          if (const Member* m = base->member(e.name)) return m->value;
          if (!base->from_parser && base->cls)
            if (const FieldInfo* f = k_.field(*base->cls, e.name); f && f->has_default)
              return make_const(f->default_value, e.span);
        }
        return make_unknown(e.span);
      }
      case ExprKind::Call: return call(e, scope, depth);
      case ExprKind::Dict: {
        auto d = std::make_shared<PyValue>();
        d->kind = PyValue::Kind::Dict;
        d->span = e.span;
        for (std::size_t i = 0; i < e.elts.size(); ++i) {
          ValueRef val = eval(e.values[i], scope, depth);
          if (e.elts[i] == py::kNoExpr) {
            merge_into(*d, val);
            continue;
          }
          ValueRef key = eval(e.elts[i], scope, depth);
          if (key->kind == PyValue::Kind::Const && key->constant.kind == Scalar::Kind::Str) {
            std::erase_if(d->members, [&](const Member& m) { return m.name == key->constant.s; });
            d->members.push_back({key->constant.s, val, m_.expr(e.elts[i]).span});
          } else if (key->kind != PyValue::Kind::Const) {
            d->complete = false;
          }
        }
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
        if (e.name == "-" && c.kind == Scalar::Kind::Int) return make_const(Scalar::integer(-c.i), e.span);
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
        bool r = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y : false;
        if (op != "<" && op != "<=" && op != ">" && op != ">=") return make_unknown(e.span);
        return make_const(Scalar::boolean(r), e.span);
      }
      case ExprKind::IfExp: {
        ValueRef test = eval(e.b, scope, depth);
        if (test->kind == PyValue::Kind::Const)
          return test->constant.truthy() ? eval(e.a, scope, depth) : eval(e.c, scope, depth);
        return merge_values(eval(e.a, scope, depth), eval(e.c, scope, depth));
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
      merge_into(*d, b);
      return d;
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
      std::int64_t i = x.kind == Scalar::Kind::Bool ? x.b : x.i, j = y.kind == Scalar::Kind::Bool ? y.b : y.i;
      if (op == "+") return make_const(Scalar::integer(i + j), span);
      if (op == "-") return make_const(Scalar::integer(i - j), span);
      if (op == "*") return make_const(Scalar::integer(i * j), span);
      if (op == "//" && j != 0)
        return make_const(Scalar::integer(i / j - ((i % j != 0) && ((i < 0) != (j < 0)))), span);
      if (op == "%" && j != 0) return make_const(Scalar::integer(((i % j) + j) % j), span);
    }
    if (op == "+") return make_const(Scalar::floating(p + q), span);
    if (op == "-") return make_const(Scalar::floating(p - q), span);
    if (op == "*") return make_const(Scalar::floating(p * q), span);
    if (op == "/" && q != 0) return make_const(Scalar::floating(p / q), span);
    return make_unknown(span);
  }

  // `{**x}` / `dict.update(x)`: the entries of x join d; an unknown x makes d incomplete.
  static void merge_into(PyValue& d, const ValueRef& x) {
    if (x->kind == PyValue::Kind::Dict || (x->kind == PyValue::Kind::Object && false)) {
      for (const auto& m : x->members) {
        std::erase_if(d.members, [&](const Member& o) { return o.name == m.name; });
        d.members.push_back(m);
      }
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
            for (const auto& m : v->members) out.keywords.push_back(m);
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
      ValueRef self = eval(fn.a, scope, depth);
      if (self->kind == PyValue::Kind::Object && self->cls && self->cls->role == ClassRole::ArgParser)
        return parser_method(*self, fn.name, e, scope, depth);
      if (self->kind == PyValue::Kind::Dict) return dict_method(self, fn, e, scope, depth);
      if (self->kind == PyValue::Kind::Symbol && self->qualified == "<file>" &&
          (fn.name == "read_text" || fn.name == "read" || fn.name == "open"))
        return self;
    }
    ValueRef callee = eval(e.a, scope, depth);
    if (callee->kind == PyValue::Kind::Function) {
      Args args = eval_args(e, scope, depth);
      return call_function(callee->function, args.positional, args.keywords, e.span, depth + 1);
    }
    if (callee->kind != PyValue::Kind::Symbol) {
      eval_args(e, scope, depth);
      return make_unknown(e.span);
    }
    const std::string& q = callee->qualified;
    if (q == "dict") {
      Args args = eval_args(e, scope, depth);
      auto d = std::make_shared<PyValue>();
      d->kind = PyValue::Kind::Dict;
      d->span = e.span;
      if (!args.positional.empty()) merge_into(*d, args.positional[0]);
      for (auto& kw : args.keywords) {
        std::erase_if(d->members, [&](const Member& m) { return m.name == kw.name; });
        d->members.push_back(kw);
      }
      if (args.unknown_spread) d->complete = false;
      return d;
    }
    if (callee->cls) return construct(*callee, e, scope, depth);
    if (q == "open" || q == "pathlib.Path" || q == "Path") {
      // A project file opened by a constant path: remembered for yaml.safe_load.
      Args args = eval_args(e, scope, depth);
      if (!args.positional.empty() && args.positional[0]->is_const() &&
          args.positional[0]->constant.kind == Scalar::Kind::Str) {
        auto f = std::make_shared<PyValue>();
        f->kind = PyValue::Kind::Symbol;
        f->qualified = "<file>";
        f->constant = args.positional[0]->constant;
        f->span = e.span;
        return f;
      }
      return make_unknown(e.span);
    }
    if ((q == "yaml.safe_load" || q == "yaml.load" || q == "yaml.full_load") && !e.args.empty()) {
      Args args = eval_args(e, scope, depth);
      if (!args.positional.empty()) return load_yaml(args.positional[0], e.span);
      return make_unknown(e.span);
    }
    if (q == "setattr" && e.args.size() == 3) {
      const py::Expr& target = m_.expr(e.args[0].value);
      ValueRef name = eval(e.args[1].value, scope, depth);
      ValueRef v = eval(e.args[2].value, scope, depth);
      ValueRef cur = target.kind == ExprKind::Name ? scope.lookup(target.name) : nullptr;
      if (cur && cur->kind == PyValue::Kind::Object && name->kind == PyValue::Kind::Const &&
          name->constant.kind == Scalar::Kind::Str)
        rebind(target.name, with_member(cur, name->constant.s, v, e.span), scope);
      return make_const(Scalar::null(), e.span);
    }
    if ((q == "int" || q == "float" || q == "str" || q == "bool") && e.args.size() == 1 &&
        e.args[0].kind == py::Argument::Kind::Positional) {
      ValueRef v = eval(e.args[0].value, scope, depth);
      return convert(q, v, e.span);
    }
    eval_args(e, scope, depth);
    return make_unknown(e.span);
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

  // yaml.safe_load(open("cfg.yaml")) / yaml.safe_load(Path("cfg.yaml").read_text()): the
  // document's top-level mapping as a dict, each entry set at its YAML key.
  ValueRef load_yaml(const ValueRef& source, Span span) {
    if (!yaml_ || source->kind != PyValue::Kind::Symbol || source->qualified != "<file>") return make_unknown(span);
    const YamlNode* root = yaml_(source->constant.s);
    if (!root) return make_unknown(span);
    return from_yaml(*root, span, 0);
  }

  ValueRef from_yaml(const YamlNode& node, Span span, int depth) {
    if (depth > 16) return make_unknown(span);
    switch (node.kind) {
      case YamlNode::Kind::Scalar: return make_const(node.scalar, node.span);
      case YamlNode::Kind::Mapping: {
        auto d = std::make_shared<PyValue>();
        d->kind = PyValue::Kind::Dict;
        d->span = node.span;
        for (const auto& entry : node.entries) {
          std::erase_if(d->members, [&](const Member& m) { return m.name == entry.key; });
          d->members.push_back({entry.key, from_yaml(*entry.value, entry.key_span, depth + 1), entry.key_span});
        }
        return d;
      }
      case YamlNode::Kind::Sequence: {
        auto l = std::make_shared<PyValue>();
        l->kind = PyValue::Kind::List;
        l->span = node.span;
        for (const auto& item : node.items) l->items.push_back(from_yaml(*item, item->span, depth + 1));
        return l;
      }
      default: return make_unknown(span);
    }
  }

  ValueRef dict_method(const ValueRef& self, const py::Expr& fn, const py::Expr& e, Scope& scope, int depth) {
    Args args = eval_args(e, scope, depth);
    if (fn.name == "get" && !args.positional.empty() && args.positional[0]->kind == PyValue::Kind::Const) {
      if (const Member* m = self->member(args.positional[0]->constant.s)) return m->value;
      if (!self->complete) return make_unknown(e.span);
      return args.positional.size() > 1 ? args.positional[1] : make_const(Scalar::null(), e.span);
    }
    if (fn.name == "update" && m_.expr(fn.a).kind == ExprKind::Name) {
      auto d = std::make_shared<PyValue>(*self);
      if (!args.positional.empty()) merge_into(*d, args.positional[0]);
      for (auto& kw : args.keywords) {
        std::erase_if(d->members, [&](const Member& m) { return m.name == kw.name; });
        d->members.push_back(kw);
      }
      if (args.unknown_spread) d->complete = false;
      rebind(m_.expr(fn.a).name, d, scope);
      return make_const(Scalar::null(), e.span);
    }
    return make_unknown(e.span);
  }

  std::shared_ptr<PyValue> new_object(const ClassInfo* cls, const std::string& qualified, Span span) {
    auto obj = std::make_shared<PyValue>();
    obj->kind = PyValue::Kind::Object;
    obj->cls = cls;
    obj->qualified = qualified;
    obj->object_id = ++next_object_;
    obj->span = span;
    return obj;
  }

  ValueRef construct(const PyValue& callee, const py::Expr& e, Scope& scope, int depth) {
    const ClassInfo& cls = *callee.cls;
    Args args = eval_args(e, scope, depth);
    auto obj = new_object(&cls, callee.qualified, e.span);
    for (auto& kw : args.keywords) {
      std::erase_if(obj->members, [&](const Member& m) { return m.name == kw.name; });
      obj->members.push_back(kw);
    }
    obj->complete = !args.unknown_spread;
    constructions_.push_back({&cls, callee.qualified, e.span, args.keywords, args.unknown_spread});
    switch (cls.role) {
      case ClassRole::TrainerConfig: objects_[obj->object_id] = obj; break;
      case ClassRole::Trainer: {
        TrainerUse use;
        use.trainer = &cls;
        use.span = e.span;
        if (const Member* a = obj->member("args"))
          use.args = a->value;
        else if (args.positional.size() > 1)
          use.args = args.positional[1];
        if (use.args && use.args->kind == PyValue::Kind::Object && objects_.count(use.args->object_id))
          use.args = objects_[use.args->object_id];
        trainers_.push_back(use);
        break;
      }
      case ClassRole::Accelerator:
        if (const Member* pc = obj->member("parallelism_config")) accelerator_pcs_.push_back(pc->value);
        break;
      case ClassRole::ArgParser: {
        // TrlParser((ScriptArguments, SFTConfig, ModelConfig)) or HfArgumentParser(SFTConfig)
        ValueRef types = !args.positional.empty() ? args.positional[0] : nullptr;
        if (const Member* dt = obj->member("dataclass_types")) types = dt->value;
        if (types && (types->kind == PyValue::Kind::Tuple || types->kind == PyValue::Kind::List))
          obj->parser_classes = types->items;
        else if (types)
          obj->parser_classes.push_back(types);
        parsers_.push_back(obj);
        break;
      }
      default: break;
    }
    return obj;
  }

  ValueRef parser_method(const PyValue& parser, const std::string& method, const py::Expr& e, Scope& scope, int depth) {
    Args args = eval_args(e, scope, depth);
    if (method != "parse_args_and_config" && method != "parse_args_into_dataclasses") return make_unknown(e.span);
    auto tuple = std::make_shared<PyValue>();
    tuple->kind = PyValue::Kind::Tuple;
    tuple->span = e.span;
    for (const auto& c : parser.parser_classes) {
      if (c->kind == PyValue::Kind::Symbol && c->cls) {
        auto obj = new_object(c->cls, c->qualified, e.span);
        obj->from_parser = true;
        if (c->cls->role == ClassRole::TrainerConfig) objects_[obj->object_id] = obj;
        tuple->items.push_back(obj);
      } else {
        tuple->items.push_back(make_unknown(e.span));
      }
    }
    for (const auto& kw : args.keywords)
      if (kw.name == "return_remaining_strings" && !(kw.value->is_const() && !kw.value->constant.truthy())) {
        tuple->items.push_back(make_unknown(e.span));
        parser_keeps_unknown_ = true;
      }
    if (parser.parser_classes.size() == 1 && tuple->items.size() == 1) return tuple;
    return tuple;
  }

  ValueRef call_function(StmtId fid, const std::vector<ValueRef>& positional, const std::vector<Member>& keywords,
                         Span site, int depth) {
    executed_.insert(fid);
    if (depth > kMaxCallDepth || active_.count(fid)) return make_unknown(site);
    const py::Stmt& f = m_.stmt(fid);
    Scope local;
    local.parent = &globals_;
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
        auto rest = std::make_shared<PyValue>();
        rest->kind = PyValue::Kind::Dict;
        for (const auto& kw : keywords) {
          bool named = false;
          for (const auto& q : f.params) named = named || q.name == kw.name;
          if (!named) rest->members.push_back(kw);
        }
        local.vars[p.name] = rest;
        continue;
      }
      ValueRef v;
      for (const auto& kw : keywords)
        if (kw.name == p.name) v = kw.value;
      if (!v && !p.keyword_only && pi < positional.size()) v = positional[pi++];
      if (!v && p.default_value != py::kNoExpr) v = eval(p.default_value, globals_, depth);
      local.vars[p.name] = v ? v : make_unknown(f.span);
    }
    active_.insert(fid);
    Frame frame;
    exec_block(f.body, local, frame, depth);
    active_.erase(fid);
    record_live(local);
    ValueRef result;
    for (const auto& r : frame.returns) result = result ? merge_values(result, r) : r;
    if (!frame.returned) result = result ? merge_values(result, make_const(Scalar::null(), site)) : nullptr;
    return result ? result : make_const(Scalar::null(), site);
  }

  const py::Module& m_;
  const Knowledge& k_;
  const YamlLoader& yaml_;
  std::vector<Construction> constructions_;
  bool parser_keeps_unknown_ = false;
  Scope globals_;
  std::size_t steps_ = 0;
  int next_object_ = 0;
  std::map<int, ValueRef> objects_;
  std::map<int, ValueRef> live_;
  std::vector<TrainerUse> trainers_;
  std::vector<ValueRef> accelerator_pcs_;
  std::vector<ValueRef> parsers_;
  std::set<StmtId> executed_;
  std::set<StmtId> active_;
};

}  // namespace

ScriptSummary evaluate_module(const py::Module& module, const Knowledge& knowledge, const YamlLoader& yaml) {
  Interpreter interp(module, knowledge, yaml);
  return interp.run();
}

}  // namespace trl
