// The effective configuration of one training run: trainer, trainer arguments and the
// parallel topology, every value with where it was set.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/diag/diagnostic.hpp"
#include "analyzer/facts/scalar.hpp"
#include "analyzer/link/launch.hpp"

namespace trl {

struct ClassInfo;
struct Patcher;

// Where the effective value of a setting came from. Rules compare kinds; origin_text() gives the
// words the output shows (`set here (trainer YAML)`). The kinds that name something (a TRL
// profile, a launcher, the config a single-process launch follows) carry it in
// Setting::origin_detail.
enum class Origin : std::uint8_t {
  None,                     // nothing set it (an unset setting)
  TrainerYaml,              // a key of the trainer YAML (`--config`)
  TrainerYamlEnv,           // the trainer YAML's `env:` section
  CommandLine,              // a flag on the launch line
  CpuFlag,                  // `--cpu` on an accelerate launch line: one process
  Python,                   // a keyword or attribute set in Python
  AccelerateYaml,           // a key of the accelerate YAML
  AccelerateConfig,         // an accelerate config that is not read (unknown)
  AccelerateDefaultConfig,  // the machine's default accelerate config, read when none is named
  AccelerateDefault,        // accelerate's own default where the config may set it
  MachineAccelerateConfig,  // the machine's default accelerate config (launch topology)
  AccelerateLaunch,         // what `accelerate launch` sets by itself
  LaunchFails,              // a launch accelerate rejects (--use_parallelism_config without --use_fsdp)
  TrlProfile,               // a TRL bundled accelerate profile; detail: its name (and source)
  SingleProcessConfig,      // distributed_type NO; detail: where distributed_type was set
  SingleProcessCpuConfig,   // distributed_type MULTI_CPU without mpirun; detail: likewise
  Environment,              // an environment variable of the launch
  Default,                  // the library default
  TransformersDefault,      // transformers' default (attention implementation)
  LauncherDefault,          // a launcher's default; detail: the launcher
  LauncherDefaultAllGpus,   // a launcher's default of every GPU; detail: the launcher
  Launcher,                 // the launcher (a world size it cannot be known from)
  DeepspeedLauncher,        // the deepspeed launcher without --num_gpus
  PythonLaunch,             // `python script.py`: one process
  PythonOneProcess,         // the same, for the process counts of a run
  Trainer,                  // derived from the trainer's arguments (precision)
  ModelNotVisible,          // the model the trainer gets is not visible
  NotVisible,               // the trainer arguments come from somewhere trl-lint cannot see
};
// The words for an origin, as the output shows them: "trainer YAML", "TRL profile zero3",
// "torchrun default"; "" for None.
std::string origin_text(Origin origin, std::string_view detail = {});

// Whether a setting holds a true value: True or False when every path the code can take agrees,
// Unknown otherwise (an unknown value, an unset one, paths that differ). The one question rules
// ask of a flag.
enum class Truth : std::uint8_t { False, True, Unknown };

// A value of the effective configuration.
struct Setting {
  // OneOf: the value differs between paths of the code (an `if` on something unknown); each
  // alternative is known. Rules judge OneOf through truth()/all()/min_int(), never known().
  enum class State { Unset, Known, Unknown, OneOf };
  State state = State::Unset;
  Scalar value;                      // Known; for OneOf the first alternative
  std::vector<Scalar> alternatives;  // OneOf
  Span span;                         // where it was set (YAML key, Python keyword, CLI flag); invalid for defaults
  Span value_span;                   // where the value itself was written, when it flowed there from elsewhere
  Origin origin = Origin::None;
  std::string origin_detail;           // completes origin (Origin's comments say when)
  std::vector<RelatedLocation> chain;  // the way it flowed, for notes

  bool known() const { return state == State::Known; }
  std::optional<std::int64_t> as_int() const;

