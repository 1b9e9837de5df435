#include "analyzer/eval/run_builder.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analyzer/eval/accelerate_topology.hpp"
#include "analyzer/eval/python_eval.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/markdown/markdown_extractor.hpp"
#include "analyzer/util/parallel.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

using EnvMap = std::map<std::string, Setting, std::less<>>;

// transformers hf_argparser.string_to_bool: yes/true/t/y/1 and no/false/f/n/0, any case.
std::optional<bool> string_to_bool(std::string v) {
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "yes" || v == "true" || v == "t" || v == "y" || v == "1") return true;
  if (v == "no" || v == "false" || v == "f" || v == "n" || v == "0") return false;
  return std::nullopt;
}

// What argparse's `type=` makes of a string, for a field of known type.
Setting convert_string(const std::string& text, const FieldInfo* field, Span span, const std::string& origin) {
  const std::string type = field ? field->type : "";
  if (type == "bool") {
    if (auto b = string_to_bool(text)) return Setting::known_value(Scalar::boolean(*b), span, origin);
    return Setting::unknown(span, origin);  // argparse would reject it; another rule's business
  }
  try {
    std::size_t used = 0;
    if (type == "int") {
      long long v = std::stoll(text, &used);
      if (used == text.size()) return Setting::known_value(Scalar::integer(v), span, origin);
      return Setting::unknown(span, origin);
    }
    if (type == "float") {
      double v = std::stod(text, &used);
      if (used == text.size()) return Setting::known_value(Scalar::floating(v), span, origin);
      return Setting::unknown(span, origin);
    }
  } catch (const std::exception&) {
    return Setting::unknown(span, origin);
  }
  if (field && field->nullable && text == "None") return Setting::known_value(Scalar::null(), span, origin);
  if (type.empty()) {
    // Type not recorded: read booleans and numbers the way a reader of the flag would.
    if (auto b = string_to_bool(text); b && (text.size() > 1 || text == "0" || text == "1"))
      return Setting::known_value(Scalar::boolean(*b), span, origin);
  }
  return Setting::known_value(Scalar::string(text), span, origin);
}

const FieldInfo* find_field(const std::vector<const ClassInfo*>& classes, const Knowledge& k, std::string_view name) {
  for (const ClassInfo* c : classes)
    if (const FieldInfo* f = k.field(*c, name)) return f;
  return nullptr;
}

Setting from_yaml_node(const YamlNode& node, Span key_span, const FieldInfo* field, bool argparse_defaults,
                       const std::string& origin) {
  if (node.kind != YamlNode::Kind::Scalar) return Setting::unknown(key_span, origin);
  // TrlParser makes YAML values argparse defaults, and argparse applies `type=` to string
  // defaults (trl/scripts/utils.py set_defaults_with_config, v1.9.0).
  if (argparse_defaults && node.scalar.kind == Scalar::Kind::Str && field && !field->type.empty() &&
      field->type != "str")
    return convert_string(node.scalar.s, field, key_span, origin);
  return Setting::known_value(node.scalar, key_span, origin);
}

Setting from_value(const ValueRef& v, Span at, const std::string& origin) {
  Setting s;
  if (v && v->kind == PyValue::Kind::Const) {
    s = Setting::known_value(v->constant, at, origin);
  } else if (v && v->kind == PyValue::Kind::OneOf) {
    s.state = Setting::State::OneOf;
    s.span = at;
    s.origin = origin;
    for (const auto& alt : v->items) s.alternatives.push_back(alt->constant);
    s.value = s.alternatives.front();
  } else {
    return Setting::unknown(at, origin);
  }
  s.value_span = v->span;
  for (const auto& step : v->chain) s.chain.push_back({step.span, step.note});
  return s;
}

Setting from_word(const Word& w, Span span, const std::string& origin, const FieldInfo* field) {
  if (!w.known) return Setting::unknown(span, origin);
  return convert_string(w.text, field, span, origin);
}

const YamlNode* yaml_root(const Project& p, FileId id, std::size_t doc = 0) {
  if (id == kNoFile || p.facts[id].yaml.size() <= doc) return nullptr;
  const auto& root = p.facts[id].yaml[doc].root;
  return root && root->kind == YamlNode::Kind::Mapping ? root.get() : nullptr;
}

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

