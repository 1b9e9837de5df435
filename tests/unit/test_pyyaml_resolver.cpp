// Every implicit-resolver case of PyYAML 6.0.3 (lib/yaml/resolver.py) that matters for configs.
// Expected values were checked against yaml.safe_load("v: <text>").
#include <catch2/catch.hpp>
#include <cmath>

#include "analyzer/yaml/pyyaml_resolver.hpp"

using trl::Scalar;
using trl::yaml::resolve_plain;
using trl::yaml::resolve_tagged;
using Kind = Scalar::Kind;

TEST_CASE("YAML 1.1 booleans: yes/no/on/off and true/false in three casings", "[yaml][resolver]") {
  for (auto t : {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}) {
    INFO(t);
    auto s = resolve_plain(t);
    CHECK(s.kind == Kind::Bool);
    CHECK(s.b);
  }
  for (auto t : {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}) {
    INFO(t);
    auto s = resolve_plain(t);
    CHECK(s.kind == Kind::Bool);
    CHECK_FALSE(s.b);
  }
}

TEST_CASE("single letters and mixed case are strings, not booleans", "[yaml][resolver]") {
  for (auto t : {"y", "n", "Y", "N", "yEs", "tRue"}) {
    INFO(t);
    CHECK(resolve_plain(t).kind == Kind::Str);
  }
}

TEST_CASE("floats need a dot, and an exponent needs a sign", "[yaml][resolver]") {
  for (auto t : {"1e-5", "5e-5", "1E-4", "1.0e5", "1e5", "3e4", "2E+5", "inf", "nan", "12e"}) {
    INFO(t);
    CHECK(resolve_plain(t).kind == Kind::Str);
  }
  struct Case {
    const char* text;
    double value;
  };
  for (auto [t, v] : {Case{"1.0e-5", 1e-5}, Case{"1.e-5", 1e-5}, Case{".5", 0.5}, Case{"5.", 5.0}, Case{"1.5", 1.5},
                      Case{"-1.5", -1.5}, Case{"+1.5", 1.5}, Case{"1_000.5", 1000.5}, Case{"2.0E+5", 200000.0},
                      Case{"190:20:30.15", 685230.15}}) {
    INFO(t);
    auto s = resolve_plain(t);
    REQUIRE(s.kind == Kind::Float);
    CHECK(s.f == Approx(v));
  }
  CHECK(std::isinf(resolve_plain(".inf").f));
  CHECK(resolve_plain("-.inf").f < 0);
  CHECK(std::isinf(resolve_plain("+.Inf").f));
  CHECK(std::isnan(resolve_plain(".nan").f));
  CHECK(std::isnan(resolve_plain(".NaN").f));
}

TEST_CASE("integers: decimal, leading-zero octal, hex, binary, underscores, sexagesimal", "[yaml][resolver]") {
  struct Case {
    const char* text;
    std::int64_t value;
  };
  for (auto [t, v] : {Case{"0", 0}, Case{"1", 1}, Case{"-1", -1}, Case{"+7", 7}, Case{"010", 8}, Case{"017", 15},
                      Case{"01", 1}, Case{"0x1f", 31}, Case{"0x1F", 31}, Case{"-0x10", -16}, Case{"0b101", 5},
                      Case{"1_000", 1000}, Case{"190:20:30", 685230}, Case{"1:30", 90}}) {
    INFO(t);
    auto s = resolve_plain(t);
    REQUIRE(s.kind == Kind::Int);
    CHECK(s.i == v);
  }
  // Not integers under YAML 1.1: 0o17 (YAML 1.2 only), 08 (not octal), 1:60 (seconds < 60).
  for (auto t : {"0o17", "08", "1:60", "0.1:30", "0x", "0b", "0,1", "1.0.0"}) {
    INFO(t);
    CHECK(resolve_plain(t).kind == Kind::Str);
  }
}

TEST_CASE("nulls: ~, null in three casings, and the empty scalar", "[yaml][resolver]") {
  for (auto t : {"~", "null", "Null", "NULL", ""}) {
    INFO(t);
    CHECK(resolve_plain(t).kind == Kind::Null);
  }
  CHECK(resolve_plain("nULL").kind == Kind::Str);
  CHECK(resolve_plain("None").kind == Kind::Str);
}

TEST_CASE("timestamps resolve as dates; near misses stay strings", "[yaml][resolver]") {
  CHECK(resolve_plain("2024-01-01").kind == Kind::Timestamp);
  CHECK(resolve_plain("2001-12-14t21:59:43.10-05:00").kind == Kind::Timestamp);
  CHECK(resolve_plain("2001-12-14 21:59:43.10").kind == Kind::Timestamp);
  CHECK(resolve_plain("2024-1-1").kind == Kind::Str);
}

TEST_CASE("ordinary config words stay strings", "[yaml][resolver]") {
  for (auto t : {"bf16", "fp16", "sdpa", "flash_attention_2", "FSDP", "-", "."}) {
    INFO(t);
    CHECK(resolve_plain(t).kind == Kind::Str);
  }
}

TEST_CASE("explicit tags call the constructor directly", "[yaml][resolver]") {
  auto f = resolve_tagged("!!float", "1e-5", true);
  REQUIRE(f.kind == Kind::Float);
  CHECK(f.f == Approx(1e-5));
  CHECK(resolve_tagged("!!float", "3", true).kind == Kind::Float);
  CHECK(resolve_tagged("!!str", "yes", true).kind == Kind::Str);
  CHECK(resolve_tagged("!!int", "0x10", true).i == 16);
  CHECK(resolve_tagged("tag:yaml.org,2002:bool", "on", true).b);
  // A tag that does not fit its text keeps the text (PyYAML would raise).
  CHECK(resolve_tagged("!!int", "abc", true).kind == Kind::Str);
  // An application tag does not change plain resolution.
  CHECK(resolve_tagged("!custom", "yes", true).kind == Kind::Bool);
  CHECK(resolve_tagged("!custom", "yes", false).kind == Kind::Str);
}
