// The pre-filter of load_project: Python files that cannot matter are read but not parsed,
// and a deferred file is parsed after all as soon as anything names or imports it.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/knowledge/knowledge.hpp"
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

TEST_CASE("find_training_name: where the first name starts, from any offset", "[prefilter]") {
  // The reference: the names the pre-filter looks for, case-sensitive, and `noqa` / `trl-` with
  // every byte's 0x20 bit set.
  auto begins = [](const std::string& t, std::size_t k) {
    for (std::string_view w :
         {"trl", "transformers", "accelerate", "peft", "deepspeed", "Trainer", "import_module", "__import__"})
      if (t.compare(k, w.size(), w) == 0) return true;
    std::string folded = t.substr(k, 4);
    for (char& c : folded) c = static_cast<char>(c | 0x20);
    return folded == "noqa" || folded == "trl-";
  };
  const std::vector<std::string> pieces = {
      "trl", "tr", "transformers", "Trainer", "noqa", "NoQ",          "TRL-", "peft",
      "x",   " ",  "\n",           "_",       "ab",   "import_module"};
  test::Lcg rng(777);
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    for (std::uint32_t k = rng.next() % 30; k > 0; --k) text += pieces[(rng.next() >> 8) % pieces.size()];
    const std::size_t from = text.empty() ? 0 : rng.next() % (text.size() + 1);
    std::size_t expected = from;
    while (expected < text.size() && !begins(text, expected)) ++expected;
    INFO(text << " from " << from);
    REQUIRE(find_training_name(text, from) == expected);
  }
  CHECK(find_training_name("abc", 7) == 3);  // an offset past the end
}

TEST_CASE("python_relevance: a module whose only names import tokenizer classes", "[prefilter]") {
  const std::string plain = kPlain;
  using R = PythonRelevance;
  CHECK(python_relevance(plain) == R::Unrelated);
  CHECK(python_relevance("") == R::Unrelated);
  // TokenizerOnly: every inert import form.
  for (const std::string head : {
           "from transformers import AutoTokenizer\n",
           "from transformers import AutoTokenizer as Tok, PreTrainedTokenizerBase\n",
           "from transformers.models.auto import AutoTokenizer\n",
           "from transformers import (\n    AutoTokenizer,  # the chat template\n    PreTrainedTokenizerFast,\n)\n",
           "from transformers import(AutoTokenizer)\n", "from transformers import \\\n    AutoTokenizer\n",
           "if TYPE_CHECKING:\n    from transformers import PreTrainedTokenizer\n",
           "from transformers import AutoTokenizer\r\n", "from  transformers  import  AutoTokenizer  # a comment\n",
           "from transformers import AutoTokenizer\nfrom transformers import PreTrainedTokenizer\n",
           "x = 1\rfrom transformers import AutoTokenizer\rx = 2\r",  // old Mac line ends
       }) {
    INFO(head);
    CHECK(python_relevance(head + plain) == R::TokenizerOnly);
    CHECK(python_relevance(plain + head) == R::TokenizerOnly);
  }
  CHECK(python_relevance("from transformers import AutoTokenizer") == R::TokenizerOnly);  // no line end
  // Matters: anything else near the name, or another name anywhere.
  for (const std::string text : {
           "import transformers\n",
           "from transformers import AutoModelForCausalLM\n",
           "from transformers import AutoTokenizer, TrainingArguments\n",
           "from transformers import *\n",
           "from transformers import AutoTokenizer; x = 1\n",
           "x = 1; from transformers import AutoTokenizer\n",
           "from sentence_transformers import SentenceTransformer\n",
           "from transformers_extra import AutoTokenizer\n",
           "from transformers import AutoTokenizer as\n",
           "from transformers import AutoTokenizer,\n",
           "from transformers import (AutoTokenizer\n",
           "from transformers import AutoTokenizerX\n",
           "deps = ['transformers>=4.40']\n",
           "# uses transformers\n",
           "from transformers import AutoTokenizer  # noqa: TRL101\n",
           "from transformers import (\n    AutoTokenizer,  # noqa\n)\n",
           "from transformers import (\n    AutoTokenizer,  # not from trl\n)\n",
           "from transformers import AutoTokenizer\nfrom trl import SFTConfig\n",
           "from transformers import AutoTokenizer\nclass MyTrainer:\n    pass\n",
           // A JSON file it may name is read only when the module is parsed (load_referenced_json).
           "from transformers import AutoTokenizer\nwith open('accel.json') as f:\n    pass\n",
       }) {
    INFO(text);
    CHECK(python_relevance(text + plain) == R::Matters);
  }
}

