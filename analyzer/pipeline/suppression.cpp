#include "analyzer/pipeline/suppression.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "analyzer/pipeline/judge.hpp"
#include "analyzer/report/location.hpp"
#include "rules/registry.hpp"
#include "rules/tool/tool_rules.hpp"

namespace trl {

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

// Case-insensitive `word` at `pos` of `s`, not followed by a word character.
bool keyword_at(std::string_view s, std::size_t pos, std::string_view word) {
  if (pos + word.size() > s.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[pos + i])) != word[i]) return false;
  return pos + word.size() == s.size() || !word_char(s[pos + word.size()]);
}

std::size_t skip_blanks(std::string_view s, std::size_t pos) {
  while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
  return pos;
}

Span sub_span(const Span& comment, std::size_t from, std::size_t to) {
  Span s = comment;
  s.begin = comment.begin + static_cast<std::uint32_t>(from);
  s.end = comment.begin + static_cast<std::uint32_t>(to);
  s.start = Point{comment.start.line, comment.start.column + static_cast<std::uint32_t>(from)};
  s.stop = Point{comment.start.line, comment.start.column + static_cast<std::uint32_t>(to)};
  return s;
}

// Parses `[: CODE[, CODE]...]` after the `noqa` keyword ending at `pos`; returns the end of the
// directive.
std::size_t parse_codes(std::string_view text, std::size_t pos, const Span& comment, NoqaDirective& d) {
  std::size_t end = pos;
  std::size_t p = skip_blanks(text, pos);
  if (p >= text.size() || text[p] != ':') {
    d.blanket = true;  // `# noqa` (flake8 also reads `# noqa E501` as a bare noqa)
    return end;
  }
  end = ++p;
  for (;;) {
    while (p < text.size() && (text[p] == ' ' || text[p] == '\t' || text[p] == ',')) ++p;
    std::size_t b = p;
    while (p < text.size() && std::isalpha(static_cast<unsigned char>(text[p]))) ++p;
    std::size_t letters = p;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p]))) ++p;
    if (letters == b || p == letters || (p < text.size() && word_char(text[p]))) break;
    std::string code(text.substr(b, p - b));
    for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    d.codes.push_back({std::move(code), sub_span(comment, b, p)});
    end = p;
  }
  if (d.codes.empty()) {
    // Not a bare `# noqa`: a colon promises codes. Reading it as "every code" would silence
    // everything on the line for a typo; it suppresses nothing instead, and TRL910 reports it.
    d.invalid = true;
    std::size_t b = skip_blanks(text, end);
    std::size_t e = b;
    while (e < text.size() && text[e] != ' ' && text[e] != '\t' && text[e] != ',' && text[e] != '#') ++e;
    d.invalid_word = std::string(text.substr(b, e - b));
    if (e > end) end = e;
  }
  return end;
}

}  // namespace

std::vector<NoqaDirective> parse_noqa(std::string_view text, const Span& span) {
  std::vector<NoqaDirective> out;
  std::size_t pos = 0;
  while ((pos = text.find('#', pos)) != std::string_view::npos) {
    const std::size_t hash = pos;
    std::size_t p = skip_blanks(text, hash + 1);
    NoqaDirective d;
    d.comment = span;
    std::size_t end = std::string_view::npos;
    if (keyword_at(text, p, "trl-lint")) {
      p = skip_blanks(text, p + 8);
      if (p < text.size() && text[p] == ':') {
        p = skip_blanks(text, p + 1);
        if (keyword_at(text, p, "noqa")) {
          d.file_level = true;
          end = parse_codes(text, p + 4, span, d);
        }
      }
    } else if (keyword_at(text, p, "noqa")) {
      end = parse_codes(text, p + 4, span, d);
    }
    if (end == std::string_view::npos) {
      pos = hash + 1;
      continue;
    }
    d.span = sub_span(span, hash, end);
    out.push_back(std::move(d));
    pos = std::max(end, hash + 1);
  }
  return out;
}

namespace {

struct Entry {
  FileId file;
  NoqaDirective directive;
  bool used_blanket = false;
  std::vector<bool> used;  // per code
};

bool is_known_code(const std::string& code) {
  return find_rule(code) != nullptr;
}

class Suppressor {
 public:
  explicit Suppressor(const Project& project) {
    for (FileId id = 0; id < project.facts.size(); ++id) {
      for (const auto& c : project.facts[id].comments) {
        for (auto& d : parse_noqa(c.text, c.span)) {
          Entry e{id, std::move(d)};
          e.used.assign(e.directive.codes.size(), false);
          entries.push_back(std::move(e));
        }
      }
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const Entry& e = entries[i];
      by_file[e.file].push_back(i);
    }
  }

