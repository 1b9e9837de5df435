// TRL205 packing-without-max-length (error)
//
// SFTTrainer._prepare_dataset (trl/trainer/sft_trainer.py@v1.9.0): "When packing is enabled,
// `max_length` can't be `None`."

#include "rules/rule_support.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL205", "packing-without-max-length", Severity::Error,
                     "SFT packing with `max_length: null`: dataset preparation raises.",
                     R"(## What it does
Finds SFT runs with `packing: true` (or `eval_packing: true`) and `max_length: null`.

## Why is this bad?
Packing fills rows up to `max_length`. `SFTTrainer` raises `ValueError: When packing is enabled,
max_length can't be None` while preparing the dataset, after the model has loaded.

## Example
```yaml
packing: true
max_length: null
```

## Use instead
```yaml
packing: true
max_length: 4096
```

## References
- trl `trl/trainer/sft_trainer.py` `_prepare_dataset` (v0.16.0+)
)"};

class PackingWithoutMaxLength final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const Project&, std::vector<Diagnostic>& out) const override {
    if (!run.is_sft_family()) return;
    const Setting max_length = run.arg("max_length");
    if (!max_length.known() || max_length.value.kind != Scalar::Kind::Null) return;
    for (const char* field : {"packing", "eval_packing"}) {
      const Setting on = run.arg(field);
      if (!on.known_true()) continue;
      Diagnostic d = make(support::primary_span(run, {&on, &max_length}),
                          "`" + std::string(field) + "` requires a `max_length`, but it is null");
      d.label = std::string(field) + " enabled here (" + on.origin + ")";
      support::relate(d, max_length, "max_length: null");
      support::relate_launch(d, run);
      d.notes.push_back("SFTTrainer raises ValueError while preparing the dataset, after the model has loaded");
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