Setting int_setting(const Word& w, Span span, const std::string& origin) {
  FieldInfo int_field;
  int_field.type = "int";
  return from_word(w, span, origin, &int_field);
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

class Builder {
 public:
  // `cache_lock`: guards the project's ScriptCache when builders on other threads share it.
  Builder(const Project& p, const Knowledge& k, std::mutex* cache_lock = nullptr)
      : p_(p), k_(k), evaluator_(p, k), cache_lock_(cache_lock) {}

  // Scripts that import a training library directly may be run on their own; others are
  // evaluated when a launch names them or when an entry script imports them. Python blocks
  // of Markdown pages and notebook cells count as scripts too.
  bool candidate(FileId id) const { return is_candidate(p_, id); }
  std::vector<FileId> candidates() const {
    std::vector<FileId> out;
    for (FileId id = 0; id < p_.sources.size(); ++id)
      if (candidate(id)) out.push_back(id);
    return out;
  }

  // One script's evaluation (through the project's ScriptCache when it has one).
  const ScriptSummary& evaluation(FileId id) { return summary(id); }

  // The runs of one launch command (none when it is not a launch).
  std::vector<TrainingRun> runs_of_command(FileId id, std::size_t i) {
    auto launch = parse_launch(p_.facts[id].commands[i], k_);
    if (!launch) return {};
    return from_launch(*launch, id);
  }
  // The runs of a run declared in the configuration.
  std::vector<TrainingRun> runs_of_declared(const DeclaredRun& d) {
    auto built = from_launch(d.launch, d.file);
    for (auto& r : built) {
      r.explicit_run = true;
      if (!d.name.empty()) r.name = d.name;
    }
    return built;
  }
  // The runs of a script run on its own (none when it is not an entry script).
  std::vector<TrainingRun> runs_of_script(FileId id) {
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
  std::vector<FileId> modules_of(FileId script) { return summary(script).modules; }

  // The project's Python files that another one imports (import statements anywhere in it,
  // resolved as the evaluator resolves them; `from pkg import mod` names pkg/mod.py too).
  const std::set<FileId>& imported_modules() {
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

 private:
  // The folders a launch's relative paths are tried against, in order. Each reference of a
  // launch asks again: they are computed once per launch file and working folder (all they
  // depend on; launches are copied, so not per LaunchCommand object) and kept for the
  // builder's life (the project does not change under a builder).
  const std::vector<std::string>& bases(const LaunchCommand* launch, FileId launch_file) const {
    const bool cwd = launch && launch->cwd_known && (!launch->cwd.empty() || launch->cwd_script_dir);
    // A folder known relative to the script's own (`cd "$(dirname "$0")"`) is keyed apart.
    auto [at, fresh] =
        bases_.try_emplace({launch_file, cwd ? (launch->cwd_script_dir ? "\x01" : "") + launch->cwd : std::string()});
    if (fresh) at->second = compute_bases(launch, launch_file);
    return at->second;
  }
  // launch file, working folder (empty: none) -> bases.
  mutable std::map<std::pair<FileId, std::string>, std::vector<std::string>> bases_;

  std::vector<std::string> compute_bases(const LaunchCommand* launch, FileId launch_file) const {
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
  FileId resolve_path(const std::string& text, const LaunchCommand& l, FileId launch_file) const {
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

  FileId resolve_script(const LaunchCommand& l, FileId launch_file) const {
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
  bool exists_on_disk(const std::string& path, const std::vector<std::string>& b) const {
    if (fs::path(path).is_absolute()) return p_.exists(path);
    for (const auto& base : b)
      if (p_.exists((fs::path(base) / path).string())) return true;
    return false;
  }

  // Whether the folder a path names exists under one of the bases and holds some other file
  // of the same kind (`scripts/sft.py`: a `.py` file in `scripts/`). A folder without one is a
  // partial copy of a repository or is filled at run time: a missing file there is not judged.
  bool folder_has_kind(const std::string& path, const std::vector<std::string>& b) const {
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

  // folder_has_kind's answers: "folder\nextension" -> the folder holds such a file.
  mutable std::unordered_map<std::string, bool> folder_kinds_;

  bool created_by_launcher(const std::string& path, FileId launch_file) const {
    if (launch_file == kNoFile) return false;
    const std::string name = fs::path(path).filename().string();
    for (const auto& c : p_.facts[launch_file].created)
      if (!c.cwd_known || c.path == path || fs::path(c.path).filename().string() == name) return true;
    return false;
  }

  FileReference make_reference(FileReference::Kind kind, const Word& w, const LaunchCommand& l, FileId launch_file,
                               FileId resolved) const {
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
  std::vector<std::pair<std::uint32_t, std::uint32_t>> doc_sections(const LaunchCommand& l, FileId launch_file) const {
    if (launch_file == kNoFile || p_.sources.get(launch_file).kind != FileKind::Markdown || !l.span.valid()) return {};
    std::vector<markdown::Heading> hs;
    for (const auto& h : p_.facts[launch_file].headings) hs.push_back({h.level, h.line});
    return markdown::enclosing_sections(hs, l.span.start.line,
                                        static_cast<std::uint32_t>(p_.sources.get(launch_file).line_starts.size()));
  }

  // A YAML block of the launch's section (or an enclosing one) that can stand in for a
  // config file the launch names but the repository does not have.
  std::optional<std::size_t> stand_in_yaml(FileId md,
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

  std::vector<TrainingRun> from_launch(const LaunchCommand& l, FileId launch_file) {
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
            for (const auto& c : own.trainer_configs)
              any = any || (c->span.start.line >= lo && c->span.start.line < hi);
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
  std::vector<TrainingRun> for_script(FileId script, const LaunchCommand* launch, FileId launch_file) {
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
              for (const auto& f : post_init_writes(p_, *c)) run.args[f] = Setting::unknown(c->span, "Python");
            }
            for (const auto& f : c->dataclass_fields) {
              if (run.args.count(f) || !k_.field(*c->cls, f)) continue;
              const Member* m = c->member(f);
              run.args[f] = m ? from_value(m->value, m->set_at, "Python") : Setting::unknown(c->span, "Python");
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
            setting = Setting::unknown(was.span, was.origin);
            setting.chain = std::move(was.chain);
          }
        }
      } else {
        run.args_fully_known = config->complete;
      }
      // Python keyword arguments, or assignments made after parsing (which win over argv).
      for (const Member& m : config->members) run.args[m.name] = from_value(m.value, m.set_at, "Python");
      compute_topology(run, &summary, yaml_env, config);
      run.attn_implementation = resolve_attn(run, summary, config);
      out.push_back(std::move(run));
    }
    return out;
  }

  // None (or nothing) asks transformers for its default, sdpa
  // (modeling_utils.py PreTrainedModel._check_and_adjust_attn_implementation).
  static Setting attn_default(Setting s, Span load_site) {
    if (s.state == Setting::State::Unset || (s.known() && s.value.kind == Scalar::Kind::Null)) {
      Span at = s.span.valid() ? s.span : load_site;
      return Setting::known_value(Scalar::string("sdpa"), at, "transformers default");
    }
    return s;
  }

  Setting attn_from_value(const TrainingRun& run, const ValueRef& v, Span load_site) const {
    if (!v) return attn_default(Setting{}, load_site);
    if (v->kind == PyValue::Kind::Const)
      return attn_default(Setting::known_value(v->constant, v->span, "Python"), load_site);
    if (!v->parser_field.empty() && run.args_from_parser) return attn_default(run.arg(v->parser_field), load_site);
    return Setting::unknown(v->span, "Python");
  }

  // The attention implementation of the trained model: a from_pretrained(...) in the script, or
  // the config's model_init_kwargs when the trainer loads the model from its name.
  Setting resolve_attn(const TrainingRun& run, const ScriptSummary& summary, const ValueRef& config) const {
    if (!summary.model_loads.empty()) {
      Setting agreed;
      for (const ModelLoad& load : summary.model_loads) {
        Setting s = load.attn_implementation || load.complete
                        ? attn_from_value(run, load.attn_implementation, load.span)
                        : Setting::unknown(load.span, "Python");
        if (!s.known()) return s;
        if (agreed.known() && !(agreed.value == s.value)) return Setting::unknown(load.span, "Python");
        if (!agreed.known()) agreed = s;
      }
      return agreed;
    }
    const TrainerUse* use = nullptr;
    for (const auto& t : summary.trainers)
      if (t.args && t.args->object_id == config->object_id) use = &t;
    if (!use || !use->model) return Setting::unknown({}, "model not visible");
    const ValueRef& model = use->model;
    const bool by_name = (model->kind == PyValue::Kind::Const && model->constant.kind == Scalar::Kind::Str) ||
                         model->parser_field == "model_name_or_path";
    if (!by_name) return Setting::unknown(model->span, "Python");
    if (const Member* m = config->member("model_init_kwargs")) {
      const ValueRef& kw = m->value;
      if (kw && kw->kind == PyValue::Kind::Dict) {
        if (const Member* a = kw->member("attn_implementation")) return attn_from_value(run, a->value, use->span);
        if (kw->complete) return attn_default(Setting{}, use->span);
      }
      if (kw && kw->kind == PyValue::Kind::Const && kw->constant.kind == Scalar::Kind::Null)
        return attn_default(Setting{}, use->span);
      return Setting::unknown(m->set_at, "Python");
    }
    if (yaml_model_init_attn_.state != Setting::State::Unset || run.args.count("model_init_kwargs"))
      return run.args.count("model_init_kwargs") && yaml_model_init_attn_.state == Setting::State::Unset
                 ? attn_default(Setting{}, use->span)
                 : attn_default(yaml_model_init_attn_, use->span);
    if (!run.args_fully_known) return Setting::unknown({}, "not visible to trl-lint");
    return attn_default(Setting{}, use->span);
  }

  // --config YAML, then the script's command-line flags (CLI > YAML > dataclass defaults).
  // `reads_config`: the parser reads `--config` (TrlParser.parse_args_and_config). Without it, a
  // `--config` on the launch line is an argument argparse rejects: no YAML is applied, and the
  // run's values are not known.
  void apply_parser_inputs(TrainingRun& run, const std::vector<const ClassInfo*>& classes, EnvMap& yaml_env,
                           bool reads_config = true) {
    const LaunchCommand l = *run.launch;
    yaml_model_init_attn_ = Setting{};
    // TrlParser.parse_args_and_config (trl/scripts/utils.py, v0.13.0..v1.9.0) looks for the word
    // `--config` with args.index: the first one, and only that spelling. A second `--config X` or
    // a `--config=X` goes on to HfArgumentParser as an argument no dataclass takes (an error, or
    // an abbreviation of some other option): that YAML is not the run's config, and what the run
    // then does is not known.
    std::optional<Word> config;
    for (std::size_t i = 0; i < l.args.size(); ++i) {
      const Word& w = l.args[i];
      if (!w.known) continue;
      if (w.text == "--config" && i + 1 < l.args.size()) {
        if (!config) {
          config = l.args[i + 1];
        } else {
          run.args_fully_known = false;
          run.explanations.push_back(
              {w.span,
               "a second `--config` goes to the argument parser as an argument (TrlParser reads only the "
               "first): what it sets is not known"});
        }
        ++i;
      } else if (w.text.rfind("--config=", 0) == 0) {
        run.args_fully_known = false;
        if (!config) run.trainer_yaml_unknown = true;
        run.explanations.push_back(
            {w.span,
             "`--config=PATH` is not read by TrlParser (it looks for the word `--config`): the argument "
             "parser gets it, and what it sets is not known"});
      }
    }
    if (config && !reads_config) {
      run.args_fully_known = false;
      run.explanations.push_back({config->span,
                                  "`--config` is not read: the script's parser does not read a config "
                                  "file (TrlParser.parse_args_and_config does)"});
    } else if (config) {
      if (!config->known) {
        run.args_fully_known = false;
        run.trainer_yaml_unknown = true;
        run.explanations.push_back({config->span,
                                    "the trainer config path is not known: it is built from a "
                                    "variable, a loop or command output"});
      } else {
        run.trainer_yaml = resolve_path(config->text, l, run.launch_file);
        FileReference ref =
            make_reference(FileReference::Kind::TrainerConfig, *config, l, run.launch_file, run.trainer_yaml);
        if (!ref.exists && !sections_.empty())
          if (auto d = stand_in_yaml(run.launch_file, sections_, l.span.start.line, false)) {
            run.trainer_yaml = run.launch_file;
            run.trainer_yaml_doc = *d;
            ref.stand_in = p_.sources.get(run.launch_file).path + ":" +
                           std::to_string(yaml_root(p_, run.launch_file, *d)->span.start.line + 1);
          }
        run.references.push_back(ref);
        if (const YamlNode* root = yaml_root(p_, run.trainer_yaml, run.trainer_yaml_doc)) {
          for (const auto& e : root->entries) {
            if (l.launcher == Launcher::Trl && !find_field(classes, k_, e.key) &&
                (e.key == "accelerate_config" || k_.launch_flag(e.key))) {
              // The trl CLI hands YAML keys that are no script field to `accelerate launch`
              // (trl/cli/commands/training.py, config_remaining); the command line comes after them.
              LaunchOption opt;
              opt.name = e.key;
              opt.span = e.key_span;
              if (e.value->kind == YamlNode::Kind::Scalar) opt.value = Word{e.value->scalar.yaml(), true, e.key_span};
              run.launch->options.insert(run.launch->options.begin(), std::move(opt));
              continue;
            }
            if (e.key == "model_init_kwargs" && e.value->kind == YamlNode::Kind::Mapping)
              if (const YamlEntry* a = e.value->find("attn_implementation"))
                yaml_model_init_attn_ = from_yaml_node(*a->value, a->key_span, nullptr, false, "trainer YAML");
            if (e.key == "env") {
              if (e.value->kind == YamlNode::Kind::Mapping)
                for (const auto& v : e.value->entries)
                  yaml_env[v.key] =
                      v.value->kind == YamlNode::Kind::Scalar
                          ? Setting::known_value(Scalar::string(v.value->scalar.yaml()), v.key_span, "trainer YAML env")
                          : Setting::unknown(v.key_span, "trainer YAML env");
              continue;
            }
            run.args[e.key] =
                from_yaml_node(*e.value, e.key_span, find_field(classes, k_, e.key), true, "trainer YAML");
          }
        } else {
          run.args_fully_known = false;  // the YAML is missing or not a mapping
        }
      }
    }
    apply_cli_args(l.args, classes, k_, run.args);
  }

  void compute_topology(TrainingRun& run, const ScriptSummary* summary, const EnvMap& yaml_env,
                        const ValueRef& config = nullptr) {
    EnvMap env;
    const LaunchCommand* l = run.launch ? &*run.launch : nullptr;
    if (l)
      for (const auto& e : l->env) {
        Span s = e.value.span.valid() ? e.value.span : l->span;
        env[e.name] = e.value.known ? Setting::known_value(Scalar::string(e.value.text), s, "environment")
                                    : Setting::unknown(s, "environment");
      }
    // accelerate launch (directly, or through `trl <command>`) exports the parallelism config.
    if (l && l->launcher == Launcher::Trl && !l->options.empty() && !trl_cli_forwards_launch_options(run, *l)) {
      // The options were meant for `accelerate launch`, which never sees them: it reads the
      // machine's default config, which trl-lint cannot see.
      LaunchCommand bare = *l;
      bare.options.clear();
      launcher_parallelism(run, bare, env);
    } else if (l && (l->launcher == Launcher::Accelerate || l->launcher == Launcher::Trl)) {
      launcher_parallelism(run, *l, env);
    }
    if (l && (l->launcher == Launcher::Torchrun || l->launcher == Launcher::Deepspeed)) torchrun_world(run, *l);
    if (l && l->launcher == Launcher::Python) {
      run.num_processes = Setting::known_value(Scalar::integer(1), l->launcher_span, "python (one process)");
      run.num_machines = Setting::known_value(Scalar::integer(1), l->launcher_span, "python (one process)");
      run.world_size = run.num_processes;
    }
    for (const auto& [name, s] : yaml_env) env[name] = s;  // TrlParser exports `env:` in the process

    auto env_int = [&](const char* name, Setting fallback) {
      auto it = env.find(name);
      if (it == env.end()) return fallback;
      const Setting& s = it->second;
      if (!s.known()) return Setting::unknown(s.span, s.origin);
      if (s.value.kind == Scalar::Kind::Int) return s;
      try {
        std::size_t used = 0;
        long long v = std::stoll(s.value.s, &used);
        if (used == s.value.s.size()) {
          Setting out = s;
          out.value = Scalar::integer(v);
          return out;
        }
      } catch (const std::exception&) {
      }
      return Setting::unknown(s.span, s.origin);
    };
    const Setting one = Setting::known_value(Scalar::integer(1), {}, "default");
    auto env_str = [&](const char* name, const char* fallback) {
      auto it = env.find(name);
      if (it == env.end()) return Setting::known_value(Scalar::string(fallback), {}, "default");
      return it->second;
    };
    auto no_parallelism = [&] {
      for (Setting* s : {&run.cp_size, &run.sp_size, &run.dp_replicate_size, &run.dp_shard_size, &run.tp_size})
        *s = one;
      run.sp_backend = Setting::known_value(Scalar::string("deepspeed"), {}, "default");
    };

    // A ParallelismConfig built in Python and handed to the trainer config or an Accelerator.
    ValueRef pc;
    if (config)
      if (const Member* m = config->member("parallelism_config")) pc = m->value;
    if (!pc && summary && !summary->accelerator_parallelism.empty()) pc = summary->accelerator_parallelism.front();
    if (pc && !(pc->kind == PyValue::Kind::Const && pc->constant.kind == Scalar::Kind::Null)) {
      if (pc->kind != PyValue::Kind::Object || !pc->cls || pc->cls->role != ClassRole::ParallelismConfig) {
        for (Setting* s :
             {&run.cp_size, &run.sp_size, &run.dp_replicate_size, &run.dp_shard_size, &run.tp_size, &run.sp_backend})
          *s = Setting::unknown(pc->span, "Python");
        return;
      }
      // Fields left out read PARALLELISM_CONFIG_* from the environment
      // (accelerate parallelism_config.py ParallelismConfig.__post_init__).
      auto field = [&](const char* kw, const char* var) {
        if (const Member* m = pc->member(kw)) return from_value(m->value, m->set_at, "Python");
        if (!pc->complete) return Setting::unknown(pc->span, "Python");
        return env_int(var, one);
      };
      run.parallelism_config = true;
      run.cp_size = field("cp_size", "PARALLELISM_CONFIG_CP_SIZE");
      run.sp_size = field("sp_size", "PARALLELISM_CONFIG_SP_SIZE");
      run.dp_replicate_size = field("dp_replicate_size", "PARALLELISM_CONFIG_DP_REPLICATE_SIZE");
      run.dp_shard_size = field("dp_shard_size", "PARALLELISM_CONFIG_DP_SHARD_SIZE");
      run.tp_size = field("tp_size", "PARALLELISM_CONFIG_TP_SIZE");
      if (const Member* m = pc->member("sp_backend"))
        run.sp_backend = from_value(m->value, m->set_at, "Python");
      else if (!pc->complete)
        run.sp_backend = Setting::unknown(pc->span, "Python");
      else
        run.sp_backend = env_str("PARALLELISM_CONFIG_SP_BACKEND", "deepspeed");
      return;
    }
    // Otherwise Accelerator() builds one from the environment only when
    // ACCELERATE_USE_PARALLELISM_CONFIG=true (accelerate accelerator.py, Accelerator.__init__).
    auto use = env.find("ACCELERATE_USE_PARALLELISM_CONFIG");
    if (use == env.end()) {
      no_parallelism();
      return;
    }
    if (!use->second.known()) {
      for (Setting* s :
           {&run.cp_size, &run.sp_size, &run.dp_replicate_size, &run.dp_shard_size, &run.tp_size, &run.sp_backend})
        *s = Setting::unknown(use->second.span, use->second.origin);
      return;
    }
    std::string flag = use->second.value.yaml();
    for (auto& c : flag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (flag != "true") {
      no_parallelism();
      return;
    }
    run.parallelism_config = true;
    run.cp_size = env_int("PARALLELISM_CONFIG_CP_SIZE", one);
    run.sp_size = env_int("PARALLELISM_CONFIG_SP_SIZE", one);
    run.dp_replicate_size = env_int("PARALLELISM_CONFIG_DP_REPLICATE_SIZE", one);
    run.dp_shard_size = env_int("PARALLELISM_CONFIG_DP_SHARD_SIZE", one);
    run.tp_size = env_int("PARALLELISM_CONFIG_TP_SIZE", one);
    run.sp_backend = env_str("PARALLELISM_CONFIG_SP_BACKEND", "deepspeed");
  }

  // Whether `trl <command>` hands its accelerate options (--num_processes, --accelerate_config,
  // the trainer YAML's launch keys) to `accelerate launch`: `trl sft` from v0.18.0, every training
  // command from v0.29.0. Before, trl/cli.py called launch_command_parser().parse_args([script])
  // alone (trl v0.17.0 for sft; v0.18.0 to v0.28.0 for dpo, grpo, kto, reward, rloo), and v0.29.0
  // moved to trl/cli/commands/training.py, which passes them for every command. An unresolved
  // pin: not known.
  // The run's config class as its targeted TRL release has it (TrainingRun::defaults_class).
  const ClassInfo* at_target_release(const TrainingRun& run) const {
    if (!run.config_class || run.config_class->package != "trl") return nullptr;
    const LibraryReleases* lib = k_.library("trl");
    const VersionTargets t = version_targets(p_, run.version_anchor(), k_);
    if (!lib || !t.trl.known() || lib->fields_complete_from.empty() ||
        compare_versions(*t.trl.version, lib->fields_complete_from) >= 0)
      return nullptr;
    return k_.at(*run.config_class, *t.trl.version);
  }

  bool trl_cli_forwards_launch_options(const TrainingRun& run, const LaunchCommand& l) const {
    const VersionTargets t = version_targets(p_, run.version_anchor(), k_);
    if (!t.trl.known()) return false;
    return compare_versions(*t.trl.version, l.trl_command == "sft" ? "0.18.0" : "0.29.0") >= 0;
  }

  // accelerate commands/launch.py (_validate_launch_command, v1.14): the parallelism config is
  // used when --use_parallelism_config is given, or when the config file has a non-empty
  // `parallelism_config` and no paradigm flag was given on the command line. The launcher then
  // exports PARALLELISM_CONFIG_* (utils/launch.py prepare_extend_env_parallelism_config).
  void launcher_parallelism(TrainingRun& run, const LaunchCommand& l, EnvMap& env) {
    const LaunchOption* file = l.option("config_file");
    // `trl <command>` turns the first `--accelerate_config X` of its launch options (the trainer
    // YAML's keys come before the command line's) into `--config_file PATH` put in front of them
    // (trl/cli/accelerate_config.py@v1.9.0 resolve_accelerate_config_argument; inline in
    // trl/cli.py@v0.19.0 and @v0.23.0): a `--config_file` given as well comes later and wins in
    // accelerate launch's parser. A second `--accelerate_config` stays in the options, and that
    // parser (allow_abbrev=False, accelerate commands/launch.py) rejects it as an unrecognized
    // argument: the launch never starts, so no accelerate config is known.
    const LaunchOption* second_accelerate_config = nullptr;
    if (l.launcher == Launcher::Trl) {
      const LaunchOption* first = nullptr;
      for (const LaunchOption& o : l.options) {
        if (o.name != "accelerate_config") continue;
        if (first) {
          second_accelerate_config = &o;
          break;
        }
        first = &o;
      }
      if (!file) file = first;
    }
    const YamlNode* root = nullptr;
    struct WorldGuard {
      Builder& b;
      TrainingRun& run;
      const LaunchCommand& l;
      const YamlNode*& root;
      ~WorldGuard() { b.world_size(run, l, root); }
    } guard{*this, run, l, root};
    AccelerateConfigSource src;
    if (file) src.span = file->span;
    if (second_accelerate_config) {
      run.accelerate_yaml_unknown = true;
      run.explanations.push_back({second_accelerate_config->span,
                                  "a second `--accelerate_config` reaches `accelerate launch`, which rejects it: the "
                                  "launch does not start"});
      src.span = second_accelerate_config->span;
      src.kind = AccelerateConfigSource::Kind::Unresolved;
      run.accelerate = read_accelerate_settings(l, src);
      env["ACCELERATE_USE_PARALLELISM_CONFIG"] = Setting::unknown(src.span, "accelerate config");
      return;
    }
    if (file && file->value) {
      if (!file->value->known) {
        run.accelerate_yaml_unknown = true;
        run.explanations.push_back({file->span,
                                    "the accelerate config path is not known: it is built from a "
                                    "variable, a loop or command output"});
        src.kind = AccelerateConfigSource::Kind::Unresolved;
        run.accelerate = read_accelerate_settings(l, src);
        env["ACCELERATE_USE_PARALLELISM_CONFIG"] = Setting::unknown(file->span, "accelerate config");
        return;
      }
      const std::string& name = file->value->text;
      run.accelerate_yaml = resolve_path(name, l, run.launch_file);
      FileReference ref =
          make_reference(FileReference::Kind::AccelerateConfig, *file->value, l, run.launch_file, run.accelerate_yaml);
      if (!ref.exists && l.launcher == Launcher::Trl && k_.accelerate_profile(name)) {
        // A name of TRL's bundled profiles (trl/accelerate_configs/*.yaml): none sets a parallelism config.
        run.accelerate_profile = name;
      } else {
        if (!ref.exists && !sections_.empty())
          if (auto d = stand_in_yaml(run.launch_file, sections_, l.span.start.line, true)) {
            run.accelerate_yaml = run.launch_file;
            run.accelerate_yaml_doc = *d;
            ref.stand_in = p_.sources.get(run.launch_file).path + ":" +
                           std::to_string(yaml_root(p_, run.launch_file, *d)->span.start.line + 1);
          }
        run.references.push_back(ref);
      }
      root = yaml_root(p_, run.accelerate_yaml, run.accelerate_yaml_doc);
      if (!run.accelerate_profile.empty()) {
        src.kind = AccelerateConfigSource::Kind::Profile;
        src.profile = run.accelerate_profile;
      } else if (run.accelerate_yaml != kNoFile) {
        src.kind = AccelerateConfigSource::Kind::File;
        src.root = root;
      } else {
        src.kind = AccelerateConfigSource::Kind::Unresolved;
      }
    }
    run.accelerate = read_accelerate_settings(l, src);
    if (src.kind == AccelerateConfigSource::Kind::Unresolved) {
      env["ACCELERATE_USE_PARALLELISM_CONFIG"] = Setting::unknown(src.span, "accelerate config");
      return;
    }
    // `--use_parallelism_config` without `--use_fsdp` on the line: _validate_launch_command raises
    // ValueError before reading the config (accelerate v1.10.0 to v1.14.0; its fsdp_version is a
    // string, so only the missing --use_fsdp counts). The launch never starts: what it would have
    // used is not judged.
    if (l.launcher == Launcher::Accelerate && l.option("use_parallelism_config") && !l.option("use_fsdp")) {
      env["ACCELERATE_USE_PARALLELISM_CONFIG"] = Setting::unknown(
          l.option("use_parallelism_config")->span, "launch fails: --use_parallelism_config without --use_fsdp");
      run.explanations.push_back({l.option("use_parallelism_config")->span,
                                  "`--use_parallelism_config` without `--use_fsdp`: accelerate raises before reading "
                                  "the config, so the parallelism settings are not judged"});
      return;
    }
    bool paradigm = false;
    for (const char* f : {"multi_gpu", "tpu", "use_deepspeed", "use_fsdp", "use_megatron_lm"})
      paradigm = paradigm || l.option(f);
    const YamlEntry* pc_entry = root ? root->find("parallelism_config") : nullptr;
    const YamlNode* pc_yaml =
        pc_entry && pc_entry->value->kind == YamlNode::Kind::Mapping ? pc_entry->value.get() : nullptr;
    const bool use = l.option("use_parallelism_config") || (!paradigm && pc_yaml && !pc_yaml->entries.empty());
    if (!use) {
      for (const LaunchOption& o : l.options)
        if (o.name.rfind("parallelism_config_", 0) == 0) {
          run.explanations.push_back(
              {o.span, "`--" + o.name +
                           "` is ignored: accelerate builds a parallelism config only with "
                           "`--use_parallelism_config`, or from a `parallelism_config` in the config file when no "
                           "paradigm flag (--use_fsdp, --multi_gpu, ...) is given"});
          break;
        }
      return;
    }
    // Only the multi-GPU launcher (MULTI_GPU, FSDP, MEGATRON_LM) and the DeepSpeed one export
    // PARALLELISM_CONFIG_*; simple_launcher (distributed_type NO, MULTI_CPU, --cpu) and the TPU
    // launcher do not, and Accelerator then builds no ParallelismConfig (accelerate v1.14
    // utils/launch.py: only prepare_multi_gpu_env and prepare_deepspeed_cmd_env call
    // prepare_extend_env_parallelism_config; commands/launch.py launch_command picks the launcher
    // from the paradigm flags, else the config's distributed_type).
    if (l.option("cpu")) return;
    if (!paradigm) {
      const Setting& type = run.accelerate.distributed_type;
      if (!type.known()) {
        env["ACCELERATE_USE_PARALLELISM_CONFIG"] = Setting::unknown(type.span, "accelerate config");
        return;
      }
      static const std::set<std::string, std::less<>> kExporting = {
          "MULTI_GPU", "MULTI_NPU",    "MULTI_MLU", "MULTI_SDAA",  "MULTI_MUSA", "MULTI_XPU",
          "MULTI_HPU", "MULTI_NEURON", "FSDP",      "MEGATRON_LM", "DEEPSPEED"};
      if (type.value.kind != Scalar::Kind::Str || !kExporting.count(type.value.s)) return;
    } else if (l.option("tpu") && !l.option("multi_gpu") && !l.option("use_fsdp") && !l.option("use_deepspeed") &&
               !l.option("use_megatron_lm")) {
      return;
    }
    auto size = [&](const char* key) {
      std::string name = std::string("parallelism_config_") + key;
      if (const LaunchOption* o = l.option(name)) {
        if (!o->value) return Setting::unknown(o->span, "command line");
        FieldInfo int_field;
        int_field.type = "int";
        return from_word(*o->value, o->span, "command line", &int_field);
      }
      if (pc_yaml)
        if (const YamlEntry* e = pc_yaml->find(name))
          return from_yaml_node(*e->value, e->key_span, nullptr, false, "accelerate YAML");
      return Setting::known_value(Scalar::integer(1), {}, "default");
    };
    Setting on = Setting::known_value(Scalar::string("true"), l.span, "accelerate launch");
    env["ACCELERATE_USE_PARALLELISM_CONFIG"] = on;
    env["PARALLELISM_CONFIG_CP_SIZE"] = size("cp_size");
    env["PARALLELISM_CONFIG_SP_SIZE"] = size("sp_size");
    env["PARALLELISM_CONFIG_DP_REPLICATE_SIZE"] = size("dp_replicate_size");
    env["PARALLELISM_CONFIG_DP_SHARD_SIZE"] = size("dp_shard_size");
    env["PARALLELISM_CONFIG_TP_SIZE"] = size("tp_size");
    Setting backend = Setting::known_value(Scalar::string("deepspeed"), {}, "default");
    if (const LaunchOption* o = l.option("parallelism_config_sp_backend"))
      backend =
          o->value ? from_word(*o->value, o->span, "command line", nullptr) : Setting::unknown(o->span, "command line");
    else if (pc_yaml)
      if (const YamlEntry* e = pc_yaml->find("parallelism_config_sp_backend"))
        backend = from_yaml_node(*e->value, e->key_span, nullptr, false, "accelerate YAML");
    env["PARALLELISM_CONFIG_SP_BACKEND"] = backend;
  }

  // A script's evaluation: kept in the project's ScriptCache when it has one (the LSP server:
  // the run builder and the project-wide rules then share it), else in this builder.
  const ScriptSummary& summary(FileId script) {
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
  const ScriptSummary& section_summary(FileId page, std::uint32_t lo, std::uint32_t hi) {
    auto key = std::make_tuple(page, lo, hi);
    auto it = section_summaries_.find(key);
    if (it == section_summaries_.end())
      it = section_summaries_.emplace(key, evaluator_.summarize(page, std::make_pair(lo, hi))).first;
    return it->second;
  }

  // num_processes / num_machines / world size of an accelerate (or trl CLI) launch:
  // flag > accelerate YAML > TRL profile; without a config accelerate uses the machine's own
  // default config or GPU count, which trl-lint cannot see.
  void world_size(TrainingRun& run, const LaunchCommand& l, const YamlNode* root) {
    const AccelerateProfile* profile =
        run.accelerate_profile.empty() ? nullptr : k_.accelerate_profile(run.accelerate_profile);
    auto value = [&](const char* key) -> Setting {
      if (const LaunchOption* o = l.option(key)) {
        if (!o->value) return Setting::unknown(o->span, "command line");
        return int_setting(*o->value, o->span, "command line");
      }
      if (root) {
        if (const YamlEntry* e = root->find(key))
          return from_yaml_node(*e->value, e->key_span, nullptr, false, "accelerate YAML");
        if (std::string_view(key) == "num_machines") return Setting::known_value(Scalar::integer(1), {}, "default");
        return Setting::unknown({}, "accelerate default");
      }
      if (profile) {
        auto it = profile->values.find(key);
        if (it != profile->values.end())
          return Setting::known_value(it->second, {}, "TRL profile " + profile->name + " (" + profile->source + ")");
      }
      if (l.option("config_file") || l.option("accelerate_config")) return Setting::unknown({}, "accelerate config");
      return Setting::unknown({}, "machine's default accelerate config");
    };
    run.num_processes = run.accelerate.single_process ? run.accelerate.num_processes : value("num_processes");
    run.num_machines = value("num_machines");
    run.world_size = run.num_processes;
  }

  void torchrun_world(TrainingRun& run, const LaunchCommand& l) {
    const bool ds = l.launcher == Launcher::Deepspeed;
    auto value = [&](const char* key, bool has_default) -> Setting {
      if (const LaunchOption* o = l.option(key)) {
        if (!o->value) return Setting::unknown(o->span, "command line");
        return int_setting(*o->value, o->span, "command line");
      }
      return has_default ? Setting::known_value(Scalar::integer(1), {}, std::string(to_string(l.launcher)) + " default")
                         : Setting::unknown({}, std::string(to_string(l.launcher)) + " default (all GPUs / hostfile)");
    };
    run.num_processes = value(ds ? "num_gpus" : "nproc_per_node", !ds);
    run.num_machines = value(ds ? "num_nodes" : "nnodes", !ds);
    auto np = run.num_processes.as_int(), nm = run.num_machines.as_int();
    if (np && nm)
      run.world_size =
          Setting::known_value(Scalar::integer(*np * *nm), run.num_processes.span, run.num_processes.origin);
    else
      run.world_size = Setting::unknown(run.num_processes.span, "launcher");
  }

  const Project& p_;
  const Knowledge& k_;
  ProjectEvaluator evaluator_;
  std::optional<std::set<FileId>> imported_;  // imported_modules(), once computed
  std::mutex* cache_lock_ = nullptr;
  std::map<FileId, ScriptSummary> summaries_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sections_;  // Markdown launch: its sections
  // The section's own evaluation while a docs section stands in for a launch's script.
  const ScriptSummary* section_ = nullptr;
  std::map<std::tuple<FileId, std::uint32_t, std::uint32_t>, ScriptSummary> section_summaries_;
  std::optional<std::pair<std::uint32_t, std::uint32_t>> config_lines_;  // docs stand-in: lines of the script
  Setting yaml_model_init_attn_;  // model_init_kwargs.attn_implementation of the last trainer YAML read
};

}  // namespace

void apply_cli_args(const std::vector<Word>& args, const std::vector<const ClassInfo*>& classes,
                    const Knowledge& knowledge, std::map<std::string, Setting, std::less<>>& out) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Word& w = args[i];
    if (!w.known || w.text.rfind("--", 0) != 0 || w.text.size() < 3) continue;
    std::string name = normalize_option_name(w.text);
    if (name == "config") {
      if (w.text.find('=') == std::string::npos) ++i;
      continue;
    }
    const FieldInfo* field = find_field(classes, knowledge, name);
    bool negated = false;
    if (!field && name.rfind("no_", 0) == 0) {
      // HfArgumentParser adds --no_<field> for bool fields that default to True.
      const FieldInfo* f = find_field(classes, knowledge, name.substr(3));
      if (f && f->type == "bool") field = f, negated = true, name = name.substr(3);
    }
    auto eq = w.text.find('=');
    if (negated) {
      out[name] = Setting::known_value(Scalar::boolean(false), w.span, "command line");
      continue;
    }
    if (eq != std::string::npos) {
      Word v = w;
      v.text = w.text.substr(eq + 1);
      out[name] = from_word(v, w.span, "command line", field);
      continue;
    }
    const bool next_is_value = i + 1 < args.size() && !(args[i + 1].known && args[i + 1].text.rfind("--", 0) == 0);
    const bool is_bool = field ? field->type == "bool" : !next_is_value;
    if (is_bool) {
      // `--packing` alone means True (nargs="?", const=True); `--packing false` reads the word.
      if (next_is_value && (!args[i + 1].known || string_to_bool(args[i + 1].text))) {
        out[name] = from_word(args[i + 1], w.span, "command line", field);
        ++i;
      } else {
        out[name] = Setting::known_value(Scalar::boolean(true), w.span, "command line");
      }
      continue;
    }
    if (next_is_value) {
      out[name] = from_word(args[i + 1], w.span, "command line", field);
      ++i;
    } else {
      out[name] = Setting::unknown(w.span, "command line");
    }
  }
}

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
