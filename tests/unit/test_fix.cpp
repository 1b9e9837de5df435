// The fix machinery with synthetic diagnostics: choosing fixes, overlaps, re-parsing before
// writing, atomic writes that keep the mode, refusing stale files, diffs, and idempotence.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "analyzer/fix/fixer.hpp"

using namespace trl;
namespace fs = std::filesystem;

namespace {

struct FixDir {
  fs::path path;
  FixDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("trl-lint-fix-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~FixDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string write(const std::string& rel, const std::string& text) const {
    std::ofstream(path / rel, std::ios::binary) << text;
    return (path / rel).string();
  }
  std::string read(const std::string& rel) const {
    std::ifstream in(path / rel, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
};

// Loads the files of `dir` the way the pipeline does.
Project load(const FixDir& dir) {
  LoadOptions o;
  o.paths = {dir.path.string()};
  o.threads = 1;
  return load_project(o);
}

FileId id_of(const Project& p, const FixDir& dir, const std::string& rel) {
  return p.sources.find_abs((dir.path / rel).lexically_normal().string());
}

// A span of `needle` (the n-th occurrence) in a loaded file.
Span find(const Project& p, FileId file, const std::string& needle, std::size_t nth = 0) {
  const SourceFile& f = p.sources.get(file);
  std::size_t at = f.text.find(needle);
  while (nth-- > 0 && at != std::string::npos) at = f.text.find(needle, at + 1);
  REQUIRE(at != std::string::npos);
  Span s{file, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at + needle.size())};
  s.start = f.point_at(s.begin);
  s.stop = f.point_at(s.end);
  return s;
}

Diagnostic with_fix(Span span, std::vector<TextEdit> edits, bool safe = true) {
  Diagnostic d;
  d.code = "TRL501";
  d.span = span;
  d.message = "synthetic";
  d.fixes.push_back(Fix{"rename", std::move(edits), safe});
  return d;
}

// A stand-in for a rename rule: every `max_seq_length` is a finding with a safe fix.
std::vector<Diagnostic> rename_rule(const Project& p) {
  std::vector<Diagnostic> out;
  for (FileId id = 0; id < p.sources.size(); ++id) {
    const SourceFile& f = p.sources.get(id);
    for (std::size_t at = f.text.find("max_seq_length"); at != std::string::npos;
         at = f.text.find("max_seq_length", at + 1)) {
      Span s{id, static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(at + 14)};
      s.start = f.point_at(s.begin);
      s.stop = f.point_at(s.end);
      out.push_back(with_fix(s, {TextEdit{s, "max_length"}}));
    }
  }
  return out;
}

// One `--fix` pass: plan and write. Returns the number of files written.
std::size_t fix_pass(const FixDir& dir, const FixOptions& options = {}) {
  Project p = load(dir);
  FixPlan plan = plan_fixes(rename_rule(p), p, options);
  std::size_t written = 0;
  for (const auto& f : plan.files)
    if (write_fixed_file(p.sources.get(f.file), f.fixed).empty()) ++written;
  return written;
}

}  // namespace

TEST_CASE("apply_edits replaces, inserts and deletes in order", "[fix]") {
  auto edit = [](std::uint32_t b, std::uint32_t e, std::string r) { return TextEdit{Span{0, b, e}, std::move(r)}; };
  CHECK(apply_edits("abcdef", {edit(4, 5, "E"), edit(0, 1, "A"), edit(2, 2, "+"), edit(5, 6, "")}) == "Ab+cdE");
  CHECK(apply_edits("abc", {}) == "abc");
  CHECK(apply_edits("abc", {edit(1, 9, "x")}) == "abc");  // out of range: skipped, never a crash
}

TEST_CASE("a fixed file is written atomically, keeps its mode, and a second run changes nothing", "[fix]") {
  FixDir dir;
  dir.write("recipe.yaml", "model_name_or_path: Qwen/Qwen2.5-0.5B\nmax_seq_length: 2048\npacking: true\n");
  dir.write("train.py", "from trl import SFTConfig\nargs = SFTConfig(max_seq_length=1024, packing=True)\n");
  ::chmod((dir.path / "train.py").c_str(), 0750);
  CHECK(fix_pass(dir) == 2);
  CHECK(dir.read("recipe.yaml") == "model_name_or_path: Qwen/Qwen2.5-0.5B\nmax_length: 2048\npacking: true\n");
  CHECK(dir.read("train.py") == "from trl import SFTConfig\nargs = SFTConfig(max_length=1024, packing=True)\n");
  struct stat st {};
  REQUIRE(::stat((dir.path / "train.py").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0750);
  // No temporary file is left behind.
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) entries += e.path().filename().string()[0] != '.';
  CHECK(entries == 2);
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 2);
  // Idempotence: the second pass finds nothing to fix and writes nothing.
  CHECK(fix_pass(dir) == 0);
  CHECK(dir.read("recipe.yaml") == "model_name_or_path: Qwen/Qwen2.5-0.5B\nmax_length: 2048\npacking: true\n");
}

