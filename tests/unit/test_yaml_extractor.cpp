#include <catch2/catch.hpp>

#include "analyzer/yaml/yaml_extractor.hpp"

using namespace trl;

namespace {
const YamlNode& root_of(const yaml::YamlFacts& f) {
  REQUIRE(!f.documents.empty());
  REQUIRE(f.documents[0].root);
  return *f.documents[0].root;
}
}  // namespace

TEST_CASE("mapping keys keep their spans; plain and quoted scalars resolve differently", "[yaml]") {
  auto f = yaml::extract("packing: on\nmixed_precision: 'no'\nlr: 1e-5\nlr2: \"1.0e-5\"\n", 0);
  const auto& r = root_of(f);
  REQUIRE(r.kind == YamlNode::Kind::Mapping);
  const auto* packing = r.find("packing");
  REQUIRE(packing);
  CHECK(packing->value->scalar.kind == Scalar::Kind::Bool);
  CHECK(packing->key_span.start.line == 0);
  CHECK(packing->key_span.start.column == 0);
  const auto* mp = r.find("mixed_precision");
  CHECK(mp->value->scalar.kind == Scalar::Kind::Str);
  CHECK(mp->value->scalar.s == "no");
  CHECK(mp->value->style == ScalarStyle::SingleQuoted);
  CHECK(r.find("lr")->value->scalar.kind == Scalar::Kind::Str);
  CHECK(r.find("lr2")->value->scalar.kind == Scalar::Kind::Str);  // quoted: always a string
  CHECK(r.find("lr")->key_span.start.line == 2);
  CHECK(f.problems.empty());
}

TEST_CASE("plain scalars in exponent form are marked, whether PyYAML reads them as numbers or not", "[yaml]") {
  auto f = yaml::extract("a: 1e-5\nb: 3e4\nc: 1.0e-5\nd: \"1e-5\"\ne: 1.0e+5\nf: word\ng: !!float 1e-5\n", 0);
  const auto& r = root_of(f);
  REQUIRE(r.kind == YamlNode::Kind::Mapping);
  CHECK(r.find("a")->value->exponent_number);
  CHECK(r.find("a")->value->scalar.kind == Scalar::Kind::Str);  // no dot: a string for PyYAML
  CHECK(r.find("b")->value->exponent_number);
  CHECK(r.find("b")->value->scalar.kind == Scalar::Kind::Str);
  CHECK(r.find("c")->value->exponent_number);
  CHECK(r.find("c")->value->scalar.kind == Scalar::Kind::Float);  // a YAML 1.1 float
  CHECK_FALSE(r.find("d")->value->exponent_number);               // quoted: a string written as one
  CHECK(r.find("e")->value->scalar.kind == Scalar::Kind::Float);
  CHECK_FALSE(r.find("f")->value->exponent_number);
  CHECK(r.find("g")->value->exponent_number);  // the text is; the tag decides (the node is tagged)
  CHECK(r.find("g")->value->tagged);
}

TEST_CASE("anchors, aliases and merge keys resolve as PyYAML does", "[yaml]") {
  auto f =
      yaml::extract("base: &b\n  packing: true\n  max_length: 2048\nrun:\n  <<: *b\n  max_length: 4096\ncopy: *b\n", 0);
  const auto& r = root_of(f);
  const auto& run = *r.find("run")->value;
  CHECK(run.find("packing")->value->scalar.b);
  CHECK(run.find("max_length")->value->scalar.i == 4096);  // explicit key wins over the merge
  CHECK(r.find("copy")->value->find("max_length")->value->scalar.i == 2048);
  // The anchored node knows it (an edit of it edits every alias); the others do not.
  CHECK(r.find("base")->value->anchored);
  CHECK(r.find("copy")->value->anchored);  // the same node
  CHECK_FALSE(run.anchored);
  CHECK_FALSE(run.find("max_length")->value->anchored);
}

TEST_CASE("anchors on scalars, in flow collections and after tags are recorded", "[yaml]") {
  auto f = yaml::extract("a: &n 1e8\nb: *n\nc: [&m no, x]\nd: !!str &t yes\ne: !!str yes\nf: '&x'\n", 0);
  const auto& r = root_of(f);
  CHECK(r.find("a")->value->anchored);
  CHECK(r.find("b")->value->anchored);
  CHECK(r.find("c")->value->items.at(0)->anchored);
  CHECK_FALSE(r.find("c")->value->items.at(1)->anchored);
  CHECK_FALSE(r.find("c")->value->anchored);
  CHECK(r.find("d")->value->anchored);
  CHECK_FALSE(r.find("e")->value->anchored);
  CHECK_FALSE(r.find("f")->value->anchored);  // quoted text, not an anchor
}

