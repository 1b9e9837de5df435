// Python extraction and the evaluator: imports, constants, dicts, **kwargs, function locals,
// parsers, and what must stay unknown.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "analyzer/eval/python_eval.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/parse/tree_sitter.hpp"
#include "analyzer/python/python_extractor.hpp"

using namespace trl;

namespace {

ScriptSummary eval(const std::string& code) {
  auto facts = python::extract(code, 0);
  return evaluate_module(facts.module, Knowledge::get());
}

const Member* field(const ScriptSummary& s, const char* name, std::size_t config = 0) {
  REQUIRE(s.trainer_configs.size() > config);
  return s.trainer_configs[config]->member(name);
}

// `lines` statements, each with a syntax error of one of several kinds, where error recovery
// has choices to make.
std::string with_syntax_errors(int lines) {
  std::string out;
  for (int i = 0; i < lines; ++i) switch (i % 7) {
      case 0: out += "value_" + std::to_string(i) + " = [1, 2,\n"; break;
      case 3: out += "def f_" + std::to_string(i) + "(:\n  return )\n"; break;
      case 5: out += "x = a b c if else\n"; break;
      default: out += "value_" + std::to_string(i) + " = (1 +\n"; break;
    }
  return out;
}

bool is_true(const Member* m) {
  return m && m->value->is_const() && m->value->constant.truthy();
}

}  // namespace

TEST_CASE("a parse does not depend on what the same thread parsed before", "[python][parse]") {
  // ts::parse keeps one parser per thread. tree-sitter-python's scanner remembers whether it
  // is inside an f-string, and a parser reset does not clear that: after a file that ends in
  // an unterminated f-string, the next file lost its dedents (`Y = 2` went into the `if`).
  const std::string next = "import os\nif os.environ:\n    X = 1\nY = 2\n";
  auto tree_of = [](const TSLanguage* language, const std::string& text) {
    ts::Tree tree = ts::parse(language, text);
    REQUIRE(tree);
    std::unique_ptr<char, decltype(&std::free)> s(ts_node_string(ts_tree_root_node(tree.get())), &std::free);
    return std::string(s.get());
  };
  auto python = [&](const std::string& text) { return tree_of(tree_sitter_python(), text); };
  std::string fresh, fresh_shell;
  std::thread([&] {  // a thread that parsed nothing before
    fresh = python(next);
    fresh_shell = tree_of(tree_sitter_bash(), "echo hi\n");
  })
      .join();
  CHECK(fresh.find("MISSING") == std::string::npos);
  CHECK(fresh.find("(module (import_statement") == 0);
  for (const char* before :
       {"x = f\"{\n", "x = f\"abc", "print(f\"{x}\n", "y = f'''abc", "s = f\"{a\n", "def f(:\n", "if x:\n  f\"{"}) {
    INFO("after: " << before);
    (void)python(before);
    CHECK(python(next) == fresh);
  }
  // The other grammars in between, and the shell's scanner (it keeps pending heredocs).
  (void)tree_of(tree_sitter_bash(), "cat <<EOF\nunterminated $(\n");
  (void)python("x = f\"{\n");
  CHECK(tree_of(tree_sitter_bash(), "echo hi\n") == fresh_shell);
  (void)tree_of(tree_sitter_yaml(), "a: [1\n");
  CHECK(python(next) == fresh);
}