  // True when a directive at one of the finding's locations names its code; marks those used.
  // A finding that lists several launches (RelatedLocation::launch) loses the launches whose line
  // carries such a directive, and is suppressed only when every launch does (or a directive sits
  // at one of its other locations).
  bool suppresses(Diagnostic& d, bool mark) {
    const auto launches = static_cast<std::size_t>(
        std::count_if(d.related.begin(), d.related.end(), [](const RelatedLocation& r) { return r.launch; }));
    if (launches > 1) {
      std::vector<bool> silenced(d.related.size(), false);
      std::size_t count = 0;
      for (std::size_t i = 0; i < d.related.size(); ++i)
        if (d.related[i].launch && hits(d, d.related[i].span, false)) {
          silenced[i] = true;
          ++count;
        }
      if (count == launches) {
        for (std::size_t i = 0; i < d.related.size(); ++i)
          if (silenced[i]) hits(d, d.related[i].span, mark);
        return true;
      }
      bool hit = hits(d, d.span, mark);
      for (std::size_t i = 0; i < d.related.size(); ++i)
        if (!d.related[i].launch) hit = hits(d, d.related[i].span, mark) || hit;
      for (std::size_t i = 0; i < d.related.size(); ++i)
        if (silenced[i]) hits(d, d.related[i].span, mark);
      if (hit || !mark || count == 0) return hit;
      std::size_t i = 0;
      std::erase_if(d.related, [&](const RelatedLocation&) { return silenced[i++]; });
      return false;
    }
    bool hit = hits(d, d.span, mark);
    for (const auto& r : d.related) hit = hits(d, r.span, mark) || hit;
    return hit;
  }

  // True when a directive on the first or last line of `s` names the finding's code (or is a
  // blanket one); marks those used when `mark`.
  bool hits(const Diagnostic& d, const Span& s, bool mark) {
    bool hit = false;
    auto visit = [&](const Span& s) {
      if (!s.valid()) return;
      auto it = by_file.find(s.file);
      if (it == by_file.end()) return;
      for (std::size_t i : it->second) {
        Entry& e = entries[i];
        const std::uint32_t line = e.directive.span.start.line;
        if (!e.directive.file_level && line != first_line(s) && line != last_line(s)) continue;
        if (e.directive.blanket) {
          hit = true;
          if (mark) e.used_blanket = true;
          continue;
        }
        for (std::size_t k = 0; k < e.directive.codes.size(); ++k) {
          if (e.directive.codes[k].code != d.code) continue;
          hit = true;
          if (mark) e.used[k] = true;
        }
      }
    };
    visit(s);
    return hit;
  }

  std::vector<Entry> entries;
  std::map<FileId, std::vector<std::size_t>> by_file;
};

Span span_of(const SourceFile& f, std::size_t begin, std::size_t end) {
  Span s;
  s.file = f.id;
  s.begin = static_cast<std::uint32_t>(begin);
  s.end = static_cast<std::uint32_t>(end);
  s.start = f.point_at(s.begin);
  s.stop = f.point_at(s.end);
  return s;
}

// The edit that takes the unused codes out of a directive, or removes it when none is left.
std::optional<Fix> unused_fix(const SourceFile& f, const NoqaDirective& d, const std::vector<std::string>& kept) {
  Fix fix;
  fix.safe = true;
  if (!kept.empty()) {
    std::string joined;
    for (const auto& k : kept) joined += (joined.empty() ? "" : ", ") + k;
    fix.title = "Remove the unused codes";
    fix.edits.push_back({span_of(f, d.codes.front().span.begin, d.codes.back().span.end), joined});
    return fix;
  }
  const std::string_view text = f.text;
  // Only a directive that ends its comment can go without leaving stray text behind.
  std::size_t comment_end = d.comment.end;
  while (comment_end > d.span.end && (text[comment_end - 1] == ' ' || text[comment_end - 1] == '\t')) --comment_end;
  if (comment_end != d.span.end) return std::nullopt;
  // A byte order mark is held as three spaces at the start: the file's first line starts after it.
  const std::size_t first = f.bom ? 3 : 0;
  std::size_t begin = d.span.begin;
  while (begin > first && (text[begin - 1] == ' ' || text[begin - 1] == '\t')) --begin;
  std::size_t end = d.comment.end;
  fix.title = "Remove the unused `noqa` directive";
  if (begin == first || text[begin - 1] == '\n') {
    // The comment is alone on its line (and the directive is all of it): remove the line.
    if (d.span.begin != d.comment.begin) return std::nullopt;
    // After a line ending in a backslash (shell, Makefile) the comment line ends the command;
    // without it the next line would join the command. No fix then, as the LSP's `noqa` action.
    std::size_t prev = begin;
    if (prev > first && text[prev - 1] == '\n') --prev;
    while (prev > first && (text[prev - 1] == ' ' || text[prev - 1] == '\t' || text[prev - 1] == '\r')) --prev;
    if (begin > first && prev > first && text[prev - 1] == '\\') return std::nullopt;
    if (end < text.size() && text[end] == '\r') ++end;
    if (end < text.size() && text[end] == '\n') ++end;
  }
  fix.edits.push_back({span_of(f, begin, end), ""});
  return fix;
}

}  // namespace

