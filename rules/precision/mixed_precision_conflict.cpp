// TRL404 mixed-precision-conflict (warning)
//
// transformers TrainingArguments.__post_init__ reads ACCELERATE_MIXED_PRECISION (exported by
// accelerate launch from `mixed_precision`) and overrides it with "fp16"/"bf16" when the trainer's
// flag is set. A trainer flag that disagrees with the accelerate config wins silently. TRL
// configs default bf16 to `not fp16` (trl/trainer/base_config.py).

#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL404", "mixed-precision-conflict", Severity::Warning,
                     "The accelerate config's mixed_precision disagrees with the trainer's fp16/bf16.",
                     R"(## What it does
Finds `accelerate launch` runs whose accelerate `mixed_precision` (`fp16`, `bf16` or `fp8`)
differs from the precision the trainer's `fp16`/`bf16` flags select. TRL configs turn `bf16` on
unless `fp16` is set, so an accelerate config with `mixed_precision: fp16` and a TRL trainer with
no precision flags counts. DeepSpeed runs (precision from the DeepSpeed JSON) are skipped.

## Why is this bad?
`TrainingArguments` overrides the launcher's `ACCELERATE_MIXED_PRECISION` with its own flag:
the run trains in the trainer's precision, silently ignoring the accelerate config.

## Example
```yaml
# recipes/accelerate.yaml
distributed_type: MULTI_GPU
num_processes: 2
mixed_precision: fp16
```
```yaml
# recipes/sft.yaml
# no fp16 or bf16: TRL's bf16 defaults to true
model_name_or_path: Qwen/Qwen2.5-0.5B
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml --accelerate_config recipes/accelerate.yaml
```

## Use instead
Make them agree: `mixed_precision: bf16`, or `fp16: true` in the trainer config.
```yaml
# recipes/accelerate.yaml
distributed_type: MULTI_GPU
num_processes: 2
mixed_precision: bf16
```

## References
- transformers `src/transformers/training_args.py` `TrainingArguments.__post_init__` (mixed precision)
- trl `trl/trainer/base_config.py` (`bf16=None` resolves to `not fp16`)
)"};

class MixedPrecisionConflict final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    const AccelerateSettings& a = run.accelerate;
    if (!a.launched || !run.config_class) return;
    if (!a.distributed_type.known() || support::is_str(a.distributed_type, "DEEPSPEED")) return;
    const Setting& mp = a.mixed_precision;
    if (!mp.known() || mp.value.kind != Scalar::Kind::Str) return;
    const std::string acc = mp.value.s;
    if (acc != "fp16" && acc != "bf16" && acc != "fp8") return;
    const Setting trainer = run.trainer_precision();
    if (!trainer.known() || trainer.value.s == "no" || trainer.value.s == acc) return;
    const bool by_default = !trainer.span.valid();
    // TRL configs default bf16 to `not fp16` from TRL 0.19.0 (RLOOConfig from 0.22.0); before,
    // TrainingArguments' False (trl/trainer/*_config.py): an older target is not judged.
    std::optional<VersionTarget> trl;
    if (by_default && run.config_class->package == "trl" &&
        !(trl = rules::trl_target_at_least(
              context, run, Knowledge::get().derives_from(*run.config_class, "RLOOConfig") ? "0.22.0" : "0.19.0")))
      return;
    Diagnostic d = make(mp.span.valid() ? mp.span : support::primary_span(run, {&trainer}),
                        "accelerate `mixed_precision: " + acc + "` disagrees with the trainer's `" + trainer.value.s +
                            ": true`" + (by_default ? " (the " + support::trainer_name(run) + " default)" : ""));
    d.label = "accelerate mixed precision set here (" + mp.origin_text() + ")";
    support::relate(d, trainer, trainer.value.s + " set here");
    support::relate_launch(d, run);
    d.notes.push_back("TrainingArguments overrides the launcher's precision: the run trains in " + trainer.value.s +
                      " and the accelerate setting is silently ignored");
    if (trl) d.notes.push_back("judged against " + trl->describe() + ": TRL configs default bf16 to `not fp16`");
    d.help = "set `mixed_precision: " + trainer.value.s + "` in the accelerate config, or set `" + acc +
             ": true` (and `" + trainer.value.s + ": false`) in the trainer config";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_mixed_precision_conflict() {
  return std::make_unique<MixedPrecisionConflict>();
}

}  // namespace trl
