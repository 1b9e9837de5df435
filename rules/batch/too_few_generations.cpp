// TRL303 too-few-generations (error)
//
// GRPOConfig/RLOOConfig.__post_init__ (v0.17.0+): num_generations < 2 raises; group-relative
// advantages need at least two completions per prompt.

#include "rules/support/generation_batch.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL303", "too-few-generations", Severity::Error, "GRPO/RLOO with num_generations < 2.",
                     R"(## What it does
Finds GRPO and RLOO runs with `num_generations` below 2.

## Why is this bad?
Advantages are computed relative to the other completions of the same prompt; with one
completion there is nothing to compare. `GRPOConfig.__post_init__` raises `ValueError` at start-up.

## Example
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
num_generations: 1
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
num_generations: 8
```

## References
- trl `trl/trainer/grpo_config.py` `GRPOConfig.__post_init__` (v0.17.0+), `rloo_config.py`
)"};

class TooFewGenerations final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!support::is_rl_generation_trainer(run) || !batch::checked_by_target(context, run, "0.17.0")) return;
    const Setting g = run.arg("num_generations");
    const auto v = g.as_int();
    if (!v || *v >= 2 || !g.span.valid() || g.value.kind == Scalar::Kind::Bool) return;
    Diagnostic d = make(g.span, "`num_generations: " + std::to_string(*v) + "` is below 2; " +
                                    support::trainer_name(run) + " needs at least 2 completions per prompt");
    d.label = "set here (" + g.origin_text() + ")";
    support::relate_launch(d, run);
    d.notes.push_back(support::trainer_name(run) + ".__post_init__ raises ValueError at start-up");
    d.help = "set `num_generations` to 2 or more (e.g. 8)";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_too_few_generations() {
  return std::make_unique<TooFewGenerations>();
}

}  // namespace trl