TEST_CASE("the inert transformers names are nothing the knowledge describes", "[prefilter]") {
  const Knowledge& k = Knowledge::get();
  for (std::string_view name : inert_transformers_names()) {
    INFO(name);
    CHECK(k.find(name) == nullptr);
    for (const Rename& r : k.renames()) {
      CHECK(r.cls != name);
      CHECK(r.old_name != name);
      CHECK(r.new_name != name);
    }
    // python_may_matter's names do not occur in them (the scan goes on after the statement).
    CHECK_FALSE(python_may_matter(std::string(name) + std::string(40, ' ')));
  }
}

TEST_CASE("python_import_words: the words of import statements only", "[prefilter]") {
  auto words = [](std::string_view text) {
    std::vector<std::string> out;
    const bool followed = python_import_words(text, [&](std::string_view w, bool) { out.emplace_back(w); });
    return std::make_pair(followed, out);
  };
  using V = std::vector<std::string>;
  CHECK(words("import a.b as c, d\n") == std::make_pair(true, V{"import", "a", "b", "as", "c", "d"}));
  CHECK(words("from .x import (y,\n    z)  # c\n") == std::make_pair(true, V{"from", ".", "x", "import", "y", "z"}));
  CHECK(words("from . import *\nfrom ..up import v\nx = a.b\n") ==
        std::make_pair(true, V{"from", ".", "import", "from", "..", "up", "import", "v"}));
  CHECK(words("from a \\\n    import b\n") == std::make_pair(true, V{"from", "a", "import", "b"}));
  CHECK(words("if t: import q\nelse: from r import s\n") ==
        std::make_pair(true, V{"import", "q", "from", "r", "import", "s"}));
  CHECK(words("x = 1; import r\n") == std::make_pair(true, V{"import", "r"}));
  CHECK(words("def f():\n    import inner\n    return inner\n") == std::make_pair(true, V{"import", "inner"}));
  // Line ends: `\r\n`, and a lone `\r` (old Mac files, which Python reads) ends lines and comments.
  CHECK(words("x = 1\r\nfrom a import b\r\n") == std::make_pair(true, V{"from", "a", "import", "b"}));
  CHECK(words("x = 1\rfrom a import b\r# c\rimport d\r") ==
        std::make_pair(true, V{"from", "a", "import", "b", "import", "d"}));
  CHECK(words("s = 'a \\\r\nb'\r\nfrom . import c\r\n") == std::make_pair(true, V{"from", ".", "import", "c"}));
  // Not import statements: strings, comments, other words.
  CHECK(words("s = 'import a'\nt = \"\"\"\nfrom b import c\n\"\"\"\n# import d\nimporter = 1\n") ==
        std::make_pair(true, V{}));
  CHECK(words("x = f'{y}'; u = rb'\\'import e'\n") == std::make_pair(true, V{}));
  CHECK(words("d = {\n  'k': 1,\n}\nimport g\n") == std::make_pair(true, V{"import", "g"}));
  CHECK(words("x: int = 1\nimport h\n") == std::make_pair(true, V{"import", "h"}));
  // Texts it cannot follow: the caller takes every word instead.
  CHECK_FALSE(words("s = 'open\nimport a\n").first);
  CHECK_FALSE(words("s = 'open\rimport a\r").first);
  CHECK_FALSE(words("s = '''never closed\n").first);
  CHECK_FALSE(words("x = (1))\n").first);
  CHECK_FALSE(words("x = (1\n").first);
}

TEST_CASE("python_import_words: the names a statement binds", "[prefilter]") {
  auto bound = [](std::string_view text) {
    std::vector<std::string> out;
    python_import_words(text, [&](std::string_view w, bool binds) {
      if (binds) out.emplace_back(w);
    });
    return out;
  };
  using V = std::vector<std::string>;
  // `import a.b` binds `a` (whose attributes reach a.b and more); an alias is no module name.
  CHECK(bound("import a.b as c, d\n") == V{"a", "d"});
  CHECK(bound("import a, b.c\n") == V{"a", "b"});
  // `from m import x, y`: x and y may be submodules; the module's own parts bind nothing.
  CHECK(bound("from m.n import x as z, y\n") == V{"x", "y"});
  CHECK(bound("from . import (p,\n  q as r,\n)\n") == V{"p", "q"});
  CHECK(bound("from .. import *\n").empty());
  CHECK(bound("x = a, b\nimport e\n") == V{"e"});
}

