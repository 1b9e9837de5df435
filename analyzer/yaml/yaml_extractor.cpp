#include "analyzer/yaml/yaml_extractor.hpp"

#include <yaml.h>

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/source/source_file.hpp"
#include "analyzer/yaml/pyyaml_resolver.hpp"
#include "rules/tool/tool_rules.hpp"

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
        problems_.push_back({tool_rules::kNestingTooDeep,
                             "YAML nested more than 200 levels deep; the deeper part is not analysed",
                             ts::span(n, file_)});
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
    out->exponent_number = plain && matches_exponent_number(out->raw);
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

// --- The loader: libyaml's parser, the C parser PyYAML's scanner and parser are written after
// (same states, same errors), with PyYAML's composer and SafeConstructor rules on top (anchors
// per document, merge keys, the last of two equal keys). Files are read with it so that what
// trl-lint accepts, refuses and resolves is what `yaml.safe_load` does; tree-sitter's grammar
// refuses some YAML PyYAML loads (a quoted scalar continued on a line indented no deeper than its
// key) and accepts some it refuses.

// Where PyYAML stops reading a file, and why.
struct LoadError {
  std::string message;
  std::size_t offset = 0;
};

// Turns libyaml's marks (character counts from the start of the text, after a byte order mark)
// into byte offsets.
class Positions {
 public:
  Positions(std::string_view text, FileId file) : file_(file) {
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") bom_ = 3;
    for (std::size_t i = bom_; i < text.size(); ++i)
      if (static_cast<unsigned char>(text[i]) >= 0x80) {
        ascii_ = false;
        break;
      }
    if (!ascii_)
      for (std::size_t i = bom_; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) char_starts_.push_back(static_cast<std::uint32_t>(i));
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(static_cast<std::uint32_t>(i + 1));
    size_ = text.size();
  }
  std::size_t offset(const yaml_mark_t& m) const {
    std::size_t o;
    if (ascii_)
      o = bom_ + m.index;
    else
      o = m.index < char_starts_.size() ? char_starts_[m.index] : size_;
    return std::min(o, size_);
  }
  Point point(std::size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const std::size_t line = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
    std::size_t column = offset - line_starts_[line];
    if (line == 0 && bom_ && column >= bom_) column -= bom_;
    return Point{static_cast<std::uint32_t>(line), static_cast<std::uint32_t>(column)};
  }
  Span span(std::size_t begin, std::size_t end) const {
    if (end < begin) end = begin;
    return Span{file_, static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end), point(begin), point(end)};
  }
  Span span(const yaml_mark_t& a, const yaml_mark_t& b) const { return span(offset(a), offset(b)); }

 private:
  FileId file_;
  std::size_t bom_ = 0;
  bool ascii_ = true;
  std::size_t size_ = 0;
  std::vector<std::uint32_t> char_starts_;
  std::vector<std::uint32_t> line_starts_;
};

class Event {
 public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() { clear(); }
  void clear() {
    if (held_) yaml_event_delete(&e_);
    held_ = false;
  }
  yaml_event_t* slot() {
    clear();
    return &e_;
  }
  void hold() { held_ = true; }
  const yaml_event_t& operator*() const { return e_; }
  const yaml_event_t* operator->() const { return &e_; }

 private:
  yaml_event_t e_{};
  bool held_ = false;
};

std::string mark_text(const Positions& pos, const yaml_mark_t& m) {
  const Point p = pos.point(pos.offset(m));
  return "line " + std::to_string(p.line + 1) + ", column " + std::to_string(p.column + 1);
}

// libyaml's wording of a few errors differs from PyYAML's (lib/yaml/scanner.py, PyYAML 6.0):
// users search for PyYAML's.
std::string pyyaml_wording(std::string problem) {
  if (problem == "mapping values are not allowed in this context") return "mapping values are not allowed here";
  if (problem == "found unexpected end of stream") return "found unexpected end of stream";
  return problem;
}

