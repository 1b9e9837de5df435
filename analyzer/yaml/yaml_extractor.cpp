#include "analyzer/yaml/yaml_extractor.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/source/source_file.hpp"
#include "analyzer/yaml/pyyaml_resolver.hpp"

namespace trl::yaml {

namespace {

constexpr int kMaxDepth = 200;
constexpr std::size_t kMaxYamlLines = 32767;

using NodePtr = std::shared_ptr<const YamlNode>;

// The escapes of a double-quoted scalar, as PyYAML's scanner reads them (yaml/scanner.py,
// ESCAPE_REPLACEMENTS and ESCAPE_CODES, PyYAML 6.0): \0 \a \b \t \<TAB> \n \v \f \r \e \<SPACE> \"
// \\ \/ \N (U+0085) \_ (U+00A0) \L (U+2028) \P (U+2029), and \xXX, \uXXXX, \UXXXXXXXX code points.
// PyYAML refuses any other escape, and a code that is not hexadecimal; those are kept as written.
std::string unescape_double(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out.push_back(c);
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '0': out.push_back('\0'); break;
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 't':
      case '\t': out.push_back('\t'); break;
      case 'n': out.push_back('\n'); break;
      case 'v': out.push_back('\v'); break;
      case 'f': out.push_back('\f'); break;
      case 'r': out.push_back('\r'); break;
      case 'e': out.push_back('\x1b'); break;
      case ' ': out.push_back(' '); break;
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'N': append_utf8(out, 0x85); break;
      case '_': append_utf8(out, 0xA0); break;
      case 'L': append_utf8(out, 0x2028); break;
      case 'P': append_utf8(out, 0x2029); break;
      case '\n': break;  // escaped line break joins lines
      case 'x':
      case 'u':
      case 'U': {
        const std::size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        std::uint32_t cp = 0;
        bool ok = true;
        for (std::size_t k = 1; ok && k <= digits; ++k) {
          if (i + k >= body.size()) {
            ok = false;
            break;
          }
          const char h = body[i + k];
          const int v = h >= '0' && h <= '9'   ? h - '0'
                        : h >= 'a' && h <= 'f' ? h - 'a' + 10
                        : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                               : -1;
          if (v < 0) ok = false;
          cp = cp * 16 + static_cast<std::uint32_t>(v < 0 ? 0 : v);
        }
        if (!ok || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
          out.push_back('\\');
          out.push_back(e);
          break;
        }
        append_utf8(out, cp);
        i += digits;
        break;
      }
      default: out.push_back('\\'); out.push_back(e);
    }
  }
  return out;
}

