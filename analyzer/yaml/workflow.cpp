#include "analyzer/yaml/workflow.hpp"

#include "analyzer/shell/shell_words.hpp"

namespace trl::yaml {

bool is_workflow_path(std::string_view path) {
  auto pos = path.find(".github/workflows/");
  return pos != std::string_view::npos && (pos == 0 || path[pos - 1] == '/');
}

namespace {

const YamlNode* child(const YamlNode* n, std::string_view key, YamlNode::Kind kind) {
  if (!n || n->kind != YamlNode::Kind::Mapping) return nullptr;
  const YamlEntry* e = n->find(key);
  return e && e->value && e->value->kind == kind ? e->value.get() : nullptr;
}

// `${{ expr }}` is filled in by the runner before the shell sees the script: unknown.
bool has_expression(std::string_view s) {
  return s.find("${{") != std::string_view::npos;
}

void add_env(const YamlNode* env, std::vector<shell::PredefinedVar>& vars) {
  if (!env || env->kind != YamlNode::Kind::Mapping) return;
  for (const auto& e : env->entries) {
    shell::PredefinedVar v{e.key, "", true, true};
    if (e.value && e.value->kind == YamlNode::Kind::Scalar && !has_expression(e.value->raw)) {
      v.value = e.value->scalar.kind == Scalar::Kind::Str ? e.value->scalar.s : e.value->raw;
    } else {
      v.known = false;
    }
    std::erase_if(vars, [&](const shell::PredefinedVar& o) { return o.name == v.name; });
    vars.push_back(v);
  }
}

bool blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

std::size_t indent_of(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

// Joins in place the lines of a scalar's text [b, e) that YAML folds into one: a line break after
// a non-empty line becomes a space, and the breaks after empty lines stay (PyYAML's
// scan_line_break / scan_block_scalar folding). `block`: a folded block scalar (`>`), where the
// breaks around a more-indented line are kept as well. Other characters keep their offsets, so the
// spans stay right; the leading blanks YAML drops are blanks for the shell too.
void fold_lines(std::string& text, std::size_t b, std::size_t e, bool block) {
  struct Line {
    std::size_t begin, end;  // end: the line break, or e
    bool empty, more;
  };
  std::vector<Line> lines;
  for (std::size_t p = b; p <= e;) {
    std::size_t nl = text.find('\n', p);
    if (nl == std::string::npos || nl > e) nl = e;
    lines.push_back({p, nl, blank(std::string_view(text).substr(p, nl - p)), false});
    if (nl >= e) break;
    p = nl + 1;
  }
  if (block) {
    std::size_t indent = std::string::npos;
    for (const Line& l : lines)
      if (!l.empty) {
        indent = indent_of(std::string_view(text).substr(l.begin, l.end - l.begin));
        break;
      }
    for (Line& l : lines) {
      std::string_view t = std::string_view(text).substr(l.begin, l.end - l.begin);
      l.more = !l.empty && indent != std::string::npos && t.size() > indent && (t[indent] == ' ' || t[indent] == '\t');
    }
  }
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i].empty || lines[i].more || lines[i].end >= e) continue;
    std::size_t next = i + 1;
    while (next < lines.size() && lines[next].empty) ++next;
    if (next == lines.size() || lines[next].more) continue;
    text[lines[i].end] = ' ';
  }
}

}  // namespace

shell::ShellFacts workflow_commands(const YamlDocument& doc, std::string_view text, FileId file) {
  shell::ShellFacts out;
  const YamlNode* root = doc.root.get();
  const YamlNode* jobs = child(root, "jobs", YamlNode::Kind::Mapping);
  if (!jobs) return out;
  std::vector<shell::PredefinedVar> top;
  add_env(child(root, "env", YamlNode::Kind::Mapping), top);
  auto default_dir = [](const YamlNode* n) {
    return child(child(child(n, "defaults", YamlNode::Kind::Mapping), "run", YamlNode::Kind::Mapping),
                 "working-directory", YamlNode::Kind::Scalar);
  };
  // `defaults: run: working-directory:` of the workflow applies to every job without its own.
  const YamlNode* workflow_dir = default_dir(root);
  for (const auto& job : jobs->entries) {
    const YamlNode* j = job.value.get();
    std::vector<shell::PredefinedVar> job_env = top;
    add_env(child(j, "env", YamlNode::Kind::Mapping), job_env);
    const YamlNode* job_dir = default_dir(j);
    if (!job_dir) job_dir = workflow_dir;
    const YamlNode* steps = child(j, "steps", YamlNode::Kind::Sequence);
    if (!steps) continue;
    for (const auto& step : steps->items) {
      const YamlNode* run = child(step.get(), "run", YamlNode::Kind::Scalar);
      if (!run || run->span.end > text.size() || run->span.begin >= run->span.end) continue;
      std::vector<shell::PredefinedVar> env = job_env;
      add_env(child(step.get(), "env", YamlNode::Kind::Mapping), env);
      const YamlNode* dir = child(step.get(), "working-directory", YamlNode::Kind::Scalar);
      if (!dir) dir = job_dir;
      shell::ExtractOptions opts{env, "", true};
      if (dir) {
        // Relative to the repository root; the workflow file sits two folders below it.
        if (has_expression(dir->raw) || dir->raw.empty() || dir->raw[0] == '/')
          opts.cwd_known = false;
        else
          opts.cwd = "../../" + dir->raw;
      } else {
        opts.cwd = "../..";
      }
      // The script in place, from the start of its first line; the rest of that line blank.
      // The text starts where the line does, so the shell extractor only adds the line's offset
      // and number to its spans (parsing a blank copy of the whole file up to each step made a
      // workflow's steps cost the square of its length).
      std::size_t line_begin = run->span.begin;
      while (line_begin > 0 && text[line_begin - 1] != '\n') --line_begin;
      opts.base_offset = static_cast<std::uint32_t>(line_begin);
      opts.base_line = run->span.start.line;
      std::string virt(run->span.end - line_begin, ' ');
      std::size_t b = run->span.begin, e = run->span.end;
      if (run->style == ScalarStyle::Literal || run->style == ScalarStyle::Folded) {
        std::size_t nl = text.find('\n', b);  // skip the `|` / `>-` header
        b = nl == std::string_view::npos ? e : nl;
      } else if (run->style == ScalarStyle::SingleQuoted || run->style == ScalarStyle::DoubleQuoted) {
        ++b;
        if (e > b) --e;
      }
      for (std::size_t i = b; i < e; ++i) virt[i - line_begin] = text[i];
      // The shell runs the scalar's value: a folded (`>`) or flow scalar's lines are joined as
      // YAML joins them (a literal `|` block keeps its lines). A double-quoted scalar with an
      // escape is left as written: `\` at a line's end joins without a space.
      std::string layout;
      const bool escaped =
          run->style == ScalarStyle::DoubleQuoted && text.substr(b, e - b).find('\\') != std::string_view::npos;
      if (run->style != ScalarStyle::Literal && !escaped && b < e) {
        layout = virt;
        fold_lines(virt, b - line_begin + (run->style == ScalarStyle::Folded ? 1 : 0), e - line_begin,
                   run->style == ScalarStyle::Folded);
        opts.line_layout = layout;
      }
      auto facts = shell::extract(virt, file, opts);
      for (auto& c : facts.commands) out.commands.push_back(std::move(c));
      for (auto& c : facts.created) out.created.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace trl::yaml
