// TRL001 unknown-config-key: a trainer YAML key, launch-line flag, config keyword argument or
// accelerate YAML key that the target version does not accept.

#include <algorithm>
#include <optional>

#include "rules/rule.hpp"
#include "rules/support/rule_support.hpp"
#include "rules/support/yaml_scopes.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL001", "unknown-config-key", Severity::Error,
                     "A configuration key or argument the target version does not accept.",
                     R"(## What it does
Finds names nothing accepts, and suggests the nearest valid one:
- top-level keys of a trainer YAML passed with `--config` to a `TrlParser` script or the `trl`
  CLI, and `--flags` on its launch line, that are not fields of the script's dataclasses
  (the trainer config, `ScriptArguments`, `ModelConfig`, `DatasetMixtureConfig`). `env:` is always
  accepted; for the `trl` CLI so are `accelerate launch` options (`num_processes`,
  `accelerate_config`, ...), which it forwards to accelerate. Scripts with their own dataclasses,
  or that keep unknown arguments (`return_remaining_strings=True`), are not judged;
- keyword arguments of known config classes in Python (`SFTConfig(...)`, `ParallelismConfig(...)`);
- keyword arguments of TRL's trainers (`SFTTrainer(...)`), judged with the trainer's `__init__` at
  the target release, as the release history read it from TRL's source (0.9.3 on), or as the
  installed source of a release newer than the history defines it. A trainer whose `__init__`
  takes `**kwargs`, or that a patcher such as unsloth replaces, is not judged;
- keys of an accelerate config YAML, at the top level and under `fsdp_config`,
  `deepspeed_config`, `dynamo_config` and `parallelism_config`.

Renamed and removed names are TRL501/TRL502's business; a misspelled `parallelism_config` key
without the `parallelism_config_` prefix is TRL108's. Keys are judged with the field lists of the
target versions: the hand-checked lists for TRL 1.9.0, transformers 5.2.0 and accelerate 1.14.0
on, and for older releases (TRL 0.9.3 on, transformers 4.40.0 on: TrainingArguments, the base of
TRL's configs) the release history generated from the libraries' source, which also says when a
field came later (`GRPOConfig has it from TRL 0.26.0 on, not yet in 0.21.0`) or went earlier.
Older targets are not judged.

## Why is this bad?
`TrlParser` raises "Unknown arguments from config file" (TRL >= 0.19) or, in TRL's own scripts,
ignores the key silently; `HfArgumentParser` rejects an unknown flag; a config class raises
`TypeError` on an unknown keyword; accelerate raises on unknown top-level keys and silently
ignores unknown nested keys, so `fsdp_config: {fsdp_activation_checkpoint: true}` does nothing.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
learning_rate: 2.0e-5
gradient_checkpointing_kwarg:
  use_reentrant: false
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml
```

## Use instead
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
learning_rate: 2.0e-5
gradient_checkpointing_kwargs:
  use_reentrant: false
```

## References
- `trl/scripts/utils.py` (`TrlParser.parse_args_and_config`, v1.9.0)
- transformers `src/transformers/hf_argparser.py` (`parse_args_into_dataclasses`)
- accelerate `src/accelerate/commands/config/config_args.py` (`BaseConfig.from_yaml_file`: unknown
  keys raise) and `src/accelerate/commands/launch.py` (`_validate_launch_command`: nested keys are
  copied onto the launch arguments unchecked), v1.14.0
)"};

bool at_least(const VersionTargets& t, const Knowledge& k, const std::string& lib) {
  const LibraryReleases* r = k.library(lib);
  const VersionTarget& v = t.of(lib);
  return r && v.version &&
         (r->fields_complete_from.empty() || compare_versions(*v.version, r->fields_complete_from) >= 0);
}

// Where the history read a field of `cls` nearest `version`: its first range after it, else its last.
std::string source_of(const Knowledge& k, const ClassInfo& cls, const std::string& name, const std::string& version) {
  if (const ClassHistory* h = k.history(cls.name))
    if (auto it = h->fields.find(name); it != h->fields.end() && !it->second.empty()) {
      for (const auto& fs : it->second)
        if (compare_versions(fs.from, version) > 0) return fs.info.source;
      return it->second.back().info.source;
    }
  return cls.source;
}

