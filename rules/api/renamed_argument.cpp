// TRL501 renamed-argument: an argument under its old name (max_seq_length, tokenizer=,
// evaluation_strategy, use_liger, torch_dtype, ...), judged at the project's target versions.

#include "rules/api/rename_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL501",           "renamed-argument",
                     Severity::Error,    "An argument is used under a name the target version renamed.",
                     R"(## What it does
Finds arguments spelled with a name that TRL, transformers or accelerate renamed: keys of the
trainer YAML passed with `--config`, flags on the launch line, and keyword arguments of known
classes in Python (`SFTConfig(max_seq_length=...)`, `SFTTrainer(tokenizer=...)`). The finding is
judged against the target version of the library that owns the argument: the version pinned in
`requirements*.txt`, `pyproject.toml`, `setup.cfg`, `setup.py` or `environment.yml` (the nearest
one), `--target-version`, or else the newest release trl-lint knows. The message says which.

It is an error once the target version has removed the old name, and a warning while the old
name is only deprecated, including a deprecated name the class still takes (`warmup_ratio` of
transformers 5.x `TrainingArguments`, copied into `warmup_steps` with a warning). Nothing is
reported for targets older than the deprecation, nor for a name a library the script imports
makes valid again (`rules/knowledge/patchers.yaml`: `tokenizer=` after `import unsloth`).

## Why is this bad?
A removed name fails: Python raises `TypeError: unexpected keyword argument`, `HfArgumentParser`
rejects the flag, and `TrlParser` rejects the YAML key ("Unknown arguments from config file").
TRL's own scripts (`trl/scripts/sft.py`, ...) parse with `fail_with_unknown_args=False`, so there
the key is dropped silently and the run trains with the default instead (`max_seq_length: 4096`
becomes `max_length: 1024`). A deprecated name still works but warns and breaks on upgrade.

## Example
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
max_seq_length: 4096
```
```python
# train.py
from transformers import AutoTokenizer
from trl import ModelConfig, ScriptArguments, SFTConfig, SFTTrainer, TrlParser

parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))
script_args, args, model_args = parser.parse_args_and_config()
tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path)
trainer = SFTTrainer(model=model_args.model_name_or_path, args=args, tokenizer=tokenizer)
trainer.train()
```
```bash
# launch.sh
accelerate launch train.py --config recipes/sft.yaml
```
```text
# requirements.txt
trl>=0.19.1
```
The target is the newest TRL release `trl>=0.19.1` allows.

## Use instead
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
max_length: 4096
```
```python
# train.py
from transformers import AutoTokenizer
from trl import ModelConfig, ScriptArguments, SFTConfig, SFTTrainer, TrlParser

parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))
script_args, args, model_args = parser.parse_args_and_config()
tokenizer = AutoTokenizer.from_pretrained(model_args.model_name_or_path)
trainer = SFTTrainer(model=model_args.model_name_or_path, args=args, processing_class=tokenizer)
trainer.train()
```

## Fix
Safe: replaces the old name with the new one, unless the new name is set in the same place.
Unsafe when the keyword is written outside the call, in a dict passed with `**`: other calls may
read that dict. None in notebooks (the finding points at the line, not at the JSON string). None
for renames whose new name needs another value or breaks code that reads the old one: RLOO's
`total_episodes` (TRL sets `max_steps = total_episodes // gradient_accumulation_steps`) and
ModelConfig's `torch_dtype` (a script reading `model_args.torch_dtype` gets None after the rename).

## References
- `trl/trainer/sft_config.py` (v0.19.1: `max_seq_length` deprecated, removed in v0.20.0)
- `trl/trainer/sft_trainer.py` (v0.15.2: `tokenizer` deprecated for `processing_class`, removed in v0.16.0)
- `trl/trainer/model_config.py` (v0.26.2: `torch_dtype` renamed to `dtype`, removed in v0.27.0)
- transformers `src/transformers/training_args.py` (`evaluation_strategy` removed in v4.51.0;
  `no_cuda` and others removed in v5.0.0, `MIGRATION_GUIDE_V5.md`)
- the full list: `rules/knowledge/fields_*.yaml`, section `renames:`
)", "warning while the old name is only deprecated"};

class RenamedArgument final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }
  void check_run(const TrainingRun& run, const RuleContext& context, std::vector<Diagnostic>& out) const override {
    rules::find_renamed_in_run(*this, false, context, run, out);
  }
  void check_script(const RuleContext& context, FileId file, const ScriptSummary& summary,
                    std::vector<Diagnostic>& out) const override {
    rules::find_renamed_in_script(*this, false, context, file, summary, out);
  }
};

}  // namespace

std::unique_ptr<Rule> make_renamed_argument() {
  return std::make_unique<RenamedArgument>();
}

}  // namespace trl
