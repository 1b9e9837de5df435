#include "rules/rule_context.hpp"

#include <mutex>
#include <utility>

#include "analyzer/knowledge/knowledge.hpp"

namespace trl {

struct RuleContext::Lazy {
  std::mutex mutex;
  std::map<FileId, VersionTargets> targets;  // map: references stay valid as it grows
  struct Script {
    std::once_flag once;
    ScriptSummary summary;
  };
  std::map<FileId, std::shared_ptr<Script>> scripts;
};

RuleContext::RuleContext(Inputs inputs) : in_(std::move(inputs)), lazy_(std::make_unique<Lazy>()) {}
RuleContext::~RuleContext() = default;
RuleContext::RuleContext(RuleContext&&) noexcept = default;
RuleContext& RuleContext::operator=(RuleContext&&) noexcept = default;

const SourceFile* RuleContext::file(FileId id) const {
  if (!in_.sources || id == kNoFile || id >= in_.sources->size()) return nullptr;
  return &in_.sources->get(id);
}

const std::vector<YamlDocument>& RuleContext::yaml(FileId id) const {
  static const std::vector<YamlDocument> kNone;
  if (id == kNoFile || id >= in_.yaml.size() || !in_.yaml[id]) return kNone;
  return *in_.yaml[id];
}

const YamlNode* RuleContext::yaml_root(FileId id) const {
  const std::vector<YamlDocument>& docs = yaml(id);
  if (docs.empty()) return nullptr;
  const auto& r = docs.front().root;
  return r && r->kind == YamlNode::Kind::Mapping ? r.get() : nullptr;
}

const VersionTargets& RuleContext::targets(FileId anchor) const {
  if (auto it = in_.targets.find(anchor); it != in_.targets.end()) return it->second;
  const std::lock_guard<std::mutex> lock(lazy_->mutex);
  auto it = lazy_->targets.find(anchor);
  if (it == lazy_->targets.end()) it = lazy_->targets.emplace(anchor, in_.compute_targets(anchor)).first;
  return it->second;
}

std::vector<Construction> RuleContext::trainer_calls(const TrainingRun& run, std::string_view trainer_class) const {
  std::vector<Construction> out;
  if (run.script == kNoFile || run.evaluation_cut.valid()) return out;
  std::shared_ptr<Lazy::Script> script;
  {
    const std::lock_guard<std::mutex> lock(lazy_->mutex);
    auto& slot = lazy_->scripts[run.script];
    if (!slot) slot = std::make_shared<Lazy::Script>();
    script = slot;
  }
  // Evaluated outside the lock: other threads wait only for the same script.
  std::call_once(script->once, [&] { script->summary = in_.evaluate(run.script); });
  const ScriptSummary& summary = script->summary;
  if (summary.cut_short.valid()) return out;
  const Knowledge& k = Knowledge::get();
  for (const Construction& c : summary.constructions)
    if (c.cls && c.cls->role == ClassRole::Trainer && (trainer_class.empty() || k.derives_from(*c.cls, trainer_class)))
      out.push_back(c);
  return out;
}

const ClassInfo* RuleContext::installed_class(const ClassInfo& cls, const VersionTargets& targets) const {
  return in_.installed_class ? in_.installed_class(cls, targets) : nullptr;
}

std::optional<Knowledge::TrainerKeywords> RuleContext::installed_trainer_keywords(const ClassInfo& trainer,
                                                                                  const VersionTargets& targets) const {
  return in_.installed_trainer_keywords ? in_.installed_trainer_keywords(trainer, targets) : std::nullopt;
}

}  // namespace trl
