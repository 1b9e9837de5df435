// Builds the training runs of a project: one per trainer config each launch command, declared
// run and entry script builds, with the script and config files the launch names resolved
// against the folders it may run from, and docs sections standing in for files a page does not
// ship. The runs' settings are run_settings.cpp's, their processes run_topology.cpp's.
#include "analyzer/eval/run_builder.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

#include "analyzer/eval/python_eval.hpp"
#include "analyzer/eval/run_builder_internal.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/markdown/markdown_extractor.hpp"
#include "analyzer/util/parallel.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace run_builder_detail {

const YamlNode* yaml_root(const Project& p, FileId id, std::size_t doc) {
  if (id == kNoFile || p.facts[id].yaml.size() <= doc) return nullptr;
  const auto& root = p.facts[id].yaml[doc].root;
  return root && root->kind == YamlNode::Kind::Mapping ? root.get() : nullptr;
}

namespace {

// An accelerate config rather than a trainer config: it has keys only accelerate's YAML has.
bool accelerate_like(const YamlNode& root) {
  for (const char* k : {"distributed_type", "compute_environment", "num_machines", "parallelism_config", "fsdp_config",
                        "deepspeed_config", "machine_rank", "use_cpu"})
    if (root.find(k)) return true;
  return false;
}

bool is_doc(const SourceFile& f) {
  return f.kind == FileKind::Markdown || f.kind == FileKind::Notebook;
}

bool imports_training_library(const py::Module& m) {
  for (const auto& s : m.stmts) {
    if (s.kind == py::StmtKind::ImportFrom && s.level == 0) {
      std::string root = s.module.substr(0, s.module.find('.'));
      if (root == "trl" || root == "transformers" || root == "accelerate") return true;
    }
    if (s.kind == py::StmtKind::Import)
      for (const auto& a : s.names) {
        std::string root = a.name.substr(0, a.name.find('.'));
        if (root == "trl" || root == "transformers" || root == "accelerate") return true;
      }
  }
  return false;
}

// Scripts that import a training library directly may be run on their own.
bool is_candidate(const Project& p, FileId id) {
  const auto& f = p.sources.get(id);
  const bool python = f.kind == FileKind::Python || f.kind == FileKind::Markdown || f.kind == FileKind::Notebook;
  return python && p.facts[id].loaded && imports_training_library(p.facts[id].python);
}

// The project's ScriptCache, emptied first when files were added since it was filled: a file
// added (a new buffer, a JSON file a script names) may be what an import or a load that failed
// before now finds, so nothing kept can be trusted. Null when the project keeps none.
ScriptCache* usable_cache(const Project& p) {
  ScriptCache* cache = p.script_cache.get();
  if (cache && cache->files != p.sources.size()) {
    cache->summaries.clear();
    cache->files = p.sources.size();
  }
  return cache;
}

}  // namespace

// Scripts that import a training library directly may be run on their own; others are
// evaluated when a launch names them or when an entry script imports them. Python blocks
// of Markdown pages and notebook cells count as scripts too.
bool Builder::candidate(FileId id) const {
  return is_candidate(p_, id);
}

std::vector<FileId> Builder::candidates() const {
  std::vector<FileId> out;
  for (FileId id = 0; id < p_.sources.size(); ++id)
    if (candidate(id)) out.push_back(id);
  return out;
}

// One script's evaluation (through the project's ScriptCache when it has one).
const ScriptSummary& Builder::evaluation(FileId id) {
  return summary(id);
}

// The runs of one launch command (none when it is not a launch).
std::vector<TrainingRun> Builder::runs_of_command(FileId id, std::size_t i) {
  auto launch = parse_launch(p_.facts[id].commands[i], k_);
  if (!launch) return {};
  return from_launch(*launch, id);
}

// The runs of a run declared in the configuration.
std::vector<TrainingRun> Builder::runs_of_declared(const DeclaredRun& d) {
  auto built = from_launch(d.launch, d.file);
  for (auto& r : built) {
    r.explicit_run = true;
    if (!d.name.empty()) r.name = d.name;
  }
  return built;
}