TEST_CASE("overlapping fixes: the first is applied, the other waits for a later pass", "[fix]") {
  FixDir dir;
  dir.write("a.yaml", "max_seq_length: 2048\n");
  Project p = load(dir);
  FileId f = id_of(p, dir, "a.yaml");
  Span key = find(p, f, "max_seq_length");
  Span word = find(p, f, "seq");
  std::vector<Diagnostic> diags = {with_fix(key, {TextEdit{key, "max_length"}}),
                                   with_fix(word, {TextEdit{word, "sequence"}})};
  FixPlan plan = plan_fixes(diags, p, {});
  REQUIRE(plan.files.size() == 1);
  CHECK(plan.files[0].fixed == "max_length: 2048\n");
  CHECK(plan.fixed == std::vector<bool>{true, false});
  CHECK(plan.deferred == 1);
}

TEST_CASE("the same edit reached through two findings is applied once", "[fix]") {
  FixDir dir;
  dir.write("a.yaml", "max_seq_length: 2048\n");
  Project p = load(dir);
  Span key = find(p, id_of(p, dir, "a.yaml"), "max_seq_length");
  std::vector<Diagnostic> diags = {with_fix(key, {TextEdit{key, "max_length"}}),
                                   with_fix(key, {TextEdit{key, "max_length"}})};
  FixPlan plan = plan_fixes(diags, p, {});
  REQUIRE(plan.files.size() == 1);
  CHECK(plan.files[0].fixed == "max_length: 2048\n");
  CHECK(plan.fixed == std::vector<bool>{true, true});
  CHECK(plan.deferred == 0);
}

TEST_CASE("unsafe fixes need --unsafe-fixes", "[fix]") {
  FixDir dir;
  dir.write("a.yaml", "max_seq_length: 2048\n");
  Project p = load(dir);
  Span key = find(p, id_of(p, dir, "a.yaml"), "max_seq_length");
  std::vector<Diagnostic> diags = {with_fix(key, {TextEdit{key, "max_length"}}, /*safe=*/false)};
  CHECK(plan_fixes(diags, p, {}).files.empty());
  CHECK(plan_fixes(diags, p, FixOptions{true}).files.size() == 1);
}

TEST_CASE("a fix spanning two files is all or nothing", "[fix]") {
  FixDir dir;
  dir.write("a.yaml", "max_seq_length: 2048\n");
  dir.write("b.yaml", "max_seq_length: 1024\nother: 1\n");
  Project p = load(dir);
  FileId a = id_of(p, dir, "a.yaml"), b = id_of(p, dir, "b.yaml");
  Span ka = find(p, a, "max_seq_length"), kb = find(p, b, "max_seq_length");
  SECTION("both files change together") {
    auto plan = plan_fixes({with_fix(ka, {TextEdit{ka, "max_length"}, TextEdit{kb, "max_length"}})}, p, {});
    CHECK(plan.files.size() == 2);
  }
  SECTION("a file whose fixed text parses worse refuses the whole fix") {
    auto plan = plan_fixes({with_fix(ka, {TextEdit{ka, "max_length"}, TextEdit{kb, "max_length: ["}})}, p, {});
    CHECK(plan.files.empty());
    CHECK(plan.fixed == std::vector<bool>{false});
    REQUIRE(plan.refused.size() == 1);
    CHECK_THAT(plan.refused[0], Catch::Contains("b.yaml: not fixed"));
  }
}

