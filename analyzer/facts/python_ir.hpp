// A compact, tree-sitter-free form of a Python module: the statements and expressions the
// evaluator interprets. Expressions and statements live in arrays and refer to each other
// by index, so a module is one cheap-to-copy value.
#pragma once

#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "analyzer/facts/scalar.hpp"
#include "analyzer/source/source_file.hpp"

namespace trl::py {

using ExprId = std::uint32_t;
using StmtId = std::uint32_t;
inline constexpr ExprId kNoExpr = 0xffffffffu;
inline constexpr std::uint32_t kNoConstant = 0xffffffffu;

// A run of entries in one of a module's pools: [begin, begin + size).
struct Range {
  std::uint32_t begin = 0;
  std::uint32_t size = 0;
};

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

// An expression holds no container of its own: what only some kinds have (a constant, the
// elements of a list, the arguments of a call) is a range of the module's pools, read through
// Module::constant, elts, values, ops and args. Most expressions are names and attributes, and
// an expression is about half the size it would be with four vectors and a Scalar in it.
struct Expr {
  ExprKind kind = ExprKind::Unknown;
  Span span;
  std::string name;  // Name id, Attribute attr, operator
  ExprId a = kNoExpr, b = kNoExpr, c = kNoExpr;
  std::uint32_t constant = kNoConstant;  // Constant: its index in Module::constant_pool
  Range elts;                            // List/Tuple/Set items, Dict keys, BoolOp and Compare operands
  Range values;                          // Dict values
  Range ops;                             // Compare operators
  Range args;                            // Call arguments
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
  // The pools an expression's ranges and constant index point into.
  std::vector<Scalar> constant_pool;
  std::vector<ExprId> id_pool;
  std::vector<std::string> op_pool;
  std::vector<Argument> arg_pool;
  bool has_syntax_error = false;

  const Expr& expr(ExprId id) const { return exprs[id]; }
  const Stmt& stmt(StmtId id) const { return stmts[id]; }

  // A constant's value; null for an expression of another kind.
  const Scalar& constant(const Expr& e) const {
    static const Scalar none;
    return e.constant == kNoConstant ? none : constant_pool[e.constant];
  }
  std::span<const ExprId> elts(const Expr& e) const { return in(id_pool, e.elts); }
  std::span<const ExprId> values(const Expr& e) const { return in(id_pool, e.values); }
  std::span<const std::string> ops(const Expr& e) const { return in(op_pool, e.ops); }
  std::span<const Argument> args(const Expr& e) const { return in(arg_pool, e.args); }

  // Appends to a pool and returns the range or index that names what was appended.
  std::uint32_t add_constant(Scalar v) {
    constant_pool.push_back(std::move(v));
    return static_cast<std::uint32_t>(constant_pool.size() - 1);
  }
  Range add_ids(std::vector<ExprId> ids) { return append(id_pool, std::move(ids)); }
  Range add_ops(std::vector<std::string> ops) { return append(op_pool, std::move(ops)); }
  Range add_args(std::vector<Argument> args) { return append(arg_pool, std::move(args)); }

  // Whether a range lies within its pool (a decoded module's are checked before use).
  static bool fits(Range r, std::size_t pool_size) { return r.begin <= pool_size && r.size <= pool_size - r.begin; }

 private:
  template <typename T>
  static std::span<const T> in(const std::vector<T>& pool, Range r) {
    return r.size == 0 ? std::span<const T>{} : std::span<const T>(pool.data() + r.begin, r.size);
  }
  template <typename T>
  static Range append(std::vector<T>& pool, std::vector<T> items) {
    Range r{static_cast<std::uint32_t>(pool.size()), static_cast<std::uint32_t>(items.size())};
    pool.insert(pool.end(), std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
    return r;
  }
};

}  // namespace trl::py
