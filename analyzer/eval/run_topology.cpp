// The processes of a training run and how they split the model: the world size a launcher
// starts (accelerate launch with its config file or a TRL profile, torchrun, deepspeed, python),
// the environment the launch hands the script, and the parallelism config (context, sequence,
// data and tensor parallel sizes) built in Python or exported by accelerate launch.
#include <cctype>
#include <set>
#include <string>

#include "analyzer/eval/accelerate_topology.hpp"
#include "analyzer/eval/run_builder_internal.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/knowledge/knowledge.hpp"

namespace trl::run_builder_detail {

void Builder::compute_topology(TrainingRun& run, const ScriptSummary* summary, const EnvMap& yaml_env,
                               const ValueRef& config) {
  EnvMap env;
  const LaunchCommand* l = run.launch ? &*run.launch : nullptr;
  if (l)
    for (const auto& e : l->env) {
      Span s = e.value.span.valid() ? e.value.span : l->span;
      env[e.name] = e.value.known ? Setting::known_value(Scalar::string(e.value.text), s, Origin::Environment)
                                  : Setting::unknown(s, Origin::Environment);
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
    run.num_processes = Setting::known_value(Scalar::integer(1), l->launcher_span, Origin::PythonOneProcess);
    run.num_machines = Setting::known_value(Scalar::integer(1), l->launcher_span, Origin::PythonOneProcess);
    run.world_size = run.num_processes;
  }
  for (const auto& [name, s] : yaml_env) env[name] = s;  // TrlParser exports `env:` in the process

  auto env_int = [&](const char* name, Setting fallback) {
    auto it = env.find(name);
    if (it == env.end()) return fallback;
    const Setting& s = it->second;
    if (!s.known()) return Setting::unknown(s.span, s.origin, s.origin_detail);
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
    return Setting::unknown(s.span, s.origin, s.origin_detail);
  };
  const Setting one = Setting::known_value(Scalar::integer(1), {}, Origin::Default);
  auto env_str = [&](const char* name, const char* fallback) {
    auto it = env.find(name);
    if (it == env.end()) return Setting::known_value(Scalar::string(fallback), {}, Origin::Default);
    return it->second;
  };
  auto no_parallelism = [&] {
    for (Setting* s : {&run.cp_size, &run.sp_size, &run.dp_replicate_size, &run.dp_shard_size, &run.tp_size}) *s = one;
    run.sp_backend = Setting::known_value(Scalar::string("deepspeed"), {}, Origin::Default);
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
        *s = Setting::unknown(pc->span, Origin::Python);
      return;
    }
    // Fields left out read PARALLELISM_CONFIG_* from the environment
    // (accelerate parallelism_config.py ParallelismConfig.__post_init__).
    auto field = [&](const char* kw, const char* var) {
      if (const Member* m = pc->member(kw)) return from_value(m->value, m->set_at, Origin::Python);
      if (!pc->complete) return Setting::unknown(pc->span, Origin::Python);
      return env_int(var, one);
    };
    run.parallelism_config = true;
    run.cp_size = field("cp_size", "PARALLELISM_CONFIG_CP_SIZE");
    run.sp_size = field("sp_size", "PARALLELISM_CONFIG_SP_SIZE");
    run.dp_replicate_size = field("dp_replicate_size", "PARALLELISM_CONFIG_DP_REPLICATE_SIZE");
    run.dp_shard_size = field("dp_shard_size", "PARALLELISM_CONFIG_DP_SHARD_SIZE");
    run.tp_size = field("tp_size", "PARALLELISM_CONFIG_TP_SIZE");
    if (const Member* m = pc->member("sp_backend"))
      run.sp_backend = from_value(m->value, m->set_at, Origin::Python);
    else if (!pc->complete)
      run.sp_backend = Setting::unknown(pc->span, Origin::Python);
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
      *s = Setting::unknown(use->second.span, use->second.origin, use->second.origin_detail);
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
bool Builder::trl_cli_forwards_launch_options(const TrainingRun& run, const LaunchCommand& l) const {
  const VersionTargets t = version_targets(p_, run.version_anchor(), k_);
  if (!t.trl.known()) return false;
  return compare_versions(*t.trl.version, l.trl_command == "sft" ? "0.18.0" : "0.29.0") >= 0;
}

// accelerate commands/launch.py (_validate_launch_command, v1.14): the parallelism config is
// used when --use_parallelism_config is given, or when the config file has a non-empty
// `parallelism_config` and no paradigm flag was given on the command line. The launcher then
// exports PARALLELISM_CONFIG_* (utils/launch.py prepare_extend_env_parallelism_config).
void Builder::launcher_parallelism(TrainingRun& run, const LaunchCommand& l, EnvMap& env) {
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
    env["ACCELERATE_USE_PARALLELISM_CONFIG"] = Setting::unknown(src.span, Origin::AccelerateConfig);
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
      env["ACCELERATE_USE_PARALLELISM_CONFIG"] = Setting::unknown(file->span, Origin::AccelerateConfig);
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
      take_stand_in(ref, l, run.launch_file, true, run.accelerate_yaml, run.accelerate_yaml_doc);
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
    env["ACCELERATE_USE_PARALLELISM_CONFIG"] = Setting::unknown(src.span, Origin::AccelerateConfig);
    return;
  }
  // `--use_parallelism_config` without `--use_fsdp` on the line: _validate_launch_command raises
  // ValueError before reading the config (accelerate v1.10.0 to v1.14.0; its fsdp_version is a
  // string, so only the missing --use_fsdp counts). The launch never starts: what it would have
  // used is not judged.
  if (l.launcher == Launcher::Accelerate && l.option("use_parallelism_config") && !l.option("use_fsdp")) {
    env["ACCELERATE_USE_PARALLELISM_CONFIG"] =
        Setting::unknown(l.option("use_parallelism_config")->span, Origin::LaunchFails);
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
      env["ACCELERATE_USE_PARALLELISM_CONFIG"] = Setting::unknown(type.span, Origin::AccelerateConfig);
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
      if (!o->value) return Setting::unknown(o->span, Origin::CommandLine);
      FieldInfo int_field;
      int_field.type = "int";
      return from_word(*o->value, o->span, Origin::CommandLine, &int_field);
    }
    if (pc_yaml)
      if (const YamlEntry* e = pc_yaml->find(name))
        return from_yaml_node(*e->value, e->key_span, nullptr, false, Origin::AccelerateYaml);
    return Setting::known_value(Scalar::integer(1), {}, Origin::Default);
  };
  Setting on = Setting::known_value(Scalar::string("true"), l.span, Origin::AccelerateLaunch);
  env["ACCELERATE_USE_PARALLELISM_CONFIG"] = on;
  env["PARALLELISM_CONFIG_CP_SIZE"] = size("cp_size");
  env["PARALLELISM_CONFIG_SP_SIZE"] = size("sp_size");
  env["PARALLELISM_CONFIG_DP_REPLICATE_SIZE"] = size("dp_replicate_size");
  env["PARALLELISM_CONFIG_DP_SHARD_SIZE"] = size("dp_shard_size");
  env["PARALLELISM_CONFIG_TP_SIZE"] = size("tp_size");
  Setting backend = Setting::known_value(Scalar::string("deepspeed"), {}, Origin::Default);
  if (const LaunchOption* o = l.option("parallelism_config_sp_backend"))
    backend = o->value ? from_word(*o->value, o->span, Origin::CommandLine, nullptr)
                       : Setting::unknown(o->span, Origin::CommandLine);
  else if (pc_yaml)
    if (const YamlEntry* e = pc_yaml->find("parallelism_config_sp_backend"))
      backend = from_yaml_node(*e->value, e->key_span, nullptr, false, Origin::AccelerateYaml);
  env["PARALLELISM_CONFIG_SP_BACKEND"] = backend;
}

