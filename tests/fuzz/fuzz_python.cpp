// libFuzzer target: the Python extractor and the evaluator on arbitrary bytes.
#include "analyzer/eval/python_eval.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/project/prefilter.hpp"
#include "analyzer/python/python_extractor.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = trl::fuzz::as_text(data, size);
  auto facts = trl::python::extract(text, 0);
  // Every id the IR holds must point into it.
  const auto& m = facts.module;
  for (const auto& e : m.exprs) {
    for (auto id : {e.a, e.b, e.c})
      if (id != trl::py::kNoExpr && id >= m.exprs.size()) __builtin_trap();
    // ... and every range and constant index into its pool.
    if (!trl::py::Module::fits(e.elts, m.id_pool.size()) || !trl::py::Module::fits(e.values, m.id_pool.size()) ||
        !trl::py::Module::fits(e.ops, m.op_pool.size()) || !trl::py::Module::fits(e.args, m.arg_pool.size()))
      __builtin_trap();
    if (e.constant != trl::py::kNoConstant && e.constant >= m.constant_pool.size()) __builtin_trap();
  }
  for (auto id : m.id_pool)
    if (id != trl::py::kNoExpr && id >= m.exprs.size()) __builtin_trap();
  for (const auto& a : m.arg_pool)
    if (a.value != trl::py::kNoExpr && a.value >= m.exprs.size()) __builtin_trap();
  for (auto id : m.body)
    if (id >= m.stmts.size()) __builtin_trap();
  trl::FileFacts as_file;
  as_file.python = m;
  as_file.comments = facts.comments;
  trl::fuzz::check_facts_codec(as_file, text);
  trl::evaluate_module(m, trl::Knowledge::get());
  bool fields = false;
  trl::python::decode_string_literal(text, fields);
  // The pre-filter's scanners read the same texts unparsed: every word they give is a non-empty
  // part of the text, and only a text without the pre-filter's names is Unrelated.
  trl::python_import_words(text, [&](std::string_view w, bool) {
    if (w.empty() || w.data() < text.data() || w.data() + w.size() > text.data() + text.size()) __builtin_trap();
  });
  if ((trl::python_relevance(text) == trl::PythonRelevance::Unrelated) == trl::python_may_matter(text))
    __builtin_trap();
  return 0;
}
