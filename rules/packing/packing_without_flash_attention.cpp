// TRL201 packing-without-flash-attention (warning)
//
// SFTTrainer (trl/trainer/sft_trainer.py@v1.9.0): bfd/bfd_split packing keeps documents apart only
// through position_ids resets that FlashAttention's varlen kernels read; with any other
// attention implementation TRL logs a warning and trains with cross-contamination. In TRL 0.19.x the
// strategy was "ffd" (the default) and the warning asked for flash_attention_2 alone
// (sft_trainer.py@v0.19.0 L445-455); before 0.19.0 there is no strategy: packing concatenates the
// dataset (TRL204 reports that), and no attention implementation keeps the rows' documents apart.

#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL201", "packing-without-flash-attention", Severity::Warning,
                     "SFT packing (bfd) without a FlashAttention implementation: packed samples attend to each other.",
                     R"(## What it does
Finds SFT runs with `packing: true` and `packing_strategy` `bfd` or `bfd_split` whose model is
not loaded with a FlashAttention implementation (`flash_attention_2`, `flash_attention_3` or a
`kernels-community/*flash-attn*` kernel). transformers' default, when nothing is set, is `sdpa`.

The strategy is read as the target TRL release applies it: `bfd` is the default from TRL 0.20.0;
TRL 0.19.x calls it `ffd` (its default) and asks for `flash_attention_2`. Before 0.19.0 there is
no `packing_strategy`: packing concatenates the dataset and cuts it into rows, which FlashAttention
does not change, so this rule is silent there (TRL204 reports it).

From transformers 4.54.0, `sdpa`, `eager` and `flex_attention` keep the samples apart themselves
when the batch has position_ids that restart at each sample, no attention mask and no cache
(transformers builds a block-diagonal mask from the position_ids): TRL's packed batches are
like that, and SFTTrainer turns the cache off from TRL 0.22.0. The rule reports only a
transformers target before 4.54.0, or a TRL target before 0.22.0 without gradient checkpointing
(the model's cache is then on, and transformers skips the detection).

## Why is this bad?
BFD packing concatenates samples into one row and marks the boundaries only through
`position_ids`, which FlashAttention's variable-length kernels honour and `sdpa`/`eager` ignore.
TRL only logs a warning; training proceeds with every packed sample attending to the samples
before it in the row.

## Example
```yaml
# recipes/sft.yaml
# attn_implementation not set: transformers uses sdpa
model_name_or_path: Qwen/Qwen2.5-0.5B
packing: true
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
packing: true
attn_implementation: flash_attention_2
```
or `packing: false`, or transformers 4.54.0 or later with TRL 0.22.0 or later.

## References
- trl `trl/trainer/sft_trainer.py` (`FLASH_ATTENTION_VARIANTS`, packing warning, v0.19.0+ PR #3526)
- trl `trl/trainer/sft_config.py` (`packing_strategy`: default `ffd` in v0.19.x, `bfd` from v0.20.0)
- transformers `src/transformers/masking_utils.py` (`find_packed_sequence_indices`, PR #39194, v4.54.0)
- trl `trl/trainer/sft_trainer.py` `compute_loss` (`use_cache=False`, PR #3891, v0.22.0)
- trl `docs/source/reducing_memory_usage.md` (packing)
)"};

class PackingWithoutFlashAttention final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!run.is_sft_family()) return;
    const Setting packing = run.arg("packing");
    if (packing.truth() != Truth::True) return;
    const rules::PackingStrategy strategy = rules::packing_strategy(context, run);
    const std::string& st = strategy.name;
    // ffd: TRL 0.19.x only (packing_strategy() gives it for that target alone, and as a value
    // written for an unknown target, where 0.19 is the one release that takes it).
    const bool ffd = st == "ffd";
    if (st != "bfd" && st != "bfd_split" && st != "bfd-requeue" && !ffd) return;
    const Setting& attn = run.attn_implementation;
    if (!attn.known() || attn.value.kind != Scalar::Kind::Str) return;
    if (ffd ? attn.value.s == "flash_attention_2" : support::is_flash_attention(attn.value.s)) return;
    if (rules::attention_may_separate_packed(context, run)) return;
    Diagnostic d = make(support::primary_span(run, {&packing, &attn}),
                        "packing (`" + st + "`) without FlashAttention: the model uses `" + attn.value.s +
                            "`, which ignores the sample boundaries packing relies on");
    d.label = "packing enabled here (" + packing.origin_text() + ")";
    support::relate(d, attn, "attention implementation `" + attn.value.s + "`");
    support::relate_launch(d, run);
    d.notes.push_back("TRL only logs a warning; training proceeds with packed samples attending to each other");
    if (ffd && strategy.target && strategy.setting.origin == Origin::Default)
      d.notes.push_back("`" + st + "` is the default packing_strategy of " + strategy.target->describe());
    d.help = ffd ? "set `attn_implementation: flash_attention_2`, or `packing: false`"
                 : "set `attn_implementation: flash_attention_2` (or a flash-attn kernel), or `packing: false`";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_packing_without_flash_attention() {
  return std::make_unique<PackingWithoutFlashAttention>();
}

}  // namespace trl
