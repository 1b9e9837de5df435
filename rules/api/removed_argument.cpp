// TRL502 removed-argument: an argument the target version removed without a replacement
// (dataset_batch_size, vllm_device, overwrite_output_dir, ...).

#include "rules/api/rename_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL502",           "removed-argument",
                     Severity::Error,    "An argument the target version removed without a replacement.",
                     R"(## What it does
Finds arguments that TRL, transformers or accelerate removed without a direct replacement, in
trainer YAML keys, launch-line flags and Python keyword arguments of known classes, judged
against the target version (pins, `--target-version`, or the newest known release; the message
says which). An error once removed; a warning while only deprecated (also when the class still
takes the name). Not reported for a name a library the script imports makes valid again
(`rules/knowledge/patchers.yaml`: SFTTrainer's `packing=` after `import unsloth`).

## Why is this bad?
Python raises `TypeError` on the keyword, `HfArgumentParser` rejects the flag, and `TrlParser`
rejects the YAML key, all before training starts; TRL's own scripts drop such YAML keys
silently, so a setting the author relied on (`vllm_device: auto`, `overwrite_output_dir: true`)
simply does nothing.

## Example
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
use_vllm: true
vllm_device: auto
```
```bash
# launch.sh
trl grpo --config recipes/grpo.yaml
```

## Use instead
```yaml
# recipes/grpo.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
reward_funcs: [accuracy_reward]
use_vllm: true
vllm_mode: server   # and start the server with `trl vllm-serve`
```

## Fix
None: what replaces the argument depends on the case; the note says what to do.

## References
- `trl/trainer/grpo_config.py` (v0.17.0: `vllm_device`, `vllm_dtype`, ... deprecated; removed in v0.18.0)
- `trl/trainer/sft_config.py` (v0.17.0: `dataset_batch_size`, `chars_per_token` removed in v0.18.0)
- transformers `MIGRATION_GUIDE_V5.md` (arguments removed in v5.0.0: `overwrite_output_dir`, ...)
- the full list: `rules/knowledge/fields_*.yaml`, section `renames:` (entries with `new: null`)
)", "warning while the argument is only deprecated"};

class RemovedArgument final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    rules::find_renamed_in_run(*this, true, context, run, out);
  }
  void check_script(const RuleContext& context, FileId file, const ScriptSummary& summary,
                    std::vector<Diagnostic>& out) const override {
    rules::find_renamed_in_script(*this, true, context, file, summary, out);
  }
};

}  // namespace

std::unique_ptr<Rule> make_removed_argument() {
  return std::make_unique<RemovedArgument>();
}

}  // namespace trl