  // True when the value is known on every path and `pred` holds for each possibility.
  template <typename Pred>
  bool all(Pred pred) const {
    if (state == State::Known) return pred(value);
    if (state != State::OneOf || alternatives.empty()) return false;
    for (const auto& a : alternatives)
      if (!pred(a)) return false;
    return true;
  }
  // True / False on every path (Known, or every alternative alike); else Unknown.
  Truth truth() const {
    if (all([](const Scalar& s) { return s.truthy(); })) return Truth::True;
    if (all([](const Scalar& s) { return !s.truthy(); })) return Truth::False;
    return Truth::Unknown;
  }
  // The smallest integer over every path; nullopt when some path is not a known integer.
  std::optional<std::int64_t> min_int() const;
  // `2`, or `2 or 4` for a OneOf.
  std::string describe() const;
  // Where a finding about this value should point: the literal when it flowed here from another
  // line or file, else where it was set.
  Span primary_span() const;

  // origin_text(origin, origin_detail).
  std::string origin_text() const;

  static Setting unknown(Span span, Origin origin, std::string detail = {});
  static Setting known_value(Scalar v, Span span, Origin origin, std::string detail = {});
};

// A file a launch names (script, module, trainer YAML, accelerate YAML), and what became of it.
struct FileReference {
  enum class Kind { Script, Module, TrainerConfig, AccelerateConfig };
  Kind kind = Kind::Script;
  std::string text;  // as written on the launch line (after expansion)
  Span span;
  FileId file = kNoFile;   // the project file it resolved to
  bool exists = false;     // found on disk (a project file or any other file)
  bool checkable = false;  // a fully known relative path nothing creates at run time: TRL004 may judge it
  std::string stand_in;    // "README.md:12" when a docs block of the same section stands in for it
};
const char* to_string(FileReference::Kind k);

// The accelerate side of a run, as `accelerate launch` resolves it (commands/launch.py
// _validate_launch_command): launch flag > accelerate YAML > environment > default.
struct AccelerateSettings {
  bool launched = false;     // started by `accelerate launch` or `trl <command>`
  Setting distributed_type;  // NO, MULTI_GPU, FSDP, DEEPSPEED, ... (from a paradigm flag or the YAML)
  Setting fsdp_version;      // 1 or 2 (a missing key is FSDP1)
  Setting fsdp_activation_checkpointing;
  Setting mixed_precision;  // no, fp16, bf16, fp8
  Setting deepspeed_config_file;
  // accelerate-YAML keys that must not sit next to deepspeed_config_file (DeepSpeedPlugin
  // _deepspeed_config_checks): each key and where it is written.
  std::vector<std::pair<std::string, Span>> deepspeed_file_conflicts;
  Setting num_processes;  // total processes over all machines (accelerate's meaning)
  Setting num_machines;
  // distributed_type NO from the config: simple_launcher starts the script once, whatever
  // num_processes says (num_processes is then that 1).
  bool single_process = false;
};

// Where a run comes from: what build_runs built it from, so that an editor can rebuild only
// the runs an edit touches.
struct RunOrigin {
  enum class Kind { Launch, Declared, Script };
  Kind kind = Kind::Script;
  FileId file = kNoFile;  // Launch: the file of the command; Script: the script; Declared: none
  std::size_t index = 0;  // Launch: the command's index in its file's facts; Declared: the declared run's
  // clang-tidy 14 flags the literal 0 of the comparison category a defaulted <=> synthesizes
  // (modernize-use-nullptr; llvm-project issue 53961, fixed in clang-tidy 18).
  auto operator<=>(const RunOrigin&) const = default;  // NOLINT(modernize-use-nullptr)
};

struct TrainingRun {
  std::string name;                     // "launch.sh:3" or "train.py"
  std::optional<LaunchCommand> launch;  // none for a script no launch names
  FileId launch_file = kNoFile;
  FileId script = kNoFile;
  std::string script_display;  // as named on the launch line
  std::string trainer;         // sft, grpo, dpo, ...; empty when unknown
  const ClassInfo* config_class = nullptr;
  // config_class as the targeted TRL release has it, when that release is older than the
  // hand-written field lists and the release history knows it (Knowledge::at): the defaults the
  // run really gets. Null: config_class's own.
  const ClassInfo* defaults_class = nullptr;
  FileId trainer_yaml = kNoFile;
  std::size_t trainer_yaml_doc = 0;  // document index (Markdown files hold one per YAML block)
  FileId accelerate_yaml = kNoFile;
  std::size_t accelerate_yaml_doc = 0;
  std::string accelerate_profile;  // a TRL bundled profile by name (`--accelerate_config zero3`)
  std::vector<FileReference> references;
  std::vector<FileId> modules;  // other files the script's evaluation read (modules, YAML/JSON it loads)
  RunOrigin origin;
  bool explicit_run = false;      // from the project config's `runs:`
  bool args_from_parser = false;  // trainer args come from argv and --config
  // With args_from_parser: the dataclasses the parser fills. Known library classes, the field
  // names of the user's own @dataclass classes, and whether some class could not be resolved
  // (then any key may be valid).
  std::vector<const ClassInfo*> parser_classes;
  std::vector<std::string> user_fields;
  bool parser_classes_complete = true;
  bool parser_keeps_unknown = false;  // unknown keys are handed back to the script, not rejected
  bool args_fully_known = true;       // false: unset fields may still be set somewhere we cannot see
  // Libraries imported before the run's config (or its parser) was built that patch TRL's
  // classes (Knowledge::patchers): the arguments and values they make acceptable.
  std::vector<const Patcher*> patched_by;
  // Valid when the script's evaluation ran out of steps there (ScriptSummary::cut_short): the
  // script's own settings are then unknown, and TRL906 says so.
  Span evaluation_cut;
  // Why part of the run could not be resolved, or why something written for it is not used
  // (a config path built from a variable, a flag accelerate ignores): what `runs` and `show-run`
  // print beside a `?`.
  std::vector<RelatedLocation> explanations;
  bool trainer_yaml_unknown = false;     // a `--config` is given, but which file it names is not known
  bool accelerate_yaml_unknown = false;  // likewise for the accelerate config

