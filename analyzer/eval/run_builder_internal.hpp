// What the parts of the run builder share: the Builder that turns a launch (or an entry script)
// into training runs, and the helpers that make settings out of words, YAML and Python values.
//   run_builder.cpp   runs from launches, declared runs and entry scripts; the paths a launch
//                     names; script evaluations; the public entry points
//   run_settings.cpp  the run's settings: --config YAML, command-line flags, the attention
//                     implementation, the config class of the targeted TRL release
//   run_topology.cpp  processes and parallelism: world size, accelerate's parallelism config,
//                     the environment the launch gives the script
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/eval/python_eval.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/eval/training_run.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/project.hpp"

namespace trl::run_builder_detail {

using EnvMap = std::map<std::string, Setting, std::less<>>;

// Settings made of the values they are read from (run_settings.cpp): a YAML node (with
// `argparse_defaults`, a string is converted as argparse's `type=` converts a default), a
// Python value, a command-line word (converted for `field`'s type), a word read as an int.
Setting from_yaml_node(const YamlNode& node, Span key_span, const FieldInfo* field, bool argparse_defaults,
                       Origin origin);
Setting from_value(const ValueRef& v, Span at, Origin origin);
Setting from_word(const Word& w, Span span, Origin origin, const FieldInfo* field);
Setting int_setting(const Word& w, Span span, Origin origin);

// The root mapping of YAML document `doc` of a file; null when it has none (run_builder.cpp).
const YamlNode* yaml_root(const Project& p, FileId id, std::size_t doc = 0);

// Builds the runs of launches, declared runs and entry scripts of one project. Its members are
// defined by job: run_builder.cpp (runs, paths, evaluations), run_settings.cpp (settings) and
// run_topology.cpp (processes and parallelism).
class Builder {
 public:
  // `cache_lock`: guards the project's ScriptCache when builders on other threads share it.
  Builder(const Project& p, const Knowledge& k, std::mutex* cache_lock = nullptr)
      : p_(p), k_(k), evaluator_(p, k), cache_lock_(cache_lock) {}

  bool candidate(FileId id) const;
  std::vector<FileId> candidates() const;
  const ScriptSummary& evaluation(FileId id);
  std::vector<TrainingRun> runs_of_command(FileId id, std::size_t i);
  std::vector<TrainingRun> runs_of_declared(const DeclaredRun& d);
  std::vector<TrainingRun> runs_of_script(FileId id);
  std::vector<FileId> modules_of(FileId script);
  const std::set<FileId>& imported_modules();

 private:
  // run_builder.cpp: paths, runs, evaluations
  const std::vector<std::string>& bases(const LaunchCommand* launch, FileId launch_file) const;
  std::vector<std::string> compute_bases(const LaunchCommand* launch, FileId launch_file) const;
  FileId resolve_path(const std::string& text, const LaunchCommand& l, FileId launch_file) const;
  FileId resolve_script(const LaunchCommand& l, FileId launch_file) const;
  bool exists_on_disk(const std::string& path, const std::vector<std::string>& b) const;
  bool folder_has_kind(const std::string& path, const std::vector<std::string>& b) const;
  bool created_by_launcher(const std::string& path, FileId launch_file) const;
  FileReference make_reference(FileReference::Kind kind, const Word& w, const LaunchCommand& l, FileId launch_file,
                               FileId resolved) const;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> doc_sections(const LaunchCommand& l, FileId launch_file) const;
  std::optional<std::size_t> stand_in_yaml(FileId md,
                                           const std::vector<std::pair<std::uint32_t, std::uint32_t>>& sections,
                                           std::uint32_t near_line, bool accelerate) const;
  // A config file the launch names but the repository lacks: the stand-in block of the launch's
  // docs section (stand_in_yaml), if any, becomes the YAML read (`yaml`, `doc`) and is noted on
  // the reference.
  void take_stand_in(FileReference& ref, const LaunchCommand& l, FileId launch_file, bool accelerate, FileId& yaml,
                     std::size_t& doc) const;
  std::vector<TrainingRun> from_launch(const LaunchCommand& l, FileId launch_file);
  std::vector<TrainingRun> for_script(FileId script, const LaunchCommand* launch, FileId launch_file);
  const ScriptSummary& summary(FileId script);
  const ScriptSummary& section_summary(FileId page, std::uint32_t lo, std::uint32_t hi);

  // run_settings.cpp
  static Setting attn_default(Setting s, Span load_site);
  Setting attn_from_value(const TrainingRun& run, const ValueRef& v, Span load_site) const;
  Setting resolve_attn(const TrainingRun& run, const ScriptSummary& summary, const ValueRef& config) const;
  void apply_parser_inputs(TrainingRun& run, const std::vector<const ClassInfo*>& classes, EnvMap& yaml_env,
                           bool reads_config = true);
  const ClassInfo* at_target_release(const TrainingRun& run) const;

  // run_topology.cpp
  void compute_topology(TrainingRun& run, const ScriptSummary* summary, const EnvMap& yaml_env,
                        const ValueRef& config = nullptr);
  bool trl_cli_forwards_launch_options(const TrainingRun& run, const LaunchCommand& l) const;
  void launcher_parallelism(TrainingRun& run, const LaunchCommand& l, EnvMap& env);
  void world_size(TrainingRun& run, const LaunchCommand& l, const YamlNode* root);
  void torchrun_world(TrainingRun& run, const LaunchCommand& l);

  // launch file, working folder (empty: none) -> bases.
  mutable std::map<std::pair<FileId, std::string>, std::vector<std::string>> bases_;
  // folder_has_kind's answers: "folder\nextension" -> the folder holds such a file.
  mutable std::unordered_map<std::string, bool> folder_kinds_;
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

}  // namespace trl::run_builder_detail
