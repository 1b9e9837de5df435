#include "analyzer/eval/accelerate_topology.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace trl {

namespace {

struct Profile {
  std::string_view name;
  std::string_view distributed_type;
  int fsdp_version;  // 0: not FSDP
  std::string_view zero_stage;
};

// trl/accelerate_configs/*.yaml@v1.9.0: every profile sets num_processes: 8, num_machines: 1,
// mixed_precision: bf16; the FSDP profiles set fsdp_activation_checkpointing: false.
constexpr std::array<Profile, 7> kProfiles{{
    {"fsdp1", "FSDP", 1, ""},
    {"fsdp2", "FSDP", 2, ""},
    {"multi_gpu", "MULTI_GPU", 0, ""},
    {"single_gpu", "NO", 0, ""},
    {"zero1", "DEEPSPEED", 0, "1"},
    {"zero2", "DEEPSPEED", 0, "2"},
    {"zero3", "DEEPSPEED", 0, "3"},
}};

const Profile* find_profile(std::string_view name) {
  for (const auto& p : kProfiles)
    if (p.name == name) return &p;
  return nullptr;
}

std::string lower(std::string v) {
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v;
}

// accelerate's str_to_bool for the string flags (`--fsdp_activation_checkpointing true`).
Setting to_bool(Setting s) {
  if (!s.known()) return s;
  if (s.value.kind == Scalar::Kind::Bool) return s;
  if (s.value.kind == Scalar::Kind::Str) {
    const std::string v = lower(s.value.s);
    if (v == "true" || v == "yes" || v == "y" || v == "1" || v == "on" || v == "t") {
      s.value = Scalar::boolean(true);
      return s;
    }
    if (v == "false" || v == "no" || v == "n" || v == "0" || v == "off" || v == "f") {
      s.value = Scalar::boolean(false);
      return s;
    }
  }
  if (s.value.kind == Scalar::Kind::Int) {
    s.value = Scalar::boolean(s.value.i != 0);
    return s;
  }
  return Setting::unknown(s.span, s.origin, s.origin_detail);
}

Setting to_int(Setting s) {
  if (!s.known()) return s;
  if (s.value.kind == Scalar::Kind::Int) return s;
  if (s.value.kind == Scalar::Kind::Str) {
    try {
      std::size_t used = 0;
      long long v = std::stoll(s.value.s, &used);
      if (used == s.value.s.size() && !s.value.s.empty()) {
        s.value = Scalar::integer(v);
        return s;
      }
    } catch (const std::exception&) {
    }
  }
  return Setting::unknown(s.span, s.origin, s.origin_detail);
}

Setting from_node(const YamlEntry& e, Origin origin) {
  if (e.value->kind != YamlNode::Kind::Scalar) return Setting::unknown(e.key_span, origin);
  return Setting::known_value(e.value->scalar, e.key_span, origin);
}

Setting from_option(const LaunchOption& o) {
  if (!o.value) return Setting::known_value(Scalar::boolean(true), o.span, Origin::CommandLine);
  if (!o.value->known) return Setting::unknown(o.span, Origin::CommandLine);
  return Setting::known_value(Scalar::string(o.value->text), o.span, Origin::CommandLine);
}

class Reader {
 public:
  Reader(const LaunchCommand& l, const AccelerateConfigSource& c)
      : l_(l), c_(c), profile_(c.kind == AccelerateConfigSource::Kind::Profile ? find_profile(c.profile) : nullptr) {}

