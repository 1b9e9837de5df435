// TRL302 eval-batch-not-divisible (error)
//
// GRPOConfig/RLOOConfig.__post_init__: with do_eval and eval_strategy != "no",
// per_device_eval_batch_size * num_processes must be divisible by num_generations_eval (or
// num_generations). TrainingArguments sets do_eval when eval_strategy != "no". Where the check is,
// by TRL release (GRPO): v0.15.0-v0.17.x GRPOTrainer.__init__ (`if self.args.eval_strategy != "no"`),
// v0.18.0-v0.19.x GRPOConfig.__post_init__, none in v0.20.0 and v0.21.0 (grpo_config.py and
// grpo_trainer.py@v0.20.0/@v0.21.0 hold no eval-batch check), back in GRPOConfig.__post_init__ from
// v0.22.0 (RLOOConfig from its rewrite in v0.22.0). The divisor is num_generations up to v0.26.0
// (num_generations_eval exists there but is not read: grpo_config.py@v0.26.0 L835); from v0.26.1
// `num_generations_eval or num_generations` (grpo_config.py@v0.26.1 L835, rloo_config.py L598).

#include "rules/support/generation_batch.hpp"
#include "rules/support/rule_support.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL302", "eval-batch-not-divisible", Severity::Error,
                     "GRPO/RLOO global eval batch not divisible by the eval generations.",
                     R"(## What it does
For GRPO and RLOO runs that evaluate (`eval_strategy` not `no`), checks that
`per_device_eval_batch_size * num_processes` is divisible by `num_generations_eval` (or
`num_generations` when that is unset). The check is made at start-up by TRL 0.15.0 to 0.19.x and
from 0.22.0 on (GRPO; RLOO from 0.22.0): TRL 0.20.0 and 0.21.0 have none, and are not judged. Up to
TRL 0.26.0 the divisor is `num_generations` even when `num_generations_eval` is set (0.26.0 has
the field but its check does not read it).

## Why is this bad?
`GRPOConfig.__post_init__` raises `ValueError` at start-up: "The global eval batch size must be
divisible by the number of generations used for evaluation".

## Example
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
eval_strategy: steps
per_device_eval_batch_size: 2
num_generations: 8        # 2 * 3 processes = 6
```
```yaml
# recipes/accelerate.yaml
distributed_type: MULTI_GPU
num_processes: 3
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
eval_strategy: steps
per_device_eval_batch_size: 8   # 8 * 3 = 24
num_generations: 8
```
or set `num_generations_eval` to a divisor of the global eval batch (TRL 0.26.0 and older divide
by `num_generations` whatever it says).

## References
- trl `trl/trainer/grpo_trainer.py` `GRPOTrainer.__init__` (v0.15.0..v0.17.x)
- trl `trl/trainer/grpo_config.py` `GRPOConfig.__post_init__` (v0.18.0..v0.19.x, v0.22.0+;
  `num_generations_eval` read from v0.26.1), `rloo_config.py` (v0.22.0+)
)"};

class EvalBatchNotDivisible final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!support::is_rl_generation_trainer(run) || !batch::checked_by_target(context, run, "0.15.0")) return;
    const VersionTarget trl = rules::trl_target(context, run);  // known: checked_by_target needs it
    if (compare_versions(*trl.version, "0.20.0") >= 0 && compare_versions(*trl.version, "0.22.0") < 0) return;
    const bool reads_eval_gens = compare_versions(*trl.version, "0.26.1") >= 0;
    const Setting strategy = run.arg("eval_strategy");
    if (!strategy.known() || strategy.value.kind != Scalar::Kind::Str || strategy.value.s == "no") return;
    const Setting eval_gens = reads_eval_gens ? run.arg("num_generations_eval") : Setting{};
    const Setting gens = run.arg("num_generations");
    const Setting& used = eval_gens.known() && eval_gens.value.kind != Scalar::Kind::Null ? eval_gens : gens;
    if (!eval_gens.known() && eval_gens.state != Setting::State::Unset) return;
    const auto g = used.as_int();
    const Setting bs_s = run.arg("per_device_eval_batch_size");
    const auto bs = bs_s.as_int();
    const auto world = run.world_size.as_int();
    if (!g || *g < 1 || !bs || !world) return;
    const std::int64_t global = *bs * *world;
    if (global % *g == 0) return;
    const std::string name = &used == &eval_gens ? "num_generations_eval" : "num_generations";
    Diagnostic d = make(support::primary_span(run, {&bs_s, &used, &strategy}),
                        "global eval batch (per_device_eval_batch_size=" + std::to_string(*bs) +
                            " * processes=" + std::to_string(*world) + " = " + std::to_string(global) +
                            ") is not divisible by `" + name + ": " + std::to_string(*g) + "`");
    d.label = "per_device_eval_batch_size=" + std::to_string(*bs) + " (" + bs_s.origin_text() + ")";
    support::relate(d, used, name + "=" + std::to_string(*g));
    support::relate(d, run.world_size, "processes: " + std::to_string(*world));
    support::relate(d, strategy, "evaluation enabled here");
    support::relate_launch(d, run);
    d.notes.push_back(compare_versions(*trl.version, "0.18.0") < 0
                          ? "the trainer raises ValueError at start-up; judged against " + trl.describe()
                          : support::trainer_name(run) + ".__post_init__ raises ValueError at start-up");
    const Setting written_eval_gens = run.arg("num_generations_eval");
    if (!reads_eval_gens && written_eval_gens.known() && written_eval_gens.value.kind != Scalar::Kind::Null)
      d.notes.push_back(trl.describe() + " divides by `num_generations`; `num_generations_eval` is read from 0.26.1");
    d.help = std::string(reads_eval_gens ? "set `num_generations_eval`" : "use a `num_generations`") +
             " that divides " + std::to_string(global) + ", or change `per_device_eval_batch_size`";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_eval_batch_not_divisible() {
  return std::make_unique<EvalBatchNotDivisible>();
}

}  // namespace trl
