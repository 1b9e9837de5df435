// TRL302 eval-batch-not-divisible (error)
//
// GRPOConfig/RLOOConfig.__post_init__: with do_eval and eval_strategy != "no",
// per_device_eval_batch_size * num_processes must be divisible by num_generations_eval (or
// num_generations). TrainingArguments sets do_eval when eval_strategy != "no".

#include "rules/batch_support.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL302", "eval-batch-not-divisible", Severity::Error,
                     "GRPO/RLOO global eval batch not divisible by the eval generations.",
                     R"(## What it does
For GRPO and RLOO runs that evaluate (`eval_strategy` not `no`), checks that
`per_device_eval_batch_size * num_processes` is divisible by `num_generations_eval` (or
`num_generations` when that is unset).

## Why is this bad?
`GRPOConfig.__post_init__` raises `ValueError` at start-up: "The global eval batch size must be
divisible by the number of generations used for evaluation".

## Example
```yaml
eval_strategy: steps
per_device_eval_batch_size: 2
num_generations: 8        # 2 * 3 processes = 6
```

## Use instead
Set `num_generations_eval` to a divisor of the global eval batch, or change
`per_device_eval_batch_size`.

## References
- trl `trl/trainer/grpo_config.py` `GRPOConfig.__post_init__` (v0.15.0+), `rloo_config.py`
)"};

class EvalBatchNotDivisible final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const Project& project, std::vector<Diagnostic>& out) const override {
    if (!support::is_rl_generation_trainer(run) || !batch::checked_by_target(project, run, "0.15.0")) return;
    const Setting strategy = run.arg("eval_strategy");
    if (!strategy.known() || strategy.value.kind != Scalar::Kind::Str || strategy.value.s == "no") return;
    const Setting eval_gens = run.arg("num_generations_eval");
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
    d.label = "per_device_eval_batch_size=" + std::to_string(*bs) + " (" + bs_s.origin + ")";
    support::relate(d, used, name + "=" + std::to_string(*g));
    support::relate(d, run.world_size, "processes: " + std::to_string(*world));
    support::relate(d, strategy, "evaluation enabled here");
    support::relate_launch(d, run);
    d.notes.push_back(support::trainer_name(run) + ".__post_init__ raises ValueError at start-up");
    d.help = "set `num_generations_eval` to a divisor of " + std::to_string(global) +
             ", or change `per_device_eval_batch_size`";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_eval_batch_not_divisible() {
  return std::make_unique<EvalBatchNotDivisible>();
}

}  // namespace trl
