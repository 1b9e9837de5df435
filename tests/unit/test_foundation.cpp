// Source handling, discovery, .gitignore, command-line arguments of scripts, determinism.
#include <sys/stat.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "analyzer/discover/discover.hpp"
#include "analyzer/discover/gitignore.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/pipeline/judge.hpp"
#include "analyzer/project/project.hpp"
#include "analyzer/report/formatters.hpp"
#include "analyzer/util/clean_path.hpp"
#include "tests/unit/lcg.hpp"

using namespace trl;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    path =
        fs::temp_directory_path() / ("trl-lint-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel, std::ios::binary) << text;
  }
  static int& counter() {
    static int c = 0;
    return c;
  }
};

std::string concise(const std::string& root, unsigned threads) {
  LoadOptions o;
  o.paths = {root};
  o.threads = threads;
  Project p = load_project(o);
  auto runs = build_runs(p, Knowledge::get());
  std::ostringstream out;
  print_concise(out, collect_diagnostics(p, runs, {}), p);
  return out.str();
}

// The file names discovery lists under `root`, sorted.
std::vector<std::string> discovered_names(const fs::path& root) {
  Discovery d = discover({root.string()});
  std::vector<std::string> names;
  for (const auto& f : d.files) names.push_back(fs::path(f.abs_path).filename().string());
  std::sort(names.begin(), names.end());
  return names;
}
}  // namespace

TEST_CASE("UTF-8 validation rejects overlong forms, surrogates and truncation", "[source]") {
  CHECK(is_valid_utf8("plain ascii"));
  CHECK(is_valid_utf8("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80"));
  CHECK_FALSE(is_valid_utf8("\xC0\xAF"));      // overlong '/'
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));  // surrogate
  CHECK_FALSE(is_valid_utf8("\xE2\x9C"));      // truncated
  CHECK_FALSE(is_valid_utf8("\xFF"));
}

TEST_CASE("UTF-8 validation and line starts wherever the bytes fall in a block", "[source]") {
  // ASCII is skipped 32 and eight bytes at a time: a multi-byte character, a bad byte or a line
  // break at every offset around the block edges, and texts shorter than a block.
  for (std::size_t at = 0; at < 70; ++at) {
    const std::string pad(at, 'x');
    INFO("offset " << at);
    CHECK(is_valid_utf8(pad + "\xC3\xA9" + pad));
    CHECK(is_valid_utf8(pad + "\xF0\x9F\x98\x80"));
    CHECK_FALSE(is_valid_utf8(pad + "\xFF" + pad));
    CHECK_FALSE(is_valid_utf8(pad + "\xE2\x9C"));               // truncated by the end of the text
    CHECK_FALSE(is_valid_utf8(pad + "\xC0\xAF" + "abcdefgh"));  // overlong, then ASCII
    CHECK(is_valid_utf8(pad));
    SourceFile f;
    f.text = pad + "\n" + pad + "\n\n" + pad;
    f.index_lines();
    const std::uint32_t n = static_cast<std::uint32_t>(at);
    CHECK(f.line_starts == std::vector<std::uint32_t>{0, n + 1, 2 * n + 2, 2 * n + 3});
  }
  SourceFile empty;
  empty.index_lines();
  CHECK(empty.line_starts == std::vector<std::uint32_t>{0});
}

TEST_CASE("UTF-8 validation and line starts agree with byte-by-byte references on random texts", "[source]") {
  // The reference validator: one code point at a time, the rules of RFC 3629 (no overlong forms,
  // no surrogates, nothing above U+10FFFF).
  auto valid_reference = [](const std::string& t) {
    std::size_t i = 0;
    while (i < t.size()) {
      const auto c = static_cast<unsigned char>(t[i]);
      std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
      if (len == 0 || i + len > t.size()) return false;
      std::uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1Fu) : len == 3 ? (c & 0x0Fu) : (c & 0x07u);
      for (std::size_t k = 1; k < len; ++k) {
        const auto cc = static_cast<unsigned char>(t[i + k]);
        if ((cc >> 6) != 0x2) return false;
        cp = (cp << 6) | (cc & 0x3Fu);
      }
      const std::uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
      if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
      i += len;
    }
    return true;
  };
  // Multi-byte pieces, whole and cut, among runs of ASCII long enough to fill the 32-byte blocks.
  const std::vector<std::string> pieces = {"a",
                                           "abcdefghijklmnopqrstuvwxyz012345",
                                           "\n",
                                           "\xC3\xA9",
                                           "\xE2\x9C\x93",
                                           "\xF0\x9F\x98\x80",
                                           "\xC3",
                                           "\xE2\x9C",
                                           "\xED\xA0\x80",
                                           "\xC0\xAF",
                                           "\xF4\x90\x80\x80",
                                           "\x80",
                                           "\xFF"};
  test::Lcg rng(2024);
  auto next = [&] { return rng.next(); };
  int valid = 0;
  for (int round = 0; round < 6000; ++round) {
    std::string text;
    // Half the texts mostly ASCII with rare other pieces (long valid runs), half any mix.
    const bool mostly_ascii = round % 2 == 0;
    for (std::uint32_t k = next() % 24; k > 0; --k) {
      const std::uint32_t r = next() >> 8;
      text += mostly_ascii && r % 16 != 0 ? pieces[r % 3] : pieces[r % pieces.size()];
    }
    INFO("round " << round);
    const bool expected_valid = valid_reference(text);
    REQUIRE(is_valid_utf8(text) == expected_valid);
    valid += expected_valid;
    std::vector<std::uint32_t> expected{0};
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') expected.push_back(static_cast<std::uint32_t>(i + 1));
    SourceFile f;
    f.text = text;
    f.index_lines();
    REQUIRE(f.line_starts == expected);
  }
  CHECK(valid > 1000);  // both answers are well represented
  CHECK(valid < 5000);
}

