// The library knowledge of rules/knowledge/*.yaml, loaded once: config classes with their roles
// and fields, and `accelerate launch` options. The YAML files are the single source of truth;
// at build time tools/knowledge_gen.cpp reads them (with from_texts) and embeds the result as a
// compact binary blob (to_blob), which get() decodes on first use in well under a millisecond
// instead of parsing YAML at every start.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analyzer/facts/scalar.hpp"

namespace trl {

struct FieldInfo {
  std::string name;
  std::string type;  // bool, int, float, str, dict, list, object ("" when not recorded)
  bool has_default = false;
  Scalar default_value;
  bool nullable = false;
  std::vector<std::string> choices;
  bool accepts_bool = false;  // True/False are accepted and mapped to a choice
  std::string source;         // file@version the fact was read from
};

enum class ClassRole {
  Unknown,
  TrainerConfig,
  Trainer,
  ParallelismConfig,
  Accelerator,
  ArgParser,
  ScriptArgs,
  ModelConfig
};

// The leading positional parameters of a trainer's __init__ (after self) from one release on:
// what an argument passed by position binds to.
struct PositionalParams {
  std::string from;                 // first release with this order
  std::vector<std::string> params;  // empty: not knowable (the class takes `*args` and forwards them)
  std::string source;
};

struct ClassInfo {
  std::string name;
  std::string package;
  ClassRole role = ClassRole::Unknown;
  std::string trainer;  // sft, grpo, dpo, ... for trainers and their configs
  std::vector<std::string> bases;
  std::map<std::string, FieldInfo, std::less<>> fields;
  std::string source;
  std::vector<PositionalParams> init_positional;  // oldest first; empty when not recorded
  // The orders from the first release the trainer history scans on are derived from it when the
  // knowledge is built (`init_positional_history: true` in trainer_signatures.yaml).
  bool init_positional_history = false;
  // Built from a library's installed source (a release newer than the knowledge): the library,
  // its installed version and each module read ({"trl", "1.10.0", "trl/trainer/sft_config.py"});
  // empty otherwise.
  struct InstalledModule {
    std::string library, version, file;
  };
  std::vector<InstalledModule> installed_from;
};

// A renamed or removed argument (old -> new, or new empty when removed without replacement),
// or a renamed value of one field (old_value -> new_value). Versions are release strings of the
// library that owns `cls` ("" when not known). For an argument the release history describes (a
// field of `cls` or of a base in history_*.yaml, or an __init__ parameter of a trainer in its
// `trainers:` tables), the versions the knowledge files leave out are read from the history when
// the knowledge is built (Knowledge::rename_history).
struct Rename {
  std::string cls;  // class whose argument it is (applies to classes derived from it)
  std::string old_name;
  std::string new_name;  // empty: removed without a replacement
  std::string field;     // for value renames: the field whose value was renamed
  bool is_value = false;
  Scalar old_value;
  Scalar new_value;
  std::string deprecated;  // first release that warns; "" when not verified
  // `deprecated` is the first release the history scans: the deprecation may be older.
  bool deprecated_or_earlier = false;
  std::string removed;  // first release without it; "" while still accepted
  std::string note;
  std::string source;  // where the rename was read
  // Where `deprecated` and `removed` were read, when not in `source`: a file@tag of the library, or
  // the release history's range ("trl/trainer/sft_config.py@v0.16.0..v0.19.1 (release history: ...)").
  std::string deprecated_source;
  std::string removed_source;
  bool unsafe_fix = false;  // the new name/value does not behave the same: the fix is not safe
  bool no_fix = false;      // no rename fix at all: the new name needs another value, or code reads the old one
};

// What the release history shows of a renamed argument (Knowledge::rename_history): the ranges of
// the old name as a field of the rename's class, or of the nearest base that has a history; else
// as an __init__ parameter (or deprecate_kwarg alias) of the trainer or a base.
struct RenameHistory {
  bool described = false;  // the history has the old name as a field or trainer parameter
  // First release whose help text (a trainer: whose __init__ source) deprecates it; "" when none.
  std::string deprecated;
  std::string deprecated_source;
  bool deprecated_at_first = false;  // already at the first release the history scans
  // The history shows whether the old name was removed: the newest scanned release has it, or a
  // release after its last range has the class with a field list the history describes in full
  // (not one inherited from a base the tables do not follow, such as `_KTOConfig`; for a trainer,
  // an __init__ that is known and takes no **kwargs).
  bool removal_known = false;
  std::string removed;  // first scanned release after its last range; "" while the newest has it
  std::string removed_source;
};

// The known releases of one library, oldest first, and the newest one.
struct LibraryReleases {
  std::string name;  // trl, transformers, accelerate
  std::vector<std::string> releases;
  std::string newest;
  // The oldest release whose field lists the knowledge describes completely (unknown-key checks
  // are only made for targets at or after it).
  std::string fields_complete_from;
  std::string source;
};

struct LaunchFlag {
  std::string name;
  bool takes_value = true;
  std::string type;
};

// One of TRL's bundled accelerate configs (`trl sft --accelerate_config zero3`).
struct AccelerateProfile {
  std::string name;
  std::map<std::string, Scalar, std::less<>> values;  // distributed_type, num_processes, ...
  std::string source;
};

// What a third-party library changes in the libraries' classes when a script imports it
// (unsloth rebinds trl's trainers and configs to its own subclasses): the arguments a patched
// class takes besides its own, and values it accepts besides the library's choices.
struct PatchedClass {
  // The patcher replaces the class by name in the library's module (`trl.SFTConfig = ...`): a
  // name imported from the library before the patcher keeps the original class. Otherwise the
  // class itself is changed (its __init__ wrapped), whatever name reaches it.
  bool rebinds = false;
  std::vector<std::string> accepts;                                     // argument names
  std::map<std::string, std::vector<std::string>, std::less<>> values;  // field -> extra accepted values
};

struct Patcher {
  std::string name;
  // Importing one of these modules (or a submodule of one) patches; it applies to what the
  // script builds after that import.
  std::vector<std::string> modules;
  std::map<std::string, PatchedClass, std::less<>> classes;  // applies to classes derived from these too
  std::string source;
};

// A class of one library over its releases, from the generated history_*.yaml
// (tools/knowledge_history.py): where it exists, and each field's ranges with one type, default
// and choice list each. A range holds from its first release to its last, both inclusive.
struct ClassHistory {
  struct Span {
    std::string from, to;
    std::string file;
    std::vector<std::string> bases;
  };
  struct FieldSpan {
    std::string from, to;
    FieldInfo info;  // info.source: "file@vFROM..vTO"
    bool deprecated = false;
  };
  std::string name;
  std::string library;
  std::vector<Span> spans;  // oldest first
  std::map<std::string, std::vector<FieldSpan>, std::less<>> fields;
};

// A trainer's __init__ over the releases, from the `trainers:` of history_trl.yaml: the positional
// orders and the versions of trainer-keyword renames are derived from it when the knowledge is
// built, and the keywords each release accepts are read from it (Knowledge::trainer_keywords).
struct TrainerHistory {
  struct Span {
    std::string from, to;
    std::string file;
    std::string init_src;      // the file of the __init__ it forwards to or inherits ("" = `file`)
    bool params_known = true;  // false: inherited from a class the history does not follow
  };
  struct ParamSpan {
    std::string from, to;
    int pos = -1;      // position after self; -1 for an alias
    std::string kind;  // pos, posonly, varargs, kw, varkw, alias (accepted by deprecate_kwarg)
    bool required = false;
    bool deprecated = false;
    std::string new_name;  // alias: the parameter it stands for
    std::string source;    // "file@vFROM..vTO"
  };
  std::string name;
  std::vector<Span> spans;  // oldest first
  std::map<std::string, std::vector<ParamSpan>, std::less<>> params;
};

// The releases the history of one library was generated from, oldest first.
struct LibraryHistory {
  std::string library;
  std::vector<std::string> releases;
  std::map<std::string, ClassHistory, std::less<>> classes;
  std::map<std::string, TrainerHistory, std::less<>> trainers;
};

class Knowledge {
 public:
  Knowledge();
  ~Knowledge();
  // The field index points into this object's classes: a copy would point into the original.
  // Moving keeps the classes where they are (std::map moves its nodes).
  Knowledge(const Knowledge&) = delete;
  Knowledge& operator=(const Knowledge&) = delete;
  Knowledge(Knowledge&&) noexcept;
  Knowledge& operator=(Knowledge&&) noexcept;