// num_processes / num_machines / world size of an accelerate (or trl CLI) launch:
// flag > accelerate YAML > TRL profile; without a config accelerate uses the machine's own
// default config or GPU count, which trl-lint cannot see.
void Builder::world_size(TrainingRun& run, const LaunchCommand& l, const YamlNode* root) {
  const AccelerateProfile* profile =
      run.accelerate_profile.empty() ? nullptr : k_.accelerate_profile(run.accelerate_profile);
  auto value = [&](const char* key) -> Setting {
    if (const LaunchOption* o = l.option(key)) {
      if (!o->value) return Setting::unknown(o->span, Origin::CommandLine);
      return int_setting(*o->value, o->span, Origin::CommandLine);
    }
    if (root) {
      if (const YamlEntry* e = root->find(key))
        return from_yaml_node(*e->value, e->key_span, nullptr, false, Origin::AccelerateYaml);
      if (std::string_view(key) == "num_machines") return Setting::known_value(Scalar::integer(1), {}, Origin::Default);
      return Setting::unknown({}, Origin::AccelerateDefault);
    }
    if (profile) {
      auto it = profile->values.find(key);
      if (it != profile->values.end())
        return Setting::known_value(it->second, {}, Origin::TrlProfile, profile->name + " (" + profile->source + ")");
    }
    if (l.option("config_file") || l.option("accelerate_config")) return Setting::unknown({}, Origin::AccelerateConfig);
    return Setting::unknown({}, Origin::MachineAccelerateConfig);
  };
  run.num_processes = run.accelerate.single_process ? run.accelerate.num_processes : value("num_processes");
  run.num_machines = value("num_machines");
  run.world_size = run.num_processes;
}

void Builder::torchrun_world(TrainingRun& run, const LaunchCommand& l) {
  const bool ds = l.launcher == Launcher::Deepspeed;
  auto value = [&](const char* key, bool has_default) -> Setting {
    if (const LaunchOption* o = l.option(key)) {
      if (!o->value) return Setting::unknown(o->span, Origin::CommandLine);
      return int_setting(*o->value, o->span, Origin::CommandLine);
    }
    return has_default ? Setting::known_value(Scalar::integer(1), {}, Origin::LauncherDefault, to_string(l.launcher))
                       : Setting::unknown({}, Origin::LauncherDefaultAllGpus, to_string(l.launcher));
  };
  run.num_processes = value(ds ? "num_gpus" : "nproc_per_node", !ds);
  run.num_machines = value(ds ? "num_nodes" : "nnodes", !ds);
  auto np = run.num_processes.as_int(), nm = run.num_machines.as_int();
  if (np && nm)
    run.world_size = Setting::known_value(Scalar::integer(*np * *nm), run.num_processes.span, run.num_processes.origin,
                                          run.num_processes.origin_detail);
  else
    run.world_size = Setting::unknown(run.num_processes.span, Origin::Launcher);
}

}  // namespace trl::run_builder_detail