  AccelerateSettings read() {
    AccelerateSettings a;
    a.launched = true;
    a.distributed_type = distributed_type();
    a.fsdp_version = to_int(nested("fsdp_config", "fsdp_version", "fsdp_"));
    if (profile_ && !l_.option("fsdp_version") && profile_->fsdp_version)
      a.fsdp_version = profile_value(Scalar::integer(profile_->fsdp_version));
    a.fsdp_activation_checkpointing = to_bool(nested("fsdp_config", "fsdp_activation_checkpointing", "fsdp_"));
    if (profile_ && !l_.option("fsdp_activation_checkpointing"))
      a.fsdp_activation_checkpointing = profile_value(Scalar::boolean(false));
    a.mixed_precision = mixed_precision();
    a.deepspeed_config_file = nested("deepspeed_config", "deepspeed_config_file", "");
    if (a.deepspeed_config_file.known() &&
        (a.deepspeed_config_file.value.kind == Scalar::Kind::Null ||
         (a.deepspeed_config_file.value.kind == Scalar::Kind::Str && lower(a.deepspeed_config_file.value.s) == "none")))
      a.deepspeed_config_file = Setting{};  // "none" means no file (DeepSpeedPlugin.__post_init__)
    if (profile_ && !l_.option("deepspeed_config_file")) a.deepspeed_config_file = Setting{};
    deepspeed_conflicts(a);
    a.num_processes = to_int(top("num_processes", true));
    if (a.num_processes.known() && a.num_processes.value.i < 1) a.num_processes = Setting::unknown({}, Origin::None);
    if (profile_ && !l_.option("num_processes")) a.num_processes = profile_value(Scalar::integer(8));
    // ClusterConfig: a YAML without num_processes and with distributed_type NO means 1 process.
    if (!l_.option("num_processes") && c_.root && !c_.root->find("num_processes"))
      if (const YamlEntry* e = c_.root->find("distributed_type"); e && e->value->kind == YamlNode::Kind::Scalar &&
                                                                  e->value->scalar.kind == Scalar::Kind::Str &&
                                                                  e->value->scalar.s == "NO")
        a.num_processes = Setting::known_value(Scalar::integer(1), e->key_span, Origin::AccelerateYaml);
    // A config whose distributed_type is NO, with no paradigm flag on the launch line, makes
    // launch_command run simple_launcher: the script once, whatever num_processes says (TRL's
    // single_gpu profile says 8). Only a CPU setup's mpirun hostfile starts more. (accelerate
    // commands/launch.py, _validate_launch_command and launch_command, v1.14.0: multi_gpu comes
    // from the config's distributed_type; num_processes > 1 turns it on only without a config.)
    // An unquoted `distributed_type: NO` loads as False (PyYAML, YAML 1.1), which no
    // DistributedType equals: the same simple_launcher (config_args.py BaseConfig.__post_init__
    // converts strings only).
    // MULTI_CPU sets none of the launcher flags either: simple_launcher too. So does `--cpu` on
    // the launch line, whatever the config says: every other launcher's branch requires `not
    // args.cpu` (launch_command, v1.14.0), and the SageMaker one, which comes before, needs a
    // SageMaker config.
    const Scalar& type = a.distributed_type.value;
    const bool no_type =
        (type.kind == Scalar::Kind::Str && type.s == "NO") || (type.kind == Scalar::Kind::Bool && !type.b);
    const bool cpu_type = type.kind == Scalar::Kind::Str && type.s == "MULTI_CPU";
    const bool no_mpirun = !l_.option("mpirun_hostfile") && !(c_.root && c_.root->find("mpirun_config"));
    // The config is local unless it says otherwise; one not read could be a SageMaker one.
    const YamlEntry* env = c_.root ? c_.root->find("compute_environment") : nullptr;
    const bool config_given = l_.option("config_file") || l_.option("accelerate_config");
    const bool local = !config_given || profile_ ||
                       (c_.root && (!env || (env->value->kind == YamlNode::Kind::Scalar &&
                                             env->value->scalar.kind == Scalar::Kind::Str &&
                                             env->value->scalar.s == "LOCAL_MACHINE")));
    const bool accelerate = l_.launcher == Launcher::Accelerate || l_.launcher == Launcher::Trl;
    if (const LaunchOption* cpu = l_.option("cpu"); accelerate && cpu && no_mpirun && local) {
      a.num_processes = Setting::known_value(Scalar::integer(1), cpu->span, Origin::CpuFlag);
      a.single_process = true;
    } else if (a.distributed_type.known() && a.distributed_type.origin != Origin::CommandLine &&
               (no_type || cpu_type) && no_mpirun) {
      a.num_processes = Setting::known_value(Scalar::integer(1), a.distributed_type.span,
                                             no_type ? Origin::SingleProcessConfig : Origin::SingleProcessCpuConfig,
                                             a.distributed_type.origin_text());
      a.single_process = true;
    }
    a.num_machines = to_int(top("num_machines", false));
    if (profile_ && !l_.option("num_machines")) a.num_machines = profile_value(Scalar::integer(1));
    return a;
  }

