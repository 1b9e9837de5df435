#include "analyzer/cache/facts_codec.hpp"

#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "analyzer/facts/scalar_io.hpp"
#include "analyzer/util/binary_io.hpp"

namespace trl::cache {

namespace {

// Written spans carry no file: a valid span is in the file whose facts these are.
void put(bin::Writer& w, const Span& s) {
  w.u8(s.valid() ? 1 : 0);
  if (s.valid()) put_span_position(w, s);
}

Span get_span(bin::Reader& r, FileId file) {
  Span s;
  if (r.u8() == 0) return s;
  s.file = file;
  get_span_position(r, s);
  return s;
}

void put(bin::Writer& w, const Scalar& s) {
  put_scalar(w, s);
}

template <typename T>
T get_enum(bin::Reader& r, T last) {
  const std::uint8_t v = r.u8();
  if (v > static_cast<std::uint8_t>(last)) bin::Reader::fail();
  return static_cast<T>(v);
}

void put_ids(bin::Writer& w, const std::vector<std::uint32_t>& ids) {
  w.u32(static_cast<std::uint32_t>(ids.size()));
  for (auto id : ids) w.u32(id);
}

std::vector<std::uint32_t> get_ids(bin::Reader& r) {
  std::vector<std::uint32_t> ids(r.count());
  for (auto& id : ids) id = r.u32();
  return ids;
}

// --- Python ----------------------------------------------------------------------------------

void put(bin::Writer& w, py::Range r) {
  w.u32(r.begin);
  w.u32(r.size);
}

py::Range get_range(bin::Reader& r) {
  py::Range out;
  out.begin = r.u32();
  out.size = r.u32();
  return out;
}

void put(bin::Writer& w, const py::Module& m) {
  w.u8(m.has_syntax_error ? 1 : 0);
  w.u32(static_cast<std::uint32_t>(m.exprs.size()));
  for (const py::Expr& e : m.exprs) {
    w.u8(static_cast<std::uint8_t>(e.kind));
    put(w, e.span);
    w.str(e.name);
    w.u32(e.a);
    w.u32(e.b);
    w.u32(e.c);
    w.u32(e.constant);
    put(w, e.elts);
    put(w, e.values);
    put(w, e.ops);
    put(w, e.args);
  }
  w.u32(static_cast<std::uint32_t>(m.constant_pool.size()));
  for (const Scalar& c : m.constant_pool) put(w, c);
  put_ids(w, m.id_pool);
  w.strings(m.op_pool);
  w.u32(static_cast<std::uint32_t>(m.arg_pool.size()));
  for (const py::Argument& a : m.arg_pool) {
    w.u8(static_cast<std::uint8_t>(a.kind));
    w.str(a.keyword);
    w.u32(a.value);
    put(w, a.span);
  }
  w.u32(static_cast<std::uint32_t>(m.stmts.size()));
  for (const py::Stmt& s : m.stmts) {
    w.u8(static_cast<std::uint8_t>(s.kind));
    put(w, s.span);
    put_ids(w, s.targets);
    w.u32(s.value);
    w.u32(s.annotation);
    w.str(s.op);
    w.str(s.module);
    w.u32(static_cast<std::uint32_t>(s.level));
    w.u8(s.star ? 1 : 0);
    w.u32(static_cast<std::uint32_t>(s.names.size()));
    for (const py::ImportAlias& a : s.names) {
      w.str(a.name);
      w.str(a.asname);
      put(w, a.span);
    }
    w.str(s.name);
    w.u32(static_cast<std::uint32_t>(s.params.size()));
    for (const py::Param& p : s.params) {
      w.str(p.name);
      w.u32(p.default_value);
      w.u8(static_cast<std::uint8_t>(p.kind));
      w.u8(p.keyword_only ? 1 : 0);
    }
    put_ids(w, s.bases);
    put_ids(w, s.decorators);
    put_ids(w, s.body);
    put_ids(w, s.orelse);
    w.u32(static_cast<std::uint32_t>(s.handlers.size()));
    for (const auto& h : s.handlers) put_ids(w, h);
  }
  put_ids(w, m.body);
}

// Every index a decoded module holds must name one of its own expressions or statements: the
// evaluator follows them without checking.
void check_module(const py::Module& m) {
  const std::size_t ne = m.exprs.size(), ns = m.stmts.size();
  auto expr = [&](py::ExprId id) {
    if (id != py::kNoExpr && id >= ne) bin::Reader::fail();
  };
  auto exprs = [&](std::span<const py::ExprId> ids) {
    for (auto id : ids) expr(id);
  };
  auto stmts = [&](const std::vector<py::StmtId>& ids) {
    for (auto id : ids)
      if (id >= ns) bin::Reader::fail();
  };
  for (const py::Expr& e : m.exprs) {
    if (!py::Module::fits(e.elts, m.id_pool.size()) || !py::Module::fits(e.values, m.id_pool.size()) ||
        !py::Module::fits(e.ops, m.op_pool.size()) || !py::Module::fits(e.args, m.arg_pool.size()))
      bin::Reader::fail();
    if (e.constant != py::kNoConstant && e.constant >= m.constant_pool.size()) bin::Reader::fail();
    // The evaluator reads a dict's keys and values in pairs.
    if (e.kind == py::ExprKind::Dict && e.elts.size != e.values.size) bin::Reader::fail();
    expr(e.a);
    expr(e.b);
    expr(e.c);
  }
  exprs(m.id_pool);
  for (const auto& a : m.arg_pool) expr(a.value);
  for (const py::Stmt& s : m.stmts) {
    exprs(s.targets);
    expr(s.value);
    expr(s.annotation);
    for (const auto& p : s.params) expr(p.default_value);
    exprs(s.bases);
    exprs(s.decorators);
    stmts(s.body);
    stmts(s.orelse);
    for (const auto& h : s.handlers) stmts(h);
  }
  stmts(m.body);
}

py::Module get_module(bin::Reader& r, FileId file) {
  py::Module m;
  m.has_syntax_error = r.u8() != 0;
  m.exprs.resize(r.count());
  for (py::Expr& e : m.exprs) {
    e.kind = get_enum(r, py::ExprKind::NamedExpr);
    e.span = get_span(r, file);
    e.name = r.str();
    e.a = r.u32();
    e.b = r.u32();
    e.c = r.u32();
    e.constant = r.u32();
    e.elts = get_range(r);
    e.values = get_range(r);
    e.ops = get_range(r);
    e.args = get_range(r);
  }
  m.constant_pool.resize(r.count());
  for (Scalar& c : m.constant_pool) c = get_scalar(r);
  m.id_pool = get_ids(r);
  m.op_pool = r.strings();
  m.arg_pool.resize(r.count());
  for (py::Argument& a : m.arg_pool) {
    a.kind = get_enum(r, py::Argument::Kind::DoubleStar);
    a.keyword = r.str();
    a.value = r.u32();
    a.span = get_span(r, file);
  }
  m.stmts.resize(r.count());
  for (py::Stmt& s : m.stmts) {
    s.kind = get_enum(r, py::StmtKind::Delete);
    s.span = get_span(r, file);
    s.targets = get_ids(r);
    s.value = r.u32();
    s.annotation = r.u32();
    s.op = r.str();
    s.module = r.str();
    s.level = static_cast<int>(r.u32());
    s.star = r.u8() != 0;
    s.names.resize(r.count());
    for (py::ImportAlias& a : s.names) {
      a.name = r.str();
      a.asname = r.str();
      a.span = get_span(r, file);
    }
    s.name = r.str();
    s.params.resize(r.count());
    for (py::Param& p : s.params) {
      p.name = r.str();
      p.default_value = r.u32();
      p.kind = get_enum(r, py::Param::Kind::DoubleStar);
      p.keyword_only = r.u8() != 0;
    }
    s.bases = get_ids(r);
    s.decorators = get_ids(r);
    s.body = get_ids(r);
    s.orelse = get_ids(r);
    s.handlers.resize(r.count());
    for (auto& h : s.handlers) h = get_ids(r);
  }
  m.body = get_ids(r);
  check_module(m);
  return m;
}

// --- YAML ------------------------------------------------------------------------------------

// Nodes are written once each, children before parents, and referred to by index: an alias
// repeated a million times stays one node, as it is in memory.
class YamlWriter {
 public:
  explicit YamlWriter(bin::Writer& w) : w_(w) {}
  void documents(const std::vector<YamlDocument>& docs) {
    std::vector<const YamlNode*> order;
    for (const auto& d : docs)
      if (d.root) collect(d.root.get(), order);
    w_.u32(static_cast<std::uint32_t>(order.size()));
    for (const YamlNode* n : order) node(*n);
    w_.u32(static_cast<std::uint32_t>(docs.size()));
    for (const auto& d : docs) w_.u32(d.root ? index_.at(d.root.get()) : kNone);
  }
  static constexpr std::uint32_t kNone = 0xffffffffu;