TEST_CASE("duplicate keys: the last one wins", "[yaml]") {
  auto f = yaml::extract("packing: true\npacking: false\n", 0);
  CHECK_FALSE(root_of(f).find("packing")->value->scalar.b);
  // The earlier one is not an entry at all: rules that walk the entries (and their fixes) see
  // only the value PyYAML keeps; the other keys keep their order.
  auto g = yaml::extract("a: 1\nmixed_precision: no\nb: 2\nmixed_precision: off\nc: {x: 1, x: 2}\n", 0);
  const YamlNode& r = root_of(g);
  REQUIRE(r.entries.size() == 4);
  CHECK(r.entries[0].key == "a");
  CHECK(r.entries[1].key == "b");
  CHECK(r.entries[2].key == "mixed_precision");
  CHECK(r.entries[2].value->raw == "off");
  CHECK(r.entries[2].key_span.start.line == 3);
  CHECK(r.entries[3].key == "c");
  REQUIRE(r.entries[3].value->entries.size() == 1);
  CHECK(r.entries[3].value->entries[0].value->scalar.i == 2);
}

TEST_CASE("empty values, flow collections, block scalars and nulls", "[yaml]") {
  auto f = yaml::extract("a:\nb: [1, 2.5, x]\nc: {d: yes}\ne: |\n  line1\n  line2\nf: ~\n", 0);
  const auto& r = root_of(f);
  CHECK(r.find("a")->value->scalar.kind == Scalar::Kind::Null);
  const auto& b = *r.find("b")->value;
  REQUIRE(b.kind == YamlNode::Kind::Sequence);
  REQUIRE(b.items.size() == 3);
  CHECK(b.items[0]->scalar.i == 1);
  CHECK(b.items[1]->scalar.kind == Scalar::Kind::Float);
  CHECK(r.find("c")->value->find("d")->value->scalar.b);
  CHECK(r.find("e")->value->scalar.s == "line1\nline2\n");
  CHECK(r.find("f")->value->scalar.kind == Scalar::Kind::Null);
}

TEST_CASE("broken YAML is reported and the part before the error is kept", "[yaml]") {
  auto f = yaml::extract("packing: true\nbad: [unclosed\n", 0);
  REQUIRE_FALSE(f.problems.empty());
  CHECK(f.problems[0].code == "TRL903");
}

TEST_CASE("alias bombs do not expand: aliases share the anchored node", "[yaml][robustness]") {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c) {
    text += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) text += std::string(i ? ", " : "") + "*" + prev;
    text += "]\n";
    prev = c;
  }
  auto f = yaml::extract(text, 0);
  const auto& j = *root_of(f).find("j")->value;
  REQUIRE(j.items.size() == 9);
  CHECK(j.items[0] == j.items[1]);  // the same node, not a copy
}

TEST_CASE("deep nesting is cut off with a diagnostic instead of exhausting the stack", "[yaml][robustness]") {
  std::string text = "a: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  auto f = yaml::extract(text, 0);
  bool deep = false;
  for (const auto& p : f.problems) deep = deep || p.code == "TRL904";
  CHECK(deep);
}

TEST_CASE("several documents in one stream are all kept", "[yaml]") {
  auto f = yaml::extract("a: 1\n---\nb: 2\n", 0);
  CHECK(f.documents.size() == 2);
}

TEST_CASE("double-quoted scalars decode every escape PyYAML knows", "[yaml]") {
  auto value = [](const std::string& quoted) {
    auto f = yaml::extract("v: \"" + quoted + "\"\n", 0);
    const auto* e = root_of(f).find("v");
    REQUIRE(e);
    REQUIRE(e->value->scalar.kind == Scalar::Kind::Str);
    return e->value->scalar.s;
  };
  // A name spelt with a code point is the name itself (no false "not one of the accepted values").
  CHECK(value("\\u0063osine") == "cosine");
  CHECK(value("\\x63osine") == "cosine");
  CHECK(value("\\U00000063osine") == "cosine");
  CHECK(value("caf\\u00e9") == "caf\xc3\xa9");
  CHECK(value("\\U0001F600") == "\xf0\x9f\x98\x80");
  CHECK(value("a\\eb") == std::string("a\x1b") + "b");
  CHECK(value("\\a\\b\\v\\f\\0") == std::string("\a\b\v\f\0", 5));
  CHECK(value("\\N\\_\\L\\P") == "\xc2\x85\xc2\xa0\xe2\x80\xa8\xe2\x80\xa9");
  CHECK(value("tab\\there") == "tab\there");
  CHECK(value("q\\\"\\\\\\/") == "q\"\\/");
  // Escapes PyYAML refuses: the file does not load. The grammar refuses them too (TRL903); a
  // scalar that still came through keeps the text as written, never half-decoded.
  for (const std::string bad : {"\\q", "\\x6", "\\u12g4", "\\UFFFFFFFF"}) {
    INFO(bad);
    auto f = yaml::extract("v: \"" + bad + "\"\n", 0);
    const YamlEntry* e = f.documents.empty() || !f.documents[0].root ? nullptr : f.documents[0].root->find("v");
    if (e && e->value->kind == YamlNode::Kind::Scalar && f.problems.empty())
      CHECK(e->value->scalar.s == bad);
    else
      CHECK_FALSE(f.problems.empty());
  }
}

