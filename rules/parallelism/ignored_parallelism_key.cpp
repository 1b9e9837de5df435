// TRL108 ignored-parallelism-key (error)
//
// accelerate commands/launch.py `_validate_launch_command` copies each key of a nested YAML
// section onto the launch arguments. fsdp_config/fp8_config/dynamo_config keys get their prefix
// added; parallelism_config keys do not, so `cp_size: 2` sets a useless attribute and context
// parallelism silently stays off.

#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL108", "ignored-parallelism-key", Severity::Error,
                     "A key under `parallelism_config:` without the `parallelism_config_` prefix is ignored.",
                     R"(## What it does
Finds keys under `parallelism_config:` in an accelerate config YAML that are not spelled
`parallelism_config_<name>` (for example `cp_size: 2`).

## Why is this bad?
`accelerate launch` copies the section's keys onto its arguments as written. Unlike
`fsdp_config`, no prefix is added, so `cp_size` never reaches `--parallelism_config_cp_size`:
the value is silently ignored and the run trains without the parallelism you asked for.

## Example
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 2
parallelism_config:
  cp_size: 2
```
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
pad_to_multiple_of: 4
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml --accelerate_config recipes/accelerate.yaml
```

## Use instead
```yaml
# recipes/accelerate.yaml
distributed_type: FSDP
fsdp_config:
  fsdp_version: 2
num_processes: 2
parallelism_config:
  parallelism_config_cp_size: 2
```

## References
- accelerate `src/accelerate/commands/launch.py` `_validate_launch_command` (nested config copy)
)"};

class IgnoredParallelismKey final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_file(const RuleContext& context, FileId id, const FileUses&, std::vector<Diagnostic>& out) const override {
    const SourceFile* f = context.file(id);
    if (!f || f->kind != FileKind::Yaml) return;
    const std::vector<YamlDocument>& docs = context.yaml(id);
    for (const auto& doc : docs) {
      const YamlNode* root = doc.root.get();
      if (!root || root->kind != YamlNode::Kind::Mapping || !root->find("distributed_type")) continue;
      const YamlEntry* pc = root->find("parallelism_config");
      if (!pc || pc->value->kind != YamlNode::Kind::Mapping) continue;
      for (const auto& e : pc->value->entries) {
        if (e.key.rfind("parallelism_config_", 0) == 0) continue;
        const std::string fixed = "parallelism_config_" + e.key;
        Diagnostic d = make(e.key_span, "`" + e.key +
                                            "` under `parallelism_config:` is ignored by accelerate launch; "
                                            "the key must be spelled `" +
                                            fixed + "`");
        d.label = "silently ignored";
        d.notes.push_back(
            "accelerate copies parallelism_config keys as written (no prefix is added), so this "
            "value never takes effect and training runs without it");
        d.help = "rename the key to `" + fixed + "`";
        if (pc->value->find(fixed)) {
          // Renaming would write the key twice; PyYAML keeps the last, whichever that is.
          d.notes.push_back("`" + fixed + "` is set in this mapping too: remove `" + e.key + "`");
        } else {
          Fix fix;
          fix.title = "Rename to `" + fixed + "`";
          fix.edits.push_back({e.key_span, fixed});
          d.fixes.push_back(std::move(fix));
        }
        out.push_back(std::move(d));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_ignored_parallelism_key() {
  return std::make_unique<IgnoredParallelismKey>();
}

}  // namespace trl