 private:
  // Post-order without recursion (documents may nest deeply).
  void collect(const YamlNode* root, std::vector<const YamlNode*>& order) {
    if (index_.count(root)) return;
    std::vector<std::pair<const YamlNode*, std::size_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      const std::size_t children = n->entries.size() + n->items.size();
      if (next < children) {
        const YamlNode* c =
            next < n->entries.size() ? n->entries[next].value.get() : n->items[next - n->entries.size()].get();
        ++next;
        if (c && !index_.count(c) && !on_stack_.count(c)) {
          on_stack_.insert({c, 1});
          stack.emplace_back(c, 0);
        }
        continue;
      }
      index_.emplace(n, static_cast<std::uint32_t>(order.size()));
      order.push_back(n);
      on_stack_.erase(n);
      stack.pop_back();
    }
  }
  std::uint32_t ref(const std::shared_ptr<const YamlNode>& n) const {
    if (!n) return kNone;
    auto it = index_.find(n.get());
    return it == index_.end() ? kNone : it->second;
  }
  void node(const YamlNode& n) {
    w_.u8(static_cast<std::uint8_t>(n.kind));
    put(w_, n.scalar);
    w_.str(n.raw);
    w_.u8(static_cast<std::uint8_t>(n.style));
    w_.u8((n.tagged ? 1 : 0) | (n.anchored ? 2 : 0) | (n.exponent_number ? 4 : 0));
    put(w_, n.span);
    w_.u32(static_cast<std::uint32_t>(n.entries.size()));
    for (const auto& e : n.entries) {
      w_.str(e.key);
      put(w_, e.key_span);
      w_.u32(ref(e.value));
    }
    w_.u32(static_cast<std::uint32_t>(n.items.size()));
    for (const auto& i : n.items) w_.u32(ref(i));
  }
  bin::Writer& w_;
  std::unordered_map<const YamlNode*, std::uint32_t> index_;
  std::unordered_map<const YamlNode*, int> on_stack_;
};

std::vector<YamlDocument> get_documents(bin::Reader& r, FileId file) {
  std::vector<std::shared_ptr<const YamlNode>> nodes(r.count());
  auto child = [&](std::uint32_t i, std::size_t self) -> std::shared_ptr<const YamlNode> {
    if (i == YamlWriter::kNone) return nullptr;
    if (i >= self) bin::Reader::fail();  // children come first
    return nodes[i];
  };
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    auto n = std::make_shared<YamlNode>();
    n->kind = get_enum(r, YamlNode::Kind::Invalid);
    n->scalar = get_scalar(r);
    n->raw = r.str();
    n->style = get_enum(r, ScalarStyle::Folded);
    const std::uint8_t flags = r.u8();
    n->tagged = (flags & 1) != 0;
    n->anchored = (flags & 2) != 0;
    n->exponent_number = (flags & 4) != 0;
    n->span = get_span(r, file);
    n->entries.resize(r.count());
    for (auto& e : n->entries) {
      e.key = r.str();
      e.key_span = get_span(r, file);
      e.value = child(r.u32(), k);
    }
    n->items.resize(r.count());
    for (auto& i : n->items) i = child(r.u32(), k);
    nodes[k] = std::move(n);
  }
  std::vector<YamlDocument> docs(r.count());
  for (auto& d : docs) d.root = child(r.u32(), nodes.size());
  return docs;
}

