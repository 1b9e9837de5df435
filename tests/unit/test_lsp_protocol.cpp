// The LSP server's protocol layer: message framing, UTF-16 positions, incremental document edits,
// uris, and malformed or out-of-order input (the server answers with an error and goes on).
#include "tests/unit/lsp_test_support.hpp"

using namespace trl::lsp_test;

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
  Copy p("TRL101/yaml_packing_accel_yaml_cp");
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
  Copy p("TRL101/yaml_packing_accel_yaml_cp");
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

TEST_CASE("lsp server: exit without shutdown, and end of input, exit 1") {
  Session s;
  s.add(notification("exit"));
  s.run();
  CHECK(s.code == 1);
  Session t;
  t.run();
  CHECK(t.code == 1);
}