TEST_CASE("a parse that times out starts again, and stops at its CPU budget", "[python][parse]") {
  // ts::parse bounds a parse's CPU time with tree-sitter's wall-clock timeout: an attempt that
  // times out is started again with twice the time, never resumed (a resumed parse of broken
  // text can pick another error recovery, so the tree would depend on timing). With a first
  // attempt of 1 ms, these texts (900 KB, and 60 KB of syntax errors) take several attempts.
  std::string big;
  for (int i = 0; i < 40000; ++i) big += "value_" + std::to_string(i) + " = [1, 2, 3]\n";
  // A text this short leaves no node too wide for tree-sitter 0.20.7 (see the next test).
  const std::string broken = with_syntax_errors(3000);
  const std::string small = "import os\nif os.environ:\n    X = 1\nY = 2\n";
  auto outline = [](const ts::Tree& tree) {
    REQUIRE(tree);
    std::unique_ptr<char, decltype(&std::free)> s(ts_node_string(ts_tree_root_node(tree.get())), &std::free);
    return std::string(s.get());
  };
  const std::string whole = outline(ts::parse(tree_sitter_python(), big));
  const std::string whole_broken = outline(ts::parse(tree_sitter_python(), broken));
  const std::string small_fresh = outline(ts::parse(tree_sitter_python(), small));
  struct Restore {
    ~Restore() { ts::set_parse_limits_for_testing(ts::kParseCpuBudgetSeconds, 20000000); }
  } restore;
  SECTION("attempts cut short give the tree of one whole parse, broken text included") {
    ts::set_parse_limits_for_testing(ts::kParseCpuBudgetSeconds, 1000);
    const ts::Tree again = ts::parse(tree_sitter_python(), big);
    REQUIRE(again);
    const TSNode root = ts_tree_root_node(again.get());
    CHECK_FALSE(ts_node_has_error(root));
    CHECK(ts_node_named_child_count(root) == 40000);
    CHECK(outline(again) == whole);
    for (std::uint64_t first : {1000u, 3000u, 7000u}) {
      INFO("first attempt " << first << " us");
      ts::set_parse_limits_for_testing(ts::kParseCpuBudgetSeconds, first);
      CHECK(outline(ts::parse(tree_sitter_python(), broken)) == whole_broken);
    }
  }
  SECTION("a parse over its budget is cancelled, and the next parse starts afresh") {
    // Attempts of 1, 2, 4... ms, each from the beginning, until 50 ms of CPU time are used; and a
    // first attempt as long as the budget, as in production, which cannot be enough either (CPU
    // time never exceeds wall-clock time).
    for (std::uint64_t first : {1000u, 50000u}) {
      ts::set_parse_limits_for_testing(0.05, first);
      CHECK_FALSE(ts::parse(tree_sitter_python(), big));
      CHECK(ts::last_parse_failure() == ts::ParseFailure::CpuBudget);
    }
    ts::set_parse_limits_for_testing(0.0, 1000);
    CHECK_FALSE(ts::parse(tree_sitter_python(), big));
    ts::set_parse_limits_for_testing(ts::kParseCpuBudgetSeconds, 20000000);
    CHECK(outline(ts::parse(tree_sitter_python(), small)) == small_fresh);
    CHECK(outline(ts::parse(tree_sitter_python(), big)) == whole);
  }
}

TEST_CASE("a text that would make tree-sitter 0.20.7 corrupt its heap is refused, not parsed", "[python][parse]") {
  // An error on every line, 790 KB: error recovery leaves more than 65,535 subtrees on the stack
  // at the end, wrapped in one ERROR node whose 16-bit child count overflows; parsing it in this
  // process aborted it ("free(): invalid size"). ts::parse tries a text that long in a child
  // process first.
  const std::string broken = "from trl import SFTConfig\n" + with_syntax_errors(40000);
  const auto facts = python::extract(broken, 0);
  CHECK(ts::last_parse_failure() == ts::ParseFailure::NodeTooWide);
  REQUIRE(facts.problems.size() == 1);
  CHECK(facts.problems[0].code == "TRL903");
  CHECK_THAT(facts.problems[0].message, Catch::Contains("more than 65,535 children"));
  // The same length without errors is tried in the child too, and parsed.
  std::string fine;
  for (int i = 0; i < 40000; ++i) fine += "value_" + std::to_string(i) + " = (1 + 2)\n";
  CHECK(ts::parse(tree_sitter_python(), fine));
  CHECK(ts::last_parse_failure() == ts::ParseFailure::None);
}