bool is_old_name(const Knowledge& k, std::string_view name) {
  for (const auto& r : k.renames())
    if (!r.is_value && r.old_name == name) return true;
  return false;
}

// Every class of the derivation chain has a field list: the list is complete.
bool fully_described(const Knowledge& k, const ClassInfo& cls, int depth = 0) {
  if (cls.fields.empty() || depth > 16) return false;
  for (const auto& b : cls.bases) {
    const ClassInfo* base = k.find(b);
    if (!base || !fully_described(k, *base, depth + 1)) return false;
  }
  return true;
}

void all_fields(const Knowledge& k, const ClassInfo& cls, std::vector<std::string>& out, int depth = 0) {
  if (depth > 16) return;
  for (const auto& [name, f] : cls.fields) out.push_back(name);
  for (const auto& b : cls.bases)
    if (const ClassInfo* base = k.find(b)) all_fields(k, *base, out, depth + 1);
}

// `classes` and their bases, each once, the classes first: a base of another library
// (TrainingArguments) has its own history and target.
std::vector<const ClassInfo*> with_bases(const Knowledge& k, const std::vector<const ClassInfo*>& classes) {
  std::vector<const ClassInfo*> out(classes.begin(), classes.end());
  for (std::size_t i = 0; i < out.size() && i < 64; ++i)
    for (const auto& b : out[i]->bases)
      if (const ClassInfo* base = k.find(b); base && std::find(out.begin(), out.end(), base) == out.end())
        out.push_back(base);
  return out;
}

// For a name one of `classes` (or a base) has in another release than the target (per the release
// history): ": GRPOConfig has it from TRL 0.26.0 on, not in 0.21.0"; "" otherwise.
std::string release_note(const Knowledge& k, const std::vector<const ClassInfo*>& classes, const std::string& name,
                         const VersionTargets& t) {
  for (const ClassInfo* c : with_bases(k, classes)) {
    if (!rules::judged_by_history(k, *c, t)) continue;
    const std::string& version = *t.of(c->package).version;
    const std::string change = k.field_change(c->name, name, version);
    if (change.empty()) continue;
    const std::string lib = rules::library_display(c->package);
    if (change.rfind("added in ", 0) == 0)
      return ": " + c->name + " has it from " + lib + " " + change.substr(9) + " on, not yet in " + version;
    const std::size_t last = change.find("last in ");  // "removed in 0.20.0 (last in 0.19.1)"
    if (last == std::string::npos) continue;
    const std::string until = change.substr(last + 8, change.find(')', last) - last - 8);
    return ": " + c->name + " had it until " + lib + " " + until + ", not in " + version;
  }
  return "";
}

// The note citing where the release history read the field.
std::string release_source(const Knowledge& k, const std::vector<const ClassInfo*>& classes, const std::string& name,
                           const VersionTargets& t) {
  for (const ClassInfo* c : with_bases(k, classes)) {
    if (!rules::judged_by_history(k, *c, t)) continue;
    const std::string& version = *t.of(c->package).version;
    if (k.field_change(c->name, name, version).empty()) continue;
    return "judged with the field lists of " + rules::library_display(c->package) + " " + version + "; `" + name +
           "` read from " + source_of(k, *c, name, version);
  }
  return "";
}

// For a keyword `trainer`'s __init__ takes at other releases than `version` (per the release
// history): ": SFTTrainer has it from TRL 0.15.0 on, not yet in 0.12.0"; "" otherwise.
std::string trainer_release_note(const Knowledge& k, const std::string& trainer, const std::string& name,
                                 const std::string& version) {
  const TrainerHistory* th = k.trainer_history(trainer);
  if (!th) return "";
  auto it = th->params.find(name);
  if (it == th->params.end() || it->second.empty()) return "";
  for (const auto& ps : it->second)
    if (compare_versions(ps.from, version) > 0)
      return ": " + trainer + " has it from TRL " + ps.from + " on, not yet in " + version;
  return ": " + trainer + " had it until TRL " + it->second.back().to + ", not in " + version;
}