// --- Commands and the rest -------------------------------------------------------------------

void put(bin::Writer& w, const Word& word) {
  w.str(word.text);
  w.u8(word.known ? 1 : 0);
  w.u32(word.known_prefix);
  put(w, word.span);
}

Word get_word(bin::Reader& r, FileId file) {
  Word word;
  word.text = r.str();
  word.known = r.u8() != 0;
  word.known_prefix = r.u32();
  word.span = get_span(r, file);
  return word;
}

}  // namespace

void put_span_position(bin::Writer& w, const Span& s) {
  w.u32(s.begin);
  w.u32(s.end);
  w.u32(s.start.line);
  w.u32(s.start.column);
  w.u32(s.stop.line);
  w.u32(s.stop.column);
}

void get_span_position(bin::Reader& r, Span& s) {
  s.begin = r.u32();
  s.end = r.u32();
  s.start.line = r.u32();
  s.start.column = r.u32();
  s.stop.line = r.u32();
  s.stop.column = r.u32();
}

std::string encode_facts(const FileFacts& f) {
  bin::Writer w;
  put(w, f.python);
  YamlWriter(w).documents(f.yaml);
  w.u32(static_cast<std::uint32_t>(f.commands.size()));
  for (const CommandFact& c : f.commands) {
    w.u32(static_cast<std::uint32_t>(c.argv.size()));
    for (const Word& a : c.argv) put(w, a);
    w.u32(static_cast<std::uint32_t>(c.env.size()));
    for (const EnvAssignment& e : c.env) {
      w.str(e.name);
      put(w, e.value);
    }
    w.str(c.cwd);
    w.u8((c.cwd_known ? 1 : 0) | (c.cwd_script_dir ? 2 : 0));
    put(w, c.span);
  }
  w.u32(static_cast<std::uint32_t>(f.created.size()));
  for (const CreatedPath& c : f.created) {
    w.str(c.path);
    w.str(c.cwd);
    w.u8((c.cwd_known ? 1 : 0) | (c.cwd_script_dir ? 2 : 0));
    put(w, c.span);
  }
  w.u32(static_cast<std::uint32_t>(f.blocks.size()));
  for (const DocBlock& b : f.blocks) {
    w.u8(static_cast<std::uint8_t>(b.lang));
    w.u32(b.first_line);
    w.u32(b.last_line);
  }
  w.u32(static_cast<std::uint32_t>(f.headings.size()));
  for (const DocHeading& h : f.headings) {
    w.u32(static_cast<std::uint32_t>(h.level));
    w.u32(h.line);
  }
  w.u32(static_cast<std::uint32_t>(f.pins.size()));
  for (const PackagePin& p : f.pins) {
    w.str(p.package);
    w.str(p.spec);
    w.u8(p.direct_url ? 1 : 0);
    w.u8(p.env_var ? 1 : 0);
    w.str(p.text);
    w.u8(p.optional ? 1 : 0);
    put(w, p.span);
  }
  w.u32(static_cast<std::uint32_t>(f.pin_includes.size()));
  for (const std::string& i : f.pin_includes) w.str(i);
  w.u32(static_cast<std::uint32_t>(f.problems.size()));
  for (const FileProblem& p : f.problems) {
    w.str(p.code);
    w.str(p.message);
    put(w, p.span);
  }
  w.u32(static_cast<std::uint32_t>(f.comments.size()));
  for (const Comment& c : f.comments) {
    put(w, c.span);
    w.str(c.text);
  }
  return std::move(w.out);
}

