// TRL403 save-steps-not-multiple-of-eval (error)
//
// transformers TrainingArguments.__post_init__: load_best_model_at_end with the steps strategy
// requires save_steps to be a round multiple of eval_steps (eval_steps defaults to logging_steps).

#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL403", "save-steps-not-multiple-of-eval", Severity::Error,
                     "load_best_model_at_end with save_steps not a multiple of eval_steps.",
                     R"(## What it does
Finds configs with `load_best_model_at_end: true`, `save_strategy` and `eval_strategy` both
`steps`, and `save_steps` not a multiple of `eval_steps` (which defaults to `logging_steps`).

## Why is this bad?
Every saved checkpoint must have an evaluation. `TrainingArguments` raises `ValueError:
--load_best_model_at_end requires the saving steps to be a round multiple of the evaluation
steps` at start-up.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
load_best_model_at_end: true
eval_strategy: steps
eval_steps: 300
save_steps: 500
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
eval_strategy: steps
eval_steps: 300
save_steps: 600
```

## References
- transformers `src/transformers/training_args.py` `TrainingArguments.__post_init__`
)"};

// A step count >= 1 (values below 1 are ratios of the run length).
std::optional<std::int64_t> steps(const Setting& s) {
  if (!s.known()) return std::nullopt;
  if (s.value.kind == Scalar::Kind::Int && s.value.i >= 1) return s.value.i;
  if (s.value.kind == Scalar::Kind::Float && s.value.f >= 1 &&
      s.value.f == static_cast<double>(static_cast<std::int64_t>(s.value.f)))
    return static_cast<std::int64_t>(s.value.f);
  return std::nullopt;
}

class SaveStepsNotMultipleOfEval final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext&, std::vector<Diagnostic>& out) const override {
    const Setting best = run.arg("load_best_model_at_end");
    if (best.truth() != Truth::True) return;
    if (!support::is_str(run.arg("save_strategy"), "steps") || !support::is_str(run.arg("eval_strategy"), "steps"))
      return;
    Setting eval = run.arg("eval_steps");
    if (eval.known() && eval.value.kind == Scalar::Kind::Null) eval = run.arg("logging_steps");
    const Setting save = run.arg("save_steps");
    const auto e = steps(eval);
    const auto s = steps(save);
    if (!e || !s || *s % *e == 0) return;
    Diagnostic d = make(support::primary_span(run, {&save, &eval, &best}),
                        "`save_steps: " + std::to_string(*s) + "` is not a multiple of the evaluation steps (" +
                            std::to_string(*e) + ") while `load_best_model_at_end` is on");
    d.label = "save_steps set here (" + save.origin_text() + ")";
    support::relate(d, eval, "evaluation every " + std::to_string(*e) + " steps");
    support::relate(d, best, "load_best_model_at_end set here");
    support::relate_launch(d, run);
    d.notes.push_back("TrainingArguments raises ValueError at start-up");
    d.help = "set `save_steps` to a multiple of " + std::to_string(*e) + " (e.g. " +
             std::to_string(((*s + *e - 1) / *e) * *e) + ")";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_save_steps_not_multiple_of_eval() {
  return std::make_unique<SaveStepsNotMultipleOfEval>();
}

}  // namespace trl