TEST_CASE("a fix that breaks the syntax is refused", "[fix]") {
  FixDir dir;
  dir.write("train.py", "from trl import SFTConfig\nargs = SFTConfig(max_seq_length=1024)\n");
  dir.write("recipe.yaml", "max_seq_length: 2048\n");
  Project p = load(dir);
  FileId py = id_of(p, dir, "train.py"), yaml = id_of(p, dir, "recipe.yaml");
  Span call = find(p, py, "max_seq_length=1024)");
  Span key = find(p, yaml, "max_seq_length: 2048");
  auto plan = plan_fixes(
      {with_fix(call, {TextEdit{call, "max_length=(1024"}}), with_fix(key, {TextEdit{key, "max_length: [2048"}})}, p,
      {});
  CHECK(plan.files.empty());
  CHECK(plan.refused.size() == 2);
  // A fix that keeps the file valid next to one that does not: the valid file is still fixed.
  auto mixed = plan_fixes(
      {with_fix(call, {TextEdit{call, "max_length=1024)"}}), with_fix(key, {TextEdit{key, "max_length: [2048"}})}, p,
      {});
  REQUIRE(mixed.files.size() == 1);
  CHECK(mixed.files[0].file == py);
}

TEST_CASE("writing is refused when the file changed since it was read", "[fix]") {
  FixDir dir;
  dir.write("a.yaml", "max_seq_length: 2048\n");
  Project p = load(dir);
  FileId f = id_of(p, dir, "a.yaml");
  Span key = find(p, f, "max_seq_length");
  FixPlan plan = plan_fixes({with_fix(key, {TextEdit{key, "max_length"}})}, p, {});
  REQUIRE(plan.files.size() == 1);
  dir.write("a.yaml", "max_seq_length: 4096\n");  // an editor saved meanwhile
  CHECK_THAT(write_fixed_file(p.sources.get(f), plan.files[0].fixed), Catch::Contains("changed since it was read"));
  CHECK(dir.read("a.yaml") == "max_seq_length: 4096\n");
}

TEST_CASE("a symlinked file is fixed through the link, which stays a link", "[fix]") {
  FixDir dir;
  dir.write("real.yaml", "max_seq_length: 2048\n");
  fs::create_symlink("real.yaml", dir.path / "link.yaml");
  Project p = load(dir);
  FileId link = id_of(p, dir, "link.yaml");
  REQUIRE(link != kNoFile);
  Span key = find(p, link, "max_seq_length");
  FixPlan plan = plan_fixes({with_fix(key, {TextEdit{key, "max_length"}})}, p, {});
  REQUIRE(plan.files.size() == 1);
  CHECK(write_fixed_file(p.sources.get(link), plan.files[0].fixed).empty());
  CHECK(fs::is_symlink(dir.path / "link.yaml"));
  CHECK(dir.read("real.yaml") == "max_length: 2048\n");
}

TEST_CASE("a byte order mark survives a fix", "[fix]") {
  FixDir dir;
  dir.write("a.yaml", "\xEF\xBB\xBFmax_seq_length: 2048\n");
  CHECK(fix_pass(dir) == 1);
  CHECK(dir.read("a.yaml") == "\xEF\xBB\xBFmax_length: 2048\n");
}

