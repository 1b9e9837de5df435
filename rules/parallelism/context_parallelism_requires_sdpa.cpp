// TRL103 context-parallelism-requires-sdpa (error)
//
// transformers' Trainer (_prepare_context_parallel_inputs) raises ValueError "Context parallelism
// is supported only with SDPA attention" at the first training step when the model's
// attn_implementation is not sdpa; the model has already loaded on every GPU by then.

#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL103", "context-parallelism-requires-sdpa", Severity::Error,
                     "Context parallelism with an attention implementation other than sdpa.",
                     R"(## What it does
Finds runs with context parallelism (`cp_size > 1`) whose model is loaded with an
`attn_implementation` other than `sdpa` (`flash_attention_2`, `eager`, `flex_attention`, ...),
whether it is set in `ModelConfig` / `--attn_implementation`, in `model_init_kwargs`, or in a
`from_pretrained(attn_implementation=...)` call.

## Why is this bad?
PyTorch's context parallelism (ring attention) works only through SDPA. The transformers
Trainer raises `ValueError: Context parallelism is supported only with SDPA attention` when it
prepares the first batch, after the model has loaded on every GPU.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
attn_implementation: flash_attention_2
pad_to_multiple_of: 4
```
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 2
parallelism_config:
  parallelism_config_cp_size: 2
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml --accelerate_config recipes/accelerate.yaml
```

## Use instead
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
attn_implementation: sdpa
pad_to_multiple_of: 4
```
or use DeepSpeed Ulysses sequence parallelism (`parallelism_config_sp_size`), which supports
FlashAttention.

## References
- transformers `src/transformers/trainer.py` `_prepare_context_parallel_inputs`
- accelerate `docs/source/concept_guides/context_parallelism.md` ("works only with SDPA")
)"};

class ContextParallelismRequiresSdpa final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext&, std::vector<Diagnostic>& out) const override {
    const auto cp = run.cp_size.as_int();
    if (!cp || *cp <= 1) return;
    const Setting& attn = run.attn_implementation;
    if (!attn.known() || attn.value.kind != Scalar::Kind::Str || attn.value.s == "sdpa") return;
    Diagnostic d =
        make(support::primary_span(run, {&attn, &run.cp_size}), "context parallelism (cp_size=" + std::to_string(*cp) +
                                                                    ") requires `attn_implementation: sdpa`, "
                                                                    "but the model uses `" +
                                                                    attn.value.s + "`");
    d.label = "attn_implementation set here (" + attn.origin_text() + ")";
    support::relate(d, run.cp_size, "context parallelism enabled here (cp_size=" + std::to_string(*cp) + ")");
    support::relate_launch(d, run);
    d.notes.push_back(
        "the transformers Trainer raises ValueError at the first training step, after the model has "
        "loaded on every GPU");
    d.help = "set `attn_implementation: sdpa`, or use Ulysses sequence parallelism (sp_size) for FlashAttention";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_context_parallelism_requires_sdpa() {
  return std::make_unique<ContextParallelismRequiresSdpa>();
}

}  // namespace trl