bool decode_facts(std::string_view data, FileId file, FileFacts& out) {
  FileFacts f;
  try {
    bin::Reader r(data);
    f.python = get_module(r, file);
    f.yaml = get_documents(r, file);
    f.commands.resize(r.count());
    for (CommandFact& c : f.commands) {
      c.argv.resize(r.count());
      for (Word& a : c.argv) a = get_word(r, file);
      c.env.resize(r.count());
      for (EnvAssignment& e : c.env) {
        e.name = r.str();
        e.value = get_word(r, file);
      }
      c.cwd = r.str();
      const std::uint8_t cwd_flags = r.u8();
      c.cwd_known = (cwd_flags & 1) != 0;
      c.cwd_script_dir = (cwd_flags & 2) != 0;
      c.span = get_span(r, file);
    }
    f.created.resize(r.count());
    for (CreatedPath& c : f.created) {
      c.path = r.str();
      c.cwd = r.str();
      const std::uint8_t cwd_flags = r.u8();
      c.cwd_known = (cwd_flags & 1) != 0;
      c.cwd_script_dir = (cwd_flags & 2) != 0;
      c.span = get_span(r, file);
    }
    f.blocks.resize(r.count());
    for (DocBlock& b : f.blocks) {
      b.lang = get_enum(r, DocBlock::Lang::Other);
      b.first_line = r.u32();
      b.last_line = r.u32();
    }
    f.headings.resize(r.count());
    for (DocHeading& h : f.headings) {
      h.level = static_cast<int>(r.u32());
      h.line = r.u32();
    }
    f.pins.resize(r.count());
    for (PackagePin& p : f.pins) {
      p.package = r.str();
      p.spec = r.str();
      p.direct_url = r.u8() != 0;
      p.env_var = r.u8() != 0;
      p.text = r.str();
      p.optional = r.u8() != 0;
      p.span = get_span(r, file);
    }
    f.pin_includes.resize(r.count());
    for (std::string& i : f.pin_includes) i = r.str();
    f.problems.resize(r.count());
    for (FileProblem& p : f.problems) {
      p.code = r.str();
      p.message = r.str();
      p.span = get_span(r, file);
    }
    f.comments.resize(r.count());
    for (Comment& c : f.comments) {
      c.span = get_span(r, file);
      c.text = r.str();
    }
    if (!r.at_end()) return false;
  } catch (const bin::BinaryFormatError&) {
    return false;
  }
  out.python = std::move(f.python);
  out.yaml = std::move(f.yaml);
  out.commands = std::move(f.commands);
  out.created = std::move(f.created);
  out.blocks = std::move(f.blocks);
  out.headings = std::move(f.headings);
  out.pins = std::move(f.pins);
  out.pin_includes = std::move(f.pin_includes);
  out.problems = std::move(f.problems);
  out.comments = std::move(f.comments);
  out.extracted = true;
  return true;
}

}  // namespace trl::cache
