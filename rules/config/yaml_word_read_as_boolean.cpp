// TRL003 yaml-word-read-as-boolean: an unquoted yes/no/on/off that PyYAML turns into a boolean
// where the field expects one of its string choices (`mixed_precision: no`).

#include <algorithm>

#include "rules/rule.hpp"
#include "rules/support/rule_support.hpp"
#include "rules/support/yaml_scopes.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL003", "yaml-word-read-as-boolean", Severity::Error,
                     "An unquoted yes/no/on/off becomes a boolean where a string is expected.",
                     R"(## What it does
Finds unquoted `yes`, `no`, `on` and `off` (any case) as the value of a field whose accepted
values are strings that include that word: accelerate's `mixed_precision: no` and
`distributed_type: NO`, the trainer's `eval_strategy: no`, `save_strategy: no` and
`logging_strategy: no`. Fields that map booleans to a value themselves
(`include_num_input_tokens_seen`, GRPO's `scale_rewards`) and fields typed bool
(`downcast_bf16: no`) are not reported: there the boolean is what the author meant. Nor is
`distributed_type: NO` in a config that sets `num_processes` (or launched with `--num_processes`):
as False it matches no distributed type, so `accelerate launch` runs the script once, as NO
would; without a number of processes, NO would have set 1 and False sets nothing, and launch
stops.

## Why is this bad?
PyYAML follows YAML 1.1, where these words are booleans. `mixed_precision: no` loads as `False`
and `accelerate launch` fails with `AttributeError: 'bool' object has no attribute 'lower'`;
`eval_strategy: no` reaches `TrainingArguments` as `False` and fails its enum conversion (argparse
converts only string defaults, so `TrlParser` does not help).

## Example
```yaml
# recipes/accelerate.yaml
distributed_type: MULTI_GPU
num_processes: 2
mixed_precision: no
```
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml --accelerate_config recipes/accelerate.yaml
```

## Use instead
```yaml
# recipes/accelerate.yaml
distributed_type: MULTI_GPU
num_processes: 2
mixed_precision: 'no'
```

## Fix
Safe: quotes the value. None for a value that carries an anchor (`mixed_precision: &off no`): the
aliases that reuse it (`downcast_bf16: *off`) may want the boolean.

## References
- PyYAML `lib/yaml/resolver.py` (6.0.3), the implicit bool resolver
- accelerate `src/accelerate/commands/launch.py` (v1.14.0: `PrecisionType(args.mixed_precision.lower())`)
- transformers `src/transformers/training_args.py` (`IntervalStrategy(self.eval_strategy)`)
)"};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Whether the mapping at the top of the document holding `u.entry` also has `key`.
bool top_level_sibling(const RuleContext& context, const rules::YamlKeyUse& u, const char* key) {
  for (const auto& doc : context.yaml(u.file)) {
    if (!doc.root || doc.root->kind != YamlNode::Kind::Mapping) continue;
    for (const auto& e : doc.root->entries)
      if (&e == u.entry) return doc.root->find(key) != nullptr;
  }
  return false;
}

// Whether the file is the accelerate config of some launch, and each launch that uses it passes
// `--num_processes`.
bool every_launch_sets_processes(const FileUses& uses) {
  return !uses.accelerate.empty() && std::all_of(uses.accelerate.begin(), uses.accelerate.end(),
                                                 [](const AccelerateUse& a) { return a.sets_num_processes; });
}

class YamlWordReadAsBoolean final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  // Several runs may read one YAML: one finding per place (merge key).
  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    rules::for_each_run_yaml_key(context, run, [&](const rules::YamlKeyUse& u) { judge(context, u, {}, out); });
  }
  void check_file(const RuleContext& context, FileId file, const FileUses& uses,
                  std::vector<Diagnostic>& out) const override {
    rules::for_each_accelerate_yaml_key(context, file, uses,
                                        [&](const rules::YamlKeyUse& u) { judge(context, u, uses, out); });
  }

 private:
  // One key's value; `uses`: the launches that read the file, for an accelerate config.
  void judge(const RuleContext& context, const rules::YamlKeyUse& u, const FileUses& uses,
             std::vector<Diagnostic>& out) const {
    const YamlNode& v = *u.entry->value;
    if (v.kind != YamlNode::Kind::Scalar || v.style != ScalarStyle::Plain || v.tagged ||
        v.scalar.kind != Scalar::Kind::Bool)
      return;
    const std::string word = lower(v.raw);
    if (word != "yes" && word != "no" && word != "on" && word != "off") return;
    if (u.field->type != "str" || u.field->accepts_bool) return;
    auto choice = std::find_if(u.field->choices.begin(), u.field->choices.end(),
                               [&](const std::string& c) { return lower(c) == word; });
    if (choice == u.field->choices.end()) return;
    // `distributed_type: NO` as False: no DistributedType equals it, so launch_command picks
    // simple_launcher, which is what NO asks for. It only fails where NO would set a default:
    // without `num_processes`, process_config sets 1 for NO only (False == "NO" is false), and
    // launch raises "You need to manually pass in `--num_processes`" (accelerate v1.14
    // commands/config/config_args.py process_config, commands/launch.py).
    // `accelerate launch --num_processes N` gives the number too (launch copies the config's
    // value only where the flag is None).
    if (u.reader == rules::YamlReader::Accelerate && u.entry->key == "distributed_type" && !v.scalar.b &&
        (top_level_sibling(context, u, "num_processes") || every_launch_sets_processes(uses)))
      return;
    Diagnostic d = make_merged(v.span, "PyYAML reads `" + u.entry->key + ": " + v.raw + "` as the boolean " +
                                           (v.scalar.b ? "True" : "False") + ", not the string '" + *choice + "'");
    d.label = "a boolean for PyYAML";
    if (u.reader == rules::YamlReader::Accelerate && u.entry->key == "mixed_precision")
      d.notes.push_back("`accelerate launch` calls .lower() on it: AttributeError before training starts");
    else if (u.reader == rules::YamlReader::Accelerate && u.entry->key == "distributed_type")
      d.notes.push_back(
          "as False it sets no default number of processes, as NO would (1): `accelerate launch` "
          "raises \"You need to manually pass in `--num_processes` using this config yaml\"");
    else if (u.reader == rules::YamlReader::Accelerate)
      d.notes.push_back("accelerate expects one of its string values here and fails on a boolean");
    else
      d.notes.push_back("the config receives a bool where it converts the value to an enum: ValueError at start");
    if (u.run && u.run->launch) d.related.push_back({u.run->launch->span, "read by this launch", true});
    const std::string quoted = "'" + *choice + "'";
    d.help = "quote it: `" + u.entry->key + ": " + quoted + "`";
    if (v.anchored) {
      // `mixed_precision: &off no` with `downcast_bf16: *off`: quoting here would turn the
      // aliases into the string too.
      d.notes.push_back("the value carries an anchor that aliases reuse: quote it by hand where a string is meant");
    } else {
      Fix fix;
      fix.title = "Quote the value";
      fix.edits.push_back({v.span, quoted});
      d.fixes.push_back(std::move(fix));
    }
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_yaml_word_read_as_boolean() {
  return std::make_unique<YamlWordReadAsBoolean>();
}

}  // namespace trl
