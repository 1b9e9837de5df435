// TRL109 double-activation-checkpointing (error)
//
// transformers Trainer.create_accelerator_and_postprocess raises when the FSDP plugin has
// activation_checkpointing and TrainingArguments.gradient_checkpointing is True. TRL configs
// default gradient_checkpointing to True (trl/trainer/base_config.py), so an FSDP YAML with
// fsdp_activation_checkpointing: true fails with every TRL trainer unless it is turned off.

#include "analyzer/eval/version_target.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

// TRL's configs override TrainingArguments' `gradient_checkpointing=False` with True from
// v0.22.0 (trl/trainer/*_config.py; absent in v0.21.0).
constexpr std::string_view kTrlDefaultTrueSince = "0.22.0";

const RuleInfo kInfo{"TRL109", "double-activation-checkpointing", Severity::Error,
                     "FSDP activation checkpointing together with gradient_checkpointing.",
                     R"(## What it does
Finds FSDP runs with `fsdp_activation_checkpointing: true` in the accelerate config while the
trainer's `gradient_checkpointing` is true. TRL's configs default `gradient_checkpointing` to
`True`, so leaving it unset counts.

## Why is this bad?
The transformers Trainer raises `ValueError: The activation_checkpointing in FSDP config and the
gradient_checkpointing in training arg can't be set to True simultaneously` when it builds the
Accelerator, at start-up.

## Example
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_activation_checkpointing: true
  fsdp_version: 2
num_processes: 2
```
```yaml
# recipes/sft.yaml
# gradient_checkpointing not set: TRL's default is true since 0.22.0
model_name_or_path: Qwen/Qwen2.5-0.5B
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml --accelerate_config recipes/accelerate.yaml
```
Runs whose target TRL is older than 0.22.0, or unknown, are judged only when they set
`gradient_checkpointing` themselves.

## Use instead
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
gradient_checkpointing: false   # let FSDP checkpoint activations
```

## References
- transformers `src/transformers/trainer.py` `create_accelerator_and_postprocess`
- trl `trl/trainer/base_config.py` (`gradient_checkpointing=True`, v1.0+; TRL configs since v0.22)
)"};

// transformers' Trainer (create_accelerator_and_postprocess) replaces the FSDP plugin's
// activation_checkpointing with the trainer's own `fsdp_config.activation_checkpointing` before it
// checks (TrainingArguments strips an `fsdp_` prefix from fsdp_config keys). True when the
// trainer leaves it alone, or sets it to true: a trainer fsdp_config we cannot read, or one that
// sets it otherwise, is not judged.
bool trainer_keeps_plugin_value(const TrainingRun& run, const RuleContext& context) {
  auto set = run.args.find("fsdp_config");  // explicitly set (arg() would give the default)
  if (set == run.args.end()) return true;
  const Setting& fc = set->second;
  const std::vector<YamlDocument>& docs = context.yaml(run.trainer_yaml);
  if (fc.origin != Origin::TrainerYaml || run.trainer_yaml_doc >= docs.size()) return false;
  const YamlNode* root = docs[run.trainer_yaml_doc].root.get();
  const YamlEntry* cfg = root && root->kind == YamlNode::Kind::Mapping ? root->find("fsdp_config") : nullptr;
  if (!cfg || cfg->value->kind != YamlNode::Kind::Mapping) return false;  // a JSON file's path, or null
  const YamlEntry* ac = cfg->value->find("activation_checkpointing");
  if (!ac) ac = cfg->value->find("fsdp_activation_checkpointing");
  if (!ac) return true;
  return ac->value->kind == YamlNode::Kind::Scalar && ac->value->scalar.kind == Scalar::Kind::Bool &&
         ac->value->scalar.b;
}

class DoubleActivationCheckpointing final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    const AccelerateSettings& a = run.accelerate;
    if (!a.launched || !support::is_str(a.distributed_type, "FSDP") ||
        a.fsdp_activation_checkpointing.truth() != Truth::True)
      return;
    const Setting gc = run.arg("gradient_checkpointing");
    if (gc.truth() != Truth::True) return;
    if (!trainer_keeps_plugin_value(run, context)) return;
    const bool by_default = !gc.span.valid();
    std::string judged;
    if (by_default && run.config_class && run.config_class->package == "trl") {
      // The default is True only from TRL 0.22.0: older or unknown targets are not judged.
      const auto trl = rules::trl_target_at_least(context, run, kTrlDefaultTrueSince);
      if (!trl) return;
      judged =
          "judged against " + trl->describe() + ": TRL configs default `gradient_checkpointing` to True since 0.22.0";
    }
    Diagnostic d = make(support::primary_span(run, {&gc, &a.fsdp_activation_checkpointing}),
                        std::string("`gradient_checkpointing` is true") +
                            (by_default ? " (the " + support::trainer_name(run) + " default)" : "") +
                            " while the accelerate config sets `fsdp_activation_checkpointing: true`");
    d.label = by_default ? "FSDP activation checkpointing enabled here" : "gradient_checkpointing set here";
    if (!by_default) support::relate(d, a.fsdp_activation_checkpointing, "FSDP activation checkpointing enabled here");
    support::relate_launch(d, run);
    d.notes.push_back("the transformers Trainer raises ValueError at start-up: both can't be True simultaneously");
    if (!judged.empty()) d.notes.push_back(judged);
    d.help =
        "set `gradient_checkpointing: false` in the trainer config (FSDP then checkpoints activations), or "
        "`fsdp_activation_checkpointing: false`";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_double_activation_checkpointing() {
  return std::make_unique<DoubleActivationCheckpointing>();
}

}  // namespace trl