class Loader {
 public:
  Loader(std::string_view text, FileId file, std::vector<FileProblem>& problems)
      : text_(text), pos_(text, file), problems_(problems) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
  }
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;
  ~Loader() { yaml_parser_delete(&parser_); }

  // Every document of the stream; throws LoadError where PyYAML would raise.
  std::vector<YamlDocument> load() {
    std::vector<YamlDocument> docs;
    next();  // STREAM-START
    while (true) {
      next();
      if (ev_->type == YAML_STREAM_END_EVENT) break;
      // DOCUMENT-START
      anchors_.clear();
      next();
      YamlDocument doc;
      NodePtr root = node(0);
      const bool empty = root && root->kind == YamlNode::Kind::Scalar && root->style == ScalarStyle::Plain &&
                         !root->tagged && !root->anchored && root->raw.empty() && root->span.begin == root->span.end;
      if (!empty) doc.root = root;
      docs.push_back(std::move(doc));
      next();  // DOCUMENT-END
    }
    return docs;
  }

 private:
  void next() {
    yaml_event_t* slot = ev_.slot();
    if (!yaml_parser_parse(&parser_, slot)) {
      std::string problem = parser_.problem ? pyyaml_wording(parser_.problem) : "cannot read the text";
      if (parser_.error == YAML_READER_ERROR) {
        // The reader's position is a byte count (an invalid UTF-8 sequence, a control character).
        throw LoadError{problem, std::min(parser_.problem_offset, text_.size())};
      }
      const std::size_t at = pos_.offset(parser_.problem_mark);
      if (problem == "found character that cannot start any token" && at < text_.size()) {
        // PyYAML names the character (lib/yaml/scanner.py, fetch_more_tokens).
        std::size_t len = 1;
        while (at + len < text_.size() && (static_cast<unsigned char>(text_[at + len]) & 0xC0) == 0x80) ++len;
        const std::string shown = text_[at] == '\t' ? "\\t" : std::string(text_.substr(at, len));
        problem = "found character '" + shown + "' that cannot start any token";
      }
      std::string message = problem;
      if (parser_.context) {
        message += " ";
        message += parser_.context;
        if (parser_.context_mark.index != parser_.problem_mark.index)
          message += " (started at " + mark_text(pos_, parser_.context_mark) + ")";
      }
      throw LoadError{message, at};
    }
    ev_.hold();
  }

  // From `begin`, past the node properties written there (`&anchor`, `!tag`, `!<uri>`) and the
  // blanks, line breaks and comments after them; never past `end`.
  std::size_t skip_properties(std::size_t begin, std::size_t end) const {
    std::size_t i = begin;
    while (i < end && (text_[i] == '&' || text_[i] == '!')) {
      while (i < end && text_[i] != ' ' && text_[i] != '\t' && text_[i] != '\n' && text_[i] != '\r') ++i;
      while (i < end) {
        const char c = text_[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
          ++i;
        } else if (c == '#') {
          while (i < end && text_[i] != '\n') ++i;
        } else {
          break;
        }
      }
    }
    return i < end ? i : begin;
  }

  static std::string str(const yaml_char_t* s) {
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
  }

  [[noreturn]] void fail(const std::string& message, const yaml_mark_t& at) const {
    throw LoadError{message, pos_.offset(at)};
  }

  void remember(const std::string& anchor, const NodePtr& n, const yaml_mark_t& at) {
    if (anchor.empty()) return;
    // PyYAML's composer refuses an anchor written twice in one document (lib/yaml/composer.py).
    if (anchors_.count(anchor)) fail("found duplicate anchor '" + anchor + "'", at);
    std::const_pointer_cast<YamlNode>(n)->anchored = true;
    anchors_[anchor] = n;
  }

  // The current event starts a node; on return the current event is the node's last.
  NodePtr node(int depth) {
    const yaml_event_t& e = *ev_;
    switch (e.type) {
      case YAML_ALIAS_EVENT: {
        const std::string a = str(e.data.alias.anchor);
        auto it = anchors_.find(a);
        if (it == anchors_.end()) fail("found undefined alias '" + a + "'", e.start_mark);
        return it->second;
      }
      case YAML_SCALAR_EVENT: {
        auto out = std::make_shared<YamlNode>();
        out->kind = YamlNode::Kind::Scalar;
        // libyaml starts a scalar's event at its properties (`&anchor`, `!tag`); the finding
        // points at the value itself, as it does for a scalar without them.
        const bool has_properties = e.data.scalar.anchor || e.data.scalar.tag;
        const std::size_t end = pos_.offset(e.end_mark);
        std::size_t begin = pos_.offset(e.start_mark);
        if (has_properties) begin = skip_properties(begin, end);
        out->span = pos_.span(begin, end);
        out->raw.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
        switch (e.data.scalar.style) {
          case YAML_SINGLE_QUOTED_SCALAR_STYLE: out->style = ScalarStyle::SingleQuoted; break;
          case YAML_DOUBLE_QUOTED_SCALAR_STYLE: out->style = ScalarStyle::DoubleQuoted; break;
          case YAML_LITERAL_SCALAR_STYLE: out->style = ScalarStyle::Literal; break;
          case YAML_FOLDED_SCALAR_STYLE: out->style = ScalarStyle::Folded; break;
          default: out->style = ScalarStyle::Plain;
        }
        const bool plain = out->style == ScalarStyle::Plain;
        if (!plain) tab_safe_.emplace_back(out->span.begin, out->span.end);
        const std::string tag = str(e.data.scalar.tag);
        out->tagged = !tag.empty();
        if (tag.empty())
          out->scalar = plain ? resolve_plain(out->raw) : Scalar::string(out->raw);
        else if (tag == "!")
          // The non-specific tag: PyYAML's parser resolves it as if the scalar were plain, quoted
          // or not (lib/yaml/parser.py, parse_node: `implicit = (True, False)`).
          out->scalar = resolve_plain(out->raw);
        else
          out->scalar = resolve_tagged(tag, out->raw, plain);
        out->exponent_number = plain && matches_exponent_number(out->raw);
        remember(str(e.data.scalar.anchor), out, e.start_mark);
        return out;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        const bool mapping = e.type == YAML_MAPPING_START_EVENT;
        const bool flow = mapping ? e.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE
                                  : e.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
        const std::string anchor = str(mapping ? e.data.mapping_start.anchor : e.data.sequence_start.anchor);
        const std::string tag = str(mapping ? e.data.mapping_start.tag : e.data.sequence_start.tag);
        const yaml_mark_t start = e.start_mark;
        if (depth > kMaxDepth) {
          if (!deep_reported_) {
            problems_.push_back({tool_rules::kNestingTooDeep,
                                 "YAML nested more than 200 levels deep; the deeper part is not analysed",
                                 pos_.span(start, start)});
            deep_reported_ = true;
          }
          skip_collection();
          auto inv = std::make_shared<YamlNode>();
          inv->kind = YamlNode::Kind::Invalid;
          inv->span = pos_.span(start, ev_->end_mark);
          return inv;
        }
        auto out = std::make_shared<YamlNode>();
        out->kind = mapping ? YamlNode::Kind::Mapping : YamlNode::Kind::Sequence;
        out->tagged = !tag.empty();
        std::size_t begin = pos_.offset(start), end = begin;
        // An anchor is known from its node's start: a node cannot refer to itself, but PyYAML
        // registers it before composing the children all the same.
        if (!anchor.empty() && anchors_.count(anchor)) fail("found duplicate anchor '" + anchor + "'", start);
        if (mapping)
          end = mapping_body(*out, depth, end);
        else
          end = sequence_body(*out, depth, end);
        if (flow) end = pos_.offset(ev_->end_mark);
        out->span = pos_.span(begin, end);
        remember(anchor, out, start);
        return out;
      }
      default: fail("unexpected event", e.start_mark);
    }
  }

  // After a collection's start event: skips to its end event.
  void skip_collection() {
    int open = 1;
    while (open > 0) {
      next();
      if (ev_->type == YAML_SEQUENCE_START_EVENT || ev_->type == YAML_MAPPING_START_EVENT) ++open;
      if (ev_->type == YAML_SEQUENCE_END_EVENT || ev_->type == YAML_MAPPING_END_EVENT) --open;
    }
  }

  std::size_t sequence_body(YamlNode& out, int depth, std::size_t end) {
    while (true) {
      next();
      if (ev_->type == YAML_SEQUENCE_END_EVENT) return end;
      NodePtr item = node(depth + 1);
      end = std::max<std::size_t>(end, item->span.end);
      out.items.push_back(std::move(item));
    }
  }

  std::string key_text(const NodePtr& key, const yaml_mark_t& at) const {
    if (key->kind == YamlNode::Kind::Scalar) {
      // PyYAML keys are Python objects; str() of them is what a `**dict` or a dataclass sees.
      if (key->scalar.kind == Scalar::Kind::Str || key->scalar.kind == Scalar::Kind::Timestamp) return key->scalar.s;
      if (key->scalar.kind == Scalar::Kind::Null) return "None";
      return key->scalar.repr();
    }
    // A list or a dict cannot be a key of a Python dict (SafeConstructor.construct_mapping).
    fail("found unhashable key", at);
  }

  std::size_t mapping_body(YamlNode& out, int depth, std::size_t end) {
    // Entries from `<<` merge keys (SafeConstructor.flatten_mapping, lib/yaml/constructor.py):
    // keys written in the mapping win over merged ones; of two merged, the later `<<` wins, and
    // in `<<: [*a, *b]` the earlier mapping wins.
    std::vector<YamlEntry> merged;
    while (true) {
      next();
      if (ev_->type == YAML_MAPPING_END_EVENT) break;
      const yaml_mark_t key_mark = ev_->start_mark;
      NodePtr key = node(depth + 1);
      next();
      NodePtr value = node(depth + 1);
      end = std::max<std::size_t>(end, std::max(key->span.end, value->span.end));
      const bool is_merge =
          key->kind == YamlNode::Kind::Scalar && key->style == ScalarStyle::Plain && !key->tagged && key->raw == "<<";
      if (is_merge) {
        std::vector<const YamlNode*> sources;
        if (value->kind == YamlNode::Kind::Mapping) {
          sources.push_back(value.get());
        } else if (value->kind == YamlNode::Kind::Sequence) {
          for (auto it = value->items.rbegin(); it != value->items.rend(); ++it) {
            if ((*it)->kind != YamlNode::Kind::Mapping)
              fail("expected a mapping for merging, but found " +
                       std::string((*it)->kind == YamlNode::Kind::Sequence ? "sequence" : "scalar"),
                   key_mark);
            sources.push_back(it->get());
          }
        } else {
          fail("expected a mapping or list of mappings for merging, but found scalar", key_mark);
        }
        for (const YamlNode* s : sources)
          for (const auto& e : s->entries) merged.push_back(e);
        continue;
      }
      YamlEntry e;
      e.key = key_text(key, key_mark);
      e.key_span = key->span;
      e.value = std::move(value);
      out.entries.push_back(std::move(e));
    }
    // A key written twice: PyYAML's dict keeps the last value, so only the last is kept here
    // (an earlier one is dead text: judging or fixing it would change nothing). The mapping's
    // own keys come first, in file order, then the merged keys it does not write.
    std::unordered_set<std::string> seen;
    std::vector<YamlEntry> kept;
    for (auto it = out.entries.rbegin(); it != out.entries.rend(); ++it)
      if (seen.insert(it->key).second) kept.push_back(std::move(*it));
    std::reverse(kept.begin(), kept.end());
    std::vector<YamlEntry> from_merge;
    for (auto it = merged.rbegin(); it != merged.rend(); ++it)
      if (seen.insert(it->key).second) from_merge.push_back(*it);
    kept.insert(kept.end(), std::make_move_iterator(from_merge.rbegin()), std::make_move_iterator(from_merge.rend()));
    out.entries = std::move(kept);
    return end;
  }

 public:
  // The quoted and block scalars read: the only places, with comments, where PyYAML's scanner
  // takes a tab (lib/yaml/scanner.py skips spaces alone between tokens).
  std::vector<std::pair<std::size_t, std::size_t>> tab_safe_;
  const Positions& positions() const { return pos_; }

 private:
  std::string_view text_;
  Positions pos_;
  std::vector<FileProblem>& problems_;
  yaml_parser_t parser_{};
  Event ev_;
  std::unordered_map<std::string, NodePtr> anchors_;
  bool deep_reported_ = false;
};

