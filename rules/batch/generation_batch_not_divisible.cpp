// TRL301 generation-batch-not-divisible (error)
//
// GRPOConfig/RLOOConfig.__post_init__ (trl v0.20.0+): generation_batch_size (explicit, or
// per_device_train_batch_size * num_processes * steps_per_generation, steps_per_generation
// defaulting to gradient_accumulation_steps) must be divisible by num_generations. TRL <= 0.17
// checked per_device_train_batch_size * num_processes * gradient_accumulation_steps in
// GRPOTrainer.__init__ from v0.17.0 (grpo_trainer.py@v0.17.0 L598); without generation_batch_size/
// steps_per_generation the product is the same. v0.15.x and v0.16.x check
// per_device_train_batch_size * num_processes alone (grpo_trainer.py@v0.15.0 L343, @v0.16.0 L426:
// `global_batch_size = args.per_device_train_batch_size * num_processes`), without gradient
// accumulation.

#include "rules/support/generation_batch.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL301", "generation-batch-not-divisible", Severity::Error,
                     "GRPO/RLOO generation batch not divisible by num_generations.",
                     R"(## What it does
Computes the generation batch of GRPO and RLOO runs — `generation_batch_size` when set, else
`per_device_train_batch_size * num_processes * steps_per_generation` (where
`steps_per_generation` defaults to `gradient_accumulation_steps`) — and checks that it is
divisible by `num_generations`. `num_processes` is the launch's world size (accelerate
`num_processes`, torchrun `nproc_per_node * nnodes`), so the same recipe can be valid on 8 GPUs
and invalid on 7.

## Why is this bad?
Each prompt's completions must sit in one generation batch. `GRPOConfig.__post_init__` raises
`ValueError` at start-up (TRL <= 0.17: `GRPOTrainer.__init__` with the formula
`per_device_train_batch_size * num_processes * gradient_accumulation_steps`; TRL 0.15 and 0.16:
`per_device_train_batch_size * num_processes`, without gradient accumulation).

## Example
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
use_vllm: true
vllm_mode: server
per_device_train_batch_size: 4
gradient_accumulation_steps: 2
num_generations: 16     # 4 * 7 processes * 2 = 56 is not divisible by 16
```
```yaml
# recipes/accelerate.yaml
distributed_type: MULTI_GPU
num_processes: 7   # one GPU of 8 kept for the vLLM server
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
use_vllm: true
vllm_mode: server
per_device_train_batch_size: 4
gradient_accumulation_steps: 2
num_generations: 8      # divides 56 (so do 7, 14 and 28)
```
or change the batch size.

## References
- trl `trl/trainer/grpo_config.py` `GRPOConfig.__post_init__` (v0.20.0..v1.9.0), `rloo_config.py`
- trl `trl/trainer/grpo_trainer.py@v0.17.0` (effective batch check), `@v0.16.0` (global batch check)
)"};

class GenerationBatchNotDivisible final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!support::is_rl_generation_trainer(run) || !batch::checked_by_target(context, run, "0.15.0")) return;
    const batch::Numbers n = batch::read(run);
    const auto g = n.num_generations.as_int();
    if (!g || *g < 2) return;  // TRL303
    const bool gen_set = n.gen_batch.known() && !batch::is_null(n.gen_batch);
    const bool steps_set = n.steps.known() && !batch::is_null(n.steps);
    if (gen_set && steps_set) return;  // TRL304
    std::int64_t gen = 0;
    std::string formula;
    std::vector<const Setting*> parts;
    // TRL 0.15.x/0.16.x: per_device_train_batch_size * num_processes (no gradient accumulation, and
    // no generation_batch_size or steps_per_generation yet).
    const bool per_step = !rules::trl_target_at_least(context, run, "0.17.0");
    if (per_step) {
      const auto bs = n.per_device.as_int();
      const auto world = run.world_size.as_int();
      if (!bs || !world) return;
      gen = *bs * *world;
      formula = "per_device_train_batch_size=" + std::to_string(*bs) + " * processes=" + std::to_string(*world) +
                " = " + std::to_string(gen);
      parts = {&n.per_device, &run.world_size};
    } else if (gen_set) {
      const auto v = n.gen_batch.as_int();
      if (!v) return;
      // Not a multiple of the global batch: TRL305 reports it (that check runs first).
      const auto bs = n.per_device.as_int();
      const auto world = run.world_size.as_int();
      if (bs && world && *bs * *world > 0 && *v % (*bs * *world) != 0) return;
      gen = *v;
      formula = "generation_batch_size=" + std::to_string(gen);
      parts = {&n.gen_batch};
    } else {
      if (!(n.gen_batch.known() || n.gen_batch.state == Setting::State::Unset)) return;
      if (!(n.steps.known() || n.steps.state == Setting::State::Unset)) return;
      const Setting& steps = steps_set ? n.steps : n.grad_accum;
      const auto bs = n.per_device.as_int();
      const auto world = run.world_size.as_int();
      const auto st = steps.as_int();
      if (!bs || !world || !st) return;
      gen = *bs * *world * *st;
      formula = "per_device_train_batch_size=" + std::to_string(*bs) + " * processes=" + std::to_string(*world) +
                " * " + (steps_set ? "steps_per_generation" : "gradient_accumulation_steps") + "=" +
                std::to_string(*st) + " = " + std::to_string(gen);
      parts = {&n.per_device, &run.world_size, &steps};
    }
    if (gen <= 0 || gen % *g == 0) return;
    Diagnostic d =
        make(support::primary_span(run, {&n.num_generations, parts[0]}),
             "generation batch (" + formula + ") is not divisible by `num_generations: " + std::to_string(*g) + "`");
    d.label = "num_generations=" + std::to_string(*g) + " (" + n.num_generations.origin_text() + ")";
    for (const Setting* p : parts) support::relate(d, *p, "part of the generation batch: " + p->value.yaml());
    support::relate_launch(d, run);
    if (per_step)
      d.notes.push_back(
          "the trainer raises ValueError at start-up: TRL 0.15 and 0.16 check the global batch "
          "per step, without gradient accumulation");
    else
      d.notes.push_back(support::trainer_name(run) +
                        ".__post_init__ raises ValueError at start-up (TRL >= 0.18 "
                        "formula; TRL 0.17 checks the same product in the trainer)");
    std::vector<std::int64_t> ok;
    for (std::int64_t k = 2; k <= gen && ok.size() < 6; ++k)
      if (gen % k == 0) ok.push_back(k);
    std::string choices;
    for (auto k : ok) choices += (choices.empty() ? "" : ", ") + std::to_string(k);
    d.help = "use a `num_generations` that divides " + std::to_string(gen) +
             (choices.empty() ? "" : " (" + choices + ", ...)") + ", or change the batch size";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_generation_batch_not_divisible() {
  return std::make_unique<GenerationBatchNotDivisible>();
}

}  // namespace trl
