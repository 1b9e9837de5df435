// Thin RAII wrappers over the tree-sitter C API and the three grammars we compile in.
// Extractors include this header (after extraction nothing touches a syntax tree), and the LSP
// server, which keeps each open document's last tree for incremental re-parsing.
#pragma once

#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/facts/file_facts.hpp"
#include "analyzer/source/source_file.hpp"

extern "C" {
const TSLanguage* tree_sitter_python();
const TSLanguage* tree_sitter_yaml();
const TSLanguage* tree_sitter_bash();
}

namespace trl::ts {

struct TreeDeleter {
  void operator()(TSTree* t) const { ts_tree_delete(t); }
};
using Tree = std::unique_ptr<TSTree, TreeDeleter>;

// CPU seconds one parse may use before it is cancelled (a safety net against grammar
// pathologies; real files of the 10 MB size limit parse in a few seconds).
inline constexpr double kParseCpuBudgetSeconds = 20.0;

// Parses `text` with `language`; returns null when the parse used up its CPU budget, or when
// tree-sitter 0.20.7 would corrupt its memory on the text (see last_parse_failure).
Tree parse(const TSLanguage* language, std::string_view text);

// Why the last ts::parse on this thread returned null.
enum class ParseFailure {
  None,
  CpuBudget,    // kParseCpuBudgetSeconds of CPU time used
  NodeTooWide,  // a node of more than 65,535 children: tree-sitter 0.20.7 corrupts its heap
  Unchecked,    // a text long enough to risk that, and no other process to try it in
};
ParseFailure last_parse_failure();
// Whether `text` is long enough that tree-sitter 0.20.7 might make a node of more than 65,535
// children from it (then ts::parse tries it in a child process first). A bound: true for far
// more texts than ever do it.
bool may_overflow_child_count(const TSLanguage* language, std::string_view text);
// The problem to report for it: "<language_name> could not be parsed ...; file skipped".
std::string parse_failure_message(std::string_view language_name);

// Tests only, for the parses that follow: another CPU budget than kParseCpuBudgetSeconds, and
// another wall-clock time for a parse's first attempt (as many microseconds as the budget has).
void set_parse_limits_for_testing(double budget_seconds, std::uint64_t first_attempt_micros);
// How many parses on this thread returned null as Unchecked: their result depends on the
// machine (whether a process could be started), not on the text, so it is never cached.
std::uint64_t unchecked_parses();
// Tests only: which other process tries the texts that risk tree-sitter's heap. Probe: the probe,
// else a fork (the default); Fork: a fork, as where no probe can be started (sanitized builds
// report the text unchecked then); None: no process, as where none can be started.
enum class OtherProcess { Probe, Fork, None };
void set_other_process_for_testing(OtherProcess allowed);
// Whether this build's allocator is a sanitizer's, which a fork of a multi-threaded process
// cannot use: such builds never fork.
bool sanitized_allocator();

// Incremental re-parsing of an edited document (the LSP server). While a ReparseScope is alive,
// the first parse on its thread of exactly `text` with `language` starts from `old` (the
// document's previous tree, already told of every edit with ts_tree_edit; null: a full parse)
// and keeps a copy of its result in `tree`, for the next edit. Other parses (a Markdown page's
// Python blocks, a `bash -c` string) are not affected.
struct Reparse {
  const TSLanguage* language = nullptr;
  std::string_view text;
  const TSTree* old = nullptr;
  Tree tree;              // out: the new tree; null when no parse of `text` happened
  bool used_old = false;  // out: the parse started from `old`
  bool consumed = false;
};
class ReparseScope {
 public:
  explicit ReparseScope(Reparse& reparse);
  ~ReparseScope();
  ReparseScope(const ReparseScope&) = delete;
  ReparseScope& operator=(const ReparseScope&) = delete;

 private:
  Reparse* previous_;
};
// The grammar of a file kind, or null (Markdown, notebooks and Makefiles parse parts of a file).
const TSLanguage* language_of(FileKind kind);

inline std::string_view text(TSNode node, std::string_view source) {
  uint32_t b = ts_node_start_byte(node), e = ts_node_end_byte(node);
  if (b > source.size() || e > source.size() || b > e) return {};
  return source.substr(b, e - b);
}

inline std::string_view type(TSNode node) {
  return ts_node_type(node);
}

// The id of field `name` in the grammar of `node`; 0 when the grammar has no such field.
TSFieldId field_id(TSNode node, const char* name);

// The child of `node` in field `name` (a string literal: ids are remembered by its address, as
// tree-sitter's own lookup compares the name with every field name of the grammar).
inline TSNode field(TSNode node, const char* name) {
  if (!node.tree) return node;                                   // a null node has no children
  return ts_node_child_by_field_id(node, field_id(node, name));  // id 0 (no such field): a null node
}

Span span(TSNode node, FileId file);

// Named children of `node` in order. Cheaper than ts_node_named_child(i) in a loop, which
// walks from the first child at every call.
std::vector<TSNode> named_children(TSNode node);
// All children, anonymous ones included (operators, keywords).
std::vector<TSNode> children(TSNode node);

// Every `comment` node under `root`, in source order (an iterative walk: no recursion limit).
std::vector<Comment> comments(TSNode root, std::string_view source, FileId file);

}  // namespace trl::ts