// The runs of a script run on its own (none when it is not an entry script).
std::vector<TrainingRun> Builder::runs_of_script(FileId id) {
  // pytest's test files (test_*.py, *_test.py, conftest.py) are collected by pytest, not run:
  // a test that builds a bad configuration on purpose (inside pytest.raises) is no run.
  const std::string name = fs::path(p_.sources.get(id).path).filename().string();
  const bool pytest_file =
      name == "conftest.py" ||
      (name.rfind("test_", 0) == 0 && name.size() > 8 && name.compare(name.size() - 3, 3, ".py") == 0) ||
      (name.size() > 8 && name.compare(name.size() - 8, 8, "_test.py") == 0);
  if (pytest_file) return {};
  const ScriptSummary& own = summary(id);
  if (!own.is_entry) return {};
  // A module that builds configs and no trainer, imported by another script of the project
  // (`configs.py` with DEFAULT_ARGS), is where that script takes its settings from, not a
  // run: the importing script's runs judge what it does with them.
  if (own.trainers.empty() && imported_modules().count(id)) return {};
  return for_script(id, nullptr, kNoFile);
}

// The modules a script's evaluation read.
std::vector<FileId> Builder::modules_of(FileId script) {
  return summary(script).modules;
}

// The project's Python files that another one imports (import statements anywhere in it,
// resolved as the evaluator resolves them; `from pkg import mod` names pkg/mod.py too).
const std::set<FileId>& Builder::imported_modules() {
  if (imported_) return *imported_;
  imported_.emplace();
  for (FileId from = 0; from < p_.sources.size(); ++from) {
    if (p_.sources.get(from).kind != FileKind::Python || !p_.facts[from].loaded) continue;
    for (const auto& st : p_.facts[from].python.stmts) {
      auto add = [&](const std::string& dotted, int level) {
        const FileId to = evaluator_.resolve_import(dotted, level, from);
        if (to != kNoFile && to != from) imported_->insert(to);
      };
      if (st.kind == py::StmtKind::Import) {
        for (const auto& a : st.names) add(a.name, 0);
      } else if (st.kind == py::StmtKind::ImportFrom) {
        if (!st.module.empty()) add(st.module, st.level);
        for (const auto& a : st.names) add(st.module.empty() ? a.name : st.module + "." + a.name, st.level);
      }
    }
  }
  return *imported_;
}

// The folders a launch's relative paths are tried against, in order. Each reference of a
// launch asks again: they are computed once per launch file and working folder (all they
// depend on; launches are copied, so not per LaunchCommand object) and kept for the
// builder's life (the project does not change under a builder).
const std::vector<std::string>& Builder::bases(const LaunchCommand* launch, FileId launch_file) const {
  const bool cwd = launch && launch->cwd_known && (!launch->cwd.empty() || launch->cwd_script_dir);
  // A folder known relative to the script's own (`cd "$(dirname "$0")"`) is keyed apart.
  auto [at, fresh] =
      bases_.try_emplace({launch_file, cwd ? (launch->cwd_script_dir ? "\x01" : "") + launch->cwd : std::string()});
  if (fresh) at->second = compute_bases(launch, launch_file);
  return at->second;
}

std::vector<std::string> Builder::compute_bases(const LaunchCommand* launch, FileId launch_file) const {
  std::vector<std::string> out;
  if (launch_file != kNoFile) {
    fs::path dir = fs::path(p_.sources.get(launch_file).abs_path).parent_path();
    if (launch && launch->cwd_known && launch->cwd_script_dir) {
      // The script went to a folder relative to its own: its relative paths mean that
      // folder, wherever it was started from.
      out.push_back((dir / launch->cwd).lexically_normal().string());
      return out;
    }
    if (launch && launch->cwd_known && !launch->cwd.empty())
      out.push_back((dir / launch->cwd).lexically_normal().string());
    // Make runs recipes in its working folder, the Makefile's unless `make -f`/`-C` says
    // otherwise: that folder first.
    if (p_.sources.get(launch_file).kind == FileKind::Makefile) out.push_back(dir.string());
    out.push_back(p_.root);
    out.push_back(dir.string());
    // A script in `scripts/` or `slurm/` is usually run from a folder above it (the root of a
    // repository nested in the analysed folder): every folder between it and the root counts.
    const std::string root = fs::path(p_.root).lexically_normal().string();
    for (fs::path up = dir.parent_path(); inside_folder(up.string(), root); up = up.parent_path())
      out.push_back(up.string());
  } else {
    out.push_back(p_.root);
  }
  // Not trl-lint's own working folder: findings must not depend on where it was started.
  return out;
}

