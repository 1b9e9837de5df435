#include "analyzer/report/report.hpp"

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
#include "analyzer/report/formatters.hpp"
#include "analyzer/util/parallel.hpp"
#include "rules/registry.hpp"

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
      if (data && p.code == "TRL903" && !data_file_matters(project, id, read)) continue;
      const RuleInfo* info = file_problem_info(p.code);
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
  const RuleInfo* info = file_problem_info("TRL906");
  Diagnostic d;
  d.code = "TRL906";
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

void run_diagnostics(const Project& project, const TrainingRun& run, const Selection& selection,
                     std::vector<Diagnostic>& out) {
  const VersionTargetsMemo memo(project);
  evaluation_problem(project, run, out);
  for (const auto& rule : all_rules())
    if (selection.enabled(rule->info().code)) rule->check_run(run, project, out);
}

void script_diagnostics(const Project& project, FileId script, const ScriptSummary& summary, const Selection& selection,
                        std::vector<Diagnostic>& out) {
  const VersionTargetsMemo memo(project);
  for (const auto& rule : all_rules())
    if (selection.enabled(rule->info().code)) rule->check_script(project, script, summary, out);
}

bool judged_as_file(const Project& project, FileId file, const FileUses& uses) {
  return !uses.accelerate.empty() || (file < project.facts.size() && !project.facts[file].yaml.empty());
}