TEST_CASE("a quoted scalar continued at its key's column is read as PyYAML reads it", "[yaml]") {
  // smollm's vision configs: PyYAML folds the continuation line into the string; the keys after
  // it are read, and nothing is reported.
  auto f = yaml::extract(
      "hparams:\n    tokens: '[A(\"x\"), B(\"y\"),\n    C(\"z\")]'\n    max_steps: 100\ndata: {x: 1}\n", 0);
  CHECK(f.problems.empty());
  const auto& h = *root_of(f).find("hparams")->value;
  CHECK(h.find("tokens")->value->scalar.s == "[A(\"x\"), B(\"y\"), C(\"z\")]");
  CHECK(h.find("max_steps")->value->scalar.i == 100);
  REQUIRE(h.find("max_steps")->key_span.start.line == 3);
  CHECK(h.find("max_steps")->key_span.start.column == 4);
  CHECK(root_of(f).find("data") != nullptr);
}

TEST_CASE("YAML errors are located where PyYAML stops, with its reason", "[yaml]") {
  struct Case {
    const char* text;
    std::uint32_t line, column;  // 0-based
    const char* reason;
  };
  const Case cases[] = {
      {"a: b: c\n", 0, 4, "mapping values are not allowed here"},
      {"a: 1\nb: \"open\nc: 2\n", 3, 0, "found unexpected end of stream while scanning a quoted scalar"},
      {"a: [1, 2\nb: 3\n", 1, 1, "while parsing a flow sequence"},
      {"a: 1\t\n", 0, 4, "found character '\\t' that cannot start any token"},
      {"a:\n  - x\n  -\ty\n", 2, 3, "found character '\\t'"},
      {"a: *nope\n", 0, 3, "found undefined alias 'nope'"},
      {"a: &x 1\nb: &x 2\n", 1, 3, "found duplicate anchor 'x'"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto f = yaml::extract(c.text, 0);
    REQUIRE(f.problems.size() == 1);
    CHECK(f.problems[0].code == "TRL903");
    CHECK(f.problems[0].span.start.line == c.line);
    CHECK(f.problems[0].span.start.column == c.column);
    CHECK(f.problems[0].message.find(c.reason) != std::string::npos);
  }
}

TEST_CASE("tabs inside quoted and block scalars and comments are text", "[yaml]") {
  auto f = yaml::extract("a: \"x\ty\"\nb: |\n  x\ty\nc: 1 # c\td\n", 0);
  CHECK(f.problems.empty());
  CHECK(root_of(f).find("a")->value->scalar.s == "x\ty");
  CHECK(root_of(f).find("b")->value->scalar.s == "x\ty\n");
}

TEST_CASE("the non-specific tag resolves like a plain scalar, as PyYAML's parser does", "[yaml]") {
  auto f = yaml::extract("a: ! 12\nb: ! '12'\n", 0);
  CHECK(root_of(f).find("a")->value->scalar.kind == Scalar::Kind::Int);
  CHECK(root_of(f).find("b")->value->scalar.kind == Scalar::Kind::Int);
}

TEST_CASE("positions count bytes after non-ASCII text and a byte order mark", "[yaml]") {
  auto f = yaml::extract(
      "\xEF\xBB\xBF"
      "clé: \"é\"\nnext: 1\n",
      0);
  const auto* e = root_of(f).find("next");
  REQUIRE(e);
  CHECK(e->key_span.begin == 3 + 11);
  CHECK(e->key_span.start.line == 1);
  CHECK(e->value->span.start.column == 6);
}
