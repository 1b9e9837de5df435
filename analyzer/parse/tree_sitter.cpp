#include "analyzer/parse/tree_sitter.hpp"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

namespace trl::ts {

namespace {
struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};

// The CPU time one parse may take is bounded without a thread of its own: tree-sitter's timeout
// counts wall-clock time (which would make the result depend on the machine's load: a busy CI
// box would skip files a quiet one parses), so the parse runs in slices of kSliceMicros of wall
// time. A parse that times out keeps its state in the parser, and calling ts_parser_parse again
// with the same arguments resumes it (tree-sitter 0.20.7, tree_sitter/api.h, ts_parser_parse);
// between slices the thread's CPU clock is compared with the budget. The same input gives the same output on any
// machine that is not orders of magnitude slower. (This was a watchdog thread that woke every
// 50 ms for the life of the process: one more thread to start in every run, and a lock, a list
// entry and two CPU-clock reads for every parse.)
constexpr std::uint64_t kSliceMicros = 50000;
std::atomic<std::uint64_t> slice_micros{kSliceMicros};

double thread_cpu_seconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::atomic<double> cpu_budget_seconds{kParseCpuBudgetSeconds};

// tree-sitter 0.20.7 (Debian 12) corrupts its heap when one run of "extras" (comments, line
// continuations) reaches 65,535 tokens (tree-sitter issue #2134, fixed in 0.20.8). All three
// grammars write comments with `#`; a run is the comment-only, continuation-only and blank
// lines between two lines of code. Runs that long are blanked (bytes become spaces, so every
// offset, line and column stays the same): a 60,000-line comment holds nothing trl-lint reads.
constexpr std::size_t kMaxExtrasRun = 60000;

std::optional<std::string> without_long_extra_runs(std::string_view text) {
  std::optional<std::string> copy;
  std::size_t run_start = 0, run_extras = 0, pos = 0;
  auto close_run = [&](std::size_t end) {
    if (run_extras >= kMaxExtrasRun) {
      if (!copy) copy.emplace(text);
      for (std::size_t i = run_start; i < end; ++i)
        if ((*copy)[i] != '\n' && (*copy)[i] != '\r') (*copy)[i] = ' ';
    }
    run_extras = 0;
  };
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    std::size_t a = line.find_first_not_of(" \t\r\f\v");
    const bool blank = a == std::string_view::npos;
    const bool extra =
        !blank && (line[a] == '#' || line.substr(a).find_first_not_of("\\ \t\r") == std::string_view::npos);
    if (blank || extra) {
      if (run_extras == 0) run_start = pos;
      if (extra) ++run_extras;
    } else {
      close_run(pos);
    }
    pos = end + 1;
  }
  close_run(text.size());
  return copy;
}

}  // namespace

namespace {
thread_local Reparse* current_reparse = nullptr;
}  // namespace

ReparseScope::ReparseScope(Reparse& reparse) : previous_(current_reparse) {
  current_reparse = &reparse;
}
ReparseScope::~ReparseScope() {
  current_reparse = previous_;
}

void set_parse_limits_for_testing(double budget_seconds, std::uint64_t slice) {
  cpu_budget_seconds.store(budget_seconds);
  slice_micros.store(slice);
}

const TSLanguage* language_of(FileKind kind) {
  switch (kind) {
    case FileKind::Python: return tree_sitter_python();
    case FileKind::Yaml: return tree_sitter_yaml();
    case FileKind::Shell: return tree_sitter_bash();
    default: return nullptr;
  }
}