TEST_CASE("columns are counted in code points", "[source]") {
  SourceFile f;
  f.text = "é: x\n";
  f.index_lines();
  CHECK(f.display_column(Point{0, 2}) == 2);  // after the 2-byte é
}

TEST_CASE("gitignore patterns: anchors, folders, negation, double star", "[discover]") {
  IgnoreRules r;
  r.add_file("", "*.log\n/out\ndata/\n!keep.log\nsecret/**/x.yaml\n");
  r.add_file("sub", "local.yaml\n");
  CHECK(r.ignored("a.log", false));
  CHECK_FALSE(r.ignored("keep.log", false));
  CHECK(r.ignored("out", true));
  CHECK_FALSE(r.ignored("src/out", true));
  CHECK(r.ignored("x/data", true));
  CHECK_FALSE(r.ignored("data", false));  // `data/` matches folders only
  CHECK(r.ignored("secret/a/b/x.yaml", false));
  CHECK(r.ignored("secret/x.yaml", false));
  CHECK(r.ignored("sub/local.yaml", false));
  CHECK_FALSE(r.ignored("local.yaml", false));
  CHECK(glob_match("a*c", "abc"));
  CHECK_FALSE(glob_match("a*c", "a/c"));
  CHECK(glob_match("a/**/c", "a/b/d/c"));
}

TEST_CASE("globs: `**` is whole folders, and a `*` after it still matches inside them", "[discover]") {
  // A `*` after `**` used to replace the `**`'s backtracking point: no file in a subfolder matched.
  CHECK(glob_match("**/*.yaml", "recipes/sft.yaml"));
  CHECK(glob_match("**/*.yaml", "a/b/c/sft.yaml"));
  CHECK(glob_match("**/*.yaml", "sft.yaml"));  // `**/` also matches no folder
  CHECK(glob_match("recipes/**/*.yaml", "recipes/a/b/c.yaml"));
  CHECK(glob_match("recipes/**/*.yaml", "recipes/c.yaml"));
  CHECK_FALSE(glob_match("recipes/**/*.yaml", "other/recipes/c.yaml"));
  CHECK(glob_match("tests/**/*.py", "tests/unit/test_a.py"));
  CHECK(glob_match("**/x/**/*.py", "p/x/q/r.py"));
  CHECK_FALSE(glob_match("**/x/**/*.py", "p/y/q/r.py"));
  CHECK_FALSE(glob_match("*.yaml", "a/b.yaml"));  // `*` never crosses a folder
  // A trailing `/**` is everything inside, not the folder itself (gitignore).
  CHECK(glob_match("a/**", "a/b/c"));
  CHECK_FALSE(glob_match("a/**", "a"));
  // `**` written inside a name crosses folders, as git's wildmatch reads it (checked with
  // `git check-ignore`, git 2.39).
  CHECK(glob_match("a**b", "axyb"));
  CHECK(glob_match("a**b", "a/b"));
  CHECK(glob_match("s**/a.yaml", "sub/deep/a.yaml"));
  CHECK(glob_match("x/y**/a.yaml", "x/y/dir/z/a.yaml"));
  // ... but at the start of a segment, not followed by `/`, it is a plain `*`.
  CHECK_FALSE(glob_match("x/**z", "x/y/dir/z"));
  CHECK(glob_match("x/**z", "x/yz"));
  CHECK(glob_match("sub/**.yaml", "sub/a.yaml"));
  CHECK_FALSE(glob_match("sub/**.yaml", "sub/deep/a.yaml"));
  // An escaped `/` is a `/`; an unclosed class is a literal `[`.
  CHECK(glob_match("sub\\/a.yaml", "sub/a.yaml"));
  CHECK(glob_match("a[b", "a[b"));
  CHECK(glob_match("[]]x", "]x"));
  CHECK(glob_match("[!a]x", "bx"));
  CHECK_FALSE(glob_match("[!a]x", "ax"));
  CHECK(glob_match("[st]ft.y?ml", "sft.yaml"));
  CHECK(glob_match("\\*.yaml", "*.yaml"));
  CHECK_FALSE(glob_match("\\*.yaml", "a.yaml"));
  // Many `**` stay linear (no exponential backtracking).
  std::string deep, pat;
  for (int i = 0; i < 200; ++i) deep += "d/", pat += "**/";
  CHECK_FALSE(glob_match(pat + "x", deep + "y"));
}

