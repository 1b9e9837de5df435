// TRL405 deepspeed-file-conflict (error)
//
// accelerate DeepSpeedPlugin._deepspeed_config_checks: with deepspeed_config_file, the accelerate
// YAML must not set gradient_accumulation_steps, gradient_clipping, zero_stage,
// offload_{optimizer,param}_device, offload_{param,optimizer}_nvme_path, zero3_save_16bit_model
// under deepspeed_config, nor a top-level mixed_precision (commands/launch.py passes them in
// ACCELERATE_CONFIG_DS_FIELDS; the key's presence counts, whatever its value).

#include <algorithm>

#include "rules/support/setting_findings.hpp"

namespace trl {

namespace {

const RuleInfo kInfo{"TRL405", "deepspeed-file-conflict", Severity::Error,
                     "An accelerate YAML sets keys that must live in its deepspeed_config_file.",
                     R"(## What it does
Finds DeepSpeed accelerate configs that name a `deepspeed_config_file` and also set, under
`deepspeed_config:`, `gradient_accumulation_steps`, `gradient_clipping`, `zero_stage`,
`offload_optimizer_device`, `offload_param_device`, `offload_param_nvme_path`,
`offload_optimizer_nvme_path` or `zero3_save_16bit_model`, or a top-level `mixed_precision`
(any value, even `'no'` or `none`: the key's presence counts).

## Why is this bad?
These settings belong in the DeepSpeed JSON. `DeepSpeedPlugin` raises `ValueError: When using
deepspeed_config_file, the following accelerate config variables will be ignored` at start-up.

## Example
```yaml
# recipes/accelerate.yaml
distributed_type: DEEPSPEED
deepspeed_config:
  deepspeed_config_file: recipes/ds_zero3.json
  zero_stage: 3
mixed_precision: bf16
num_processes: 8
```
```yaml
# recipes/sft.yaml
model_name_or_path: Qwen/Qwen2.5-0.5B
```
```bash
# launch.sh
trl sft --config recipes/sft.yaml --accelerate_config recipes/accelerate.yaml
```

## Use instead
```yaml
# recipes/accelerate.yaml
distributed_type: DEEPSPEED
deepspeed_config:
  deepspeed_config_file: recipes/ds_zero3.json
num_processes: 8
```
with the stage and precision in `recipes/ds_zero3.json`.

## References
- accelerate `src/accelerate/utils/dataclasses.py` `DeepSpeedPlugin._deepspeed_config_checks`
- accelerate `src/accelerate/commands/launch.py` (`deepspeed_fields_from_accelerate_config`)
)"};

bool is_null_scalar(const YamlNode& n) {
  return n.kind == YamlNode::Kind::Scalar && n.scalar.kind == Scalar::Kind::Null;
}

class DeepspeedFileConflict final : public Rule {
 public:
  const RuleInfo& info() const override { return kInfo; }

  void check_file(const RuleContext& context, FileId id, const FileUses& uses,
                  std::vector<Diagnostic>& out) const override {
    static constexpr std::string_view forbidden[] = {
        "gradient_accumulation_steps", "gradient_clipping",     "zero_stage",
        "offload_optimizer_device",    "offload_param_device",  "offload_param_nvme_path",
        "offload_optimizer_nvme_path", "zero3_save_16bit_model"};
    const SourceFile* f = context.file(id);
    if (!f || f->kind != FileKind::Yaml) return;
    const std::vector<YamlDocument>& docs = context.yaml(id);
    for (const auto& doc : docs) {
      const YamlNode* root = doc.root.get();
      if (!root || root->kind != YamlNode::Kind::Mapping) continue;
      const YamlEntry* type = root->find("distributed_type");
      if (!type || type->value->kind != YamlNode::Kind::Scalar || type->value->scalar.kind != Scalar::Kind::Str ||
          type->value->scalar.s != "DEEPSPEED")
        continue;
      const YamlEntry* ds = root->find("deepspeed_config");
      if (!ds || ds->value->kind != YamlNode::Kind::Mapping) continue;
      const YamlEntry* file = ds->value->find("deepspeed_config_file");
      if (!file || is_null_scalar(*file->value)) continue;
      if (file->value->kind == YamlNode::Kind::Scalar && file->value->scalar.kind == Scalar::Kind::Str &&
          file->value->scalar.s == "none")
        continue;
      std::vector<const YamlEntry*> bad;
      for (const auto& e : ds->value->entries)
        if (std::find(std::begin(forbidden), std::end(forbidden), e.key) != std::end(forbidden)) bad.push_back(&e);
      // mixed_precision counts only when accelerate takes it from the config: `--mixed_precision`
      // on the launch line wins, and then the key is not among the fields the plugin checks
      // (accelerate commands/launch.py, v1.14.0: mp_from_config_flag). Kept when some launch of
      // this config does not pass the flag, or none launches it.
      const std::size_t doc_index = static_cast<std::size_t>(&doc - docs.data());
      bool launched = false, every_launch_sets_it = true;
      for (const AccelerateUse& use : uses.accelerate)
        if (use.doc == doc_index) {
          launched = true;
          every_launch_sets_it = every_launch_sets_it && use.sets_mixed_precision;
        }
      if (const YamlEntry* mp = root->find("mixed_precision");
          mp && !is_null_scalar(*mp->value) && !(launched && every_launch_sets_it))
        bad.push_back(mp);
      for (const YamlEntry* e : bad) {
        Diagnostic d = make(e->key_span, "`" + e->key +
                                             "` must not be set in the accelerate config when "
                                             "`deepspeed_config_file` is used; set it in the DeepSpeed JSON");
        d.label = "conflicts with deepspeed_config_file";
        d.related.push_back({file->key_span, "deepspeed_config_file set here"});
        d.notes.push_back(
            "accelerate's DeepSpeedPlugin raises ValueError at start-up (the key's presence counts, "
            "whatever its value)");
        d.help = "remove `" + e->key + "` from the accelerate config and set it in the DeepSpeed config file";
        out.push_back(std::move(d));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_deepspeed_file_conflict() {
  return std::make_unique<DeepspeedFileConflict>();
}

}  // namespace trl