Tree parse(const TSLanguage* language, std::string_view text) {
  Reparse* reparse = current_reparse;
  if (reparse && (reparse->consumed || reparse->language != language || reparse->text != text)) reparse = nullptr;
  if (reparse) reparse->consumed = true;
  std::optional<std::string> safe = without_long_extra_runs(text);
  if (safe) {
    text = *safe;
    reparse = nullptr;  // the tree of a rewritten text would not match the document
  }
  // One parser per thread, kept: creating one per file cost 2% of a run over the real corpus
  // (a parser allocates its stacks). The language is set again for every text: that creates the
  // grammar's external scanner afresh. Resetting the parser is not enough: tree-sitter-python's
  // scanner (0.23) keeps whether it is inside an f-string across a reset, so an unterminated
  // f-string in one file made the next file's dedents disappear.
  thread_local std::unique_ptr<TSParser, ParserDeleter> kept;
  if (!kept) kept.reset(ts_parser_new());
  TSParser* parser = kept.get();
  if (!ts_parser_set_language(parser, language)) return nullptr;
  const std::uint64_t slice = slice_micros.load(std::memory_order_relaxed);
  ts_parser_set_timeout_micros(parser, slice);
  const TSTree* old = reparse ? reparse->old : nullptr;
  // Read once the first slice is over: most parses take far less than one.
  std::optional<double> started;
  Tree tree;
  for (;;) {
    tree.reset(ts_parser_parse_string(parser, old, text.data(), static_cast<uint32_t>(text.size())));
    if (tree) break;
    // The slice is over (the language is set, so nothing else returns null).
    const double now = thread_cpu_seconds();
    if (!started) started = now - static_cast<double>(slice) * 1e-6;  // at most one slice's worth
    if (now - *started > cpu_budget_seconds.load(std::memory_order_relaxed)) {
      // A cancelled parse leaves its state in the parser, to be resumed: the next text starts afresh.
      ts_parser_reset(parser);
      break;
    }
  }
  if (reparse && tree) {
    reparse->tree = Tree(ts_tree_copy(tree.get()));
    reparse->used_old = old != nullptr;
  }
  return tree;
}

TSFieldId field_id(TSNode node, const char* name) {
  const TSLanguage* language = ts_tree_language(node.tree);
  struct Known {
    const TSLanguage* language;
    const char* name;
    TSFieldId id;
  };
  thread_local std::vector<Known> known;  // a few dozen names across the grammars
  for (const Known& k : known)
    if (k.name == name && k.language == language) return k.id;
  const TSFieldId id =
      ts_language_field_id_for_name(language, name, static_cast<uint32_t>(std::char_traits<char>::length(name)));
  known.push_back({language, name, id});
  return id;
}

Span span(TSNode node, FileId file) {
  TSPoint s = ts_node_start_point(node), e = ts_node_end_point(node);
  return Span{file, ts_node_start_byte(node), ts_node_end_byte(node), Point{s.row, s.column}, Point{e.row, e.column}};
}

namespace {
// One cursor per thread, reset to each node. The extractors collect the children of most nodes
// of every tree (5% of a run over the real corpus): a cursor made for each call allocated its
// stack, and the vector grew by doubling.
class KeptCursor {
 public:
  KeptCursor() = default;
  KeptCursor(const KeptCursor&) = delete;
  KeptCursor& operator=(const KeptCursor&) = delete;
  ~KeptCursor() {
    if (made_) ts_tree_cursor_delete(&cursor_);
  }
  TSTreeCursor& at(TSNode node) {
    if (made_) {
      ts_tree_cursor_reset(&cursor_, node);
    } else {
      cursor_ = ts_tree_cursor_new(node);
      made_ = true;
    }
    return cursor_;
  }

 private:
  TSTreeCursor cursor_{};
  bool made_ = false;
};

std::vector<TSNode> collect(TSNode node, bool named_only) {
  std::vector<TSNode> out;
  // Both counts are kept in the node's summary (no walk); they only size the vector.
  out.reserve(named_only ? ts_node_named_child_count(node) : ts_node_child_count(node));
  thread_local KeptCursor kept;
  TSTreeCursor& cursor = kept.at(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode c = ts_tree_cursor_current_node(&cursor);
      if (!named_only || ts_node_is_named(c)) out.push_back(c);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
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
  // Comments start with `#` in every grammar we parse (Python, YAML, bash): only the subtrees
  // whose text holds one are walked, which skips most of a file.
  std::vector<std::uint32_t> hashes;
  for (std::size_t at = source.find('#'); at != std::string_view::npos; at = source.find('#', at + 1))
    hashes.push_back(static_cast<std::uint32_t>(at));
  if (hashes.empty()) return out;
  auto holds_hash = [&](TSNode node) {
    if (ts_node_eq(node, root)) return true;  // whatever the root's own range says
    auto it = std::lower_bound(hashes.begin(), hashes.end(), ts_node_start_byte(node));
    return it != hashes.end() && *it < ts_node_end_byte(node);
  };
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (;;) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    if (type(node) == "comment") {
      out.push_back({span(node, file), std::string(text(node, source))});
    } else if (holds_hash(node) && ts_tree_cursor_goto_first_child(&cursor)) {
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
