// JSON configuration files: values with JSON's semantics (not YAML 1.1's), positions where the
// text allows, and a clear problem for invalid or hostile input.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "analyzer/json/json_extractor.hpp"

using namespace trl;

namespace {
const YamlNode& root_of(const yaml::YamlFacts& f) {
  REQUIRE(f.problems.empty());
  REQUIRE(f.documents.size() == 1);
  REQUIRE(f.documents[0].root);
  return *f.documents[0].root;
}
}  // namespace

TEST_CASE("JSON numbers, booleans, null and strings keep JSON's meaning", "[json]") {
  auto f = json::extract(
      "{\"learning_rate\": 2e-5, \"epochs\": 3, \"big\": 1E5, \"neg\": -7, \"packing\": true,\n"
      " \"mp\": \"no\", \"yes_word\": \"yes\", \"none\": null, \"esc\": \"a\\u00e9\\/b\"}",
      0);
  const auto& r = root_of(f);
  CHECK(r.find("learning_rate")->value->scalar.kind == Scalar::Kind::Float);  // YAML 1.1 would say str
  CHECK(r.find("learning_rate")->value->scalar.f == Approx(2e-5));
  CHECK(r.find("epochs")->value->scalar.kind == Scalar::Kind::Int);
  CHECK(r.find("epochs")->value->scalar.i == 3);
  CHECK(r.find("big")->value->scalar.kind == Scalar::Kind::Float);
  CHECK(r.find("neg")->value->scalar.i == -7);
  CHECK(r.find("packing")->value->scalar.kind == Scalar::Kind::Bool);
  CHECK(r.find("mp")->value->scalar.kind == Scalar::Kind::Str);
  CHECK(r.find("yes_word")->value->scalar.kind == Scalar::Kind::Str);  // never a YAML 1.1 boolean
  CHECK(r.find("none")->value->scalar.kind == Scalar::Kind::Null);
  CHECK(r.find("esc")->value->scalar.s == "a\xC3\xA9/b");
  // positions: the key of the second line
  CHECK(r.find("mp")->key_span.start.line == 1);
  CHECK(r.find("mp")->key_span.start.column == 1);
}

TEST_CASE("JSON: nested objects and arrays, duplicate keys keep the last", "[json]") {
  auto f = json::extract("{\n  \"a\": {\"b\": [1, 2.5, \"x\"]},\n  \"a2\": 1,\n  \"a2\": 2\n}\n", 0);
  const auto& r = root_of(f);
  const auto& b = *r.find("a")->value->find("b")->value;
  REQUIRE(b.items.size() == 3);
  CHECK(b.items[0]->scalar.kind == Scalar::Kind::Int);
  CHECK(b.items[1]->scalar.kind == Scalar::Kind::Float);
  CHECK(b.items[2]->scalar.kind == Scalar::Kind::Str);
  CHECK(r.find("a2")->value->scalar.i == 2);
}

TEST_CASE("JSON the YAML reading cannot follow keeps its values without positions", "[json]") {
  // A tab before a nested line's key is fine JSON; an integer too large for 64 bits is a float.
  auto f = json::extract("{\n\t\"packing\": true,\n\t\"n\": 123456789012345678901234567890\n}", 0);
  const auto& r = root_of(f);
  CHECK(r.find("packing")->value->scalar.b);
  CHECK(r.find("n")->value->scalar.kind == Scalar::Kind::Float);
}

TEST_CASE("invalid and hostile JSON give one TRL903 and no document", "[json]") {
  for (const std::string& bad :
       {std::string("{\"a\": 1,,}"), std::string("{\"a\": "), std::string("packing: true"), std::string(100000, '[')}) {
    auto f = json::extract(bad, 0);
    INFO(bad.substr(0, 20));
    REQUIRE(f.problems.size() == 1);
    CHECK(f.problems[0].code == "TRL903");
    CHECK(f.documents.empty());
  }
  auto deep = json::extract(std::string(300, '[') + std::string(300, ']'), 0);
  CHECK(deep.problems.size() == 1);  // nested deeper than the parser may recurse
}

TEST_CASE("NaN, Infinity and -Infinity are floats, as Python's json module reads them", "[json]") {
  // A training metrics file (unsloth's smoke-test references hold `"grad_norm": NaN`).
  auto f = json::extract(
      "{\"loss\": NaN, \"grad_norm\": Infinity, \"low\": -Infinity, \"text\": \"NaN\",\n"
      " \"huge\": 1e999, \"after\": 2}",
      0);
  const auto& r = root_of(f);
  CHECK(r.find("loss")->value->scalar.kind == Scalar::Kind::Float);
  CHECK(std::isnan(r.find("loss")->value->scalar.f));
  CHECK(std::isinf(r.find("grad_norm")->value->scalar.f));
  CHECK(r.find("low")->value->scalar.f < 0);
  CHECK(r.find("text")->value->scalar.kind == Scalar::Kind::Str);
  CHECK(std::isinf(r.find("huge")->value->scalar.f));
  CHECK(r.find("after")->value->scalar.i == 2);
  CHECK(r.find("after")->key_span.start.line == 1);
}

TEST_CASE("invalid JSON is located where the parser stopped", "[json]") {
  auto f = json::extract("{\n  \"a\": 1,\n  \"b\": nope\n}", 0);
  REQUIRE(f.problems.size() == 1);
  CHECK(f.problems[0].code == "TRL903");
  CHECK(f.problems[0].span.start.line == 2);
  CHECK(f.problems[0].span.start.column >= 7);
}
