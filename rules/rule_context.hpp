// What a rule may read besides the part it judges (rules/rule.hpp): the project's files (their
// kind and text, to point at a word inside a span), the YAML documents of each file, the library
// versions each run, script and file is judged against, the trainer calls a run's script makes,
// and the classes of a library newer than the knowledge as its installed source defines them. The pipeline builds one
// context per judging pass, before any rule runs (analyzer/pipeline/rule_context_builder.hpp), over a project whose
// facts do not change while it lives. Rules only read it; several threads may read one context at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "analyzer/eval/script_summary.hpp"
#include "analyzer/eval/training_run.hpp"
#include "analyzer/eval/version_target.hpp"
#include "analyzer/facts/yaml_node.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/source/source_file.hpp"

namespace trl {

class RuleContext {
 public:
  // What the pipeline hands a context.
  struct Inputs {
    const SourceManager* sources = nullptr;
    // The YAML documents of each file, by FileId (null: none).
    std::vector<const std::vector<YamlDocument>*> yaml;
    // The version targets computed before the rules run, by anchor file (kNoFile: the project root).
    std::map<FileId, VersionTargets> targets;
    // The targets of an anchor `targets` does not hold (computed once, when first asked).
    std::function<VersionTargets(FileId)> compute_targets;
    // The evaluation of one script (computed once per script, when first asked).
    std::function<ScriptSummary(FileId)> evaluate;
    // A class as the installed source of a library newer than the knowledge defines it (null:
    // none is; analyzer/eval/installed_classes.hpp).
    std::function<const ClassInfo*(const ClassInfo&, const VersionTargets&)> installed_class;
    // The keywords a trainer's __init__ takes in the installed source of a library newer than the
    // knowledge (nothing: none is, or the source cannot say; analyzer/eval/installed_classes.hpp).
    std::function<std::optional<Knowledge::TrainerKeywords>(const ClassInfo&, const VersionTargets&)>
        installed_trainer_keywords;
  };
  explicit RuleContext(Inputs inputs);
  ~RuleContext();
  RuleContext(RuleContext&&) noexcept;
  RuleContext& operator=(RuleContext&&) noexcept;
  RuleContext(const RuleContext&) = delete;
  RuleContext& operator=(const RuleContext&) = delete;

  // The file `id` (its path, kind, text and points); null for kNoFile or an id out of range.
  const SourceFile* file(FileId id) const;
  // The YAML documents of `id` (a YAML file, the YAML blocks of a Markdown file); empty for none.
  const std::vector<YamlDocument>& yaml(FileId id) const;
  // The first YAML document of `id` when it is a mapping, else null.
  const YamlNode* yaml_root(FileId id) const;

  // The library versions the run, script or file rooted at `anchor` is judged against.
  const VersionTargets& targets(FileId anchor) const;
  // A run's: those of its script, else of its launch file (TrainingRun::version_anchor).
  const VersionTargets& targets(const TrainingRun& run) const { return targets(run.version_anchor()); }

  // The trainer calls (`SFTTrainer(...)`) the run's script makes, imported modules included, with
  // the keywords each was given, when the trainer derives from `trainer_class` (any trainer: "").
  // Empty when the run has no script we can evaluate (a `trl sft` launch, a script cut short).
  std::vector<Construction> trainer_calls(const TrainingRun& run, std::string_view trainer_class) const;

  // `cls` as the installed source of its library (or of a base's library) defines it, when that
  // library's target in `targets` is newer than the knowledge and was read from an environment;
  // null otherwise (rules::class_at_target uses it).
  const ClassInfo* installed_class(const ClassInfo& cls, const VersionTargets& targets) const;
  // The keywords `trainer`'s __init__ takes in the installed source of its library, when that
  // library's target in `targets` is newer than the knowledge and was read from an environment;
  // nothing otherwise (Knowledge::trainer_keywords answers for the releases it knows).
  std::optional<Knowledge::TrainerKeywords> installed_trainer_keywords(const ClassInfo& trainer,
                                                                       const VersionTargets& targets) const;

 private:
  struct Lazy;  // what is computed when first asked, under a lock
  Inputs in_;
  std::unique_ptr<Lazy> lazy_;
};

}  // namespace trl