YamlFacts tree_sitter_reading(std::string_view text, FileId file) {
  YamlFacts facts;
  ts::Tree tree = ts::parse(tree_sitter_yaml(), text);
  if (!tree) {
    facts.problems.push_back({tool_rules::kSyntaxError, ts::parse_failure_message("YAML"), Span{file}});
    return facts;
  }
  TSNode root = ts_tree_root_node(tree.get());
  Builder builder(text, file, facts.problems);
  for (TSNode doc : ts::named_children(root))
    if (ts::type(doc) == "document") facts.documents.push_back(builder.document(doc));
  facts.comments = ts::comments(root, text, file);
  return facts;
}

// The deepest nesting of `[` and `{` outside comments: an upper bound (brackets in scalars
// count too; a quote is not looked at, so that no text can hide brackets from this count).
constexpr std::size_t kMaxFlowNesting = 1000;
std::size_t flow_nesting(std::string_view text) {
  std::size_t depth = 0, most = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n')) {
      const std::size_t nl = text.find('\n', i);
      if (nl == std::string_view::npos) break;
      i = nl;
    } else if (c == '[' || c == '{') {
      most = std::max(most, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return most;
}

// The comments of a text libyaml read without error: a `#` at a line's start or after a blank
// starts one (YAML 1.1 section 6.6; a plain scalar cannot hold ` #`), unless it lies inside a
// quoted or block scalar (`scalars`, sorted by start, the loader's spans). The comment runs to
// the end of its line.
std::vector<Comment> comments_outside(std::string_view text, const Positions& pos,
                                      const std::vector<std::pair<std::size_t, std::size_t>>& scalars) {
  std::vector<Comment> out;
  const std::size_t first = text.find('#');
  if (first == std::string_view::npos) return out;
  std::size_t k = 0;
  for (std::size_t i = first; i != std::string_view::npos; i = text.find('#', i + 1)) {
    if (i > 0 && text[i - 1] != ' ' && text[i - 1] != '\t' && text[i - 1] != '\n' && text[i - 1] != '\r' &&
        !(i == 3 && static_cast<unsigned char>(text[0]) == 0xEF))
      continue;
    while (k < scalars.size() && scalars[k].second <= i) ++k;
    bool inside = false;
    for (std::size_t j = k; j < scalars.size() && scalars[j].first <= i; ++j)
      if (i < scalars[j].second) inside = true;
    if (inside) continue;
    std::size_t end = text.find('\n', i);
    if (end == std::string_view::npos) end = text.size();
    if (end > i && text[end - 1] == '\r') --end;
    out.push_back({pos.span(i, end), std::string(text.substr(i, end - i))});
    i = end;
    if (i >= text.size()) break;
  }
  return out;
}

}  // namespace

