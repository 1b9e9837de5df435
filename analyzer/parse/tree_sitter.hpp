// Thin RAII wrappers over the tree-sitter C API and the three grammars we compile in.
// Only extractors include this header: after extraction nothing touches a syntax tree.
#pragma once

#include <tree_sitter/api.h>

#include <memory>
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

// Parses `text` with `language`; returns null when the parse used up its CPU budget.
Tree parse(const TSLanguage* language, std::string_view text);

inline std::string_view text(TSNode node, std::string_view source) {
  uint32_t b = ts_node_start_byte(node), e = ts_node_end_byte(node);
  if (b > source.size() || e > source.size() || b > e) return {};
  return source.substr(b, e - b);
}

inline std::string_view type(TSNode node) {
  return ts_node_type(node);
}

inline TSNode field(TSNode node, const char* name) {
  return ts_node_child_by_field_name(node, name, static_cast<uint32_t>(std::char_traits<char>::length(name)));
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
