// What the LSP server's unit tests share: LSP framing of requests and notifications, a server
// run from initialize to exit over string streams (Session), and a temporary copy of a fixture (Copy).
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/lsp/documents.hpp"
#include "analyzer/lsp/framing.hpp"
#include "analyzer/lsp/server.hpp"

namespace trl::lsp_test {

using namespace trl::lsp;
using json = nlohmann::json;
namespace fs = std::filesystem;

inline std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}
inline std::string frame(const json& j) {
  return frame(j.dump());
}

inline json request(int id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}
inline json notification(const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
}

inline std::vector<json> replies(const std::string& out) {
  std::istringstream in(out);
  std::vector<json> all;
  while (true) {
    Frame f = read_frame(in);
    if (f.status != Frame::Status::Ok) break;
    all.push_back(json::parse(f.body));
  }
  return all;
}

// An input stream of parts; before the reader gets the first byte of a part, that part's action
// runs (a file changed on disk in the middle of a session).
class PartsBuf : public std::streambuf {
 public:
  struct Part {
    std::function<void()> action;
    std::string text;
  };
  explicit PartsBuf(std::vector<Part> parts) : parts_(std::move(parts)) {}

 protected:
  int_type underflow() override {
    while (next_ < parts_.size()) {
      Part& p = parts_[next_++];
      if (p.action) p.action();
      if (p.text.empty()) continue;
      setg(p.text.data(), p.text.data(), p.text.data() + p.text.size());
      return traits_type::to_int_type(*gptr());
    }
    return traits_type::eof();
  }

 private:
  std::vector<Part> parts_;
  std::size_t next_ = 0;
};

struct Session {
  std::string input;
  std::vector<PartsBuf::Part> parts;  // with `then`: the input in parts
  std::vector<json> out;
  int code = -1;
  ServerStats stats;
  void add(const json& j) { input += frame(j); }
  void add_raw(const std::string& s) { input += s; }
  // What follows is read only after `action` ran.
  void then(std::function<void()> action) {
    parts.push_back({nullptr, input});
    input.clear();
    parts.push_back({std::move(action), ""});
  }
  void run() {
    const fs::path cwd = fs::current_path();
    parts.push_back({nullptr, input});
    PartsBuf buf(parts);
    std::istream in(&buf);
    std::ostringstream os;
    ServerOptions options;
    options.stats = &stats;
    code = run_server(in, os, options);
    fs::current_path(cwd);
    out = replies(os.str());
  }
  const json* response(int id) const {
    for (const auto& j : out)
      if (j.contains("id") && j["id"] == id) return &j;
    return nullptr;
  }
  // Every publishDiagnostics of `uri`, in order.
  std::vector<json> published(const std::string& uri) const {
    std::vector<json> all;
    for (const auto& j : out)
      if (j.value("method", "") == "textDocument/publishDiagnostics" && j["params"]["uri"] == uri)
        all.push_back(j["params"]["diagnostics"]);
    return all;
  }
  // The uris published after the response to request `id` (and before the next response).
  std::set<std::string> published_after(int id) const {
    std::set<std::string> uris;
    bool after = false;
    for (const auto& j : out) {
      if (j.contains("id") && (j.contains("result") || j.contains("error"))) {
        if (after) break;
        after = j["id"] == id;
        continue;
      }
      if (after && j.value("method", "") == "textDocument/publishDiagnostics") uris.insert(j["params"]["uri"]);
    }
    return uris;
  }
  std::vector<json> notifications(const std::string& method) const {
    std::vector<json> all;
    for (const auto& j : out)
      if (j.value("method", "") == method && !j.contains("id")) all.push_back(j["params"]);
    return all;
  }
};

inline json init_params(const std::string& root) {
  return {{"processId", nullptr}, {"rootUri", path_to_uri(root)}, {"capabilities", json::object()}};
}

struct Copy {
  fs::path root;
  // A copy of fixtures/<fixture>; with `subfolders`, one copy in each of them.
  explicit Copy(const std::string& fixture, const std::vector<std::string>& subfolders = {""}) {
    static int n = 0;
    root = fs::temp_directory_path() / ("trl-lint-lsp-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(root);
    for (const auto& sub : subfolders) {
      fs::create_directories(root / sub);
      fs::copy(fs::path(TRL_LINT_FIXTURES_DIR) / fixture, root / sub, fs::copy_options::recursive);
    }
    root = fs::canonical(root);
  }
  ~Copy() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  std::string read(const std::string& rel) const {
    std::ifstream in(root / rel);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  std::string uri(const std::string& rel) const { return path_to_uri((root / rel).string()); }
  void write(const std::string& rel, const std::string& text) const { std::ofstream(root / rel) << text; }
};

inline bool has_code(const json& diags, const std::string& code) {
  for (const auto& d : diags)
    if (d["code"] == code) return true;
  return false;
}

// Every robustness case ends with a request that must still be answered, and a clean exit.
inline Session robust_session(const std::function<void(Session&)>& middle) {
  Session s;
  s.add(request(1, "initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}}));
  middle(s);
  s.add(request(90, "shutdown"));
  s.add(notification("exit"));
  s.run();
  return s;
}
inline int count_errors(const Session& s, int code) {
  int n = 0;
  for (const auto& j : s.out)
    if (j.contains("error") && j["error"]["code"] == code) ++n;
  return n;
}
inline void check_still_serving(const Session& s) {
  CHECK(s.code == 0);
  REQUIRE(s.response(90));
  CHECK((*s.response(90))["result"].is_null());
}

// Every diagnostic published last for each uri, as one sorted text (for comparing sessions).
inline std::string final_diagnostics(const Session& s) {
  std::map<std::string, json> last;
  for (const auto& j : s.out)
    if (j.value("method", "") == "textDocument/publishDiagnostics")
      last[j["params"]["uri"]] = j["params"]["diagnostics"];
  std::string out;
  for (const auto& [uri, d] : last)
    if (!d.empty()) out += uri + " " + d.dump() + "\n";
  return out;
}

}  // namespace trl::lsp_test