TEST_CASE("texts tried in the probe process are parsed while other threads allocate", "[python][parse]") {
  // The probe was a fork of this process. AddressSanitizer's allocator takes no locks around
  // fork: when another thread held one of its locks at that moment, the child waited for it
  // forever (robust/adversarial/many-steps hung this way under make test-asan). The probe is now
  // this program started afresh. Two threads allocate and free in every size class meanwhile;
  // under the sanitizers, the old fork hung within a few of these parses.
  std::string yaml;
  for (int i = 0; i < 1500; ++i) yaml += "key" + std::to_string(i) + ": [a, b]\n";
  REQUIRE(ts::may_overflow_child_count(tree_sitter_yaml(), yaml));
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  busy.reserve(2);
  for (int t = 0; t < 2; ++t)
    busy.emplace_back([&stop] {
      std::vector<std::unique_ptr<char[]>> held(64);
      for (std::size_t round = 0; !stop.load(std::memory_order_relaxed); ++round)
        for (std::size_t i = 0; i < held.size(); ++i) held[i].reset(new char[16 + ((round * 7 + i) * 61) % 8192]);
    });
  int parsed = 0;
  for (int i = 0; i < 20; ++i)
    if (ts::parse(tree_sitter_yaml(), yaml) && ts::last_parse_failure() == ts::ParseFailure::None) ++parsed;
  stop = true;
  for (std::thread& t : busy) t.join();
  CHECK(parsed == 20);
}

TEST_CASE("where no probe process can start, a fork tries the text; sanitized builds never fork", "[python][parse]") {
  // The fallback of a run under a loader or valgrind (which /proc/self/exe names instead of
  // trl-lint), without /proc, or in a sandbox that forbids exec.
  ts::set_other_process_for_testing(ts::OtherProcess::Fork);
  const std::string broken = "from trl import SFTConfig\n" + with_syntax_errors(40000);
  std::string fine;
  for (int i = 0; i < 40000; ++i) fine += "value_" + std::to_string(i) + " = (1 + 2)\n";
  const bool broken_parsed = ts::parse(tree_sitter_python(), broken) != nullptr;
  const ts::ParseFailure broken_failure = ts::last_parse_failure();
  const bool fine_parsed = ts::parse(tree_sitter_python(), fine) != nullptr;
  const ts::ParseFailure fine_failure = ts::last_parse_failure();
  ts::set_other_process_for_testing(ts::OtherProcess::Probe);
  CHECK_FALSE(broken_parsed);
  if (ts::sanitized_allocator()) {
    // A fork could hang in the sanitizer's allocator: both texts are reported, not tried.
    CHECK(broken_failure == ts::ParseFailure::Unchecked);
    CHECK_FALSE(fine_parsed);
    CHECK(fine_failure == ts::ParseFailure::Unchecked);
  } else {
    CHECK(broken_failure == ts::ParseFailure::NodeTooWide);
    CHECK(fine_parsed);
    CHECK(fine_failure == ts::ParseFailure::None);
  }
}

TEST_CASE("which texts are tried in a child process first: a bound on the parse stack", "[python][parse]") {
  auto repeat = [](const std::string& piece, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += piece;
    return out;
  };
  // Ordinary code: about 100 KB of Python before a child is needed.
  const std::string line = "    total = compute_value(items[index], scale=2.5)  # note\n";  // 20 units
  CHECK_FALSE(ts::may_overflow_child_count(tree_sitter_python(), repeat(line, 1500)));
  CHECK(ts::may_overflow_child_count(tree_sitter_python(), repeat(line, 2000)));
  // A run of letters and digits can be many tokens: `1if` is a number and a keyword.
  CHECK_FALSE(ts::may_overflow_child_count(tree_sitter_python(), repeat("abcdefghij", 20000)));  // one unit
  CHECK(ts::may_overflow_child_count(tree_sitter_python(), "x = " + repeat("1if", 16400)));
  // Each non-ASCII character may be a token of its own (an error token).
  CHECK(ts::may_overflow_child_count(tree_sitter_python(), repeat("\xC2\xA7", 32800)));
  CHECK_FALSE(ts::may_overflow_child_count(tree_sitter_python(), repeat("\xC2\xA7", 32000)));
  // YAML and bash add zero-width tokens of their own: a smaller text is enough.
  const std::string yaml = repeat("- key: value\n", 2000);  // 7 units a line: 14,000
  CHECK_FALSE(ts::may_overflow_child_count(tree_sitter_python(), yaml));
  CHECK_FALSE(ts::may_overflow_child_count(tree_sitter_bash(), yaml));
  CHECK(ts::may_overflow_child_count(tree_sitter_yaml(), yaml + repeat("- key: value\n", 200)));
  CHECK(ts::may_overflow_child_count(tree_sitter_bash(), repeat("echo a b c d\n", 3000)));  // 8 a line
  CHECK_FALSE(ts::may_overflow_child_count(tree_sitter_yaml(), std::string(10000, ' ')));
}

