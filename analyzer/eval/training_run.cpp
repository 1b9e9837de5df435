#include "analyzer/eval/training_run.hpp"

#include <cmath>

#include "analyzer/knowledge/knowledge.hpp"

namespace trl {

const char* to_string(FileReference::Kind k) {
  switch (k) {
    case FileReference::Kind::Script: return "script";
    case FileReference::Kind::Module: return "module";
    case FileReference::Kind::TrainerConfig: return "trainer config";
    case FileReference::Kind::AccelerateConfig: return "accelerate config";
  }
  return "file";
}

namespace {
// An int, or a float with no fractional part.
std::optional<std::int64_t> whole_number(const Scalar& v) {
  if (v.kind == Scalar::Kind::Int) return v.i;
  if (v.kind == Scalar::Kind::Float && std::floor(v.f) == v.f) return static_cast<std::int64_t>(v.f);
  return std::nullopt;
}
}  // namespace

std::optional<std::int64_t> Setting::as_int() const {
  if (!known()) return std::nullopt;
  if (value.kind == Scalar::Kind::Bool) return value.b ? 1 : 0;
  return whole_number(value);
}

std::optional<std::int64_t> Setting::min_int() const {
  if (state == State::Known) return whole_number(value);
  if (state != State::OneOf || alternatives.empty()) return std::nullopt;
  std::optional<std::int64_t> lo;
  for (const auto& a : alternatives) {
    auto i = whole_number(a);
    if (!i) return std::nullopt;
    lo = lo ? std::min(*lo, *i) : *i;
  }
  return lo;
}

std::string Setting::describe() const {
  if (state == State::Known) return value.yaml();
  if (state == State::OneOf) {
    std::string out;
    for (std::size_t i = 0; i < alternatives.size(); ++i) out += (i ? " or " : "") + alternatives[i].yaml();
    return out;
  }
  return state == State::Unknown ? "unknown" : "unset";
}

Span Setting::primary_span() const {
  if (value_span.valid() && span.valid() && (value_span.file != span.file || value_span.start.line != span.start.line))
    return value_span;
  return span.valid() ? span : value_span;
}

std::string origin_text(Origin origin, std::string_view detail) {
  const std::string d(detail);
  switch (origin) {
    case Origin::None: return "";
    case Origin::TrainerYaml: return "trainer YAML";
    case Origin::TrainerYamlEnv: return "trainer YAML env";
    case Origin::CommandLine: return "command line";
    case Origin::CpuFlag: return "command line (--cpu: one process, simple launcher)";
    case Origin::Python: return "Python";
    case Origin::AccelerateYaml: return "accelerate YAML";
    case Origin::AccelerateConfig: return "accelerate config";
    case Origin::AccelerateDefaultConfig: return "accelerate default config";
    case Origin::AccelerateDefault: return "accelerate default";
    case Origin::MachineAccelerateConfig: return "machine's default accelerate config";
    case Origin::AccelerateLaunch: return "accelerate launch";
    case Origin::LaunchFails: return "launch fails: --use_parallelism_config without --use_fsdp";
    case Origin::TrlProfile: return "TRL profile " + d;
    case Origin::SingleProcessConfig: return d + " (distributed_type NO: one process)";
    case Origin::SingleProcessCpuConfig: return d + " (distributed_type MULTI_CPU without mpirun: one process)";
    case Origin::Environment: return "environment";
    case Origin::Default: return "default";
    case Origin::TransformersDefault: return "transformers default";
    case Origin::LauncherDefault: return d + " default";
    case Origin::LauncherDefaultAllGpus: return d + " default (all GPUs / hostfile)";
    case Origin::Launcher: return "launcher";
    case Origin::DeepspeedLauncher: return "deepspeed launcher";
    case Origin::PythonLaunch: return "python launch";
    case Origin::PythonOneProcess: return "python (one process)";
    case Origin::Trainer: return "trainer";
    case Origin::ModelNotVisible: return "model not visible";
    case Origin::NotVisible: return "not visible to trl-lint";
  }
  return "";
}

std::string Setting::origin_text() const {
  return trl::origin_text(origin, origin_detail);
}

Setting Setting::unknown(Span span, Origin origin, std::string detail) {
  Setting s;
  s.state = State::Unknown;
  s.span = span;
  s.origin = origin;
  s.origin_detail = std::move(detail);
  return s;
}

Setting Setting::known_value(Scalar v, Span span, Origin origin, std::string detail) {
  Setting s;
  s.state = State::Known;
  s.value = std::move(v);
  s.span = span;
  s.origin = origin;
  s.origin_detail = std::move(detail);
  return s;
}

Setting TrainingRun::arg(std::string_view field) const {
  auto it = args.find(field);
  if (it != args.end()) return it->second;
  if (!args_fully_known) return Setting::unknown({}, Origin::NotVisible);
  if (const ClassInfo* defaults = defaults_class ? defaults_class : config_class) {
    if (const FieldInfo* f = Knowledge::get().field(*defaults, field); f && f->has_default)
      return Setting::known_value(f->default_value, {}, Origin::Default);
  }
  return Setting{};
}

Setting TrainingRun::trainer_precision() const {
  const Setting fp16 = arg("fp16");
  Setting bf16 = arg("bf16");
  if (!fp16.known() || !bf16.known()) return Setting::unknown(fp16.known() ? bf16.span : fp16.span, Origin::Trainer);
  // TRL's _BaseConfig: bf16=None resolves to `not fp16` in __post_init__ (trl/trainer/base_config.py@v1.9.0).
  if (bf16.value.kind == Scalar::Kind::Null) bf16.value = Scalar::boolean(!fp16.value.truthy());
  if (fp16.value.truthy())
    return Setting::known_value(Scalar::string("fp16"), fp16.span, fp16.origin, fp16.origin_detail);
  if (bf16.value.truthy())
    return Setting::known_value(Scalar::string("bf16"), bf16.span, bf16.origin, bf16.origin_detail);
  return Setting::known_value(Scalar::string("no"), {}, Origin::Default);
}

bool TrainingRun::is_sft_family() const {
  if (!config_class) return trainer == "sft";
  return Knowledge::get().derives_from(*config_class, "SFTConfig");
}

}  // namespace trl
