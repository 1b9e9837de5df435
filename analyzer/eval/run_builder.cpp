#include "analyzer/eval/run_builder.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "analyzer/eval/python_eval.hpp"
#include "analyzer/knowledge/knowledge.hpp"

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
  if (v && v->kind == PyValue::Kind::Const) return Setting::known_value(v->constant, at, origin);
  return Setting::unknown(at, origin);
}

Setting from_word(const Word& w, Span span, const std::string& origin, const FieldInfo* field) {
  if (!w.known) return Setting::unknown(span, origin);
  return convert_string(w.text, field, span, origin);
}

const YamlNode* yaml_root(const Project& p, FileId id) {
  if (id == kNoFile || p.facts[id].yaml.empty()) return nullptr;
  const auto& root = p.facts[id].yaml.front().root;
  return root && root->kind == YamlNode::Kind::Mapping ? root.get() : nullptr;
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

class Builder {
 public:
  Builder(const Project& p, const Knowledge& k) : p_(p), k_(k) {}

  std::vector<TrainingRun> build() {
    summaries_ = evaluate_scripts(p_, k_);
    std::vector<TrainingRun> runs;
    std::set<FileId> launched;
    for (FileId id = 0; id < p_.sources.size(); ++id) {
      for (const auto& cmd : p_.facts[id].commands) {
        auto launch = parse_launch(cmd, k_);
        if (!launch) continue;
        auto built = from_launch(*launch, id);
        for (auto& r : built) {
          if (r.script != kNoFile) launched.insert(r.script);
          runs.push_back(std::move(r));
        }
      }
    }
    for (const auto& [id, summary] : summaries_) {
      if (launched.count(id) || !summary.is_entry) continue;
      auto built = for_script(id, nullptr, kNoFile);
      for (auto& r : built) runs.push_back(std::move(r));
    }
    return runs;
  }

 private:
  std::vector<std::string> bases(const LaunchCommand* launch, FileId launch_file) const {
    std::vector<std::string> out;
    if (launch_file != kNoFile) {
      fs::path dir = fs::path(p_.sources.get(launch_file).abs_path).parent_path();
      if (launch && launch->cwd_known && !launch->cwd.empty())
        out.push_back((dir / launch->cwd).lexically_normal().string());
      out.push_back(p_.root);
      out.push_back(dir.string());
    } else {
      out.push_back(p_.root);
    }
    std::error_code ec;
    out.push_back(fs::current_path(ec).string());
    return out;
  }

  FileId resolve_script(const LaunchCommand& l, FileId launch_file) const {
    if (!l.script || !l.script->known) return kNoFile;
    auto b = bases(&l, launch_file);
    if (!l.module) return p_.resolve(l.script->text, b);
    std::string path = l.script->text;
    std::replace(path.begin(), path.end(), '.', '/');
    for (const std::string& candidate : {path + ".py", path + "/__main__.py", "src/" + path + ".py"}) {
      FileId id = p_.resolve(candidate, b);
      if (id != kNoFile) return id;
    }
    return kNoFile;
  }

  std::vector<TrainingRun> from_launch(const LaunchCommand& l, FileId launch_file) {
    FileId script = l.launcher == Launcher::Trl ? kNoFile : resolve_script(l, launch_file);
    return for_script(script, &l, launch_file);
  }

  // One run per trainer config the script builds (usually one).
  std::vector<TrainingRun> for_script(FileId script, const LaunchCommand* launch, FileId launch_file) {
    std::vector<TrainingRun> out;
    TrainingRun base;
    if (launch) {
      base.launch = *launch;
      base.launch_file = launch_file;
      const auto& f = p_.sources.get(launch_file);
      base.name = f.path + ":" + std::to_string(launch->span.start.line + 1);
      if (launch->script) base.script_display = launch->script->text;
    } else {
      base.name = p_.sources.get(script).path;
    }
    base.script = script;
    if (script != kNoFile && base.script_display.empty()) base.script_display = p_.sources.get(script).path;

    if (launch && launch->launcher == Launcher::Trl) {
      // `trl sft` runs TRL's own script: TrlParser over (ScriptArguments, <Trainer>Config, ModelConfig).
      static const std::pair<std::string_view, std::string_view> config_of[] = {
          {"sft", "SFTConfig"}, {"dpo", "DPOConfig"},       {"grpo", "GRPOConfig"},
          {"kto", "KTOConfig"}, {"reward", "RewardConfig"}, {"rloo", "RLOOConfig"}};
      TrainingRun run = base;
      run.script_display = "trl " + launch->trl_command;
      for (auto [cmd, cls] : config_of)
        if (cmd == launch->trl_command) run.config_class = k_.find(cls);
      run.trainer = launch->trl_command;
      run.args_from_parser = true;
      std::vector<const ClassInfo*> classes;
      if (run.config_class) classes.push_back(run.config_class);
      for (auto name : {"ScriptArguments", "ModelConfig", "DatasetMixtureConfig"})
        if (auto* c = k_.find(name)) classes.push_back(c);
      run.parser_classes = classes;
      run.parser_classes_complete = run.config_class != nullptr;
      EnvMap yaml_env;
      apply_parser_inputs(run, classes, yaml_env);
      compute_topology(run, nullptr, yaml_env);
      out.push_back(std::move(run));
      return out;
    }

    auto it = summaries_.find(script);
    if (script == kNoFile || it == summaries_.end() || it->second.trainer_configs.empty()) {
      TrainingRun run = base;
      EnvMap none;
      if (it != summaries_.end())
        compute_topology(run, &it->second, none);
      else
        compute_topology(run, nullptr, none);
      run.args_fully_known = false;
      out.push_back(std::move(run));
      return out;
    }
    const ScriptSummary& summary = it->second;
    for (const ValueRef& config : summary.trainer_configs) {
      TrainingRun run = base;
      run.config_class = config->cls;
      run.trainer = config->cls ? config->cls->trainer : "";
      for (const auto& t : summary.trainers)
        if (t.args && t.args->object_id == config->object_id && t.trainer) run.trainer = t.trainer->trainer;
      EnvMap yaml_env;
      if (config->from_parser) {
        run.args_from_parser = true;
        std::vector<const ClassInfo*> classes;
        bool complete = !summary.parsers.empty();
        for (const auto& parser : summary.parsers) {
          if (parser->parser_classes.empty()) complete = false;
          for (const auto& c : parser->parser_classes)
            if (c->cls)
              classes.push_back(c->cls);
            else
              complete = false;
        }
        if (classes.empty() && config->cls) classes.push_back(config->cls);
        run.parser_classes = classes;
        run.parser_classes_complete = complete;
        run.parser_keeps_unknown = summary.parser_keeps_unknown;
        if (launch)
          apply_parser_inputs(run, classes, yaml_env);
        else
          run.args_fully_known = false;  // argv and --config are not visible without a launch line
      } else {
        run.args_fully_known = config->complete;
      }
      // Python keyword arguments, or assignments made after parsing (which win over argv).
      for (const Member& m : config->members) run.args[m.name] = from_value(m.value, m.set_at, "Python");
      compute_topology(run, &summary, yaml_env, config);
      out.push_back(std::move(run));
    }
    return out;
  }

  // --config YAML, then the script's command-line flags (CLI > YAML > dataclass defaults).
  void apply_parser_inputs(TrainingRun& run, const std::vector<const ClassInfo*>& classes, EnvMap& yaml_env) {
    const LaunchCommand& l = *run.launch;
    std::optional<Word> config;
    for (std::size_t i = 0; i < l.args.size(); ++i) {
      const Word& w = l.args[i];
      if (!w.known) continue;
      if (w.text == "--config" && i + 1 < l.args.size()) config = l.args[i + 1];
      if (w.text.rfind("--config=", 0) == 0) {
        config = w;
        config->text = w.text.substr(9);
      }
    }
    if (config) {
      if (!config->known) {
        run.args_fully_known = false;
      } else {
        run.trainer_yaml = p_.resolve(config->text, bases(&l, run.launch_file));
        if (const YamlNode* root = yaml_root(p_, run.trainer_yaml)) {
          for (const auto& e : root->entries) {
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
    if (l && (l->launcher == Launcher::Accelerate || l->launcher == Launcher::Trl)) launcher_parallelism(run, *l, env);
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

    // A ParallelismConfig built in Python and handed to the trainer config or an Accelerator.
    ValueRef pc;
    if (config)
      if (const Member* m = config->member("parallelism_config")) pc = m->value;
    if (!pc && summary && !summary->accelerator_parallelism.empty()) pc = summary->accelerator_parallelism.front();
    if (pc && !(pc->kind == PyValue::Kind::Const && pc->constant.kind == Scalar::Kind::Null)) {
      if (pc->kind != PyValue::Kind::Object || !pc->cls || pc->cls->role != ClassRole::ParallelismConfig) {
        run.cp_size = Setting::unknown(pc->span, "Python");
        run.sp_size = Setting::unknown(pc->span, "Python");
        return;
      }
      // Fields left out read PARALLELISM_CONFIG_* from the environment
      // (accelerate parallelism_config.py ParallelismConfig.__post_init__).
      auto field = [&](const char* kw, const char* var) {
        if (const Member* m = pc->member(kw)) return from_value(m->value, m->set_at, "Python");
        if (!pc->complete) return Setting::unknown(pc->span, "Python");
        return env_int(var, one);
      };
      run.cp_size = field("cp_size", "PARALLELISM_CONFIG_CP_SIZE");
      run.sp_size = field("sp_size", "PARALLELISM_CONFIG_SP_SIZE");
      return;
    }
    // Otherwise Accelerator() builds one from the environment only when
    // ACCELERATE_USE_PARALLELISM_CONFIG=true (accelerate accelerator.py, Accelerator.__init__).
    auto use = env.find("ACCELERATE_USE_PARALLELISM_CONFIG");
    if (use == env.end()) {
      run.cp_size = one;
      run.sp_size = one;
      return;
    }
    if (!use->second.known()) {
      run.cp_size = Setting::unknown(use->second.span, use->second.origin);
      run.sp_size = run.cp_size;
      return;
    }
    std::string flag = use->second.value.yaml();
    for (auto& c : flag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (flag != "true") {
      run.cp_size = one;
      run.sp_size = one;
      return;
    }
    run.cp_size = env_int("PARALLELISM_CONFIG_CP_SIZE", one);
    run.sp_size = env_int("PARALLELISM_CONFIG_SP_SIZE", one);
  }

  // accelerate commands/launch.py (_validate_launch_command, v1.14): the parallelism config is
  // used when --use_parallelism_config is given, or when the config file has a non-empty
  // `parallelism_config` and no paradigm flag was given on the command line. The launcher then
  // exports PARALLELISM_CONFIG_* (utils/launch.py prepare_extend_env_parallelism_config).
  void launcher_parallelism(TrainingRun& run, const LaunchCommand& l, EnvMap& env) {
    const LaunchOption* file = l.option("config_file");
    if (l.launcher == Launcher::Trl) file = l.option("accelerate_config") ? l.option("accelerate_config") : file;
    const YamlNode* root = nullptr;
    if (file && file->value) {
      if (!file->value->known) {
        for (const char* v : {"ACCELERATE_USE_PARALLELISM_CONFIG"})
          env[v] = Setting::unknown(file->span, "accelerate config");
        return;
      }
      run.accelerate_yaml = p_.resolve(file->value->text, bases(&l, run.launch_file));
      root = yaml_root(p_, run.accelerate_yaml);
      // A name of TRL's bundled profiles (trl/accelerate_configs/*.yaml): none sets a parallelism config.
    }
    bool paradigm = false;
    for (const char* f : {"multi_gpu", "tpu", "use_deepspeed", "use_fsdp", "use_megatron_lm"})
      paradigm = paradigm || l.option(f);
    const YamlEntry* pc_entry = root ? root->find("parallelism_config") : nullptr;
    const YamlNode* pc_yaml =
        pc_entry && pc_entry->value->kind == YamlNode::Kind::Mapping ? pc_entry->value.get() : nullptr;
    const bool use = l.option("use_parallelism_config") || (!paradigm && pc_yaml && !pc_yaml->entries.empty());
    if (!use) return;
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
  }

  const Project& p_;
  const Knowledge& k_;
  std::map<FileId, ScriptSummary> summaries_;
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

std::map<FileId, ScriptSummary> evaluate_scripts(const Project& project, const Knowledge& knowledge) {
  std::map<FileId, ScriptSummary> out;
  for (FileId id = 0; id < project.sources.size(); ++id) {
    const auto& f = project.sources.get(id);
    if (f.kind != FileKind::Python || !project.facts[id].loaded || !imports_training_library(project.facts[id].python))
      continue;
    const std::string dir = fs::path(f.abs_path).parent_path().string();
    YamlLoader loader = [&project, dir](const std::string& path) -> const YamlNode* {
      std::error_code ec;
      FileId y = project.resolve(path, {dir, project.root, fs::current_path(ec).string()});
      if (y == kNoFile || project.sources.get(y).kind != FileKind::Yaml) return nullptr;
      return yaml_root(project, y);
    };
    out[id] = evaluate_module(project.facts[id].python, knowledge, loader);
  }
  return out;
}

std::vector<TrainingRun> build_runs(const Project& project, const Knowledge& knowledge) {
  return Builder(project, knowledge).build();
}

}  // namespace trl