 private:
  bool config_known() const {
    return (c_.kind == AccelerateConfigSource::Kind::File && c_.root) || profile_ != nullptr;
  }
  Setting fallback(Scalar v) const {
    // With no --config_file accelerate reads the user's default config, which we cannot see.
    if (c_.kind == AccelerateConfigSource::Kind::None || !config_known())
      return Setting::unknown(c_.span, Origin::AccelerateDefaultConfig);
    return Setting::known_value(std::move(v), {}, Origin::Default);
  }
  Setting profile_value(Scalar v) const {
    return Setting::known_value(std::move(v), c_.span, Origin::TrlProfile, std::string(profile_->name));
  }

  Setting distributed_type() const {
    static const std::pair<const char*, const char*> flags[] = {
        {"use_fsdp", "FSDP"}, {"use_deepspeed", "DEEPSPEED"},     {"multi_gpu", "MULTI_GPU"},
        {"tpu", "XLA"},       {"use_megatron_lm", "MEGATRON_LM"}, {"cpu", "MULTI_CPU"}};
    for (auto [flag, type] : flags)
      if (const LaunchOption* o = l_.option(flag)) {
        Setting s = from_option(*o);
        if (!s.known()) return s;
        return Setting::known_value(Scalar::string(type), o->span, Origin::CommandLine);
      }
    if (profile_) return profile_value(Scalar::string(std::string(profile_->distributed_type)));
    if (c_.root)
      if (const YamlEntry* e = c_.root->find("distributed_type")) return from_node(*e, Origin::AccelerateYaml);
    return Setting::unknown(c_.span, Origin::AccelerateDefaultConfig);
  }

  // A top-level key: the flag wins, then the YAML (filled only when the flag is None).
  Setting top(const char* key, bool required) const {
    if (const LaunchOption* o = l_.option(key)) return from_option(*o);
    if (c_.root)
      if (const YamlEntry* e = c_.root->find(key)) return from_node(*e, Origin::AccelerateYaml);
    if (required || !config_known()) return Setting::unknown(c_.span, Origin::AccelerateConfig);
    return fallback(Scalar::integer(1));
  }

  // A key of a nested section (`fsdp_config`, `deepspeed_config`): copied onto the launch
  // arguments unless the flag was given; `prefix` is prepended when missing.
  Setting nested(const char* section, const char* key, const char* prefix) const {
    if (const LaunchOption* o = l_.option(key)) return from_option(*o);
    if (c_.root)
      if (const YamlEntry* s = c_.root->find(section); s && s->value->kind == YamlNode::Kind::Mapping) {
        const YamlEntry* found = nullptr;
        for (const auto& e : s->value->entries) {
          std::string name = e.key;
          if (*prefix && name.rfind(prefix, 0) != 0) name = prefix + name;
          if (name == key) found = &e;
        }
        if (found) return from_node(*found, Origin::AccelerateYaml);
      }
    if (std::string_view(key) == "fsdp_version") return fallback(Scalar::integer(1));
    if (std::string_view(key) == "fsdp_activation_checkpointing") return fallback(Scalar::boolean(false));
    return config_known() ? Setting{} : Setting::unknown(c_.span, Origin::AccelerateConfig);
  }

