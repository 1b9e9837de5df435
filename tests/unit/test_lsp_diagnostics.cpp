// What the LSP server publishes for a project: cross-file findings that come and go with edits,
// UTF-16 ranges, byte order marks, symlinked workspaces, hover, and code actions (noqa, the
// rule's fix, fix-all).
#include "tests/unit/lsp_test_support.hpp"

using namespace trl::lsp_test;

TEST_CASE("lsp server: a cross-file finding appears, goes with an edit of the other file, and returns") {
  Copy p("TRL101/yaml_packing_accel_yaml_cp");
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
  Copy p("TRL101/yaml_packing_accel_yaml_cp");
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