TEST_CASE("a pattern read once matches what glob_match does, in each of its shapes", "[discover]") {
  using glob_detail::Glob;
  CHECK(Glob("__pycache__").shape == Glob::Shape::Exact);
  CHECK(Glob("*.pyc").shape == Glob::Shape::Suffix);
  CHECK(Glob("wandb*").shape == Glob::Shape::Prefix);
  CHECK(Glob("\\*.yaml").shape == Glob::Shape::Exact);  // an escaped star is a character
  CHECK(Glob("*.py[cod]").shape == Glob::Shape::Other);
  CHECK(Glob("**/x").shape == Glob::Shape::Other);
  CHECK(Glob("a**").shape == Glob::Shape::Other);  // crosses folders: not a prefix
  const std::vector<std::string> patterns = {
      "__pycache__", "*.pyc", "*.egg-info", "wandb*", "build", "a/b",  "*",    "\\*.yaml", "*.py[cod]", "**/x",
      "a**",         "a*b",   "?.log",      "x/*",    "*/y",   "data", "[]]x", ".env*",    "*~",        ""};
  const std::vector<std::string> paths = {"__pycache__", "x/__pycache__",
                                          "a.pyc",       "a/b.pyc",
                                          ".pyc",        "pyc",
                                          "wandb",       "wandb-run",
                                          "wandb/run",   "a/b",
                                          "a",           "*.yaml",
                                          "a.yaml",      "x",
                                          "q/x",         "ab",
                                          "axb",         "a/xb",
                                          "1.log",       "x/y",
                                          "z/y",         "]x",
                                          ".env",        ".env.local",
                                          "f~",          "",
                                          "data",        "datas"};
  for (const auto& p : patterns)
    for (const auto& path : paths) {
      INFO(p << " against " << path);
      CHECK(Glob(p).matches(path) == glob_match(p, path));
    }
  // A later pattern is tried only when it could change the answer; the last match still wins.
  IgnoreRules r;
  r.add_file("", "*.log\n!keep*.log\nkeep-not.log\n");
  CHECK(r.ignored("a.log", false));
  CHECK_FALSE(r.ignored("keep.log", false));
  CHECK(r.ignored("keep-not.log", false));
}

TEST_CASE("discovery skips VCS, environments, ignored files and symlinks out of the root", "[discover]") {
  TempDir t;
  t.write("train.py", "x = 1\n");
  t.write(".git/config.yaml", "a: 1\n");
  t.write("node_modules/x.yaml", "a: 1\n");
  t.write("venv/pyvenv.cfg", "");
  t.write("venv/lib.py", "");
  t.write("ignored/a.yaml", "a: 1\n");
  t.write(".gitignore", "ignored/\n");
  t.write("run", "#!/bin/bash\naccelerate launch train.py\n");
  t.write("notes.txt", "text\n");
  TempDir outside;
  outside.write("secret.yaml", "a: 1\n");
  fs::create_symlink(outside.path / "secret.yaml", t.path / "link.yaml");
  fs::create_directory_symlink(t.path, t.path / "loop");
  CHECK(discovered_names(t.path) == std::vector<std::string>{"run", "train.py"});
}

TEST_CASE("discovery: the repository's .git/info/exclude, below .gitignore in precedence", "[discover]") {
  TempDir t;
  t.write("train.py", "");
  t.write("scratch/a.yaml", "a: 1\n");
  t.write("logs/b.yaml", "a: 1\n");
  t.write("logs/keep.yaml", "a: 1\n");
  t.write(".git/info/exclude", "# git's own comment\nscratch/\nlogs/*.yaml\n");
  t.write(".gitignore", "!logs/keep.yaml\n");  // a .gitignore overrides the exclude file
  CHECK(discovered_names(t.path) == std::vector<std::string>{"keep.yaml", "train.py"});
}

TEST_CASE("discovery: marker files and nested .gitignore files", "[discover]") {
  TempDir t;
  t.write("keep.py", "");
  t.write("cache/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n");
  t.write("cache/cached.py", "");
  t.write("env/pyvenv.cfg", "");
  t.write("env/deep/site.py", "");
  fs::create_directories(t.path / "tagdir" / "CACHEDIR.TAG");  // a folder with a marker's name counts too
  t.write("tagdir/x.py", "");
  // A dangling link named like a marker does not make its folder skipped (as asked by path).
  t.write("dangling/kept.py", "");
  fs::create_symlink(t.path / "nowhere.cfg", t.path / "dangling" / "pyvenv.cfg");
  // A .gitignore in a subfolder applies below it only.
  t.write("sub/.gitignore", "*.yaml\n!keep.yaml\n");
  t.write("sub/drop.yaml", "a: 1\n");
  t.write("sub/keep.yaml", "a: 1\n");
  t.write("other/drop.yaml", "a: 1\n");
  std::vector<std::string> found;
  for (const auto& f : discover({t.path.string()}).files) found.push_back(f.display_path);
  auto rel = [&](const std::string& p) {
    for (const auto& f : found)
      if (f.size() >= p.size() && f.compare(f.size() - p.size(), p.size(), p) == 0) return true;
    return false;
  };
  CHECK(rel("keep.py"));
  CHECK_FALSE(rel("cached.py"));
  CHECK_FALSE(rel("site.py"));
  CHECK_FALSE(rel("tagdir/x.py"));
  CHECK(rel("dangling/kept.py"));
  CHECK_FALSE(rel("sub/drop.yaml"));
  CHECK(rel("sub/keep.yaml"));
  CHECK(rel("other/drop.yaml"));
  // The folder given is walked even when it holds a marker itself.
  TempDir marked;
  marked.write("CACHEDIR.TAG", "");
  marked.write("train.py", "");
  CHECK(discover({marked.path.string()}).files.size() == 1);
}

