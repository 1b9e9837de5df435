// A release newer than the knowledge, read from its installed source (installed_classes.hpp): the
// reading of an installed class must give the same fields as tools/knowledge_history.py's tables
// (which it builds from scan_module, tested here too), and the metadata of an environment must be
// read as pip writes it.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "analyzer/eval/installed_classes.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/python_environment.hpp"
#include "tests/unit/source_text.hpp"

using namespace trl;

namespace {

std::string read(const std::string& path) {
  return test::source_text(path);
}

const char* kClasses = R"(
classes:
  SFTConfig:
    package: trl
    role: trainer_config
    trainer: sft
    bases: [TrainingArguments]
    source: trl/trainer/sft_config.py@v1.9.0
  GRPOConfig:
    package: trl
    role: trainer_config
    trainer: grpo
    bases: [TrainingArguments]
    source: trl/trainer/grpo_config.py@v1.9.0
)";

std::string shown(const Scalar& s) {
  switch (s.kind) {
    case Scalar::Kind::Null: return "None";
    case Scalar::Kind::Bool: return s.b ? "True" : "False";
    case Scalar::Kind::Int: return std::to_string(s.i);
    case Scalar::Kind::Float: return std::to_string(s.f);
    default: return "'" + s.s + "'";
  }
}

}  // namespace

TEST_CASE("installed source: the fields the generator's tables hold, at three stored releases", "[installed]") {
  // tests/history/expected_trl.yaml is what tools/knowledge_history.py builds from the stored
  // excerpts of TRL 0.12.0, 0.21.0 and 1.9.0 (per module, through scan_module; then bases flattened
  // across modules); reading each class as an installed one (read_dataclass) gives the same fields.
  const Knowledge k = Knowledge::from_texts(
      {{"classes.yaml", kClasses}, {"history_trl.yaml", read("tests/history/expected_trl.yaml")}});
  int compared = 0;
  for (const std::string version : {"0.12.0", "0.21.0", "1.9.0"}) {
    for (const std::string name : {"SFTConfig", "GRPOConfig"}) {
      const ClassInfo* cls = k.find(name);
      REQUIRE(cls);
      const ClassInfo* expected = k.at(*cls, version);
      const std::string module = name == "SFTConfig" ? "trl/trainer/sft_config.py" : "trl/trainer/grpo_config.py";
      const std::string site = std::string(TRL_LINT_SOURCE_DIR) + "/tests/history/trl/v" + version;
      const std::string text = read("tests/history/trl/v" + version + "/" + module);
      const ReadClass got = read_dataclass(site, module, text, name);
      INFO(name << " at " << version);
      if (!expected) {  // GRPOConfig is not in the 0.12.0 excerpts
        CHECK_FALSE(got.found);
        continue;
      }
      REQUIRE(got.found);
      CHECK(got.bases == expected->bases);
      std::vector<std::string> got_names, expected_names;
      for (const auto& [n, f] : got.fields) got_names.push_back(n);
      for (const auto& [n, f] : expected->fields) expected_names.push_back(n);
      CHECK(got_names == expected_names);
      for (const auto& [n, want] : expected->fields) {
        auto it = got.fields.find(n);
        if (it == got.fields.end()) continue;
        const FieldInfo& f = it->second;
        INFO("field " << n);
        CHECK(f.type == want.type);
        CHECK(f.nullable == want.nullable);
        CHECK(f.choices == want.choices);
        CHECK(f.has_default == want.has_default);
        if (want.has_default) CHECK(shown(f.default_value) == shown(want.default_value));
        ++compared;
      }
    }
  }
  CHECK(compared >= 15);
}

