// The result cache's encoding of findings and its key (analyzer/cache/result_cache.hpp); the
// command-line behaviour is in tests/integration/cache_test.sh.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "analyzer/cache/facts_codec.hpp"
#include "analyzer/cache/result_cache.hpp"
#include "analyzer/config/config_file.hpp"
#include "analyzer/parse/tree_sitter.hpp"
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
  d.related.push_back({span(0, 2, 5), "both meet in this launch", true});
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
  REQUIRE(d.related.size() == 3);
  CHECK(d.related[0].span == diags[0].related[0].span);
  CHECK_FALSE(d.related[0].launch);
  CHECK_FALSE(d.related[1].span.valid());
  CHECK(d.related[2].launch);
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

TEST_CASE("cache: a file's record is found at its id, and by its path when the files moved", "[cache]") {
  TempDir t;
  t.write("a.yaml", "packing: true\n");
  t.write("b.yaml", "packing: false\n");
  t.write("c.sh", "accelerate launch train.py\n");
  Configuration config{ConfigOptions{}};
  const std::string dir = (t.root / "cache").string();
  {
    cache::ResultCache c(dir, "v1");
    CHECK_FALSE(c.has_entry());
    Project p = t.read();
    c.prepare(p, config);
    c.load();
    REQUIRE(c.store(p, {}, cache::now_ns()));
    CHECK(c.has_entry());
  }
  cache::ResultCache c(dir, "v1");
  c.load();
  const Project p = t.read();
  REQUIRE(p.sources.size() == 3);
  const auto path = [&](FileId id) { return p.sources.get(id).abs_path; };
  for (FileId id = 0; id < 3; ++id) {
    INFO(path(id));
    const KnownFile* at_id = c.known(id, path(id));
    REQUIRE(at_id != nullptr);
    CHECK(at_id->stamp == p.facts[id].stamp);
    CHECK(at_id->content_hash == p.facts[id].content_hash);
    // Files added or removed before it move its id: it is found by its path.
    CHECK(c.known(id + 1, path(id)) == at_id);
    CHECK(c.known(100, path(id)) == at_id);
  }
  CHECK(c.known(1, path(0)) != c.known(1, path(1)));
  CHECK(c.known(0, (t.root / "new.yaml").string()) == nullptr);
  // Another invocation's slot has no entry, and no records.
  cache::ResultCache other(dir, "v2");
  CHECK_FALSE(other.has_entry());
  other.load();
  CHECK(other.known(0, path(0)) == nullptr);
}

TEST_CASE(
    "cache: a file that could not be tried in another process is cached neither in the entry nor in the facts pack",
    "[cache]") {
  // Whether a process can be started is the machine's state, not the text's: where none could
  // (ts::OtherProcess::None here), the long file is reported unchecked, and the next run, which
  // can start one, parses it instead of replaying the report.
  TempDir t;
  t.write("train.py", "from trl import SFTConfig\nSFTConfig(packing=True)\n");
  // A long Python file (YAML is read by libyaml, in this process, whatever its length).
  std::string python = "from trl import SFTConfig\n";
  for (int i = 0; i < 3000; ++i) python += "key" + std::to_string(i) + " = [1, 2]\n";
  t.write("long.py", python);
  Configuration config{ConfigOptions{}};
  const std::string dir = (t.root / "cache").string();
  struct Outcome {
    bool hit = false;
    std::size_t taken = 0;
    bool transient = false;
    bool reported = false;
    bool stored = false;
  };
  auto run = [&](ts::OtherProcess allowed) {
    ts::set_other_process_for_testing(allowed);
    Outcome o;
    Project p = t.read();
    cache::ResultCache c(dir, "v1");
    c.prepare(p, config);
    c.load();
    o.hit = c.lookup(p, LoadOptions{}).has_value();
    if (!o.hit) {
      o.taken = c.take_facts(p);
      extract_project(p, LoadOptions{});
      for (FileId id = 0; id < p.sources.size(); ++id)
        if (fs::path(p.sources.get(id).path).filename() == "long.py") {
          o.transient = p.facts[id].transient;
          o.reported = !p.facts[id].problems.empty();
        }
      o.stored = c.store(p, {}, cache::now_ns());
      c.store_facts(p);
    }
    ts::set_other_process_for_testing(ts::OtherProcess::Probe);
    return o;
  };
  const Outcome none = run(ts::OtherProcess::None);
  CHECK_FALSE(none.hit);
  CHECK(none.transient);
  CHECK(none.reported);
  CHECK_FALSE(none.stored);
  const Outcome probe = run(ts::OtherProcess::Probe);
  CHECK_FALSE(probe.hit);   // no entry was stored
  CHECK(probe.taken == 1);  // train.py's facts, not long.py's
  CHECK_FALSE(probe.transient);
  CHECK_FALSE(probe.reported);  // parsed this time
  CHECK(probe.stored);
  CHECK(run(ts::OtherProcess::Probe).hit);
}

