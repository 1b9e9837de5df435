// TRL005 invalid-choice: a value outside the accepted set of a field (packing_strategy,
// truncation_mode, loss_type, eval/save/logging strategy, distributed_type, mixed_precision, ...).

#include <algorithm>
#include <cctype>
#include <set>

#include "rules/rule.hpp"
#include "rules/support/rule_support.hpp"
#include "rules/support/yaml_scopes.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL005", "invalid-choice", Severity::Error, "A value outside the set the field accepts.",
                     R"(## What it does
Finds a string value that is not one of the values a field accepts, in the effective trainer
arguments (trainer YAML, launch line, Python) and in accelerate config YAMLs:
`packing_strategy`, `truncation_mode`, `loss_type`, `eval_strategy`, `save_strategy`,
`logging_strategy`, `lr_scheduler_type`, `optim`, `vllm_mode`, `distributed_type`,
`mixed_precision`, `fsdp_auto_wrap_policy`, `fsdp_state_dict_type`, ... and suggests the accepted
value meant ("did you mean `colocate`?"): the one that differs only in case or in `-` for `_`
(`DAPO` -> `dapo`), else the nearest one when it is close (`colocated` -> `colocate`); with
`--fix --unsafe-fixes` the value is replaced by it (unsafe: the run then trains with a value the
file did not say). A value that a library the script imports makes valid is not reported (see
`rules/knowledge/patchers.yaml`: `sequence_token` with `trl.experimental.gspo_token`). A field
checked only when it is used is reported only then: `packing_strategy`
when packing is on, `vllm_mode` when `use_vllm` is on, SFT `loss_type` without Liger. Values a
newer release renamed are TRL503's; booleans from `no`/`off` are TRL003's. Judged with the
value lists of the target versions: the hand-checked lists for TRL 1.9.0 and transformers 5.2.0
on, and for older releases (TRL 0.9.3 on, transformers 4.40.0 on) the release history generated
from the libraries' source (metadata `choices`, `Literal` annotations, help text that says "must
be one of", and the enum `TrainingArguments.__post_init__` converts a field to: `save_strategy:
best` before transformers 4.47.0). Older targets are not judged.

## Why is this bad?
Some values fail at start (`TrainingArguments` enums, `accelerate launch`), but many are checked
only deep inside the trainer: an unknown `packing_strategy` raises while the dataset is packed,
an unknown GRPO `loss_type` in the first loss computation, after the model has loaded and the
first generations have run.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
packing: true
packing_strategy: best_fit
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml
```

