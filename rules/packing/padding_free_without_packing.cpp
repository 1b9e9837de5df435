// TRL203 padding-free-without-packing (error)
//
// SFTTrainer.__init__ (trl/trainer/sft_trainer.py, v1.0.0+ PR #5359) raises when padding-free is
// on without packing and max_length is not None: max_length would not be enforced. max_length
// defaults to 1024, so `padding_free: true` alone raises.

#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL203", "padding-free-without-packing", Severity::Error,
                     "SFT padding_free without packing while max_length is set: SFTTrainer raises.",
                     R"(## What it does
Finds SFT runs with `padding_free: true`, packing off and `max_length` not null (its default is
1024).

## Why is this bad?
Without packing, padding-free batches do not enforce `max_length`. TRL v1.0.0+ raises a
`ValueError` in `SFTTrainer.__init__`, after the model has loaded.

## Example
```yaml
# recipes/sft.yaml
# max_length not set: 1024
model_name_or_path: Qwen/Qwen2.5-0.5B
padding_free: true
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml
```

## Use instead
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
padding_free: true
packing: true
```
or pre-truncate the dataset and set `max_length: null`.

## References
- trl `trl/trainer/sft_trainer.py` `SFTTrainer.__init__` (PR #5359, v1.0.0)
)"};

class PaddingFreeWithoutPacking final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!run.is_sft_family()) return;
    const Setting pf = run.arg("padding_free");
    const Setting packing = run.arg("packing");
    const Setting max_length = run.arg("max_length");
    if (pf.truth() != Truth::True || packing.truth() != Truth::False) return;
    if (!max_length.known() || max_length.value.kind == Scalar::Kind::Null) return;
    // The check is TRL 1.0.0's (PR #5359); older releases train without it.
    const auto trl = rules::trl_target_at_least(context, run, "1.0.0");
    if (!trl) return;
    Diagnostic d = make(support::primary_span(run, {&pf}),
                        "`padding_free: true` without packing requires `max_length: null` (max_length is " +
                            max_length.value.yaml() + (max_length.span.valid() ? "" : ", the default") + ")");
    d.label = "padding_free enabled here (" + pf.origin_text() + ")";
    support::relate(d, max_length, "max_length=" + max_length.value.yaml());
    support::relate(d, packing, "packing off");
    support::relate_launch(d, run);
    d.notes.push_back(
        "TRL v1.0.0+ raises ValueError in SFTTrainer.__init__, after the model has loaded; judged "
        "against " +
        trl->describe());
    d.help = "set `packing: true`, or pre-truncate the data and set `max_length: null`";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_padding_free_without_packing() {
  return std::make_unique<PaddingFreeWithoutPacking>();
}

}  // namespace trl
