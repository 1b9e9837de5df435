// TRL201 packing-without-flash-attention (warning)
//
// SFTTrainer (trl/trainer/sft_trainer.py@v1.9.0): bfd/bfd_split packing keeps documents apart only
// through position_ids resets that FlashAttention's varlen kernels read; with any other
// attention implementation TRL logs a warning and trains with cross-contamination.

#include "rules/rule_support.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL201", "packing-without-flash-attention", Severity::Warning,
                     "SFT packing (bfd) without a FlashAttention implementation: packed samples attend to each other.",
                     R"(## What it does
Finds SFT runs with `packing: true` and `packing_strategy` `bfd` or `bfd_split` whose model is
not loaded with a FlashAttention implementation (`flash_attention_2`, `flash_attention_3` or a
`kernels-community/*flash-attn*` kernel). transformers' default, when nothing is set, is `sdpa`.

## Why is this bad?
BFD packing concatenates samples into one row and marks the boundaries only through
`position_ids`, which FlashAttention's variable-length kernels honour and `sdpa`/`eager` ignore.
TRL only logs a warning; training proceeds with every packed sample attending to the samples
before it in the row.

## Example
```yaml
packing: true
# attn_implementation not set: sdpa
```

## Use instead
```yaml
packing: true
attn_implementation: flash_attention_2
```
or `packing: false`.

## References
- trl `trl/trainer/sft_trainer.py` (`FLASH_ATTENTION_VARIANTS`, packing warning, v0.19.0+ PR #3526)
- trl `docs/source/reducing_memory_usage.md` (packing)
)"};

class PackingWithoutFlashAttention final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const Project&, std::vector<Diagnostic>& out) const override {
    if (!run.is_sft_family()) return;
    const Setting packing = run.arg("packing");
    if (!packing.known_true()) return;
    const Setting strategy = run.arg("packing_strategy");
    if (!strategy.known() || strategy.value.kind != Scalar::Kind::Str) return;
    const std::string& st = strategy.value.s;
    if (st != "bfd" && st != "bfd_split" && st != "bfd-requeue") return;
    const Setting& attn = run.attn_implementation;
    if (!attn.known() || attn.value.kind != Scalar::Kind::Str || support::is_flash_attention(attn.value.s)) return;
    Diagnostic d = make(support::primary_span(run, {&packing, &attn}),
                        "packing (`" + st + "`) without FlashAttention: the model uses `" + attn.value.s +
                            "`, which ignores the sample boundaries packing relies on");
    d.label = "packing enabled here (" + packing.origin + ")";
    support::relate(d, attn, "attention implementation `" + attn.value.s + "`");
    support::relate_launch(d, run);
    d.notes.push_back("TRL only logs a warning; training proceeds with packed samples attending to each other");
    d.help = "set `attn_implementation: flash_attention_2` (or a flash-attn kernel), or `packing: false`";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_packing_without_flash_attention() {
  return std::make_unique<PackingWithoutFlashAttention>();
}

}  // namespace trl
