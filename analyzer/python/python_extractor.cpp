#include "analyzer/python/python_extractor.hpp"

#include <algorithm>
#include <cstdlib>

#include "analyzer/parse/tree_sitter.hpp"
#include "rules/tool/tool_rules.hpp"

namespace trl::python {

using namespace trl::py;

namespace {

constexpr int kMaxDepth = 150;
constexpr std::size_t kMaxElifChain = 512;

std::string strip_underscores(std::string_view t) {
  std::string out;
  for (char c : t)
    if (c != '_') out.push_back(c);
  return out;
}

class Converter {
 public:
  // Writes the module into `out` and the problems it meets into `facts`.
  Converter(std::string_view src, FileId file, PythonFacts& facts, Module& out)
      : src_(src), file_(file), facts_(facts), out_(out) {}

  std::vector<StmtId> block(TSNode node, int depth) {
    std::vector<StmtId> out;
    for (TSNode c : ts::named_children(node)) statement(c, depth, out);
    return out;
  }

 private:
  Module& m() { return out_; }

  ExprId add(Expr e) {
    m().exprs.push_back(std::move(e));
    return static_cast<ExprId>(m().exprs.size() - 1);
  }
  StmtId add(Stmt s) {
    m().stmts.push_back(std::move(s));
    return static_cast<StmtId>(m().stmts.size() - 1);
  }
  std::string text(TSNode n) const { return std::string(ts::text(n, src_)); }
  Span span(TSNode n) const { return ts::span(n, file_); }

  bool too_deep(TSNode n, int depth) {
    if (depth <= kMaxDepth) return false;
    if (!deep_reported_) {
      facts_.problems.push_back({tool_rules::kNestingTooDeep,
                                 "Python nested more than 150 levels deep; the deeper part is not analysed", span(n)});
      deep_reported_ = true;
    }
    return true;
  }

  ExprId unknown(TSNode n) {
    Expr e;
    e.kind = ExprKind::Unknown;
    e.span = span(n);
    return add(std::move(e));
  }

  ExprId constant(TSNode n, Scalar v) {
    Expr e;
    e.kind = ExprKind::Constant;
    e.span = span(n);
    e.constant = m().add_constant(std::move(v));
    return add(std::move(e));
  }

