#include "analyzer/pipeline/rule_context_builder.hpp"

#include "analyzer/eval/installed_classes.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl {

RuleContext make_rule_context(const Project& project, const std::vector<FileId>& anchors) {
  RuleContext::Inputs in;
  in.sources = &project.sources;
  in.yaml.reserve(project.facts.size());
  for (const FileFacts& f : project.facts) in.yaml.push_back(f.yaml.empty() ? nullptr : &f.yaml);
  const Knowledge& k = Knowledge::get();
  {
    const VersionTargetsMemo memo(project);  // one pin search for all of them
    for (FileId anchor : anchors)
      if (!in.targets.count(anchor)) in.targets.emplace(anchor, version_targets(project, anchor, k));
  }
  const Project* p = &project;
  in.compute_targets = [p](FileId anchor) { return version_targets(*p, anchor, Knowledge::get()); };
  in.evaluate = [p](FileId script) { return script_summary(*p, Knowledge::get(), script); };
  in.installed_class = [](const ClassInfo& cls, const VersionTargets& targets) {
    return trl::installed_class(Knowledge::get(), cls, targets);
  };
  in.installed_trainer_keywords = [](const ClassInfo& trainer, const VersionTargets& targets) {
    return trl::installed_trainer_keywords(Knowledge::get(), trainer, targets);
  };
  return RuleContext(std::move(in));
}

}  // namespace trl