TEST_CASE("discovery tells each folder's listing once, before asking about anything in it", "[discover]") {
  TempDir t;
  t.write("a.py", "");
  t.write("sub/.trl-lint.yaml", "ignore: [TRL901]\n");
  t.write("sub/x.py", "");
  t.write("sub/deeper/y.yaml", "a: 1\n");
  t.write("env/pyvenv.cfg", "");  // skipped for its marker: not told
  t.write("env/inner/z.py", "");
  t.write("node_modules/m.py", "");  // skipped by name: not told
  t.write("ignored/i.py", "");       // ignored: not walked, not told
  t.write(".gitignore", "ignored/\n");
  for (unsigned threads : {1u, 4u}) {
    INFO("threads " << threads);
    std::map<std::string, std::vector<std::string>> told;
    std::vector<std::string> asked_before_told, told_twice;
    const ExcludeFn excluded = [&](const std::string& abs) {
      const std::string dir = abs.substr(0, abs.rfind('/'));
      if (!told.count(dir)) asked_before_told.push_back(abs);
      return false;
    };
    const FolderListedFn listed = [&](const std::string& dir, const std::vector<ListedName>& names) {
      // (No CHECK here: helper threads call this, and Catch2 assertions are not thread-safe.)
      std::vector<std::string> kept;
      kept.reserve(names.size());
      for (const auto& n : names) kept.emplace_back(std::string(n.name) + (n.unsure ? "@" : ""));
      if (!told.emplace(dir, kept).second) told_twice.push_back(dir);
    };
    const Discovery d = discover({t.path.string()}, excluded, threads, listed);
    CHECK(asked_before_told.empty());
    CHECK(told_twice.empty());
    const std::string root = fs::weakly_canonical(t.path).string();
    std::vector<std::string> dirs;
    dirs.reserve(told.size());
    for (const auto& [dir, names] : told) dirs.push_back(dir);
    CHECK(dirs == std::vector<std::string>{root, root + "/sub", root + "/sub/deeper"});
    CHECK(told[root] == std::vector<std::string>{".gitignore", "a.py", "env", "ignored", "node_modules", "sub"});
    CHECK(told[root + "/sub"] == std::vector<std::string>{".trl-lint.yaml", "deeper", "x.py"});
    CHECK(d.files.size() == 4);  // a.py, sub/.trl-lint.yaml, sub/x.py, sub/deeper/y.yaml
  }
}

TEST_CASE("discovery takes each file's stamp as it lists it, when asked", "[discover]") {
  TempDir t;
  t.write("a.py", "import trl\n");
  t.write("sub/b.yaml", "packing: true\n");
  t.write("sub/deeper/c.sh", "accelerate launch train.py\n");
  t.write("excluded/d.py", "");
  fs::create_symlink(t.path / "a.py", t.path / "sub" / "link.py");    // stamped as its target
  fs::create_symlink(t.path / "nowhere.py", t.path / "dangling.py");  // a problem, not a file
  const auto stamp_on_disk = [](const std::string& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return stamp_of(st);
  };
  const ExcludeFn excluded = [](const std::string& abs) { return abs.find("/excluded") != std::string::npos; };
  for (unsigned threads : {1u, 4u}) {
    INFO("threads " << threads);
    const Discovery d = discover({t.path.string()}, excluded, threads, {}, true);
    REQUIRE(d.files.size() == 4);  // a.py, sub/b.yaml, sub/deeper/c.sh, sub/link.py
    for (const auto& f : d.files) {
      INFO(f.display_path);
      CHECK(f.stamp.valid);
      CHECK(f.stamp == stamp_on_disk(f.abs_path));
    }
    CHECK(d.files[3].stamp.ino == stamp_on_disk((t.path / "a.py").string()).ino);
    CHECK(d.problems.size() == 1);
    // Not asked: no stamp, and nothing else differs.
    const Discovery plain = discover({t.path.string()}, excluded, threads);
    REQUIRE(plain.files.size() == d.files.size());
    for (std::size_t i = 0; i < plain.files.size(); ++i) {
      CHECK_FALSE(plain.files[i].stamp.valid);
      CHECK(plain.files[i].abs_path == d.files[i].abs_path);
      CHECK(plain.files[i].display_path == d.files[i].display_path);
    }
  }
  // A file named on the command line is stamped too.
  const Discovery named = discover({(t.path / "sub" / "b.yaml").string()}, {}, 1, {}, true);
  REQUIRE(named.files.size() == 1);
  CHECK(named.files[0].stamp == stamp_on_disk((t.path / "sub" / "b.yaml").string()));
}

TEST_CASE("discovery: a .gitignore or exclude file is read only when the listing holds it", "[discover]") {
  TempDir t;
  t.write("keep.yaml", "a: 1\n");
  t.write("sub/drop.yaml", "a: 1\n");
  // A folder named .gitignore is listed but holds no patterns; a link to nothing, likewise.
  fs::create_directories(t.path / "sub" / ".gitignore");
  t.write("other/drop.yaml", "a: 1\n");
  fs::create_symlink(t.path / "missing", t.path / "other" / ".gitignore");
  // `.git` as a file (a worktree's): no info/exclude is read through it.
  t.write(".git", "gitdir: /nowhere\n");
  CHECK(discovered_names(t.path) == std::vector<std::string>{"drop.yaml", "drop.yaml", "keep.yaml"});
}