  Setting mixed_precision() const {
    if (const LaunchOption* o = l_.option("mixed_precision")) return from_option(*o);
    if (profile_) return profile_value(Scalar::string("bf16"));
    if (c_.root)
      if (const YamlEntry* e = c_.root->find("mixed_precision");
          e && !(e->value->kind == YamlNode::Kind::Scalar && e->value->scalar.kind == Scalar::Kind::Null))
        return from_node(*e, Origin::AccelerateYaml);
    return fallback(Scalar::string("no"));
  }

  // DeepSpeedPlugin._deepspeed_config_checks: with a deepspeed_config_file, the YAML's
  // deepspeed_config keys and a YAML mixed_precision reach ACCELERATE_CONFIG_DS_FIELDS.
  void deepspeed_conflicts(AccelerateSettings& a) const {
    if (!c_.root || !a.deepspeed_config_file.known()) return;
    static constexpr std::string_view forbidden[] = {
        "gradient_accumulation_steps", "gradient_clipping",     "zero_stage",
        "offload_optimizer_device",    "offload_param_device",  "offload_param_nvme_path",
        "offload_optimizer_nvme_path", "zero3_save_16bit_model"};
    if (const YamlEntry* s = c_.root->find("deepspeed_config"); s && s->value->kind == YamlNode::Kind::Mapping)
      for (const auto& e : s->value->entries)
        if (std::find(std::begin(forbidden), std::end(forbidden), e.key) != std::end(forbidden))
          a.deepspeed_file_conflicts.emplace_back(e.key, e.key_span);
    if (!l_.option("mixed_precision"))
      if (const YamlEntry* e = c_.root->find("mixed_precision");
          e && !(e->value->kind == YamlNode::Kind::Scalar && e->value->scalar.kind == Scalar::Kind::Null))
        a.deepspeed_file_conflicts.emplace_back("mixed_precision", e->key_span);
  }

  const LaunchCommand& l_;
  const AccelerateConfigSource& c_;
  const Profile* profile_;
};

Setting option_int(const LaunchCommand& l, const char* name, std::int64_t fallback) {
  const LaunchOption* o = l.option(name);
  if (!o) return Setting::known_value(Scalar::integer(fallback), {}, Origin::Default);
  return to_int(from_option(*o));
}

Setting product(const Setting& a, const Setting& b) {
  if (!a.known()) return a;
  if (!b.known()) return b;
  Setting out = a.span.valid() ? a : b;
  out.value = Scalar::integer(a.value.i * b.value.i);
  return out;
}

}  // namespace

bool is_trl_accelerate_profile(std::string_view name) {
  return find_profile(name) != nullptr;
}

AccelerateSettings read_accelerate_settings(const LaunchCommand& launch, const AccelerateConfigSource& config) {
  return Reader(launch, config).read();
}

Setting launch_world_size(const LaunchCommand& l, const AccelerateSettings& a) {
  switch (l.launcher) {
    case Launcher::Accelerate:
    case Launcher::Trl: return a.num_processes;
    case Launcher::Torchrun: {
      // torch/distributed/run.py: --nproc_per_node defaults to 1, --nnodes to "1:1".
      return product(option_int(l, "nproc_per_node", 1), option_int(l, "nnodes", 1));
    }
    case Launcher::Deepspeed: {
      // The deepspeed launcher uses every visible GPU unless --num_gpus is given.
      if (!l.option("num_gpus")) return Setting::unknown(l.span, Origin::DeepspeedLauncher);
      return product(option_int(l, "num_gpus", 1), option_int(l, "num_nodes", 1));
    }
    case Launcher::Python: return Setting::known_value(Scalar::integer(1), l.launcher_span, Origin::PythonLaunch);
  }
  return Setting{};
}

}  // namespace trl
