// TRL306 sync-ref-model-without-beta (error)
//
// GRPOTrainer/RLOOTrainer.__init__ (trl@v1.9.0): sync_ref_model=True with beta == 0.0 raises (no
// reference model to sync). GRPO's beta defaults to 0.0 (since v0.19.0); RLOO's to 0.05. The raise
// came in v0.28.0 (commit ad91c6ffa, PR #4912: grpo_trainer.py@v0.28.0 L735-741, rloo_trainer.py
// L566-572); up to v0.27.2 the trainers add a SyncRefModelCallback without a check
// (grpo_trainer.py@v0.27.2 L763) and the sync silently does nothing.

#include "rules/support/generation_batch.hpp"
#include "rules/support/rule_support.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL306", "sync-ref-model-without-beta", Severity::Error,
                     "sync_ref_model with beta 0 (GRPO's default): there is no reference model.",
                     R"(## What it does
Finds GRPO and RLOO runs with `sync_ref_model: true` and `beta` 0.0. GRPO's default `beta` is 0.0
(since TRL v0.19.0), so `sync_ref_model: true` alone is enough. Only for targets from TRL 0.28.0,
which raises; older releases accept the combination and the sync does nothing.

## Why is this bad?
With `beta == 0.0` no reference model is created, so there is nothing to synchronise.
`GRPOTrainer.__init__` raises `ValueError`, after the model has loaded.

## Example
```yaml
# recipes/grpo.yaml
# beta not set: 0.0
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
sync_ref_model: true
```
```bash
# launch.sh
trl grpo --config recipes/grpo.yaml
```

## Use instead
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
sync_ref_model: true
beta: 0.04
```
or drop `sync_ref_model`.

## References
- trl `trl/trainer/grpo_trainer.py` `GRPOTrainer.__init__`, `rloo_trainer.py` (v0.28.0+, PR #4912)
- trl `trl/trainer/grpo_config.py` (`beta` default 0.0)
)"};

class SyncRefModelWithoutBeta final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!support::is_rl_generation_trainer(run)) return;
    const Setting sync = run.arg("sync_ref_model");
    const Setting beta = run.arg("beta");
    if (sync.truth() != Truth::True || !beta.known()) return;
    double b = 0;
    if (beta.value.kind == Scalar::Kind::Float)
      b = beta.value.f;
    else if (beta.value.kind == Scalar::Kind::Int)
      b = static_cast<double>(beta.value.i);
    else
      return;
    if (b != 0.0) return;
    const bool by_default = !beta.span.valid();
    // The check is in TRL 0.28.0 and later (before, the sync is a silent no-op); GRPO's beta
    // defaults to 0.0 from 0.19.0 (0.04 up to 0.18.2, trl/trainer/grpo_config.py), so a default
    // beta is 0.0 at every target judged.
    const std::optional<VersionTarget> trl = rules::trl_target_at_least(context, run, "0.28.0");
    if (!trl) return;
    Diagnostic d = make(support::primary_span(run, {&sync}),
                        std::string("`sync_ref_model: true` with `beta: 0.0`") +
                            (by_default ? " (the " + support::trainer_name(run) + " default)" : "") +
                            ": there is no reference model to sync");
    d.label = "sync_ref_model set here (" + sync.origin_text() + ")";
    support::relate(d, beta, "beta=0.0");
    support::relate_launch(d, run);
    d.notes.push_back("the trainer raises ValueError at init, after the model has loaded");
    d.notes.push_back("judged against " + trl->describe() + ": the check is in TRL 0.28.0 and later" +
                      (by_default ? std::string("; GRPO's beta defaults to 0.0 since 0.19.0") : std::string()));
    d.help = "set a non-zero `beta` (e.g. 0.04), or `sync_ref_model: false`";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_sync_ref_model_without_beta() {
  return std::make_unique<SyncRefModelWithoutBeta>();
}

}  // namespace trl
