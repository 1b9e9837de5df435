// TRL202 padding-free-without-flash-attention (warning)
//
// SFTTrainer (trl/trainer/sft_trainer.py@v1.9.0) warns when padding_free is on and the attention
// implementation is not a FlashAttention variant: the flattened batch is one sequence to sdpa/eager
// unless transformers (4.54.0+) separates the samples by their position_ids (see
// rules::attention_may_separate_packed).

#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL202", "padding-free-without-flash-attention", Severity::Warning,
                     "SFT padding_free without FlashAttention: batch samples attend to each other.",
                     R"(## What it does
Finds SFT runs with `padding_free: true` (and packing off; packing is TRL201's business) whose
model is not loaded with a FlashAttention implementation. transformers' default is `sdpa`.

From transformers 4.54.0 the other implementations keep the samples apart themselves when the
batch has position_ids that restart at each sample, no attention mask and no cache, which is
what TRL's padding-free batches are from TRL 0.22.0 (SFTTrainer turns the cache off). The rule
reports only a transformers target before 4.54.0, or a TRL target before 0.22.0 without gradient
checkpointing.

## Why is this bad?
Padding-free training flattens the batch into one sequence and separates samples only with
`position_ids`. `sdpa` and `eager` ignore them, so each sample attends to the samples before it.
TRL only logs a warning.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
padding_free: true
max_length: null
attn_implementation: sdpa
```
```text
# requirements.txt
transformers==4.53.0
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml
```

## Use instead
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
padding_free: true
max_length: null
attn_implementation: flash_attention_2
```

## References
- trl `trl/trainer/sft_trainer.py` (padding-free warning, `FLASH_ATTENTION_VARIANTS`)
- trl issue #2834 (loss spike: padding-free without FlashAttention)
- transformers `src/transformers/masking_utils.py` (`find_packed_sequence_indices`, PR #39194, v4.54.0)
- trl `trl/trainer/sft_trainer.py` `compute_loss` (`use_cache=False`, PR #3891, v0.22.0)
)"};

class PaddingFreeWithoutFlashAttention final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!run.is_sft_family()) return;
    const Setting pf = run.arg("padding_free");
    const Setting packing = run.arg("packing");
    if (pf.truth() != Truth::True || packing.truth() != Truth::False) return;
    const Setting& attn = run.attn_implementation;
    if (!attn.known() || attn.value.kind != Scalar::Kind::Str || support::is_flash_attention(attn.value.s)) return;
    if (rules::attention_may_separate_packed(context, run)) return;
    Diagnostic d = make(support::primary_span(run, {&pf, &attn}),
                        "`padding_free` without FlashAttention: the model uses `" + attn.value.s +
                            "`, which ignores the sample boundaries of the flattened batch");
    d.label = "padding_free enabled here (" + pf.origin_text() + ")";
    support::relate(d, attn, "attention implementation `" + attn.value.s + "`");
    support::relate_launch(d, run);
    d.notes.push_back("TRL only logs a warning; training proceeds with samples attending to each other");
    d.help = "set `attn_implementation: flash_attention_2`, or `padding_free: false`";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_padding_free_without_flash_attention() {
  return std::make_unique<PaddingFreeWithoutFlashAttention>();
}

}  // namespace trl