## Use instead
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
packing: true
packing_strategy: bfd
```

## References
- `trl/trainer/sft_config.py`, `grpo_config.py`, `dpo_config.py` (v1.9.0: field metadata `choices`)
- `trl/data_utils.py` (`pack_dataset`: unknown strategy raises), `trl/trainer/grpo_trainer.py`
  (`compute_loss`: "Unknown loss type")
- transformers `src/transformers/training_args.py` (enum conversions in `__post_init__`)
- accelerate `src/accelerate/utils/dataclasses.py` (`DistributedType`, `PrecisionType`) (v1.14.0)
)"};

class InvalidChoice final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  // Several runs may read one YAML, and a launch's accelerate YAML is judged as a file too:
  // one finding per place (merge key).
  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    const Knowledge& k = Knowledge::get();
    std::vector<const ClassInfo*> given = run.parser_classes;
    if (given.empty() && run.config_class) given.push_back(run.config_class);
    if (given.empty()) return;
    const VersionTargets& t = context.targets(run);
    if (!rules::fields_known_at(k, t, "trl") || !rules::fields_known_at(k, t, "transformers")) return;
    // Each class as the target release has it (a class the release did not have: not judged).
    std::vector<const ClassInfo*> classes;
    for (const ClassInfo* c : given)
      if (const ClassInfo* at = rules::class_at_target(context, k, *c, t)) classes.push_back(at);
    for (const auto& [key, s] : run.args) {
      if (!s.known() || s.value.kind != Scalar::Kind::Str || !s.span.valid()) continue;
      const FieldInfo* f = nullptr;
      for (const ClassInfo* c : classes)
        if (!f) f = k.field(*c, key);
      if (!f || f->choices.empty() || f->type == "list") continue;
      if (std::find(f->choices.begin(), f->choices.end(), s.value.s) != f->choices.end()) continue;
      bool patched = false;  // a library imported before the config was built accepts it
      for (const ClassInfo* c : classes) patched = patched || k.patched_value(run.patched_by, *c, key, s.value.s);
      if (patched) continue;
      if (renamed_value(k, run, key, s.value.s)) continue;  // TRL503
      if (!used(run, key)) continue;
      Span at = rules::find_word(context, s.span, s.value.s, true);
      if (!at.valid()) at = s.span;
      Diagnostic d = make_merged(
          at, "`" + key + ": " + s.value.s + "` is not one of the accepted values (" + join(f->choices) + ")");
      d.label = "set here (" + s.origin_text() + ")";
      suggest(d, at, context, s.value.s, f->choices);
      if (!f->source.empty()) d.notes.push_back("source: " + f->source);
      const bool transformers_history = rules::history_judges(k, t, "transformers");
      if (rules::judged_by_history(k, *given.front(), t) || transformers_history)
        d.notes.push_back(
            "judged against " + rules::judged_against(k, t) +
            (transformers_history ? ", with those releases' field lists" : ", with that release's field lists"));
      if (run.launch) d.related.push_back({run.launch->span, "used by this launch", true});
      out.push_back(std::move(d));
    }
  }

  void check_file(const RuleContext& context, FileId file, const FileUses& uses,
                  std::vector<Diagnostic>& out) const override {
    rules::for_each_accelerate_yaml_key(context, file, uses, [&](const rules::YamlKeyUse& u) {
      if (u.field->choices.empty()) return;
      const YamlNode& v = *u.entry->value;
      if (v.kind != YamlNode::Kind::Scalar || v.tagged) return;
      if (v.scalar.kind != Scalar::Kind::Str && v.scalar.kind != Scalar::Kind::Int) return;
      const std::string value = v.scalar.kind == Scalar::Kind::Str ? v.scalar.s : std::to_string(v.scalar.i);
      if (std::find(u.field->choices.begin(), u.field->choices.end(), value) != u.field->choices.end()) return;
      Diagnostic d = make_merged(v.span, "`" + u.entry->key + ": " + value + "` is not one of the accepted values (" +
                                             join(u.field->choices) + ")");
      suggest(d, v.span, context, value, u.field->choices);
      d.notes.push_back("accelerate rejects it when it loads the config or builds the plugin");
      out.push_back(std::move(d));
    });
  }

 private:
  // The accepted value the user most likely meant: the one that differs only in case or in `-`
  // for `_` (`DAPO`, `bfd-split`), else the nearest by edit distance (`colocated`). Offered as
  // help, and as an unsafe fix when the value is written as a plain word at `at`: the run then
  // does something else than the (failing) one written.
  static void suggest(Diagnostic& d, Span at, const RuleContext& context, const std::string& value,
                      const std::vector<std::string>& choices) {
    auto fold = [](std::string_view x) {
      std::string out(x);
      for (auto& c : out) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return out;
    };
    std::string near;
    for (const auto& c : choices)
      if (fold(c) == fold(value)) {
        if (!near.empty()) return;  // two choices fold the same: no guess
        near = c;
      }
    if (near.empty()) near = rules::nearest(value, choices);
    if (near.empty() || near == value) return;
    d.help = "did you mean `" + near + "`?";
    if (at.valid() && rules::span_text(context, at) == value) {
      Fix fix;
      fix.title = "Replace `" + value + "` with `" + near + "`";
      fix.edits.push_back({at, near});
      fix.safe = false;
      d.fixes.push_back(std::move(fix));
    }
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
    return out;
  }

  static bool renamed_value(const Knowledge& k, const TrainingRun& run, const std::string& field,
                            const std::string& value) {
    for (const auto& r : k.renames())
      if (r.is_value && r.field == field && r.old_value.kind == Scalar::Kind::Str && r.old_value.s == value &&
          (!run.config_class || k.derives_from(*run.config_class, r.cls)))
        return true;
    return false;
  }

  // Fields validated only when the feature that reads them is on.
  static bool used(const TrainingRun& run, const std::string& field) {
    if (field == "packing_strategy")
      return run.arg("packing").truth() == Truth::True || run.arg("eval_packing").truth() == Truth::True;
    if (field == "vllm_mode") return run.arg("use_vllm").truth() == Truth::True;
    if (field == "loss_type" && run.is_sft_family()) {
      const Setting liger = run.arg("use_liger_kernel");
      return liger.truth() == Truth::False;
    }
    if (field == "truncation_mode") {
      const Setting max_length = run.arg("max_length");
      return max_length.known() && max_length.value.kind != Scalar::Kind::Null;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Rule> make_invalid_choice() {
  return std::make_unique<InvalidChoice>();
}

}  // namespace trl
