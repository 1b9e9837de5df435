#include "analyzer/pipeline/rejudge.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "analyzer/config/apply.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/pipeline/pipeline.hpp"
#include "analyzer/pipeline/rule_context_builder.hpp"

namespace trl {

Rejudged rejudge(const Project& project, const std::vector<DeclaredRun>& declared, Configuration& config,
                 const Selection& selection, JudgedParts kept, const std::vector<char>& changed) {
  const Knowledge& k = Knowledge::get();
  const VersionTargetsMemo memo(project);
  Rejudged out;
  // A file another one now imports, or no longer does, may stop or start being an entry script
  // (a settings module, imported_modules) without a change of its own: it counts as changed.
  std::vector<char> touched_files = changed;
  touched_files.resize(project.sources.size(), 0);
  out.parts.imported = imported_modules(project, k);
  {
    std::vector<FileId> moved;
    std::set_symmetric_difference(kept.imported.begin(), kept.imported.end(), out.parts.imported.begin(),
                                  out.parts.imported.end(), std::back_inserter(moved));
    for (FileId id : moved)
      if (id < touched_files.size()) touched_files[id] = 1;
  }
  auto is_changed = [&](FileId id) { return id < touched_files.size() && touched_files[id]; };

  // The kept runs that read a changed file, or come from one. A launch command (or declared run)
  // is built whole: when one of its runs is touched, all of them are.
  std::vector<bool> touched(kept.runs.size(), false);
  std::set<RunOrigin> touched_origins;
  for (std::size_t i = 0; i < kept.runs.size(); ++i) {
    const JudgedRun& r = kept.runs[i];
    touched[i] = (r.origin.kind != RunOrigin::Kind::Declared && is_changed(r.origin.file)) ||
                 std::any_of(r.files.begin(), r.files.end(), is_changed);
    if (touched[i]) touched_origins.insert(r.origin);
  }
  for (std::size_t i = 0; i < kept.runs.size(); ++i)
    if (touched_origins.count(kept.runs[i].origin)) touched[i] = true;

  // What to build: the launches and entry scripts of the changed files, the touched runs' origins,
  // and the scripts touched launches started (they may now run on their own). The untouched
  // launches still start theirs.
  RunScope scope;
  for (FileId id = 0; id < project.sources.size(); ++id) {
    if (!is_changed(id)) continue;
    for (std::size_t c = 0; c < project.facts[id].commands.size(); ++c) scope.launches.insert({id, c});
    scope.scripts.insert(id);
  }
  for (std::size_t i = 0; i < kept.runs.size(); ++i) {
    const JudgedRun& r = kept.runs[i];
    if (touched[i]) {
      if (r.origin.kind == RunOrigin::Kind::Launch) scope.launches.insert({r.origin.file, r.origin.index});
      if (r.origin.kind == RunOrigin::Kind::Declared) scope.declared.insert(r.origin.index);
      if (r.origin.kind == RunOrigin::Kind::Script) scope.scripts.insert(r.origin.file);
      if (r.script != kNoFile) scope.scripts.insert(r.script);
    } else if (r.origin.kind != RunOrigin::Kind::Script && r.script != kNoFile) {
      scope.launched.insert(r.script);
    }
  }
  out.runs = build(project, config, declared, scope);
  // What the rules read, for every part judged below (the rebuilt runs' targets computed now).
  std::vector<FileId> anchors;
  anchors.reserve(out.runs.size());
  for (const auto& r : out.runs) anchors.push_back(r.version_anchor());
  const RuleContext context = make_rule_context(project, anchors);
  // A script a rebuilt launch now starts no longer runs on its own.
  std::set<FileId> now_launched;
  for (const auto& r : out.runs)
    if (r.origin.kind != RunOrigin::Kind::Script && r.script != kNoFile) now_launched.insert(r.script);
  for (std::size_t i = 0; i < kept.runs.size(); ++i)
    if (kept.runs[i].origin.kind == RunOrigin::Kind::Script && now_launched.count(kept.runs[i].origin.file))
      touched[i] = true;

  // The runs in the order of a whole build (by origin), kept and rebuilt ones alike.
  std::vector<JudgedRun> runs;
  for (std::size_t i = 0; i < kept.runs.size(); ++i)
    if (!touched[i]) {
      runs.push_back(std::move(kept.runs[i]));
      ++out.runs_kept;
    }
  for (const auto& r : out.runs) {
    runs.push_back(judged_run(r));
    run_diagnostics(project, context, r, selection, runs.back().diags);
  }
  std::stable_sort(runs.begin(), runs.end(),
                   [](const JudgedRun& a, const JudgedRun& b) { return a.origin < b.origin; });

  // The scripts: kept unless the script or a file its evaluation read changed.
  std::map<FileId, JudgedScript*> kept_scripts;
  for (auto& s : kept.scripts) kept_scripts[s.script] = &s;
  std::vector<JudgedScript> scripts;
  for (FileId id = 0; id < project.sources.size(); ++id) {
    if (!is_candidate_script(project, id)) continue;
    auto it = kept_scripts.find(id);
    if (it != kept_scripts.end() && !is_changed(id) &&
        std::none_of(it->second->read.begin(), it->second->read.end(), is_changed)) {
      scripts.push_back(std::move(*it->second));
      ++out.scripts_kept;
      continue;
    }
    const ScriptSummary summary = script_summary(project, k, id);
    scripts.push_back({id, summary.modules, {}});
    script_diagnostics(context, id, summary, selection, scripts.back().diags);
    ++out.scripts_judged;
  }

  // Joined as collect_diagnostics joins them: file problems, runs, scripts, files.
  std::set<FileId> read;
  for (const auto& r : runs) read.insert(r.files.begin(), r.files.end());
  file_problem_diagnostics(project, read, out.diags);
  for (const auto& r : runs) out.diags.insert(out.diags.end(), r.diags.begin(), r.diags.end());
  for (const auto& s : scripts) out.diags.insert(out.diags.end(), s.diags.begin(), s.diags.end());
  const std::vector<FileUses> uses = file_uses(project, runs);
  for (FileId id = 0; id < project.sources.size(); ++id)
    if (judged_as_file(project, id, uses[id])) file_diagnostics(context, id, uses[id], selection, out.diags);
  finish_diagnostics(project, selection, out.diags);
  out.parts.runs = std::move(runs);
  out.parts.scripts = std::move(scripts);
  return out;
}

}  // namespace trl