// A path a launch names: `$(dirname "$0")/..`-style paths (the `$SCRIPT_DIR$` marker of the
// shell extractor) are the launch file's own folder; others are tried against bases().
FileId Builder::resolve_path(const std::string& text, const LaunchCommand& l, FileId launch_file) const {
  static const std::string marker = "$SCRIPT_DIR$";
  if (text.rfind(marker, 0) == 0) {
    if (launch_file == kNoFile) return kNoFile;
    std::string rest = text.substr(marker.size());
    while (!rest.empty() && rest[0] == '/') rest.erase(0, 1);
    if (rest.find('$') != std::string::npos) return kNoFile;
    const fs::path dir = fs::path(p_.sources.get(launch_file).abs_path).parent_path();
    return p_.resolve((dir / rest).lexically_normal().string(), {});
  }
  if (text.find("$SCRIPT_DIR$") != std::string::npos) return kNoFile;
  return p_.resolve(text, bases(&l, launch_file));
}

FileId Builder::resolve_script(const LaunchCommand& l, FileId launch_file) const {
  if (!l.script || !l.script->known) return kNoFile;
  const auto& b = bases(&l, launch_file);
  if (!l.module) return resolve_path(l.script->text, l, launch_file);
  std::string path = l.script->text;
  std::replace(path.begin(), path.end(), '.', '/');
  for (const std::string& candidate : {path + ".py", path + "/__main__.py", "src/" + path + ".py"}) {
    FileId id = p_.resolve(candidate, b);
    if (id != kNoFile) return id;
  }
  return kNoFile;
}

// A launch line for a project config's `runs:` entry.
// Whether a path exists under one of the bases (any file, not only the analysed kinds).
bool Builder::exists_on_disk(const std::string& path, const std::vector<std::string>& b) const {
  if (fs::path(path).is_absolute()) return p_.exists(path);
  for (const auto& base : b)
    if (p_.exists((fs::path(base) / path).string())) return true;
  return false;
}

// Whether the folder a path names exists under one of the bases and holds some other file
// of the same kind (`scripts/sft.py`: a `.py` file in `scripts/`). A folder without one is a
// partial copy of a repository or is filled at run time: a missing file there is not judged.
bool Builder::folder_has_kind(const std::string& path, const std::vector<std::string>& b) const {
  const fs::path rel(path);
  const std::string ext = rel.extension().string();
  for (const auto& base : b) {
    const std::string folder = (fs::path(base) / rel).parent_path().string();
    // Runs name the same folders again and again (one accelerate_configs/ for every launch):
    // each folder and extension is looked at once per build.
    auto [at, fresh] = folder_kinds_.try_emplace(folder + '\n' + ext, false);
    if (fresh) at->second = p_.folder_holds(folder, ext);
    if (at->second) return true;
  }
  return false;
}

bool Builder::created_by_launcher(const std::string& path, FileId launch_file) const {
  if (launch_file == kNoFile) return false;
  const std::string name = fs::path(path).filename().string();
  for (const auto& c : p_.facts[launch_file].created)
    if (!c.cwd_known || c.path == path || fs::path(c.path).filename().string() == name) return true;
  return false;
}

FileReference Builder::make_reference(FileReference::Kind kind, const Word& w, const LaunchCommand& l,
                                      FileId launch_file, FileId resolved) const {
  FileReference r;
  r.kind = kind;
  r.text = w.text;
  r.span = w.span;
  r.file = resolved;
  const auto& b = bases(&l, launch_file);
  r.exists = resolved != kNoFile || (w.known && exists_on_disk(w.text, b));
  const bool plain = w.known && !w.text.empty() && w.text[0] != '/' && w.text.find('$') == std::string::npos &&
                     w.text.find('*') == std::string::npos && w.text[0] != '-';
  // `scripts/run_{task}.py`, `<your_config>.yaml`: placeholders, not paths.
  const bool placeholder = w.text.find_first_of("{}<>") != std::string::npos;
  r.checkable = plain && !placeholder && l.cwd_known && !created_by_launcher(w.text, launch_file) &&
                (kind == FileReference::Kind::Module || folder_has_kind(w.text, b));
  if (r.checkable && launch_file != kNoFile && is_doc(p_.sources.get(launch_file))) {
    // Docs name placeholder files (`train.py`, `config.yaml`): judged only when the folder
    // they name exists in the repository.
    auto slash = w.text.rfind('/');
    r.checkable = slash != std::string::npos && exists_on_disk(w.text.substr(0, slash), b);
  }
  return r;
}

