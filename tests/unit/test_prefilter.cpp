// The pre-filter of load_project: Python files that cannot matter are read but not parsed,
// and a deferred file is parsed after all as soon as anything names or imports it.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "analyzer/project/prefilter.hpp"
#include "analyzer/project/project.hpp"
#include "tests/unit/lcg.hpp"

namespace fs = std::filesystem;
using namespace trl;

namespace {

struct TempProject {
  fs::path root;
  TempProject() {
    static int counter = 0;
    root = fs::temp_directory_path() /
           ("trl-lint-prefilter-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(root);
  }
  ~TempProject() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
  Project load(unsigned threads = 2) const {
    LoadOptions o;
    o.paths = {root.string()};
    o.threads = threads;
    return load_project(o);
  }
};

FileId id_of(const Project& p, const std::string& rel) {
  for (FileId id = 0; id < p.sources.size(); ++id)
    if (p.sources.get(id).path.size() >= rel.size() &&
        p.sources.get(id).path.compare(p.sources.get(id).path.size() - rel.size(), rel.size(), rel) == 0)
      return id;
  FAIL("no file " << rel);
  return kNoFile;
}

bool parsed(const Project& p, const std::string& rel) {
  FileId id = id_of(p, rel);
  return !python_deferred(p, id) && !p.facts[id].python.stmts.empty();
}

const char* kPlain = "import os\n\ndef helper(x):\n    return os.path.join(x, 'a')\n";

}  // namespace

TEST_CASE("the pre-filter defers unrelated Python files and parses what is reached", "[prefilter]") {
  TempProject t;
  t.write("train.py", "from trl import SFTConfig\nfrom pkg.helpers import helper\nimport tools\n");
  t.write("pkg/__init__.py", "");
  t.write("pkg/helpers.py", "from .deep import helper\n");  // imported, no training name
  t.write("pkg/deep.py", kPlain);                           // reached through a relative import
  t.write("tools/__init__.py", kPlain);                     // a package reached by `import tools`
  t.write("launched.py", kPlain);                           // named by a launch script only
  t.write("run.sh", "#!/bin/bash\npython launched.py --lr 1e-5\n");
  t.write("unrelated.py", kPlain);                    // nothing reaches it
  t.write("noqa.py", "import os  # NOQA: TRL101\n");  // a suppression comment: parsed
  for (unsigned threads : {1u, 2u}) {
    Project p = t.load(threads);
    CHECK(parsed(p, "train.py"));
    CHECK(parsed(p, "pkg/helpers.py"));
    CHECK(parsed(p, "pkg/deep.py"));
    CHECK(parsed(p, "tools/__init__.py"));
    CHECK(parsed(p, "launched.py"));
    CHECK(parsed(p, "noqa.py"));
    CHECK(p.facts[id_of(p, "noqa.py")].comments.size() == 1);
    CHECK(python_deferred(p, id_of(p, "unrelated.py")));
    CHECK(p.facts[id_of(p, "unrelated.py")].python.stmts.empty());
    // Still read: its text is there for anything that reports on it.
    CHECK(p.facts[id_of(p, "unrelated.py")].loaded);

    // A later reference (a declared run) parses it on demand, once.
    extract_referenced(p, {"unrelated"});
    CHECK(parsed(p, "unrelated.py"));
    extract_referenced(p, {"unrelated"});
    CHECK(parsed(p, "unrelated.py"));
  }
}

TEST_CASE("TRL_LINT_NO_PREFILTER parses every file", "[prefilter]") {
  TempProject t;
  t.write("unrelated.py", kPlain);
  ::setenv("TRL_LINT_NO_PREFILTER", "1", 1);
  Project p = t.load();
  ::unsetenv("TRL_LINT_NO_PREFILTER");
  CHECK(!python_deferred(p, 0));
  CHECK(!p.facts[0].python.stmts.empty());
}

TEST_CASE("python_may_matter agrees with a plain search for each name", "[prefilter]") {
  // The reference: each case-sensitive name found anywhere, and `noqa` / `trl-` in the text with
  // every byte's 0x20 bit set (how the scan folds case, so that "trl\r" counts as "trl-").
  auto reference = [](std::string_view t) {
    for (std::string_view w :
         {"trl", "transformers", "accelerate", "peft", "deepspeed", "Trainer", "import_module", "__import__"})
      if (t.find(w) != std::string_view::npos) return true;
    std::string folded(t);
    for (char& c : folded) c = static_cast<char>(c | 0x20);
    return folded.find("noqa") != std::string::npos || folded.find("trl-") != std::string::npos;
  };
  // Texts made of pieces of the names, their neighbours in case and spelling, and odd bytes.
  const std::vector<std::string> pieces = {
      "t",           "r",         "l", "T", "R", "L", "-",   "\r", "tr",       "trl", "Tr", "TR",           "rainer",
      "ransformers", "ccelerate", "a", "c", "p", "e", "eft", "d",  "eepspeed", "i",   "m",  "mport_module", "_",
      "__",          "import__",  "n", "N", "o", "O", "q",   "Q",  "a",        "A",   " ",  "\n",           "#",
      "\xd4"};
  test::Lcg rng(12345);
  auto next = [&] { return rng.next(); };
  int matched = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    // Up to 11 pieces (texts shorter than the 17 bytes the sixteen-at-a-time scan needs, and
    // longer ones) or up to 60 (several blocks and a tail).
    const std::uint32_t pieces_in_text = round % 2 ? next() % 12 : next() % 61;
    for (std::uint32_t k = pieces_in_text; k > 0; --k) text += pieces[(next() >> 8) % pieces.size()];
    INFO(text);
    const bool expected = reference(text);
    REQUIRE(python_may_matter(text) == expected);
    REQUIRE(python_may_matter_bytewise(text) == expected);
    matched += expected;
  }
  CHECK(matched > 1000);  // both answers are well represented
  CHECK(matched < 19000);
}

