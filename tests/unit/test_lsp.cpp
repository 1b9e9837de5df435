// The LSP server: framing, malformed input, UTF-16 positions, incremental edits, and a whole
// session over string streams on a cross-file fixture (push and pull diagnostics, code
// actions, hover).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analyzer/lsp/documents.hpp"
#include "analyzer/lsp/framing.hpp"
#include "analyzer/lsp/server.hpp"
#include "analyzer/parse/tree_sitter.hpp"

using namespace trl::lsp;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}
std::string frame(const json& j) {
  return frame(j.dump());
}

json request(int id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}
json notification(const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
}

std::vector<json> replies(const std::string& out) {
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

json init_params(const std::string& root) {
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
      fs::copy(fs::path(TRL_LINT_SOURCE_DIR) / "fixtures" / fixture, root / sub, fs::copy_options::recursive);
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

bool has_code(const json& diags, const std::string& code) {
  for (const auto& d : diags)
    if (d["code"] == code) return true;
  return false;
}

}  // namespace

TEST_CASE("lsp framing: reads messages, headers in any case, extra headers") {
  std::istringstream in("content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}" +
                        frame(std::string("[1]")));
  Frame a = read_frame(in);
  REQUIRE(a.status == Frame::Status::Ok);
  CHECK(a.body == "{}");
  Frame b = read_frame(in);
  REQUIRE(b.status == Frame::Status::Ok);
  CHECK(b.body == "[1]");
  CHECK(read_frame(in).status == Frame::Status::Eof);
}

TEST_CASE("lsp framing: missing or invalid Content-Length is a bad header, then reading goes on") {
  std::istringstream in("X-Foo: 1\r\n\r\nContent-Length: abc\r\n\r\nContent-Length: 99999999999999\r\n\r\n" +
                        frame(std::string("{}")));
  CHECK(read_frame(in).status == Frame::Status::BadHeader);
  CHECK(read_frame(in).status == Frame::Status::BadHeader);
  CHECK(read_frame(in).status == Frame::Status::BadHeader);
  Frame f = read_frame(in);
  REQUIRE(f.status == Frame::Status::Ok);
  CHECK(f.body == "{}");
}

TEST_CASE("lsp framing: a too short Content-Length resynchronises on the next header") {
  std::istringstream in("Content-Length: 3\r\n\r\n{\"a\":1}" + frame(std::string("{}")));
  Frame a = read_frame(in);
  REQUIRE(a.status == Frame::Status::Ok);
  CHECK(a.body == "{\"a");
  Frame b = read_frame(in);
  REQUIRE(b.status == Frame::Status::Ok);
  CHECK(b.body == "{}");
}

TEST_CASE("lsp framing: a too long Content-Length ends at end of input with the bytes there are") {
  std::istringstream in("Content-Length: 50\r\n\r\n{}");
  Frame a = read_frame(in);
  CHECK(a.status == Frame::Status::Ok);
  CHECK(a.body == "{}");
  CHECK(read_frame(in).status == Frame::Status::Eof);
}

TEST_CASE("lsp positions: UTF-16 columns of non-ASCII lines") {
  const std::string line = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80x";  // a é € 😀 x
  CHECK(utf16_column(line, 0) == 0);
  CHECK(utf16_column(line, 1) == 1);
  CHECK(utf16_column(line, 3) == 2);   // after é (2 bytes, 1 unit)
  CHECK(utf16_column(line, 6) == 3);   // after € (3 bytes, 1 unit)
  CHECK(utf16_column(line, 10) == 5);  // after 😀 (4 bytes, 2 units: a surrogate pair)
  CHECK(utf16_column(line, 11) == 6);
  CHECK(utf16_column(line, 100) == 6);  // clamped
  CHECK(utf16_column(line, 2) == 1);    // inside é: its start
  CHECK(byte_column(line, 0) == 0);
  CHECK(byte_column(line, 2) == 3);
  CHECK(byte_column(line, 3) == 6);
  CHECK(byte_column(line, 4) == 6);  // inside the surrogate pair: the character's start
  CHECK(byte_column(line, 5) == 10);
  CHECK(byte_column(line, 6) == 11);
  CHECK(byte_column(line, 99) == 11);
}

TEST_CASE("lsp positions: offsets clamp past the line and the text; CRLF lines") {
  const std::string text = "ab\r\ncd\nef";
  CHECK(offset_of(text, 0, 0) == 0);
  CHECK(offset_of(text, 0, 9) == 2);  // before \r\n
  CHECK(offset_of(text, 1, 1) == 5);
  CHECK(offset_of(text, 2, 2) == 9);
  CHECK(offset_of(text, 7, 0) == 9);
  CHECK(line_of(text, 0) == "ab");
  CHECK(line_of(text, 5).empty());
}

TEST_CASE("lsp documents: incremental edits with UTF-16 ranges, out of range, reversed") {
  std::string doc = "x: \xC3\xA9t\xC3\xA9\nk: 1\n";   // x: été
  DocumentStore::apply_change(doc, 0, 4, 0, 5, "T");  // replace the `t` after é
  CHECK(doc == "x: \xC3\xA9T\xC3\xA9\nk: 1\n");
  DocumentStore::apply_change(doc, 1, 3, 1, 4, "2");
  CHECK(doc == "x: \xC3\xA9T\xC3\xA9\nk: 2\n");
  DocumentStore::apply_change(doc, 0, 99, 1, 0, "");  // join lines
  CHECK(doc == "x: \xC3\xA9T\xC3\xA9k: 2\n");
  DocumentStore::apply_change(doc, 50, 0, 60, 0, "end\n");  // past the end: appended
  CHECK(doc == "x: \xC3\xA9T\xC3\xA9k: 2\nend\n");
  DocumentStore::apply_change(doc, 0, 1, 0, 0, "");  // reversed range: swapped
  CHECK(doc == ": \xC3\xA9T\xC3\xA9k: 2\nend\n");
}

TEST_CASE("lsp uris: percent-encoding both ways") {
  CHECK(uri_to_path("file:///tmp/a%20b/c%C3%A9.yaml") == "/tmp/a b/c\xC3\xA9.yaml");
  CHECK(uri_to_path("file://localhost/tmp/x") == "/tmp/x");
  CHECK(uri_to_path("untitled:Untitled-1").empty());
  CHECK(path_to_uri("/tmp/a b/c\xC3\xA9.yaml") == "file:///tmp/a%20b/c%C3%A9.yaml");
}

// Every robustness case ends with a request that must still be answered, and a clean exit.
Session robust_session(const std::function<void(Session&)>& middle) {
  Session s;
  s.add(request(1, "initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}}));
  middle(s);
  s.add(request(90, "shutdown"));
  s.add(notification("exit"));
  s.run();
  return s;
}
int count_errors(const Session& s, int code) {
  int n = 0;
  for (const auto& j : s.out)
    if (j.contains("error") && j["error"]["code"] == code) ++n;
  return n;
}
void check_still_serving(const Session& s) {
  CHECK(s.code == 0);
  REQUIRE(s.response(90));
  CHECK((*s.response(90))["result"].is_null());
}

TEST_CASE("lsp robust: malformed JSON and non-object messages get errors with a null id") {
  Session s = robust_session([](Session& s) {
    s.add_raw(frame(std::string("{not json")));
    s.add_raw(frame(std::string("\xff\xfe")));
    s.add_raw(frame(std::string("[1,2]")));
    s.add_raw(frame(std::string("{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"shutdown\"}")));
    // Nested 100,000 deep, in the params and in the id: copying such a value recursed until the
    // stack ran out (SIGSEGV). A message deeper than 512 levels is refused unparsed.
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    s.add_raw(frame("{\"jsonrpc\":\"2.0\",\"method\":\"foo\",\"params\":" + deep + "}"));
    s.add_raw(frame("{\"jsonrpc\":\"2.0\",\"id\":" + deep + ",\"method\":\"shutdown\"}"));
    // Brackets inside strings do not count; 512 levels are still read.
    s.add_raw(frame("{\"jsonrpc\":\"2.0\",\"method\":\"foo\",\"params\":{\"s\":\"" + deep + "\"}}"));
    s.add_raw(frame("{\"jsonrpc\":\"2.0\",\"method\":\"foo\",\"params\":" + std::string(511, '[') +
                    std::string(511, ']') + "}"));
  });
  CHECK(count_errors(s, -32700) == 4);
  CHECK(count_errors(s, -32600) == 2);  // an array, an object id
  for (const auto& j : s.out)
    if (j.contains("error")) CHECK(j["id"].is_null());
  check_still_serving(s);
}

TEST_CASE("lsp robust: wrong Content-Length (not a number, missing, too short, too long)") {
  Session s = robust_session([](Session& s) {
    s.add_raw("Content-Length: nope\r\n\r\n");
    s.add_raw("Content-Type: x\r\n\r\n");
    // Too short: the body is cut, which is invalid JSON; the rest is skipped up to the next header.
    const std::string body = request(5, "shutdown").dump();
    s.add_raw("Content-Length: 10\r\n\r\n" + body);
    s.add(request(6, "textDocument/hover",
                  {{"textDocument", {{"uri", "file:///x.yaml"}}}, {"position", {{"line", 0}, {"character", 0}}}}));
  });
  CHECK(count_errors(s, -32700) == 3);
  CHECK(!s.response(5));  // the cut message was not taken as a request
  REQUIRE(s.response(6));
  CHECK((*s.response(6))["result"].is_null());
  check_still_serving(s);
  // Too long: the message runs into the next one; the server answers what it can and ends
  // at the end of input without hanging.
  Session t;
  t.add_raw("Content-Length: 500\r\n\r\n" + request(7, "shutdown").dump() + frame(request(8, "shutdown")));
  t.run();
  CHECK(t.code == 1);
  CHECK(count_errors(t, -32700) == 1);
}

TEST_CASE("lsp robust: unknown methods: requests get MethodNotFound, notifications are ignored") {
  Session s = robust_session([](Session& s) {
    s.add(request(2, "no/such/method"));
    s.add(request(3, "$/trl-lint/whatever"));
    s.add(notification("no/such/notification"));
    s.add(notification("$/cancelRequest", {{"id", 2}}));
  });
  REQUIRE(s.response(2));
  CHECK((*s.response(2))["error"]["code"] == -32601);
  REQUIRE(s.response(3));
  CHECK((*s.response(3))["error"]["code"] == -32601);
  CHECK(count_errors(s, -32601) == 2);
  check_still_serving(s);
}

TEST_CASE("lsp robust: requests before initialize, after shutdown, and with invalid params") {
  Session s;
  s.add(request(1, "textDocument/hover"));
  s.add(request(2, "initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}}));
  s.add(request(3, "initialize", {{"processId", nullptr}}));
  s.add(request(4, "textDocument/hover", {{"bad", 1}}));
  s.add(request(5, "textDocument/codeAction", {{"textDocument", {{"uri", 7}}}}));
  s.add(request(6, "shutdown"));
  s.add(request(7, "textDocument/hover"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  CHECK((*s.response(1))["error"]["code"] == -32002);
  // Push diagnostics only: offering pull too shows every finding twice in VS Code.
  CHECK_FALSE((*s.response(2))["result"]["capabilities"].contains("diagnosticProvider"));
  CHECK((*s.response(2))["result"]["capabilities"]["textDocumentSync"]["change"] == 2);
  CHECK((*s.response(3))["error"]["code"] == -32600);
  CHECK((*s.response(4))["error"]["code"] == -32602);
  CHECK((*s.response(5))["error"]["code"] == -32602);
  CHECK((*s.response(6))["result"].is_null());
  CHECK((*s.response(7))["error"]["code"] == -32600);
}

TEST_CASE("lsp robust: notifications and requests for documents the server does not know") {
  Copy p("trl101/yaml_packing_accel_yaml_cp");
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  const std::string ghost = p.uri("no/such/file.yaml");
  s.add(notification("textDocument/didChange",
                     {{"textDocument", {{"uri", ghost}, {"version", 2}}}, {"contentChanges", {{{"text", "x: 1"}}}}}));
  // A second and third change of it (as each keystroke sends) go to the log only.
  for (int v = 3; v <= 4; ++v)
    s.add(notification("textDocument/didChange",
                       {{"textDocument", {{"uri", ghost}, {"version", v}}}, {"contentChanges", {{{"text", "x: 2"}}}}}));
  s.add(notification("textDocument/didClose", {{"textDocument", {{"uri", ghost}}}}));
  s.add(notification("textDocument/didSave", {{"textDocument", {{"uri", ghost}}}}));
  s.add(notification("textDocument/didOpen",
                     {{"textDocument", {{"uri", "untitled:Untitled-1"}, {"version", 1}, {"text", "x"}}}}));
  s.add(request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", ghost}}}}));
  s.add(request(3, "textDocument/hover",
                {{"textDocument", {{"uri", ghost}}}, {"position", {{"line", 0}, {"character", 0}}}}));
  json pos = {{"line", 0}, {"character", 0}};
  s.add(request(4, "textDocument/codeAction",
                {{"textDocument", {{"uri", ghost}}},
                 {"range", {{"start", pos}, {"end", pos}}},
                 {"context", {{"diagnostics", json::array()}}}}));
  s.add(request(5, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  // The change of a document that is not open is reported to the user, not applied.
  auto shown = s.notifications("window/showMessage");
  REQUIRE(shown.size() == 1);
  CHECK(shown[0]["type"] == 2);
  CHECK(shown[0]["message"].get<std::string>().find("not open") != std::string::npos);
  std::size_t logged = 0;
  for (const auto& m : s.notifications("window/logMessage"))
    logged += m["message"].get<std::string>().find("not open") != std::string::npos;
  CHECK(logged == 2);
  CHECK((*s.response(2))["result"]["items"].empty());
  CHECK((*s.response(3))["result"].is_null());
  CHECK((*s.response(4))["result"].empty());
  CHECK((*s.response(5))["result"].is_null());
}

TEST_CASE("lsp robust: edits out of range are clamped, reported in the log, and serving goes on") {
  Copy p("trl101/yaml_packing_accel_yaml_cp");
  const std::string recipe = "recipes/qwen2.5-0.5b/sft_long.yaml";
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", p.uri(recipe)}, {"languageId", "yaml"}, {"version", 1}, {"text", p.read(recipe)}}}}));
  auto edit = [&](int version, json start, json end, const std::string& text) {
    s.add(notification("textDocument/didChange",
                       {{"textDocument", {{"uri", p.uri(recipe)}, {"version", version}}},
                        {"contentChanges", {{{"range", {{"start", start}, {"end", end}}}, {"text", text}}}}}));
  };
  // A line far past the end: appended at the end of the document.
  edit(2, {{"line", 900}, {"character", 0}}, {{"line", 901}, {"character", 5}}, "extra_key: 1\n");
  // A character past the line's end: the end of the line ("packing: true" + "  # tail").
  edit(3, {{"line", 14}, {"character", 400}}, {{"line", 14}, {"character", 500}}, "  # tail");
  // Negative and non-numeric positions are invalid params of a notification: shown, not applied.
  edit(4, {{"line", -1}, {"character", 0}}, {{"line", 0}, {"character", 0}}, "bad");
  edit(5, {{"line", "x"}, {"character", 0}}, {{"line", 0}, {"character", 0}}, "bad");
  s.add(request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  s.add(request(3, "textDocument/hover",
                {{"textDocument", {{"uri", p.uri(recipe)}}}, {"position", {{"line", 5000}, {"character", 5000}}}}));
  s.add(request(4, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  auto logs = s.notifications("window/logMessage");
  int clamped = 0;
  for (const auto& l : logs)
    if (l["message"].get<std::string>().find("out of range") != std::string::npos) ++clamped;
  CHECK(clamped == 2);
  auto shown = s.notifications("window/showMessage");
  int invalid = 0;
  for (const auto& m : shown)
    if (m["message"].get<std::string>().find("invalid params") != std::string::npos) ++invalid;
  CHECK(invalid == 2);
  // The document is as the two clamped edits made it: TRL101 still on line 15 (packing: true).
  REQUIRE(s.response(2));
  const json& items = (*s.response(2))["result"]["items"];
  CHECK(has_code(items, "TRL101"));
  REQUIRE(s.response(3));
  CHECK(!s.response(3)->contains("error"));
}

TEST_CASE("lsp server: exit without shutdown, and end of input, exit 1") {
  Session s;
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 1);
  Session t;
  t.run();
  CHECK(t.code == 1);
}

TEST_CASE("lsp server: a cross-file finding appears, goes with an edit of the other file, and returns") {
  Copy p("trl101/yaml_packing_accel_yaml_cp");
  const std::string recipe = "recipes/qwen2.5-0.5b/sft_long.yaml";
  const std::string accel = "recipes/accelerate_configs/context_parallel_2gpu.yaml";
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(notification("initialized"));
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", p.uri(accel)}, {"languageId", "yaml"}, {"version", 1}, {"text", p.read(accel)}}}}));
  // cp_size: 2 -> 1 with an incremental edit (line 29, "  parallelism_config_cp_size: 2").
  json change = {{"range", {{"start", {{"line", 29}, {"character", 30}}}, {"end", {{"line", 29}, {"character", 31}}}}},
                 {"text", "1"}};
  s.add(notification("textDocument/didChange",
                     {{"textDocument", {{"uri", p.uri(accel)}, {"version", 2}}}, {"contentChanges", {change}}}));
  s.add(request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  change["text"] = "2";
  s.add(notification("textDocument/didChange",
                     {{"textDocument", {{"uri", p.uri(accel)}, {"version", 3}}}, {"contentChanges", {change}}}));
  s.add(request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  json pos = {{"line", 14}, {"character", 1}};
  s.add(request(4, "textDocument/codeAction",
                {{"textDocument", {{"uri", p.uri(recipe)}}},
                 {"range", {{"start", pos}, {"end", pos}}},
                 {"context", {{"diagnostics", json::array()}}}}));
  s.add(request(5, "textDocument/hover", {{"textDocument", {{"uri", p.uri(recipe)}}}, {"position", pos}}));
  s.add(request(6, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  // Published for the recipe (not open): first with TRL101, then empty, then with it again.
  auto pub = s.published(p.uri(recipe));
  REQUIRE(pub.size() >= 3);
  CHECK(has_code(pub[0], "TRL101"));
  const json d = pub[0][0]["code"] == "TRL101" ? pub[0][0] : pub[0][1];
  CHECK(d["range"]["start"] == json({{"line", 14}, {"character", 0}}));
  CHECK(d["severity"] == 1);
  CHECK(d["source"] == "trl-lint");
  CHECK(d["codeDescription"]["href"].get<std::string>().find("TRL101") != std::string::npos);
  REQUIRE(d.contains("relatedInformation"));
  bool related_accel = false;
  for (const auto& r : d["relatedInformation"]) related_accel |= r["location"]["uri"] == p.uri(accel);
  CHECK(related_accel);
  CHECK(!has_code(pub[1], "TRL101"));
  CHECK(has_code(pub.back(), "TRL101"));
  // Pull diagnostics agree.
  REQUIRE(s.response(2));
  CHECK((*s.response(2))["result"]["kind"] == "full");
  CHECK(!has_code((*s.response(2))["result"]["items"], "TRL101"));
  REQUIRE(s.response(3));
  CHECK(has_code((*s.response(3))["result"]["items"], "TRL101"));
  // Code actions: suppress with noqa appended to the line.
  REQUIRE(s.response(4));
  bool noqa = false;
  for (const auto& a : (*s.response(4))["result"]) {
    if (a["title"].get<std::string>().find("noqa: TRL101") == std::string::npos) continue;
    noqa = true;
    const json& e = a["edit"]["changes"][p.uri(recipe)][0];
    CHECK(e["newText"] == "  # noqa: TRL101");
    CHECK(e["range"]["start"] == json({{"line", 14}, {"character", 13}}));
  }
  CHECK(noqa);
  // Hover: the rule's documentation.
  REQUIRE(s.response(5));
  CHECK((*s.response(5))["result"]["contents"]["kind"] == "markdown");
  CHECK((*s.response(5))["result"]["contents"]["value"].get<std::string>().find("TRL101") != std::string::npos);
}

TEST_CASE("lsp server: diagnostics on non-ASCII lines are in UTF-16 units; noqa hover; close reverts") {
  Copy p("trl101/yaml_packing_accel_yaml_cp");
  // Before transformers 4.54.0 sdpa mixes packed samples: TRL201 fires beside TRL101.
  p.write("requirements.txt", "transformers==4.53.0\n");
  const std::string recipe = "recipes/qwen2.5-0.5b/sft_long.yaml";
  std::string text = p.read(recipe);
  const std::string from = "packing: true";
  // Non-ASCII text before a `noqa` code: its positions must count UTF-16 units.
  text.replace(text.find(from), from.size(), "packing: true  # \xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80 # noqa: TRL201");
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", p.uri(recipe)}, {"languageId", "yaml"}, {"version", 1}, {"text", text}}}}));
  // Hover the `TRL201` of the noqa comment: "packing: true  # été 😀 # noqa: TRL201"
  // UTF-16: 'packing: true  # ' = 17, 'été ' = 4, '😀 ' = 3, '# noqa: ' = 8 -> TRL201 at 32.
  s.add(request(2, "textDocument/hover",
                {{"textDocument", {{"uri", p.uri(recipe)}}}, {"position", {{"line", 14}, {"character", 33}}}}));
  s.add(request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  json pos = {{"line", 14}, {"character", 0}};
  s.add(request(4, "textDocument/codeAction",
                {{"textDocument", {{"uri", p.uri(recipe)}}},
                 {"range", {{"start", pos}, {"end", pos}}},
                 {"context", {{"diagnostics", json::array()}, {"only", {"quickfix"}}}}}));
  s.add(notification("textDocument/didClose", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  s.add(request(5, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  s.add(request(6, "shutdown"));
  s.add(notification("exit"));
  s.run();
  REQUIRE(s.response(2));
  REQUIRE(s.response(2)->contains("result"));
  const json& h = (*s.response(2))["result"];
  REQUIRE(h.is_object());
  CHECK(h["contents"]["value"].get<std::string>().find("TRL201") != std::string::npos);
  CHECK(h["range"]["start"] == json({{"line", 14}, {"character", 32}}));
  CHECK(h["range"]["end"] == json({{"line", 14}, {"character", 38}}));
  // TRL201 suppressed by the buffer's noqa; TRL101 remains.
  REQUIRE(s.response(3));
  CHECK(has_code((*s.response(3))["result"]["items"], "TRL101"));
  CHECK(!has_code((*s.response(3))["result"]["items"], "TRL201"));
  // The suppress action extends the existing noqa after its last code (UTF-16 column 38).
  REQUIRE(s.response(4));
  bool extended = false;
  for (const auto& a : (*s.response(4))["result"]) {
    if (a["title"].get<std::string>().find("noqa: TRL101") == std::string::npos) continue;
    const json& e = a["edit"]["changes"][p.uri(recipe)][0];
    CHECK(e["newText"] == ", TRL101");
    CHECK(e["range"]["start"] == json({{"line", 14}, {"character", 38}}));
    extended = true;
  }
  CHECK(extended);
  // Closed: the disk's text counts again (no noqa: TRL201 fires).
  REQUIRE(s.response(5));
  CHECK(has_code((*s.response(5))["result"]["items"], "TRL201"));
}

TEST_CASE("lsp robust: a lone surrogate escape (valid JSON, refused by the parser) is read as U+FFFD") {
  Copy p("TRL001/yaml_typo_with_suggestion");
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  // The text as JavaScript's JSON.stringify writes a string holding half an emoji, then a whole
  // one (a pair, kept), then an escaped backslash before `u` (not an escape).
  std::string text = p.read("launch.sh");
  json open =
      notification("textDocument/didOpen",
                   {{"textDocument",
                     {{"uri", p.uri("launch.sh")}, {"languageId", "shellscript"}, {"version", 1}, {"text", "TEXT"}}}});
  std::string body = open.dump();
  std::string escaped = json(text).dump();
  escaped = escaped.substr(1, escaped.size() - 2);
  body.replace(body.find("TEXT"), 4, "# \\ud83d half \\ud83d\\ude00 whole \\\\ud83d not an escape\\n" + escaped);
  s.add_raw(frame(body));
  s.add(request(2, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(count_errors(s, -32700) == 0);
  const auto pub = s.published(p.uri("launch.sh"));
  REQUIRE(!pub.empty());
  CHECK(has_code(pub.back(), "TRL001"));  // the document was opened and judged
  // Its line moved down by one: the finding is on line 3 (0-based 2), as in the buffer.
  CHECK(pub.back()[0]["range"]["start"]["line"] == 2);
}

TEST_CASE("lsp server: a YAML file with a byte order mark, not open, gets first-line positions after the mark") {
  Copy p("TRL001/yaml_with_byte_order_mark");
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", p.uri("launch.sh")}, {"languageId", "shellscript"}, {"version", 1}, {"text", p.read("launch.sh")}}}}));
  s.add(request(2, "shutdown"));
  s.add(notification("exit"));
  s.run();
  const auto pub = s.published(p.uri("recipes/config.yaml"));
  REQUIRE(!pub.empty());
  bool first_line = false;
  for (const auto& d : pub.back())
    if (d["range"]["start"]["line"] == 0) {
      first_line = true;
      CHECK(d["range"]["start"]["character"] == 0);  // as the command line's 1:1; the editor hides the mark
      CHECK(d["range"]["end"]["character"] == 28);   // `gradient_checkpointing_kwarg`
    }
  CHECK(first_line);
}

TEST_CASE("lsp server: a workspace opened through a symlink gets its findings under the client's uris") {
  Copy p("TRL001/yaml_typo_with_suggestion");
  const fs::path link = p.root.string() + "-link";
  fs::remove(link);
  fs::create_directory_symlink(p.root, link);
  const std::string launch_uri = path_to_uri((link / "launch.sh").string());
  const std::string config_uri = path_to_uri((link / "recipes/config.yaml").string());
  Session s;
  s.add(request(1, "initialize", init_params(link.string())));
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", launch_uri}, {"languageId", "shellscript"}, {"version", 1}, {"text", p.read("launch.sh")}}}}));
  json start = {{"line", 1}, {"character", 0}}, end = {{"line", 1}, {"character", 200}};
  s.add(request(2, "textDocument/codeAction",
                {{"textDocument", {{"uri", launch_uri}}},
                 {"range", {{"start", start}, {"end", end}}},
                 {"context", {{"diagnostics", json::array()}, {"only", {"quickfix"}}}}}));
  s.add(request(3, "shutdown"));
  s.add(notification("exit"));
  s.run();
  fs::remove(link);
  // The open document's findings under the uri it was opened with (before: the canonical path's,
  // and an empty list under the client's, which cleared the buffer), the other file's under the
  // client's root; nothing under the canonical root.
  const auto doc = s.published(launch_uri);
  REQUIRE(!doc.empty());
  CHECK(has_code(doc.back(), "TRL001"));
  const auto config = s.published(config_uri);
  REQUIRE(!config.empty());
  CHECK(has_code(config.back(), "TRL001"));
  CHECK(s.published(p.uri("launch.sh")).empty());
  CHECK(s.published(p.uri("recipes/config.yaml")).empty());
  // The quick fix edits the buffer's uri.
  REQUIRE(s.response(2));
  bool edits_buffer = false;
  for (const auto& a : (*s.response(2))["result"])
    if (a.contains("edit")) edits_buffer = edits_buffer || a["edit"]["changes"].contains(launch_uri);
  CHECK(edits_buffer);
}

TEST_CASE("lsp server: no noqa action on a line continued with a backslash (the comment would end the command)") {
  Copy p("TRL001/yaml_typo_with_suggestion");
  const std::string text =
      "#!/bin/bash\naccelerate launch --config_file configs/ddp.yaml scripts/sft.py \\\n"
      "    --lerning_rate 1.0e-5 \\\n    --config recipes/config.yaml --lerning_rat 2.0e-5\n";
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(notification("textDocument/didOpen",
                     {{"textDocument",
                       {{"uri", p.uri("launch.sh")}, {"languageId", "shellscript"}, {"version", 1}, {"text", text}}}}));
  for (int line = 2; line <= 3; ++line) {
    json start = {{"line", line}, {"character", 0}}, end = {{"line", line}, {"character", 80}};
    s.add(request(line, "textDocument/codeAction",
                  {{"textDocument", {{"uri", p.uri("launch.sh")}}},
                   {"range", {{"start", start}, {"end", end}}},
                   {"context", {{"diagnostics", json::array()}, {"only", {"quickfix"}}}}}));
  }
  s.add(request(9, "shutdown"));
  s.add(notification("exit"));
  s.run();
  auto noqa_lines = [&](int id) {
    std::vector<json> found;
    REQUIRE(s.response(id));
    for (const auto& a : (*s.response(id))["result"])
      if (a["title"].get<std::string>().find("# noqa") != std::string::npos) found.push_back(a);
    return found;
  };
  // Both lines have a finding.
  const auto pub = s.published(p.uri("launch.sh"));
  REQUIRE(!pub.empty());
  std::set<int> lines;
  for (const auto& d : pub.back()) lines.insert(d["range"]["start"]["line"].get<int>());
  CHECK(lines == std::set<int>{2, 3});
  // Line 2 ends in `\`: no action. Line 3 ends the command: the comment goes after it.
  CHECK(noqa_lines(2).empty());
  const auto last = noqa_lines(3);
  REQUIRE(last.size() == 1);
  CHECK(last[0]["edit"]["changes"][p.uri("launch.sh")][0]["newText"] == "  # noqa: TRL001");
}

TEST_CASE("lsp server: the rule's fix as a quickfix, and fix-all of the document") {
  Copy p("formats/fixes_and_file_problems");
  const std::string recipe = "recipes/qwen2.5-0.5b/sft_long.yaml";
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", p.uri(recipe)}, {"languageId", "yaml"}, {"version", 1}, {"text", p.read(recipe)}}}}));
  json pos = {{"line", 14}, {"character", 20}};
  s.add(request(2, "textDocument/codeAction",
                {{"textDocument", {{"uri", p.uri(recipe)}}},
                 {"range", {{"start", pos}, {"end", pos}}},
                 {"context", {{"diagnostics", json::array()}, {"only", {"quickfix"}}}}}));
  s.add(request(3, "textDocument/codeAction",
                {{"textDocument", {{"uri", p.uri(recipe)}}},
                 {"range", {{"start", pos}, {"end", pos}}},
                 {"context", {{"diagnostics", json::array()}, {"only", {"source.fixAll"}}}}}));
  s.add(request(4, "shutdown"));
  s.add(notification("exit"));
  s.run();
  REQUIRE(s.response(2));
  const json& quick = (*s.response(2))["result"];
  bool fix = false;
  for (const auto& a : quick) {
    CHECK(a["kind"] == "quickfix");
    if (a["title"].get<std::string>().rfind("TRL910:", 0) != 0) continue;
    fix = true;
    CHECK(a["isPreferred"] == true);
    const json& edits = a["edit"]["changes"][p.uri(recipe)];
    REQUIRE(edits.size() == 1);
    CHECK(edits[0]["range"]["start"]["line"] == 14);
  }
  CHECK(fix);
  // Fix all: only the source action (the quickfixes are filtered out by `only`), the whole
  // document rewritten with both stale directives gone and the other tool's code kept.
  REQUIRE(s.response(3));
  const json& all = (*s.response(3))["result"];
  REQUIRE(all.size() == 1);
  CHECK(all[0]["kind"] == "source.fixAll.trl-lint");
  const std::string fixed = all[0]["edit"]["changes"][p.uri(recipe)][0]["newText"];
  CHECK(fixed.find("packing: false\n") != std::string::npos);
  CHECK(fixed.find("TRL101") == std::string::npos);
  CHECK(fixed.find("# noqa: E501") != std::string::npos);
}

TEST_CASE("lsp server: fix-all of a file with a byte order mark leaves the mark to the editor") {
  Copy p("formats/fixes_and_file_problems");
  const std::string recipe = "recipes/qwen2.5-0.5b/sft_long.yaml";
  const std::string original = p.read(recipe);
  p.write(recipe, "\xEF\xBB\xBF" + original);
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  json pos = {{"line", 14}, {"character", 20}};
  s.add(request(2, "textDocument/codeAction",
                {{"textDocument", {{"uri", p.uri(recipe)}}},
                 {"range", {{"start", pos}, {"end", pos}}},
                 {"context", {{"diagnostics", json::array()}, {"only", {"source.fixAll"}}}}}));
  s.add(request(3, "shutdown"));
  s.add(notification("exit"));
  s.run();
  REQUIRE(s.response(2));
  const json& all = (*s.response(2))["result"];
  REQUIRE(all.size() == 1);
  const json& edit = all[0]["edit"]["changes"][p.uri(recipe)][0];
  const std::string fixed = edit["newText"];
  // The editor's document starts after the mark: the new text has neither the mark nor the three
  // spaces that stand for it, and starts as the file's first line does.
  CHECK(fixed.substr(0, 20) == original.substr(0, 20));
  CHECK(fixed.find("TRL101") == std::string::npos);
  CHECK(edit["range"]["start"]["character"] == 0);
}

TEST_CASE("lsp server: an edit re-judges only the runs its file takes part in, and republishes their files") {
  // Two independent copies of a cross-file project: a/ and b/, one run each.
  Copy p("trl101/yaml_packing_accel_yaml_cp", {"a", "b"});
  const std::string recipe = "/recipes/qwen2.5-0.5b/sft_long.yaml";
  const std::string accel = "/recipes/accelerate_configs/context_parallel_2gpu.yaml";
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument",
        {{"uri", p.uri("a" + recipe)}, {"languageId", "yaml"}, {"version", 1}, {"text", p.read("a" + recipe)}}}}));
  s.add(request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri("b" + recipe)}}}}));
  // a's recipe: `packing: true` -> `packing: false` fixes a's TRL101.
  json change = {{"range", {{"start", {{"line", 14}, {"character", 9}}}, {"end", {{"line", 14}, {"character", 13}}}}},
                 {"text", "false"}};
  s.add(notification("textDocument/didChange",
                     {{"textDocument", {{"uri", p.uri("a" + recipe)}, {"version", 2}}}, {"contentChanges", {change}}}));
  s.add(request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri("a" + accel)}}}}));
  s.add(request(4, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  CHECK(s.stats.full_analyses == 1);  // on initialize; the open and the edit were incremental
  CHECK(s.stats.runs_total == 2);
  CHECK(s.stats.runs_rebuilt == 1);
  // After the edit (between responses 2 and 3): every file of a's run, open or not, and none of b's.
  const std::set<std::string> after = s.published_after(2);
  for (const char* f : {"/launch.sh", "/scripts/sft.py", "/recipes/qwen2.5-0.5b/sft_long.yaml",
                        "/recipes/accelerate_configs/context_parallel_2gpu.yaml"}) {
    CHECK(after.count(p.uri(std::string("a") + f)) == 1);
    CHECK(after.count(p.uri(std::string("b") + f)) == 0);
  }
  // a's files no longer have TRL101 (cleared with an empty list where nothing is left); b's keep it.
  CHECK(!has_code(s.published(p.uri("a" + recipe)).back(), "TRL101"));
  CHECK(has_code(s.published(p.uri("b" + recipe)).back(), "TRL101"));
  REQUIRE(s.response(2));
  CHECK(has_code((*s.response(2))["result"]["items"], "TRL101"));
  REQUIRE(s.response(3));
  CHECK(!has_code((*s.response(3))["result"]["items"], "TRL101"));
  // The first publication (on open) covered both projects' files with findings.
  CHECK(!s.published(p.uri("b" + recipe)).empty());
}

TEST_CASE("lsp server: an edit judges again only the scripts and files it touches") {
  // Two independent copies of a cross-file project: a/ and b/, one script and two YAML files each.
  Copy p("trl101/yaml_packing_accel_yaml_cp", {"a", "b"});
  const std::string recipe = "a/recipes/qwen2.5-0.5b/sft_long.yaml";
  const std::string script = "a/scripts/sft.py";
  auto edited = [&](const std::string& file, json change) {
    Session s;
    s.add(request(1, "initialize", init_params(p.root.string())));
    s.add(notification("textDocument/didOpen", {{"textDocument",
                                                 {{"uri", p.uri(file)},
                                                  {"languageId", file.ends_with(".py") ? "python" : "yaml"},
                                                  {"version", 1},
                                                  {"text", p.read(file)}}}}));
    s.add(notification("textDocument/didChange",
                       {{"textDocument", {{"uri", p.uri(file)}, {"version", 2}}}, {"contentChanges", {change}}}));
    s.add(request(2, "shutdown"));
    s.add(notification("exit"));
    s.run();
    CHECK(s.code == 0);
    CHECK(s.stats.full_analyses == 1);
    return s.stats;
  };
  // The open and the edit are each judged as a change of the file. The recipe: `packing: true` ->
  // `packing: false`. a's run is built again; the scripts were judged once each (the recipe is not
  // one of the modules their evaluation read); the files: the four YAML files once, then the recipe
  // at the open and at the edit (a's accelerate config's uses did not change).
  json packing = {{"range", {{"start", {{"line", 14}, {"character", 9}}}, {"end", {{"line", 14}, {"character", 13}}}}},
                  {"text", "false"}};
  ServerStats stats = edited(recipe, packing);
  CHECK(stats.runs_rebuilt == 1);
  CHECK(stats.scripts_judged == 2);
  CHECK(stats.files_judged == 4 + 2);
  // The script: a comment line added at the top. Its evaluation is dropped and it is judged again,
  // at the open and at the edit; no YAML file changed, nor did what the runs say of them.
  json comment = {{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                  {"text", "# edited\n"}};
  stats = edited(script, comment);
  CHECK(stats.runs_rebuilt == 1);
  CHECK(stats.scripts_judged == 2 + 2);
  CHECK(stats.files_judged == 4);
}

TEST_CASE("lsp server: a settings module another file starts importing is no longer a run; the undo brings it back") {
  // configs.py builds a packed SFTConfig with context parallelism and no trainer: a run of its own
  // (TRL101 there) until train.py imports it. The edit is to train.py only.
  Copy p("dataflow/imported_settings_module_not_a_run");
  const std::string train = "train.py", configs = "configs.py";
  const std::string importing = p.read(train);
  const std::string plain =
      "from trl import SFTConfig, SFTTrainer\nargs = SFTConfig(output_dir=\"o\", packing=False)\n"
      "SFTTrainer(model=\"Qwen/Qwen2.5-0.5B\", args=args).train()\n";
  p.write(train, plain);
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", p.uri(train)}, {"languageId", "python"}, {"version", 1}, {"text", plain}}}}));
  s.add(request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(configs)}}}}));
  s.add(notification("textDocument/didChange", {{"textDocument", {{"uri", p.uri(train)}, {"version", 2}}},
                                                {"contentChanges", {{{"text", importing}}}}}));
  s.add(request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(configs)}}}}));
  s.add(notification("textDocument/didChange", {{"textDocument", {{"uri", p.uri(train)}, {"version", 3}}},
                                                {"contentChanges", {{{"text", plain}}}}}));
  s.add(request(4, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(configs)}}}}));
  s.add(request(5, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  CHECK(s.stats.full_analyses == 1);
  REQUIRE(s.response(2));
  CHECK(has_code((*s.response(2))["result"]["items"], "TRL101"));
  REQUIRE(s.response(3));
  CHECK(!has_code((*s.response(3))["result"]["items"], "TRL101"));
  REQUIRE(s.response(4));
  CHECK(has_code((*s.response(4))["result"]["items"], "TRL101"));
}

TEST_CASE("lsp server: a launch line edited to drop the recipe takes its finding away; the undo brings it back") {
  Copy p("trl101/yaml_packing_accel_yaml_cp");
  const std::string launch = "launch.sh";
  const std::string recipe = "recipes/qwen2.5-0.5b/sft_long.yaml";
  std::string text = p.read(launch);
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(
      notification("textDocument/didOpen",
                   {{"textDocument", {{"uri", p.uri(launch)}, {"languageId", "sh"}, {"version", 1}, {"text", text}}}}));
  // The launch no longer names the recipe: TRL101 (packing with cp) goes from the recipe.
  std::string edited = text;
  edited.replace(edited.find(" \\\n    --config recipes"), std::string::npos, "\n");
  s.add(notification("textDocument/didChange", {{"textDocument", {{"uri", p.uri(launch)}, {"version", 2}}},
                                                {"contentChanges", {{{"text", edited}}}}}));
  s.add(request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  s.add(notification("textDocument/didChange", {{"textDocument", {{"uri", p.uri(launch)}, {"version", 3}}},
                                                {"contentChanges", {{{"text", text}}}}}));
  s.add(request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  s.add(request(4, "shutdown"));
  s.add(notification("exit"));
  s.run();
  REQUIRE(s.response(2));
  CHECK(!has_code((*s.response(2))["result"]["items"], "TRL101"));
  auto pub = s.published(p.uri(recipe));
  REQUIRE(pub.size() >= 3);
  CHECK(has_code(pub[0], "TRL101"));
  CHECK(!has_code(pub[1], "TRL101"));
  CHECK(has_code(pub.back(), "TRL101"));
  REQUIRE(s.response(3));
  CHECK(has_code((*s.response(3))["result"]["items"], "TRL101"));
  CHECK(s.stats.full_analyses == 1);
}

namespace {
// Every diagnostic published last for each uri, as one sorted text (for comparing sessions).
std::string final_diagnostics(const Session& s) {
  std::map<std::string, json> last;
  for (const auto& j : s.out)
    if (j.value("method", "") == "textDocument/publishDiagnostics")
      last[j["params"]["uri"]] = j["params"]["diagnostics"];
  std::string out;
  for (const auto& [uri, d] : last)
    if (!d.empty()) out += uri + " " + d.dump() + "\n";
  return out;
}
}  // namespace

TEST_CASE("lsp server: many incremental edits (tree-sitter re-parse, partial re-judging) agree with a fresh start") {
  Copy p("trl101/yaml_packing_accel_yaml_cp");
  const std::string recipe = "recipes/qwen2.5-0.5b/sft_long.yaml";
  const std::string script = "scripts/sft.py";
  std::string yaml = p.read(recipe), py = p.read(script);
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  for (const auto& [rel, text] : {std::pair{recipe, yaml}, std::pair{script, py}})
    s.add(notification("textDocument/didOpen",
                       {{"textDocument", {{"uri", p.uri(rel)}, {"version", 1}, {"text", text}}}}));
  // Deterministic pseudo-random edits of both files, with non-ASCII text: insertions, deletions,
  // replacements across lines. The server's copy must follow, and its results match a server
  // that opens the final texts.
  std::uint32_t seed = 12345;
  auto next = [&](std::uint32_t n) {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) % n;
  };
  const char* inserts[] = {"x", "\n", "# \xC3\xA9\xF0\x9F\x98\x80\n", "packing: true\n", "  ", "", "cp_size: 2\n"};
  int edits = 0;
  for (int i = 0; i < 40; ++i) {
    const bool on_yaml = i % 2 == 0;
    std::string& text = on_yaml ? yaml : py;
    const std::string uri = p.uri(on_yaml ? recipe : script);
    const std::uint32_t lines = static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n'));
    const std::uint32_t l1 = next(lines), l2 = std::min(lines, l1 + next(3));
    const std::uint32_t c1 = next(6), c2 = l2 == l1 ? c1 + next(4) : next(6);
    const std::string ins = inserts[next(7)];
    DocumentStore::apply_change(text, l1, c1, l2, c2, ins);
    s.add(notification(
        "textDocument/didChange",
        {{"textDocument", {{"uri", uri}, {"version", i + 2}}},
         {"contentChanges",
          {{{"range", {{"start", {{"line", l1}, {"character", c1}}}, {"end", {{"line", l2}, {"character", c2}}}}},
            {"text", ins}}}}}));
    ++edits;
  }
  s.add(request(2, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.stats.full_analyses == 1);
  // The script is parsed once on open, then re-parsed from its tree at each of its 20 edits. A
  // YAML text libyaml reads without error needs no tree-sitter tree (its comments come from the
  // text); a broken one is parsed by tree-sitter, from the previous tree when there is one. So:
  // a full parse where the recipe breaks after a valid state (once, in these edits: it stays
  // broken) and an incremental parse for every script edit and every later broken state.
  CHECK(s.stats.full_parses >= 1);
  CHECK(s.stats.full_parses <= 2);
  CHECK(s.stats.incremental_parses >= static_cast<std::size_t>(edits / 2));
  CHECK(s.stats.incremental_parses + s.stats.full_parses <= static_cast<std::size_t>(edits) + 2);

  Session fresh;
  fresh.add(request(1, "initialize", init_params(p.root.string())));
  for (const auto& [rel, text] : {std::pair{recipe, yaml}, std::pair{script, py}})
    fresh.add(notification("textDocument/didOpen",
                           {{"textDocument", {{"uri", p.uri(rel)}, {"version", 1}, {"text", text}}}}));
  fresh.add(request(2, "shutdown"));
  fresh.add(notification("exit"));
  fresh.run();
  const std::string a = final_diagnostics(s), b = final_diagnostics(fresh);
  CHECK(!b.empty());
  CHECK(a == b);
}

TEST_CASE("tree-sitter re-parse: the edited old tree re-parsed equals a full parse; other texts unaffected") {
  std::string text = "import trl\n\nargs = SFTConfig(packing=True, max_length=1024)\n";
  trl::ts::Tree old = trl::ts::parse(tree_sitter_python(), text);
  REQUIRE(old);
  // Replace `True` (bytes 34..38 of line 2) by `False` and tell the old tree.
  const std::size_t at = text.find("True");
  text.replace(at, 4, "False");
  const std::uint32_t col = static_cast<std::uint32_t>(at - text.find("args"));
  TSInputEdit edit{static_cast<std::uint32_t>(at),
                   static_cast<std::uint32_t>(at + 4),
                   static_cast<std::uint32_t>(at + 5),
                   {2, col},
                   {2, col + 4},
                   {2, col + 5}};
  ts_tree_edit(old.get(), &edit);
  trl::ts::Reparse r;
  r.language = tree_sitter_python();
  r.text = text;
  r.old = old.get();
  trl::ts::Tree inner, tree;
  {
    trl::ts::ReparseScope scope(r);
    inner = trl::ts::parse(tree_sitter_python(), "x = 1\n");  // another text: a plain parse
    CHECK(!r.consumed);
    tree = trl::ts::parse(tree_sitter_python(), text);
    CHECK(r.consumed);
  }
  CHECK(r.used_old);
  REQUIRE(r.tree);
  trl::ts::Tree full = trl::ts::parse(tree_sitter_python(), text);
  auto str = [](const trl::ts::Tree& t) {
    char* s = ts_node_string(ts_tree_root_node(t.get()));
    std::string out(s);
    free(s);
    return out;
  };
  CHECK(str(tree) == str(full));
  CHECK(str(r.tree) == str(full));
  CHECK(str(full).find("false") != std::string::npos);
  CHECK(ts_node_end_byte(ts_tree_root_node(inner.get())) == 6);
  // Outside a scope nothing is reused.
  trl::ts::Reparse unused;
  CHECK(!unused.consumed);
}

TEST_CASE("lsp server: a watched file changed on disk re-judges its runs; a created file reloads everything") {
  Copy p("trl101/yaml_packing_accel_yaml_cp");
  const std::string recipe = "recipes/qwen2.5-0.5b/sft_long.yaml";
  const std::string accel = "recipes/accelerate_configs/context_parallel_2gpu.yaml";
  std::string text = p.read(accel);
  text.replace(text.find("parallelism_config_cp_size: 2"), 29, "parallelism_config_cp_size: 1");
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(request(4, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  s.then([&] { std::ofstream(p.root / accel) << text; });
  s.add(notification("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", p.uri(accel)}, {"type", 2}}}}}));
  s.add(request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(recipe)}}}}));
  s.add(notification("workspace/didChangeWatchedFiles",
                     {{"changes", {{{"uri", p.uri("recipes/new.yaml")}, {"type", 1}}}}}));
  s.add(request(3, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  REQUIRE(s.response(4));
  CHECK(has_code((*s.response(4))["result"]["items"], "TRL101"));
  REQUIRE(s.response(2));
  CHECK(!has_code((*s.response(2))["result"]["items"], "TRL101"));
  CHECK(s.stats.runs_rebuilt == 1);
  CHECK(s.stats.full_analyses == 2);  // initialize, and the created file
  // The recipe (never opened) was told its TRL101 is gone.
  auto pub = s.published(p.uri(recipe));
  REQUIRE(!pub.empty());
  CHECK(!has_code(pub.back(), "TRL101"));
}

TEST_CASE("lsp server: an edited version pin re-judges every run (the pin file is in no run's files)") {
  // TRL109 on the unset gradient_checkpointing default is judged only for TRL >= 0.22.0; the
  // project pins trl==0.21.0. requirements.txt takes part in no run, but its pin sets the
  // version the run is judged against: an edit of it, in the editor or on disk, changes the
  // findings of files it is not one of.
  Copy p("TRL109/old_trl_default_false");
  const std::string accel = "recipes/accelerate.yaml";
  const std::string req = "requirements.txt";
  const std::string old_pin = "trl==0.21.0\n", new_pin = "trl==0.24.0\n";
  REQUIRE(p.read(req) == old_pin);
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(accel)}}}}));
  s.add(notification("textDocument/didOpen",
                     {{"textDocument",
                       {{"uri", p.uri(req)}, {"languageId", "pip-requirements"}, {"version", 1}, {"text", new_pin}}}}));
  s.add(request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(accel)}}}}));
  // Back to the old pin: a file that held pins before the edit counts too.
  s.add(notification("textDocument/didChange", {{"textDocument", {{"uri", p.uri(req)}, {"version", 2}}},
                                                {"contentChanges", {{{"text", old_pin}}}}}));
  s.add(request(4, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(accel)}}}}));
  // The pin deleted: the file holds no pins after the edit, only before it; without a pin the
  // run is judged against the newest TRL.
  s.add(notification("textDocument/didChange",
                     {{"textDocument", {{"uri", p.uri(req)}, {"version", 3}}}, {"contentChanges", {{{"text", ""}}}}}));
  s.add(request(7, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(accel)}}}}));
  s.add(notification("textDocument/didChange", {{"textDocument", {{"uri", p.uri(req)}, {"version", 4}}},
                                                {"contentChanges", {{{"text", old_pin}}}}}));
  // A comment after the pin leaves the pins as they were (text and place): no run is re-judged.
  s.add(notification("textDocument/didChange",
                     {{"textDocument", {{"uri", p.uri(req)}, {"version", 5}}},
                      {"contentChanges", {{{"text", old_pin + "# pinned for the cluster\n"}}}}}));
  // Closed: the disk's text (the old pin) counts again.
  s.add(notification("textDocument/didClose", {{"textDocument", {{"uri", p.uri(req)}}}}));
  // On disk, with the file not open: the watched-file path.
  s.then([&] { std::ofstream(p.root / req) << new_pin; });
  s.add(notification("workspace/didChangeWatchedFiles", {{"changes", {{{"uri", p.uri(req)}, {"type", 2}}}}}));
  s.add(request(5, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri(accel)}}}}));
  s.add(request(6, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  for (int id : {2, 3, 4, 5, 7}) REQUIRE(s.response(id));
  CHECK(!has_code((*s.response(2))["result"]["items"], "TRL109"));
  CHECK(has_code((*s.response(3))["result"]["items"], "TRL109"));
  CHECK(!has_code((*s.response(4))["result"]["items"], "TRL109"));
  CHECK(has_code((*s.response(7))["result"]["items"], "TRL109"));
  CHECK(has_code((*s.response(5))["result"]["items"], "TRL109"));
  // The accelerate config, never opened, was told each time.
  auto pub = s.published(p.uri(accel));
  REQUIRE(!pub.empty());
  CHECK(has_code(pub.back(), "TRL109"));
  // Whole analyses: initialize, and the five edits that changed the pins (open with the new pin,
  // back, deleted, back, on disk); not the comment, nor the close (the disk holds the same pin).
  CHECK(s.stats.full_analyses == 6);
}

TEST_CASE(
    "lsp server: script evaluations are kept between edits; an edit of an imported module re-evaluates its importer "
    "only") {
  // Two scripts: train.py takes its SFTConfig keywords from helpers.py (one renamed, one typo),
  // other.py stands alone. The project-wide rules (TRL001 on keywords, TRL5xx renames) evaluate
  // every script; the server keeps those evaluations and drops only the ones an edit reads.
  Copy p("example");
  std::ofstream(p.root / "train.py") << "from trl import SFTConfig\nfrom helpers import KW\n\n"
                                        "args = SFTConfig(output_dir=\"out\", **KW)\n";
  const std::string bad = "KW = {\"max_seq_length\": 1024, \"packign\": True}\n";
  const std::string good = "KW = {\"max_length\": 1024, \"packing\": True}\n";
  std::ofstream(p.root / "helpers.py") << bad;
  std::ofstream(p.root / "other.py") << "from trl import SFTConfig\n\nargs = SFTConfig(output_dir=\"o\")\n";
  Session s;
  s.add(request(1, "initialize", init_params(p.root.string())));
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", p.uri("helpers.py")}, {"languageId", "python"}, {"version", 1}, {"text", bad}}}}));
  std::size_t after_open = 0, after_fix = 0, after_other = 0;
  s.then([&] { after_open = s.stats.scripts_evaluated; });
  s.add(request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri("helpers.py")}}}}));
  s.add(notification("textDocument/didChange", {{"textDocument", {{"uri", p.uri("helpers.py")}, {"version", 2}}},
                                                {"contentChanges", {{{"text", good}}}}}));
  s.add(request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri("helpers.py")}}}}));
  s.then([&] { after_fix = s.stats.scripts_evaluated; });
  s.add(notification("textDocument/didChange", {{"textDocument", {{"uri", p.uri("helpers.py")}, {"version", 3}}},
                                                {"contentChanges", {{{"text", bad}}}}}));
  s.add(request(4, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri("helpers.py")}}}}));
  // An edit of a file no script reads evaluates nothing again.
  s.add(notification(
      "textDocument/didOpen",
      {{"textDocument", {{"uri", p.uri("notes.py")}, {"languageId", "python"}, {"version", 1}, {"text", "x = 1\n"}}}}));
  s.then([&] { after_other = s.stats.scripts_evaluated; });
  s.add(notification("textDocument/didChange", {{"textDocument", {{"uri", p.uri("notes.py")}, {"version", 2}}},
                                                {"contentChanges", {{{"text", "x = 2\n"}}}}}));
  s.add(request(5, "textDocument/diagnostic", {{"textDocument", {{"uri", p.uri("helpers.py")}}}}));
  s.add(request(6, "shutdown"));
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  REQUIRE(s.response(2));
  CHECK(has_code((*s.response(2))["result"]["items"], "TRL001"));
  CHECK(has_code((*s.response(2))["result"]["items"], "TRL501"));
  REQUIRE(s.response(3));
  CHECK(!has_code((*s.response(3))["result"]["items"], "TRL001"));
  CHECK(!has_code((*s.response(3))["result"]["items"], "TRL501"));
  REQUIRE(s.response(4));
  CHECK(has_code((*s.response(4))["result"]["items"], "TRL001"));
  CHECK(has_code((*s.response(4))["result"]["items"], "TRL501"));
  REQUIRE(s.response(5));
  CHECK(has_code((*s.response(5))["result"]["items"], "TRL001"));
  // Each edit of helpers.py evaluated train.py once (not other.py, not once per rule); the edit
  // of notes.py (a file added by didOpen empties the cache once; its own edit then reads nothing
  // kept) evaluated no script again.
  CHECK(after_open > 0);
  CHECK(after_fix == after_open + 1);
  CHECK(s.stats.scripts_evaluated == after_other);
}