// The sections of a Markdown file around a launch line, innermost first (empty otherwise).
std::vector<std::pair<std::uint32_t, std::uint32_t>> Builder::doc_sections(const LaunchCommand& l,
                                                                           FileId launch_file) const {
  if (launch_file == kNoFile || p_.sources.get(launch_file).kind != FileKind::Markdown || !l.span.valid()) return {};
  std::vector<markdown::Heading> hs;
  for (const auto& h : p_.facts[launch_file].headings) hs.push_back({h.level, h.line});
  return markdown::enclosing_sections(hs, l.span.start.line,
                                      static_cast<std::uint32_t>(p_.sources.get(launch_file).line_starts.size()));
}

// A YAML block of the launch's section (or an enclosing one) that can stand in for a
// config file the launch names but the repository does not have.
std::optional<std::size_t> Builder::stand_in_yaml(FileId md,
                                                  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& sections,
                                                  std::uint32_t near_line, bool accelerate) const {
  for (const auto& [lo, hi] : sections) {
    std::optional<std::size_t> best;
    for (std::size_t d = 0; d < p_.facts[md].yaml.size(); ++d) {
      const YamlNode* root = yaml_root(p_, md, d);
      if (!root || accelerate_like(*root) != accelerate) continue;
      const std::uint32_t line = root->span.start.line;
      if (line < lo || line >= hi) continue;
      if (!best || line <= near_line) best = d;  // the nearest block above the launch, else the first
    }
    if (best) return best;
  }
  return std::nullopt;
}

void Builder::take_stand_in(FileReference& ref, const LaunchCommand& l, FileId launch_file, bool accelerate,
                            FileId& yaml, std::size_t& doc) const {
  if (ref.exists || sections_.empty()) return;
  const auto d = stand_in_yaml(launch_file, sections_, l.span.start.line, accelerate);
  if (!d) return;
  yaml = launch_file;
  doc = *d;
  ref.stand_in =
      p_.sources.get(launch_file).path + ":" + std::to_string(yaml_root(p_, launch_file, *d)->span.start.line + 1);
}

std::vector<TrainingRun> Builder::from_launch(const LaunchCommand& l, FileId launch_file) {
  FileId script = l.launcher == Launcher::Trl ? kNoFile : resolve_script(l, launch_file);
  sections_ = doc_sections(l, launch_file);
  config_lines_.reset();
  std::optional<FileReference> ref;
  if (l.script && l.launcher != Launcher::Trl) {
    ref = make_reference(l.module ? FileReference::Kind::Module : FileReference::Kind::Script, *l.script, l,
                         launch_file, script);
    if (l.module && ref->checkable) {
      // A module is judged only when its parent package is a folder of the project.
      std::string path = l.script->text;
      std::replace(path.begin(), path.end(), '.', '/');
      auto slash = path.rfind('/');
      const auto& b = bases(&l, launch_file);
      ref->checkable =
          slash != std::string::npos && exists_on_disk(path.substr(0, slash), b) && folder_has_kind(path + ".py", b);
      ref->exists = ref->exists || exists_on_disk(path + ".py", b) || exists_on_disk(path + "/__main__.py", b);
    }
    if (!ref->exists && !sections_.empty()) {
      // Docs: the Python blocks of the section stand in for the script, run on their own (a
      // variable the page binds again in a later section keeps this section's value).
      const ScriptSummary* page = p_.facts[launch_file].python.body.empty() ? nullptr : &summary(launch_file);
      if (page)
        for (const auto& [lo, hi] : sections_) {
          bool any = false;
          for (const auto& c : page->constructions)
            any = any || (c.cls && c.cls->role == ClassRole::TrainerConfig && c.span.start.line >= lo &&
                          c.span.start.line < hi);
          if (!any) continue;
          const ScriptSummary& own = section_summary(launch_file, lo, hi);
          any = false;
          for (const auto& c : own.trainer_configs) any = any || (c->span.start.line >= lo && c->span.start.line < hi);
          if (!any) continue;
          script = launch_file;
          config_lines_ = std::make_pair(lo, hi);
          section_ = &own;
          ref->stand_in = p_.sources.get(launch_file).path + ":" + std::to_string(lo + 1);
          break;
        }
    }
  }
  auto runs = for_script(script, &l, launch_file);
  for (auto& r : runs) {
    if (ref) r.references.insert(r.references.begin(), *ref);
  }
  // What this launch found out about its page holds for this launch only: an entry script
  // built next (on this builder) keeps every trainer config it builds.
  sections_.clear();
  config_lines_.reset();
  section_ = nullptr;
  return runs;
}