TEST_CASE("python_may_matter finds a name at every offset of a long text", "[prefilter]") {
  // The scan looks at sixteen positions at a time and the rest one by one: each name (and each
  // near miss) is put at every offset of texts of every length up to 70 bytes, so it starts in
  // a block, straddles two blocks, ends at the last byte, or falls in the tail.
  const std::vector<std::pair<std::string, bool>> names = {
      {"trl", true},       {"transformers", true},  {"Trainer", true},    {"accelerate", true},  {"peft", true},
      {"deepspeed", true}, {"import_module", true}, {"__import__", true}, {"NoQA", true},        {"tRl-", true},
      {"TRL-", true},      {"Trl", false},          {"Trai", false},      {"acceleratE", false}, {"pef", false},
      {"deepspee", false}, {"import_modul", false}, {"_import__", false}, {"noq", false},        {"trL", false}};
  // The filler's letters (x, y, z) complete no near miss, and it has no `-` or `_`.
  const std::string filler = "x = 1 + y * (z / 2)  # 0123456789 yz\n";
  for (const auto& [name, found] : names)
    for (std::size_t length = name.size(); length <= 70; ++length)
      for (std::size_t at = 0; at + name.size() <= length; ++at) {
        std::string text;
        while (text.size() < length) text += filler;
        text.resize(length);
        text.replace(at, name.size(), name);
        INFO(name << " at " << at << " of " << length);
        REQUIRE(python_may_matter(text) == found);
        REQUIRE(python_may_matter_bytewise(text) == found);
      }
}

TEST_CASE("python_may_matter reads training names and trl-lint comments only", "[prefilter]") {
  // A filler of 40 bytes after the text makes the sixteen-at-a-time scan see the same names.
  const std::string pad(40, ' ');
  CHECK(python_may_matter("x  # TrL-LiNt: disable" + pad));
  CHECK_FALSE(python_may_matter("x = 'TRL_'\n" + pad));
  CHECK_FALSE(python_may_matter(pad + "\xce\xcf\xd1\xc1 \xd4\xd2\xcc\xad" + pad));
  CHECK(python_may_matter(pad + "NOQA"));
  CHECK(python_may_matter("from trl import SFTTrainer\n"));
  CHECK(python_may_matter("import transformers\n"));
  CHECK(python_may_matter("from accelerate import Accelerator\n"));
  CHECK(python_may_matter("class MyTrainer(Base): pass\n"));
  CHECK(python_may_matter("mod = importlib.import_module(name)\n"));
  CHECK(python_may_matter("x = 1  # NoQa\n"));
  CHECK(python_may_matter("# TRL-LINT: ignore\n"));
  CHECK_FALSE(python_may_matter(kPlain));
  CHECK_FALSE(python_may_matter(""));
  CHECK_FALSE(python_may_matter("nq"));  // shorter than any needle
  CHECK(python_may_matter("NOQA"));      // at the very end of the text
  CHECK(python_may_matter("x  # TrL-LiNt: disable"));
  CHECK(python_may_matter("x  # tRL-lint: disable"));
  CHECK(python_may_matter("deepspeed"));  // a name that is the whole text
  CHECK(python_may_matter("x = __import__(name)"));
  CHECK_FALSE(python_may_matter("Trai"));  // a name cut short at the end of the text
  CHECK_FALSE(python_may_matter("nOq"));
  CHECK_FALSE(python_may_matter("x = 'TRL_'\n"));  // `trl` must be lower case, `TRL-` needs the hyphen
  // Bytes whose low seven bits spell NOQA and TRL- (non-ASCII bytes) are no match.
  CHECK_FALSE(python_may_matter("\xce\xcf\xd1\xc1 \xd4\xd2\xcc\xad"));
}

TEST_CASE("prefilter: the name a file is reached by, as std::filesystem reads the path", "[prefilter]") {
  // python_reach_name works on strings; it must agree with std::filesystem's stem, and with the
  // filename of the parent path for `__init__.py`, on every shape of path.
  auto by_filesystem = [](const std::string& path) {
    const std::filesystem::path p(path);
    if (p.filename() == "__init__.py") return p.parent_path().filename().string();
    return p.stem().string();
  };
  const std::vector<std::string> folders = {"",       "/",   "//",    "/a/",   "a/",     "/a/b/",
                                            "/a//b/", "./",  "../",   "/a/./", "/a/../", "/.hidden/",
                                            "/x.y/",  "/ü/", "/a b/", "/-/",   "/a.b.c/"};
  const std::vector<std::string> names = {"train.py", "__init__.py",  ".py",    "..py",   ".hidden", "a.b.py",
                                          "noext",    "trailing.",    ".",      "..",     "a..py",   "x.tar.gz",
                                          "__init__", "__init__.pyc", "ü.py",   "a b.py", "",        "__init__.py/",
                                          "dir/",     ".venv",        "t.py/.."};
  for (const auto& folder : folders)
    for (const auto& name : names) {
      const std::string path = folder + name;
      INFO(path);
      CHECK(std::string(python_reach_name(path)) == by_filesystem(path));
    }
  CHECK(python_reach_name("/repo/pkg/__init__.py") == "pkg");
  CHECK(python_reach_name("/repo/pkg/train.py") == "train");
  CHECK(python_reach_name("/__init__.py").empty());
}