TEST_CASE("Project: with kept answers each question goes to the disk once; without, every time", "[project]") {
  TempDir t;
  const std::string later = (t.path / "later.yaml").string();
  const std::string folder = (t.path / "configs").string();
  fs::create_directories(folder);
  Project asks;  // the LSP server's way: nothing kept
  asks.disk_probes = std::make_shared<DiskProbes>();
  Project keeps;  // one command-line analysis
  keeps.disk_probes = std::make_shared<DiskProbes>();
  keeps.disk_answers = std::make_shared<DiskAnswers>();
  CHECK_FALSE(asks.exists(later));
  CHECK_FALSE(keeps.exists(later));
  CHECK_FALSE(keeps.folder_holds(folder, ".yaml"));
  t.write("later.yaml", "a: 1\n");
  t.write("configs/x.yaml", "a: 1\n");
  CHECK(asks.exists(later));
  CHECK_FALSE(keeps.exists(later));  // the answer of this analysis stands
  CHECK_FALSE(keeps.folder_holds(folder, ".yaml"));
  CHECK_FALSE(keeps.folder_holds(folder, ".json"));                              // another question: asked
  CHECK(keeps.folder_holds(folder + "/", ".yaml") == fs::exists(folder + "/"));  // another path text: asked
  // Each question is recorded once, with the answer it was given.
  const auto recorded = keeps.disk_probes->list();
  REQUIRE(recorded.size() == 4);
  std::size_t holds = 0, later_asked = 0;
  for (const auto& r : recorded) {
    holds += r.holds ? 1 : 0;
    if (r.path == later) {
      ++later_asked;
      CHECK_FALSE(r.answer);
    }
  }
  CHECK(holds == 3);
  CHECK(later_asked == 1);
  // From several threads at once: one answer per question.
  Project shared;
  shared.disk_probes = std::make_shared<DiskProbes>();
  shared.disk_answers = std::make_shared<DiskAnswers>();
  std::vector<std::thread> pool;
  pool.reserve(4);
  std::atomic<int> wrong{0};
  for (int k = 0; k < 4; ++k)
    pool.emplace_back([&] {
      for (int i = 0; i < 200; ++i)
        if (shared.exists((t.path / ("f" + std::to_string(i % 20))).string()) != false) ++wrong;
    });
  for (auto& th : pool) th.join();
  CHECK(wrong == 0);
  CHECK(shared.disk_probes->list().size() == 20);
}

TEST_CASE("discovery: the same listing, problems and errors whatever the number of threads", "[discover]") {
  // Folders are walked by several threads at once; the result must be the single-threaded
  // walk's, in the same order, every time.
  TempDir t;
  const char* kinds[] = {"train.py", "cfg.yaml", "run.sh", "README.md", "notes.txt", "Makefile"};
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < 6; ++b)
      for (int c = 0; c < 3; ++c) {
        const std::string dir = "d" + std::to_string(a) + "/e" + std::to_string(b) + "/f" + std::to_string(c);
        t.write(dir + "/" + kinds[(a + b + c) % 6], "x\n");
        t.write(dir + "/m" + std::to_string(c) + ".py", "import os\n");
      }
  // Names that sort differently with and without a trailing slash.
  t.write("a/x.py", "");
  t.write("a-b/x.py", "");
  t.write("a.py", "");
  // Nested .gitignore files, a re-include below an exclusion.
  t.write(".gitignore", "*.sh\nd3/\n");
  t.write("d5/.gitignore", "!run.sh\n*.md\n");
  t.write("d5/e2/.gitignore", "*.yaml\n");
  // Symlinks: inside, outside, dangling, to a folder; a FIFO.
  TempDir outside;
  outside.write("secret.yaml", "a: 1\n");
  fs::create_symlink(t.path / "a.py", t.path / "d1" / "inside.py");
  fs::create_symlink(outside.path / "secret.yaml", t.path / "d2" / "out.yaml");
  fs::create_symlink(t.path / "nowhere.py", t.path / "d4" / "dangling.py");
  fs::create_symlink(t.path / "nowhere.py", t.path / "d1" / "e0" / "f0" / "deep.py");
  fs::create_symlink(t.path / "nowhere.py", t.path / "d4" / "e5" / "f2" / "deeper.py");
  fs::create_directory_symlink(t.path / "d0", t.path / "d6" / "dirlink");
  REQUIRE(::mkfifo((t.path / "d7" / "pipe.yaml").c_str(), 0600) == 0);
  const std::string root = fs::weakly_canonical(t.path).string();
  ExcludeFn excluded = [&](const std::string& p) {
    return p == root + "/d8" ||
           (p.size() > 6 && p.compare(p.size() - 6, 6, "/m1.py") == 0 && p.find("/d9/") != std::string::npos);
  };
  auto listing = [](const Discovery& d) {
    std::ostringstream out;
    for (const auto& f : d.files)
      out << f.abs_path << " | " << f.display_path << " | " << static_cast<int>(f.kind) << '\n';
    for (const auto& [path, message] : d.problems) out << "problem " << path << ": " << message << '\n';
    return out.str();
  };
  // A second path that overlaps the first: its files are listed once.
  const std::vector<std::string> paths{t.path.string(), (t.path / "d1").string()};
  const std::string expected = listing(discover(paths, excluded, 1));
  CHECK(expected.find("/d3/") == std::string::npos);
  CHECK(expected.find("/d8/") == std::string::npos);
  CHECK(expected.find("d9/e0/f1/m1.py") == std::string::npos);
  CHECK(expected.find("d5/e3/f0/run.sh") != std::string::npos);  // a .gitignore re-includes
  CHECK(expected.find("d4/e4/f0/run.sh") == std::string::npos);  // the root .gitignore excludes
  CHECK(expected.find("pipe.yaml: not a regular file") != std::string::npos);
  CHECK(expected.find("out.yaml: symlink points outside") != std::string::npos);
  CHECK(expected.find("dangling.py: dangling symlink") != std::string::npos);
  // Problems in the order of a depth-first walk: a folder's own, then its subfolders' in order.
  std::vector<std::string> problem_files;
  for (const auto& [path, message] : discover({t.path.string()}, excluded, 1).problems)
    problem_files.push_back(fs::path(path).filename().string());
  CHECK(problem_files == std::vector<std::string>{"deep.py", "out.yaml", "dangling.py", "deeper.py", "pipe.yaml"});
  for (unsigned threads : {2u, 3u, 8u})
    for (int round = 0; round < 5; ++round) CHECK(listing(discover(paths, excluded, threads)) == expected);

  // What `excluded` throws (a broken configuration file) comes out as the walk meets it first,
  // though other threads may meet later ones before.
  ExcludeFn throwing = [&](const std::string& p) -> bool {
    if (p == root + "/d11") throw std::runtime_error("first");
    if (p.find("/d0/e5/") != std::string::npos) throw std::runtime_error("deeper, later");
    return false;
  };
  for (unsigned threads : {1u, 2u, 8u})
    for (int round = 0; round < 3; ++round) CHECK_THROWS_WITH(discover({t.path.string()}, throwing, threads), "first");
}

