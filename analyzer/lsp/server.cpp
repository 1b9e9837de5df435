#include "analyzer/lsp/server.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "analyzer/config/apply.hpp"
#include "analyzer/config/config_file.hpp"
#include "analyzer/eval/run_builder.hpp"
#include "analyzer/eval/version_targets.hpp"
#include "analyzer/fix/fixer.hpp"
#include "analyzer/json/json_extractor.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/lsp/documents.hpp"
#include "analyzer/lsp/framing.hpp"
#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/pipeline/judge.hpp"
#include "analyzer/pipeline/pipeline.hpp"
#include "analyzer/pipeline/rule_context_builder.hpp"
#include "analyzer/pipeline/suppression.hpp"
#include "rules/registry.hpp"

namespace trl::lsp {

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// JSON-RPC and LSP error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;

struct RpcError {
  int code;
  std::string message;
};

const RuleInfo* rule_info(std::string_view code) {
  return find_rule_info(code);
}

std::string rule_markdown(const RuleInfo& i) {
  return "### " + i.code + " " + i.name + "\n\n" + i.summary + "\n\n" + i.doc + "\n\n[Documentation](" +
         rule_doc_url(i.code) + ")";
}

int lsp_severity(Severity s) {
  switch (s) {
    case Severity::Error: return 1;
    case Severity::Warning: return 2;
    case Severity::Info: return 3;
  }
  return 1;
}

// A message nested deeper than this is refused before it is parsed (trl::json::nesting).
constexpr std::size_t kMaxNesting = 512;

// A `\uD83D` escape with no low surrogate after it (or a low one alone) is valid JSON text
// (RFC 8259 section 8.2) that some clients send (JavaScript strings may hold one) and nlohmann
// refuses: each becomes `\uFFFD`, the replacement character, so that the message is read.
void replace_lone_surrogates(std::string& body) {
  auto hex4 = [&](std::size_t at) -> int {
    if (at + 4 > body.size()) return -1;
    int v = 0;
    for (std::size_t k = at; k < at + 4; ++k) {
      const char c = body[k];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  };
  for (std::size_t i = 0; i + 1 < body.size(); ++i) {
    if (body[i] != '\\') continue;
    if (body[i + 1] != 'u') {
      ++i;  // `\\`, `\"`, ...: the next character is escaped
      continue;
    }
    const int v = hex4(i + 2);
    if (v < 0xD800 || v > 0xDFFF) continue;
    const bool paired = v <= 0xDBFF && i + 7 < body.size() && body[i + 6] == '\\' && body[i + 7] == 'u' &&
                        hex4(i + 8) >= 0xDC00 && hex4(i + 8) <= 0xDFFF;
    if (paired) {
      i += 11;  // both halves
      continue;
    }
    body.replace(i + 2, 4, "FFFD");
    i += 5;
  }
}

bool comments_with_hash(FileKind k) {
  return k == FileKind::Python || k == FileKind::Yaml || k == FileKind::Shell || k == FileKind::Makefile;
}

class Server {
 public:
  Server(std::istream& in, std::ostream& out, const ServerOptions& options) : in_(in), out_(out), options_(options) {}

  int run() {
    while (true) {
      Frame f = read_frame(in_);
      if (f.status == Frame::Status::Eof) return 1;  // the client went away without `exit`
      if (f.status == Frame::Status::BadHeader) {
        send_error(nullptr, kParseError, f.error);
        continue;
      }
      if (trl::json::nesting(f.body) > kMaxNesting) {
        // No LSP message nests this deep; nlohmann's copies and comparisons recurse, so such a
        // message could exhaust the stack wherever it is handled.
        send_error(nullptr, kParseError, "invalid JSON: nested deeper than " + std::to_string(kMaxNesting) + " levels");
        continue;
      }
      replace_lone_surrogates(f.body);
      json msg = json::parse(f.body, nullptr, false);
      if (msg.is_discarded()) {
        send_error(nullptr, kParseError, "invalid JSON");
        continue;
      }
      if (!msg.is_object()) {
        send_error(nullptr, kInvalidRequest, "a message must be a JSON object");
        continue;
      }
      if (auto code = dispatch(msg)) return *code;
    }
  }

 private:
  std::istream& in_;
  std::ostream& out_;
  ServerOptions options_;
  bool initialized_ = false;
  bool shutdown_ = false;
  std::set<std::string> unknown_changed_;  // uris of changes to documents not open, already shown
  // The workspace root as the client named it, when that is not root_ (a symlink on the way).
  std::string client_root_;
  mutable std::map<std::string, FileId> doc_files_;  // open document uri -> its file in project_
  std::string root_;
  std::unique_ptr<Configuration> config_;
  std::optional<Project> project_;
  std::vector<DeclaredRun> declared_;
  LoadOptions load_options_;  // of the last load (JSON files a script names are read with them)
  Selection selection_;
  // The runs, ordered by origin as build_runs orders them, with the files each reads and its
  // findings (before selection, settings and suppressions).
  std::vector<TrainingRun> runs_;
  std::vector<std::set<FileId>> run_files_;
  std::vector<std::vector<Diagnostic>> run_diags_;
  // The findings of each evaluated script, kept until its evaluation is dropped (it or a module
  // it read changed); of each file judged as a file, kept until it changes or its uses do.
  std::map<FileId, std::vector<Diagnostic>> script_diags_;
  struct FileFindings {
    FileUses uses;
    std::vector<Diagnostic> diags;
  };
  std::map<FileId, FileFindings> file_diags_;
  std::vector<FileId> imported_;           // imported_modules after the last analysis
  std::vector<Diagnostic> diags_;          // the findings shown
  std::map<std::string, json> published_;  // uri -> the diagnostics last published (non-empty only)
  DocumentStore docs_;
  std::map<std::string, ts::Tree> trees_;  // uri -> the open document's last syntax tree
  ServerStats own_stats_;
  ServerStats& stats_ = options_.stats ? *options_.stats : own_stats_;

  // --- output ---
  void send(const json& j) { write_frame(out_, j.dump(-1, ' ', false, json::error_handler_t::replace)); }
  void send_error(const json& id, int code, const std::string& message) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
  }
  void notify(const std::string& method, json params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  void show(int type, const std::string& message) {
    notify("window/showMessage", {{"type", type}, {"message", "trl-lint: " + message}});
  }

  // Returns an exit code when the server must stop.
  std::optional<int> dispatch(const json& msg) {
    const bool is_request = msg.contains("id");
    // Checked before it is copied: an id is a string, an integer or null.
    if (is_request && !msg["id"].is_string() && !msg["id"].is_number_integer() && !msg["id"].is_null()) {
      send_error(nullptr, kInvalidRequest, "invalid id");
      return std::nullopt;
    }
    const json id = is_request ? msg["id"] : json();
    if (!msg.contains("method") || !msg["method"].is_string()) {
      if (is_request && !msg.contains("result") && !msg.contains("error"))
        send_error(id, kInvalidRequest, "missing method");
      return std::nullopt;  // a response to a request of ours: nothing to do
    }
    const std::string method = msg["method"];
    static const json kNoParams = json::object();
    const json& params = msg.contains("params") ? msg["params"] : kNoParams;  // not copied
    if (method == "exit") return shutdown_ ? 0 : 1;
    try {
      if (is_request) {
        if (!initialized_ && method != "initialize") throw RpcError{kServerNotInitialized, "not initialized"};
        if (shutdown_) throw RpcError{kInvalidRequest, "the server is shut down"};
        json result = request(method, params);
        send({{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
      } else if (initialized_ && !shutdown_) {
        notification(method, params);
      }
    } catch (const RpcError& e) {
      if (is_request)
        send_error(id, e.code, e.message);
      else
        show(1, method + ": " + e.message);
    } catch (const json::exception& e) {
      if (is_request)
        send_error(id, kInvalidParams, std::string("invalid params: ") + e.what());
      else
        show(1, method + ": invalid params: " + e.what());
    } catch (const std::exception& e) {
      if (is_request)
        send_error(id, kInternalError, e.what());
      else
        show(1, method + ": internal error: " + e.what());
    }
    return std::nullopt;
  }

  json request(const std::string& method, const json& params) {
    if (method == "initialize") return initialize(params);
    if (method == "shutdown") {
      shutdown_ = true;
      return nullptr;
    }
    if (method == "textDocument/diagnostic") return pull_diagnostics(params);
    if (method == "textDocument/codeAction") return code_actions(params);
    if (method == "textDocument/hover") return hover(params);
    throw RpcError{kMethodNotFound, "unknown method " + method};
  }

  void notification(const std::string& method, const json& params) {
    if (method == "initialized") return;
    if (method == "textDocument/didOpen") return did_open(params);
    if (method == "textDocument/didChange") return did_change(params);
    if (method == "textDocument/didSave") return did_save(params);
    if (method == "textDocument/didClose") return did_close(params);
    if (method == "workspace/didChangeWatchedFiles") return watched_files_changed(params);
    if (method == "workspace/didChangeConfiguration") {
      reload_workspace();
      return;
    }
    // Unknown notifications (`$/cancelRequest`, ...) are ignored, as the protocol asks.
  }

  // --- lifecycle ---
  json initialize(const json& params) {
    if (initialized_) throw RpcError{kInvalidRequest, "initialize sent twice"};
    std::string root;
    if (params.contains("rootUri") && params["rootUri"].is_string())
      root = uri_to_path(params["rootUri"].get<std::string>());
    if (root.empty() && params.contains("workspaceFolders") && params["workspaceFolders"].is_array() &&
        !params["workspaceFolders"].empty())
      root = uri_to_path(params["workspaceFolders"][0].value("uri", ""));
    if (root.empty() && params.contains("rootPath") && params["rootPath"].is_string()) root = params["rootPath"];
    if (!options_.fixed_root.empty()) root = options_.fixed_root;
    std::error_code ec;
    if (!root.empty() && fs::is_directory(root, ec)) {
      root_ = fs::weakly_canonical(root, ec).string();
      std::string given = fs::path(root).lexically_normal().string();
      while (given.size() > 1 && given.back() == '/') given.pop_back();
      if (given != root_ && !given.empty() && given.front() == '/') client_root_ = given;
      fs::current_path(root_, ec);  // paths in messages relative to the workspace, as the CLI shows them
    }
    initialized_ = true;
    config_ = std::make_unique<Configuration>(options_.config);
    if (!root_.empty()) reload_workspace(false);
    // Diagnostics are pushed only. A server that also offers pull diagnostics (diagnosticProvider)
    // gets each finding twice in clients that take both: vscode-languageclient 9 keeps pushed and
    // pulled ones in two collections, and Problems lists both (microsoft/language-server-protocol
    // issue 1743). A textDocument/diagnostic request is still answered.
    return {{"capabilities",
             {{"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
              {"codeActionProvider", {{"codeActionKinds", {"quickfix", "source.fixAll.trl-lint"}}}},
              {"hoverProvider", true}}},
            {"serverInfo", {{"name", "trl-lint"}, {"version", TRL_LINT_VERSION}}}};
  }

  // --- analysis ---
  // Loads every file again (discovery, config) with the open documents in place of the disk.
  void reload_workspace(bool publish_after = true) {
    try {
      config_ = std::make_unique<Configuration>(options_.config);
    } catch (const ConfigError& e) {
      show(1, e.what());
    }
    LoadOptions options;
    std::string root = root_;
    if (root.empty() && !docs_.all().empty()) root = project_root_of(docs_.all().begin()->second.path);
    if (root.empty()) {
      project_.reset();
      diags_.clear();
      if (publish_after) publish();
      return;
    }
    options.paths = {root};
    for (const auto& [uri, d] : docs_.all()) options.overlays.push_back(Overlay{d.path, d.text});
    options.excluded = exclusion(*config_);
    options.prefilter = false;
    options.environment_hints = options_.environment_hints;
    load_options_ = options;
    load_options_.overlays.clear();
    doc_files_.clear();
    try {
      project_ = load_project(options);
      project_->script_cache = std::make_shared<ScriptCache>();
    } catch (const std::exception& e) {
      show(1, std::string("cannot load the workspace: ") + e.what());
      project_.reset();
    }
    analyse();
    if (publish_after) publish();
  }

  // Builds every run and judges it.
  void analyse() {
    runs_.clear();
    run_files_.clear();
    run_diags_.clear();
    script_diags_.clear();
    file_diags_.clear();
    imported_.clear();
    diags_.clear();
    if (!project_) return;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      configure(*project_, *config_);
      declared_ = declared_runs(*project_, *config_);
      selection_ = selection_of(*config_);
      add_runs(build(*project_, *config_, declared_, 1));
      imported_ = imported_modules(*project_, Knowledge::get());
      finish();
      ++stats_.full_analyses;
      stats_.runs_total = runs_.size();
      if (project_->script_cache) stats_.scripts_evaluated = project_->script_cache->evaluated;
    } catch (const ConfigError& e) {
      diags_.clear();
      show(1, e.what());
    }
    log_timing("analysed", runs_.size(), t0);
  }

  // File `changed` has new facts: rebuilds and judges again only the runs it takes part in
  // (and those it now starts), then republishes every file of those runs. A file's version
  // pins of trl/transformers/accelerate (requirements.txt, pyproject.toml, ...) set the versions
  // every run below its folder is judged against, and the pins' places appear in findings, while
  // the file is in no run's files: when its pins differ from `old_pins` (before the change),
  // every run is judged again.
  void reanalyse(FileId changed, const std::vector<PackagePin>& old_pins) {
    if (!project_) return;
    if (project_->script_cache)
      for (FileId script : project_->script_cache->invalidate(changed)) script_diags_.erase(script);
    script_diags_.erase(changed);
    file_diags_.erase(changed);
    if (old_pins != project_->facts[changed].pins) {
      analyse();
      stats_.runs_rebuilt = runs_.size();
      publish();
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::set<FileId> touched{changed};
    RunScope scope;
    scope.scripts.insert(changed);
    for (std::size_t i = 0; i < project_->facts[changed].commands.size(); ++i) scope.launches.insert({changed, i});
    // A file the edited one starts or stops importing may stop or start being an entry script (a
    // settings module, imported_modules): its own run goes, or is built.
    std::vector<FileId> imported = imported_modules(*project_, Knowledge::get());
    std::set<FileId> moved;
    std::set_symmetric_difference(imported_.begin(), imported_.end(), imported.begin(), imported.end(),
                                  std::inserter(moved, moved.end()));
    imported_ = std::move(imported);
    for (FileId id : moved) {
      scope.scripts.insert(id);
      touched.insert(id);
    }
    std::vector<bool> affected(runs_.size(), false);
    // A launch command (or declared run, or script) is built whole: when one of its runs reads
    // the file, all of its runs are built again (kept, the others would be there twice).
    std::set<RunOrigin> affected_origins;
    for (std::size_t i = 0; i < runs_.size(); ++i) {
      const RunOrigin& o = runs_[i].origin;
      if (run_files_[i].count(changed) || (o.kind != RunOrigin::Kind::Declared && o.file == changed) ||
          (o.kind == RunOrigin::Kind::Script && moved.count(o.file)))
        affected_origins.insert(o);
    }
    for (std::size_t i = 0; i < runs_.size(); ++i) {
      const RunOrigin& o = runs_[i].origin;
      affected[i] = affected_origins.count(o) > 0;
      if (!affected[i]) continue;
      touched.insert(run_files_[i].begin(), run_files_[i].end());
      if (o.kind == RunOrigin::Kind::Launch && o.file != changed) scope.launches.insert({o.file, o.index});
      if (o.kind == RunOrigin::Kind::Declared) scope.declared.insert(o.index);
      if (o.kind == RunOrigin::Kind::Script) scope.scripts.insert(o.file);
      // A script an affected launch started may now run on its own.
      if (runs_[i].script != kNoFile) scope.scripts.insert(runs_[i].script);
    }
    for (std::size_t i = 0; i < runs_.size(); ++i)
      if (!affected[i] && runs_[i].origin.kind != RunOrigin::Kind::Script && runs_[i].script != kNoFile)
        scope.launched.insert(runs_[i].script);
    std::size_t rebuilt = 0;
    try {
      std::vector<TrainingRun> fresh = build(*project_, *config_, declared_, scope);
      rebuilt = fresh.size();
      // Scripts the new launches start no longer run on their own.
      std::set<FileId> now_launched;
      for (const auto& r : fresh)
        if (r.origin.kind != RunOrigin::Kind::Script && r.script != kNoFile) now_launched.insert(r.script);
      for (std::size_t i = 0; i < runs_.size(); ++i)
        if (runs_[i].origin.kind == RunOrigin::Kind::Script && now_launched.count(runs_[i].origin.file)) {
          affected[i] = true;
          touched.insert(run_files_[i].begin(), run_files_[i].end());
        }
      std::size_t kept = 0;
      for (std::size_t i = 0; i < runs_.size(); ++i) {
        if (affected[i]) continue;
        if (kept != i) {
          runs_[kept] = std::move(runs_[i]);
          run_files_[kept] = std::move(run_files_[i]);
          run_diags_[kept] = std::move(run_diags_[i]);
        }
        ++kept;
      }
      runs_.resize(kept);
      run_files_.resize(kept);
      run_diags_.resize(kept);
      const std::size_t first_new = runs_.size();
      add_runs(std::move(fresh));
      for (std::size_t i = first_new; i < runs_.size(); ++i) touched.insert(run_files_[i].begin(), run_files_[i].end());
      order_runs();
      finish();
      stats_.runs_rebuilt = rebuilt;
      stats_.runs_total = runs_.size();
      if (project_->script_cache) stats_.scripts_evaluated = project_->script_cache->evaluated;
    } catch (const ConfigError& e) {
      show(1, e.what());
    }
    log_timing("re-evaluated " + std::to_string(rebuilt) + " runs of", runs_.size(), t0);
    const auto t1 = std::chrono::steady_clock::now();
    publish(touched);
    if (options_.log_timing)
      std::cerr << "trl-lint server: published in "
                << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count() << " ms\n";
  }

  void log_timing(const std::string& what, std::size_t runs, std::chrono::steady_clock::time_point t0) const {
    if (!options_.log_timing) return;
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << "trl-lint server: " << what << " " << runs << " runs (" << project_->sources.size() << " files) in "
              << ms << " ms\n";
  }

  // Judges runs built by build() (they carry their target versions) and keeps them.
  void add_runs(std::vector<TrainingRun> fresh) {
    std::vector<FileId> anchors;
    anchors.reserve(fresh.size());
    for (const auto& r : fresh) anchors.push_back(r.version_anchor());
    const RuleContext context = make_rule_context(*project_, anchors);
    for (auto& r : fresh) {
      run_files_.push_back(run_files(r));
      run_diags_.emplace_back();
      run_diagnostics(*project_, context, r, selection_, run_diags_.back());
      runs_.push_back(std::move(r));
    }
  }

  // The order of a full build (launches by file and command, declared runs, scripts), so that
  // a finding reached through several runs keeps the same one of its copies.
  void order_runs() {
    std::vector<std::size_t> order(runs_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return runs_[a].origin < runs_[b].origin; });
    std::vector<TrainingRun> runs;
    std::vector<std::set<FileId>> files;
    std::vector<std::vector<Diagnostic>> diags;
    for (std::size_t i : order) {
      runs.push_back(std::move(runs_[i]));
      files.push_back(std::move(run_files_[i]));
      diags.push_back(std::move(run_diags_[i]));
    }
    runs_ = std::move(runs);
    run_files_ = std::move(files);
    run_diags_ = std::move(diags);
  }

  // The findings shown: file problems, every run's, every script's, every file's (the kept ones,
  // the others judged now); then the selection, the settings of each file's configuration and
  // the `noqa` comments.
  void finish() {
    diags_.clear();
    const VersionTargetsMemo memo(*project_);  // one pin search for the scripts and files judged now
    const RuleContext context = make_rule_context(*project_);
    std::set<FileId> read;
    for (const auto& files : run_files_) read.insert(files.begin(), files.end());
    file_problem_diagnostics(*project_, read, diags_);
    for (const auto& d : run_diags_) diags_.insert(diags_.end(), d.begin(), d.end());
    for_each_script(*project_, Knowledge::get(), [&](FileId id, const ScriptSummary& summary) {
      auto it = script_diags_.find(id);
      if (it == script_diags_.end()) {
        it = script_diags_.emplace(id, std::vector<Diagnostic>{}).first;
        script_diagnostics(context, id, summary, selection_, it->second);
        ++stats_.scripts_judged;
      }
      diags_.insert(diags_.end(), it->second.begin(), it->second.end());
    });
    std::vector<FileUses> uses = file_uses(*project_, runs_);
    for (FileId id = 0; id < project_->sources.size(); ++id) {
      if (!judged_as_file(*project_, id, uses[id])) continue;
      auto it = file_diags_.find(id);
      if (it == file_diags_.end() || !(it->second.uses == uses[id])) {
        FileFindings f{std::move(uses[id]), {}};
        file_diagnostics(context, id, f.uses, selection_, f.diags);
        it = file_diags_.insert_or_assign(id, std::move(f)).first;
        ++stats_.files_judged;
      }
      diags_.insert(diags_.end(), it->second.diags.begin(), it->second.diags.end());
    }
    finish_diagnostics(*project_, selection_, diags_);
    trl::finish(*project_, *config_, selection_, diags_);
  }

  FileId file_of_path(const std::string& path) const {
    if (!project_) return kNoFile;
    FileId id = project_->sources.find_abs(path);
    if (id != kNoFile) return id;
    std::error_code ec;
    return project_->sources.find_abs(fs::weakly_canonical(path, ec).string());
  }

  FileId file_of_uri(const std::string& uri) const { return file_of_path(uri_to_path(uri)); }

  // An open document's text changed: extract it again, or load everything when it is new.
  void document_changed(const Document& d) {
    FileId id = file_of_path(d.path);
    if (id == kNoFile) {
      reload_workspace();
      return;
    }
    // Re-parse from the previous tree when the document has one (its edits already applied).
    ts::Reparse reparse;
    reparse.language = ts::language_of(project_->sources.get(id).kind);
    reparse.text = d.text;
    auto tree = trees_.find(d.uri);
    if (tree != trees_.end()) reparse.old = tree->second.get();
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<PackagePin> old_pins = project_->facts[id].pins;
    {
      ts::ReparseScope scope(reparse);
      replace_file_text(*project_, id, d.text);
    }
    if (options_.log_timing)
      std::cerr << "trl-lint server: " << (reparse.used_old ? "re-parsed" : "parsed") << " and extracted "
                << project_->sources.get(id).path << " in "
                << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() << " ms\n";
    if (reparse.tree) {
      ++(reparse.used_old ? stats_.incremental_parses : stats_.full_parses);
      trees_[d.uri] = std::move(reparse.tree);
    } else {
      trees_.erase(d.uri);
    }
    // A JSON file the edited script now names joins the project: every run is built again.
    const std::size_t files = project_->sources.size();
    load_referenced_json(*project_, load_options_);
    if (project_->sources.size() != files) {
      project_->script_cache = std::make_shared<ScriptCache>();
      analyse();
      publish();
      return;
    }
    reanalyse(id, old_pins);
  }

  // --- conversions ---
  // A file read from disk with a byte order mark holds it as three spaces; editors hide the mark,
  // so the first line's characters are counted after it (as the command line's columns are).
  json position(const SourceFile& f, Point p) const {
    std::string_view line = f.line_text(p.line);
    std::uint32_t column = p.column;
    if (f.bom && p.line == 0 && column >= 3 && line.size() >= 3) {
      line.remove_prefix(3);
      column -= 3;
    }
    return {{"line", p.line}, {"character", utf16_column(line, column)}};
  }
  json range(Span s) const {
    const SourceFile& f = project_->sources.get(s.file);
    return {{"start", position(f, s.start)}, {"end", position(f, s.stop)}};
  }
  // A walk problem of discovery (a FIFO, an unreadable folder), not a file.
  bool skipped(FileId id) const { return project_->sources.get(id).abs_path.rfind("<skipped>/", 0) == 0; }
  // The uri a file is published under: for an open document, the uri the client opened it with
  // (through a symlinked folder, or encoded otherwise, the same file has another uri, and the
  // client would take the two for two files, showing the findings on neither the buffer nor the
  // right file); for another file under the workspace, the client's root folder as it gave it.
  std::string uri(FileId id) const {
    for (const auto& [u, d] : docs_.all()) {
      auto it = doc_files_.find(u);
      if (it == doc_files_.end()) it = doc_files_.emplace(u, file_of_path(d.path)).first;
      if (it->second == id) return u;
    }
    const std::string& abs = project_->sources.get(id).abs_path;
    if (!client_root_.empty() && abs.size() > root_.size() && abs.compare(0, root_.size(), root_) == 0 &&
        abs[root_.size()] == '/')
      return path_to_uri(client_root_ + abs.substr(root_.size()));
    return path_to_uri(abs);
  }

  json to_lsp(const Diagnostic& d) const {
    std::string message = d.message;
    if (d.help) message += "\nhelp: " + *d.help;
    json j = {{"range", range(d.span)}, {"severity", lsp_severity(d.severity)},
              {"code", d.code},         {"codeDescription", {{"href", rule_doc_url(d.code)}}},
              {"source", "trl-lint"},   {"message", message}};
    json related = json::array();
    for (const auto& r : d.related)
      if (r.span.valid() && r.span.file < project_->sources.size())
        related.push_back({{"location", {{"uri", uri(r.span.file)}, {"range", range(r.span)}}},
                           {"message", r.message.empty() ? d.message : r.message}});
    if (!related.empty()) j["relatedInformation"] = related;
    return j;
  }

  json diagnostics_of(FileId id) const {
    json items = json::array();
    for (const auto& d : diags_)
      if (d.span.file == id) items.push_back(to_lsp(d));
    return items;
  }

  // Publishes the diagnostics of every file in `touched`, of every open document, and of every
  // file whose diagnostics changed (an empty list clears a file that has none any more).
  void publish(const std::set<FileId>& touched = {}) {
    std::map<std::string, json> by_uri;
    if (project_)
      for (const auto& d : diags_) {
        if (!d.span.valid() || d.span.file >= project_->sources.size() || skipped(d.span.file)) continue;
        auto& items = by_uri[uri(d.span.file)];
        if (items.is_null()) items = json::array();
        items.push_back(to_lsp(d));
      }
    std::set<std::string> send;
    if (project_)
      for (FileId id : touched)
        if (id < project_->sources.size() && !skipped(id)) send.insert(uri(id));
    for (const auto& [u, items] : by_uri) {
      auto it = published_.find(u);
      if (it == published_.end() || it->second != items) send.insert(u);
    }
    for (const auto& [u, items] : published_)
      if (!by_uri.count(u)) send.insert(u);
    for (const auto& [u, d] : docs_.all()) send.insert(u);
    for (const auto& u : send) {
      auto it = by_uri.find(u);
      json items = it == by_uri.end() ? json::array() : it->second;
      json params = {{"uri", u}, {"diagnostics", items}};
      if (const Document* d = docs_.find(u)) params["version"] = d->version;
      notify("textDocument/publishDiagnostics", params);
      if (items.empty())
        published_.erase(u);
      else
        published_[u] = std::move(items);
    }
  }

  // --- documents ---
  static std::string text_uri(const json& params) { return params.at("textDocument").at("uri").get<std::string>(); }

  void did_open(const json& params) {
    const json& td = params.at("textDocument");
    const std::string u = td.at("uri").get<std::string>();
    const std::string path = uri_to_path(u);
    if (path.empty()) return;  // untitled buffers and other schemes: nothing on disk to relate to
    if (!options_.fixed_root.empty() && path.rfind(root_ + "/", 0) != 0) return;
    Document& d = docs_.open(u, path, td.at("text").get<std::string>(), td.value("version", 0));
    trees_.erase(u);
    doc_files_.erase(u);
    document_changed(d);
  }

  void did_change(const json& params) {
    const std::string u = text_uri(params);
    Document* d = docs_.find(u);
    if (!d) {
      // Said once for each document (in a window the user sees), then in the log only: when its
      // didOpen was refused, every keystroke sends a change.
      const std::string message = "didChange for a document that is not open: " + u;
      if (unknown_changed_.insert(u).second)
        show(2, message);
      else
        notify("window/logMessage", {{"type", 2}, {"message", "trl-lint: " + message}});
      return;
    }
    // Every change is checked before any is applied: a bad one leaves the document as it was.
    struct Change {
      bool whole = false;
      std::uint32_t sl = 0, sc = 0, el = 0, ec = 0;
      std::string text;
    };
    std::vector<Change> changes;
    for (const json& c : params.at("contentChanges")) {
      Change ch;
      ch.text = c.at("text").get<std::string>();
      ch.whole = !c.contains("range");
      if (!ch.whole) {
        const json& r = c.at("range");
        ch.sl = position_number(r.at("start").at("line"));
        ch.sc = position_number(r.at("start").at("character"));
        ch.el = position_number(r.at("end").at("line"));
        ch.ec = position_number(r.at("end").at("character"));
      }
      changes.push_back(std::move(ch));
    }
    auto tree = trees_.find(u);
    for (const Change& c : changes) {
      if (c.whole) {
        d->text = c.text;
        if (tree != trees_.end()) trees_.erase(tree);
        tree = trees_.end();
        continue;
      }
      if (!in_range(d->text, c.sl, c.sc) || !in_range(d->text, c.el, c.ec))
        notify("window/logMessage",
               {{"type", 2},
                {"message", "trl-lint: an edit of " + u + " is out of range of the document (" + std::to_string(c.sl) +
                                ":" + std::to_string(c.sc) + "-" + std::to_string(c.el) + ":" + std::to_string(c.ec) +
                                "); clamped to it"}});
      // Where the edit falls, for the syntax tree: byte offsets and (row, byte column) points.
      std::size_t a = offset_of(d->text, c.sl, c.sc), b = offset_of(d->text, c.el, c.ec);
      if (b < a) std::swap(a, b);
      const LineColumn start = line_column(d->text, a), old_end = line_column(d->text, b);
      DocumentStore::apply_change(d->text, c.sl, c.sc, c.el, c.ec, c.text);
      if (tree == trees_.end()) continue;
      LineColumn new_end = start;
      for (char ch : c.text) {
        if (ch == '\n') {
          ++new_end.line;
          new_end.column = 0;
        } else {
          ++new_end.column;
        }
      }
      TSInputEdit edit{
          static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b),  static_cast<std::uint32_t>(a + c.text.size()),
          {start.line, start.column},    {old_end.line, old_end.column}, {new_end.line, new_end.column}};
      ts_tree_edit(tree->second.get(), &edit);
    }
    if (params.at("textDocument").contains("version")) d->version = params["textDocument"].value("version", 0);
    document_changed(*d);
  }

  // A line or character number of a position: a non-negative integer.
  static std::uint32_t position_number(const json& j) {
    if (!j.is_number_unsigned() || j.get<std::uint64_t>() > 0xffffffffu)
      throw RpcError{kInvalidParams, "invalid params: a position must hold non-negative integers"};
    return j.get<std::uint32_t>();
  }

  // Whether a position is inside the text: an existing line (or the empty one after a final
  // newline), a character at most the line's length in UTF-16 units.
  static bool in_range(std::string_view text, std::uint32_t line, std::uint32_t character) {
    std::size_t start = 0;
    for (std::uint32_t l = 0; l < line; ++l) {
      const std::size_t nl = text.find('\n', start);
      if (nl == std::string_view::npos) return false;
      start = nl + 1;
    }
    return character <= utf16_column(line_of(text, line), 0xffffffffu);
  }

  static bool is_config_file(const std::string& path) {
    const std::string name = fs::path(path).filename().string();
    return std::any_of(std::begin(kConfigFileNames), std::end(kConfigFileNames),
                       [&](const char* n) { return name == n; });
  }

  void did_save(const json& params) {
    const std::string path = uri_to_path(text_uri(params));
    if (is_config_file(path)) reload_workspace();
  }

  // Files changed on disk: a changed file the project holds (not open, not a configuration) is
  // read again and only its runs re-judged; a created or deleted file, or a configuration,
  // reloads the workspace (discovery and configuration may differ).
  void watched_files_changed(const json& params) {
    std::vector<FileId> changed;
    bool reload = !project_;
    for (const json& c : params.at("changes")) {
      const std::string u = c.at("uri").get<std::string>();
      const int type = c.at("type").get<int>();  // 1 created, 2 changed, 3 deleted
      if (docs_.find(u)) continue;               // the editor's text counts, not the disk's
      const std::string path = uri_to_path(u);
      const FileId id = file_of_path(path);
      if (type != 2 || id == kNoFile || is_config_file(path))
        reload = true;
      else
        changed.push_back(id);
    }
    if (reload) {
      reload_workspace();
      return;
    }
    for (FileId id : changed) {
      const std::vector<PackagePin> old_pins = project_->facts[id].pins;
      reload_file(*project_, id);
      reanalyse(id, old_pins);
    }
  }

  void did_close(const json& params) {
    const std::string u = text_uri(params);
    if (!docs_.close(u)) return;
    trees_.erase(u);
    doc_files_.erase(u);
    const std::string path = uri_to_path(u);
    std::error_code ec;
    FileId id = file_of_path(path);
    if (id != kNoFile && fs::is_regular_file(path, ec)) {
      const std::vector<PackagePin> old_pins = project_->facts[id].pins;
      reload_file(*project_, id);  // the disk's text counts again
      reanalyse(id, old_pins);
    } else {
      reload_workspace();  // an unsaved buffer: drop it
    }
  }

  // --- requests ---
  json pull_diagnostics(const json& params) {
    FileId id = file_of_uri(text_uri(params));
    return {{"kind", "full"}, {"items", id == kNoFile ? json::array() : diagnostics_of(id)}};
  }

  std::uint32_t offset_in(FileId id, const json& pos) const {
    const SourceFile& f = project_->sources.get(id);
    const auto line = pos.at("line").get<std::uint32_t>();
    const auto offset = offset_of(f.text, line, pos.at("character").get<std::uint32_t>());
    return static_cast<std::uint32_t>(f.bom && line == 0 ? offset + 3 : offset);
  }

  json edit_json(const TextEdit& e) const { return {{"range", range(e.span)}, {"newText", e.replacement}}; }

  json code_actions(const json& params) {
    const std::string u = text_uri(params);
    FileId id = file_of_uri(u);
    json actions = json::array();
    if (id == kNoFile) return actions;
    const SourceFile& f = project_->sources.get(id);
    const std::uint32_t a = offset_in(id, params.at("range").at("start"));
    const std::uint32_t b = offset_in(id, params.at("range").at("end"));
    std::vector<std::string> only;
    if (params.contains("context") && params["context"].contains("only"))
      only = params["context"]["only"].get<std::vector<std::string>>();
    auto wanted = [&](const std::string& kind) {
      if (only.empty()) return true;
      return std::any_of(only.begin(), only.end(), [&](const std::string& o) {
        return kind == o || (kind.size() > o.size() && kind.compare(0, o.size(), o) == 0 && kind[o.size()] == '.');
      });
    };
    std::vector<Diagnostic> in_file;
    for (const auto& d : diags_) {
      if (d.span.file != id) continue;
      in_file.push_back(d);
      if (d.span.end < a || d.span.begin > b) continue;
      if (wanted("quickfix")) {
        bool first = true;
        for (const auto& fix : d.fixes) {
          json changes = json::object();
          for (const auto& e : fix.edits) {
            if (!e.span.valid() || e.span.file >= project_->sources.size()) continue;
            auto& list = changes[uri(e.span.file)];
            if (list.is_null()) list = json::array();
            list.push_back(edit_json(e));
          }
          actions.push_back({{"title", d.code + ": " + fix.title + (fix.safe ? "" : " (unsafe)")},
                             {"kind", "quickfix"},
                             {"diagnostics", {to_lsp(d)}},
                             {"isPreferred", first && fix.safe},
                             {"edit", {{"changes", changes}}}});
          first = false;
        }
        if (comments_with_hash(f.kind))
          if (json a = suppress_action(f, d); !a.is_null()) actions.push_back(std::move(a));
      }
    }
    if (wanted("source.fixAll.trl-lint")) {
      FixPlan plan = plan_fixes(in_file, *project_, FixOptions{false});
      if (!plan.files.empty()) {
        json changes = json::object();
        for (const auto& ff : plan.files) {
          const SourceFile& g = project_->sources.get(ff.file);
          const std::uint32_t last = static_cast<std::uint32_t>(g.line_starts.size() - 1);
          // The editor hides a byte order mark: the document starts after it, and so does the
          // new text (the three spaces that hold the mark are not content; fixes leave them).
          const bool bom = g.bom && ff.fixed.rfind("   ", 0) == 0;
          const Point end{last, static_cast<std::uint32_t>(g.line_text(last).size())};
          changes[uri(ff.file)] =
              json::array({{{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", position(g, end)}}},
                            {"newText", bom ? ff.fixed.substr(3) : ff.fixed}}});
        }
        actions.push_back({{"title", "trl-lint: fix all safe fixes"},
                           {"kind", "source.fixAll.trl-lint"},
                           {"edit", {{"changes", changes}}}});
      }
    }
    return actions;
  }

  // `# noqa: CODE` at the end of the finding's first line, or the code added to a `noqa` there
  // (noqa_edit, as --add-noqa writes it). Null where no comment can go: a JSON file, a notebook,
  // a line that ends in a backslash (the comment would end the command or statement there).
  json suppress_action(const SourceFile& f, const Diagnostic& d) const {
    const std::optional<TextEdit> e = noqa_edit(*project_, f.id, d.span.start.line, {d.code});
    if (!e) return nullptr;
    const std::uint32_t line = e->span.start.line;
    const std::uint32_t ch = utf16_column(f.line_text(line), e->span.begin - f.line_starts[line]);
    json pos = {{"line", line}, {"character", ch}};
    return {{"title", "Suppress " + d.code + " on this line (# noqa: " + d.code + ")"},
            {"kind", "quickfix"},
            {"diagnostics", {to_lsp(d)}},
            {"edit",
             {{"changes", {{uri(f.id), {{{"range", {{"start", pos}, {"end", pos}}}, {"newText", e->replacement}}}}}}}}};
  }

  json hover(const json& params) {
    FileId id = file_of_uri(text_uri(params));
    if (id == kNoFile) return nullptr;
    const std::uint32_t at = offset_in(id, params.at("position"));
    // A code of a `noqa` comment.
    for (const auto& c : project_->facts[id].comments) {
      if (at < c.span.begin || at > c.span.end) continue;
      for (const auto& dir : parse_noqa(c.text, c.span))
        for (const auto& code : dir.codes)
          if (at >= code.span.begin && at <= code.span.end)
            if (const RuleInfo* info = rule_info(code.code))
              return {{"contents", {{"kind", "markdown"}, {"value", rule_markdown(*info)}}},
                      {"range", range(code.span)}};
    }
    // The findings under the cursor.
    std::set<std::string> seen;
    std::string value;
    std::optional<Span> where;
    for (const auto& d : diags_) {
      if (d.span.file != id || at < d.span.begin || at > d.span.end) continue;
      if (!seen.insert(d.code).second) continue;
      if (const RuleInfo* info = rule_info(d.code)) {
        if (!value.empty()) value += "\n\n---\n\n";
        value += rule_markdown(*info);
        if (!where) where = d.span;
      }
    }
    if (value.empty()) return nullptr;
    return {{"contents", {{"kind", "markdown"}, {"value", value}}}, {"range", range(*where)}};
  }
};

}  // namespace

int run_server(std::istream& in, std::ostream& out, const ServerOptions& options) {
  Server server(in, out, options);
  return server.run();
}

}  // namespace trl::lsp