  // The embedded knowledge; loaded on first use. Throws std::runtime_error on malformed data
  // (a build defect, caught by the test suite).
  static const Knowledge& get();
  // Loads from YAML texts (file name, text): the build-time generator and tests. Throws
  // std::runtime_error on malformed data. Defined in knowledge_yaml.cpp (yaml-cpp).
  static Knowledge from_texts(const std::vector<std::pair<std::string, std::string>>& files);
  // The compact binary form, and back. from_blob throws std::runtime_error on a truncated or
  // malformed blob.
  std::string to_blob() const;
  static Knowledge from_blob(std::string_view blob);
  // The embedded blob, and a 64-bit hash of it (part of the cache key: new knowledge, new results),
  // computed by the generator at build time with fingerprint().
  static std::string_view embedded_blob();
  static std::uint64_t embedded_version();
  // FNV-1a over the bytes.
  static std::uint64_t fingerprint(std::string_view bytes);

  // Finds a class by a qualified name such as `trl.SFTConfig` or `trl.trainer.sft_config.SFTConfig`:
  // the last component names the class, the first must be its package.
  const ClassInfo* find_qualified(std::string_view qualified) const;
  const ClassInfo* find(std::string_view name) const;
  // A field of `cls` or of one of its bases.
  const FieldInfo* field(const ClassInfo& cls, std::string_view name) const;
  // True when `cls` is `ancestor` or derives from it.
  bool derives_from(const ClassInfo& cls, std::string_view ancestor) const;
  const LaunchFlag* launch_flag(std::string_view name) const;
  const AccelerateProfile* accelerate_profile(std::string_view name) const;
  const std::map<std::string, LaunchFlag, std::less<>>& launch_flags() const { return launch_flags_; }
  const std::vector<Rename>& renames() const { return renames_; }
  // Keys of one accelerate config YAML section: "accelerate_yaml" (top level), "fsdp_config",
  // "deepspeed_config", "parallelism_config", "dynamo_config". Null when the section is unknown.
  const std::map<std::string, FieldInfo, std::less<>>* accelerate_section(std::string_view section) const;
  const LibraryReleases* library(std::string_view name) const;
  // The patcher an import of `dotted` (a module name) activates, or null.
  const Patcher* patcher_of_module(std::string_view dotted) const;
  const std::map<std::string, Patcher, std::less<>>& patchers() const { return patchers_; }
  // The entry of patcher `p` for `cls` (or a base of it), or null.
  const PatchedClass* patched_class(const Patcher& p, const ClassInfo& cls) const;
  // True when one of `patchers` makes `cls` (or a base of it) take the argument `name`.
  bool patched_accepts(const std::vector<const Patcher*>& patchers, const ClassInfo& cls, std::string_view name) const;
  // True when one of `patchers` makes field `field` of `cls` accept `value`.
  bool patched_value(const std::vector<const Patcher*>& patchers, const ClassInfo& cls, std::string_view field,
                     std::string_view value) const;
  // The library whose version decides facts about `cls` (its package: trl, transformers, accelerate).
  std::string library_of(std::string_view cls) const;
  const std::map<std::string, ClassInfo, std::less<>>& classes() const { return classes_; }
  // The dataclasses TRL's own script for `trl <command>` parses: the trainer config, the script
  // arguments, ModelConfig, DatasetMixtureConfig. Empty for a command that is not training.
  std::vector<const ClassInfo*> trl_cli_classes(std::string_view command) const;
  // The trainer config class of `trl <command>`, or null.
  const ClassInfo* trl_cli_config(std::string_view command) const;

