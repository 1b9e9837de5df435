// trl-lint: the command-line entry point.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "analyzer/cache/result_cache.hpp"
#include "analyzer/cli/rule_docs.hpp"
#include "analyzer/cli/show_targets.hpp"
#include "analyzer/cli/watch.hpp"
#include "analyzer/config/apply.hpp"
#include "analyzer/config/configuration.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/fix/fixer.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/lsp/server.hpp"
#include "analyzer/pipeline/judge.hpp"
#include "analyzer/pipeline/pipeline.hpp"
#include "analyzer/pipeline/rejudge.hpp"
#include "analyzer/pipeline/suppression.hpp"
#include "analyzer/project/python_environment.hpp"
#include "analyzer/report/baseline.hpp"
#include "analyzer/report/formatters.hpp"
#include "analyzer/report/views.hpp"
#include "analyzer/util/memory.hpp"
#include "analyzer/util/parallel.hpp"
#include "rules/registry.hpp"
#include "rules/support/rule_support.hpp"
#include "rules/tool/tool_rules.hpp"
#include "trl_lint_version.h"  // generated: TRL_LINT_VERSION_STRING (version and commit)

namespace {

std::vector<std::string> split_commas(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const auto& s : in) {
    std::size_t start = 0;
    while (start <= s.size()) {
      auto comma = s.find(',', start);
      std::string part = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!part.empty()) out.push_back(part);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

// The paths named on the command line (default: the working folder). The project each belongs
// to is analysed whole (project_root_of), and only the findings whose primary or related
// locations are in a named file or under a named folder are reported: naming a path filters what
// is reported, it never narrows what is analysed (pre-commit passes the staged files).
struct Focus {
  std::set<std::string> files;    // canonical absolute paths
  std::set<std::string> folders;  // canonical absolute paths, each a project root or below one
  bool everything = true;         // every named folder is a project root: nothing to filter
  bool touches(const trl::Project& project, trl::Span span) const {
    if (!span.valid() || span.file >= project.sources.size()) return false;
    namespace fs = std::filesystem;
    std::error_code ec;
    const trl::SourceFile& f = project.sources.get(span.file);
    std::string p;
    if (f.abs_path.rfind("<skipped>/", 0) == 0) {
      // An entry the walk skipped (a symlink loop, a FIFO) is known by its display path; its
      // folder is resolved, the entry itself never is (it may be a loop).
      const fs::path abs = fs::absolute(f.path, ec).lexically_normal();
      p = (fs::weakly_canonical(abs.parent_path(), ec) / abs.filename()).string();
    } else {
      p = fs::weakly_canonical(f.abs_path, ec).string();
    }
    if (files.count(p)) return true;
    return std::any_of(folders.begin(), folders.end(), [&](const std::string& f) {
      return f == "/" || (p.size() > f.size() && p.compare(0, f.size(), f) == 0 && p[f.size()] == '/');
    });
  }
  bool keeps(const trl::Project& project, const trl::Diagnostic& d) const {
    if (everything || touches(project, d.span)) return true;
    return std::any_of(d.related.begin(), d.related.end(),
                       [&](const trl::RelatedLocation& r) { return touches(project, r.span); });
  }
};

// The projects the named paths belong to, each once and in one order whatever the order of the
// paths (a project inside another named one is analysed as part of it), and the focus on the
// paths. Paths that do not exist are kept as given: the analysis reports them.
std::vector<std::string> scope_of(const std::vector<std::string>& paths, Focus& focus) {
  namespace fs = std::filesystem;
  std::set<std::string> roots;
  std::vector<std::string> missing;
  for (const auto& given : paths) {
    std::error_code ec;
    const fs::path abs = fs::absolute(given, ec).lexically_normal();
    if (ec || !fs::exists(abs, ec)) {
      missing.push_back(given);
      continue;
    }
    std::string canonical = fs::weakly_canonical(abs, ec).string();
    if (canonical.size() > 1 && canonical.back() == '/') canonical.pop_back();
    const std::string root = trl::project_root_of(canonical);
    roots.insert(root);
    if (fs::is_directory(canonical, ec)) {
      focus.folders.insert(canonical);
      if (canonical != root) focus.everything = false;
    } else {
      focus.files.insert(canonical);
      focus.everything = false;
    }
  }
  std::vector<std::string> out;
  for (const auto& r : roots) {
    // Sorted, so a folder comes before the folders inside it.
    const bool inside = std::any_of(out.begin(), out.end(), [&](const std::string& o) {
      return o == "/" || (r.size() > o.size() && r.compare(0, o.size(), o) == 0 && r[o.size()] == '/');
    });
    if (!inside) out.push_back(r);
  }
  out.insert(out.end(), missing.begin(), missing.end());
  return out;
}

struct Analysis {
  trl::Project project;
  std::vector<trl::TrainingRun> runs;  // empty when the findings came from the cache (only the runs built
                                       // again when they came from its parts)
  std::vector<trl::Diagnostic> diags;
  std::size_t run_count = 0;  // the runs judged (also when the findings came from the cache)
  // The result cache that served or stored the findings, kept with them: main() ends without
  // unwinding (see the end of main), which spares freeing its records of every file too.
  std::unique_ptr<trl::cache::ResultCache> cache;
  // Wall time of each stage, for `-v`: the walk and reading, extraction, building the runs,
  // judging them (zero for a stage the cache spared).
  struct Stages {
    std::chrono::steady_clock::duration read{}, extract{}, build{}, judge{};
    bool rejudged = false;  // the cache kept parts: `build` is building and judging what changed
  } stages;
};

// The result cache of one invocation (see analyzer/cache/result_cache.hpp).
struct CacheChoice {
  bool enabled = false;
  std::string dir;         // --cache-dir or TRL_LINT_CACHE_DIR (absolute); empty: config or default
  std::string invocation;  // every option that changes findings
  // What is printed needs the texts of the files findings point into (source lines, SARIF
  // fingerprints, baselines); false when columns are enough (SourceFile::known_columns).
  bool texts_needed = true;
  bool trace = false;  // TRL_LINT_CACHE_TRACE=1: say on stderr whether the cache served the findings
};

std::string cache_dir_for(const CacheChoice& choice, trl::Configuration& config, const std::string& root) {
  if (!choice.dir.empty()) return choice.dir;
  if (const auto& d = config.for_path(root).cache_dir) return d->value;
  return (std::filesystem::path(root) / trl::cache::kDefaultDirName).string();
}

Analysis analyse(trl::LoadOptions options, trl::Configuration& config, const Focus& focus,
                 const CacheChoice& cache_choice = {}) {
  Analysis a;
  // The knowledge is decoded on first use, which is after the files are parsed: decode it on
  // the other core meanwhile (1 ms at the open-r1 size, otherwise spent between parsing and
  // building the runs). Not begun by the end (no thread could be started), it is dropped: the
  // first Knowledge::get() decodes it. With a cache entry on disk, only once the entry missed:
  // findings served from it need no knowledge, and the walk has every core.
  trl::Background<void> knowledge;
  const auto decode_knowledge = [&] {
    if (options.threads != 1 && !knowledge.valid())
      knowledge = trl::Background<void>([] { (void)trl::Knowledge::get(); });
  };
  options.excluded = trl::exclusion(config);
  options.listed = trl::folder_notes(config);
  if (cache_choice.enabled && !cache_choice.dir.empty()) {
    // A cache folder given inside the analysed tree is never analysed itself.
    auto excluded = options.excluded;
    const std::string dir = cache_choice.dir;
    options.excluded = [excluded, dir](const std::string& abs_path) {
      if (abs_path == dir ||
          (abs_path.size() > dir.size() && abs_path.compare(0, dir.size(), dir) == 0 && abs_path[dir.size()] == '/'))
        return true;
      return excluded && excluded(abs_path);
    };
  }
  std::unique_ptr<trl::cache::ResultCache>& cache = a.cache;
  if (!cache_choice.enabled || options.overlay) decode_knowledge();
  // Reads the cache's entry, on another thread while the folders are walked (reading it, then
  // walking, were half of a warm run at 20,000 files). The cache (in `a`) outlives `loading`,
  // which waits for its work when destroyed; when no helper has begun it, get() reads the entry.
  trl::Background<void> loading;
  if (cache_choice.enabled && !options.overlay) {
    // The entry's records of unchanged files spare reading them.
    cache = std::make_unique<trl::cache::ResultCache>(
        cache_dir_for(cache_choice, config, trl::discovery_root(options.paths)), cache_choice.invocation);
    // Without an entry there are no records, and the walk takes no stamps.
    const bool has_entry = cache->has_entry();
    if (options.threads == 1 || !has_entry)
      cache->load();
    else
      loading = trl::Background<void>([&c = *cache] { c.load(); });
    if (has_entry) {
      options.known_since_ns = [&loading, &c = *cache] {
        if (loading.valid()) loading.get();  // rethrows what reading the entry threw
        return c.known_since_ns();
      };
      options.known = [&c = *cache](std::size_t id, const std::string& abs) { return c.known(id, abs); };
    } else {
      decode_knowledge();
    }
  }
  const std::int64_t read_start = trl::cache::now_ns();
  auto mark = std::chrono::steady_clock::now();
  // Adds the time since the last mark to one stage.
  auto lap = [&mark](std::chrono::steady_clock::duration& stage) {
    const auto now = std::chrono::steady_clock::now();
    stage += now - mark;
    mark = now;
  };
  a.project = trl::read_project(options);
  if (loading.valid()) loading.get();  // the entry is read before the cache is used, whatever read_project did
  if (!a.project.missing_paths.empty()) return a;
  bool hit = false;
  std::size_t from_pack = 0;
  if (cache) {
    cache->prepare(a.project, config);
    if (auto diags = cache->lookup(a.project, options, &a.run_count, cache_choice.texts_needed)) {
      a.diags = std::move(*diags);
      hit = true;
    } else {
      decode_knowledge();
      // A miss: the files an analysis needs are read (not the deferred Python files, unless a
      // run reaches them); the key is computed again from what was actually read.
      trl::read_needed(a.project, options);
      cache->prepare(a.project, config);
      // Unchanged files take the facts the last analysis extracted from them.
      from_pack = cache->take_facts(a.project, options.threads);
    }
    if (cache_choice.trace) {
      std::size_t unread = 0;
      for (const auto& f : a.project.facts) unread += f.unread ? 1 : 0;
      std::cerr << "trl-lint: cache " << (hit ? "hit " : "miss ") << cache->entry_path() << " (" << unread << " of "
                << a.project.sources.size() << " files not read)";
      if (!hit) std::cerr << " (" << from_pack << " files' facts from the cache)";
      std::cerr << '\n';
    }
  }
  if (!hit) {
    // What the runs ask the file system outside the project's files is part of the entry's key.
    if (cache) a.project.disk_probes = std::make_shared<trl::DiskProbes>();
    // Each question to the file system asked once in this analysis (the process ends with it).
    a.project.disk_answers = std::make_shared<trl::DiskAnswers>();
    lap(a.stages.read);
    trl::extract_project(a.project, options);
    lap(a.stages.extract);
    trl::configure(a.project, config);
    auto declared = trl::declared_runs(a.project, config);
    // One evaluation per script, shared by the run builder and the rules that read the scripts'
    // constructions (each evaluated every script again).
    a.project.script_cache = std::make_shared<trl::ScriptCache>();
    // The facts are final once the declared runs have reached what they name: the facts pack
    // is written on the other core while the runs are built and judged, which only read them
    // (writing it was a tenth of a run after one file of 20,000 changed). Declared after `a`, it
    // waits for a write begun however this ends; a write not begun by get() is done there.
    trl::Background<bool> facts_written;
    if (cache)
      facts_written =
          trl::Background<bool>([&c = *cache, &p = a.project] { return c.store_facts(p); }, options.threads != 1);
    const trl::Selection selection = trl::selection_of(config);
    // The findings of each run and script, kept in the entry: after a change that added or
    // removed no file and changed no version pin, only the runs and scripts that read a changed
    // file are built and judged again (analyzer/pipeline/rejudge.hpp).
    trl::JudgedParts parts;
    std::optional<trl::cache::ResultCache::Kept> kept;
    if (cache) kept = cache->kept_parts(a.project);
    if (kept) {
      trl::Rejudged again = trl::rejudge(a.project, declared, config, selection, std::move(kept->parts), kept->changed);
      lap(a.stages.build);  // the runs built again and judged
      a.stages.rejudged = true;
      if (cache_choice.trace)
        std::cerr << "trl-lint: cache kept " << again.runs_kept << " of " << again.parts.runs.size() << " runs and "
                  << again.scripts_kept << " of " << again.parts.scripts.size() << " scripts\n";
      a.runs = std::move(again.runs);
      a.diags = std::move(again.diags);
      parts = std::move(again.parts);
      a.run_count = parts.runs.size();
    } else {
      a.runs = trl::build(a.project, config, declared, options.threads);
      lap(a.stages.build);
      a.diags = trl::collect_diagnostics(a.project, a.runs, selection, options.threads, cache ? &parts : nullptr);
      lap(a.stages.judge);
      a.run_count = a.runs.size();
    }
    trl::finish(a.project, config, selection, a.diags);
    // One writer in the cache folder at a time: the pack is done before the entry is written.
    // (What writing the pack threw, it throws here, and the entry is not written.)
    const bool facts_stored = !facts_written.valid() || facts_written.get();
    if (cache && !cache->store(a.project, a.diags, read_start, &parts, a.run_count) && cache_choice.trace)
      std::cerr << "trl-lint: cache not written " << cache->entry_path() << '\n';
    // The facts hold even when the findings are not stored (an analysis that read JSON files).
    if (cache && !facts_stored && cache_choice.trace)
      std::cerr << "trl-lint: cache not written " << cache->facts_path() << '\n';
  }
  std::erase_if(a.diags, [&](const trl::Diagnostic& d) { return !focus.keeps(a.project, d); });
  if (a.project.overlay_file != trl::kNoFile) {
    // Editors ask about one buffer: keep the findings located in it, or related to it.
    std::erase_if(a.diags, [&](const trl::Diagnostic& d) {
      if (d.span.file == a.project.overlay_file) return false;
      for (const auto& r : d.related)
        if (r.span.file == a.project.overlay_file) return false;
      return true;
    });
  }
  return a;
}

// Files named on the command line (pre-commit: the staged files): fixes edit only them. A finding
// reported because it touches a named file may have its fix in another one (TRL501's rename in a
// script, reported through the requirements.txt pin); that fix is left out.
void keep_fixes_in_focus(std::vector<trl::Diagnostic>& diags, const trl::Project& project, const Focus& focus) {
  if (focus.everything) return;
  for (auto& d : diags)
    std::erase_if(d.fixes, [&](const trl::Fix& f) {
      return std::any_of(f.edits.begin(), f.edits.end(),
                         [&](const trl::TextEdit& e) { return !focus.touches(project, e.span); });
    });
}

// --diff: the fixes as a unified diff; nothing is written. Exit 1 when there would be changes.
// --quiet drops the "Would fix N findings" note, as it drops "Fixed N findings".
int print_fix_diff(Analysis& a, const trl::FixOptions& options, const Focus& focus, bool quiet) {
  keep_fixes_in_focus(a.diags, a.project, focus);
  trl::FixPlan plan = trl::plan_fixes(a.diags, a.project, options);
  for (const auto& r : plan.refused) std::cerr << "trl-lint: " << r << '\n';
  std::size_t fixable = std::count(plan.fixed.begin(), plan.fixed.end(), true);
  for (const auto& f : plan.files) {
    const trl::SourceFile& src = a.project.sources.get(f.file);
    // Both sides as on disk (a byte order mark as itself), so that `git apply` takes the patch.
    std::cout << trl::unified_diff(src.path, trl::text_on_disk(src, src.text), trl::text_on_disk(src, f.fixed));
  }
  std::cout.flush();
  if (fixable && !quiet) std::cerr << "Would fix " << fixable << " finding" << (fixable == 1 ? "" : "s") << ".\n";
  return plan.files.empty() ? 0 : 1;
}

// --fix: apply, analyse again, repeat while fixes apply (overlapping fixes wait for a later pass).
// What --fix fixed, for --show-fixes: per file (its path), per `CODE (name)`, how many.
using FixedList = std::map<std::string, std::map<std::string, std::size_t>>;

void record_fixed(FixedList& list, const trl::Project& project, const trl::Diagnostic& d) {
  ++list[project.sources.get(d.span.file).path][d.code + " (" + d.name + ")"];
}

std::size_t apply_fixes(const trl::LoadOptions& options, trl::Configuration& config, const Focus& focus,
                        const trl::FixOptions& fix_options, FixedList& list) {
  std::size_t fixed = 0;
  for (int pass = 0; pass < 10; ++pass) {
    Analysis a = analyse(options, config, focus);
    keep_fixes_in_focus(a.diags, a.project, focus);
    trl::FixPlan plan = trl::plan_fixes(a.diags, a.project, fix_options);
    for (const auto& r : plan.refused) std::cerr << "trl-lint: " << r << '\n';
    std::set<std::size_t> done, failed;
    for (const auto& f : plan.files) {
      const trl::SourceFile& src = a.project.sources.get(f.file);
      const std::string error = trl::write_fixed_file(src, f.fixed);
      if (!error.empty()) std::cerr << "trl-lint: " << src.path << ": " << error << '\n';
      (error.empty() ? done : failed).insert(f.applied.begin(), f.applied.end());
    }
    std::size_t now = 0;
    for (std::size_t i : done)
      if (!failed.count(i)) {
        ++now;
        record_fixed(list, a.project, a.diags[i]);
      }
    fixed += now;
    if (now == 0) break;  // a fix may uncover another finding with a fix: analyse again
    if (pass == 9) std::cerr << "trl-lint: fixes did not converge after 10 passes; please report this\n";
  }
  return fixed;
}

// --add-noqa: a `# noqa: CODE` on the first line of every finding reported, or the code added to a
// `noqa` already there (ruff's --add-noqa), so that a project adopting trl-lint starts from a clean
// check. Each edited file is parsed again first, and written (atomically) only when every comment
// added is read back as a directive on its line and the file reads without a new problem. Returns
// how many codes were added; says on stderr how many findings could take none.
std::size_t add_noqa(const trl::LoadOptions& options, trl::Configuration& config, const Focus& focus) {
  Analysis a = analyse(options, config, focus);
  std::map<trl::FileId, std::map<std::uint32_t, std::vector<std::string>>> lines;
  for (const auto& d : a.diags) {
    // An unused directive is removed (--fix), not silenced.
    if (!d.span.valid() || d.code == trl::tool_rules::kUnusedNoqa || d.span.file >= a.project.sources.size()) continue;
    auto& codes = lines[d.span.file][d.span.start.line];
    if (std::find(codes.begin(), codes.end(), d.code) == codes.end()) codes.push_back(d.code);
  }
  std::size_t added = 0, left = 0;
  for (const auto& [file, by_line] : lines) {
    const trl::SourceFile& src = a.project.sources.get(file);
    std::vector<std::pair<trl::TextEdit, std::size_t>> edits;  // the edit, how many codes it adds
    for (const auto& [line, codes] : by_line) {
      if (auto e = trl::noqa_edit(a.project, file, line, codes))
        edits.emplace_back(std::move(*e), codes.size());
      else
        left += codes.size();
    }
    if (edits.empty()) continue;
    std::string fixed = src.text;
    std::sort(edits.begin(), edits.end(),
              [](const auto& x, const auto& y) { return x.first.span.begin > y.first.span.begin; });
    for (const auto& [e, n] : edits) fixed.insert(e.span.begin, e.replacement);
    // Read back: the same kind of file, parsed from the new text.
    const trl::FileId check = trl::add_file_from_text(a.project, src.path + ".add-noqa", fixed, src.kind);
    bool ok = a.project.facts[check].problems.size() == a.project.facts[file].problems.size();
    for (const auto& [line, codes] : by_line) {
      std::set<std::string> read;
      for (const auto& c : a.project.facts[check].comments)
        if (c.span.start.line == line)
          for (const auto& dir : trl::parse_noqa(c.text, c.span))
            for (const auto& k : dir.codes) read.insert(k.code);
      const bool edited = std::any_of(edits.begin(), edits.end(),
                                      [&, l = line](const auto& e) { return e.first.span.start.line == l; });
      for (const auto& code : codes) ok = ok && (!edited || read.count(code));
    }
    std::size_t codes_here = 0;
    for (const auto& [e, n] : edits) codes_here += n;
    if (!ok) {
      std::cerr << "trl-lint: " << src.path << ": a `noqa` comment there would not be read as one; not changed\n";
      left += codes_here;
      continue;
    }
    const std::string error = trl::write_fixed_file(src, fixed);
    if (!error.empty()) {
      std::cerr << "trl-lint: " << src.path << ": " << error << '\n';
      left += codes_here;
      continue;
    }
    added += codes_here;
  }
  if (left)
    std::cerr << "trl-lint: " << left << (left == 1 ? " finding" : " findings")
              << " could take no `noqa` comment (a JSON file or a notebook, a line continued with a backslash)\n";
  return added;
}

// --fix with --stdin-filename: the fixes go to the text read from stdin, which the caller then
// prints to stdout (as ruff does); no file is written, not even the one stdin stands for. Only
// fixes whose every edit is in that text are applied.
std::size_t fix_stdin(trl::LoadOptions& options, trl::Configuration& config, const Focus& focus,
                      const trl::FixOptions& fix_options, FixedList& list) {
  std::size_t fixed = 0;
  for (int pass = 0; pass < 10; ++pass) {
    Analysis a = analyse(options, config, focus);
    const trl::FileId target = a.project.overlay_file;
    std::erase_if(a.diags, [&](const trl::Diagnostic& d) {
      for (const auto& f : d.fixes)
        for (const auto& e : f.edits)
          if (e.span.file != target) return true;
      return false;
    });
    trl::FixPlan plan = trl::plan_fixes(a.diags, a.project, fix_options);
    for (const auto& r : plan.refused) std::cerr << "trl-lint: " << r << '\n';
    std::size_t now = 0;
    for (auto& f : plan.files)
      if (f.file == target) {
        options.overlay->text = trl::text_on_disk(a.project.sources.get(target), f.fixed);
        now = f.applied.size();
        for (std::size_t i : f.applied) record_fixed(list, a.project, a.diags[i]);
      }
    fixed += now;
    if (now == 0) break;
    if (pass == 9) std::cerr << "trl-lint: fixes did not converge after 10 passes; please report this\n";
  }
  return fixed;
}

// --color auto: FORCE_COLOR (non-empty) colours even a pipe, NO_COLOR (non-empty) never colours
// (no-color.org, force-color.org); otherwise colour on a terminal.
bool use_color(const std::string& choice) {
  if (choice != "auto") return choice == "always";
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char* force = std::getenv("FORCE_COLOR");
  if (force && *force) return true;
  return isatty(STDOUT_FILENO) != 0;
}

// After a usage error: an unknown option close to a known one gets "did you mean".
void suggest_option(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> names;
  for (const CLI::App* a : {&app}) {
    for (const CLI::Option* o : a->get_options())
      for (const auto& l : o->get_lnames()) names.push_back("--" + l);
    for (const CLI::App* sub : a->get_subcommands({}))
      for (const CLI::Option* o : sub->get_options())
        for (const auto& l : o->get_lnames()) names.push_back("--" + l);
  }
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) != 0 || word == "--") continue;
    word = word.substr(0, word.find('='));
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    const std::string near = trl::rules::nearest(word, names);
    if (!near.empty()) std::cerr << "  did you mean `" << near << "` (for `" << word << "`)?\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A SIGCHLD ignored by whatever started trl-lint is inherited across exec, and the kernel then
  // reaps children itself: waitpid could not read how a parse probe ended, and every long text
  // would be reported unchecked (ts::parse).
  ::signal(SIGCHLD, SIG_DFL);
  // A run's heap only grows until it ends (analyzer/util/memory.hpp). Not for the language server,
  // which lives as long as the editor and gives memory back.
  if (std::none_of(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "server"; }))
    trl::prefer_huge_pages();
  CLI::App app{"trl-lint: finds configuration mistakes in TRL / accelerate / transformers training setups"};
  app.set_version_flag("--version", "trl-lint " TRL_LINT_VERSION_STRING);
  std::vector<std::string> paths;
  std::string format = "full";
  std::string color = "auto";
  unsigned threads = 0;
  std::uint64_t max_file_size_mb = 10;
  std::vector<std::string> select, ignore;
  std::vector<std::string> extend_select;
  bool exit_zero = false, quiet = false, statistics = false, verbose = false;
  std::string fail_on;
  std::string stdin_filename, baseline, write_baseline;
  std::string config_file;
  bool isolated = false;
  bool fix = false, unsafe_fixes = false, diff = false, add_noqa_flag = false, show_fixes = false;
  std::string cache_dir;
  bool no_cache = false;
  std::vector<std::string> target_versions;
  app.add_option("paths", paths,
                 "Files or folders to analyse (default: .). Files alone: their whole project is analysed and "
                 "findings touching them are reported");
  app.add_option("--output-format", format, "Output format (default: full)")
      ->check(CLI::IsMember(trl::output_format_names()));
  app.add_option("--color", color, "Colour the output")->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option(
         "--threads", threads,
         "Threads for walking folders, parsing files, building runs and judging them (default: number of cores; "
         "1: all on one thread)")
      ->check(CLI::Range(0u, 256u));
  app.add_option("--max-file-size", max_file_size_mb, "Skip files larger than this many MB (default 10)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{4095}));
  app.add_option("--select", select, "Only these rule codes or prefixes (comma-separated; repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::Join);
  app.add_option("--ignore", ignore, "Skip these rule codes or prefixes (comma-separated; repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::Join);
  app.add_option("--extend-select", extend_select,
                 "Also enable these rule codes or prefixes (comma-separated; repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::Join);
  app.add_flag("--exit-zero", exit_zero, "Exit 0 even when there are findings");
  app.add_option("--fail-on", fail_on,
                 "The least severe finding that makes the exit code 1: error, warning or info (default: info, "
                 "any finding; also `fail-on` in the configuration)")
      ->check(CLI::IsMember({"error", "warning", "info"}));
  auto* config_opt =
      app.add_option("--config", config_file, "Use this configuration file for every file (ignore the others)");
  app.add_flag("--isolated", isolated, "Ignore every configuration file")->excludes(config_opt);
  app.add_flag("--fix", fix, "Apply safe fixes");
  app.add_flag("--add-noqa", add_noqa_flag,
               "Add a `# noqa: CODE` comment for every finding reported (or the code to a `noqa` there), then exit 0");
  app.add_flag("--show-fixes", show_fixes, "With --fix, list what was fixed, file by file");
  app.add_flag("--unsafe-fixes", unsafe_fixes, "With --fix or --diff, also apply fixes marked unsafe");
  app.add_flag("--diff", diff, "Print the fixes as a unified diff and change nothing (exit 1 when there are changes)");
  app.add_flag("-v,--verbose", verbose,
               "Say on stderr which project roots and configuration files were used, whether the result cache "
               "served the findings, and how long the analysis and each of its stages took");
  app.add_flag("-q,--quiet", quiet, "Print the findings only: no summary line, no notes on stderr");
  app.add_flag("--statistics", statistics, "Print how many findings each rule has instead of the findings");
  app.add_option("--stdin-filename", stdin_filename,
                 "Read this file's text from stdin (the rest of the project from disk); report the findings "
                 "that touch it");
  app.add_option("--baseline", baseline, "Report only findings not recorded in this baseline file");
  app.add_option("--write-baseline", write_baseline, "Record the current findings in this baseline file and exit 0");
  app.add_option("--cache-dir", cache_dir,
                 "Folder of the result cache (default: .trl-lint_cache at the project root; also "
                 "TRL_LINT_CACHE_DIR or `cache-dir` in the configuration)");
  app.add_flag("-n,--no-cache", no_cache, "Do not read or write the result cache (also TRL_LINT_NO_CACHE=1)");
  app.add_option("--target-version", target_versions,
                 "Judge against this library version instead of the pins, e.g. trl=0.19.1 (repeatable; "
                 "trl, transformers, accelerate)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  std::string python;
  app.add_option("--python", python,
                 "The Python environment the project runs in: an interpreter (env/bin/python) or the "
                 "environment's folder. The versions installed there are judged (default: $VIRTUAL_ENV, then the "
                 "project's .venv/ or venv/, then $CONDA_PREFIX)");
  std::vector<std::string> exclude, extend_exclude;
  auto* exclude_opt = app.add_option("--exclude", exclude,
                                     "Files and folders not to analyse (globs, comma-separated; repeatable): replaces "
                                     "the configuration's `exclude`")
                          ->expected(1)
                          ->allow_extra_args(false)
                          ->delimiter(',')
                          ->multi_option_policy(CLI::MultiOptionPolicy::Join);
  app.add_option("--extend-exclude", extend_exclude,
                 "Files and folders not to analyse, in addition to the configuration's `exclude` (globs, "
                 "comma-separated; repeatable)")
      ->expected(1)
      ->allow_extra_args(false)
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::Join);
  bool watch_flag = false;
  app.add_flag("--watch", watch_flag, "Check, then check again each time a file of the project changes, until Ctrl-C");
  bool show_settings = false, show_files = false;
  app.add_flag("--show-settings", show_settings,
               "Print the settings that apply to the first path (as `config --show`) and exit");
  app.add_flag("--show-files", show_files, "Print every file that would be analysed, with its kind, and exit");

  std::string rule_code;
  bool rule_all = false;
  auto* rule = app.add_subcommand("rule", "Print a rule's documentation");
  rule->add_option("code", rule_code, "Rule code (TRL101) or name");
  rule->add_flag("--all", rule_all, "List every rule");
  std::string markdown_dir;
  rule->add_option("--markdown-dir", markdown_dir,
                   "Write every rule's documentation as <DIR>/<CODE>.md plus an index README.md");

  std::vector<std::string> run_paths;
  auto* runs_cmd = app.add_subcommand("runs", "List every training run found, one per line");
  runs_cmd->add_option("paths", run_paths, "Files or folders (default: .)");
  std::string run_ref;
  auto* show_cmd = app.add_subcommand("show-run", "Print the effective configuration of one run");
  show_cmd->add_option("run", run_ref, "Run name as `trl-lint runs` prints it (path:line or script path)")->required();
  show_cmd->add_option("--path", run_paths, "Files or folders (default: .)");

  std::string graph_format = "dot";
  auto* graph_cmd = app.add_subcommand("graph", "Print the graph of launchers, scripts and config files");
  graph_cmd->add_option("paths", run_paths, "Files or folders (default: .)");
  graph_cmd->add_option("--format", graph_format, "Graph format")->check(CLI::IsMember({"dot", "mermaid"}));
  bool show_config = false;
  std::string show_path = ".";
  auto* config_cmd = app.add_subcommand("config", "Print the resolved configuration");
  config_cmd->add_flag("--show", show_config, "Print the settings that apply to PATH")->required();
  config_cmd->add_option("path", show_path, "File or folder (default: .)");
  config_cmd->fallthrough();
  // `trl-lint check [PATHS]` is `trl-lint [PATHS]` (ruff's spelling); the options may come before
  // or after the word.
  std::vector<std::string> check_paths;
  auto* check_cmd = app.add_subcommand("check", "Analyse the paths and report findings (the default command)");
  check_cmd->add_option("paths", check_paths, "Files or folders to analyse (default: .)");
  check_cmd->fallthrough();
  bool log_timing = false;
  auto* server_cmd =
      app.add_subcommand("server", "Run the Language Server Protocol server over stdio (editor diagnostics)");
  server_cmd->add_flag("--log-timing", log_timing, "Print each analysis's duration on stderr");

  app.name("trl-lint");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::cerr << "trl-lint: error: " << e.what() << '\n';
    suggest_option(app, argc, argv);
    std::cerr << "Run `trl-lint --help` for the options.\n";
    return 2;
  }
  if (*check_cmd) paths.insert(paths.end(), check_paths.begin(), check_paths.end());

  try {
    if (*rule) {
      if (!markdown_dir.empty()) return trl::write_markdown(markdown_dir);
      if (!rule_all && rule_code.empty()) {
        std::cerr << "trl-lint rule: give a rule code, or --all\n";
        return 2;
      }
      return trl::print_rule(rule_code, rule_all);
    }
    trl::ConfigOptions config_options;
    config_options.isolated = isolated;
    if (!config_file.empty()) config_options.config_file = config_file;
    if (!select.empty()) {
      config_options.command_line.select = split_commas(select);
      // `--select ""` (an unset shell variable) would check nothing and report success.
      if (config_options.command_line.select->empty())
        throw trl::ConfigError("`--select` needs at least one rule code or prefix (`--select ALL` selects every rule)");
    }
    config_options.command_line.extend_select = split_commas(extend_select);
    config_options.command_line.ignore = split_commas(ignore);
    // Repeated and comma-separated globs arrive joined by commas (MultiOptionPolicy::Join).
    if (*exclude_opt) config_options.exclude = split_commas(exclude);
    config_options.extend_exclude = split_commas(extend_exclude);
    {
      std::error_code ec;
      config_options.exclude_base = std::filesystem::current_path(ec).string();
    }
    if (!python.empty()) {
      std::error_code ec;
      const std::string env = trl::environment_of_python_option(std::filesystem::absolute(python, ec).string());
      if (env.empty() || !trl::is_python_environment(env)) {
        std::cerr << "trl-lint: --python " << python
                  << ": not a Python interpreter of an environment (env/bin/python) or an environment's folder "
                     "(one with lib/pythonX.Y/site-packages)\n";
        return 2;
      }
    }
    const trl::EnvironmentHints environment_hints = trl::EnvironmentHints::from_process(python);
    if (*server_cmd) {
      if (config_options.config_file)  // the server works in the workspace folder
        config_options.config_file = std::filesystem::absolute(*config_options.config_file).string();
      trl::lsp::ServerOptions server_options{config_options, log_timing};
      server_options.environment_hints = environment_hints;
      std::ios::sync_with_stdio(false);  // before any use of std::cin / std::cout
      return trl::lsp::run_server(std::cin, std::cout, server_options);
    }
    trl::Configuration config(config_options);
    if (show_settings && !*config_cmd) {
      show_config = true;
      show_path = paths.empty() ? "." : paths.front();
    }
    if (*config_cmd || show_settings) {
      std::error_code ec;
      namespace fs = std::filesystem;
      if (!fs::exists(show_path, ec)) {
        std::cerr << "trl-lint config: " << show_path << ": no such file or directory\n";
        return 2;
      }
      const std::string abs = fs::absolute(show_path, ec).lexically_normal().string();
      trl::print_settings(std::cout, config.for_path(abs), show_path);
      trl::cli::print_targets(std::cout, abs, config, environment_hints);
      return 0;
    }

    if (watch_flag) {
      if (*runs_cmd || *show_cmd || *graph_cmd || diff || add_noqa_flag || !stdin_filename.empty() ||
          !write_baseline.empty() || show_files) {
        std::cerr << "trl-lint: --watch checks the project; it cannot be combined with a subcommand, --diff, "
                     "--add-noqa, --stdin-filename, --write-baseline or --show-files\n";
        return 2;
      }
      trl::WatchOptions w;
      {
        // The check is this binary itself (argv[0] may be a bare name found on the PATH).
        std::error_code ec;
        const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
        w.command.push_back(ec ? std::string(argv[0]) : self.string());
      }
      for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) != "--watch" && std::string_view(argv[i]).rfind("--watch=", 0) != 0)
          w.command.push_back(argv[i]);
      std::set<std::string> roots;
      for (const auto& p : paths.empty() ? std::vector<std::string>{"."} : paths) {
        std::error_code ec;
        roots.insert(
            trl::project_root_of(std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec).string()));
      }
      w.roots.assign(roots.begin(), roots.end());
      w.excluded = trl::exclusion(config);
      w.clear_screen = isatty(STDOUT_FILENO) != 0;
      return trl::watch(w);
    }
    trl::LoadOptions options;
    if (!paths.empty()) options.paths = paths;
    if ((*runs_cmd || *show_cmd || *graph_cmd) && !run_paths.empty()) options.paths = run_paths;
    options.threads = threads;
    options.max_file_size = max_file_size_mb << 20;
    std::map<std::string, std::string, std::less<>> targets;
    for (const auto& t : split_commas(target_versions)) {
      auto parsed = trl::parse_target_option(t);
      if (!parsed) {
        std::cerr << "trl-lint: --target-version expects LIBRARY=VERSION (trl, transformers, accelerate), got `" << t
                  << "`\n";
        return 2;
      }
      targets[parsed->first] = parsed->second;
    }
    options.target_versions = std::move(targets);
    options.environment_hints = environment_hints;
    Focus focus;
    if (!*runs_cmd && !*show_cmd && !*graph_cmd && (!paths.empty() || stdin_filename.empty()))
      options.paths = scope_of(options.paths, focus);
    if (!stdin_filename.empty()) {
      // Without folders to analyse, the project is the one the file belongs to (its repository),
      // not the working folder: an editor may run the tool from the buffer's folder, or from
      // anywhere (ruff resolves the stdin file's settings from its path too).
      if (paths.empty() && run_paths.empty()) {
        namespace fs = std::filesystem;
        std::error_code ec;
        options.paths = {trl::project_root_of(fs::weakly_canonical(fs::absolute(stdin_filename, ec), ec).string())};
      }
      std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
      options.overlay = trl::Overlay{stdin_filename, std::move(text)};
    }
    if (add_noqa_flag) {
      if (fix || diff || options.overlay) {
        std::cerr << "trl-lint: --add-noqa cannot be combined with --fix, --diff or --stdin-filename\n";
        return 2;
      }
      const std::size_t added = add_noqa(options, config, focus);
      if (!quiet) std::cerr << "Added " << added << " noqa " << (added == 1 ? "directive" : "directives") << ".\n";
      return 0;
    }
    const trl::FixOptions fix_options{unsafe_fixes};
    std::size_t fixed = 0;
    FixedList fixed_list;
    const bool fix_stdin_text = fix && !diff && options.overlay;
    if (fix_stdin_text)
      fixed = fix_stdin(options, config, focus, fix_options, fixed_list);
    else if (fix && !diff)
      fixed = apply_fixes(options, config, focus, fix_options, fixed_list);
    // The result cache serves the findings of a plain check; the views need the runs themselves,
    // and --fix / --diff / --stdin-filename always analyse afresh.
    CacheChoice cache;
    const char* no_cache_env = std::getenv("TRL_LINT_NO_CACHE");
    cache.enabled = !no_cache && !(no_cache_env && *no_cache_env && std::string(no_cache_env) != "0") && !*runs_cmd &&
                    !*show_cmd && !*graph_cmd && !fix && !diff && !options.overlay && !show_files;
    if (cache.enabled) {
      const char* env_dir = std::getenv("TRL_LINT_CACHE_DIR");
      if (cache_dir.empty() && env_dir && *env_dir) cache_dir = env_dir;
      std::error_code ec;
      if (!cache_dir.empty()) cache.dir = std::filesystem::absolute(cache_dir, ec).lexically_normal().string();
      if (!cache.dir.empty() && cache.dir.size() > 1 && cache.dir.back() == '/') cache.dir.pop_back();
      std::string inv = trl::cache::build_identity();
      inv += "\nknowledge " + std::to_string(trl::Knowledge::embedded_version());
      inv += "\nprefilter " + std::to_string(trl::prefilter_enabled());
      inv += "\ncwd " + std::filesystem::current_path(ec).string();
      for (const auto& p : options.paths) inv += "\npath " + p;
      inv += "\nisolated " + std::to_string(isolated) + "\nconfig " + config_file;
      inv += "\nmax-file-size " + std::to_string(options.max_file_size);
      for (const auto& [lib, version] : options.target_versions) inv += "\ntarget-version " + lib + "=" + version;
      inv += "\npython " + environment_hints.python + "\nvirtual-env " + environment_hints.virtual_env +
             "\nconda-prefix " + environment_hints.conda_prefix;
      if (!select.empty()) inv += "\nselect-given";
      if (!select.empty())
        for (const auto& c : split_commas(select)) inv += "\nselect " + c;
      for (const auto& c : split_commas(extend_select)) inv += "\nextend-select " + c;
      for (const auto& c : split_commas(ignore)) inv += "\nignore " + c;
      if (*exclude_opt)
        for (const auto& g : exclude) inv += "\nexclude " + g;
      for (const auto& g : extend_exclude) inv += "\nextend-exclude " + g;
      cache.invocation = std::move(inv);
      const char* trace = std::getenv("TRL_LINT_CACHE_TRACE");
      cache.trace = verbose || (trace && *trace && std::string(trace) != "0");
      // Columns are all that the concise, JSON and GitHub formats and --statistics print of a file.
      const auto printed = trl::parse_output_format(format);
      const bool columns_only =
          statistics ||
          (printed && (*printed == trl::OutputFormat::Concise || *printed == trl::OutputFormat::Json ||
                       *printed == trl::OutputFormat::JsonLines || *printed == trl::OutputFormat::Github));
      cache.texts_needed = !columns_only || !baseline.empty() || !write_baseline.empty();
    }
    const auto started = std::chrono::steady_clock::now();
    Analysis a = analyse(options, config, focus, cache);
    trl::Project& project = a.project;
    if (verbose && project.missing_paths.empty()) {
      for (const auto& root : project.roots.empty() ? std::vector<std::string>{project.root} : project.roots) {
        const trl::Settings& s = config.for_folder(root);
        std::cerr << "trl-lint: project " << root << "; configuration: ";
        if (s.files.empty()) std::cerr << "none (defaults)";
        for (std::size_t i = 0; i < s.files.size(); ++i) std::cerr << (i ? ", " : "") << s.files[i];
        std::cerr << '\n';
      }
      std::cerr
          << "trl-lint: " << project.sources.size() << (project.sources.size() == 1 ? " file, " : " files, ")
          << a.run_count << (a.run_count == 1 ? " run" : " runs") << ", analysed in "
          << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count()
          << " ms\n";
      const auto ms = [](std::chrono::steady_clock::duration d) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
      };
      if (a.stages.extract.count() > 0)
        std::cerr << "trl-lint: stages: walk and read " << ms(a.stages.read) << " ms, extract " << ms(a.stages.extract)
                  << (a.stages.rejudged ? " ms, build and judge what changed " : " ms, build runs ")
                  << ms(a.stages.build) << " ms"
                  << (a.stages.rejudged ? std::string() : ", rules " + std::to_string(ms(a.stages.judge)) + " ms")
                  << "\n";
    }
    if (!project.missing_paths.empty()) {
      for (const auto& p : project.missing_paths) std::cerr << "trl-lint: " << p << ": no such file or directory\n";
      return 2;
    }
    const auto& runs = a.runs;
    if (show_files) {
      std::vector<std::string> lines;
      for (std::size_t id = 0; id < project.sources.size(); ++id) {
        const auto& f = project.sources.get(static_cast<trl::FileId>(id));
        lines.push_back(f.path + "  (" + trl::to_string(f.kind) + ")");
      }
      std::sort(lines.begin(), lines.end());
      for (const auto& l : lines) std::cout << l << '\n';
      return 0;
    }
    if (*runs_cmd) {
      trl::print_runs(std::cout, runs, project);
      return 0;
    }
    if (*graph_cmd) {
      trl::print_graph(std::cout, runs, project, graph_format);
      return 0;
    }
    if (*show_cmd) {
      for (const auto& r : runs)
        if (r.name == run_ref) {
          trl::print_run(std::cout, r, project);
          return 0;
        }
      std::cerr << "trl-lint show-run: no run named `" << run_ref << "` (see `trl-lint runs`)\n";
      return 2;
    }
    if (diff) {
      const int changes = print_fix_diff(a, fix_options, focus, quiet);
      return exit_zero ? 0 : changes;
    }
    auto& diags = a.diags;
    // --write-baseline records every current finding, also with --baseline (updating a baseline
    // in place keeps what it had accepted).
    if (!baseline.empty() && write_baseline.empty()) trl::apply_baseline(baseline, diags, project);
    if (!write_baseline.empty()) {
      trl::write_baseline(write_baseline, diags, project);
      if (!quiet)
        std::cerr << "trl-lint: recorded " << diags.size() << " finding" << (diags.size() == 1 ? "" : "s") << " in "
                  << write_baseline << '\n';
      return 0;
    }
    const trl::OutputFormat output = *trl::parse_output_format(format);
    // With --fix on stdin, stdout carries the fixed text and the findings go to stderr.
    std::ostream& findings_out = fix_stdin_text ? std::cerr : std::cout;
    if (statistics) {
      trl::print_statistics(findings_out, diags,
                            output == trl::OutputFormat::Json || output == trl::OutputFormat::JsonLines);
    } else {
      trl::ReportOptions report;
      report.color = use_color(color);
      trl::print_report(findings_out, output, diags, project, report);
    }
    if (fix_stdin_text) std::cout << options.overlay->text;
    if (fixed && !quiet) {
      std::cerr << "Fixed " << fixed << " finding" << (fixed == 1 ? "" : "s") << (show_fixes ? ":" : ".") << '\n';
      // --show-fixes: what was fixed, file by file (as ruff lists it).
      if (show_fixes)
        for (const auto& [path, codes] : fixed_list) {
          std::cerr << "- " << trl::printable(path) << ":\n";
          for (const auto& [code, count] : codes) std::cerr << "    " << count << " x " << code << '\n';
        }
    }
    if (!quiet) {
      std::cout.flush();  // the findings before the summary, when both go to one terminal
      std::cerr << trl::summary_line(project.sources.size(), a.run_count, diags) << '\n';
    }
    std::cout.flush();
    std::cerr.flush();
    // --fail-on, else the root configuration's `fail-on`, else any finding fails.
    trl::Severity fail_at = trl::Severity::Info;
    if (!fail_on.empty())
      fail_at = fail_on == "error"     ? trl::Severity::Error
                : fail_on == "warning" ? trl::Severity::Warning
                                       : trl::Severity::Info;
    else if (const auto& configured = config.for_path(trl::discovery_root(options.paths)).fail_on)
      fail_at = configured->value;
    const bool failing = std::any_of(diags.begin(), diags.end(), [&](const trl::Diagnostic& d) {
      return static_cast<int>(d.severity) <= static_cast<int>(fail_at);
    });
    const int code = !failing || exit_zero ? 0 : 1;
    // Everything is written (reports, fixes, the cache entry). The analysis holds every file's
    // text and facts: freeing it one allocation at a time took a tenth of a cached run over
    // 20,000 files, so the process ends here without unwinding, as compilers do
    // (clang -disable-free). Nothing of ours waits for a destructor.
    std::fflush(nullptr);
    std::_Exit(code);
  } catch (const trl::BaselineError& e) {
    std::cerr << "trl-lint: " << e.what() << '\n';
    return 2;
  } catch (const trl::ConfigError& e) {
    std::cerr << "trl-lint: error: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "trl-lint: internal error: " << e.what() << '\n';
    return 2;
  }
}