TEST_CASE("TokenizerOnly modules are parsed when their imports lead to a kept module", "[prefilter]") {
  TempProject t;
  const std::string tok = "from transformers import AutoTokenizer\n";
  t.write("cfg.py", "from trl import SFTConfig\n\ndef make():\n    return SFTConfig(output_dir='o')\n");
  t.write("tok_alone.py", tok + kPlain);                        // imports nothing of the project
  t.write("tok_direct.py", tok + "from cfg import make\n");     // imports a kept module
  t.write("tok_chain.py", tok + "import middle\n");             // through a plain module
  t.write("middle.py", "from pkg.cfg2 import make\n");          // plain: leads to pkg/cfg2.py
  t.write("pkg/cfg2.py", "import trl\n");                       // kept
  t.write("tok_plain.py", tok + "from plain import helper\n");  // a plain module that leads nowhere
  t.write("plain.py", kPlain);
  t.write("tok_a.py", tok + "import tok_b\n");  // two TokenizerOnly modules importing each other
  t.write("tok_b.py", tok + "import tok_a\n");
  t.write("tok_c.py", tok + "import tok_d\n");  // a TokenizerOnly module through another one
  t.write("tok_d.py", tok + "import cfg\n");
  t.write("tok_broken.py", tok + "s = 'never closed\nimport cfg\n");  // not followed: every word counts
  t.write("tok_string.py", tok + "s = 'import cfg'\n");               // a string is no import
  t.write("tok_self.py", tok + "import tok_self\n");
  // Two plain modules deep.
  t.write("tok_deep.py", tok + "import deep1\n");
  t.write("deep1.py", "import deep2\n");
  t.write("deep2.py", "from cfg import make\n");
  // A folder bound by `import`: attribute access reaches the modules under it.
  t.write("cfgpkg/sub/sft.py", "from trl import SFTConfig\n");  // kept, no __init__.py
  t.write("tok_attr.py", tok + "import cfgpkg\n\nargs = cfgpkg.sub.sft.SFTConfig(output_dir='o')\n");
  t.write("plainpkg/x.py", kPlain);
  t.write("tok_attr_plain.py", tok + "import plainpkg\n");
  t.write("tok_alias.py", tok + "import json as cfgpkg\n");  // an alias is no folder
  // Old Mac line ends: the import after a lone `\r` counts.
  t.write("tok_cr.py", tok + "x = 1\rimport cfg\r");
  // Relative imports reach the package's `__init__.py`, one folder up per dot.
  t.write("p1/__init__.py", "from trl import SFTConfig\n");  // kept
  t.write("p1/tok_star.py", tok + "from . import *\n");
  t.write("p2/__init__.py", "");
  t.write("p2/sub/__init__.py", "");
  t.write("p2/sub/tok_up.py", tok + "from .. import *\n");  // p2/__init__.py: plain
  t.write("p3/__init__.py", "import trl\n");
  t.write("p3/sub/tok_up2.py", tok + "from .. import *\n");  // p3/__init__.py: kept
  for (unsigned threads : {1u, 2u}) {
    Project p = t.load(threads);
    for (const char* kept : {"tok_direct.py", "tok_chain.py", "tok_c.py", "tok_d.py", "tok_broken.py", "tok_star.py",
                             "tok_up2.py", "tok_deep.py", "tok_attr.py", "tok_cr.py"}) {
      INFO(kept);
      CHECK(parsed(p, kept));
    }
    for (const char* deferred : {"tok_alone.py", "tok_plain.py", "tok_a.py", "tok_b.py", "tok_string.py", "tok_self.py",
                                 "plain.py", "tok_up.py", "tok_attr_plain.py", "tok_alias.py"}) {
      INFO(deferred);
      CHECK(python_deferred(p, id_of(p, deferred)));
    }
    CHECK(p.facts[id_of(p, "tok_alone.py")].conditional);
    CHECK_FALSE(p.facts[id_of(p, "plain.py")].conditional);
    // The modules whose imports were followed; a kept module is not followed.
    CHECK(p.facts[id_of(p, "tok_alone.py")].consulted);
    CHECK(p.facts[id_of(p, "middle.py")].consulted);
    CHECK(p.facts[id_of(p, "plain.py")].consulted);
    CHECK_FALSE(p.facts[id_of(p, "cfg.py")].consulted);
  }
  // With the pre-filter off, every module is parsed.
  ::setenv("TRL_LINT_NO_PREFILTER", "1", 1);
  Project all = t.load();
  ::unsetenv("TRL_LINT_NO_PREFILTER");
  CHECK(parsed(all, "tok_alone.py"));
}