TEST_CASE("string literals decode escapes, raw strings and f-strings", "[python]") {
  bool fields = false;
  CHECK(python::decode_string_literal("'a\\nb'", fields) == "a\nb");
  CHECK(python::decode_string_literal("r'a\\nb'", fields) == "a\\nb");
  CHECK(python::decode_string_literal("\"\"\"x\"\"\"", fields) == "x");
  python::decode_string_literal("f'{x}'", fields);
  CHECK(fields);
}

TEST_CASE("an expression's constant, items, operators and arguments are ranges of its module's pools", "[python]") {
  const auto facts = python::extract(
      "f(1, *rest, key='v', **extra)\n"
      "d = {'a': [x, y], **base}\n"
      "ok = a not in b < c\n"
      "big = [f(i) for i in z]\n",
      0);
  const py::Module& m = facts.module;
  auto first = [&](py::ExprKind kind) -> const py::Expr& {
    for (const auto& e : m.exprs)
      if (e.kind == kind) return e;
    FAIL("no expression of that kind");
    return m.exprs.front();
  };
  const py::Expr& call = first(py::ExprKind::Call);
  const auto args = m.args(call);
  REQUIRE(args.size() == 4);
  CHECK(args[0].kind == py::Argument::Kind::Positional);
  CHECK(m.constant(m.expr(args[0].value)).i == 1);
  CHECK(args[1].kind == py::Argument::Kind::Star);
  CHECK(args[2].keyword == "key");
  CHECK(m.constant(m.expr(args[2].value)).s == "v");
  CHECK(args[3].kind == py::Argument::Kind::DoubleStar);

  // A dict's keys and values pair up; `**base` has no key. Its list value was built while the
  // dict's own items were being collected, and keeps its own range.
  const py::Expr& dict = first(py::ExprKind::Dict);
  const auto keys = m.elts(dict);
  const auto values = m.values(dict);
  REQUIRE(keys.size() == 2);
  REQUIRE(values.size() == 2);
  CHECK(m.constant(m.expr(keys[0])).s == "a");
  CHECK(keys[1] == py::kNoExpr);
  const py::Expr& list = m.expr(values[0]);
  REQUIRE(list.kind == py::ExprKind::List);
  REQUIRE(m.elts(list).size() == 2);
  CHECK(m.expr(m.elts(list)[1]).name == "y");

  // `not in` arrives as two tokens and is one operator.
  const py::Expr& compare = first(py::ExprKind::Compare);
  REQUIRE(m.ops(compare).size() == 2);
  CHECK(m.ops(compare)[0] == "not in");
  CHECK(m.ops(compare)[1] == "<");
  CHECK(m.elts(compare).size() == 3);

  // A kind without a constant reads as null, with no pool entry.
  CHECK(m.constant(call).kind == Scalar::Kind::Null);
  CHECK(m.constant_pool.size() == 3);  // 1, 'v' and 'a'
}

TEST_CASE("a module's arrays hold exactly what it needs, whatever the thread converted before", "[python]") {
  std::string large;
  for (int i = 0; i < 3000; ++i) large += "x_" + std::to_string(i) + " = f(a, [b, c], {'k': d})\n";
  const auto first = python::extract(large, 0);
  const auto small = python::extract("y = g(1)\n", 0);
  CHECK(small.module.exprs.capacity() == small.module.exprs.size());
  CHECK(small.module.stmts.capacity() == small.module.stmts.size());
  CHECK(small.module.exprs.size() == 4);  // y, g, g(1), 1
  CHECK(first.module.exprs.capacity() == first.module.exprs.size());
  CHECK(first.module.stmts.size() == 3000);
  // The second conversion on the thread starts empty: nothing of the first is in it.
  const auto again = python::extract("y = g(1)\n", 0);
  CHECK(again.module.exprs.size() == small.module.exprs.size());
  CHECK(again.module.id_pool.size() == small.module.id_pool.size());
}

