// TRL305 generation-batch-not-multiple-of-global (error)
//
// GRPOConfig/RLOOConfig.__post_init__ (v0.20.0+): an explicit generation_batch_size must be
// divisible by per_device_train_batch_size * num_processes.

#include "rules/support/generation_batch.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL305", "generation-batch-not-multiple-of-global", Severity::Error,
                     "generation_batch_size not a multiple of the global train batch.",
                     R"(## What it does
Finds GRPO and RLOO runs whose explicit `generation_batch_size` is not a multiple of
`per_device_train_batch_size * num_processes` (the global batch of one step).

## Why is this bad?
A generation batch is consumed in whole optimisation steps. `GRPOConfig.__post_init__` raises
`ValueError: generation_batch_size must be divisible by the global batch size` at start-up.

## Example
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
per_device_train_batch_size: 4
generation_batch_size: 48     # global batch 4 * 8 = 32
```
```yaml
# recipes/accelerate.yaml
distributed_type: MULTI_GPU
num_processes: 8
```
```bash
# launch.sh
trl grpo --config recipes/grpo.yaml --accelerate_config recipes/accelerate.yaml
```

## Use instead
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
per_device_train_batch_size: 4
generation_batch_size: 64
```

## References
- trl `trl/trainer/grpo_config.py` `GRPOConfig.__post_init__` (v0.20.0+)
)"};

class GenerationBatchNotMultipleOfGlobal final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!support::is_rl_generation_trainer(run) || !batch::checked_by_target(context, run, "0.20.0")) return;
    const batch::Numbers n = batch::read(run);
    if (!n.gen_batch.known() || batch::is_null(n.gen_batch)) return;
    if (!(batch::is_null(n.steps) || n.steps.state == Setting::State::Unset)) return;  // TRL304 / unknown
    const auto gen = n.gen_batch.as_int();
    const auto bs = n.per_device.as_int();
    const auto world = run.world_size.as_int();
    if (!gen || !bs || !world || *bs * *world <= 0) return;
    const std::int64_t global = *bs * *world;
    if (*gen % global == 0) return;
    Diagnostic d =
        make(support::primary_span(run, {&n.gen_batch}),
             "`generation_batch_size: " + std::to_string(*gen) +
                 "` is not a multiple of the global batch (per_device_train_batch_size=" + std::to_string(*bs) +
                 " * processes=" + std::to_string(*world) + " = " + std::to_string(global) + ")");
    d.label = "generation_batch_size set here (" + n.gen_batch.origin_text() + ")";
    support::relate(d, n.per_device, "per_device_train_batch_size=" + std::to_string(*bs));
    support::relate(d, run.world_size, "processes: " + std::to_string(*world));
    support::relate_launch(d, run);
    d.notes.push_back(support::trainer_name(run) + ".__post_init__ raises ValueError at start-up");
    d.help = "use a multiple of " + std::to_string(global) + " (e.g. " +
             std::to_string(((*gen + global - 1) / global) * global) + "), or set steps_per_generation instead";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_generation_batch_not_multiple_of_global() {
  return std::make_unique<GenerationBatchNotMultipleOfGlobal>();
}

}  // namespace trl