std::string class_list(const std::vector<const ClassInfo*>& classes) {
  std::string out;
  for (std::size_t i = 0; i < classes.size(); ++i)
    out += (i ? (i + 1 == classes.size() ? " or " : ", ") : "") + classes[i]->name;
  return out;
}

class UnknownConfigKey final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  // Trainer YAML keys and flags of TrlParser runs. Several runs may read one YAML, a keyword may
  // be written in a dict two calls read, and a launch's accelerate YAML is judged as a file too:
  // one finding per place (merge key).
  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    const Knowledge& k = Knowledge::get();
    if (!run.args_from_parser || !run.parser_classes_complete || run.parser_keeps_unknown || run.parser_classes.empty())
      return;
    const VersionTargets& t = context.targets(run);
    if (!rules::fields_known_at(k, t, "trl") || !rules::fields_known_at(k, t, "transformers")) return;
    const bool trl_cli = run.launch && run.launch->launcher == Launcher::Trl;
    // Each class as the target release has it. A parser class the release did not have keeps its
    // newest fields: more known names, never a false report.
    std::vector<const ClassInfo*> classes;
    for (const ClassInfo* c : run.parser_classes) {
      const ClassInfo* at = rules::class_at_target(context, k, *c, t);
      classes.push_back(at ? at : c);
    }
    // Every field name, for "did you mean": gathered only when a key is reported.
    std::vector<std::string> names;
    bool names_gathered = false;
    auto field_names = [&]() -> const std::vector<std::string>& {
      if (!names_gathered)
        for (const ClassInfo* c : classes) all_fields(k, *c, names);
      names_gathered = true;
      return names;
    };
    for (const auto& [key, s] : run.args) {
      if (s.origin != Origin::TrainerYaml && s.origin != Origin::CommandLine) continue;
      bool known = false;
      for (const ClassInfo* c : classes)
        known = known || k.field(*c, key) || k.patched_accepts(run.patched_by, *c, key);
      // Fields of the script's own @dataclass classes the parser also fills.
      known = known || std::find(run.user_fields.begin(), run.user_fields.end(), key) != run.user_fields.end();
      if (known || is_old_name(k, key) || key == "env") continue;
      if (trl_cli && (k.launch_flag(key) || key == "accelerate_config")) continue;
      if (!trl_cli && s.origin == Origin::CommandLine && key.rfind("no_", 0) == 0) continue;
      Span at = rules::find_word(context, s.span, key);
      if (!at.valid()) at = s.span;
      const bool yaml = s.origin == Origin::TrainerYaml;
      const std::string change = release_note(k, run.parser_classes, key, t);
      Diagnostic d = make_merged(at, std::string(yaml ? "trainer YAML key" : "flag") + " `" + key +
                                         "` is not an argument of " + class_list(run.parser_classes) +
                                         "; judged against " + rules::judged_against(k, t) + change);
      if (k.launch_flag(key)) {
        d.notes.push_back("`" + key +
                          "` is an `accelerate launch` option: the script's argument parser does not read it");
        d.help = "pass `--" + key + "` to `accelerate launch` instead";
      } else if (!change.empty()) {
        d.notes.push_back(release_source(k, run.parser_classes, key, t));
      } else if (auto near = rules::nearest(key, field_names()); !near.empty()) {
        d.help = "did you mean `" + near + "`?";
      }
      if (const std::string installed = rules::installed_source_note(k, classes); !installed.empty())
        d.notes.push_back(installed);
      d.notes.push_back(yaml ? "TrlParser raises \"Unknown arguments from config file\" (TRL >= 0.19); TRL's own "
                               "scripts ignore the key silently"
                             : "HfArgumentParser raises on arguments no dataclass takes");
      if (run.launch) d.related.push_back({run.launch->span, "read by this launch", true});
      out.push_back(std::move(d));
    }
  }

  // Keyword arguments of known config classes in Python.
  void check_script(const RuleContext& context, FileId file, const ScriptSummary& summary,
                    std::vector<Diagnostic>& out) const override {
    const Knowledge& k = Knowledge::get();
    const VersionTargets& t = context.targets(file);
    for (const Construction& c : summary.constructions) {
      if (!c.cls) continue;
      const ClassRole role = c.cls->role;
      if (role == ClassRole::Trainer) {
        check_trainer(context, c, t, out);
        continue;
      }
      if (role != ClassRole::TrainerConfig && role != ClassRole::ParallelismConfig && role != ClassRole::ModelConfig &&
          role != ClassRole::ScriptArgs)
        continue;
      if (!fully_described(k, *c.cls)) continue;
      if (!rules::fields_known_at(k, t, c.cls->package) ||
          (c.cls->package == "trl" && !rules::fields_known_at(k, t, "transformers")))
        continue;
      const ClassInfo* cls = rules::class_at_target(context, k, *c.cls, t);
      if (!cls) continue;              // the target release has no such class: not this rule's business
      std::vector<std::string> names;  // gathered at the first keyword reported
      for (const Member& kw : c.keywords) {
        if (k.field(*cls, kw.name) || is_old_name(k, kw.name) || k.patched_accepts(c.patched_by, *c.cls, kw.name))
          continue;
        if (names.empty()) all_fields(k, *cls, names);
        Span at = rules::find_word(context, kw.set_at, kw.name);
        if (!at.valid()) at = kw.set_at;
        const std::string change = release_note(k, {c.cls}, kw.name, t);
        const std::string judged =
            c.cls->package == "trl" ? rules::judged_against(k, t) : t.of(c.cls->package).describe();
        Diagnostic d = make_merged(
            at, "`" + kw.name + "` is not an argument of " + c.cls->name + "; judged against " + judged + change);
        if (!change.empty())
          d.notes.push_back(release_source(k, {c.cls}, kw.name, t));
        else if (auto near = rules::nearest(kw.name, names); !near.empty())
          d.help = "did you mean `" + near + "`?";
        if (const std::string installed = rules::installed_source_note(k, {cls}); !installed.empty())
          d.notes.push_back(installed);
        d.notes.push_back(c.cls->name + "(...) raises TypeError: unexpected keyword argument");
        out.push_back(std::move(d));
      }
    }
  }

  // Keyword arguments of TRL's trainers, against the trainer's __init__ at the target release.
  void check_trainer(const RuleContext& context, const Construction& c, const VersionTargets& t,
                     std::vector<Diagnostic>& out) const {
    const Knowledge& k = Knowledge::get();
    if (c.cls->package != "trl" || !c.patched_by.empty()) return;
    const VersionTarget& target = t.of("trl");
    if (!target.version) return;
    // The installed source of a release newer than the knowledge, else the release history.
    auto accepted = context.installed_trainer_keywords(*c.cls, t);
    if (!accepted) accepted = k.trainer_keywords(c.cls->name, *target.version);
    if (!accepted) return;
    // The trainer's config class as the target release has it, looked up at the first keyword
    // reported: a keyword that is one of its fields belongs in `args=`.
    std::optional<const ClassInfo*> config;
    auto config_class = [&]() -> const ClassInfo* {
      if (!config) {
        const ClassInfo* named = nullptr;
        for (const auto& [name, cls] : k.classes())
          if (cls.role == ClassRole::TrainerConfig && !cls.trainer.empty() && cls.trainer == c.cls->trainer)
            named = &cls;
        config = named ? rules::class_at_target(context, k, *named, t) : nullptr;
      }
      return *config;
    };
    // Read from an installed source: the history says nothing of that release.
    const bool installed = !target.installed_site.empty() && newer_than_knowledge(k, target);
    const auto& names = accepted->names;
    for (const Member& kw : c.keywords) {
      if (std::find(names.begin(), names.end(), kw.name) != names.end() || is_old_name(k, kw.name)) continue;
      Span at = rules::find_word(context, kw.set_at, kw.name);
      if (!at.valid()) at = kw.set_at;
      const std::string change = installed ? "" : trainer_release_note(k, c.cls->name, kw.name, *target.version);
      Diagnostic d = make_merged(at, "`" + kw.name + "` is not an argument of " + c.cls->name + "; judged against " +
                                         target.describe() + change);
      if (const ClassInfo* config = config_class(); config && k.field(*config, kw.name))
        d.help = "`" + kw.name + "` is a field of " + config->name + ": set it in the " + config->name +
                 " passed as `args=`";
      else if (change.empty())
        if (auto near = rules::nearest(kw.name, names); !near.empty()) d.help = "did you mean `" + near + "`?";
      d.notes.push_back(c.cls->name + "(...) raises TypeError: unexpected keyword argument");
      d.notes.push_back("the arguments of " + c.cls->name + ".__init__ read from " + accepted->source);
      if (target.pin.valid()) d.related.push_back({target.pin, "version pinned here"});
      out.push_back(std::move(d));
    }
  }

  // accelerate config YAMLs: the ones launches use, and files that are clearly accelerate configs.
  void check_file(const RuleContext& context, FileId id, const FileUses& uses,
                  std::vector<Diagnostic>& out) const override {
    const Knowledge& k = Knowledge::get();
    if (!rules::is_accelerate_yaml(context, id, uses)) return;
    const YamlNode* root = context.yaml_root(id);
    if (const YamlEntry* ce = root->find("compute_environment");
        ce && ce->value->kind == YamlNode::Kind::Scalar && ce->value->scalar.yaml() != "LOCAL_MACHINE")
      return;  // SageMaker configs have other keys
    const VersionTargets& t = context.targets(id);
    if (!at_least(t, k, "accelerate")) return;
    check_section(context, *root, "accelerate_yaml", "", t, out);
    for (const auto& e : root->entries) {
      if (e.value->kind != YamlNode::Kind::Mapping) continue;
      if (e.key == "fsdp_config") check_section(context, *e.value, "fsdp_config", "fsdp_", t, out);
      if (e.key == "deepspeed_config") check_section(context, *e.value, "deepspeed_config", "", t, out);
      if (e.key == "dynamo_config") check_section(context, *e.value, "dynamo_config", "dynamo_", t, out);
      if (e.key == "parallelism_config") check_section(context, *e.value, "parallelism_config", "", t, out);
    }
  }

 private:
  void check_section(const RuleContext&, const YamlNode& map, const char* section, const std::string& prefix,
                     const VersionTargets& t, std::vector<Diagnostic>& out) const {
    const Knowledge& k = Knowledge::get();
    const auto* keys = k.accelerate_section(section);
    if (!keys) return;
    std::vector<std::string> names;
    for (const auto& [name, f] : *keys) names.push_back(name);
    const bool top = std::string(section) == "accelerate_yaml";
    for (const auto& e : map.entries) {
      std::string key = e.key;
      // launch prepends the section prefix when missing (fsdp_, dynamo_).
      if (!prefix.empty() && key.rfind(prefix, 0) != 0) key = prefix + key;
      if (keys->count(key)) continue;
      if (std::string(section) == "parallelism_config" && key.rfind("parallelism_config_", 0) != 0) continue;  // TRL108
      Diagnostic d = make_merged(
          e.key_span,
          top ? "unknown accelerate config key `" + e.key + "`; judged against " + t.accelerate.describe()
              : "unknown key `" + e.key + "` under `" + section + "`; judged against " + t.accelerate.describe());
      if (auto near = rules::nearest(key, names); !near.empty()) d.help = "did you mean `" + near + "`?";
      d.notes.push_back(top ? "accelerate raises ValueError on unknown top-level keys when it loads the config"
                            : "accelerate copies nested keys onto the launch arguments unchecked: this one is "
                              "silently ignored");
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_unknown_config_key() {
  return std::make_unique<UnknownConfigKey>();
}

}  // namespace trl
