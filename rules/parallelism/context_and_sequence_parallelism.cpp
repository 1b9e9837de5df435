// TRL107 context-and-sequence-parallelism (error)
//
// accelerate ParallelismConfig.__post_init__ (v1.13+, PR #3862): "CP and SP are mutually exclusive".

#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL107", "context-and-sequence-parallelism", Severity::Error,
                     "Context parallelism and sequence parallelism enabled together.",
                     R"(## What it does
Finds runs where both `cp_size > 1` (ring attention on FSDP2) and `sp_size > 1` (Ulysses on
DeepSpeed) are set.

## Why is this bad?
The two split the sequence dimension in incompatible ways. accelerate (v1.13+) raises
`ValueError` when the `ParallelismConfig` is built, at start-up.

## Example
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 4
parallelism_config:
  parallelism_config_cp_size: 2
  parallelism_config_sp_size: 2
```
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
pad_to_multiple_of: 4
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml --accelerate_config recipes/accelerate.yaml
```

## Use instead
Keep one: `parallelism_config_cp_size` with FSDP2, or `parallelism_config_sp_size` with DeepSpeed.
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 4
parallelism_config:
  parallelism_config_dp_shard_size: 2
  parallelism_config_cp_size: 2
```

## References
- accelerate `src/accelerate/parallelism_config.py` `__post_init__` (PR #3862)
)"};

class ContextAndSequenceParallelism final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext&, std::vector<Diagnostic>& out) const override {
    const auto cp = run.cp_size.as_int();
    const auto sp = run.sp_size.as_int();
    if (!cp || !sp || *cp <= 1 || *sp <= 1) return;
    Diagnostic d = make(support::primary_span(run, {&run.cp_size, &run.sp_size}),
                        "context parallelism (cp_size=" + std::to_string(*cp) +
                            ") and sequence parallelism (sp_size=" + std::to_string(*sp) + ") cannot be combined");
    d.label = "cp_size set here (" + run.cp_size.origin_text() + ")";
    support::relate(d, run.sp_size, "sp_size=" + std::to_string(*sp));
    support::relate_launch(d, run);
    d.notes.push_back(
        "accelerate v1.13+ raises ValueError when the ParallelismConfig is built (\"CP and SP are "
        "mutually exclusive\")");
    d.help =
        "set `parallelism_config_cp_size: 1` (DeepSpeed Ulysses) or `parallelism_config_sp_size: 1` (FSDP2 ring "
        "attention)";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_context_and_sequence_parallelism() {
  return std::make_unique<ContextAndSequenceParallelism>();
}

}  // namespace trl
