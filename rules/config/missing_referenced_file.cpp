// TRL004 missing-referenced-file (error)
//
// What it does: finds launch commands that name a training script, a `python -m` module, a
// trainer YAML (`--config`) or an accelerate YAML (`--config_file`, `--accelerate_config`) that
// does not exist in the repository.
//
// Why is this bad? The launch fails at start, usually after the job waited for its cluster
// allocation; a renamed recipe leaves every README and Slurm line that names it stale.

#include "rules/rule.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL004", "missing-referenced-file", Severity::Error,
                     "A launch command names a script or config file that does not exist.",
                     R"(## What it does
Finds launch commands (shell scripts, Slurm files, Makefile recipes, workflow steps, notebooks,
README and docs code blocks) that name a file the repository does not have: the training
script of `accelerate launch` / `torchrun` / `deepspeed` / `python`, the module of `python -m`,
the trainer YAML of `--config`, or the accelerate YAML of `--config_file` / `--accelerate_config`.

Paths are resolved the way the launch could be run: against the folder of an earlier `cd`, the
repository root, the launching file's folder, and every folder between that folder and the root
(a script in `scripts/` of a repository nested in the analysed folder is run from its root). To stay precise it only judges paths that are
fully known (no unresolved `$VAR`), relative, and not written by the launching script itself
(`> file`, `cp`, `tee`, `wget -O`), and only in a folder that holds other files of the same
kind (a `scripts/` folder with no `.py` file at all is a partial copy of the repository or is
filled at run time). Placeholders such as `scripts/run_{task}.py` are not paths. It never judges `trl sft` (TRL's own script), modules of other
packages, TRL's bundled accelerate profiles (`--accelerate_config zero3`), or, in docs, bare
placeholder names such as `train.py` whose folder is not part of the repository.

## Why is this bad?
The run dies at start with "No such file or directory" or "can't open file", on the cluster,
after the allocation wait. A moved or renamed recipe silently leaves every README line, Slurm
script and Makefile target that names it broken.

## Example
```bash
# launch.sh
accelerate launch --config_file recipes/accelerate.yaml \
    scripts/run_sft.py --config recipes/sft.yaml
```
```python
# scripts/sft.py
# formerly scripts/run_sft.py
from trl import ModelConfig, ScriptArguments, SFTConfig, SFTTrainer, TrlParser

parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))
script_args, training_args, model_args = parser.parse_args_and_config()
SFTTrainer(model=model_args.model_name_or_path, args=training_args).train()
```
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
```
```yaml
# recipes/accelerate.yaml
distributed_type: MULTI_GPU
num_processes: 8
```

## Use instead
```bash
# launch.sh
accelerate launch --config_file recipes/accelerate.yaml \
    scripts/sft.py --config recipes/sft.yaml
```

## References
- accelerate `commands/launch.py` (the script path is passed to the spawned processes as is)
- TRL `trl/scripts/utils.py` `TrlParser.parse_args_and_config` (`--config` is opened with `open()`)
- TRL `trl/cli/accelerate_config.py` `resolve_accelerate_config_argument` (a file path, else a bundled profile)
)"};

class MissingReferencedFile final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_run(const TrainingRun& run, const RuleContext&, std::vector<Diagnostic>& out) const override {
    for (const FileReference& ref : run.references) {
      if (ref.exists || !ref.checkable || !ref.stand_in.empty() || !ref.span.valid()) continue;
      Diagnostic d = make(ref.span, std::string(to_string(ref.kind)) + " `" + ref.text + "` does not exist");
      d.label = "no such file";
      d.notes.push_back(
          "looked for it relative to the command's working directory, the repository root, the "
          "launching file's folder and the folders between them");
      const bool trl_cli = run.launch && run.launch->launcher == Launcher::Trl;
      d.help = ref.kind == FileReference::Kind::AccelerateConfig && trl_cli
                   ? "fix the path, or name one of TRL's bundled profiles (fsdp1, fsdp2, multi_gpu, single_gpu, "
                     "zero1, zero2, zero3) with `trl <command> --accelerate_config`"
                   : "fix the path, or add the missing file";
      out.push_back(std::move(d));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_missing_referenced_file() {
  return std::make_unique<MissingReferencedFile>();
}

}  // namespace trl
