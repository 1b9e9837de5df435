// TRL204 wrapped-packing-crosses-documents (info)
//
// trl/data_utils.py pack_dataset: the "wrapped" strategy concatenates every sample and cuts rows at
// max_length, without position_ids resets, so documents are split and attend to each other.

#include "rules/rule_support.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL204", "wrapped-packing-crosses-documents", Severity::Info,
                     "packing_strategy `wrapped` cuts documents and lets them attend to each other.",
                     R"(## What it does
Reports SFT runs with `packing: true` and `packing_strategy: wrapped`.

## Why is this bad?
`wrapped` concatenates the whole dataset and cuts it into rows of `max_length`: documents are
split mid-sequence and attend to their neighbours, whatever the attention implementation. TRL's
docs note that it can hurt performance. It is a deliberate choice for pre-training-style data.

## Example
```yaml
packing: true
packing_strategy: wrapped
```

## Use instead
```yaml
packing_strategy: bfd
attn_implementation: flash_attention_2
```

## References
- trl `trl/data_utils.py` `pack_dataset`; trl issue #3067
)"};

class WrappedPackingCrossesDocuments final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const Project&, std::vector<Diagnostic>& out) const override {
    if (!run.is_sft_family()) return;
    const Setting packing = run.arg("packing");
    const Setting strategy = run.arg("packing_strategy");
    if (!packing.known_true() || !support::is_str(strategy, "wrapped")) return;
    Diagnostic d = make(support::primary_span(run, {&strategy, &packing}),
                        "`packing_strategy: wrapped` splits documents across rows and lets them attend to each other");
    d.label = "wrapped packing selected here (" + strategy.origin + ")";
    support::relate_launch(d, run);
    d.help = "use `packing_strategy: bfd` with FlashAttention to keep documents apart";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_wrapped_packing_crosses_documents() {
  return std::make_unique<WrappedPackingCrossesDocuments>();
}

}  // namespace trl