TEST_CASE("installed source: annotations, defaults and choices", "[installed]") {
  const std::string text = R"(
import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar, Literal, Optional, Union


@dataclasses.dataclass
class ExampleConfig(SomeBase):
    plain: int = 3
    negative: float = -0.5
    joined: str = "a" "b"
    added: str = "x" + "y"
    optional: Optional[int] = None
    pipe: int | None = 4
    either: Union[int, str] = 1
    literal: Literal["one", "two"] = "one"
    listed: list[str] = field(default_factory=list)
    help_values: str = field(default="server", metadata={"help": "Must be one of 'server', \"colocate\" or `remote`."})
    meta_values: str = field(default="a", metadata={"choices": ["a", "b"], "help": "must be one of `x` or `y`"})
    computed: int = field(init=False)
    counter: ClassVar[int] = 0
    bare: bool
    redefined: int = 1
    redefined: str = "later"


class NotADataclass:
    ignored: int = 1
)";
  const ReadClass c = read_dataclass("", "pkg/example.py", text, "ExampleConfig");
  REQUIRE(c.found);
  CHECK(c.bases == std::vector<std::string>{"SomeBase"});  // not defined in the package: kept
  auto f = [&](const char* n) -> const FieldInfo& {
    INFO(n);
    REQUIRE(c.fields.count(n));
    return c.fields.at(n);
  };
  CHECK(f("plain").type == "int");
  CHECK(f("plain").default_value.i == 3);
  CHECK(f("negative").default_value.f == -0.5);
  CHECK(f("joined").default_value.s == "ab");
  CHECK(f("added").default_value.s == "xy");
  CHECK(f("optional").nullable);
  CHECK(f("optional").type == "int");
  CHECK(f("pipe").nullable);
  CHECK(f("pipe").type == "int");
  CHECK(f("either").type == "object");
  CHECK(f("literal").choices == std::vector<std::string>{"one", "two"});
  CHECK(f("literal").type == "str");
  CHECK(f("listed").type == "list");
  CHECK_FALSE(f("listed").has_default);
  CHECK(f("help_values").choices == std::vector<std::string>{"server", "colocate", "remote"});
  CHECK(f("meta_values").choices == std::vector<std::string>{"a", "b"});  // metadata beats help text
  CHECK(f("bare").type == "bool");
  CHECK_FALSE(f("bare").has_default);
  CHECK(f("redefined").type == "str");  // the later declaration wins
  CHECK_FALSE(c.fields.count("computed"));
  CHECK_FALSE(c.fields.count("counter"));
  CHECK_FALSE(read_dataclass("", "pkg/example.py", text, "NotADataclass").found);
  CHECK_FALSE(read_dataclass("", "pkg/example.py", text, "Missing").found);
  // Half-typed source: what parses is read, nothing crashes.
  CHECK_NOTHROW(read_dataclass("", "pkg/broken.py", "@dataclass\nclass Broken(:\n  x: int = ", "Broken"));
  CHECK_FALSE(read_dataclass("", "pkg/empty.py", "", "ExampleConfig").found);
}

TEST_CASE("installed environment: distribution metadata", "[installed]") {
  CHECK(parse_distribution_metadata("Metadata-Version: 2.1\nName: trl\nVersion: 0.21.0\n") ==
        std::make_pair(std::string("trl"), std::string("0.21.0")));
  // CRLF, spacing, a normalised name; the description after the blank line is not a header.
  CHECK(parse_distribution_metadata("Name:  Accelerate_Lib \r\nVersion:1.2.3rc1\r\n\r\nVersion: 9\n") ==
        std::make_pair(std::string("accelerate-lib"), std::string("1.2.3rc1")));
  CHECK(parse_distribution_metadata("no headers here") == std::make_pair(std::string(), std::string()));
  CHECK(parse_distribution_metadata("") == std::make_pair(std::string(), std::string()));
}

TEST_CASE("installed environment: --python names an environment", "[installed]") {
  CHECK(environment_of_python_option("/definitely/missing/bin/python").empty());
  const std::string here = std::string(TRL_LINT_FIXTURES_DIR) + "/TRL001/installed_version_beats_pin/.venv";
  CHECK(environment_of_python_option(here) == here);
  CHECK(is_python_environment(here));
  CHECK_FALSE(is_python_environment(std::string(TRL_LINT_FIXTURES_DIR)));
  // A file that is not in a bin/ folder names no environment.
  CHECK(environment_of_python_option(std::string(TRL_LINT_SOURCE_DIR) + "/README.md").empty());
}

TEST_CASE("installed environment: a release newer than the knowledge", "[installed]") {
  const Knowledge& k = Knowledge::get();
  const std::string newest = k.library("trl")->newest;
  VersionTarget t;
  t.library = "trl";
  t.version = newest;
  CHECK_FALSE(newer_than_knowledge(k, t));
  t.version = "99.0.0";
  CHECK(newer_than_knowledge(k, t));
  t.version.reset();
  CHECK_FALSE(newer_than_knowledge(k, t));
  // Without an environment's source nothing is read.
  VersionTargets targets;
  targets.trl.library = "trl";
  targets.trl.version = "99.0.0";
  CHECK(installed_class(k, *k.find("SFTConfig"), targets) == nullptr);
}

