// TRL401 fp16-and-bf16 (error)
//
// transformers TrainingArguments.__post_init__: "At most one of fp16 and bf16 can be True".

#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL401", "fp16-and-bf16", Severity::Error, "fp16 and bf16 both true.",
                     R"(## What it does
Finds trainer configs where `fp16` and `bf16` are both true. Values computed at run time
(`fp16=not is_bf16_supported()`) are unknown and never reported.

## Why is this bad?
`TrainingArguments.__post_init__` raises `ValueError: At most one of fp16 and bf16 can be True`
at start-up.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
fp16: true
bf16: true
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml
```

## Use instead
Keep one (`bf16: true` on Ampere or newer GPUs):
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
bf16: true
```

## References
- transformers `src/transformers/training_args.py` `TrainingArguments.__post_init__`
)"};

class Fp16AndBf16 final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext&, std::vector<Diagnostic>& out) const override {
    const Setting fp16 = run.arg("fp16");
    const Setting bf16 = run.arg("bf16");
    if (fp16.truth() != Truth::True || bf16.truth() != Truth::True) return;
    Diagnostic d = make(support::primary_span(run, {&bf16, &fp16}), "`fp16` and `bf16` are both true");
    d.label = "bf16 set here (" + bf16.origin_text() + ")";
    support::relate(d, fp16, "fp16 set here");
    support::relate_launch(d, run);
    d.notes.push_back("TrainingArguments raises ValueError at start-up");
    d.help = "set one of them to false";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_fp16_and_bf16() {
  return std::make_unique<Fp16AndBf16>();
}

}  // namespace trl
