// The result cache's encoding of findings and its key (analyzer/cache/result_cache.hpp); the
// command-line behaviour is in tests/integration/cache_test.sh.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "analyzer/cache/result_cache.hpp"
#include "analyzer/util/binary_io.hpp"

namespace fs = std::filesystem;
using namespace trl;

namespace {

struct TempDir {
  fs::path root;
  TempDir() {
    static int counter = 0;
    root =
        fs::temp_directory_path() / ("trl-lint-cache-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(root);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
  Project read() const {
    LoadOptions o;
    o.paths = {root.string()};
    return read_project(o);
  }
};

Span span(FileId f, std::uint32_t b, std::uint32_t e) {
  Span s{f, b, e};
  s.start = {0, b};
  s.stop = {0, e};
  return s;
}

std::vector<Diagnostic> sample() {
  Diagnostic d;
  d.code = "TRL101";
  d.name = "packing-with-context-parallelism";
  d.severity = Severity::Warning;
  d.message = "`packing` with context parallelism";
  d.span = span(0, 0, 7);
  d.label = "here";
  d.related.push_back({span(0, 8, 9), "set here"});
  d.related.push_back({Span{}, "nowhere"});
  d.notes = {"a note", ""};
  d.help = "set packing: false";
  d.fixes.push_back({"turn it off", {{span(0, 0, 7), "packing: false"}}, false});
  Diagnostic plain;
  plain.code = "TRL903";
  plain.span = Span{0};
  return {d, plain};
}

}  // namespace

TEST_CASE("cache: findings survive encoding exactly", "[cache]") {
  TempDir t;
  t.write("a.yaml", "packing: true\n");
  Project p = t.read();
  auto diags = sample();
  auto back = cache::decode_diagnostics(cache::encode_diagnostics(diags), p);
  REQUIRE(back);
  REQUIRE(back->size() == 2);
  const Diagnostic& d = (*back)[0];
  CHECK(d.code == "TRL101");
  CHECK(d.name == diags[0].name);
  CHECK(d.severity == Severity::Warning);
  CHECK(d.message == diags[0].message);
  CHECK(d.span == diags[0].span);
  CHECK(d.label == "here");
  REQUIRE(d.related.size() == 2);
  CHECK(d.related[0].span == diags[0].related[0].span);
  CHECK_FALSE(d.related[1].span.valid());
  CHECK(d.notes == diags[0].notes);
  CHECK(d.help == diags[0].help);
  REQUIRE(d.fixes.size() == 1);
  CHECK_FALSE(d.fixes[0].safe);
  CHECK(d.fixes[0].edits[0].replacement == "packing: false");
  CHECK_FALSE((*back)[1].help);
  CHECK(cache::encode_diagnostics(*back) == cache::encode_diagnostics(diags));
}

TEST_CASE("cache: damaged data and spans that do not fit the files are refused", "[cache]") {
  TempDir t;
  t.write("a.yaml", "packing: true\n");
  Project p = t.read();
  const std::string good = cache::encode_diagnostics(sample());
  for (std::size_t cut = 0; cut < good.size(); cut += 7)
    CHECK_FALSE(cache::decode_diagnostics(std::string_view(good).substr(0, cut), p));
  CHECK_FALSE(cache::decode_diagnostics(good + "x", p));
  // A span past the end of the file, a file id beyond the project, an inverted span.
  for (Span bad : {span(0, 0, 500), span(7, 0, 1), span(0, 5, 2)}) {
    auto diags = sample();
    diags[0].span = bad;
    CHECK_FALSE(cache::decode_diagnostics(cache::encode_diagnostics(diags), p));
  }
  auto far = sample();
  far[0].related[0].span.start.line = 40;  // the file has one line
  CHECK_FALSE(cache::decode_diagnostics(cache::encode_diagnostics(far), p));
}

TEST_CASE("cache: the key follows file contents, deferred files excepted", "[cache]") {
  TempDir t;
  t.write("train.py", "from trl import SFTConfig\nSFTConfig(packing=True)\n");
  t.write("util.py", "import os\n");
  t.write("a.yaml", "packing: true\n");
  Configuration config{ConfigOptions{}};
  const std::string dir = (t.root / "cache").string();
  auto roundtrip = [&](const std::string& inv) {
    Project p = t.read();
    cache::ResultCache c(dir, inv);
    c.prepare(p, config);
    c.load();
    return std::pair{c.lookup(p, LoadOptions{}).has_value(), c.store(p, {}, cache::now_ns())};
  };
  CHECK(roundtrip("v1") == std::pair{false, true});
  CHECK(roundtrip("v1").first);
  CHECK_FALSE(roundtrip("v2").first);  // another invocation: another slot, a miss
  CHECK(roundtrip("v1").first);
  t.write("a.yaml", "packing: false\n");
  CHECK_FALSE(roundtrip("v1").first);
  CHECK(roundtrip("v1").first);
  t.write("util.py", "import sys\n");  // deferred by the pre-filter, reached by nothing
  CHECK(roundtrip("v1").first);
  t.write("train.py", "from trl import SFTConfig\nSFTConfig(packing=False)\n");
  CHECK_FALSE(roundtrip("v1").first);
  CHECK(fs::exists(t.root / "cache" / ".gitignore"));
  CHECK(fs::exists(t.root / "cache" / "CACHEDIR.TAG"));
  CHECK_FALSE(cache::build_identity().empty());
}

TEST_CASE("hash64: different inputs and seeds give different hashes", "[cache]") {
  CHECK(bin::hash64("") != bin::hash64("a"));
  CHECK(bin::hash64("abcdefgh") != bin::hash64("abcdefgi"));
  CHECK(bin::hash64("abcdefghX") != bin::hash64("abcdefghY"));
  CHECK(bin::hash64(std::string(1, '\0')) != bin::hash64(std::string(2, '\0')));
  CHECK(bin::hash64("same", 1) != bin::hash64("same", 2));
  CHECK(bin::hash64("same") == bin::hash64("same"));
}
