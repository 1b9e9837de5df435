// The LSP server: framing, malformed input, UTF-16 positions, incremental edits, and a whole
// session over string streams on a cross-file fixture (push and pull diagnostics, code
// actions, hover).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyzer/lsp/documents.hpp"
#include "analyzer/lsp/framing.hpp"
#include "analyzer/lsp/server.hpp"

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

struct Session {
  std::string input;
  std::vector<json> out;
  int code = -1;
  void add(const json& j) { input += frame(j); }
  void add_raw(const std::string& s) { input += s; }
  void run() {
    const fs::path cwd = fs::current_path();
    std::istringstream in(input);
    std::ostringstream os;
    code = run_server(in, os, ServerOptions{});
    fs::current_path(cwd);
    out = replies(os.str());
  }
  const json* response(int id) const {
    for (const auto& j : out)
      if (j.contains("id") && j["id"] == id) return &j;
    return nullptr;
  }
  // The last publishDiagnostics of `uri` before the response to request `before_id` (0: any).
  std::vector<json> published(const std::string& uri) const {
    std::vector<json> all;
    for (const auto& j : out)
      if (j.value("method", "") == "textDocument/publishDiagnostics" && j["params"]["uri"] == uri)
        all.push_back(j["params"]["diagnostics"]);
    return all;
  }
};

json init_params(const std::string& root) {
  return {{"processId", nullptr}, {"rootUri", path_to_uri(root)}, {"capabilities", json::object()}};
}

struct Copy {
  fs::path root;
  explicit Copy(const std::string& fixture) {
    static int n = 0;
    root = fs::temp_directory_path() / ("trl-lint-lsp-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(root);
    fs::copy(fs::path(TRL_LINT_SOURCE_DIR) / "fixtures" / fixture, root, fs::copy_options::recursive);
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

TEST_CASE("lsp server: malformed input gets JSON-RPC errors and the server keeps serving") {
  Session s;
  s.add_raw(frame(std::string("{not json")));
  s.add_raw("Content-Length: nope\r\n\r\n");
  s.add_raw(frame(std::string("[1,2]")));
  s.add(request(1, "textDocument/hover"));  // before initialize
  s.add(request(2, "initialize", {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", json::object()}}));
  s.add(request(3, "no/such/method"));
  s.add(notification("no/such/notification"));
  s.add(notification("textDocument/didChange",
                     {{"textDocument", {{"uri", "file:///nowhere.yaml"}}}, {"contentChanges", json::array()}}));
  s.add(request(4, "textDocument/hover", {{"bad", 1}}));
  s.add(request(5, "shutdown"));
  s.add(request(6, "textDocument/hover"));  // after shutdown
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 0);
  int parse_errors = 0;
  for (const auto& j : s.out)
    if (j.contains("error") && j["error"]["code"] == -32700) ++parse_errors;
  CHECK(parse_errors == 2);
  REQUIRE(s.response(1));
  CHECK((*s.response(1))["error"]["code"] == -32002);
  REQUIRE(s.response(2));
  CHECK((*s.response(2))["result"]["capabilities"]["diagnosticProvider"]["interFileDependencies"] == true);
  CHECK((*s.response(2))["result"]["capabilities"]["textDocumentSync"]["change"] == 2);
  REQUIRE(s.response(3));
  CHECK((*s.response(3))["error"]["code"] == -32601);
  REQUIRE(s.response(4));
  CHECK((*s.response(4))["error"]["code"] == -32602);
  REQUIRE(s.response(5));
  CHECK((*s.response(5))["result"].is_null());
  REQUIRE(s.response(6));
  CHECK((*s.response(6))["error"]["code"] == -32600);
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
