#include "analyzer/report/views.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/report/formatters.hpp"

namespace trl {

namespace {

std::string where(const Setting& s, const Project& project) {
  std::string out = s.origin == Origin::None ? "unset" : s.origin_text();
  if (s.span.valid()) {
    const SourceFile& f = project.sources.get(s.span.file);
    // A value Python code loaded from a data file (`SFTConfig(**yaml.safe_load(f))`) is written
    // in that file, in its syntax.
    if (s.origin == Origin::Python && (f.kind == FileKind::Yaml || f.kind == FileKind::Json))
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
  if (r.defaults_class) {
    // The transformers release named when TrainingArguments' defaults come from its history.
    const Knowledge& k = Knowledge::get();
    const VersionTargets t = version_targets(project, r.version_anchor(), k);
    const ClassInfo* args = k.find("TrainingArguments");
    const ClassInfo* args_at =
        args && t.transformers.known() && k.judged_by_history("transformers", *t.transformers.version)
            ? k.at(*args, *t.transformers.version)
            : nullptr;
    out << "defaults: of " << r.defaults_class->name << " in " << t.trl.describe()
        << (args_at ? " and " + t.transformers.describe() : "") << ", read from " << r.defaults_class->source
        << (args_at ? " and " + args_at->source : "") << '\n';
  }
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
    if (d.known() && d.origin == Origin::Default)
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