// One run per trainer config the script builds (usually one).
std::vector<TrainingRun> Builder::for_script(FileId script, const LaunchCommand* launch, FileId launch_file) {
  std::vector<TrainingRun> out;
  yaml_model_init_attn_ = Setting{};
  TrainingRun base;
  if (launch) {
    base.launch = *launch;
    base.launch_file = launch_file;
    base.name = launch_file == kNoFile
                    ? std::string("(explicit run)")
                    : p_.sources.get(launch_file).path + ":" + std::to_string(launch->span.start.line + 1);
    if (launch->script) base.script_display = launch->script->text;
  } else {
    base.name = p_.sources.get(script).path;
  }
  base.script = script;
  if (script != kNoFile && base.script_display.empty()) base.script_display = p_.sources.get(script).path;
  if (script != kNoFile && config_lines_ && launch && launch->script)
    base.script_display = launch->script->text + " (docs: " + p_.sources.get(script).path + ":" +
                          std::to_string(config_lines_->first + 1) + ")";

  if (launch && !launch->trl_command.empty()) {
    // `trl sft` (or `-m trl.scripts.sft`) runs TRL's own script: TrlParser over its dataclasses
    // (Knowledge::trl_cli_classes).
    TrainingRun run = base;
    run.script_display =
        launch->launcher == Launcher::Trl || !launch->script ? "trl " + launch->trl_command : launch->script->text;
    run.config_class = k_.trl_cli_config(launch->trl_command);
    run.defaults_class = at_target_release(run);
    run.trainer = launch->trl_command;
    run.args_from_parser = true;
    std::vector<const ClassInfo*> classes = k_.trl_cli_classes(launch->trl_command);
    run.parser_classes = classes;
    run.parser_classes_complete = run.config_class != nullptr;
    EnvMap yaml_env;
    apply_parser_inputs(run, classes, yaml_env);
    compute_topology(run, nullptr, yaml_env);
    // TRL's scripts pass model_name_or_path and set model_init_kwargs from ModelConfig
    // (trl/scripts/sft.py, grpo.py @v1.9.0).
    run.attn_implementation = attn_default(run.arg("attn_implementation"), launch->span);
    out.push_back(std::move(run));
    return out;
  }

  const ScriptSummary* found = section_ && script != kNoFile ? section_
                               : script != kNoFile           ? &summary(script)
                                                             : nullptr;
  if (!found || found->trainer_configs.empty()) {
    TrainingRun run = base;
    if (found) run.evaluation_cut = found->cut_short;
    if (found && !found->cut_short.valid())
      run.explanations.push_back({Span{script},
                                  "the script builds no trainer configuration trl-lint knows (no TRL or transformers "
                                  "config class, parser or trainer call was followed)"});
    EnvMap none;
    compute_topology(run, found, none);
    run.args_fully_known = false;
    out.push_back(std::move(run));
    return out;
  }
  const ScriptSummary& summary = *found;
  for (const ValueRef& config : summary.trainer_configs) {
    if (config_lines_ &&
        (config->span.start.line < config_lines_->first || config->span.start.line >= config_lines_->second))
      continue;
    TrainingRun run = base;
    run.config_class = config->cls;
    run.defaults_class = at_target_release(run);
    run.trainer = config->cls ? config->cls->trainer : "";
    // The patchers imported before the config (or the parser that made it) was built.
    for (const Construction& c : summary.constructions) {
      bool made_it = c.span == config->span;
      if (config->from_parser)
        for (const auto& parser : summary.parsers) made_it = made_it || c.span == parser->span;
      if (made_it)
        for (const Patcher* p : c.patched_by)
          if (std::find(run.patched_by.begin(), run.patched_by.end(), p) == run.patched_by.end())
            run.patched_by.push_back(p);
    }
    for (const auto& t : summary.trainers)
      if (t.args && t.args->object_id == config->object_id && t.trainer) run.trainer = t.trainer->trainer;
    EnvMap yaml_env;
    if (config->from_parser) {
      run.args_from_parser = true;
      std::vector<const ClassInfo*> classes;
      for (const auto& parser : summary.parsers)
        for (const auto& c : parser->parser_classes) {
          if (c->cls) classes.push_back(c->cls);
          if (c->kind == PyValue::Kind::Class)
            for (const auto& f : c->dataclass_fields) run.user_fields.push_back(f);
          else if (!c->cls)
            run.parser_classes_complete = false;
        }
      // No parser seen, or one whose dataclasses we could not read: any key may be valid.
      if (summary.parsers.empty()) run.parser_classes_complete = false;
      for (const auto& parser : summary.parsers)
        if (parser->parser_classes.empty()) run.parser_classes_complete = false;
      if (classes.empty() && config->cls) classes.push_back(config->cls);
      run.parser_classes = classes;
      run.parser_keeps_unknown = summary.parser_keeps_unknown;
      if (launch)
        apply_parser_inputs(run, classes, yaml_env, config->parser_reads_config);
      else
        run.args_fully_known = false;  // argv and --config are not visible without a launch line
      // The script's own subclass of a library config: a field it declares again has the
      // subclass's default (`gradient_checkpointing: bool = False`), below what --config and
      // the command line set; one we cannot read is unknown. A __post_init__ of its own may
      // set any field.
      for (const auto& parser : summary.parsers)
        for (const auto& c : parser->parser_classes) {
          if (c->kind != PyValue::Kind::Class || !c->cls) continue;
          if (c->member("__post_init__")) {
            run.args_fully_known = false;
            // What it assigns replaces what --config and the command line set.
            for (const auto& f : post_init_writes(p_, *c)) run.args[f] = Setting::unknown(c->span, Origin::Python);
          }
          for (const auto& f : c->dataclass_fields) {
            if (run.args.count(f) || !k_.field(*c->cls, f)) continue;
            const Member* m = c->member(f);
            run.args[f] =
                m ? from_value(m->value, m->set_at, Origin::Python) : Setting::unknown(c->span, Origin::Python);
          }
        }
      // A change after parsing that is not followed (setattr with a computed name,
      // `args.__dict__.update(...)`) may have set any field: what argv, --config and the
      // defaults gave is no longer definite. The keys keep where they were written, for the
      // checks of the keys themselves (an unknown YAML key raises before any such change).
      if (!config->complete) {
        run.args_fully_known = false;
        for (auto& [field, setting] : run.args) {
          Setting was = std::move(setting);
          setting = Setting::unknown(was.span, was.origin, was.origin_detail);
          setting.chain = std::move(was.chain);
        }
      }
    } else {
      run.args_fully_known = config->complete;
    }
    // Python keyword arguments, or assignments made after parsing (which win over argv).
    for (const Member& m : config->members) run.args[m.name] = from_value(m.value, m.set_at, Origin::Python);
    compute_topology(run, &summary, yaml_env, config);
    run.attn_implementation = resolve_attn(run, summary, config);
    out.push_back(std::move(run));
  }
  return out;
}

