// How the LSP server judges again after an edit: only the runs, scripts and files the edit
// touches, with results equal to a fresh start; tree-sitter re-parses of edited texts; files
// changed on disk; version pins.
#include "analyzer/parse/tree_sitter.hpp"
#include "tests/unit/lsp_test_support.hpp"

using namespace trl::lsp_test;

TEST_CASE("lsp server: an edit re-judges only the runs its file takes part in, and republishes their files") {
  // Two independent copies of a cross-file project: a/ and b/, one run each.
  Copy p("TRL101/yaml_packing_accel_yaml_cp", {"a", "b"});
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
  Copy p("TRL101/yaml_packing_accel_yaml_cp", {"a", "b"});
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
  Copy p("TRL101/yaml_packing_accel_yaml_cp");
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

TEST_CASE("lsp server: many incremental edits (tree-sitter re-parse, partial re-judging) agree with a fresh start") {
  Copy p("TRL101/yaml_packing_accel_yaml_cp");
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
  Copy p("TRL101/yaml_packing_accel_yaml_cp");
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