TEST_CASE("discovery: one folder walk lists its files in display-path order without a sort", "[discover]") {
  // The walk merges each folder's sorted names so that the listing comes out in the order of
  // whole paths: a file `f` before subfolder `s` exactly when `f` < `s` + "/". Names around
  // '/' (0x2F) in byte order: ' ' '-' '.' below it, '0' 'Z' 'a' '~' and UTF-8 bytes above.
  TempDir t;
  for (const char* f : {"a/x.py",        "a/b.py",     "a/a/a.py",   "a-b/x.py",  "a b/x.py",
                        "a.b/x.py",      "a0/x.py",    "ab/x.py",    "a.py",      "a0.py",
                        "aa.py",         "a~.py",      "Z.py",       "Z/z.py",    "\xc3\xa9.py",
                        "\xc3\xa9/x.py", "a/b-c.yaml", "a/b/c.yaml", "a/b0.yaml", ".github/workflows/ci.yml",
                        "x/y/z/deep.sh"})
    t.write(f, "");
  const auto by_display = [](const DiscoveredFile& a, const DiscoveredFile& b) {
    return a.display_path < b.display_path;
  };
  for (unsigned threads : {1u, 2u, 4u}) {
    INFO("threads " << threads);
    const Discovery d = discover({t.path.string()}, {}, threads);
    CHECK(d.files.size() == 21);
    CHECK(std::is_sorted(d.files.begin(), d.files.end(), by_display));
    CHECK_FALSE(d.sorted_after_walk);  // the walk's own order, not the fallback sort
  }
  // Two paths given: the listing is sorted after the walks.
  const Discovery two = discover({(t.path / "x").string(), (t.path / "a").string()}, {}, 1);
  CHECK(std::is_sorted(two.files.begin(), two.files.end(), by_display));
  CHECK(two.sorted_after_walk);
}

TEST_CASE("discovery: display paths are the files' paths relative to the working folder", "[discover]") {
  // Files below the working folder take their folder's display path plus their name; the rest
  // (hidden names, folders outside the working folder) are worked out one by one. Both must
  // give what std::filesystem's lexical relative path gives.
  TempDir t;
  for (const char* f : {"top.py", "a/x.py", "a/b/y.yaml", ".github/workflows/ci.yml", "a/.hidden.py", "a/.cfg/z.yaml",
                        "a b/c.sh", "Makefile"})
    t.write(f, "");
  const fs::path root = fs::weakly_canonical(t.path);
  struct Restore {  // the working folder of the tests that follow, however this one ends
    fs::path before = fs::current_path();
    ~Restore() { fs::current_path(before); }
  } restore;
  for (const fs::path& cwd : {root, root / "a", root / "a" / "b", root.parent_path(), fs::path("/")}) {
    INFO("working folder " << cwd);
    fs::current_path(cwd);
    const Discovery d = discover({root.string()}, {}, 2);
    fs::current_path(restore.before);
    CHECK(d.files.size() == 8);
    for (const auto& f : d.files) {
      const fs::path rel = fs::path(f.abs_path).lexically_relative(cwd);
      CHECK(f.display_path == (rel.empty() ? f.abs_path : rel.generic_string()));
    }
  }
}