// A script's evaluation: kept in the project's ScriptCache when it has one (the LSP server:
// the run builder and the project-wide rules then share it), else in this builder.
const ScriptSummary& Builder::summary(FileId script) {
  if (ScriptCache* cache = usable_cache(p_)) {
    if (!cache_lock_) {
      auto it = cache->summaries.find(script);
      if (it == cache->summaries.end()) {
        it = cache->summaries.emplace(script, evaluator_.summarize(script)).first;
        ++cache->evaluated;
      }
      return it->second;
    }
    // Shared with builders on other threads: evaluated outside the lock (two threads may
    // evaluate one script at once; the evaluations are equal and the first one is kept).
    {
      const std::lock_guard<std::mutex> hold(*cache_lock_);
      if (auto it = cache->summaries.find(script); it != cache->summaries.end()) return it->second;
    }
    ScriptSummary fresh = evaluator_.summarize(script);
    const std::lock_guard<std::mutex> hold(*cache_lock_);
    auto [it, inserted] = cache->summaries.emplace(script, std::move(fresh));
    if (inserted) ++cache->evaluated;
    return it->second;
  }
  auto it = summaries_.find(script);
  if (it == summaries_.end()) it = summaries_.emplace(script, evaluator_.summarize(script)).first;
  return it->second;
}

// A docs page's section [lo, hi) evaluated on its own (ProjectEvaluator::summarize with lines).
const ScriptSummary& Builder::section_summary(FileId page, std::uint32_t lo, std::uint32_t hi) {
  auto key = std::make_tuple(page, lo, hi);
  auto it = section_summaries_.find(key);
  if (it == section_summaries_.end())
    it = section_summaries_.emplace(key, evaluator_.summarize(page, std::make_pair(lo, hi))).first;
  return it->second;
}

}  // namespace run_builder_detail

using run_builder_detail::Builder;
using run_builder_detail::is_candidate;
using run_builder_detail::usable_cache;