TEST_CASE("hash64: different inputs and seeds give different hashes", "[cache]") {
  CHECK(bin::hash64("") != bin::hash64("a"));
  CHECK(bin::hash64("abcdefgh") != bin::hash64("abcdefgi"));
  CHECK(bin::hash64("abcdefghX") != bin::hash64("abcdefghY"));
  CHECK(bin::hash64(std::string(1, '\0')) != bin::hash64(std::string(2, '\0')));
  CHECK(bin::hash64("same", 1) != bin::hash64("same", 2));
  CHECK(bin::hash64("same") == bin::hash64("same"));
}

TEST_CASE("cache: file facts survive the facts pack's encoding, spans moved to the new file", "[cache]") {
  Project p = make_project(
      "/repo",
      {{"train.py",
        "import os, trl as t\nfrom trl import SFTConfig  # noqa: TRL101\n\n@dec(1)\ndef f(a, *b, c=2, **d):\n"
        "    x: int = [1, 2.5, 'three', None, True, f\"{a}\"]\n    x += {1: 2, **d}\n    return a if b else -c\n\n"
        "class C(Base):\n    pass\n\nfor i in range(3):\n    pass\nelse:\n    pass\n"
        "try:\n    pass\nexcept E:\n    pass\nfinally:\n    pass\n"
        "with open(p) as fh:\n    cfg = SFTConfig(packing=True, **kw)\nwhile not a and b or c < 1 <= 2:\n    break\n"
        "def g():\n    global G\n    del G, kw['k']\n    if (y := 1):\n        pass\n"
        "match a:\n    case 1:\n        pass\n    case _:\n        pass\n"},
       {"cfg.yaml",
        "base: &b {lr: 1.0e-5, packing: yes}\nrun:\n  <<: *b\n  name: \"q\\u0073\"\nlist: [*b, *b, 'x']\nsmall: 1e-5\n"
        "text: |\n  line\n---\nsecond: 2019-01-01\n"},
       {"launch.sh",
        "#!/bin/bash\nexport A=1\ncd sub\nB=2 accelerate launch --config_file c.yaml train.py --x \"$UNSET\"\n"
        "echo hi > made.txt\n"},
       {"README.md",
        "# Title\n\n```bash\ntorchrun train.py\n```\n\n```python\nimport trl\n```\n\n```yaml\na: 1\n```\n"},
       {"requirements.txt", "trl==0.19.1\ntransformers>=4.50\n"},
       {"broken.py", "def f(:\n"},
       {"broken.yaml", "a: [1, 2\n"}});
  REQUIRE(p.sources.size() == 7);
  for (FileId id = 0; id < p.sources.size(); ++id) {
    INFO(p.sources.get(id).path);
    const FileFacts& original = p.facts[id];
    const std::string data = cache::encode_facts(original);
    FileFacts decoded;
    const FileId moved = id + 11;
    REQUIRE(cache::decode_facts(data, moved, decoded));
    CHECK(decoded.extracted);
    // Every field written is read back: the decoded facts encode to the same bytes.
    CHECK(cache::encode_facts(decoded) == data);
    for (const auto& c : decoded.comments) CHECK(c.span.file == moved);
    for (const auto& e : decoded.python.exprs)
      if (e.span.valid()) CHECK(e.span.file == moved);
    for (const auto& c : decoded.commands)
      for (const auto& w : c.argv) CHECK(w.span.file == moved);
    CHECK(decoded.problems.size() == original.problems.size());
  }
  // The sample exercises what it should.
  CHECK(!p.facts[0].python.stmts.empty());
  // ... global, del, := and match (kinds added after the others: the codec reads them back).
  auto has_stmt = [&](py::StmtKind k) {
    return std::any_of(p.facts[0].python.stmts.begin(), p.facts[0].python.stmts.end(),
                       [&](const py::Stmt& st) { return st.kind == k; });
  };
  CHECK(has_stmt(py::StmtKind::Global));
  CHECK(has_stmt(py::StmtKind::Delete));
  CHECK(std::any_of(p.facts[0].python.exprs.begin(), p.facts[0].python.exprs.end(),
                    [](const py::Expr& e) { return e.kind == py::ExprKind::NamedExpr; }));
  CHECK(!p.facts[0].comments.empty());
  {  // a node flag written after the first two (YamlNode::exponent_number) survives the codec
    FileFacts decoded;
    REQUIRE(cache::decode_facts(cache::encode_facts(p.facts[1]), 1, decoded));
    REQUIRE(!decoded.yaml.empty());
    REQUIRE(decoded.yaml[0].root);
    const YamlEntry* small = decoded.yaml[0].root->find("small");
    REQUIRE(small);
    CHECK(small->value->exponent_number);
  }
  CHECK(!p.facts[2].commands.empty());
  CHECK(!p.facts[2].created.empty());
  CHECK(!p.facts[3].blocks.empty());
  CHECK(!p.facts[4].pins.empty());
  CHECK(p.facts[5].python.has_syntax_error);
  CHECK(!p.facts[6].problems.empty());

  SECTION("YAML aliases stay one shared node") {
    const FileId yaml = 1;
    FileFacts decoded;
    REQUIRE(cache::decode_facts(cache::encode_facts(p.facts[yaml]), yaml, decoded));
    REQUIRE(decoded.yaml.size() == 2);
    const YamlNode* root = decoded.yaml[0].root.get();
    REQUIRE(root);
    const YamlEntry* list = root->find("list");
    const YamlEntry* base = root->find("base");
    REQUIRE(list);
    REQUIRE(base);
    REQUIRE(list->value->items.size() == 3);
    CHECK(list->value->items[0].get() == list->value->items[1].get());
    CHECK(list->value->items[0].get() == base->value.get());
    CHECK(base->value->anchored);  // `&b`: the rules withhold fixes on it
    CHECK_FALSE(root->find("run")->value->anchored);
    const YamlEntry* name = root->find("run")->value->find("name");
    REQUIRE(name);
    CHECK(name->value->scalar.s == "qs");
  }
  SECTION("an alias bomb is written once per node") {
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char c = 'b'; c <= 'j'; ++c) {
      bomb += std::string(1, c) + ": &" + c + " [";
      for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", " : "") + "*" + static_cast<char>(c - 1);
      bomb += "]\n";
    }
    Project b = make_project("/bomb", {{"bomb.yaml", bomb}});
    const std::string data = cache::encode_facts(b.facts[0]);
    CHECK(data.size() < 20000);  // 10^9 leaves if the aliases were expanded
    FileFacts decoded;
    REQUIRE(cache::decode_facts(data, 0, decoded));
    CHECK(cache::encode_facts(decoded) == data);
  }
  SECTION("damaged data is refused and leaves the facts as they were") {
    const std::string data = cache::encode_facts(p.facts[0]);
    FileFacts target;
    target.comments.push_back({Span{}, "# kept"});
    CHECK_FALSE(cache::decode_facts(data.substr(0, data.size() / 2), 0, target));
    CHECK_FALSE(cache::decode_facts(data + "x", 0, target));
    CHECK_FALSE(cache::decode_facts("", 0, target));
    // An expression index past the module's end (the evaluator would follow it).
    py::Module m;
    m.exprs.resize(1);
    m.exprs[0].a = 5;
    FileFacts bad;
    bad.python = m;
    CHECK_FALSE(cache::decode_facts(cache::encode_facts(bad), 0, target));
    // A range past the end of its pool, a constant index past the constants, an index in the
    // pool past the module's expressions, a dict whose keys and values do not pair up.
    {
      py::Module r = m;
      r.exprs[0].a = py::kNoExpr;
      FileFacts good;
      good.python = r;
      REQUIRE(cache::decode_facts(cache::encode_facts(good), 0, good));
      auto refused = [&](auto&& damage) {
        FileFacts f;
        f.python = r;
        damage(f.python);
        return !cache::decode_facts(cache::encode_facts(f), 0, target);
      };
      CHECK(refused([](py::Module& x) { x.exprs[0].elts = {0, 1}; }));
      CHECK(refused([](py::Module& x) { x.exprs[0].args = {1, 0}; }));
      CHECK(refused([](py::Module& x) {
        x.op_pool = {"=="};
        x.exprs[0].ops = {0, 2};
      }));
      CHECK(refused([](py::Module& x) { x.exprs[0].constant = 0; }));
      CHECK(refused([](py::Module& x) { x.id_pool = {7}; }));
      CHECK(refused([](py::Module& x) {
        x.id_pool = {0, 0, 0};
        x.exprs[0].kind = py::ExprKind::Dict;
        x.exprs[0].elts = {0, 2};
        x.exprs[0].values = {2, 1};
      }));
      CHECK(refused([](py::Module& x) { x.exprs[0].elts = {0xffffffffu, 2}; }));
    }
    REQUIRE(target.comments.size() == 1);
    CHECK(target.comments[0].text == "# kept");
    CHECK_FALSE(target.extracted);
  }
}

