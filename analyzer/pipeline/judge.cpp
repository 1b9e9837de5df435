#include "analyzer/pipeline/judge.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "analyzer/eval/python_eval.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/notebook/notebook_extractor.hpp"
#include "analyzer/pipeline/rule_context_builder.hpp"
#include "analyzer/report/formatters.hpp"
#include "analyzer/util/parallel.hpp"
#include "rules/registry.hpp"
#include "rules/tool/tool_rules.hpp"

namespace trl {

bool Selection::enabled(const std::string& code) const {
  auto matches = [&](const std::vector<std::string>& list) {
    for (const auto& s : list)
      if (s == "ALL" || code.rfind(s, 0) == 0) return true;
    return false;
  };
  if (!select.empty() && !matches(select)) return false;
  return !matches(ignore);
}

bool data_file_matters(const Project& project, FileId file, const std::set<FileId>& read) {
  if (read.count(file)) return true;
  // A config of a kind trl-lint judges, known from the keys read before the error: accelerate's
  // (what `accelerate config` writes first) or a trainer's (fields every recipe sets).
  static const std::set<std::string_view> kKnownKeys = {"compute_environment",
                                                        "distributed_type",
                                                        "deepspeed_config",
                                                        "fsdp_config",
                                                        "parallelism_config",
                                                        "model_name_or_path",
                                                        "per_device_train_batch_size",
                                                        "gradient_accumulation_steps",
                                                        "learning_rate",
                                                        "num_train_epochs"};
  if (file < project.facts.size())
    for (const auto& doc : project.facts[file].yaml)
      if (doc.root && doc.root->kind == YamlNode::Kind::Mapping)
        for (const auto& e : doc.root->entries)
          if (kKnownKeys.count(e.key)) return true;
  // An accelerate config named as `accelerate config` names it, or one in a folder of them.
  const std::string& path = file < project.sources.size() ? project.sources.get(file).path : std::string();
  return path.find("accelerate_config") != std::string::npos || path.ends_with("default_config.yaml");
}

void file_problem_diagnostics(const Project& project, const std::set<FileId>& read, std::vector<Diagnostic>& out) {
  for (FileId id = 0; id < project.facts.size(); ++id) {
    const FileKind kind = id < project.sources.size() ? project.sources.get(id).kind : FileKind::Other;
    const bool data = kind == FileKind::Yaml || kind == FileKind::Json;
    for (const auto& p : project.facts[id].problems) {
      if (data && p.code == tool_rules::kSyntaxError && !data_file_matters(project, id, read)) continue;
      const RuleInfo* info = find_rule_info(p.code);
      Diagnostic d;
      d.code = p.code;
      d.name = info ? info->name : "";
      d.severity = info ? info->severity : Severity::Warning;
      d.message = p.message;
      d.span = p.span.valid() ? p.span : Span{id};
      if (!p.span.valid() || p.span.file == kNoFile) d.span = Span{id};
      out.push_back(std::move(d));
    }
  }
}

namespace {

// TRL906: the script of `run` was too long to evaluate in full (once per script: the same
// finding reached through several runs is merged by sort_diagnostics).
void evaluation_problem(const Project& project, const TrainingRun& run, std::vector<Diagnostic>& out) {
  if (!run.evaluation_cut.valid() || run.evaluation_cut.file >= project.sources.size()) return;
  const RuleInfo* info = find_rule_info(tool_rules::kEvaluationTooLong);
  Diagnostic d;
  d.code = tool_rules::kEvaluationTooLong;
  d.name = info ? info->name : "";
  d.severity = info ? info->severity : Severity::Warning;
  const std::string script = run.script != kNoFile ? project.sources.get(run.script).path : run.script_display;
  d.message =
      "evaluation of `" + script + "` stopped here, at its step limit; the settings this script makes are not checked";
  d.span = run.evaluation_cut;
  d.notes.push_back("trl-lint follows at most " + std::to_string(kEvaluationSteps) +
                    " statements and calls per script, imported modules included; what comes later could change "
                    "any setting, so none of the script's settings is judged");
  out.push_back(std::move(d));
}

}  // namespace

JudgedRun judged_run(const TrainingRun& run) {
  JudgedRun j;
  j.origin = run.origin;
  j.script = run.script;
  const std::set<FileId> files = run_files(run);
  j.files.assign(files.begin(), files.end());
  j.accelerate_yaml = run.accelerate_yaml;
  j.use = accelerate_use(run);
  return j;
}

std::vector<FileUses> file_uses(const Project& project, const std::vector<JudgedRun>& runs) {
  std::vector<FileUses> out(project.sources.size());
  for (const JudgedRun& r : runs)
    if (r.accelerate_yaml < out.size()) out[r.accelerate_yaml].accelerate.push_back(r.use);
  return out;
}

void list_launch(const TrainingRun& run, std::vector<Diagnostic>& diags, std::size_t from) {
  if (!run.launch || !run.launch->span.valid()) return;
  const Span& at = run.launch->span;
  for (std::size_t i = from; i < diags.size(); ++i) {
    Diagnostic& d = diags[i];
    if (std::any_of(d.related.begin(), d.related.end(), [](const RelatedLocation& r) { return r.launch; })) continue;
    // A finding on the launch line itself (a missing script, a launcher flag) needs no note.
    if (d.span.file == at.file && d.span.begin >= at.begin && d.span.begin <= at.end) continue;
    d.related.push_back({at, "judged in this launch", true});
  }
}

void run_diagnostics(const Project& project, const RuleContext& context, const TrainingRun& run,
                     const Selection& selection, std::vector<Diagnostic>& out) {
  const std::size_t from = out.size();
  evaluation_problem(project, run, out);
  for (const auto& rule : all_rules())
    if (selection.enabled(rule->info().code)) rule->check_run(run, context, out);
  list_launch(run, out, from);
}

void script_diagnostics(const RuleContext& context, FileId script, const ScriptSummary& summary,
                        const Selection& selection, std::vector<Diagnostic>& out) {
  for (const auto& rule : all_rules())
    if (selection.enabled(rule->info().code)) rule->check_script(context, script, summary, out);
}

bool judged_as_file(const Project& project, FileId file, const FileUses& uses) {
  return !uses.accelerate.empty() || (file < project.facts.size() && !project.facts[file].yaml.empty());
}

void file_diagnostics(const RuleContext& context, FileId file, const FileUses& uses, const Selection& selection,
                      std::vector<Diagnostic>& out) {
  for (const auto& rule : all_rules())
    if (selection.enabled(rule->info().code)) rule->check_file(context, file, uses, out);
}

void add_launches(Diagnostic& into, const Diagnostic& from) {
  for (const RelatedLocation& r : from.related) {
    if (!r.launch) continue;
    const bool known = std::any_of(into.related.begin(), into.related.end(), [&](const RelatedLocation& k) {
      return k.launch && k.span.file == r.span.file && k.span.begin == r.span.begin;
    });
    if (!known) into.related.push_back(r);
  }
}

void merge_findings(std::vector<Diagnostic>& diags) {
  // The first finding of each key, which takes the launches of the ones merged into it.
  std::map<std::tuple<std::string_view, FileId, std::uint32_t, std::string_view>, std::size_t> first;
  std::vector<bool> drop(diags.size(), false);
  bool any = false;
  for (std::size_t i = 0; i < diags.size(); ++i) {
    const Diagnostic& d = diags[i];
    if (!d.merge_key) continue;
    auto [it, added] = first.try_emplace({d.code, d.span.file, d.span.begin, *d.merge_key}, i);
    drop[i] = !added;
    if (drop[i]) add_launches(diags[it->second], d);
    any = any || drop[i];
  }
  if (!any) return;
  std::size_t i = 0;
  std::erase_if(diags, [&](const Diagnostic&) { return drop[i++]; });
}

void notebook_positions(const Project& project, std::vector<Diagnostic>& diags) {
  auto in_notebook = [&](const Span& s) {
    return s.valid() && s.file < project.sources.size() && project.sources.get(s.file).kind == FileKind::Notebook;
  };
  std::map<FileId, std::vector<notebook::Placement>> placements;  // read once per notebook
  auto map = [&](Span& s) {
    if (!in_notebook(s)) return;
    const SourceFile& f = project.sources.get(s.file);
    auto it = placements.find(s.file);
    if (it == placements.end()) it = placements.emplace(s.file, notebook::scan(f.text).placements).first;
    s.begin = notebook::file_offset(it->second, s.begin);
    s.end = std::max(s.begin, notebook::file_offset(it->second, s.end));
    if (s.end > f.text.size()) return;
    s.start = f.point_at(s.begin);
    s.stop = f.point_at(s.end);
  };
  for (Diagnostic& d : diags) {
    // An edit at a span of the decoded code would land on other bytes of the JSON string (escapes,
    // the line's right-aligned shell text): notebooks get no fixes.
    bool edits_notebook = false;
    for (const Fix& f : d.fixes)
      for (const TextEdit& e : f.edits) edits_notebook = edits_notebook || in_notebook(e.span);
    if (edits_notebook) d.fixes.clear();
    map(d.span);
    for (RelatedLocation& r : d.related) map(r.span);
  }
}

void finish_diagnostics(const Project& project, const Selection& selection, std::vector<Diagnostic>& diags) {
  std::erase_if(diags, [&](const Diagnostic& d) { return !selection.enabled(d.code); });
  merge_findings(diags);
  notebook_positions(project, diags);
  sort_diagnostics(project, diags);
}

std::vector<Diagnostic> collect_diagnostics(const Project& project, const std::vector<TrainingRun>& runs,
                                            const Selection& selection, unsigned threads, JudgedParts* parts) {
  const VersionTargetsMemo memo(project);
  std::vector<Diagnostic> out;
  std::set<FileId> read;
  for (const auto& run : runs) {
    const std::set<FileId> files = run_files(run);
    read.insert(files.begin(), files.end());
  }
  file_problem_diagnostics(project, read, out);
  for (const auto& run : runs) {
    const std::size_t from = out.size();
    evaluation_problem(project, run, out);
    list_launch(run, out, from);
  }
  std::vector<const Rule*> rules;
  for (const auto& rule : all_rules())
    if (selection.enabled(rule->info().code)) rules.push_back(rule.get());
  // What each rule judges besides the runs: the evaluated scripts, gathered once (the summaries
  // the project's script cache keeps, else copies), and the files with YAML or read as accelerate
  // configs. Filling the script cache here also lets the threads below only read it.
  std::vector<std::pair<FileId, const ScriptSummary*>> scripts;
  std::deque<ScriptSummary> copies;
  for_each_script(project, Knowledge::get(), [&](FileId id, const ScriptSummary& s) {
    if (project.script_cache) {
      scripts.emplace_back(id, &s);
    } else {
      copies.push_back(s);
      scripts.emplace_back(id, &copies.back());
    }
  });
  const std::vector<FileUses> uses = file_uses(project, runs);
  std::vector<FileId> files;
  for (FileId id = 0; id < project.sources.size(); ++id)
    if (judged_as_file(project, id, uses[id])) files.push_back(id);
  // What the rules read besides their part, with the version targets of every part computed now:
  // the threads below only read it.
  std::vector<FileId> anchors;
  anchors.reserve(runs.size() + scripts.size() + files.size());
  for (const auto& run : runs) anchors.push_back(run.version_anchor());
  for (const auto& [id, summary] : scripts) anchors.push_back(id);
  anchors.insert(anchors.end(), files.begin(), files.end());
  const RuleContext context = make_rule_context(project, anchors);
  // Each rule's findings go to a list of their own, joined in the rules' order afterwards: the
  // list a single thread makes, whatever thread judged which rule. In each list: the runs, then
  // the scripts, then the files (the order merge_findings keeps the first of).
  // marks[i][j]: where the findings of rule i about run j (then script j - runs.size()) begin.
  std::vector<std::vector<Diagnostic>> found(rules.size());
  std::vector<std::vector<std::size_t>> marks(rules.size());
  auto judge = [&](std::size_t i) {
    for (const auto& run : runs) {
      marks[i].push_back(found[i].size());
      rules[i]->check_run(run, context, found[i]);
      list_launch(run, found[i], marks[i].back());
    }
    for (const auto& [id, summary] : scripts) {
      marks[i].push_back(found[i].size());
      rules[i]->check_script(context, id, *summary, found[i]);
    }
    marks[i].push_back(found[i].size());
    for (FileId id : files) rules[i]->check_file(context, id, uses[id], found[i]);
  };
  if (threads == 1) {
    for (std::size_t i = 0; i < rules.size(); ++i) judge(i);
  } else {
    // Rules in the registry's order, taken by whichever thread is free.
    std::atomic<std::size_t> next{0};
    const unsigned workers =
        static_cast<unsigned>(std::min<std::size_t>(resolve_threads(threads), std::max<std::size_t>(rules.size(), 1)));
    parallel_for(workers, workers, [&](std::size_t) {
      for (std::size_t i = next++; i < rules.size(); i = next++) judge(i);
    });
  }
  if (parts) {
    auto part = [&](std::size_t j, std::vector<Diagnostic>& into) {
      for (std::size_t i = 0; i < rules.size(); ++i)
        into.insert(into.end(), found[i].begin() + static_cast<std::ptrdiff_t>(marks[i][j]),
                    found[i].begin() + static_cast<std::ptrdiff_t>(marks[i][j + 1]));
    };
    parts->runs.clear();
    for (std::size_t j = 0; j < runs.size(); ++j) {
      parts->runs.push_back(judged_run(runs[j]));
      evaluation_problem(project, runs[j], parts->runs.back().diags);
      list_launch(runs[j], parts->runs.back().diags, 0);
      part(j, parts->runs.back().diags);
    }
    parts->imported = imported_modules(project, Knowledge::get());
    parts->scripts.clear();
    for (std::size_t j = 0; j < scripts.size(); ++j) {
      parts->scripts.push_back({scripts[j].first, scripts[j].second->modules, {}});
      part(runs.size() + j, parts->scripts.back().diags);
    }
  }
  for (auto& f : found) out.insert(out.end(), std::make_move_iterator(f.begin()), std::make_move_iterator(f.end()));
  finish_diagnostics(project, selection, out);
  return out;
}

void sort_diagnostics(const Project& project, std::vector<Diagnostic>& diags) {
  auto key = [&](const Diagnostic& d) {
    const std::string& path = project.sources.get(d.span.file).path;
    return std::tie(path, d.span.start.line, d.span.start.column, d.code, d.message);
  };
  std::stable_sort(diags.begin(), diags.end(),
                   [&](const Diagnostic& a, const Diagnostic& b) { return key(a) < key(b); });
  // The same finding reached through several runs (one YAML used by two launches) is reported once,
  // with the launch lines of all of them.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < diags.size(); ++i) {
    if (kept > 0 && key(diags[kept - 1]) == key(diags[i])) {
      add_launches(diags[kept - 1], diags[i]);
      continue;
    }
    if (kept != i) diags[kept] = std::move(diags[i]);
    ++kept;
  }
  diags.erase(diags.begin() + static_cast<std::ptrdiff_t>(kept), diags.end());
}

}  // namespace trl