TEST_CASE("a config is recognised through the import that brought its name in", "[python][eval]") {
  auto s = eval("from trl import SFTConfig as C\ncfg = C(packing=True)\n");
  CHECK(is_true(field(s, "packing")));
  auto t = eval("import trl\ncfg = trl.SFTConfig(packing=True)\n");
  CHECK(is_true(field(t, "packing")));
  // The same name from another package is not TRL's class.
  auto u = eval("from mylib import SFTConfig\ncfg = SFTConfig(packing=True)\n");
  CHECK(u.trainer_configs.empty());
}

TEST_CASE("module constants, dict literals, dict() and **known_dict flow into kwargs", "[python][eval]") {
  auto s = eval(
      "from trl import SFTConfig\n"
      "PACK = True\n"
      "common = {'packing': PACK, 'max_length': 2048}\n"
      "extra = dict(eval_packing=False)\n"
      "cfg = SFTConfig(output_dir='o', **common, **extra)\n");
  CHECK(is_true(field(s, "packing")));
  CHECK(field(s, "max_length")->value->constant.i == 2048);
  CHECK_FALSE(is_true(field(s, "eval_packing")));
}

TEST_CASE("function-local assignments are followed when the function is called", "[python][eval]") {
  auto s = eval(
      "from trl import SFTConfig, SFTTrainer\n"
      "def main():\n"
      "    pack = True\n"
      "    args = SFTConfig(packing=pack)\n"
      "    SFTTrainer(model='m', args=args)\n"
      "if __name__ == '__main__':\n"
      "    main()\n");
  REQUIRE(s.trainers.size() == 1);
  CHECK(is_true(field(s, "packing")));
}

TEST_CASE("attribute assignment after construction updates the config", "[python][eval]") {
  auto s = eval("from trl import SFTConfig\nargs = SFTConfig(packing=False)\nargs.packing = True\n");
  CHECK(is_true(field(s, "packing")));
}

TEST_CASE("values read from the environment or input are unknown", "[python][eval]") {
  auto s = eval(
      "import os\nfrom trl import SFTConfig\n"
      "cfg = SFTConfig(packing=os.environ.get('PACK') == '1', max_length=int(os.environ['L']))\n");
  const Member* packing = field(s, "packing");
  REQUIRE(packing);
  CHECK_FALSE(packing->value->is_const());
  CHECK_FALSE(field(s, "max_length")->value->is_const());
}

TEST_CASE("a value set differently on two branches of an unknown test is unknown", "[python][eval]") {
  auto s = eval(
      "import sys\nfrom trl import SFTConfig\n"
      "if len(sys.argv) > 1:\n    pack = True\nelse:\n    pack = False\n"
      "cfg = SFTConfig(packing=pack)\n");
  CHECK_FALSE(field(s, "packing")->value->is_const());
}

TEST_CASE("TrlParser scripts produce configs read from argv and --config", "[python][eval]") {
  auto s = eval(
      "from trl import TrlParser, ScriptArguments, SFTConfig, ModelConfig, SFTTrainer\n"
      "parser = TrlParser((ScriptArguments, SFTConfig, ModelConfig))\n"
      "script_args, training_args, model_args = parser.parse_args_and_config()\n"
      "SFTTrainer(model=model_args.model_name_or_path, args=training_args)\n");
  REQUIRE(s.trainer_configs.size() == 1);
  CHECK(s.trainer_configs[0]->from_parser);
  REQUIRE(s.parsers.size() == 1);
  CHECK(s.parsers[0]->parser_classes.size() == 3);
}