TEST_CASE("deferred modules reached through a package: relative imports and attribute access", "[prefilter]") {
  TempProject t;
  // `from . import NAME` reads the package's `__init__.py`; deferred (a plain one, or one that
  // only imports a tokenizer class), it is parsed when a parsed module imports so.
  t.write("pkg/__init__.py", "from transformers import AutoTokenizer\n\nCP_SIZE = 2\n");
  t.write("pkg/train.py", "from trl import SFTConfig\n\nfrom . import CP_SIZE\n");
  t.write("plainpkg/__init__.py", "CP_SIZE = 2\n");
  t.write("plainpkg/sub/train.py", "from trl import SFTConfig\n\nfrom .. import CP_SIZE\n");
  // `import data`, then `data.tokenization.CP_SIZE`: a module under the folder that only imports
  // a tokenizer class (parsed before the pre-filter knew them) is reached by the binding alone,
  // an ordinary one when a parsed module names it as an attribute or in a string.
  t.write("data/tokenization.py", "from transformers import AutoTokenizer\n\nCP_SIZE = 2\n");
  t.write("data/more/deeper.py", kPlain);
  t.write("data/more/idle.py", kPlain);
  t.write("train.py", "from trl import SFTConfig\n\nimport data\n\nx = data.more.deeper.VALUE\n");
  t.write("other/unreached.py", kPlain);
  t.write("use_func.py", "from trl import SFTConfig\nfrom helpers import other\n\nm = getattr(other, 'unreached')\n");
  t.write("helpers.py", kPlain);
  for (unsigned threads : {1u, 2u}) {
    Project p = t.load(threads);
    for (const char* reached : {"pkg/__init__.py", "plainpkg/__init__.py", "data/tokenization.py",
                                "data/more/deeper.py", "other/unreached.py"}) {
      INFO(reached);
      CHECK(parsed(p, reached));
    }
    CHECK(python_deferred(p, id_of(p, "data/more/idle.py")));
  }
  // No import binds `other` any more: the string names a module nobody reaches.
  t.write("use_func.py", "from trl import SFTConfig\nfrom helpers import something\n\nm = 'unreached'\n");
  Project p = t.load();
  CHECK(python_deferred(p, id_of(p, "other/unreached.py")));
}

TEST_CASE("a package directly under the project root is bound by its name", "[prefilter]") {
  // Every Python file is in mypkg/, whose parent is the project root: `import mypkg` finds it
  // there (the evaluator looks in the project root).
  TempProject t;
  t.write("mypkg/__init__.py", "");
  t.write("mypkg/train.py", "from transformers import AutoTokenizer\n\nimport mypkg\n\nx = mypkg.cfgs.sft.make\n");
  t.write("mypkg/cfgs/sft.py", "from trl import SFTConfig\n\ndef make():\n    return SFTConfig(output_dir='o')\n");
  Project p = t.load(1);
  CHECK(parsed(p, "mypkg/train.py"));
}

TEST_CASE("the project root's folder and its ancestors bind nothing", "[prefilter]") {
  TempProject t;
  // The project is t.root/json: `import json` is the standard library, and `import tmp` names an
  // ancestor folder; neither reaches the project's modules.
  t.write("json/train.py", "import json\nimport tmp\nfrom trl import SFTConfig\n");
  t.write("json/lib/plain.py", kPlain);
  t.write("json/lib/tok.py", "from transformers import AutoTokenizer\nimport json\n");
  LoadOptions o;
  o.paths = {(t.root / "json").string()};
  o.threads = 1;
  Project p = load_project(o);
  CHECK(parsed(p, "train.py"));
  CHECK(python_deferred(p, id_of(p, "lib/plain.py")));
  CHECK(python_deferred(p, id_of(p, "lib/tok.py")));
}

TEST_CASE("launch lines reach a package's __main__.py and modules whose names have dots", "[prefilter]") {
  TempProject t;
  const std::string tok = "from transformers import AutoTokenizer\n";
  t.write("pkg/__main__.py", tok + kPlain);  // `python -m pkg` runs it (a namespace package)
  t.write("other/__init__.py", "");
  t.write("other/__main__.py", tok + kPlain);  // launched by nothing
  t.write("prep.v2.py", tok + kPlain);
  t.write(
      "m\xc3\xb3"
      "dulo.py",
      kPlain);  // a non-ASCII module name, imported
  t.write("train.py",
          "from trl import SFTConfig\nimport m\xc3\xb3"
          "dulo\n");
  t.write("run.sh", "#!/bin/bash\naccelerate launch -m pkg --lr 1\npython prep.v2.py.\n");
  for (unsigned threads : {1u, 2u}) {
    Project p = t.load(threads);
    CHECK(parsed(p, "pkg/__main__.py"));
    CHECK(parsed(p, "prep.v2.py"));
    CHECK(parsed(p,
                 "m\xc3\xb3"
                 "dulo.py"));
    CHECK(python_deferred(p, id_of(p, "other/__main__.py")));
  }
}

TEST_CASE("a folder given first among several paths is still a package by its name", "[prefilter]") {
  // `trl-lint data .`: the project root is data/, but train.py, in the folder above, imports
  // `data` and reads `data.tokenization.CP_SIZE`.
  TempProject t;
  t.write("data/tokenization.py", "from transformers import AutoTokenizer\n\nCP_SIZE = 2\n");
  t.write("train.py", "from trl import SFTConfig\n\nimport data\n");
  LoadOptions o;
  o.paths = {(t.root / "data").string(), t.root.string()};
  o.threads = 1;
  Project p = load_project(o);
  CHECK(parsed(p, "tokenization.py"));
}
