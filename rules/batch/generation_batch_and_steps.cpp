// TRL304 generation-batch-and-steps (error)
//
// GRPOConfig/RLOOConfig.__post_init__ (v0.18.0+): generation_batch_size and steps_per_generation
// are mutually exclusive.

#include "rules/support/generation_batch.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL304", "generation-batch-and-steps", Severity::Error,
                     "Both generation_batch_size and steps_per_generation are set.",
                     R"(## What it does
Finds GRPO and RLOO runs that set both `generation_batch_size` and `steps_per_generation`.

## Why is this bad?
Each determines the other. `GRPOConfig.__post_init__` raises `ValueError: 'generation_batch_size'
and 'steps_per_generation' can not be both configured at the same time` at start-up.

## Example
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
generation_batch_size: 64
steps_per_generation: 4
```
```bash
# launch.sh
trl grpo --config recipes/grpo.yaml
```

## Use instead
Keep one of the two:
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
generation_batch_size: 64
```

## References
- trl `trl/trainer/grpo_config.py` `GRPOConfig.__post_init__` (v0.18.0+)
)"};

class GenerationBatchAndSteps final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!support::is_rl_generation_trainer(run) || !batch::checked_by_target(context, run, "0.18.0")) return;
    const batch::Numbers n = batch::read(run);
    if (!n.gen_batch.known() || !n.steps.known() || batch::is_null(n.gen_batch) || batch::is_null(n.steps)) return;
    Diagnostic d = make(support::primary_span(run, {&n.gen_batch, &n.steps}),
                        "`generation_batch_size` and `steps_per_generation` are mutually exclusive");
    d.label = "generation_batch_size set here (" + n.gen_batch.origin_text() + ")";
    support::relate(d, n.steps, "steps_per_generation set here");
    support::relate_launch(d, run);
    d.notes.push_back(support::trainer_name(run) + ".__post_init__ raises ValueError at start-up");
    d.help =
        "remove one of them (generation_batch_size = per_device_train_batch_size * processes * "
        "steps_per_generation)";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_generation_batch_and_steps() {
  return std::make_unique<GenerationBatchAndSteps>();
}

}  // namespace trl
