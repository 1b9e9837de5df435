// trl-lint: the command-line entry point.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "analyzer/eval/run_builder.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/report/baseline.hpp"
#include "analyzer/report/formatters.hpp"
#include "analyzer/report/report.hpp"
#include "analyzer/report/suppression.hpp"
#include "rules/registry.hpp"

namespace {

std::vector<std::string> split_codes(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const auto& s : in) {
    std::size_t start = 0;
    while (start <= s.size()) {
      auto comma = s.find(',', start);
      std::string part = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!part.empty()) out.push_back(part);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

int print_rule(const std::string& code, bool all) {
  if (all) {
    for (const auto& r : trl::all_rules()) {
      const auto& i = r->info();
      std::cout << i.code << "  " << i.name << "  (" << trl::to_string(i.severity) << ")  " << i.summary << '\n';
    }
    for (const auto* i : trl::all_rule_infos()) {
      if (trl::find_rule(i->code)) continue;  // listed above
      std::cout << i->code << "  " << i->name << "  (" << trl::to_string(i->severity) << ")  " << i->summary << '\n';
    }
    return 0;
  }
  const trl::RuleInfo* info = nullptr;
  if (const trl::Rule* r = trl::find_rule(code)) info = &r->info();
  if (!info) info = trl::file_problem_info(code);
  if (!info) {
    std::cerr << "trl-lint: unknown rule `" << code << "` (see `trl-lint rule --all`)\n";
    return 2;
  }
  std::cout << "# " << info->name << " (" << info->code << ")\n\n"
            << "Severity: " << trl::to_string(info->severity) << "\n\n"
            << info->summary << "\n\n"
            << info->doc;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"trl-lint: finds configuration mistakes in TRL / accelerate / transformers training setups"};
  app.set_version_flag("--version", "trl-lint 0.1.0");
  std::vector<std::string> paths;
  std::string format = "full";
  std::string color = "auto";
  unsigned threads = 0;
  std::uint64_t max_file_size_mb = 10;
  std::vector<std::string> select, ignore;
  bool exit_zero = false, quiet = false, statistics = false;
  std::string stdin_filename, baseline, write_baseline;
  app.add_option("paths", paths, "Files or folders to analyse (default: .)");
  app.add_option("--output-format", format, "Output format (default: full)")
      ->check(CLI::IsMember(trl::output_format_names()));
  app.add_option("--color", color, "Colour the output")->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--threads", threads, "Worker threads for parsing (default: number of cores)");
  app.add_option("--max-file-size", max_file_size_mb, "Skip files larger than this many MB (default 10)");
  app.add_option("--select", select, "Only these rule codes or prefixes (comma-separated)");
  app.add_option("--ignore", ignore, "Skip these rule codes or prefixes (comma-separated)");
  app.add_flag("--exit-zero", exit_zero, "Exit 0 even when there are findings");
  app.add_flag("-q,--quiet", quiet, "Print the findings only: no summary line, no notes on stderr");
  app.add_flag("--statistics", statistics, "Print how many findings each rule has instead of the findings");
  app.add_option("--stdin-filename", stdin_filename,
                 "Read this file's text from stdin (the rest of the project from disk); report the findings "
                 "that touch it");
  app.add_option("--baseline", baseline, "Report only findings not recorded in this baseline file");
  app.add_option("--write-baseline", write_baseline, "Record the current findings in this baseline file and exit 0");

  std::string rule_code;
  bool rule_all = false;
  auto* rule = app.add_subcommand("rule", "Print a rule's documentation");
  rule->add_option("code", rule_code, "Rule code (TRL101) or name");
  rule->add_flag("--all", rule_all, "List every rule");

  std::vector<std::string> run_paths;
  auto* runs_cmd = app.add_subcommand("runs", "List every training run found, one per line");
  runs_cmd->add_option("paths", run_paths, "Files or folders (default: .)");
  std::string run_ref;
  auto* show_cmd = app.add_subcommand("show-run", "Print the effective configuration of one run");
  show_cmd->add_option("run", run_ref, "Run name as `trl-lint runs` prints it (path:line or script path)")->required();
  show_cmd->add_option("--path", run_paths, "Files or folders (default: .)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  try {
    if (*rule) {
      if (!rule_all && rule_code.empty()) {
        std::cerr << "trl-lint rule: give a rule code, or --all\n";
        return 2;
      }
      return print_rule(rule_code, rule_all);
    }
    trl::LoadOptions options;
    if (!paths.empty()) options.paths = paths;
    if ((*runs_cmd || *show_cmd) && !run_paths.empty()) options.paths = run_paths;
    options.threads = threads;
    options.max_file_size = max_file_size_mb << 20;
    if (!stdin_filename.empty()) {
      std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
      options.overlay = trl::Overlay{stdin_filename, std::move(text)};
    }
    const trl::Knowledge& knowledge = trl::Knowledge::get();
    trl::Project project = trl::load_project(options);
    if (!project.missing_paths.empty()) {
      for (const auto& p : project.missing_paths) std::cerr << "trl-lint: " << p << ": no such file or directory\n";
      return 2;
    }
    auto runs = trl::build_runs(project, knowledge);
    if (*runs_cmd) {
      trl::print_runs(std::cout, runs, project);
      return 0;
    }
    if (*show_cmd) {
      for (const auto& r : runs)
        if (r.name == run_ref) {
          trl::print_run(std::cout, r, project);
          return 0;
        }
      std::cerr << "trl-lint show-run: no run named `" << run_ref << "` (see `trl-lint runs`)\n";
      return 2;
    }
    trl::Selection selection{split_codes(select), split_codes(ignore)};
    auto diags = trl::collect_diagnostics(project, runs, selection);
    trl::apply_suppressions(project, diags, selection);
    if (project.overlay_file != trl::kNoFile) {
      // Editors ask about one buffer: keep the findings located in it, or related to it.
      std::erase_if(diags, [&](const trl::Diagnostic& d) {
        if (d.span.file == project.overlay_file) return false;
        for (const auto& r : d.related)
          if (r.span.file == project.overlay_file) return false;
        return true;
      });
    }
    if (!baseline.empty()) trl::apply_baseline(baseline, diags, project);
    if (!write_baseline.empty()) {
      trl::write_baseline(write_baseline, diags, project);
      if (!quiet)
        std::cerr << "trl-lint: recorded " << diags.size() << " finding" << (diags.size() == 1 ? "" : "s") << " in "
                  << write_baseline << '\n';
      return 0;
    }
    const trl::OutputFormat output = *trl::parse_output_format(format);
    if (statistics) {
      trl::print_statistics(std::cout, diags,
                            output == trl::OutputFormat::Json || output == trl::OutputFormat::JsonLines);
    } else {
      trl::ReportOptions report;
      report.quiet = quiet;
      report.color = color == "always" || (color == "auto" && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR"));
      trl::print_report(std::cout, output, diags, project, report);
    }
    std::cout.flush();
    return diags.empty() || exit_zero ? 0 : 1;
  } catch (const trl::BaselineError& e) {
    std::cerr << "trl-lint: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "trl-lint: internal error: " << e.what() << '\n';
    return 2;
  }
}
