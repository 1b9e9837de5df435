// TRL101 packing-with-context-parallelism (error)
//
// What it does: finds SFT runs that pack sequences (`packing` or `eval_packing`) while
// context parallelism is on (cp_size > 1), wherever each setting was made: trainer YAML,
// Python, command line, accelerate YAML, launch flags or the environment.
//
// Why is this bad? Packed documents are kept apart only by a block-diagonal attention mask
// (position_ids resets read by FlashAttention's varlen kernels). accelerate's context-parallel
// hook replaces every self-attention layer's mask with plain causal attention
// (accelerate big_modeling.py `_attach_context_parallel_hooks`, v1.10+), so each packed document
// attends to the documents before it in the same row. TRL raises at SFTTrainer init only after
// v1.9.0 (huggingface/trl PR #6843), after the model has loaded; older TRL trains silently on
// contaminated sequences.

#include "analyzer/knowledge/knowledge.hpp"
#include "rules/rule.hpp"
#include "rules/support/rule_support.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL101", "packing-with-context-parallelism", Severity::Error,
                     "SFT packing with context parallelism: packed documents attend to each other.",
                     R"(## What it does
Finds SFT runs where `packing` (or `eval_packing`) is on while context parallelism is enabled
(`cp_size > 1`), whichever files the two settings live in: the trainer YAML passed with
`--config`, `SFTConfig(...)` in Python, a flag on the launch line, the accelerate YAML
(`parallelism_config.parallelism_config_cp_size`), `accelerate launch --parallelism_config_cp_size`,
`ParallelismConfig(cp_size=...)` given to the config or an `Accelerator`, or the
`PARALLELISM_CONFIG_CP_SIZE` environment variable.

## Why is this bad?
Packing puts several documents in one row and keeps them apart with a block-diagonal
attention mask. Context parallelism cannot express that mask: accelerate's context-parallel
hook drops every self-attention layer's `attention_mask` and sets `is_causal=True`. Each packed
document then attends to all documents before it in the row. Nothing crashes; the model
trains on cross-contaminated sequences. TRL releases after v1.9.0 raise a `ValueError` in
`SFTTrainer.__init__`, after the model has already loaded on the cluster; v1.9.0 and older
train silently.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
packing: true
pad_to_multiple_of: 4   # context parallelism needs lengths divisible by 2 * cp_size
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
packing: false
pad_to_multiple_of: 4
```
or keep packing and turn context parallelism off (`parallelism_config_cp_size: 1`).

## References
- huggingface/trl PR #6843 "Raise when packing is combined with context parallelism"
  (`trl/trainer/sft_trainer.py`, `SFTTrainer.__init__`, after v1.9.0)
- accelerate `src/accelerate/big_modeling.py` `_attach_context_parallel_hooks` (v1.10.0+)
- accelerate `docs/source/concept_guides/context_parallelism.md`: "works only with SDPA and only
  with no mask or causal mask"
)"};

// The last release that trains on without a word; the check landed after it (PR #6843).
constexpr std::string_view kLastSilentTrl = "1.9.0";

// What TRL does with the run at its target version: raise at start-up or train silently.
std::string consequence(const VersionTarget& trl) {
  const std::string mechanism =
      "context parallelism replaces each layer's attention mask with plain causal attention, so every packed "
      "document attends to the documents before it in the row; ";
  if (!trl.known())
    return mechanism +
           "TRL after v1.9.0 raises at SFTTrainer init, older TRL trains silently on the "
           "contaminated sequences (target TRL version unknown: " +
           trl.why + ")";
  if (compare_versions(*trl.version, kLastSilentTrl) > 0)
    return mechanism + "judged against " + trl.describe() +
           ", which raises ValueError at SFTTrainer init, after the model has loaded on the cluster";
  return mechanism + "judged against " + trl.describe() +
         ", which trains silently on the contaminated sequences (TRL raises only after v1.9.0)";
}

class PackingWithContextParallelism final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    if (!run.is_sft_family()) return;
    // Every path must have cp > 1 (a OneOf counts only when all of its values do).
    const auto cp = run.cp_size.min_int();
    if (!cp || *cp <= 1) return;
    const std::string cp_text = run.cp_size.describe();
    for (const char* field : {"packing", "eval_packing"}) {
      const Setting on = run.arg(field);
      if (on.truth() != Truth::True || !on.primary_span().valid()) continue;
      Diagnostic d =
          make(on.primary_span(), "`" + std::string(field) + "` with context parallelism (cp_size=" + cp_text +
                                      ") breaks document isolation");
      d.label = std::string(field) + " enabled here (" + on.origin_text() + ")";
      if (on.primary_span() != on.span && on.span.valid())
        d.related.push_back({on.span, "passed as `" + std::string(field) + "` here"});
      for (const auto& step : on.chain) d.related.push_back({step.span, "flows through: " + step.message});
      if (run.cp_size.primary_span().valid())
        d.related.push_back({run.cp_size.primary_span(), "context parallelism enabled here (cp_size=" + cp_text + ", " +
                                                             run.cp_size.origin_text() + ")"});
      if (run.launch) d.related.push_back({run.launch->span, "both meet in this launch", true});
      d.notes.push_back(consequence(context.targets(run).trl));
      const std::string f(field);
      if (on.origin == Origin::Python)
        d.help = "pass `" + f + "=False`" + (f == "packing" ? " (and `eval_packing=False`)" : "") +
                 ", or turn context parallelism off (`cp_size=1`)";
      else if (on.origin == Origin::CommandLine)
        d.help = "drop `--" + f + "` (or pass `--" + f + " false`), or turn context parallelism off (cp_size 1)";
      else
        d.help = "set `" + f + ": false`" + (f == "packing" ? " (and `eval_packing: false`)" : "") +
                 ", or turn context parallelism off (`parallelism_config_cp_size: 1`)";
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_packing_with_context_parallelism() {
  return std::make_unique<PackingWithContextParallelism>();
}

}  // namespace trl