void for_each_script(const Project& project, const Knowledge& knowledge,
                     const std::function<void(FileId, const ScriptSummary&)>& fn) {
  ScriptCache* cache = usable_cache(project);
  if (!cache) {
    Builder builder(project, knowledge);
    for (FileId id : builder.candidates()) fn(id, builder.evaluation(id));
    return;
  }
  std::optional<Builder> builder;  // made only when some script is not in the cache
  for (FileId id = 0; id < project.sources.size(); ++id) {
    if (!is_candidate(project, id)) continue;
    if (auto it = cache->summaries.find(id); it != cache->summaries.end()) {
      fn(id, it->second);
      continue;
    }
    if (!builder) builder.emplace(project, knowledge);
    fn(id, builder->evaluation(id));  // evaluated into the cache
  }
}

ScriptSummary script_summary(const Project& project, const Knowledge& knowledge, FileId script) {
  if (const ScriptCache* cache = project.script_cache.get(); cache && cache->files == project.sources.size())
    if (auto it = cache->summaries.find(script); it != cache->summaries.end()) return it->second;
  ProjectEvaluator evaluator(project, knowledge);
  return evaluator.summarize(script);
}

std::vector<FileId> ScriptCache::invalidate(FileId changed) {
  std::vector<FileId> dropped;
  std::erase_if(summaries, [&](const auto& entry) {
    const auto& read = entry.second.modules;
    const bool drop = entry.first == changed || std::binary_search(read.begin(), read.end(), changed);
    if (drop) dropped.push_back(entry.first);
    return drop;
  });
  return dropped;
}

namespace {

// Everything, or the part `scope` names, on `threads` threads. Launch commands (by file and
// index) and declared runs first, then the entry scripts no launch starts; each part's runs are
// built on whichever thread is free, each thread with a builder of its own, and joined in the
// order one thread builds them. The threads share the project's ScriptCache (under a lock).
std::vector<TrainingRun> build_all(const Project& p, const Knowledge& k, const std::vector<DeclaredRun>& declared,
                                   const RunScope* scope, unsigned threads) {
  (void)usable_cache(p);        // a cache of another file list is emptied before any thread reads it
  std::vector<RunOrigin> jobs;  // launch commands and declared runs, in the order they are joined
  if (scope) {
    for (auto [id, i] : scope->launches)
      if (id < p.sources.size() && i < p.facts[id].commands.size())
        jobs.push_back(RunOrigin{RunOrigin::Kind::Launch, id, i});
  } else {
    for (FileId id = 0; id < p.sources.size(); ++id)
      for (std::size_t i = 0; i < p.facts[id].commands.size(); ++i)
        jobs.push_back(RunOrigin{RunOrigin::Kind::Launch, id, i});
  }
  for (std::size_t i = 0; i < declared.size(); ++i)
    if (declared[i].file != kNoFile && (!scope || scope->declared.count(i)))
      jobs.push_back(RunOrigin{RunOrigin::Kind::Declared, kNoFile, i});

  threads = resolve_threads(threads);
  std::mutex cache_lock;
  std::vector<std::optional<Builder>> builders(threads);
  auto builder = [&](std::size_t worker) -> Builder& {
    if (!builders[worker]) builders[worker].emplace(p, k, threads > 1 ? &cache_lock : nullptr);
    return *builders[worker];
  };
  // `work(worker, j)` for j in [0, n); at most `threads` workers, each on one thread at a time.
  auto spread = [&](std::size_t n, auto&& work) {
    const unsigned workers = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
    std::atomic<std::size_t> next{0};
    parallel_for(workers, workers, [&](std::size_t worker) {
      for (std::size_t j = next++; j < n; j = next++) work(worker, j);
    });
  };

  // The modules each run's script read, from the builder that evaluated it (without a shared
  // script cache, another builder would evaluate the script again).
  auto with_modules = [&](std::size_t worker, std::vector<TrainingRun> part) {
    for (auto& r : part)
      if (r.script != kNoFile) r.modules = builder(worker).modules_of(r.script);
    return part;
  };
  std::vector<std::vector<TrainingRun>> built(jobs.size());
  spread(jobs.size(), [&](std::size_t worker, std::size_t j) {
    const RunOrigin& o = jobs[j];
    built[j] =
        with_modules(worker, o.kind == RunOrigin::Kind::Launch ? builder(worker).runs_of_command(o.file, o.index)
                                                               : builder(worker).runs_of_declared(declared[o.index]));
  });
  std::vector<TrainingRun> runs;
  std::set<FileId> launched = scope ? scope->launched : std::set<FileId>{};
  auto add = [&](std::vector<TrainingRun>& part, const RunOrigin& origin) {
    for (auto& r : part) {
      if (r.script != kNoFile) launched.insert(r.script);
      r.origin = origin;
      runs.push_back(std::move(r));
    }
  };
  for (std::size_t j = 0; j < jobs.size(); ++j) add(built[j], jobs[j]);

  // Scripts that import a training library directly may be run on their own.
  std::vector<FileId> scripts;
  if (scope) {
    for (FileId id : scope->scripts)
      if (id < p.sources.size() && is_candidate(p, id) && !launched.count(id)) scripts.push_back(id);
  } else {
    for (FileId id = 0; id < p.sources.size(); ++id)
      if (is_candidate(p, id) && !launched.count(id)) scripts.push_back(id);
  }
  built.assign(scripts.size(), {});
  spread(scripts.size(), [&](std::size_t worker, std::size_t j) {
    built[j] = with_modules(worker, builder(worker).runs_of_script(scripts[j]));
  });
  for (std::size_t j = 0; j < scripts.size(); ++j) add(built[j], RunOrigin{RunOrigin::Kind::Script, scripts[j], 0});
  return runs;
}

}  // namespace

