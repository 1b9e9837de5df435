// A compact, tree-sitter-free form of a Python module: the statements and expressions the
// evaluator interprets. Expressions and statements live in arrays and refer to each other
// by index, so a module is one cheap-to-copy value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/facts/scalar.hpp"
#include "analyzer/source/source_file.hpp"

namespace trl::py {

using ExprId = std::uint32_t;
using StmtId = std::uint32_t;
inline constexpr ExprId kNoExpr = 0xffffffffu;

enum class ExprKind : std::uint8_t {
  Unknown,    // anything the evaluator does not model (lambda, comprehension, await, ...)
  Name,       // name
  Attribute,  // a.name
  Call,       // a(args)
  Constant,   // None, True, 1, 2.0, 'text'
  FString,    // f"..." with interpolation: a str of unknown value
  Dict,       // {k: v, **d}: elts = keys (kNoExpr for **), values
  List,
  Tuple,
  Set,
  BinOp,      // a op b (name = operator)
  UnaryOp,    // op a (name = "not", "-", "+", "~")
  BoolOp,     // a and b / a or b (elts)
  Compare,    // a op b op c (elts, ops in `ops`)
  IfExp,      // a if b else c (a = body, b = test, c = orelse)
  Subscript,  // a[b]
  Starred,    // *a inside a list or call
  NamedExpr,  // name := a (binds name, is a's value)
};

struct Argument {
  enum class Kind : std::uint8_t { Positional, Keyword, Star, DoubleStar };
  Kind kind = Kind::Positional;
  std::string keyword;
  ExprId value = kNoExpr;
  Span span;  // the whole argument (`packing=True`)
};

struct Expr {
  ExprKind kind = ExprKind::Unknown;
  Span span;
  std::string name;  // Name id, Attribute attr, operator
  Scalar constant;
  ExprId a = kNoExpr, b = kNoExpr, c = kNoExpr;
  std::vector<ExprId> elts;
  std::vector<ExprId> values;
  std::vector<std::string> ops;
  std::vector<Argument> args;
};

enum class StmtKind : std::uint8_t {
  Expr,
  Assign,
  AugAssign,
  Import,
  ImportFrom,
  FunctionDef,
  ClassDef,
  If,
  For,
  While,
  With,
  Try,
  Return,
  Other,
  Global,  // global a, b (names)
  Delete,  // del a, b["k"] (targets)
};

struct ImportAlias {
  std::string name;    // dotted name as written (`a.b`)
  std::string asname;  // alias, empty when none
  Span span;
};

struct Param {
  enum class Kind : std::uint8_t { Normal, Star, DoubleStar };
  std::string name;
  ExprId default_value = kNoExpr;
  Kind kind = Kind::Normal;
  bool keyword_only = false;
};

struct Stmt {
  StmtKind kind = StmtKind::Other;
  Span span;
  std::vector<ExprId> targets;  // Assign (a = b = v has two), AugAssign, For target, With `as`
  ExprId value = kNoExpr;       // Assign/AugAssign/Return/Expr value; If/While test; For iterable
  ExprId annotation = kNoExpr;  // Assign: `x: int = 1` or annotation only (`x: int`, value kNoExpr)
  std::string op;               // AugAssign operator
  std::string module;           // ImportFrom module (dots stripped)
  int level = 0;                // ImportFrom leading dots
  bool star = false;            // from m import *
  std::vector<ImportAlias> names;
  std::string name;  // FunctionDef/ClassDef
  std::vector<Param> params;
  std::vector<ExprId> bases;  // ClassDef bases; With: the context expressions (targets holds `as`, or kNoExpr)
  std::vector<ExprId> decorators;
  std::vector<StmtId> body;
  std::vector<StmtId> orelse;
  std::vector<std::vector<StmtId>> handlers;  // Try: except clauses and finally
};

struct Module {
  std::vector<Expr> exprs;
  std::vector<Stmt> stmts;
  std::vector<StmtId> body;
  bool has_syntax_error = false;

  const Expr& expr(ExprId id) const { return exprs[id]; }
  const Stmt& stmt(StmtId id) const { return stmts[id]; }
};

}  // namespace trl::py
