// TRL204 wrapped-packing-crosses-documents (info)
//
// trl/data_utils.py pack_dataset: the "wrapped" strategy concatenates every sample and cuts rows at
// max_length, without position_ids resets, so documents are split and attend to each other. From
// TRL 0.16.0 to 0.18.x there is no packing_strategy and `packing: true` does just that
// (trl/data_utils.py pack_dataset@v0.16.0..v0.18.2: the columns are concatenated and cut every
// seq_length tokens; sft_trainer.py@v0.18.2 calls it whenever args.packing).

#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL204", "wrapped-packing-crosses-documents", Severity::Info,
                     "packing_strategy `wrapped` cuts documents and lets them attend to each other.",
                     R"(## What it does
Reports SFT runs with `packing: true` and `packing_strategy: wrapped`, and SFT runs with
`packing: true` whose target is TRL 0.16.0 to 0.18.x: those releases have no `packing_strategy`,
and packing always works the way `wrapped` does later.

## Why is this bad?
`wrapped` concatenates the whole dataset and cuts it into rows of `max_length`: documents are
split mid-sequence and attend to their neighbours, whatever the attention implementation. TRL's
docs note that it can hurt performance. It is a deliberate choice for pre-training-style data.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
packing: true
packing_strategy: wrapped
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
packing_strategy: bfd
```
(with TRL 0.20.0 or later, and FlashAttention where TRL201 asks for it; before 0.19.0 the only way
to keep documents apart is not to pack).

## References
- trl `trl/data_utils.py` `pack_dataset` (v0.16.0..v0.18.2: concatenate and cut); trl issue #3067
)"};

class WrappedPackingCrossesDocuments final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!run.is_sft_family()) return;
    const Setting packing = run.arg("packing");
    if (packing.truth() != Truth::True) return;
    const rules::PackingStrategy ps = rules::packing_strategy(context, run);
    if (ps.name == "concatenated") {
      Diagnostic d = make(support::primary_span(run, {&packing}),
                          "packing in " + ps.target->describe() +
                              " concatenates the dataset: documents are split across rows and attend to each other");
      d.label = "packing enabled here (" + packing.origin_text() + ")";
      support::relate_launch(d, run);
      d.notes.push_back(
          "TRL before 0.19.0 has no `packing_strategy`: pack_dataset cuts the concatenated dataset every "
          "`max_length` tokens, like the later `wrapped` strategy");
      d.help = "upgrade to TRL >= 0.20.0 and use `packing_strategy: bfd` with FlashAttention, or `packing: false`";
      out.push_back(std::move(d));
      return;
    }
    const Setting& strategy = ps.setting;
    if (!support::is_str(strategy, "wrapped")) return;
    Diagnostic d = make(support::primary_span(run, {&strategy, &packing}),
                        "`packing_strategy: wrapped` splits documents across rows and lets them attend to each other");
    d.label = "wrapped packing selected here (" + strategy.origin_text() + ")";
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