std::vector<TrainingRun> build_runs(const Project& project, const Knowledge& knowledge,
                                    const std::vector<DeclaredRun>& declared, unsigned threads) {
  return build_all(project, knowledge, declared, nullptr, threads);
}

std::vector<TrainingRun> build_runs(const Project& project, const Knowledge& knowledge,
                                    const std::vector<DeclaredRun>& declared, const RunScope& scope) {
  return build_all(project, knowledge, declared, &scope, 1);
}

namespace {
void add_setting_files(const Setting& s, std::set<FileId>& out) {
  for (const Span& sp : {s.span, s.value_span})
    if (sp.valid()) out.insert(sp.file);
  for (const auto& r : s.chain)
    if (r.span.valid()) out.insert(r.span.file);
}
}  // namespace

AccelerateUse accelerate_use(const TrainingRun& r) {
  AccelerateUse use;
  use.doc = r.accelerate_yaml_doc;
  use.sets_num_processes = r.launch && r.launch->option("num_processes");
  const LaunchOption* mp = r.launch ? r.launch->option("mixed_precision") : nullptr;
  use.sets_mixed_precision = mp && mp->value && mp->value->known;
  return use;
}

std::vector<FileUses> file_uses(const Project& project, const std::vector<TrainingRun>& runs) {
  std::vector<FileUses> out(project.sources.size());
  for (const TrainingRun& r : runs)
    if (r.accelerate_yaml < out.size()) out[r.accelerate_yaml].accelerate.push_back(accelerate_use(r));
  return out;
}

std::vector<FileId> imported_modules(const Project& project, const Knowledge& knowledge) {
  Builder builder(project, knowledge);
  const std::set<FileId>& ids = builder.imported_modules();
  return {ids.begin(), ids.end()};
}

bool is_candidate_script(const Project& project, FileId id) {
  return id < project.sources.size() && is_candidate(project, id);
}

std::set<FileId> run_files(const TrainingRun& run) {
  std::set<FileId> out;
  for (FileId id : {run.launch_file, run.script, run.trainer_yaml, run.accelerate_yaml})
    if (id != kNoFile) out.insert(id);
  out.insert(run.modules.begin(), run.modules.end());
  for (const auto& ref : run.references)
    if (ref.file != kNoFile) out.insert(ref.file);
  if (run.launch && run.launch->span.valid()) out.insert(run.launch->span.file);
  for (const auto& [name, s] : run.args) add_setting_files(s, out);
  for (const Setting* s :
       {&run.cp_size, &run.sp_size, &run.num_processes, &run.num_machines, &run.world_size, &run.dp_replicate_size,
        &run.dp_shard_size, &run.tp_size, &run.sp_backend, &run.attn_implementation, &run.accelerate.distributed_type,
        &run.accelerate.fsdp_version, &run.accelerate.fsdp_activation_checkpointing, &run.accelerate.mixed_precision,
        &run.accelerate.deepspeed_config_file, &run.accelerate.num_processes, &run.accelerate.num_machines})
    add_setting_files(*s, out);
  for (const auto& [key, span] : run.accelerate.deepspeed_file_conflicts)
    if (span.valid()) out.insert(span.file);
  return out;
}

}  // namespace trl