YamlFacts extract(std::string_view text, FileId file) {
  YamlFacts facts;
  // tree-sitter-yaml's scanner keeps rows in 16-bit integers: past line 32,768 its parse is
  // wrong (every key becomes an error). Say so instead of reporting false syntax errors.
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  if (lines > kMaxYamlLines) {
    facts.problems.push_back({tool_rules::kFileTooLarge,
                              "YAML file has " + std::to_string(lines) + " lines, more than the " +
                                  std::to_string(kMaxYamlLines) + " the YAML parser supports; skipped",
                              Span{file}});
    return facts;
  }
  // libyaml checks every open flow collection at each token (yaml_parser_stale_simple_keys):
  // 100,000 nested brackets take minutes. Past kMaxFlowNesting (far beyond any configuration;
  // TRL904 stops at 200 anyway) the values come from tree-sitter's tree.
  if (flow_nesting(text) > kMaxFlowNesting) {
    facts = tree_sitter_reading(text, file);
    std::erase_if(facts.problems, [](const FileProblem& p) { return p.code == tool_rules::kSyntaxError; });
    return facts;
  }
  // Values come from the loader (what PyYAML reads); comments from the text it read (or, when it
  // refuses the text, from tree-sitter's tree, below).
  std::vector<FileProblem> loader_problems;
  std::optional<LoadError> error;
  std::vector<std::pair<std::size_t, std::size_t>> tab_safe;
  try {
    Loader loader(text, file, loader_problems);
    facts.documents = loader.load();
    tab_safe = std::move(loader.tab_safe_);
    std::sort(tab_safe.begin(), tab_safe.end());
    facts.comments = comments_outside(text, loader.positions(), tab_safe);
  } catch (const LoadError& e) {
    error = e;
  }
  for (auto& p : loader_problems) facts.problems.push_back(std::move(p));
  if (!error) {
    // libyaml takes a tab between tokens in places PyYAML does not (after a value, after `- `,
    // inside a flow collection): PyYAML stops at the first tab outside a quoted or block scalar
    // and a comment.
    for (const auto& c : facts.comments) tab_safe.emplace_back(c.span.begin, c.span.end);
    std::sort(tab_safe.begin(), tab_safe.end());
    std::size_t k = 0;
    for (std::size_t i = text.find('\t'); i != std::string_view::npos; i = text.find('\t', i + 1)) {
      while (k < tab_safe.size() && tab_safe[k].second <= i) ++k;
      bool safe = false;
      for (std::size_t j = k; j < tab_safe.size() && tab_safe[j].first <= i; ++j)
        if (i < tab_safe[j].second) safe = true;
      if (!safe) {
        error = LoadError{"found character '\\t' that cannot start any token", i};
        break;
      }
    }
  }
  if (error) {
    // PyYAML refuses the file: the run that loads it stops there. What comes before the error
    // is still read (tree-sitter's error recovery) so that other findings are not lost.
    ts::Tree tree = ts::parse(tree_sitter_yaml(), text);
    facts.comments.clear();
    if (tree) facts.comments = ts::comments(ts_tree_root_node(tree.get()), text, file);
    Positions pos(text, file);
    // The character PyYAML's marker points at (none at a line's or the text's end).
    std::size_t stop = error->offset;
    if (stop < text.size() && text[stop] != '\n' && text[stop] != '\r') {
      ++stop;
      while (stop < text.size() && (static_cast<unsigned char>(text[stop]) & 0xC0) == 0x80) ++stop;
    }
    Span at = pos.span(error->offset, stop);
    facts.problems.push_back(
        {tool_rules::kSyntaxError, "invalid YAML: " + error->message + "; PyYAML refuses this file", at});
    facts.documents.clear();
    if (tree) {
      Builder builder(text, file, facts.problems);
      for (TSNode doc : ts::named_children(ts_tree_root_node(tree.get())))
        if (ts::type(doc) == "document") facts.documents.push_back(builder.document(doc));
    }
  }
  return facts;
}

YamlFacts extract_snippets(std::string_view text, FileId file) {
  const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  if (lines > kMaxYamlLines) return {};
  YamlFacts facts = tree_sitter_reading(text, file);
  facts.problems.clear();
  return facts;
}

}  // namespace trl::yaml