  // --- Release history (history_*.yaml; defined in history.cpp) ---
  // True when the history of `library` was generated from releases around `version` (between its
  // oldest and newest scanned release).
  bool history_covers(std::string_view library, std::string_view version) const;
  // True when `version` of `library` is judged by the history: older than the release the
  // hand-written field lists describe (LibraryReleases::fields_complete_from), and covered.
  bool judged_by_history(std::string_view library, std::string_view version) const;
  // `cls` as it was at `version` of its library: the fields the history records there, with the
  // package, role and trainer of `cls`, and the bases of that release (looked up in this
  // knowledge). A release the history did not scan is judged at the newest scanned one before it.
  // Null when the history does not cover `version` or the class did not exist then. The class
  // lives as long as this knowledge.
  const ClassInfo* at(const ClassInfo& cls, std::string_view version) const;
  // `cls` with its bases of another library (TrainingArguments under TRL's configs) as release
  // `version` of `library` has them: their fields flattened into the class (its own declarations
  // win), their own bases kept. `cls` itself when it has no such base with a history there. The
  // class lives as long as this knowledge.
  const ClassInfo* with_bases_at(const ClassInfo& cls, std::string_view library, std::string_view version) const;
  // The history of a class, or null.
  const ClassHistory* history(std::string_view cls) const;
  // For a field `cls` lacks at `version`: "added in 0.22.0" or "removed in 0.20.0 (last in
  // 0.19.1)"; "" when the history never had it.
  std::string field_change(std::string_view cls, std::string_view field, std::string_view version) const;
  // What the history shows of the old name of `r` (an argument rename; nothing for a value rename):
  // a config field's ranges, or a trainer's __init__ parameter's.
  RenameHistory rename_history(const Rename& r) const;
  // The __init__ history of a trainer, or null.
  const TrainerHistory* trainer_history(std::string_view cls) const;
  // The keywords `trainer`'s __init__ accepts at `version` of its library, judged at the newest
  // scanned release not after `version` (a patch release between two scanned ones keeps the
  // signature of the one before): its parameters (by position or keyword) and the old names
  // `deprecate_kwarg` maps to them, with the file the signature was read from (`file@vX`).
  // Nothing when the history cannot say: no history of the trainer, a version outside it, a
  // release where the trainer did not exist, an __init__ the history does not follow (inherited
  // from a class outside it), or one that takes **kwargs.
  struct TrainerKeywords {
    std::vector<std::string> names;
    std::string source;
  };
  std::optional<TrainerKeywords> trainer_keywords(std::string_view trainer, std::string_view version) const;

