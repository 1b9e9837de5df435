// Every implicit-resolver case of PyYAML 6.0.3 (lib/yaml/resolver.py) that matters for configs.
// Expected values were checked against yaml.safe_load("v: <text>").
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <regex>
#include <string>

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

namespace {

// The three patterns as PyYAML 6.0.3 lib/yaml/resolver.py writes them (verbose whitespace
// removed): the reference the hand-written matchers must agree with.
const std::regex& float_reference() {
  static const std::regex re(R"(^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?)"
                             R"(|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?)"
                             R"(|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*)"
                             R"(|[-+]?\.(?:inf|Inf|INF))"
                             R"(|\.(?:nan|NaN|NAN))$)");
  return re;
}
const std::regex& int_reference() {
  static const std::regex re(R"(^(?:[-+]?0b[0-1_]+)"
                             R"(|[-+]?0[0-7_]+)"
                             R"(|[-+]?(?:0|[1-9][0-9_]*))"
                             R"(|[-+]?0x[0-9a-fA-F_]+)"
                             R"(|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$)");
  return re;
}
const std::regex& timestamp_reference() {
  static const std::regex re(R"(^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9])"
                             R"(|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?)"
                             R"((?:[Tt]|[ \t]+)[0-9][0-9]?)"
                             R"(:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?)"
                             R"((?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$)");
  return re;
}

// The exponent form YAML 1.2 reads as a float (rule TRL002, yaml-float-read-as-string).
const std::regex& exponent_reference() {
  static const std::regex re(R"(^[-+]?([0-9][0-9_]*(\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$)");
  return re;
}

void check_against_reference(const std::string& t) {
  INFO("text: [" << t << "]");
  CHECK(trl::yaml::matches_float(t) == std::regex_match(t, float_reference()));
  CHECK(trl::yaml::matches_int(t) == std::regex_match(t, int_reference()));
  CHECK(trl::yaml::matches_timestamp(t) == std::regex_match(t, timestamp_reference()));
  CHECK(trl::yaml::matches_exponent_number(t) == std::regex_match(t, exponent_reference()));
}

}  // namespace

TEST_CASE("the hand-written float, int, timestamp and exponent-number matchers agree with their regexes",
          "[yaml][resolver]") {
  // Edge cases of each alternative, then strings made of the characters the patterns use.
  const char* cases[] = {"",
                         "0",
                         "-0",
                         "+",
                         "00",
                         "09",
                         "0_",
                         "0b",
                         "0b1_0",
                         "-0b2",
                         "0x",
                         "0xfF_",
                         "0xg",
                         "1_000",
                         "1:2",
                         "1:60",
                         "1:59",
                         "1:5:",
                         "1:123",
                         "0:30",
                         "190:20:30",
                         "1.",
                         ".",
                         "-.5",
                         ".5",
                         "._5",
                         "1.5e5",
                         "1.5e+5",
                         "1.5E-05",
                         "1.5e+",
                         "1e+5",
                         ".5e-3",
                         "1:20.5",
                         "1:20:",
                         "0:20.",
                         "1:20.5e+3",
                         ".inf",
                         "-.Inf",
                         "+.INF",
                         ".nan",
                         "-.nan",
                         ".NaN",
                         "2001-12-14",
                         "2001-1-14",
                         "2001-12-1",
                         "20011-12-14",
                         "2001-12-14t21:59:43.10-05:00",
                         "2001-12-14 21:59:43.10 -5",
                         "2001-12-14  \t21:59:43.10Z",
                         "2001-12-14 21:59:43.10 ",
                         "2001-12-14 21:59:43. Z",
                         "2001-1-1 1:59:43",
                         "2001-12-14 121:59:43",
                         "2001-12-14T21:59:43+05:0",
                         "2001-12-14T21:59:43+055",
                         "2001-12-14T21:59:43Z ",
                         "2001-12-14 T21:59:43",
                         "1e5",
                         "1E-5",
                         "-1_0e+05",
                         "1.e5",
                         ".e5",
                         "._e5",
                         "1e",
                         "e5",
                         "1e5.0",
                         "+.5E5"};
  for (const char* c : cases) check_against_reference(c);
  const std::string alphabet = "0123456789_.:+-eExbafinINFNaTtZ \t";
  std::uint64_t state = 88172645463325252ULL;  // xorshift64: the same strings on every run
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (int n = 0; n < 30000; ++n) {
    std::string t;
    const std::size_t len = next() % 12;
    for (std::size_t k = 0; k < len; ++k) t.push_back(alphabet[next() % alphabet.size()]);
    check_against_reference(t);
  }
  // Random strings rarely form timestamps and sexagesimals: mutate valid ones one character at a time.
  const std::string seeds[] = {"2001-12-14t21:59:43.10-05:00",
                               "2001-1-4 1:59:43 Z",
                               "-190:20:30.15",
                               "+12_3:45:06",
                               "1.5e+05",
                               "0b1011",
                               "0x1f"};
  for (const std::string& seed : seeds) {
    for (std::size_t pos = 0; pos < seed.size(); ++pos) {
      for (char c : alphabet) {
        std::string t = seed;
        t[pos] = c;
        check_against_reference(t);
        check_against_reference(t.substr(0, pos));
      }
    }
  }
}
