#include "analyzer/parse/tree_sitter.hpp"

namespace trl::ts {

namespace {
struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};
}  // namespace

Tree parse(const TSLanguage* language, std::string_view text) {
  // One parser per thread and language would save a little; parsers are cheap next to parsing.
  std::unique_ptr<TSParser, ParserDeleter> parser(ts_parser_new());
  if (!ts_parser_set_language(parser.get(), language)) return nullptr;
  // Bound the time spent on pathological input (2 s of parsing per file).
  ts_parser_set_timeout_micros(parser.get(), 2'000'000);
  return Tree(ts_parser_parse_string(parser.get(), nullptr, text.data(), static_cast<uint32_t>(text.size())));
}

Span span(TSNode node, FileId file) {
  TSPoint s = ts_node_start_point(node), e = ts_node_end_point(node);
  return Span{file, ts_node_start_byte(node), ts_node_end_byte(node), Point{s.row, s.column}, Point{e.row, e.column}};
}

namespace {
std::vector<TSNode> collect(TSNode node, bool named_only) {
  std::vector<TSNode> out;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode c = ts_tree_cursor_current_node(&cursor);
      if (!named_only || ts_node_is_named(c)) out.push_back(c);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}
}  // namespace

std::vector<TSNode> named_children(TSNode node) {
  return collect(node, true);
}
std::vector<TSNode> children(TSNode node) {
  return collect(node, false);
}

std::vector<Comment> comments(TSNode root, std::string_view source, FileId file) {
  std::vector<Comment> out;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (;;) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    if (type(node) == "comment") {
      out.push_back({span(node, file), std::string(text(node, source))});
    } else if (ts_tree_cursor_goto_first_child(&cursor)) {
      continue;
    }
    // Next sibling, or the next sibling of the nearest ancestor that has one.
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor))) {
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

}  // namespace trl::ts