// Folds a multi-line flow scalar the way YAML does: line breaks become spaces,
// blank lines become newlines, and surrounding indentation is dropped.
std::string fold_lines(std::string_view body) {
  if (body.find('\n') == std::string_view::npos) return std::string(body);
  std::string out;
  std::size_t start = 0;
  bool first = true;
  int blank = 0;
  while (start <= body.size()) {
    std::size_t nl = body.find('\n', start);
    std::string_view line = body.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    std::size_t a = line.find_first_not_of(" \t\r");
    std::size_t b = line.find_last_not_of(" \t\r");
    std::string_view trimmed = a == std::string_view::npos ? std::string_view() : line.substr(a, b - a + 1);
    if (trimmed.empty() && !first) {
      ++blank;
    } else {
      if (!first) out += blank > 0 ? std::string(blank, '\n') : " ";
      out += trimmed;
      blank = 0;
      first = false;
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out;
}

// Literal (|) and folded (>) block scalars: content lines with the common indentation removed.
std::string block_scalar(std::string_view text, ScalarStyle& style) {
  std::size_t nl = text.find('\n');
  std::string_view header = text.substr(0, nl);
  style = header.find('>') != std::string_view::npos ? ScalarStyle::Folded : ScalarStyle::Literal;
  const bool strip = header.find('-') != std::string_view::npos;
  const bool keep = header.find('+') != std::string_view::npos;
  if (nl == std::string_view::npos) return {};
  std::vector<std::string_view> lines;
  std::size_t start = nl + 1;
  while (start <= text.size()) {
    std::size_t e = text.find('\n', start);
    lines.push_back(text.substr(start, e == std::string_view::npos ? std::string_view::npos : e - start));
    if (e == std::string_view::npos) break;
    start = e + 1;
  }
  std::size_t indent = std::string_view::npos;
  for (auto l : lines) {
    std::size_t a = l.find_first_not_of(' ');
    if (a != std::string_view::npos && l.find_first_not_of(" \r") != std::string_view::npos)
      indent = std::min(indent, a);
  }
  if (indent == std::string_view::npos) indent = 0;
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    l = l.size() >= indent ? l.substr(indent) : std::string_view();
    if (style == ScalarStyle::Folded && i > 0 && !out.empty() && out.back() != '\n' && !l.empty()) {
      out.push_back(' ');
    } else if (i > 0) {
      out.push_back('\n');
    }
    out += l;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  if (!strip && !out.empty()) out.push_back('\n');
  (void)keep;
  return out;
}

class Builder {
 public:
  Builder(std::string_view source, FileId file, std::vector<FileProblem>& problems)
      : src_(source), file_(file), problems_(problems) {}

  YamlDocument document(TSNode doc) {
    anchors_.clear();
    YamlDocument out;
    for (TSNode c : ts::named_children(doc)) {
      auto t = ts::type(c);
      if (t == "block_node" || t == "flow_node") {
        out.root = node(c, 0);
        break;
      }
    }
    return out;
  }

 private:
  NodePtr invalid(TSNode n) {
    auto node = std::make_shared<YamlNode>();
    node->kind = YamlNode::Kind::Invalid;
    node->span = ts::span(n, file_);
    return node;
  }

  // block_node / flow_node: optional anchor and tag, then the content.
  NodePtr node(TSNode n, int depth) {
    if (depth > kMaxDepth) {
      if (!deep_reported_) {
        problems_.push_back(
            {"TRL904", "YAML nested more than 200 levels deep; the deeper part is not analysed", ts::span(n, file_)});
        deep_reported_ = true;
      }
      return invalid(n);
    }
    std::string anchor, tag;
    NodePtr result;
    for (TSNode c : ts::named_children(n)) {
      auto t = ts::type(c);
      if (t == "anchor") {
        TSNode name = ts_node_named_child(c, 0);
        anchor = std::string(ts::text(ts_node_is_null(name) ? c : name, src_));
        if (!anchor.empty() && anchor[0] == '&') anchor.erase(0, 1);
      } else if (t == "tag") {
        tag = std::string(ts::text(c, src_));
      } else if (t == "alias") {
        TSNode name = ts_node_named_child(c, 0);
        std::string a(ts::text(ts_node_is_null(name) ? c : name, src_));
        if (!a.empty() && a[0] == '*') a.erase(0, 1);
        auto it = anchors_.find(a);
        result = it != anchors_.end() ? it->second : invalid(c);
      } else if (t == "comment") {
        continue;
      } else {
        result = content(c, tag, depth);
      }
    }
    if (!result) {
      // An empty node (`key:` with nothing after it) is null.
      auto empty = std::make_shared<YamlNode>();
      empty->kind = YamlNode::Kind::Scalar;
      empty->scalar = tag.empty() ? Scalar::null() : resolve_tagged(tag, "", true);
      empty->span = ts::span(n, file_);
      result = empty;
    }
    if (!anchor.empty()) {
      // Every node here was made by this call (`&a *b` is not YAML; an alias above was dropped
      // by tree-sitter's error recovery or is the anchored node itself), so it is not const yet.
      std::const_pointer_cast<YamlNode>(result)->anchored = true;
      anchors_[anchor] = result;
    }
    return result;
  }

  NodePtr content(TSNode c, const std::string& tag, int depth) {
    auto t = ts::type(c);
    if (t == "block_mapping" || t == "flow_mapping") return mapping(c, depth);
    if (t == "block_sequence" || t == "flow_sequence") return sequence(c, depth);
    auto out = std::make_shared<YamlNode>();
    out->kind = YamlNode::Kind::Scalar;
    out->span = ts::span(c, file_);
    out->tagged = !tag.empty();
    std::string_view text = ts::text(c, src_);
    bool plain = false;
    if (t == "plain_scalar") {
      plain = true;
      out->style = ScalarStyle::Plain;
      out->raw = fold_lines(text);
    } else if (t == "double_quote_scalar") {
      out->style = ScalarStyle::DoubleQuoted;
      std::string_view body = text.size() >= 2 ? text.substr(1, text.size() - 2) : std::string_view();
      out->raw = unescape_double(fold_lines(body));
    } else if (t == "single_quote_scalar") {
      out->style = ScalarStyle::SingleQuoted;
      std::string_view body = text.size() >= 2 ? text.substr(1, text.size() - 2) : std::string_view();
      std::string folded = fold_lines(body);
      std::string unq;
      for (std::size_t i = 0; i < folded.size(); ++i) {
        unq.push_back(folded[i]);
        if (folded[i] == '\'' && i + 1 < folded.size() && folded[i + 1] == '\'') ++i;
      }
      out->raw = unq;
    } else if (t == "block_scalar") {
      out->raw = block_scalar(text, out->style);
    } else {
      out->kind = YamlNode::Kind::Invalid;
      return out;
    }
    if (!tag.empty())
      out->scalar = resolve_tagged(tag, out->raw, plain);
    else
      out->scalar = plain ? resolve_plain(out->raw) : Scalar::string(out->raw);
    return out;
  }

  std::string key_text(const NodePtr& key) {
    if (!key) return "null";
    if (key->kind == YamlNode::Kind::Scalar) {
      // PyYAML keys are Python objects; str() of them is what a `**dict` or a dataclass sees.
      if (key->scalar.kind == Scalar::Kind::Str || key->scalar.kind == Scalar::Kind::Timestamp) return key->scalar.s;
      if (key->scalar.kind == Scalar::Kind::Null) return "None";
      return key->scalar.repr();
    }
    return key->raw;
  }

  NodePtr mapping(TSNode m, int depth) {
    auto out = std::make_shared<YamlNode>();
    out->kind = YamlNode::Kind::Mapping;
    out->span = ts::span(m, file_);
    std::vector<YamlEntry> merged;  // entries from `<<` merge keys; explicit keys win
    std::unordered_set<std::string> merged_keys;
    for (TSNode pair : ts::named_children(m)) {
      auto pt = ts::type(pair);
      if (pt != "block_mapping_pair" && pt != "flow_pair") {
        if (pt == "flow_node") {  // `{a}`: a key with a null value
          YamlEntry e;
          auto k = node(pair, depth + 1);
          e.key = key_text(k);
          e.key_span = ts::span(pair, file_);
          auto v = std::make_shared<YamlNode>();
          v->kind = YamlNode::Kind::Scalar;
          v->span = e.key_span;
          e.value = v;
          out->entries.push_back(std::move(e));
        }
        continue;
      }
      TSNode k = ts::field(pair, "key");
      TSNode v = ts::field(pair, "value");
      NodePtr key = ts_node_is_null(k) ? nullptr : node(k, depth + 1);
      NodePtr value;
      if (ts_node_is_null(v)) {
        auto empty = std::make_shared<YamlNode>();
        empty->kind = YamlNode::Kind::Scalar;
        empty->span = ts::span(pair, file_);
        empty->span.begin = empty->span.end;
        empty->span.start = empty->span.stop;
        value = empty;
      } else {
        value = node(v, depth + 1);
      }
      const bool is_merge =
          key && key->kind == YamlNode::Kind::Scalar && key->style == ScalarStyle::Plain && key->raw == "<<";
      if (is_merge && value) {
        // `<<: *a` or `<<: [*a, *b]` (earlier mappings in the list win).
        std::vector<NodePtr> sources;
        if (value->kind == YamlNode::Kind::Mapping) sources.push_back(value);
        if (value->kind == YamlNode::Kind::Sequence)
          for (const auto& it : value->items)
            if (it->kind == YamlNode::Kind::Mapping) sources.push_back(it);
        for (const auto& s : sources)
          for (const auto& e : s->entries)
            if (merged_keys.insert(e.key).second) merged.push_back(e);
        continue;
      }
      YamlEntry e;
      e.key = key_text(key);
      e.key_span = key ? key->span : ts::span(pair, file_);
      e.value = value;
      out->entries.push_back(std::move(e));
    }
    // A key written twice: PyYAML's dict keeps the last value, so only the last is kept here
    // (an earlier one is dead text: judging or fixing it would change nothing).
    if (out->entries.size() > 1) {
      std::unordered_set<std::string_view> keys;
      for (const auto& e : out->entries) keys.insert(e.key);
      if (keys.size() != out->entries.size()) {
        std::unordered_set<std::string> later;
        std::vector<YamlEntry> kept;
        for (auto it = out->entries.rbegin(); it != out->entries.rend(); ++it)
          if (later.insert(it->key).second) kept.push_back(std::move(*it));
        out->entries.assign(std::make_move_iterator(kept.rbegin()), std::make_move_iterator(kept.rend()));
      }
    }
    if (!merged.empty()) {
      std::unordered_set<std::string> explicit_keys;
      for (const auto& e : out->entries) explicit_keys.insert(e.key);
      for (auto& e : merged)
        if (!explicit_keys.count(e.key)) out->entries.push_back(e);
    }
    return out;
  }

  NodePtr sequence(TSNode s, int depth) {
    auto out = std::make_shared<YamlNode>();
    out->kind = YamlNode::Kind::Sequence;
    out->span = ts::span(s, file_);
    for (TSNode item : ts::named_children(s)) {
      auto t = ts::type(item);
      if (t == "block_sequence_item") {
        TSNode inner = ts_node_named_child(item, 0);
        if (ts_node_is_null(inner) || ts::type(inner) == "comment") {
          auto empty = std::make_shared<YamlNode>();
          empty->kind = YamlNode::Kind::Scalar;
          empty->span = ts::span(item, file_);
          out->items.push_back(empty);
        } else {
          out->items.push_back(node(inner, depth + 1));
        }
      } else if (t == "flow_node" || t == "block_node") {
        out->items.push_back(node(item, depth + 1));
      } else if (t == "flow_pair") {  // [a: b] is a single-pair mapping
        auto m = std::make_shared<YamlNode>();
        m->kind = YamlNode::Kind::Mapping;
        m->span = ts::span(item, file_);
        TSNode k = ts::field(item, "key"), v = ts::field(item, "value");
        YamlEntry e;
        auto key = ts_node_is_null(k) ? nullptr : node(k, depth + 1);
        e.key = key_text(key);
        e.key_span = key ? key->span : m->span;
        e.value = ts_node_is_null(v) ? std::make_shared<YamlNode>() : node(v, depth + 1);
        m->entries.push_back(std::move(e));
        out->items.push_back(m);
      }
    }
    return out;
  }

  std::string_view src_;
  FileId file_;
  std::vector<FileProblem>& problems_;
  std::unordered_map<std::string, NodePtr> anchors_;
  bool deep_reported_ = false;
};

// First ERROR or MISSING node, found without recursion.
bool first_error(TSNode root, TSNode& out) {
  if (!ts_node_has_error(root)) return false;
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  bool found = false;
  while (true) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    if (ts::type(n) == "ERROR" || ts_node_is_missing(n)) {
      out = n;
      found = true;
      break;
    }
    if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cursor)) continue;
    bool moved = false;
    while (!moved) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        moved = true;
      } else if (!ts_tree_cursor_goto_parent(&cursor)) {
        break;
      }
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
  return found;
}

}  // namespace