 private:
  void load(const std::string& name, const std::string& text);
  // Fills the versions the knowledge files leave out of the renames from the release history
  // (from_texts, once every file is loaded). A version the files state is kept.
  void derive_rename_versions();
  // Replaces the orders of a class marked `init_positional_history` from the first scanned release
  // on by those the trainer history gives (from_texts).
  void derive_positional_orders();
  // rename_history's answer for a trainer keyword, from the trainer tables (knowledge.cpp).
  RenameHistory trainer_rename_history(const Rename& r, const std::vector<std::string>& lineage) const;
  // Makes room in fields_of_ for every class: called once the classes are all loaded
  // (from_blob, from_texts).
  void index_fields();
  // Every field of a class and of its bases, as field() finds them by a breadth-first search of
  // the bases (the rules and the run builder ask tens of thousands of times per run at 20,000
  // files; the search allocated and compared names along the bases each time). Filled for a
  // class the first time field() is asked about it (a small project asks about a few classes;
  // indexing all of them cost more than its lookups), once even when threads ask together.
  struct FieldIndex {
    std::once_flag filled;
    std::unordered_map<std::string_view, const FieldInfo*> fields;
    // derives_from's answer, the same way: the names of the class and of its bases (TRL008 and
    // TRL009 ask about every rename for every run: a tenth of the rules' time on the corpus).
    std::once_flag lineage_filled;
    std::vector<std::string_view> lineage;
  };
  std::unordered_map<const ClassInfo*, std::unique_ptr<FieldIndex>> fields_of_;
  std::map<std::string, ClassInfo, std::less<>> classes_;
  std::map<std::string, LaunchFlag, std::less<>> launch_flags_;
  std::map<std::string, AccelerateProfile, std::less<>> profiles_;
  std::vector<Rename> renames_;
  std::map<std::string, std::map<std::string, FieldInfo, std::less<>>, std::less<>> accelerate_sections_;
  std::map<std::string, LibraryReleases, std::less<>> libraries_;
  std::map<std::string, Patcher, std::less<>> patchers_;
  // The history, kept in its binary form until first asked (most runs never ask: start-up stays
  // as fast as without it), and the classes at() built, per (class, version).
  struct HistoryStore;
  std::unique_ptr<HistoryStore> history_;
  // The decoded history (decoded on first call).
  const std::map<std::string, LibraryHistory, std::less<>>& histories() const;
};

}  // namespace trl
