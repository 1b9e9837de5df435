// TRL106 parallel-sizes-mismatch-world (error)
//
// accelerate ParallelismConfig._validate_accelerator: total_size (dp_replicate * dp_shard * tp *
// cp * sp) must equal the number of processes, except with DeepSpeed sequence parallelism
// (sp_backend deepspeed and sp_size > 1), from accelerate v1.13.0 (commit e2dde279 "DeepSpeed
// has its own process group (#3916)"); accelerate v1.12.0 parallelism_config.py
// _validate_accelerator raises on total_size != num_processes for DeepSpeed SP too.

#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL106", "parallel-sizes-mismatch-world", Severity::Error,
                     "The parallelism sizes do not multiply to the number of processes.",
                     R"(## What it does
Finds runs whose parallelism config sizes (`dp_replicate_size * dp_shard_size * tp_size *
cp_size * sp_size`) do not equal the number of processes the launch starts (accelerate
`num_processes`, the total over all machines; torchrun `nproc_per_node * nnodes`).

## Why is this bad?
`Accelerator.__init__` raises `ValueError: ParallelismConfig total_size (X) does not match
num_processes (Y)` at start-up. DeepSpeed sequence parallelism (`sp_backend: deepspeed`,
`sp_size > 1`) is exempt from accelerate 1.13.0 on, which skips the check there; with an
accelerate target older than 1.13.0 (a pin such as `accelerate==1.12.0`) it is judged too.

## Example
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 8
parallelism_config:
  parallelism_config_dp_shard_size: 2
  parallelism_config_cp_size: 2     # 2 * 2 = 4, not 8
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
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 8
parallelism_config:
  parallelism_config_dp_shard_size: 4   # 4 * 2 = 8
  parallelism_config_cp_size: 2
```

## References
- accelerate `src/accelerate/parallelism_config.py` `_validate_accelerator` (DeepSpeed SP exempt
  from v1.13.0, PR #3916)
)"};

class ParallelSizesMismatchWorld final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!run.parallelism_config) return;
    const std::pair<const Setting*, const char*> sizes[] = {{&run.dp_replicate_size, "dp_replicate_size"},
                                                            {&run.dp_shard_size, "dp_shard_size"},
                                                            {&run.tp_size, "tp_size"},
                                                            {&run.cp_size, "cp_size"},
                                                            {&run.sp_size, "sp_size"}};
    std::int64_t total = 1;
    std::string product;
    for (auto [s, name] : sizes) {
      const auto v = s->as_int();
      if (!v || *v < 1) return;
      total *= *v;
      if (*v > 1) product += (product.empty() ? "" : " * ") + std::string(name) + "=" + std::to_string(*v);
    }
    const auto sp = run.sp_size.as_int();
    // DeepSpeed SP skips the check from accelerate 1.13.0; an older known target still checks.
    std::optional<VersionTarget> old_accelerate;
    if (*sp > 1 && (!run.sp_backend.known() || support::is_str(run.sp_backend, "deepspeed"))) {
      if (!run.sp_backend.known()) return;
      old_accelerate = rules::accelerate_target_before(context, run, "1.13.0");
      if (!old_accelerate) return;
    }
    const auto world = run.world_size.as_int();
    if (!world || total == *world || total == 1) return;
    const Setting* first = nullptr;
    for (auto [s, name] : sizes)
      if (!first && s->span.valid() && *s->as_int() > 1) first = s;
    Diagnostic d = make(first ? first->span : support::primary_span(run, {&run.world_size}),
                        "parallelism sizes multiply to " + std::to_string(total) + " (" + product +
                            "), but the launch starts " + std::to_string(*world) + " processes");
    d.label = "parallelism size set here";
    for (auto [s, name] : sizes)
      if (*s->as_int() > 1 && s != first) support::relate(d, *s, std::string(name) + "=" + s->value.yaml());
    support::relate(d, run.world_size, "number of processes: " + std::to_string(*world));
    support::relate_launch(d, run);
    d.notes.push_back(
        "accelerate raises ValueError at start-up: ParallelismConfig total_size does not match "
        "num_processes");
    if (old_accelerate)
      d.notes.push_back("judged against " + old_accelerate->describe() +
                        ": DeepSpeed sequence parallelism is exempt from this check only from accelerate 1.13.0");
    d.help = "make dp_replicate_size * dp_shard_size * tp_size * cp_size * sp_size equal " + std::to_string(*world) +
             " (e.g. raise parallelism_config_dp_shard_size), or change num_processes";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_parallel_sizes_mismatch_world() {
  return std::make_unique<ParallelSizesMismatchWorld>();
}

}  // namespace trl