void file_diagnostics(const Project& project, FileId file, const FileUses& uses, const Selection& selection,
                      std::vector<Diagnostic>& out) {
  const VersionTargetsMemo memo(project);
  for (const auto& rule : all_rules())
    if (selection.enabled(rule->info().code)) rule->check_file(project, file, uses, out);
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
  std::set<std::tuple<std::string_view, FileId, std::uint32_t, std::string_view>> seen;
  std::vector<bool> drop(diags.size(), false);
  bool any = false;
  for (std::size_t i = 0; i < diags.size(); ++i) {
    const Diagnostic& d = diags[i];
    if (!d.merge_key) continue;
    drop[i] = !seen.insert({d.code, d.span.file, d.span.begin, *d.merge_key}).second;
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
  for (const auto& run : runs) evaluation_problem(project, run, out);
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
  // Each rule's findings go to a list of their own, joined in the rules' order afterwards: the
  // list a single thread makes, whatever thread judged which rule. In each list: the runs, then
  // the scripts, then the files (the order merge_findings keeps the first of).
  // marks[i][j]: where the findings of rule i about run j (then script j - runs.size()) begin.
  std::vector<std::vector<Diagnostic>> found(rules.size());
  std::vector<std::vector<std::size_t>> marks(rules.size());
  auto judge = [&](std::size_t i) {
    for (const auto& run : runs) {
      marks[i].push_back(found[i].size());
      rules[i]->check_run(run, project, found[i]);
    }
    for (const auto& [id, summary] : scripts) {
      marks[i].push_back(found[i].size());
      rules[i]->check_script(project, id, *summary, found[i]);
    }
    marks[i].push_back(found[i].size());
    for (FileId id : files) rules[i]->check_file(project, id, uses[id], found[i]);
  };
  if (threads == 1) {
    for (std::size_t i = 0; i < rules.size(); ++i) judge(i);
  } else {
    // Rules in the registry's order, taken by whichever thread is free; each thread asks for
    // the version targets through a memo of its own (the calling thread's is `memo`).
    std::atomic<std::size_t> next{0};
    const unsigned workers =
        static_cast<unsigned>(std::min<std::size_t>(resolve_threads(threads), std::max<std::size_t>(rules.size(), 1)));
    parallel_for(workers, workers, [&](std::size_t) {
      const VersionTargetsMemo own(project);
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

namespace {

std::string where(const Setting& s, const Project& project) {
  std::string out = s.origin.empty() ? "unset" : s.origin;
  if (s.span.valid()) {
    const SourceFile& f = project.sources.get(s.span.file);
    // A value Python code loaded from a data file (`SFTConfig(**yaml.safe_load(f))`) is written
    // in that file, in its syntax.
    if (s.origin == "Python" && (f.kind == FileKind::Yaml || f.kind == FileKind::Json))
      out = std::string(f.kind == FileKind::Yaml ? "YAML" : "JSON") + " loaded by Python";
    out += " at " + f.path + ":" + std::to_string(s.span.start.line + 1) + ":" +
           std::to_string(f.display_column(s.span.start));
  }
  return printable(out);
}

std::string value_text(const Setting& s) {
  switch (s.state) {
    case Setting::State::Unset: return "(unset)";
    case Setting::State::Unknown: return "(unknown)";
    case Setting::State::Known: return printable(s.value.yaml());
    case Setting::State::OneOf: return printable("one of: " + s.describe());
  }
  return "";
}

std::string file_or_dash(FileId id, const Project& project, std::size_t doc = 0) {
  if (id == kNoFile) return "-";
  const SourceFile& f = project.sources.get(id);
  if (f.kind == FileKind::Markdown && doc < project.facts[id].yaml.size() && project.facts[id].yaml[doc].root)
    return printable(f.path) + ":" + std::to_string(project.facts[id].yaml[doc].root->span.start.line + 1);
  return printable(f.path);
}

std::string accelerate_text(const TrainingRun& r, const Project& project) {
  if (!r.accelerate_profile.empty()) return "trl:" + r.accelerate_profile;
  return file_or_dash(r.accelerate_yaml, project, r.accelerate_yaml_doc);
}

std::string missing_note(const TrainingRun& r, FileReference::Kind kind) {
  for (const auto& ref : r.references)
    if (ref.kind == kind && !ref.exists) return ref.stand_in.empty() ? printable(ref.text) + " (missing)" : "";
  return "";
}

std::string config_text(const TrainingRun& r, const Project& project) {
  if (r.trainer_yaml != kNoFile) return file_or_dash(r.trainer_yaml, project, r.trainer_yaml_doc);
  if (r.trainer_yaml_unknown) return "?";
  std::string m = missing_note(r, FileReference::Kind::TrainerConfig);
  return m.empty() ? "-" : m;
}

std::string accel_or_missing(const TrainingRun& r, const Project& project) {
  std::string a = accelerate_text(r, project);
  if (a != "-") return a;
  if (r.accelerate_yaml_unknown) return "?";
  std::string m = missing_note(r, FileReference::Kind::AccelerateConfig);
  return m.empty() ? "-" : m;
}

std::string script_text(const TrainingRun& r) {
  if (r.script_display.empty()) return "-";
  if (r.script == kNoFile && r.launch && r.launch->launcher != Launcher::Trl) {
    for (const auto& ref : r.references)
      if ((ref.kind == FileReference::Kind::Script || ref.kind == FileReference::Kind::Module) && !ref.exists &&
          ref.checkable)
        return printable(r.script_display) + " (missing)";
  }
  return printable(r.script_display);
}

std::string launcher_text(const TrainingRun& r) {
  if (!r.launch) return "(no launch)";
  if (r.launch->launcher == Launcher::Python && r.launch->module) return "python -m";
  return to_string(r.launch->launcher);
}

}  // namespace

// Why parts of a run are `?`: why the trainer is not known (derived here), then what the run
// builder recorded (TrainingRun::explanations), each with the place it concerns.
std::vector<RelatedLocation> explanations(const TrainingRun& r) {
  std::vector<RelatedLocation> out;
  if (r.trainer.empty()) {
    const Span at = r.launch ? r.launch->span : Span{};
    if (r.launch && r.launch->script && !r.launch->script->known) {
      out.push_back({r.launch->script->span,
                     "the script path is not known: it is built from a variable, a loop or command output"});
    } else if (r.script == kNoFile && !r.script_display.empty()) {
      bool missing = false;
      for (const auto& ref : r.references)
        if ((ref.kind == FileReference::Kind::Script || ref.kind == FileReference::Kind::Module) && !ref.exists)
          missing = true;
      if (r.launch && r.launch->module)
        out.push_back({at, "module `" + r.script_display + "` is not part of the project (an installed package's)"});
      else
        out.push_back({at, missing ? "script `" + r.script_display + "` not found in the project"
                                   : "script `" + r.script_display + "` is not a file of the project"});
    } else if (r.evaluation_cut.valid()) {
      out.push_back({r.evaluation_cut,
                     "the script's evaluation stopped here (too many steps): what it builds "
                     "after this point is not known"});
    }
  }
  out.insert(out.end(), r.explanations.begin(), r.explanations.end());
  return out;
}

std::string located(const RelatedLocation& e, const Project& project) {
  std::string out = printable(e.message);
  if (e.span.valid()) {
    const SourceFile& f = project.sources.get(e.span.file);
    out += " (" + printable(f.path) + ":" + std::to_string(e.span.start.line + 1) + ")";
  }
  return out;
}

void print_runs(std::ostream& out, const std::vector<TrainingRun>& runs, const Project& project) {
  for (const auto& r : runs) {
    out << printable(r.name) << "  " << launcher_text(r) << "  " << script_text(r)
        << "  config=" << config_text(r, project) << "  accelerate=" << accel_or_missing(r, project)
        << "  world=" << value_text(r.world_size) << "  trainer=" << (r.trainer.empty() ? "?" : r.trainer)
        << "  cp=" << value_text(r.cp_size);
    const auto why = explanations(r);
    for (std::size_t i = 0; i < why.size(); ++i) out << (i ? "; " : "  # ") << printable(why[i].message);
    out << '\n';
  }
}

void print_run(std::ostream& out, const TrainingRun& r, const Project& project) {
  out << "run: " << printable(r.name) << (r.explicit_run ? " (from the project config)" : "") << '\n';
  out << "launcher: " << (r.launch ? launcher_text(r) : "(none: script run directly)") << '\n';
  out << "script: " << script_text(r)
      << (r.script == kNoFile ? "" : " (" + printable(project.sources.get(r.script).path) + ")") << '\n';
  out << "trainer: " << (r.trainer.empty() ? "unknown" : r.trainer) << '\n';
  out << "trainer config: " << config_text(r, project) << '\n';
  if (r.defaults_class)
    out << "defaults: of " << r.defaults_class->name << " in "
        << version_targets(project, r.version_anchor(), Knowledge::get()).trl.describe() << ", read from "
        << r.defaults_class->source << '\n';
  out << "accelerate config: " << accel_or_missing(r, project) << '\n';
  if (const auto why = explanations(r); !why.empty()) {
    out << "unresolved or ignored, and why:\n";
    for (const auto& e : why) out << "  " << located(e, project) << '\n';
  }
  if (!r.references.empty()) {
    out << "files named by the launch:\n";
    for (const auto& ref : r.references) {
      out << "  " << to_string(ref.kind) << " " << printable(ref.text) << ": "
          << (ref.exists             ? "found"
              : ref.stand_in.empty() ? "missing"
                                     : "missing; docs block " + ref.stand_in + " stands in")
          << '\n';
    }
  }
  out << "topology:\n";
  out << "  num_processes = " << value_text(r.num_processes) << "  # " << where(r.num_processes, project) << '\n';
  out << "  num_machines = " << value_text(r.num_machines) << "  # " << where(r.num_machines, project) << '\n';
  out << "  world_size = " << value_text(r.world_size) << "  # " << where(r.world_size, project) << '\n';
  out << "  cp_size = " << value_text(r.cp_size) << "  # " << where(r.cp_size, project) << '\n';
  out << "  sp_size = " << value_text(r.sp_size) << "  # " << where(r.sp_size, project) << '\n';
  const std::pair<const char*, const Setting*> more[] = {
      {"dp_replicate_size", &r.dp_replicate_size},
      {"dp_shard_size", &r.dp_shard_size},
      {"tp_size", &r.tp_size},
      {"sp_backend", &r.sp_backend},
      {"distributed_type", &r.accelerate.distributed_type},
      {"fsdp_version", &r.accelerate.fsdp_version},
      {"fsdp_activation_checkpointing", &r.accelerate.fsdp_activation_checkpointing},
      {"mixed_precision", &r.accelerate.mixed_precision},
      {"deepspeed_config_file", &r.accelerate.deepspeed_config_file},
      {"attn_implementation", &r.attn_implementation},
  };
  for (const auto& [name, s] : more)
    if (s->state != Setting::State::Unset)
      out << "  " << name << " = " << value_text(*s) << "  # " << where(*s, project) << '\n';
  if (r.launch && !r.launch->env.empty()) {
    out << "environment:\n";
    for (const auto& e : r.launch->env)
      out << "  " << printable(e.name) << " = " << (e.value.known ? printable(e.value.text) : "(unknown)") << '\n';
  }
  out << "trainer arguments set explicitly:\n";
  for (const auto& [name, s] : r.args)
    out << "  " << name << " = " << value_text(s) << "  # " << where(s, project) << '\n';
  const ClassInfo* defaults = r.defaults_class ? r.defaults_class : r.config_class;
  for (const char* field : {"packing", "eval_packing"}) {
    if (r.args.count(field) || !defaults) continue;
    Setting d = r.arg(field);
    if (d.known() && d.origin == "default")
      out << "  (" << field << " = " << d.value.yaml() << "  # default of " << defaults->name << ", "
          << defaults->source << ")\n";
  }
}

void print_graph(std::ostream& out, const std::vector<TrainingRun>& runs, const Project& project,
                 const std::string& format) {
  struct Node {
    std::string id, label, shape;
  };
  std::vector<Node> nodes;
  std::map<std::string, std::string> ids;
  std::vector<std::tuple<std::string, std::string, std::string>> edges;
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  auto node = [&](const std::string& key, const std::string& label, const std::string& shape) {
    auto it = ids.find(key);
    if (it != ids.end()) return it->second;
    std::string id = "n" + std::to_string(nodes.size());
    ids[key] = id;
    nodes.push_back({id, label, shape});
    return id;
  };
  auto edge = [&](const std::string& a, const std::string& b, const std::string& label) {
    if (seen.insert({a, b, label}).second) edges.emplace_back(a, b, label);
  };
  for (const auto& r : runs) {
    std::string launch = r.launch ? node("launch:" + r.name, r.name, "launch") : "";
    std::string script;
    std::string st = script_text(r);
    if (st != "-") script = node("script:" + st, st, "script");
    if (!launch.empty() && !script.empty()) edge(launch, script, launcher_text(r));
    std::string from = launch.empty() ? script : launch;
    if (from.empty()) continue;
    std::string cfg = config_text(r, project);
    if (cfg != "-") edge(from, node("config:" + cfg, cfg, "config"), "--config");
    std::string acc = accel_or_missing(r, project);
    if (acc != "-")
      edge(from, node("accelerate:" + acc, acc, "config"),
           r.launch && r.launch->launcher == Launcher::Trl ? "--accelerate_config" : "--config_file");
  }
  auto quote = [](const std::string& s) {
    std::string o;
    for (char c : s) {
      if (c == '"' || c == '\\') o.push_back('\\');
      o.push_back(c);
    }
    return o;
  };
  if (format == "mermaid") {
    out << "flowchart LR\n";
    for (const auto& n : nodes) {
      std::string label = n.label;
      std::replace(label.begin(), label.end(), '"', '\'');
      const char* open = n.shape == "launch" ? "([" : n.shape == "script" ? "[" : "[(";
      const char* close = n.shape == "launch" ? "])" : n.shape == "script" ? "]" : ")]";
      out << "  " << n.id << open << '"' << label << '"' << close << '\n';
    }
    for (const auto& [a, b, label] : edges) out << "  " << a << " -->|\"" << label << "\"| " << b << '\n';
    return;
  }
  out << "digraph trl_lint {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n";
  for (const auto& n : nodes) {
    const char* shape = n.shape == "launch" ? "box" : n.shape == "script" ? "component" : "note";
    out << "  " << n.id << " [label=\"" << quote(n.label) << "\", shape=" << shape << "];\n";
  }
  for (const auto& [a, b, label] : edges) out << "  " << a << " -> " << b << " [label=\"" << quote(label) << "\"];\n";
  out << "}\n";
}

}  // namespace trl
