// TRL105 cp-sequence-not-divisible (error; warning when pad_to_multiple_of is unset)
//
// Torch context parallelism load-balances each sequence into 2 * cp_size chunks and asserts
// `seq_len % (2 * cp_size) == 0` (torch distributed/tensor/experimental/_attention.py load
// balancers). Batches padded to the longest sequence only meet that when pad_to_multiple_of is a
// multiple of 2 * cp_size. The config's pad_to_multiple_of reaches only the collator the trainer
// builds itself: SFTTrainer.__init__ makes DataCollatorForLanguageModeling(pad_to_multiple_of=
// args.pad_to_multiple_of) only `if data_collator is None` (trl/trainer/sft_trainer.py@v1.9.0
// L1186-1207).

#include "rules/support/rule_support.hpp"
#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL105",           "cp-sequence-not-divisible",
                     Severity::Error,    "Context parallelism needs sequence lengths divisible by 2 * cp_size.",
                     R"(## What it does
Finds runs with context parallelism (`cp_size > 1`) whose `pad_to_multiple_of` is not a multiple
of `2 * cp_size` (error), or is unset so that batch lengths are arbitrary (warning).

The setting only reaches the collator the trainer builds itself: when the trainer call passes a
`data_collator=` (or may, through `**kwargs`), or an argument at the position of `data_collator`
for the target TRL version (`SFTTrainer(model, args, collator)`; any position the parameter has
had when the version is unknown), the config's `pad_to_multiple_of` is not used and nothing is
reported.

## Why is this bad?
PyTorch's context parallelism splits each sequence into `2 * cp_size` chunks for load balancing
and asserts that the length divides evenly. A batch padded to its longest sequence fails that
assertion as soon as a length is not a multiple, at the first such step, after the model has loaded.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
pad_to_multiple_of: 2     # cp_size 2 needs a multiple of 4
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
pad_to_multiple_of: 4     # 2 * cp_size
```

## References
- trl `trl/trainer/sft_trainer.py` (`if data_collator is None`, v1.9.0)
- trl `docs/source/distributing_training.md` (Ring attention: "sequence length divisible by cp_size*2")
- torch `torch/distributed/tensor/experimental/_attention.py` (`_HeadTailLoadBalancer`, `_RoundRobinLoadBalancer`)
)", "warning when `pad_to_multiple_of` is unset"};

// True when some trainer call of the run's script passes (or may pass) its own data collator, by
// keyword or by position: the config's pad_to_multiple_of then reaches no collator. The position
// of data_collator depends on the trainer and on its library's version (rules/knowledge/
// trainer_signatures.yaml: 2 in SFTTrainer at every release, 3 to 6 in DPOTrainer); with the
// version unknown, an argument at any position it has had counts.
bool passes_collator(const RuleContext& context, const TrainingRun& run) {
  const Knowledge& k = Knowledge::get();
  for (const Construction& c : context.trainer_calls(run, "")) {
    if (const rules::Passed p = rules::keyword_passed(c, "data_collator");
        p != rules::Passed::Absent && p != rules::Passed::None)
      return true;
    if (c.positional.empty()) continue;
    const VersionTarget& target = context.targets(run).of(c.cls ? k.library_of(c.cls->name) : std::string("trl"));
    if (const rules::Passed p = rules::positional_passed(c, "data_collator", target);
        p != rules::Passed::Absent && p != rules::Passed::None)
      return true;
  }
  return false;
}

class CpSequenceNotDivisible final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    const auto cp = run.cp_size.as_int();
    if (!cp || *cp <= 1 || !run.config_class || support::is_rl_generation_trainer(run)) return;
    if (!Knowledge::get().field(*run.config_class, "pad_to_multiple_of")) return;
    const Setting pad = run.arg("pad_to_multiple_of");
    if (!pad.known()) return;
    const std::int64_t need = 2 * *cp;
    if (pad.value.kind != Scalar::Kind::Null) {
      const auto p = pad.as_int();
      if (!p || (*p > 0 && *p % need == 0)) return;
    }
    if (passes_collator(context, run)) return;
    const std::string cps = "cp_size=" + std::to_string(*cp);
    if (pad.value.kind == Scalar::Kind::Null) {
      Diagnostic d = make(support::primary_span(run, {&pad, &run.cp_size}),
                          "context parallelism (" + cps +
                              ") without `pad_to_multiple_of`: sequence lengths must be "
                              "divisible by " +
                              std::to_string(need));
      d.severity = Severity::Warning;
      d.label = "context parallelism enabled here";
      support::relate_launch(d, run);
      d.notes.push_back(
          "batches are padded to their longest sequence; torch's context parallelism raises at the first "
          "batch whose length is not a multiple of 2 * cp_size");
      d.help = "set `" + rules::assignment(run, pad, "pad_to_multiple_of", Scalar::integer(need)) + "`";
      out.push_back(std::move(d));
      return;
    }
    const auto p = pad.as_int();
    if (!p || (*p > 0 && *p % need == 0)) return;
    Diagnostic d = make(support::primary_span(run, {&pad, &run.cp_size}),
                        "`" + rules::assignment(run, pad, "pad_to_multiple_of", Scalar::integer(*p)) +
                            "` is not a multiple of 2 * cp_size (" + std::to_string(need) + ")");
    d.label = "pad_to_multiple_of set here (" + pad.origin_text() + ")";
    support::relate(d, run.cp_size, "context parallelism enabled here (" + cps + ")");
    support::relate_launch(d, run);
    d.notes.push_back(
        "torch's context parallelism asserts at the first batch whose length is not divisible by "
        "2 * cp_size, after the model has loaded");
    d.help = "set `" + rules::assignment(run, pad, "pad_to_multiple_of", Scalar::integer(need)) + "`";
    out.push_back(std::move(d));
  }
};

}  // namespace

std::unique_ptr<Rule> make_cp_sequence_not_divisible() {
  return std::make_unique<CpSequenceNotDivisible>();
}

}  // namespace trl