namespace {

// A site-packages folder of made-up modules, removed at the end.
struct Site {
  std::filesystem::path root;
  Site() {
    static int counter = 0;
    root = std::filesystem::temp_directory_path() /
           ("trl-lint-site-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(root);
  }
  ~Site() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::create_directories((root / rel).parent_path());
    std::ofstream(root / rel) << text;
  }
};

}  // namespace

TEST_CASE("installed source: the keywords a trainer's __init__ takes", "[installed]") {
  const Knowledge& k = Knowledge::get();
  Site site;
  site.write("trl/__init__.py", "");
  site.write("trl/trainer/__init__.py", "");
  // SFTTrainer: its own __init__, a deprecate_kwarg alias, *args skipped, keyword-only kept.
  site.write("trl/trainer/sft_trainer.py", R"(
from ..utils import deprecate_kwarg
from .base_trainer import BaseTrainer


class SFTTrainer(BaseTrainer):
    @deprecate_kwarg("tokenizer", "2.0.0", new_name="processing_class")
    def __init__(self, model, args=None, *extra, processing_class=None, document_boundaries=None):
        super().__init__(model, args)
)");
  // DPOTrainer: no __init__ of its own; its base (in another module of the package) has one.
  site.write("trl/trainer/dpo_trainer.py", R"(
from .base_trainer import BaseTrainer


class DPOTrainer(BaseTrainer):
    pass
)");
  site.write("trl/trainer/base_trainer.py", R"(
from transformers import Trainer


class BaseTrainer(Trainer):
    def __init__(self, model, args=None, ref_model=None):
        super().__init__(model=model, args=args)
)");
  // KTOTrainer: **kwargs; GRPOTrainer: derives from transformers' Trainer only.
  site.write("trl/trainer/kto_trainer.py",
             "class KTOTrainer:\n    def __init__(self, model, **kwargs):\n        pass\n");
  site.write("trl/trainer/grpo_trainer.py",
             "from transformers import Trainer\n\nclass GRPOTrainer(Trainer):\n    pass\n");
  VersionTargets targets;
  targets.trl.library = "trl";
  targets.trl.version = "99.0.0";
  targets.trl.installed_site = site.root.string();
  auto names = [&](const char* cls) -> std::optional<std::vector<std::string>> {
    const ClassInfo* c = k.find(cls);
    REQUIRE(c);
    auto got = installed_trainer_keywords(k, *c, targets);
    if (!got) return std::nullopt;
    std::sort(got->names.begin(), got->names.end());
    return got->names;
  };
  CHECK(names("SFTTrainer") ==
        std::vector<std::string>{"args", "document_boundaries", "model", "processing_class", "tokenizer"});
  CHECK(names("DPOTrainer") == std::vector<std::string>{"args", "model", "ref_model"});
  CHECK_FALSE(names("KTOTrainer"));
  CHECK_FALSE(names("GRPOTrainer"));
  const auto sft = installed_trainer_keywords(k, *k.find("SFTTrainer"), targets);
  REQUIRE(sft);
  CHECK(sft->source ==
        "trl/trainer/sft_trainer.py of the installed TRL 99.0.0 (newer than the releases trl-lint knows)");
  // A release the knowledge has: the history answers, not the installed source.
  targets.trl.version = k.library("trl")->newest;
  CHECK_FALSE(installed_trainer_keywords(k, *k.find("SFTTrainer"), targets));
}

