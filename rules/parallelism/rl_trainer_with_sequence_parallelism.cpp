// TRL102 rl-trainer-with-sequence-parallelism (error)
//
// GRPO and RLOO build their model inputs after generation, inside the trainer, so the
// context-parallel / Ulysses input sharding of transformers cannot apply. TRL's own check
// (GRPOConfig/RLOOConfig.__post_init__, v1.4.0+) reads only TrainingArguments.parallelism_config,
// so CP or SP enabled in the accelerate YAML, on the launch line or in the environment slips past it.

#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL102", "rl-trainer-with-sequence-parallelism", Severity::Error,
                     "GRPO/RLOO with context or sequence parallelism (cp_size or sp_size > 1).",
                     R"(## What it does
Finds GRPO and RLOO runs where context parallelism (`cp_size > 1`) or sequence parallelism
(`sp_size > 1`) is enabled, from any source: `ParallelismConfig` in Python, the accelerate YAML's
`parallelism_config`, `accelerate launch --parallelism_config_cp_size/--parallelism_config_sp_size`,
or `PARALLELISM_CONFIG_*` environment variables.

## Why is this bad?
GRPO and RLOO build model inputs after generation inside the trainer, so the sequence sharding
that context parallelism and Ulysses sequence parallelism rely on cannot be applied to the
generation batch. TRL (v1.4.0+) raises in `GRPOConfig.__post_init__` / `RLOOConfig.__post_init__`,
but only when the `ParallelismConfig` is passed as `TrainingArguments(parallelism_config=...)`;
CP or SP enabled through the accelerate YAML, a launch flag or the environment is not checked,
and the run starts with a topology the trainer does not support.

## Example
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 2
parallelism_config:
  parallelism_config_cp_size: 2
```
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
```
```bash
# launch.sh
trl grpo --config recipes/grpo.yaml --accelerate_config recipes/accelerate.yaml
```

## Use instead
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 2
```
GRPO and RLOO runs scale with data parallelism (or vLLM tensor parallelism for generation), not
with context or sequence parallelism (`parallelism_config_cp_size` and `parallelism_config_sp_size`
left at 1).

## References
- trl `trl/trainer/grpo_config.py` `GRPOConfig.__post_init__` (v1.4.0+, PR #5699), `rloo_config.py`
- accelerate `src/accelerate/parallelism_config.py` (`cp_enabled`, `sp_enabled`)
)"};

class RlTrainerWithSequenceParallelism final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext&, std::vector<Diagnostic>& out) const override {
    if (!support::is_rl_generation_trainer(run)) return;
    for (auto [s, name] : {std::pair{&run.cp_size, "cp_size"}, std::pair{&run.sp_size, "sp_size"}}) {
      const auto v = s->as_int();
      if (!v || *v <= 1) continue;
      const bool python = s->origin == Origin::Python;
      Diagnostic d =
          make(support::primary_span(run, {s}), support::trainer_name(run) + " does not support " +
                                                    (std::string(name) == "cp_size" ? "context" : "sequence") +
                                                    " parallelism (`" + name + "=" + std::to_string(*v) + "`)");
      d.label = std::string(name) + " set here (" + s->origin_text() + ")";
      support::relate_launch(d, run);
      d.notes.push_back(python ? "TRL v1.4.0+ raises in the config's __post_init__ when the ParallelismConfig is "
                                 "passed as `parallelism_config=`; older TRL starts and shards inputs it builds after "
                                 "generation"
                               : "TRL checks only `TrainingArguments.parallelism_config`; set from the " +
                                     s->origin_text() +
                                     " it is not checked, and the run starts with a topology the trainer does not "
                                     "support");
      d.help = "set `parallelism_config_" + std::string(name) + ": 1` for this " + run.trainer + " run";
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_rl_trainer_with_sequence_parallelism() {
  return std::make_unique<RlTrainerWithSequenceParallelism>();
}

}  // namespace trl