  ExprId expr(TSNode n, int depth) {
    if (ts_node_is_null(n)) return kNoExpr;
    if (too_deep(n, depth)) return unknown(n);
    auto t = ts::type(n);
    if (t == "identifier") {
      Expr e;
      e.kind = ExprKind::Name;
      e.span = span(n);
      e.name = text(n);
      return add(std::move(e));
    }
    if (t == "true") return constant(n, Scalar::boolean(true));
    if (t == "false") return constant(n, Scalar::boolean(false));
    if (t == "none") return constant(n, Scalar::null());
    if (t == "ellipsis") {
      // `...`: in an example's call it stands for arguments left out (PyValue-wise unknown).
      ExprId id = unknown(n);
      m().exprs[id].name = "...";
      return id;
    }
    if (t == "integer") return integer(n);
    if (t == "float") {
      std::string v = strip_underscores(ts::text(n, src_));
      if (!v.empty() && (v.back() == 'j' || v.back() == 'J')) return unknown(n);
      Scalar s = Scalar::floating(std::strtod(v.c_str(), nullptr));
      s.s = text(n);
      return constant(n, s);
    }
    if (t == "string") return string(n);
    if (t == "concatenated_string") {
      std::string joined;
      bool dynamic = false;
      for (TSNode part : ts::named_children(n)) {
        bool fields = false;
        joined += decode_string_literal(ts::text(part, src_), fields);
        dynamic = dynamic || fields;
      }
      if (dynamic) {
        Expr e;
        e.kind = ExprKind::FString;
        e.span = span(n);
        return add(std::move(e));
      }
      return constant(n, Scalar::string(joined));
    }
    if (t == "parenthesized_expression") {
      auto kids = ts::named_children(n);
      return kids.empty() ? unknown(n) : expr(kids.front(), depth + 1);
    }
    if (t == "attribute") {
      Expr e;
      e.kind = ExprKind::Attribute;
      e.span = span(n);
      e.a = expr(ts::field(n, "object"), depth + 1);
      e.name = text(ts::field(n, "attribute"));
      return add(std::move(e));
    }
    if (t == "call") return call(n, depth);
    if (t == "dictionary") {
      Expr e;
      e.kind = ExprKind::Dict;
      e.span = span(n);
      std::vector<ExprId> keys, values;
      for (TSNode c : ts::named_children(n)) {
        auto ct = ts::type(c);
        if (ct == "pair") {
          keys.push_back(expr(ts::field(c, "key"), depth + 1));
          values.push_back(expr(ts::field(c, "value"), depth + 1));
        } else if (ct == "dictionary_splat") {
          auto kids = ts::named_children(c);
          keys.push_back(kNoExpr);
          values.push_back(kids.empty() ? unknown(c) : expr(kids.front(), depth + 1));
        }
      }
      e.elts = m().add_ids(std::move(keys));
      e.values = m().add_ids(std::move(values));
      return add(std::move(e));
    }
    if (t == "list" || t == "tuple" || t == "set" || t == "expression_list" || t == "pattern_list" ||
        t == "tuple_pattern" || t == "list_pattern") {
      Expr e;
      e.kind = (t == "list" || t == "list_pattern") ? ExprKind::List : t == "set" ? ExprKind::Set : ExprKind::Tuple;
      e.span = span(n);
      std::vector<ExprId> items;
      for (TSNode c : ts::named_children(n)) {
        if (ts::type(c) == "comment") continue;
        items.push_back(expr(c, depth + 1));
      }
      e.elts = m().add_ids(std::move(items));
      return add(std::move(e));
    }
    if (t == "list_splat" || t == "dictionary_splat") {
      auto kids = ts::named_children(n);
      Expr e;
      e.kind = ExprKind::Starred;
      e.span = span(n);
      e.a = kids.empty() ? unknown(n) : expr(kids.front(), depth + 1);
      return add(std::move(e));
    }
    if (t == "binary_operator") {
      Expr e;
      e.kind = ExprKind::BinOp;
      e.span = span(n);
      e.a = expr(ts::field(n, "left"), depth + 1);
      e.b = expr(ts::field(n, "right"), depth + 1);
      TSNode op = ts::field(n, "operator");
      e.name = ts_node_is_null(op) ? "?" : text(op);
      return add(std::move(e));
    }
    if (t == "unary_operator" || t == "not_operator") {
      Expr e;
      e.kind = ExprKind::UnaryOp;
      e.span = span(n);
      e.a = expr(ts::field(n, "argument"), depth + 1);
      if (t == "not_operator") {
        e.name = "not";
      } else {
        TSNode op = ts::field(n, "operator");
        e.name = ts_node_is_null(op) ? "-" : text(op);
      }
      return add(std::move(e));
    }
    if (t == "boolean_operator") {
      Expr e;
      e.kind = ExprKind::BoolOp;
      e.span = span(n);
      const ExprId left = expr(ts::field(n, "left"), depth + 1);
      const ExprId right = expr(ts::field(n, "right"), depth + 1);
      e.elts = m().add_ids({left, right});
      TSNode op = ts::field(n, "operator");
      e.name = ts_node_is_null(op) ? "and" : text(op);
      return add(std::move(e));
    }
    if (t == "comparison_operator") {
      Expr e;
      e.kind = ExprKind::Compare;
      e.span = span(n);
      std::vector<ExprId> operands;
      std::vector<std::string> ops;
      for (TSNode c : ts::children(n)) {
        if (ts_node_is_named(c)) {
          operands.push_back(expr(c, depth + 1));
        } else {
          // Operators such as `not in` arrive as two tokens; join them.
          std::string op = text(c);
          if (!ops.empty() && ops.size() >= operands.size())
            ops.back() += " " + op;
          else
            ops.push_back(op);
        }
      }
      e.elts = m().add_ids(std::move(operands));
      e.ops = m().add_ops(std::move(ops));
      return add(std::move(e));
    }
    if (t == "named_expression") {
      TSNode name = ts::field(n, "name");
      TSNode value = ts::field(n, "value");
      if (ts_node_is_null(name) || ts_node_is_null(value)) return unknown(n);
      Expr e;
      e.kind = ExprKind::NamedExpr;
      e.span = span(n);
      e.name = text(name);
      e.a = expr(value, depth + 1);
      return add(std::move(e));
    }
    if (t == "conditional_expression") {
      auto kids = ts::named_children(n);
      if (kids.size() < 3) return unknown(n);
      Expr e;
      e.kind = ExprKind::IfExp;
      e.span = span(n);
      e.a = expr(kids[0], depth + 1);
      e.b = expr(kids[1], depth + 1);
      e.c = expr(kids[2], depth + 1);
      return add(std::move(e));
    }
    if (t == "subscript") {
      Expr e;
      e.kind = ExprKind::Subscript;
      e.span = span(n);
      e.a = expr(ts::field(n, "value"), depth + 1);
      e.b = expr(ts::field(n, "subscript"), depth + 1);
      return add(std::move(e));
    }
    return unknown(n);
  }