std::optional<TextEdit> noqa_edit(const Project& project, FileId file, std::uint32_t line,
                                  const std::vector<std::string>& codes) {
  if (file >= project.sources.size() || file >= project.facts.size()) return std::nullopt;
  const SourceFile& f = project.sources.get(file);
  if (f.kind == FileKind::Json || f.kind == FileKind::Notebook || f.kind == FileKind::Other) return std::nullopt;
  if (line >= f.line_starts.size()) return std::nullopt;
  const std::string_view text = f.line_text(line);
  std::size_t end = text.size();
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r')) --end;
  // A `noqa` with codes on the line takes the missing ones.
  for (const auto& c : project.facts[file].comments) {
    if (c.span.start.line != line) continue;
    for (const auto& dir : parse_noqa(c.text, c.span)) {
      if (dir.file_level || dir.blanket || dir.invalid) continue;
      std::string add;
      for (const auto& code : codes) {
        const bool listed =
            std::any_of(dir.codes.begin(), dir.codes.end(), [&](const NoqaCode& k) { return k.code == code; });
        if (!listed && add.find(code) == std::string::npos) add += ", " + code;
      }
      if (add.empty()) return std::nullopt;
      return TextEdit{span_of(f, dir.span.end, dir.span.end), add};
    }
  }
  if (end > 0 && text[end - 1] == '\\') return std::nullopt;
  std::string insert = end == 0 ? "# noqa: " : "  # noqa: ";
  for (std::size_t i = 0; i < codes.size(); ++i) insert += (i ? ", " : "") + codes[i];
  const std::size_t at = f.line_starts[line] + end;
  return TextEdit{span_of(f, at, at), insert};
}

std::size_t apply_suppressions(const Project& project, std::vector<Diagnostic>& diags, const Selection& selection,
                               const EnabledInFile& enabled_in) {
  Suppressor sup(project);
  if (sup.entries.empty()) return 0;
  const std::size_t before = diags.size();
  std::erase_if(diags, [&](Diagnostic& d) { return sup.suppresses(d, true); });
  const std::size_t suppressed = before - diags.size();

  const RuleInfo* info = find_rule_info(tool_rules::kUnusedNoqa);
  if (!info || !selection.enabled(info->code)) return suppressed;
  std::vector<Diagnostic> unused;
  for (const Entry& e : sup.entries) {
    const NoqaDirective& d = e.directive;
    if (d.blanket) continue;  // a bare `# noqa` may be meant for flake8 or ruff
    if (d.invalid) {
      Diagnostic diag;
      diag.code = info->code;
      diag.name = info->name;
      diag.severity = info->severity;
      diag.span = d.span;
      diag.message = std::string("invalid ") + (d.file_level ? "file-level " : "") + "`noqa` directive: " +
                     (d.invalid_word.empty() ? std::string("no rule code after `:`")
                                             : "`" + d.invalid_word + "` is not a rule code") +
                     "; it suppresses nothing";
      diag.label = "suppresses nothing";
      std::string code;
      for (const auto& r : all_rules())
        if (r->info().name == d.invalid_word) code = r->info().code;
      diag.help = !code.empty() ? "write the rule's code: `# noqa: " + code + "`"
                                : "list rule codes after the colon (`# noqa: TRL101`), or write `# noqa` alone";
      unused.push_back(std::move(diag));
      continue;
    }
    std::vector<std::string> names, kept;
    for (std::size_t k = 0; k < d.codes.size(); ++k) {
      const std::string& code = d.codes[k].code;
      const bool ours = code.rfind("TRL", 0) == 0 && is_known_code(code) && code != info->code;
      // A code the directive's file disables (a nested configuration's `ignore`) is not unused;
      // one that `per-file-ignores` turns off is (the comment is redundant there, as in ruff).
      if (ours && !e.used[k] && selection.enabled(code) && (!enabled_in || enabled_in(e.file, code)))
        names.push_back(code);
      else
        kept.push_back(code);
    }
    if (names.empty()) continue;
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "`" : ", `") + n + "`";
    Diagnostic diag;
    diag.code = info->code;
    diag.name = info->name;
    diag.severity = info->severity;
    diag.span = d.span;
    diag.message =
        std::string("unused ") + (d.file_level ? "file-level " : "") + "`noqa` directive (unused: " + list + ")";
    diag.label = names.size() == 1 ? "suppresses nothing" : "these codes suppress nothing";
    if (auto fix = unused_fix(project.sources.get(e.file), d, kept))
      diag.fixes.push_back(std::move(*fix));
    else
      diag.help = kept.empty() ? "remove the directive" : "remove the unused codes";
    unused.push_back(std::move(diag));
  }
  notebook_positions(project, unused);
  // TRL910 can itself be suppressed (`# noqa: TRL910`, `# trl-lint: noqa: TRL910`).
  for (auto& d : unused)
    if (!sup.suppresses(d, false)) diags.push_back(std::move(d));
  sort_diagnostics(project, diags);
  return suppressed;
}

}  // namespace trl