TEST_CASE("discovery: overlapping paths report a skipped entry once", "[discover]") {
  TempDir t;
  t.write("a/sub/train.py", "");
  fs::create_symlink(t.path / "nowhere.py", t.path / "a" / "sub" / "dangling.py");
  REQUIRE(::mkfifo((t.path / "a" / "pipe.yaml").c_str(), 0600) == 0);
  // The walk shows a folder's entries by its canonical path, a file named explicitly by its path
  // as given: both canonical here, whatever the temporary folder's path goes through.
  const fs::path root = fs::weakly_canonical(t.path);
  const std::string a = (root / "a").string(), sub = (root / "a" / "sub").string();
  const std::string pipe = (root / "a" / "pipe.yaml").string();
  for (const auto& paths : std::vector<std::vector<std::string>>{{a, sub}, {sub, a}, {a, a}, {pipe, a}, {a, pipe}}) {
    const Discovery d = discover(paths, {}, 1);
    INFO(paths[0] << " then " << paths[1]);
    CHECK(d.files.size() == 1);
    std::vector<std::string> names;
    for (const auto& [path, message] : d.problems) names.push_back(fs::path(path).filename().string());
    std::sort(names.begin(), names.end());
    // Both paths meet the link below `sub` (or the FIFO, named and walked): one report each.
    CHECK(names == std::vector<std::string>{"dangling.py", "pipe.yaml"});
  }
}

TEST_CASE("clean absolute paths: string operations agree with std::filesystem", "[paths]") {
  for (const char* p : {"/", "/a", "/a/b", "/a/b/c.py", "/x-y/z_1/__init__.py", "/a b/c"}) {
    INFO(p);
    CHECK(is_clean_abs_path(p));
    CHECK(fs::path(p).lexically_normal().string() == p);  // normal already
    CHECK(clean_parent(p) == fs::path(p).parent_path().string());
    CHECK(folder_view(p) == fs::path(p).parent_path().string());
  }
  // Anything std::filesystem would normalise, and hidden names (conservatively), take the
  // general way.
  for (const char* p : {"", "a/b", "/a/", "/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..", "/.git/x", "//a"}) {
    INFO(p);
    CHECK_FALSE(is_clean_abs_path(p));
  }
}

TEST_CASE("joining clean paths as strings agrees with std::filesystem", "[paths]") {
  // Every base with every relative path: where join_clean answers, it is what lexically_normal
  // gives; the plain shapes launch lines use are answered.
  const std::vector<std::string> bases = {"/", "/a", "/a/b", "/a b/c", "", "a", "/a/", "/a//b", "/a/./b", "/.h"};
  const std::vector<std::string> rels = {
      "x.py",   "scripts/train.py", "a/b/c.yaml", "x-y/z_1.yaml", "a b.sh", "",   "/abs.py",
      "./x.py", "../x.py",          "a/../x.py",  "a/./x",        "a//x",   "a/", ".",
      "..",     ".hidden/x",        "a/.h/x",     "...",          "x."};
  int answered = 0;
  for (const auto& base : bases)
    for (const auto& rel : rels) {
      INFO(base << " + " << rel);
      std::string joined;
      if (!join_clean(base, rel, joined)) continue;
      ++answered;
      CHECK(joined == (fs::path(base) / fs::path(rel)).lexically_normal().string());
    }
  CHECK(answered == 4 * 6);  // the four clean bases with the six clean relative paths ("..." is not)
  std::string out;
  CHECK(join_clean("/", "x.py", out));
  CHECK(out == "/x.py");
  CHECK(join_clean("/repo", "scripts/train.py", out));
  CHECK(out == "/repo/scripts/train.py");
  CHECK_FALSE(join_clean("/repo", "../train.py", out));
  CHECK_FALSE(join_clean("/repo/", "train.py", out));
}

TEST_CASE("script flags: bare booleans, explicit values, --flag=value and --no_ forms", "[eval]") {
  const Knowledge& k = Knowledge::get();
  std::vector<const ClassInfo*> classes{k.find("SFTConfig")};
  auto words = [](std::initializer_list<const char*> ws) {
    std::vector<Word> out;
    for (auto w : ws) out.push_back(Word{w, true, Span{}});
    return out;
  };
  std::map<std::string, Setting, std::less<>> out;
  apply_cli_args(words({"--config", "x.yaml", "--packing", "--max_length", "4096", "--eval-packing=false",
                        "--no_gradient_checkpointing"}),
                 classes, k, out);
  CHECK(out.at("packing").truth() == Truth::True);
  CHECK(out.at("max_length").value.i == 4096);
  CHECK(out.at("eval_packing").truth() == Truth::False);
  CHECK(out.at("eval_packing").known());
  CHECK(out.at("gradient_checkpointing").truth() == Truth::False);
  CHECK_FALSE(out.count("config"));
  out.clear();
  apply_cli_args(words({"--packing", "false", "--learning_rate", "2e-5"}), classes, k, out);
  CHECK(out.at("packing").truth() == Truth::False);
  CHECK(out.at("learning_rate").value.kind == Scalar::Kind::Float);
}

