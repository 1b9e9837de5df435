// TRL104 context-parallelism-requires-fsdp2 (error)
//
// accelerate's AcceleratorState raises when cp_size > 1 without an FSDP plugin or with FSDP1
// (state.py, unless ACCELERATE_ALLOW_CP_STANDALONE=true). With DeepSpeed nothing raises and the
// context-parallel hook still runs on a setup accelerate never supported.

#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL104", "context-parallelism-requires-fsdp2", Severity::Error,
                     "Context parallelism without FSDP2 (fsdp_version: 2).",
                     R"(## What it does
Finds `accelerate launch` runs with context parallelism (`cp_size > 1`) whose accelerate setup is
not FSDP with `fsdp_version: 2`: FSDP1 (a missing `fsdp_version` is FSDP1), plain multi-GPU, or
DeepSpeed.

## Why is this bad?
Context parallelism shards over the FSDP2 device mesh. `AcceleratorState` raises
`ValueError` at start-up for FSDP1 ("Using `cp_size>1` requires FSDP2") or for no FSDP plugin.
With DeepSpeed there is no error at all: `prepare()` still attaches the context-parallel hooks to
a model DeepSpeed shards its own way.

## Example
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_state_dict_type: SHARDED_STATE_DICT   # no fsdp_version: FSDP1
num_processes: 2
parallelism_config:
  parallelism_config_cp_size: 2
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
  fsdp_state_dict_type: SHARDED_STATE_DICT
  fsdp_version: 2
num_processes: 2
parallelism_config:
  parallelism_config_cp_size: 2
```

## References
- accelerate `src/accelerate/state.py` `AcceleratorState.__init__` (cp_enabled checks)
- accelerate `src/accelerate/commands/launch.py` (`--fsdp_version` default "1")
)"};

class ContextParallelismRequiresFsdp2 final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext&, std::vector<Diagnostic>& out) const override {
    const auto cp = run.cp_size.as_int();
    if (!cp || *cp <= 1 || !run.accelerate.launched || !run.launch) return;
    if (run.launch->env_var("ACCELERATE_ALLOW_CP_STANDALONE")) return;
    const Setting& type = run.accelerate.distributed_type;
    if (!type.known() || type.value.kind != Scalar::Kind::Str) return;
    const std::string cps = "cp_size=" + std::to_string(*cp);
    Diagnostic d;
    if (type.value.s == "FSDP") {
      const auto version = run.accelerate.fsdp_version.as_int();
      if (!version || *version != 1) return;
      const Setting& v = run.accelerate.fsdp_version;
      d = make(support::primary_span(run, {&v, &type}),
               "context parallelism (" + cps + ") requires FSDP2, but this launch uses FSDP1" +
                   (v.span.valid() ? std::string("") : std::string(" (no `fsdp_version` is FSDP1)")));
      d.label = v.span.valid() ? "fsdp_version set here" : "FSDP selected here";
      d.notes.push_back(
          "accelerate raises ValueError at start-up (AcceleratorState: \"Using `cp_size>1` requires "
          "FSDP2\")");
      d.help = "set `fsdp_version: 2` under `fsdp_config:` (or pass `--fsdp_version 2`)";
    } else if (type.value.s == "DEEPSPEED") {
      d = make(support::primary_span(run, {&type}),
               "context parallelism (" + cps + ") with DeepSpeed: accelerate supports it only with FSDP2");
      d.label = "DeepSpeed selected here (" + type.origin_text() + ")";
      d.notes.push_back(
          "nothing raises: prepare() still attaches the context-parallel hooks to a DeepSpeed model, a "
          "combination accelerate does not support; use Ulysses (parallelism_config_sp_size) with "
          "DeepSpeed instead");
      d.help = "use `distributed_type: FSDP` with `fsdp_version: 2`, or DeepSpeed sequence parallelism (sp_size)";
    } else if (type.value.s == "MULTI_GPU") {
      // Only the MULTI_* branch of AcceleratorState checks for an FSDP plugin; a single process
      // (distributed_type NO) has no such check (accelerate v1.14 state.py, around line 985).
      d = make(support::primary_span(run, {&type}),
               "context parallelism (" + cps +
                   ") requires FSDP2, but this launch uses `distributed_type: " + type.value.s + "`");
      d.label = "distributed type set here (" + type.origin_text() + ")";
      d.notes.push_back("accelerate raises ValueError at start-up: `cp_size > 1` without an FSDP plugin");
      d.help = "use `distributed_type: FSDP` with `fsdp_config: {fsdp_version: 2}`";
    } else {
      return;
    }
    support::relate(d, run.cp_size, "context parallelism enabled here (" + cps + ")");
    support::relate_launch(d, run);
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_context_parallelism_requires_fsdp2() {
  return std::make_unique<ContextParallelismRequiresFsdp2>();
}

}  // namespace trl