TEST_CASE("an edit from the start of a file keeps its byte order mark, and three spaces are no mark", "[fix]") {
  FixDir dir;
  dir.write("a.sh", "\xEF\xBB\xBF# first\n   accelerate launch x.py\n");
  dir.write("b.sh", "# first\n   accelerate launch x.py\n");
  Project p = load(dir);
  std::vector<Diagnostic> diags;
  for (const char* name : {"a.sh", "b.sh"}) {
    const FileId id = id_of(p, dir, name);
    REQUIRE(id != kNoFile);
    Span line = find(p, id, "# first\n");
    line.begin = 0;  // the edit starts at byte 0 (the mark's three bytes in a.sh)
    line.start = p.sources.get(id).point_at(0);
    diags.push_back(with_fix(line, {TextEdit{line, ""}}));
  }
  FixPlan plan = plan_fixes(diags, p, {});
  REQUIRE(plan.files.size() == 2);
  for (const auto& f : plan.files) {
    const SourceFile& src = p.sources.get(f.file);
    CHECK(unified_diff(src.path, text_on_disk(src, src.text), text_on_disk(src, f.fixed)).find("-   # first") ==
          std::string::npos);
    CHECK(write_fixed_file(src, f.fixed).empty());
  }
  CHECK(dir.read("a.sh") == "\xEF\xBB\xBF   accelerate launch x.py\n");
  CHECK(dir.read("b.sh") == "   accelerate launch x.py\n");
}

TEST_CASE("a file with hard links, a read-only file and another user's file keep their text or owner", "[fix]") {
  const std::string original = "max_seq_length: 2048\n";
  SECTION("hard links: the fix would leave the other name with the old text") {
    FixDir dir;
    dir.write("a.yaml", original);
    fs::create_hard_link(dir.path / "a.yaml", dir.path / "b.txt");  // not analysed, same file
    CHECK(fix_pass(dir) == 0);
    CHECK(dir.read("a.yaml") == original);
    CHECK(fs::hard_link_count(dir.path / "a.yaml") == 2);
  }
  SECTION("read-only: mode 444 is not rewritten through the folder's permission") {
    FixDir dir;
    dir.write("a.yaml", original);
    ::chmod((dir.path / "a.yaml").c_str(), 0444);
    Project p = load(dir);
    FileId f = id_of(p, dir, "a.yaml");
    Span key = find(p, f, "max_seq_length");
    FixPlan plan = plan_fixes({with_fix(key, {TextEdit{key, "max_length"}})}, p, {});
    REQUIRE(plan.files.size() == 1);
    CHECK_THAT(write_fixed_file(p.sources.get(f), plan.files[0].fixed), Catch::Contains("read-only"));
    CHECK(dir.read("a.yaml") == original);
  }
  SECTION("owner and group: kept (as root, a file of another user; otherwise one's own)") {
    FixDir dir;
    dir.write("a.yaml", original);
    const bool root = ::geteuid() == 0;
    const uid_t uid = root ? 65534 : ::geteuid();
    const gid_t gid = root ? 65534 : ::getegid();
    if (root) REQUIRE(::chown((dir.path / "a.yaml").c_str(), uid, gid) == 0);
    CHECK(fix_pass(dir) == 1);
    CHECK(dir.read("a.yaml") == "max_length: 2048\n");
    struct stat st {};
    REQUIRE(::stat((dir.path / "a.yaml").c_str(), &st) == 0);
    CHECK(st.st_uid == uid);
    CHECK(st.st_gid == gid);
  }
}

TEST_CASE("unified diffs", "[fix]") {
  CHECK(unified_diff("a.yaml", "x: 1\n", "x: 1\n").empty());
  CHECK(unified_diff("a.yaml", "a\nb\nc\n", "a\nB\nc\n") ==
        "--- a/a.yaml\n+++ b/a.yaml\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  SECTION("two distant changes make two hunks with three lines of context") {
    std::string before, after;
    for (int i = 1; i <= 20; ++i) {
      before += "l" + std::to_string(i) + "\n";
      after += (i == 2 || i == 18 ? "L" : "l") + std::to_string(i) + "\n";
    }
    CHECK(unified_diff("f", before, after) ==
          "--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n"
          "@@ -15,6 +15,6 @@\n l15\n l16\n l17\n-l18\n+L18\n l19\n l20\n");
  }
  SECTION("a missing newline at the end of the file is marked") {
    CHECK(unified_diff("f", "a\nb", "a\nc") ==
          "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n"
          "\\ No newline at end of file\n");
  }
  SECTION("insertion into an empty file") {
    CHECK(unified_diff("f", "", "x\n") == "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n");
  }
}