TEST_CASE("ParallelismConfig given to an Accelerator is recorded", "[python][eval]") {
  auto s = eval(
      "from accelerate import Accelerator, ParallelismConfig\n"
      "pc = ParallelismConfig(cp_size=2)\nacc = Accelerator(parallelism_config=pc)\n");
  REQUIRE(s.accelerator_parallelism.size() == 1);
  CHECK(s.accelerator_parallelism[0]->member("cp_size")->value->constant.i == 2);
}

TEST_CASE("a half-typed file still yields the statements that parse", "[python][robustness]") {
  auto facts = python::extract("from trl import SFTConfig\ncfg = SFTConfig(packing=True)\ndef broken(:\n", 0);
  CHECK(facts.module.has_syntax_error);
  auto s = evaluate_module(facts.module, Knowledge::get());
  CHECK(is_true(field(s, "packing")));
}

TEST_CASE("deeply nested expressions are cut off, not recursed into", "[python][robustness]") {
  std::string code = "x = " + std::string(20000, '(') + "1" + std::string(20000, ')') + "\n";
  auto facts = python::extract(code, 0);
  bool deep = false;
  for (const auto& p : facts.problems) deep = deep || p.code == "TRL904";
  CHECK(deep);
  evaluate_module(facts.module, Knowledge::get());  // must not crash
}

