// libFuzzer target: a small project built in memory from the input (see fuzz_common.hpp),
// then the whole evaluation: build_runs, the rules, and every output format.
#include <sstream>

#include "analyzer/eval/run_builder.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/pipeline/judge.hpp"
#include "analyzer/report/formatters.hpp"
#include "analyzer/report/views.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  trl::Project project = trl::fuzz::project_from_input(trl::fuzz::as_text(data, size));
  const auto& knowledge = trl::Knowledge::get();
  auto runs = trl::build_runs(project, knowledge);
  auto diags = trl::collect_diagnostics(project, runs, trl::Selection{});
  std::ostringstream out;
  for (const auto& name : trl::output_format_names())
    trl::print_report(out, *trl::parse_output_format(name), diags, project, trl::ReportOptions{true});
  trl::print_runs(out, runs, project);
  for (const auto& r : runs) trl::print_run(out, r, project);
  // The same input gives the same output.
  auto again = trl::collect_diagnostics(project, runs, trl::Selection{});
  std::ostringstream out2;
  trl::print_concise(out2, again, project);
  std::ostringstream out1;
  trl::print_concise(out1, diags, project);
  if (out1.str() != out2.str()) __builtin_trap();
  // Every file's facts (shell, Markdown, notebooks, pins too) survive the facts pack.
  for (const auto& f : project.facts) trl::fuzz::check_facts_codec(f, {});
  return 0;
}