  ExprId integer(TSNode n) {
    std::string v = strip_underscores(ts::text(n, src_));
    int base = 10;
    std::size_t skip = 0;
    if (v.size() > 1 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
      base = 16, skip = 2;
    else if (v.size() > 1 && v[0] == '0' && (v[1] == 'o' || v[1] == 'O'))
      base = 8, skip = 2;
    else if (v.size() > 1 && v[0] == '0' && (v[1] == 'b' || v[1] == 'B'))
      base = 2, skip = 2;
    if (!v.empty() && (v.back() == 'j' || v.back() == 'J' || v.back() == 'l' || v.back() == 'L')) return unknown(n);
    errno = 0;
    char* end = nullptr;
    long long value = std::strtoll(v.c_str() + skip, &end, base);
    if (errno != 0) return unknown(n);  // beyond 64 bits
    Scalar s = Scalar::integer(value);
    s.s = text(n);
    return constant(n, s);
  }

  ExprId string(TSNode n) {
    bool fields = false;
    std::string value = decode_string_literal(ts::text(n, src_), fields);
    for (TSNode c : ts::named_children(n))
      if (ts::type(c) == "interpolation") fields = true;
    if (fields) {
      Expr e;
      e.kind = ExprKind::FString;
      e.span = span(n);
      return add(std::move(e));
    }
    return constant(n, Scalar::string(value));
  }

  ExprId call(TSNode n, int depth) {
    Expr e;
    e.kind = ExprKind::Call;
    e.span = span(n);
    e.a = expr(ts::field(n, "function"), depth + 1);
    TSNode args = ts::field(n, "arguments");
    std::vector<Argument> list;
    if (!ts_node_is_null(args)) {
      if (ts::type(args) == "generator_expression") {
        Argument a;
        a.value = unknown(args);
        a.span = span(args);
        list.push_back(a);
      } else {
        for (TSNode c : ts::named_children(args)) {
          auto ct = ts::type(c);
          Argument a;
          a.span = span(c);
          if (ct == "comment") continue;
          if (ct == "keyword_argument") {
            a.kind = Argument::Kind::Keyword;
            a.keyword = text(ts::field(c, "name"));
            a.value = expr(ts::field(c, "value"), depth + 1);
          } else if (ct == "list_splat") {
            auto kids = ts::named_children(c);
            a.kind = Argument::Kind::Star;
            a.value = kids.empty() ? unknown(c) : expr(kids.front(), depth + 1);
          } else if (ct == "dictionary_splat") {
            auto kids = ts::named_children(c);
            a.kind = Argument::Kind::DoubleStar;
            a.value = kids.empty() ? unknown(c) : expr(kids.front(), depth + 1);
          } else {
            a.value = expr(c, depth + 1);
          }
          list.push_back(std::move(a));
        }
      }
    }
    e.args = m().add_args(std::move(list));
    return add(std::move(e));
  }

  std::string dotted(TSNode n) { return text(n); }

  void statement(TSNode n, int depth, std::vector<StmtId>& out) {
    if (too_deep(n, depth)) return;
    auto t = ts::type(n);
    if (t == "expression_statement") {
      for (TSNode c : ts::named_children(n)) {
        auto ct = ts::type(c);
        if (ct == "assignment") {
          assignment(c, depth, out);
        } else if (ct == "augmented_assignment") {
          Stmt s;
          s.kind = StmtKind::AugAssign;
          s.span = span(c);
          s.targets.push_back(expr(ts::field(c, "left"), depth + 1));
          s.value = expr(ts::field(c, "right"), depth + 1);
          TSNode op = ts::field(c, "operator");
          s.op = ts_node_is_null(op) ? "" : text(op);
          out.push_back(add(std::move(s)));
        } else {
          Stmt s;
          s.kind = StmtKind::Expr;
          s.span = span(c);
          s.value = expr(c, depth + 1);
          out.push_back(add(std::move(s)));
        }
      }
      return;
    }
    if (t == "import_statement") {
      Stmt s;
      s.kind = StmtKind::Import;
      s.span = span(n);
      for (TSNode c : ts::named_children(n)) {
        ImportAlias a;
        a.span = span(c);
        if (ts::type(c) == "aliased_import") {
          a.name = dotted(ts::field(c, "name"));
          a.asname = text(ts::field(c, "alias"));
        } else if (ts::type(c) == "dotted_name") {
          a.name = dotted(c);
        } else {
          continue;
        }
        s.names.push_back(std::move(a));
      }
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "import_from_statement" || t == "future_import_statement") {
      Stmt s;
      s.kind = StmtKind::ImportFrom;
      s.span = span(n);
      TSNode mod = ts::field(n, "module_name");
      if (t == "future_import_statement") {
        s.module = "__future__";
      } else if (!ts_node_is_null(mod)) {
        if (ts::type(mod) == "relative_import") {
          for (TSNode c : ts::named_children(mod)) {
            if (ts::type(c) == "import_prefix")
              s.level = static_cast<int>(ts::text(c, src_).size());
            else if (ts::type(c) == "dotted_name")
              s.module = dotted(c);
          }
        } else {
          s.module = dotted(mod);
        }
      }
      for (TSNode c : ts::named_children(n)) {
        if (ts_node_eq(c, mod)) continue;
        auto ct = ts::type(c);
        if (ct == "wildcard_import") {
          s.star = true;
        } else if (ct == "aliased_import") {
          ImportAlias a;
          a.span = span(c);
          a.name = dotted(ts::field(c, "name"));
          a.asname = text(ts::field(c, "alias"));
          s.names.push_back(std::move(a));
        } else if (ct == "dotted_name") {
          ImportAlias a;
          a.span = span(c);
          a.name = dotted(c);
          s.names.push_back(std::move(a));
        }
      }
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "decorated_definition") {
      std::vector<ExprId> decorators;
      TSNode def = ts::field(n, "definition");
      for (TSNode c : ts::named_children(n)) {
        if (ts::type(c) == "decorator") {
          auto kids = ts::named_children(c);
          decorators.push_back(kids.empty() ? unknown(c) : expr(kids.front(), depth + 1));
        }
      }
      if (ts_node_is_null(def)) return;
      std::size_t before = out.size();
      statement(def, depth, out);
      if (out.size() > before) m().stmts[out.back()].decorators = std::move(decorators);
      return;
    }
    if (t == "function_definition") {
      Stmt s;
      s.kind = StmtKind::FunctionDef;
      s.span = span(n);
      s.name = text(ts::field(n, "name"));
      parameters(ts::field(n, "parameters"), depth, s.params);
      s.body = block_of(ts::field(n, "body"), depth);
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "class_definition") {
      Stmt s;
      s.kind = StmtKind::ClassDef;
      s.span = span(n);
      s.name = text(ts::field(n, "name"));
      TSNode sup = ts::field(n, "superclasses");
      if (!ts_node_is_null(sup))
        for (TSNode c : ts::named_children(sup))
          if (ts::type(c) != "keyword_argument") s.bases.push_back(expr(c, depth + 1));
      s.body = block_of(ts::field(n, "body"), depth);
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "if_statement") {
      if_chain(n, depth, out);
      return;
    }
    if (t == "match_statement") {
      // One case runs, or none: an if/elif chain on tests that are not known (the patterns are
      // not modelled; the names they capture stay unbound, so unknown).
      std::vector<TSNode> cases;
      TSNode body = ts::field(n, "body");
      if (!ts_node_is_null(body))
        for (TSNode c : ts::named_children(body))
          if (ts::type(c) == "case_clause") cases.push_back(c);
      for (TSNode subject : ts::named_children(n))
        if (!ts_node_eq(subject, body) && ts::type(subject) != "comment") {
          Stmt e;  // the subject is evaluated (a call in it runs)
          e.kind = StmtKind::Expr;
          e.span = span(subject);
          e.value = expr(subject, depth + 1);
          out.push_back(add(std::move(e)));
        }
      StmtId current = 0;
      bool first = true;
      int level = depth;
      std::size_t count = 0;
      for (TSNode c : cases) {
        if (++count > kMaxElifChain) {
          facts_.problems.push_back({tool_rules::kNestingTooDeep,
                                     "match statement with more than " + std::to_string(kMaxElifChain) +
                                         " cases; the rest of it is not analysed",
                                     span(c)});
          break;
        }
        if (count % 8 == 0 && too_deep(c, ++level)) break;
        Stmt e;
        e.kind = StmtKind::If;
        e.span = span(c);
        e.value = unknown(c);
        e.body = block_of(ts::field(c, "consequence"), level);
        StmtId id = add(std::move(e));
        if (first)
          out.push_back(id);
        else
          m().stmts[current].orelse.push_back(id);
        current = id;
        first = false;
      }
      return;
    }
    if (t == "global_statement") {
      Stmt s;
      s.kind = StmtKind::Global;
      s.span = span(n);
      for (TSNode c : ts::named_children(n))
        if (ts::type(c) == "identifier") s.names.push_back(ImportAlias{text(c), {}, span(c)});
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "delete_statement") {
      Stmt s;
      s.kind = StmtKind::Delete;
      s.span = span(n);
      for (TSNode c : ts::named_children(n)) {
        if (ts::type(c) == "expression_list") {
          for (TSNode x : ts::named_children(c)) s.targets.push_back(expr(x, depth + 1));
        } else if (ts::type(c) != "comment") {
          s.targets.push_back(expr(c, depth + 1));
        }
      }
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "for_statement" || t == "while_statement") {
      Stmt s;
      s.kind = t == "for_statement" ? StmtKind::For : StmtKind::While;
      s.span = span(n);
      if (s.kind == StmtKind::For) {
        s.targets.push_back(expr(ts::field(n, "left"), depth + 1));
        s.value = expr(ts::field(n, "right"), depth + 1);
      } else {
        s.value = expr(ts::field(n, "condition"), depth + 1);
      }
      s.body = block_of(ts::field(n, "body"), depth);
      TSNode alt = ts::field(n, "alternative");
      if (!ts_node_is_null(alt)) s.orelse = block_of(ts::field(alt, "body"), depth);
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "with_statement") {
      Stmt s;
      s.kind = StmtKind::With;
      s.span = span(n);
      // with_clause > with_item(value: as_pattern(expr, alias: as_pattern_target) | expr)
      for (TSNode clause : ts::named_children(n)) {
        if (ts::type(clause) != "with_clause") continue;
        for (TSNode item : ts::named_children(clause)) {
          if (ts::type(item) != "with_item") continue;
          TSNode v = ts::field(item, "value");
          if (ts_node_is_null(v)) continue;
          if (ts::type(v) == "as_pattern") {
            auto kids = ts::named_children(v);
            s.bases.push_back(kids.empty() ? unknown(v) : expr(kids.front(), depth + 1));
            ExprId target = kNoExpr;
            for (TSNode k : kids) {
              if (ts::type(k) != "as_pattern_target") continue;
              auto inner = ts::named_children(k);
              target = expr(inner.empty() ? k : inner.front(), depth + 1);
            }
            s.targets.push_back(target);
          } else {
            s.bases.push_back(expr(v, depth + 1));
            s.targets.push_back(kNoExpr);
          }
        }
      }
      s.body = block_of(ts::field(n, "body"), depth);
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "try_statement") {
      Stmt s;
      s.kind = StmtKind::Try;
      s.span = span(n);
      s.body = block_of(ts::field(n, "body"), depth);
      for (TSNode c : ts::named_children(n)) {
        auto ct = ts::type(c);
        if (ct == "except_clause" || ct == "except_group_clause" || ct == "finally_clause") {
          for (TSNode b : ts::named_children(c))
            if (ts::type(b) == "block") s.handlers.push_back(block(b, depth + 1));
        } else if (ct == "else_clause") {
          s.orelse = block_of(ts::field(c, "body"), depth);
        }
      }
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "return_statement") {
      Stmt s;
      s.kind = StmtKind::Return;
      s.span = span(n);
      auto kids = ts::named_children(n);
      if (!kids.empty()) s.value = expr(kids.front(), depth + 1);
      out.push_back(add(std::move(s)));
      return;
    }
    if (t == "block") {
      for (TSNode c : ts::named_children(n)) statement(c, depth + 1, out);
      return;
    }
    if (t == "ERROR") {
      // Keep what parses inside an error node: a half-typed line should not hide the rest.
      for (TSNode c : ts::named_children(n)) statement(c, depth + 1, out);
      return;
    }
    // pass, break, continue, raise, assert, global, del, print, ...: nothing to model.
  }

  std::vector<StmtId> block_of(TSNode b, int depth) {
    if (ts_node_is_null(b)) return {};
    return block(b, depth + 1);
  }

  void if_chain(TSNode n, int depth, std::vector<StmtId>& out) {
    Stmt s;
    s.kind = StmtKind::If;
    s.span = span(n);
    s.value = expr(ts::field(n, "condition"), depth + 1);
    s.body = block_of(ts::field(n, "consequence"), depth);
    // elif/else clauses: each elif becomes a nested If in orelse.
    std::vector<TSNode> alternatives;
    for (TSNode c : ts::named_children(n)) {
      auto ct = ts::type(c);
      if (ct == "elif_clause" || ct == "else_clause") alternatives.push_back(c);
    }
    StmtId head = add(std::move(s));
    out.push_back(head);
    StmtId current = head;
    // Each elif nests one level deeper in the IR (and in the evaluator's recursion): bound
    // the chain, and let its length count towards the nesting of what is inside it.
    int level = depth;
    std::size_t count = 0;
    for (TSNode alt : alternatives) {
      if (++count > kMaxElifChain) {
        facts_.problems.push_back(
            {tool_rules::kNestingTooDeep,
             "if/elif chain longer than " + std::to_string(kMaxElifChain) + " branches; the rest of it is not analysed",
             span(alt)});
        break;
      }
      if (count % 8 == 0 && too_deep(alt, ++level)) break;
      if (ts::type(alt) == "elif_clause") {
        Stmt e;
        e.kind = StmtKind::If;
        e.span = span(alt);
        e.value = expr(ts::field(alt, "condition"), level + 1);
        e.body = block_of(ts::field(alt, "consequence"), level);
        StmtId id = add(std::move(e));
        m().stmts[current].orelse.push_back(id);
        current = id;
      } else {
        auto body = block_of(ts::field(alt, "body"), level);
        m().stmts[current].orelse = std::move(body);
      }
    }
  }

  void assignment(TSNode n, int depth, std::vector<StmtId>& out) {
    Stmt s;
    s.kind = StmtKind::Assign;
    s.span = span(n);
    s.targets.push_back(expr(ts::field(n, "left"), depth + 1));
    TSNode type = ts::field(n, "type");
    if (!ts_node_is_null(type)) {
      auto kids = ts::named_children(type);
      s.annotation = expr(kids.empty() ? type : kids.front(), depth + 1);
    }
    TSNode right = ts::field(n, "right");
    // a = b = value: the right side is itself an assignment.
    while (!ts_node_is_null(right) && ts::type(right) == "assignment") {
      s.targets.push_back(expr(ts::field(right, "left"), depth + 1));
      right = ts::field(right, "right");
    }
    // `x: int` alone declares a (dataclass) field without a value.
    if (!ts_node_is_null(right)) s.value = expr(right, depth + 1);
    if (ts_node_is_null(right) && s.annotation == kNoExpr) return;
    out.push_back(add(std::move(s)));
  }

  void parameters(TSNode params, int depth, std::vector<Param>& out) {
    if (ts_node_is_null(params)) return;
    bool keyword_only = false;
    for (TSNode c : ts::named_children(params)) {
      auto t = ts::type(c);
      Param p;
      p.keyword_only = keyword_only;
      if (t == "identifier") {
        p.name = text(c);
      } else if (t == "default_parameter" || t == "typed_default_parameter") {
        p.name = text(ts::field(c, "name"));
        p.default_value = expr(ts::field(c, "value"), depth + 1);
      } else if (t == "typed_parameter") {
        auto kids = ts::named_children(c);
        if (kids.empty()) continue;
        auto kt = ts::type(kids.front());
        if (kt == "list_splat_pattern" || kt == "dictionary_splat_pattern") {
          auto inner = ts::named_children(kids.front());
          p.name = inner.empty() ? "" : text(inner.front());
          p.kind = kt == "list_splat_pattern" ? Param::Kind::Star : Param::Kind::DoubleStar;
          if (p.kind == Param::Kind::Star) keyword_only = true;
        } else {
          p.name = text(kids.front());
        }
      } else if (t == "list_splat_pattern" || t == "dictionary_splat_pattern") {
        auto inner = ts::named_children(c);
        p.name = inner.empty() ? "" : text(inner.front());
        p.kind = t == "list_splat_pattern" ? Param::Kind::Star : Param::Kind::DoubleStar;
        if (p.kind == Param::Kind::Star) keyword_only = true;
      } else if (t == "keyword_separator") {
        keyword_only = true;
        continue;
      } else {
        continue;  // positional_separator `/`
      }
      out.push_back(std::move(p));
    }
  }

  std::string_view src_;
  FileId file_;
  PythonFacts& facts_;
  Module& out_;
  bool deep_reported_ = false;
};

// The arrays a module is built in, one set per thread and kept from one file to the next
// (extract below): a module's size is known only once it is built, and its arrays are then copied
// at their exact size. Reserving from the text's size held twice the memory a module needs (real
// code averages one expression per 35 bytes and one statement per 190, the densest file of
// huggingface/trl one expression per 10 bytes), and growing by doubling moved every expression
// and touched fresh memory at each step.
template <typename T>
void move_exact(std::vector<T>& from, std::vector<T>& to) {
  to.clear();
  to.reserve(from.size());
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  from.clear();
}

void clear_keeping_capacity(Module& m) {
  m.exprs.clear();
  m.stmts.clear();
  m.body.clear();
  m.constant_pool.clear();
  m.id_pool.clear();
  m.op_pool.clear();
  m.arg_pool.clear();
}

void move_exact(Module& from, Module& to) {
  move_exact(from.exprs, to.exprs);
  move_exact(from.stmts, to.stmts);
  move_exact(from.body, to.body);
  move_exact(from.constant_pool, to.constant_pool);
  move_exact(from.id_pool, to.id_pool);
  move_exact(from.op_pool, to.op_pool);
  move_exact(from.arg_pool, to.arg_pool);
}

}  // namespace

std::string decode_string_literal(std::string_view lit, bool& has_fields) {
  has_fields = false;
  std::size_t i = 0;
  bool raw = false, fstring = false, bytes = false;
  while (i < lit.size() && lit[i] != '"' && lit[i] != '\'') {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(lit[i])));
    raw = raw || c == 'r';
    fstring = fstring || c == 'f';
    bytes = bytes || c == 'b';
    ++i;
  }
  (void)bytes;
  std::string_view body = lit.substr(i);
  std::size_t q = 1;
  if (body.size() >= 6 && (body.substr(0, 3) == "\"\"\"" || body.substr(0, 3) == "'''")) q = 3;
  if (body.size() < 2 * q) return {};
  body = body.substr(q, body.size() - 2 * q);
  std::string out;
  for (std::size_t k = 0; k < body.size(); ++k) {
    char c = body[k];
    if (fstring && (c == '{' || c == '}')) {
      if (k + 1 < body.size() && body[k + 1] == c) {
        out.push_back(c);
        ++k;
        continue;
      }
      has_fields = true;
      continue;
    }
    if (raw || c != '\\' || k + 1 >= body.size()) {
      out.push_back(c);
      continue;
    }
    char e = body[++k];
    switch (e) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case '0': out.push_back('\0'); break;
      case '\\': out.push_back('\\'); break;
      case '\'': out.push_back('\''); break;
      case '"': out.push_back('"'); break;
      case '\n': break;
      default: out.push_back('\\'); out.push_back(e);
    }
  }
  return out;
}

PythonFacts extract(std::string_view text, FileId file) {
  PythonFacts facts;
  ts::Tree tree = ts::parse(tree_sitter_python(), text);
  if (!tree) {
    facts.problems.push_back({tool_rules::kSyntaxError, ts::parse_failure_message("Python"), Span{file}});
    return facts;
  }
  TSNode root = ts_tree_root_node(tree.get());
  thread_local Module scratch;
  // Emptied first (capacity kept): a conversion ended by an exception leaves its part-built
  // module there.
  clear_keeping_capacity(scratch);
  Converter conv(text, file, facts, scratch);
  scratch.body = conv.block(root, 0);
  move_exact(scratch, facts.module);
  facts.module.has_syntax_error = ts_node_has_error(root);
  facts.comments = ts::comments(root, text, file);
  return facts;
}

}  // namespace trl::python
