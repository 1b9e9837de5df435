#include "analyzer/parse/syntax_check.hpp"

#include "analyzer/parse/tree_sitter.hpp"

namespace trl {

std::size_t syntax_error_count(FileKind kind, std::string_view text) {
  const TSLanguage* language = nullptr;
  switch (kind) {
    case FileKind::Python: language = tree_sitter_python(); break;
    case FileKind::Yaml: language = tree_sitter_yaml(); break;
    case FileKind::Shell: language = tree_sitter_bash(); break;
    default: return 0;
  }
  ts::Tree tree = ts::parse(language, text);
  if (!tree) return 1;
  TSNode root = ts_tree_root_node(tree.get());
  if (!ts_node_has_error(root)) return 0;
  // Iterative walk over the subtrees that contain errors.
  std::size_t count = 0;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  bool done = false;
  while (!done) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    if ((ts::type(n) == "ERROR") || ts_node_is_missing(n)) ++count;
    if (ts_node_has_error(n) && !(ts::type(n) == "ERROR") && ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        done = true;
        break;
      }
    }
  }
  ts_tree_cursor_delete(&cursor);
  return count;
}

}  // namespace trl