TEST_CASE("a setting's truth: one answer on every path, else unknown", "[eval]") {
  const Span at{};
  CHECK(Setting::known_value(Scalar::boolean(true), at, Origin::Python).truth() == Truth::True);
  CHECK(Setting::known_value(Scalar::integer(0), at, Origin::Python).truth() == Truth::False);
  CHECK(Setting::known_value(Scalar::null(), at, Origin::Default).truth() == Truth::False);
  CHECK(Setting::unknown(at, Origin::CommandLine).truth() == Truth::Unknown);
  CHECK(Setting{}.truth() == Truth::Unknown);  // unset: neither
  Setting paths;                               // `packing = True if a else 1`: true on both paths
  paths.state = Setting::State::OneOf;
  paths.alternatives = {Scalar::boolean(true), Scalar::integer(1)};
  paths.value = paths.alternatives.front();
  CHECK(paths.truth() == Truth::True);
  paths.alternatives = {Scalar::boolean(false), Scalar::null()};  // false on both
  CHECK(paths.truth() == Truth::False);
  paths.alternatives = {Scalar::boolean(true), Scalar::boolean(false)};  // they differ
  CHECK(paths.truth() == Truth::Unknown);
}

TEST_CASE("origins: the words the output shows for each", "[eval]") {
  CHECK(origin_text(Origin::None).empty());
  CHECK(origin_text(Origin::TrainerYaml) == "trainer YAML");
  CHECK(origin_text(Origin::CommandLine) == "command line");
  CHECK(origin_text(Origin::Default) == "default");
  CHECK(origin_text(Origin::TrlProfile, "zero3") == "TRL profile zero3");
  CHECK(origin_text(Origin::LauncherDefault, "torchrun") == "torchrun default");
  CHECK(origin_text(Origin::SingleProcessConfig, "accelerate YAML") ==
        "accelerate YAML (distributed_type NO: one process)");
  // A setting derived from another keeps its origin and the words that complete it.
  const Setting profile = Setting::known_value(Scalar::integer(8), Span{}, Origin::TrlProfile, "multi_gpu");
  CHECK(Setting::unknown(profile.span, profile.origin, profile.origin_detail).origin_text() == "TRL profile multi_gpu");
}

TEST_CASE("unreadable, binary and non-UTF-8 files are reported and the run goes on", "[robustness]") {
  TempDir t;
  t.write("bin.yaml", std::string("a: \0\x01", 5));
  t.write("latin1.py", "x = '\xE9'\n");
  t.write("ok.yaml", "packing: true\n");
  std::string out = concise(t.path.string(), 2);
  CHECK(out.find("bin.yaml:1:1: TRL902") != std::string::npos);
  CHECK(out.find("latin1.py:1:1: TRL902") != std::string::npos);
}

TEST_CASE("output does not depend on the number of threads", "[determinism]") {
  const std::string example = std::string(TRL_LINT_FIXTURES_DIR) + "/TRL101";
  const std::string one = concise(example, 1);
  CHECK_FALSE(one.empty());
  CHECK(concise(example, 2) == one);
  CHECK(concise(example, 8) == one);
}

TEST_CASE("the embedded knowledge loads and knows the classes the rules rely on", "[knowledge]") {
  const Knowledge& k = Knowledge::get();
  const ClassInfo* sft = k.find("SFTConfig");
  REQUIRE(sft);
  CHECK(sft->role == ClassRole::TrainerConfig);
  REQUIRE(k.field(*sft, "packing"));
  CHECK(k.field(*sft, "packing")->type == "bool");
  CHECK(k.field(*sft, "learning_rate"));  // inherited from TrainingArguments
  CHECK(k.derives_from(*sft, "TrainingArguments"));
  CHECK(k.find_qualified("trl.SFTConfig") == sft);
  CHECK(k.find_qualified("trl.trainer.sft_config.SFTConfig") == sft);
  CHECK_FALSE(k.find_qualified("mylib.SFTConfig"));
  REQUIRE(k.launch_flag("use_fsdp"));
  CHECK_FALSE(k.launch_flag("use_fsdp")->takes_value);
  CHECK(k.launch_flag("config_file")->takes_value);
}

TEST_CASE("derives_from: a class of the knowledge (its lineage kept) and a class built by a caller", "[knowledge]") {
  const Knowledge& k = Knowledge::get();
  const ClassInfo* grpo = k.find("GRPOConfig");
  REQUIRE(grpo);
  // Asked from several threads at once the first time, then again: the same answers.
  std::vector<std::thread> askers;
  askers.reserve(4);
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    askers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        if (!k.derives_from(*grpo, "GRPOConfig") || !k.derives_from(*grpo, "TrainingArguments")) ++wrong;
        if (k.derives_from(*grpo, "SFTConfig") || k.derives_from(*grpo, "Training")) ++wrong;
      }
    });
  for (auto& t : askers) t.join();
  CHECK(wrong == 0);
  // A class that is not one of the knowledge's: its bases are looked up by name.
  ClassInfo mine;
  mine.name = "MySFTConfig";
  mine.bases = {"SFTConfig"};
  CHECK(k.derives_from(mine, "MySFTConfig"));
  CHECK(k.derives_from(mine, "SFTConfig"));
  CHECK(k.derives_from(mine, "TrainingArguments"));
  CHECK_FALSE(k.derives_from(mine, "GRPOConfig"));
}