  // Library versions the run targets, from the trl-lint configuration that governs the run's
  // launch file (or script): "trl" -> "0.19.1". Empty when the configuration names none.
  std::map<std::string, std::string, std::less<>> target_versions;

  std::map<std::string, Setting, std::less<>> args;  // explicitly set trainer arguments
  Setting cp_size;
  Setting sp_size;
  // accelerate: num_processes is the total over all machines (accelerate utils/launch.py:
  // nproc_per_node = num_processes // num_machines); torchrun: nproc_per_node x nnodes.
  Setting num_processes;
  Setting num_machines;
  Setting world_size;
  Setting dp_replicate_size;
  Setting dp_shard_size;
  Setting tp_size;
  Setting sp_backend;               // "deepspeed" unless set otherwise
  bool parallelism_config = false;  // a ParallelismConfig reaches the Accelerator
  AccelerateSettings accelerate;
  Setting attn_implementation;  // the model's attention implementation (transformers' default is sdpa)

  // The effective value of a trainer argument: explicit, else the library default, else
  // Unknown (when something we cannot see may set it) or Unset.
  Setting arg(std::string_view field) const;
  // True for SFTTrainer and trainers derived from it (packing is an SFT feature).
  bool is_sft_family() const;
  // The file whose pins (and configured target versions) decide the library versions the run is
  // judged against: the script, whose folder's requirements describe the environment it is
  // written for (`examples/legacy/requirements.txt` beside `examples/legacy/train.py`, launched
  // from the root Makefile); the launch file when the script is not a project file (`trl sft`).
  FileId version_anchor() const { return script != kNoFile ? script : launch_file; }
  // The effective trainer precision: "fp16", "bf16" or "no"; Unknown when a flag is unknown.
  Setting trainer_precision() const;
  Span launch_span() const { return launch ? launch->span : Span{}; }
};

// A launch that reads a file as its accelerate config, as the per-file rules need to know it
// (Rule::check_file): what the launch line itself sets.
struct AccelerateUse {
  std::size_t doc = 0;                // the YAML document read (TrainingRun::accelerate_yaml_doc)
  bool sets_num_processes = false;    // the launch line passes --num_processes
  bool sets_mixed_precision = false;  // the launch line passes --mixed_precision with a known value
  bool operator==(const AccelerateUse&) const = default;
};

// What the runs of a project say about one file (file_uses): small, so that it can be kept
// where the runs themselves are not.
struct FileUses {
  std::vector<AccelerateUse> accelerate;  // in the runs' order
  bool operator==(const FileUses&) const = default;
};

}  // namespace trl