YamlFacts extract(std::string_view text, FileId file) {
  YamlFacts facts;
  // tree-sitter-yaml's scanner keeps rows in 16-bit integers: past line 32,768 its parse is
  // wrong (every key becomes an error). Say so instead of reporting false syntax errors.
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  if (lines > kMaxYamlLines) {
    facts.problems.push_back({"TRL905",
                              "YAML file has " + std::to_string(lines) + " lines, more than the " +
                                  std::to_string(kMaxYamlLines) + " the YAML parser supports; skipped",
                              Span{file}});
    return facts;
  }
  ts::Tree tree = ts::parse(tree_sitter_yaml(), text);
  if (!tree) {
    facts.problems.push_back({"TRL903", ts::parse_failure_message("YAML"), Span{file}});
    return facts;
  }
  TSNode root = ts_tree_root_node(tree.get());
  TSNode err;
  if (first_error(root, err)) {
    facts.problems.push_back({"TRL903",
                              "invalid YAML: PyYAML would refuse this file; values after this point may be missed",
                              ts::span(err, file)});
  }
  Builder builder(text, file, facts.problems);
  for (TSNode doc : ts::named_children(root)) {
    if (ts::type(doc) == "document") facts.documents.push_back(builder.document(doc));
  }
  facts.comments = ts::comments(root, text, file);
  return facts;
}

}  // namespace trl::yaml