TEST_CASE("release scan: trainers, enums and launch options of one module", "[installed]") {
  const std::string text = R"PY(
from enum import Enum
from dataclasses import dataclass, field
from .utils import deprecate_kwarg, _deprecate_arguments as deprecate_arguments
from transformers import Trainer


class Mode(str, Enum):
    FAST = "fast"
    SLOW = "slow"
    ALSO_FAST = "fast"


@dataclass
class DemoConfig:
    mode: str = field(default="fast", metadata={"help": "Deprecated: use `speed`."})
    speed: str = field(default="a", metadata={"help": "It must be one of 'a', 'b', or 'c'."})

    def __post_init__(self):
        if self.mode is not None:
            self.mode = Mode(self.mode)


class DemoTrainer(Trainer):
    @deprecate_kwarg("tokenizer", "0.16.0", new_name="processing_class")
    @_deprecate_arguments(version="0.13.0", deprecated_args=["packing"])
    def __init__(self, model, args=None, *, packing=False, max_len: int = -1, old_flag=None, **kwargs):
        if old_flag is not None:
            warnings.warn(f"The `old_flag` argument is deprecated, use {model} instead")


class ForwardTrainer(DemoTrainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


class _PrivateTrainer(Trainer):
    pass


def launch_command_parser(subparsers=None):
    parser = argparse.ArgumentParser()
    group = parser.add_argument_group()
    group.add_argument("--num_processes", "--nproc", type=int, help="How many.")
    group.add_argument("--cpu", action="store_true", help="Deprecated, ignored.")
    group.add_argument("--mode", choices=["a", "b"], type=str)
    return parser
)PY";
  const ModuleScan scan = scan_module("trl/trainer/demo.py", text);
  // The enum's values, each once; the field __post_init__ converts at any depth takes it.
  REQUIRE(scan.enums.size() == 1);
  CHECK(scan.enums[0].first == "Mode");
  CHECK(scan.enums[0].second == std::vector<std::string>{"fast", "slow"});
  REQUIRE(scan.dataclasses.size() == 1);
  const auto& cfg = scan.dataclasses[0];
  CHECK(cfg.enum_conversions == std::vector<std::pair<std::string, std::string>>{{"mode", "Mode"}});
  REQUIRE(cfg.fields.size() == 2);
  CHECK(cfg.fields[0].second.deprecated);  // "Deprecated:" as a word, followed by punctuation
  CHECK_FALSE(cfg.fields[0].second.choices_from_help);
  CHECK(cfg.fields[1].second.info.choices == std::vector<std::string>{"a", "b", "c"});  // through ", or"
  CHECK(cfg.fields[1].second.choices_from_help);
  // Trainers: the private one is left out; positions skip self and the bare `*`.
  REQUIRE(scan.trainers.size() == 2);
  const auto& demo = scan.trainers[0];
  CHECK(demo.name == "DemoTrainer");
  CHECK(demo.bases == std::vector<std::string>{"Trainer"});
  REQUIRE(demo.init);
  CHECK_FALSE(demo.init->forwards_all);
  const auto& ps = demo.init->params;
  REQUIRE(ps.size() == 6);
  CHECK((ps[0].name == "model" && ps[0].pos == 0 && ps[0].kind == "pos" && ps[0].required));
  CHECK((ps[1].name == "args" && ps[1].has_default && ps[1].default_value.kind == Scalar::Kind::Null));
  CHECK((ps[2].name == "packing" && ps[2].pos == 2 && ps[2].kind == "kw" && ps[2].deprecated));
  CHECK((ps[3].name == "max_len" && ps[3].default_value.i == -1 && !ps[3].deprecated));
  CHECK((ps[4].name == "old_flag" && ps[4].deprecated));  // the f-string's text around `{model}`
  CHECK((ps[5].name == "kwargs" && ps[5].kind == "varkw"));
  CHECK(demo.init->aliases == std::vector<std::pair<std::string, std::string>>{{"tokenizer", "processing_class"}});
  const auto& forward = scan.trainers[1];
  REQUIRE(forward.init);
  CHECK(forward.init->forwards_all);
  CHECK(forward.bases == std::vector<std::string>{"DemoTrainer"});
  // The imports a trainer's base is followed through.
  REQUIRE(scan.imports.size() == 4);
  CHECK((scan.imports[2].level == 1 && scan.imports[2].module == "utils"));
  CHECK(scan.imports[2].names == std::vector<std::pair<std::string, std::string>>{
                                     {"deprecate_kwarg", ""}, {"_deprecate_arguments", "deprecate_arguments"}});
  // accelerate launch's options, with their aliases, action, type, choices and help.
  REQUIRE(scan.options.size() == 3);
  CHECK(scan.options[0].names == std::vector<std::string>{"--num_processes", "--nproc"});
  CHECK((scan.options[0].has_type && scan.options[0].type == "int"));
  CHECK(scan.options[1].action == "store_true");
  CHECK(scan.options[1].help == "Deprecated, ignored.");
  CHECK((scan.options[2].has_choices && scan.options[2].choices == std::vector<std::string>{"a", "b"}));
}
