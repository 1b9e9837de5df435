// trl-lint: the command-line entry point.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "analyzer/eval/run_builder.hpp"
#include "analyzer/knowledge/knowledge.hpp"
#include "analyzer/report/report.hpp"
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
    for (const char* c : {"TRL901", "TRL902", "TRL903", "TRL904", "TRL905"}) {
      const auto* i = trl::file_problem_info(c);
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
  bool exit_zero = false;
  app.add_option("paths", paths, "Files or folders to analyse (default: .)");
  app.add_option("--output-format", format, "Output format")->check(CLI::IsMember({"full", "concise"}));
  app.add_option("--color", color, "Colour the output")->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_option("--threads", threads, "Worker threads for parsing (default: number of cores)")
      ->check(CLI::Range(0u, 256u));
  app.add_option("--max-file-size", max_file_size_mb, "Skip files larger than this many MB (default 10)")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{4095}));
  app.add_option("--select", select, "Only these rule codes or prefixes (comma-separated)");
  app.add_option("--ignore", ignore, "Skip these rule codes or prefixes (comma-separated)");
  app.add_flag("--exit-zero", exit_zero, "Exit 0 even when there are findings");

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
    if (format == "concise") {
      trl::print_concise(std::cout, diags, project);
    } else {
      bool use_color = color == "always" || (color == "auto" && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR"));
      trl::print_full(std::cout, diags, project, use_color);
    }
    std::cout.flush();
    return diags.empty() || exit_zero ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "trl-lint: internal error: " << e.what() << '\n';
    return 2;
  }
}
