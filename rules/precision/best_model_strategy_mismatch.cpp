// TRL402 best-model-strategy-mismatch (error)
//
// transformers TrainingArguments.__post_init__: load_best_model_at_end with save_strategy != "best"
// requires eval_strategy == save_strategy.

#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL402", "best-model-strategy-mismatch", Severity::Error,
                     "load_best_model_at_end with different save and eval strategies.",
                     R"(## What it does
Finds configs with `load_best_model_at_end: true` whose `save_strategy` (default `steps`) differs
from `eval_strategy` (default `no`), unless `save_strategy` is `best`.

## Why is this bad?
The best checkpoint can only be picked among evaluated checkpoints. `TrainingArguments` raises
`ValueError: --load_best_model_at_end requires the save and eval strategy to match` at start-up.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
load_best_model_at_end: true
eval_strategy: epoch
save_strategy: steps
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml
```

## Use instead
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
load_best_model_at_end: true
eval_strategy: epoch
save_strategy: epoch
```

## References
- transformers `src/transformers/training_args.py` `TrainingArguments.__post_init__`
)"};

class BestModelStrategyMismatch final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext&, std::vector<Diagnostic>& out) const override {
    const Setting best = run.arg("load_best_model_at_end");
    const Setting save = run.arg("save_strategy");
    const Setting eval = run.arg("eval_strategy");
    if (best.truth() != Truth::True || !save.known() || !eval.known()) return;
    if (save.value.kind != Scalar::Kind::Str || eval.value.kind != Scalar::Kind::Str) return;
    if (save.value.s == "best" || save.value.s == eval.value.s) return;
    Diagnostic d = make(support::primary_span(run, {&best, &save, &eval}),
                        "`load_best_model_at_end` requires matching strategies, but save_strategy is `" + save.value.s +
                            "` and eval_strategy is `" + eval.value.s + "`");
    d.label = "load_best_model_at_end set here (" + best.origin_text() + ")";
    support::relate(d, save, "save_strategy=" + save.value.s);
    support::relate(d, eval, "eval_strategy=" + eval.value.s);
    support::relate_launch(d, run);
    d.notes.push_back("TrainingArguments raises ValueError at start-up");
    d.help = "set `save_strategy` and `eval_strategy` to the same value (or `save_strategy: best`)";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_best_model_strategy_mismatch() {
  return std::make_unique<BestModelStrategyMismatch>();
}

}  // namespace trl
