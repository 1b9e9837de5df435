// TRL205 packing-without-max-length (error)
//
// SFTTrainer._prepare_dataset (trl/trainer/sft_trainer.py@v1.9.0): "When packing is enabled,
// `max_length` can't be `None`." SFTTrainer.__init__ (same file, v1.9.0 ~L1252-1285; v0.16.0 L192-206,
// v0.19.0 L464-480 alike) prepares the datasets only when `dataset_kwargs` does not hold
// `skip_prepare_dataset: True`, and the eval dataset (packed when `eval_packing`, else `packing`)
// only when `eval_dataset is not None`.

#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL205", "packing-without-max-length", Severity::Error,
                     "SFT packing with `max_length: null`: dataset preparation raises.",
                     R"(## What it does
Finds SFT runs with `packing: true` (or `eval_packing: true`) and `max_length: null`.

`eval_packing` packs only the eval dataset, which the trainer prepares only when one is passed: it
is judged when the trainer call passes an `eval_dataset` that is certainly not None (a dataset
the datasets library loaded, a split or a transform of one: `eval_dataset=ds["test"]` after
`ds = load_dataset(...)`), never for a `trl sft` launch or a value that may be None (from a
helper trl-lint cannot follow, or `x if c else None`).
Nothing is reported when `dataset_kwargs` may hold `skip_prepare_dataset: true` (any value other
than the default None): dataset preparation, and its check, are then skipped.

## Why is this bad?
Packing fills rows up to `max_length`. `SFTTrainer` raises `ValueError: When packing is enabled,
max_length can't be None` while preparing the dataset, after the model has loaded.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
packing: true
max_length: null
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
max_length: 4096
```

## References
- trl `trl/trainer/sft_trainer.py` `_prepare_dataset` (v0.16.0+); `SFTTrainer.__init__`
  (`skip_prepare_dataset`, `if eval_dataset is not None`, v1.9.0)
)"};

// True when every SFT trainer call of the run's script passes an eval dataset that is not None.
bool passes_eval_dataset(const RuleContext& context, const TrainingRun& run) {
  const std::vector<Construction> calls = context.trainer_calls(run, "SFTTrainer");
  if (calls.empty()) return false;
  for (const Construction& c : calls)
    if (rules::keyword_passed(c, "eval_dataset") != rules::Passed::Value) return false;
  return true;
}

class PackingWithoutMaxLength final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!run.is_sft_family()) return;
    const Setting max_length = run.arg("max_length");
    if (!max_length.known() || max_length.value.kind != Scalar::Kind::Null) return;
    // dataset_kwargs={"skip_prepare_dataset": True} skips the preparation that raises; a dict (or
    // an unknown value) may hold it.
    const Setting dataset_kwargs = run.arg("dataset_kwargs");
    if (!dataset_kwargs.known() || dataset_kwargs.value.kind != Scalar::Kind::Null) return;
    for (const char* field : {"packing", "eval_packing"}) {
      const Setting on = run.arg(field);
      if (on.truth() != Truth::True) continue;
      if (std::string_view(field) == "eval_packing" && !passes_eval_dataset(context, run)) continue;
      Diagnostic d = make(support::primary_span(run, {&on, &max_length}),
                          "`" + std::string(field) + "` requires a `max_length`, but it is null");
      d.label = std::string(field) + " enabled here (" + on.origin_text() + ")";
      support::relate(d, max_length, "max_length: null");
      support::relate_launch(d, run);
      d.notes.push_back(std::string("SFTTrainer raises ValueError while preparing the ") +
                        (std::string_view(field) == "eval_packing" ? "eval " : "") +
                        "dataset, after the model has loaded");
      d.help = "set `max_length` (e.g. 4096), or turn packing off";
      out.push_back(std::move(d));
      break;
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_packing_without_max_length() {
  return std::make_unique<PackingWithoutMaxLength>();
}

}  // namespace trl