TEST_CASE("integer arithmetic follows Python, and a result past 64 bits is unknown", "[python][eval]") {
  auto value = [](const std::string& expr) {
    auto s = eval("from trl import SFTConfig\ncfg = SFTConfig(max_length=" + expr + ")\n");
    return field(s, "max_length")->value;
  };
  // Floor division and a remainder with the divisor's sign.
  CHECK(value("7 // -2")->constant.i == -4);
  CHECK(value("-7 // 2")->constant.i == -4);
  CHECK(value("7 % -2")->constant.i == -1);
  CHECK(value("-7 % 2")->constant.i == 1);
  CHECK(value("6 % -3")->constant.i == 0);
  CHECK(value("9223372036854775807 % 9223372036854775806")->constant.i == 1);
  CHECK(value("-9223372036854775807 % 9223372036854775807")->constant.i == 0);
  // INT64_MIN // -1 trapped (SIGFPE); overflow wrapped around.
  CHECK_FALSE(value("(-9223372036854775807 - 1) // -1")->is_const());
  CHECK_FALSE(value("(-9223372036854775807 - 1) % -1")->is_const());
  CHECK_FALSE(value("9223372036854775807 + 1")->is_const());
  CHECK_FALSE(value("-9223372036854775807 - 2")->is_const());
  CHECK_FALSE(value("4611686018427387904 * 2")->is_const());
  CHECK_FALSE(value("-(-9223372036854775807 - 1)")->is_const());
  CHECK(value("-9223372036854775807 - 1")->constant.i == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("a dict keeps the last value of a key, in the order of the last writes", "[python][eval]") {
  auto s = eval(
      "from trl import SFTConfig\n"
      "d = {'packing': True, 'max_length': 1, 'packing': False, **{'max_length': 2}}\n"
      "cfg = SFTConfig(**d)\n");
  CHECK_FALSE(is_true(field(s, "packing")));
  CHECK(field(s, "max_length")->value->constant.i == 2);
}

TEST_CASE("a call's summary holds while the globals its function mentions are unchanged", "[python][eval]") {
  // 3,000 calls of a 300-line helper, with module-level assignments between them that the helper
  // does not read: one evaluation, then summaries (every module-level assignment used to drop
  // them, and the script ran out of steps before its trainer).
  std::string code = "from trl import SFTConfig, SFTTrainer\ndef helper(n):\n";
  for (int i = 0; i < 300; ++i) code += "    v" + std::to_string(i) + " = n + " + std::to_string(i) + "\n";
  code += "    return n\n";
  for (int i = 0; i < 3000; ++i) code += "r" + std::to_string(i) + " = helper(1)\n";
  code += "cfg = SFTConfig(output_dir='o', fp16=True, bf16=True)\nSFTTrainer(model='m', args=cfg)\n";
  auto s = eval(code);
  CHECK_FALSE(s.cut_short.valid());
  CHECK(is_true(field(s, "bf16")));
  // A global the helper reads does change its result.
  auto t = eval(
      "from trl import SFTConfig, SFTTrainer\nPACK = True\ndef make():\n    return SFTConfig(packing=PACK)\n"
      "first = make()\nPACK = False\nargs = make()\nSFTTrainer(model='m', args=args)\n");
  CHECK_FALSE(is_true(field(t, "packing")));
}

TEST_CASE("recursive functions terminate", "[python][eval]") {
  auto s = eval("from trl import SFTConfig\ndef f(n):\n    return f(n)\ncfg = SFTConfig(packing=f(1))\n");
  CHECK_FALSE(field(s, "packing")->value->is_const());
}

namespace {

// A script that configures packing, runs `calls` x 20 x 101 generated steps, then sets packing
// to `later`.
std::string long_script(int calls, const char* later) {
  std::string code = "from trl import SFTConfig, SFTTrainer\ndef column(t, i):\n";
  for (int i = 0; i < 100; ++i) code += "    f" + std::to_string(i) + " = t + i\n";
  code += "    return t\ndef table(t):\n";
  for (int j = 1; j <= 20; ++j) code += "    column(t, " + std::to_string(j) + ")\n";
  code += "    return t\ncfg = SFTConfig(packing=True)\n";
  for (int i = 1; i <= calls; ++i) code += "table(" + std::to_string(i) + ")\n";
  code += std::string("cfg.packing = ") + later + "\ntrainer = SFTTrainer(model='m', args=cfg)\n";
  return code;
}

}  // namespace

TEST_CASE("an evaluation that runs out of steps is cut short and keeps no settings", "[python][eval][robustness]") {
  SECTION("over the limit: the late assignment is unseen, so nothing the script set is kept") {
    // 120 x 20 x 101 = 242,400 steps > kEvaluationSteps.
    auto s = eval(long_script(120, "False"));
    REQUIRE(s.cut_short.valid());
    CHECK(s.cut_short.start.line >= 2);  // inside `column` (0-based lines 2..101)
    CHECK(s.cut_short.start.line <= 101);
    CHECK(s.trainer_configs.empty());  // packing=True would be a stale value
    CHECK(s.trainers.empty());
    CHECK(s.constructions.empty());
  }
  SECTION("under the limit: evaluation reaches the end and sees the late assignment") {
    auto s = eval(long_script(60, "False"));  // 121,200 steps
    CHECK_FALSE(s.cut_short.valid());
    REQUIRE(s.trainers.size() == 1);
    const Member* packing = field(s, "packing");
    REQUIRE(packing);
    REQUIRE(packing->value->is_const());
    CHECK_FALSE(packing->value->constant.truthy());
  }
}

TEST_CASE("TYPE_CHECKING is False when the script runs: the code under it never runs", "[python][eval]") {
  auto packing = [](const std::string& code) {
    auto s = eval(code);
    const Member* m = field(s, "packing");
    REQUIRE(m);
    return m->value;
  };
  // From typing, from typing_extensions, and read as an attribute of the module.
  for (const char* imp : {"from typing import TYPE_CHECKING\n", "from typing_extensions import TYPE_CHECKING\n"}) {
    auto v =
        packing(std::string(imp) +
                "from trl import SFTConfig\n"
                "if TYPE_CHECKING:\n    cfg = SFTConfig(packing=False)\nelse:\n    cfg = SFTConfig(packing=True)\n");
    CHECK(v->is_const());
    CHECK(v->constant.truthy());
  }
  auto v = packing(
      "import typing\nfrom trl import SFTConfig\npacking = False\n"
      "if not typing.TYPE_CHECKING:\n    packing = True\ncfg = SFTConfig(packing=packing)\n");
  CHECK(v->is_const());
  CHECK(v->constant.truthy());
  // A name of the project's own called TYPE_CHECKING is not typing's.
  auto own = packing(
      "from trl import SFTConfig\nimport os\nTYPE_CHECKING = os.environ.get('X')\n"
      "cfg = SFTConfig(packing=True)\nif TYPE_CHECKING:\n    cfg = SFTConfig(packing=False)\n");
  CHECK_FALSE(own->is_const());
}