namespace {

// Sets a file's modification time to `ns` nanoseconds since the epoch.
void set_mtime(const fs::path& p, std::int64_t ns) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(ns / 1000000000);
  times[0].tv_nsec = times[1].tv_nsec = static_cast<long>(ns % 1000000000);
  REQUIRE(::utimensat(AT_FDCWD, p.c_str(), times, 0) == 0);
}

std::string entry_name(int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "results-%016x.bin", i);
  return buf;
}

}  // namespace

TEST_CASE("cache: entry names", "[cache]") {
  CHECK(cache::is_entry_name("results-0123456789abcdef.bin"));
  CHECK_FALSE(cache::is_entry_name("results-0123456789ABCDEF.bin"));  // we write lower case only
  CHECK_FALSE(cache::is_entry_name("results-0123456789abcde.bin"));
  CHECK_FALSE(cache::is_entry_name("results-0123456789abcdefg.bin"));
  CHECK_FALSE(cache::is_entry_name("results-0123456789abcdef.bin.bak"));
  CHECK_FALSE(cache::is_entry_name("facts.bin"));
  CHECK_FALSE(cache::is_entry_name(""));
}

TEST_CASE("cache: pruning keeps the most recently written entries and touches nothing else", "[cache]") {
  TempDir d;
  const std::int64_t now = std::int64_t{1'800'000'000} * 1000000000;  // a fixed "now" (2027)
  const std::size_t total = cache::kKeptEntries + 4;
  // Entry i was written i minutes ago; two share a time (the name decides among them).
  for (std::size_t i = 0; i < total; ++i) {
    d.write(entry_name(static_cast<int>(i)), "entry");
    set_mtime(d.root / entry_name(static_cast<int>(i)), now - static_cast<std::int64_t>(i) * 60'000'000'000);
  }
  set_mtime(d.root / entry_name(static_cast<int>(cache::kKeptEntries - 1)),
            now - static_cast<std::int64_t>(cache::kKeptEntries - 2) * 60'000'000'000);
  // Files that are not ours, or not entries, whatever their age.
  const std::int64_t old = now - std::int64_t{86400} * 365 * 1000000000;
  for (const char* other : {"facts.bin", "notes.txt", "results-XYZ.bin", "results-0123456789abcdef.bin.bak",
                            ".gitignore", "CACHEDIR.TAG"}) {
    d.write(other, "mine");
    set_mtime(d.root / other, old);
  }
  fs::create_directories(d.root / entry_name(900));  // a folder with an entry's name
  fs::create_symlink(d.root / "notes.txt", d.root / entry_name(901));
  // Temporary files of killed runs: stale ones go, a fresh one (another run writing now) stays.
  const std::string stale_entry_tmp = entry_name(1) + ".tmp.4242.0", stale_pack_tmp = "facts.bin.tmp.4242.1",
                    fresh_tmp = entry_name(2) + ".tmp.4343.0", foreign_tmp = "notes.txt.tmp.1.1";
  for (const auto& t : {stale_entry_tmp, stale_pack_tmp, foreign_tmp}) {
    d.write(t, "partial");
    set_mtime(d.root / t, now - cache::kStaleTemporaryNs - 1);
  }
  d.write(fresh_tmp, "partial");
  set_mtime(d.root / fresh_tmp, now - 1000000000);
  // Parts files (results-<hex>.parts) go with their entries, whatever their own times; a stale
  // temporary of one goes too.
  auto parts_name = [](int i) {
    const std::string e = entry_name(i);
    return e.substr(0, e.size() - 4) + ".parts";
  };
  const std::string kept_parts = parts_name(0), dropped_parts = parts_name(static_cast<int>(total - 2)),
                    stale_parts_tmp = parts_name(3) + ".tmp.4242.2";
  for (const auto& t : {kept_parts, dropped_parts, stale_parts_tmp}) {
    d.write(t, "parts");
    set_mtime(d.root / t, now - cache::kStaleTemporaryNs - 1);
  }

  // The oldest entry is the one this run just wrote (a clock that went back): it stays, and
  // takes the place of the newest of the others.
  const std::string oldest = entry_name(static_cast<int>(total - 1));
  CHECK(cache::prune_entries(d.root.string(), oldest, now) == (total - cache::kKeptEntries) + 2 + 2);
  CHECK(fs::exists(d.root / kept_parts));
  CHECK_FALSE(fs::exists(d.root / dropped_parts));
  CHECK_FALSE(fs::exists(d.root / stale_parts_tmp));
  CHECK(fs::exists(d.root / oldest));
  // Entries 0..kKeptEntries-2 remain besides it: of kKeptEntries-2 and kKeptEntries-1, which
  // share a time, the smaller name.
  for (std::size_t i = 0; i < total; ++i) {
    INFO("entry " << i);
    CHECK(fs::exists(d.root / entry_name(static_cast<int>(i))) == (i < cache::kKeptEntries - 1 || i == total - 1));
  }
  for (const char* other :
       {"facts.bin", "notes.txt", "results-XYZ.bin", "results-0123456789abcdef.bin.bak", ".gitignore", "CACHEDIR.TAG"})
    CHECK(fs::exists(d.root / other));
  CHECK(fs::is_directory(d.root / entry_name(900)));
  CHECK(fs::is_symlink(d.root / entry_name(901)));
  CHECK_FALSE(fs::exists(d.root / stale_entry_tmp));
  CHECK_FALSE(fs::exists(d.root / stale_pack_tmp));
  CHECK(fs::exists(d.root / fresh_tmp));
  CHECK(fs::exists(d.root / foreign_tmp));
  // Nothing more to do: a second pass removes nothing.
  CHECK(cache::prune_entries(d.root.string(), oldest, now) == 0);
  // A folder that does not exist: nothing, no error.
  CHECK(cache::prune_entries((d.root / "missing").string(), oldest, now) == 0);
}

TEST_CASE("cache: the key of a file right under / takes the settings of /, not of the working folder", "[cache]") {
  // A file in "/" has the folder "/" (its path up to the last slash would be "", which the
  // configuration resolved against the working folder: the key then followed that folder's
  // .trl-lint.yaml, and an edit of it made a miss of an unchanged analysis of /).
  for (const char* name : kConfigFileNames) REQUIRE_FALSE(fs::exists(fs::path("/") / name));
  TempDir t;
  t.write(".trl-lint.yaml", "select: [TRL101]\n");
  const fs::path before = fs::current_path();
  fs::current_path(t.root);
  struct Back {
    fs::path dir;
    ~Back() {
      std::error_code ec;
      fs::current_path(dir, ec);
    }
  } back{before};
  Project p = make_project("/", {{"x.yaml", "packing: true\n"}});
  REQUIRE(p.sources.get(0).abs_path == "/x.yaml");
  Configuration config{ConfigOptions{}};
  cache::ResultCache c((t.root / "cache").string(), "v1");
  c.prepare(p, config);
  // No configuration file governs / (checked above): none was read, whatever the working folder has.
  for (const Settings* s : config.resolved()) CHECK(s->files.empty());
}
