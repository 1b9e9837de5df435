#include "analyzer/fix/fixer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "analyzer/parse/syntax_check.hpp"

namespace fs = std::filesystem;

namespace trl {

namespace {

bool overlaps(const TextEdit& a, const TextEdit& b) {
  if (a.span.file != b.span.file) return false;
  // Two edits at the same place have no defined order; a proper overlap cannot be applied.
  return a.span.begin == b.span.begin || (a.span.begin < b.span.end && b.span.begin < a.span.end);
}

bool same_edit(const TextEdit& a, const TextEdit& b) {
  return a.span.file == b.span.file && a.span.begin == b.span.begin && a.span.end == b.span.end &&
         a.replacement == b.replacement;
}

// The three bytes a UTF-8 byte order mark takes at the start of `f` (0 without one).
std::uint32_t bom_size(const SourceFile& f) {
  return f.bom ? 3 : 0;
}

// The fix of `d` the options allow, if its edits are well-formed. In a file with a byte order mark
// an edit starts after it (the analysed text holds the mark as three spaces, which are no content):
// an edit over the start keeps the mark, one inside the mark only is not a fix.
std::optional<Fix> chosen_fix(const Diagnostic& d, const Project& project, const FixOptions& options) {
  for (const Fix& candidate : d.fixes) {
    if (!candidate.safe && !options.unsafe) continue;
    if (candidate.edits.empty()) continue;
    Fix fix = candidate;
    bool ok = true;
    for (std::size_t i = 0; ok && i < fix.edits.size(); ++i) {
      TextEdit& e = fix.edits[i];
      if (e.span.file == kNoFile || e.span.file >= project.sources.size() || !project.facts[e.span.file].loaded) {
        ok = false;
        break;
      }
      const SourceFile& f = project.sources.get(e.span.file);
      if (e.span.begin > e.span.end || e.span.end > f.text.size()) ok = false;
      if (ok && e.span.begin < bom_size(f)) {
        if (e.span.end <= bom_size(f) && e.span.end > e.span.begin) ok = false;  // the mark alone
        e.span.begin = bom_size(f);
        e.span.end = std::max(e.span.end, bom_size(f));
        e.span.start = f.point_at(e.span.begin);
        e.span.stop = f.point_at(e.span.end);
      }
      for (std::size_t j = 0; ok && j < i; ++j)
        if (overlaps(e, fix.edits[j])) ok = false;
    }
    if (ok) return fix;
  }
  return std::nullopt;
}

// Problems the extractor reports plus tree-sitter's syntax errors: what "parses as well" compares.
std::size_t parse_problems(const SourceFile& original, const std::string& text) {
  Project scratch;
  auto file = std::make_unique<SourceFile>();
  file->path = original.path;
  file->abs_path = original.abs_path;
  file->kind = original.kind;
  file->text = text;
  file->bom = original.bom;
  file->index_lines();
  scratch.sources.add(std::move(file));
  scratch.facts.resize(1);
  scratch.facts[0].loaded = true;
  extract_file(scratch, 0);
  return scratch.facts[0].problems.size() + syntax_error_count(original.kind, text);
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    out.push_back(text.substr(start, end - start));
    start = end;
  }
  return out;
}

enum class Op { Equal, Delete, Insert };

// Myers' O((N+M)D) shortest edit script over lines; nullopt when the difference is too large
// to trace in bounded memory (then the caller replaces the whole block).
std::optional<std::vector<Op>> myers(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  const long n = static_cast<long>(a.size()), m = static_cast<long>(b.size());
  const long max = n + m;
  const long offset = max + 1;
  std::vector<long> v(static_cast<std::size_t>(2 * max + 3), 0);
  std::vector<std::vector<long>> trace;
  long found_d = -1;
  for (long d = 0; d <= max; ++d) {
    if (static_cast<long long>(trace.size() + 1) * static_cast<long long>(v.size()) > 40'000'000) return std::nullopt;
    trace.push_back(v);
    for (long k = -d; k <= d; k += 2) {
      long x =
          (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found_d = d;
        break;
      }
    }
    if (found_d >= 0) break;
  }
  std::vector<Op> ops;
  long x = n, y = m;
  for (long d = found_d; d > 0; --d) {
    const std::vector<long>& pv = trace[static_cast<std::size_t>(d)];
    const long k = x - y;
    const long prev_k = (k == -d || (k != d && pv[offset + k - 1] < pv[offset + k + 1])) ? k + 1 : k - 1;
    const long prev_x = pv[offset + prev_k];
    const long prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) ops.push_back(Op::Equal), --x, --y;
    ops.push_back(x == prev_x ? Op::Insert : Op::Delete);
    x = prev_x;
    y = prev_y;
  }
  while (x > 0 && y > 0) ops.push_back(Op::Equal), --x, --y;
  std::reverse(ops.begin(), ops.end());
  return ops;
}

void emit_line(std::string& out, char prefix, std::string_view line) {
  out.push_back(prefix);
  if (!line.empty() && line.back() == '\n') {
    out.append(line);
  } else {
    out.append(line);
    out += "\n\\ No newline at end of file\n";
  }
}

}  // namespace

std::string text_on_disk(const SourceFile& file, std::string_view text) {
  std::string out(text);
  if (file.bom && out.rfind("   ", 0) == 0) out.replace(0, 3, "\xEF\xBB\xBF");
  return out;
}

std::string apply_edits(std::string_view text, std::vector<TextEdit> edits) {
  std::stable_sort(edits.begin(), edits.end(),
                   [](const TextEdit& a, const TextEdit& b) { return a.span.begin < b.span.begin; });
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  for (const auto& e : edits) {
    if (e.span.begin < at || e.span.end > text.size()) continue;  // overlapping or out of range: skipped
    out.append(text.substr(at, e.span.begin - at));
    out.append(e.replacement);
    at = e.span.end;
  }
  out.append(text.substr(at));
  return out;
}

FixPlan plan_fixes(const std::vector<Diagnostic>& diags, const Project& project, const FixOptions& options) {
  std::set<FileId> refused_files;
  for (;;) {
    FixPlan plan;
    plan.fixed.assign(diags.size(), false);
    std::map<FileId, std::vector<TextEdit>> accepted;
    std::map<FileId, std::vector<std::size_t>> applied;
    for (std::size_t i = 0; i < diags.size(); ++i) {
      const std::optional<Fix> fix = chosen_fix(diags[i], project, options);
      if (!fix) continue;
      bool touches_refused = false, already = true, conflict = false;
      for (const auto& e : fix->edits) {
        touches_refused = touches_refused || refused_files.count(e.span.file);
        auto& taken = accepted[e.span.file];
        const bool dup = std::any_of(taken.begin(), taken.end(), [&](const TextEdit& t) { return same_edit(t, e); });
        already = already && dup;
        if (!dup && std::any_of(taken.begin(), taken.end(), [&](const TextEdit& t) { return overlaps(t, e); }))
          conflict = true;
      }
      if (touches_refused) continue;
      if (already) {  // the same edits through another diagnostic (one YAML used by two runs)
        plan.fixed[i] = true;
        for (const auto& e : fix->edits) applied[e.span.file].push_back(i);
        continue;
      }
      if (conflict) {
        ++plan.deferred;
        continue;
      }
      for (const auto& e : fix->edits) {
        accepted[e.span.file].push_back(e);
        applied[e.span.file].push_back(i);
      }
      plan.fixed[i] = true;
    }
    bool refused_now = false;
    for (auto& [file, edits] : accepted) {
      if (edits.empty()) continue;
      const SourceFile& f = project.sources.get(file);
      std::string fixed = apply_edits(f.text, edits);
      if (fixed == f.text) continue;
      if (parse_problems(f, fixed) > parse_problems(f, f.text)) {
        refused_files.insert(file);
        refused_now = true;
        continue;
      }
      auto& ids = applied[file];
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      plan.files.push_back({file, std::move(fixed), ids});
    }
    if (refused_now) continue;  // drop every fix that touches a refused file, then plan again
    for (FileId file : refused_files)
      plan.refused.push_back(project.sources.get(file).path +
                             ": not fixed: the fixed text would not parse as well as the original");
    return plan;
  }
}

std::string unified_diff(const std::string& path, std::string_view before, std::string_view after) {
  if (before == after) return "";
  std::vector<std::string_view> a = split_lines(before), b = split_lines(after);
  // Common prefix and suffix are context; only the middle needs the edit script.
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  std::vector<std::string_view> am(a.begin() + static_cast<long>(pre), a.end() - static_cast<long>(suf));
  std::vector<std::string_view> bm(b.begin() + static_cast<long>(pre), b.end() - static_cast<long>(suf));
  std::vector<Op> ops(pre, Op::Equal);
  if (auto mid = myers(am, bm)) {
    ops.insert(ops.end(), mid->begin(), mid->end());
  } else {
    ops.insert(ops.end(), am.size(), Op::Delete);
    ops.insert(ops.end(), bm.size(), Op::Insert);
  }
  ops.insert(ops.end(), suf, Op::Equal);

  constexpr std::size_t kContext = 3;
  std::string out = "--- a/" + path + "\n+++ b/" + path + "\n";
  // Positions (index into ops, line in a, line in b) of each op.
  std::vector<std::size_t> ai(ops.size() + 1), bi(ops.size() + 1);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    ai[i + 1] = ai[i] + (ops[i] != Op::Insert);
    bi[i + 1] = bi[i] + (ops[i] != Op::Delete);
  }
  std::size_t i = 0;
  while (i < ops.size()) {
    if (ops[i] == Op::Equal) {
      ++i;
      continue;
    }
    std::size_t start = i >= kContext ? i - kContext : 0;
    while (start < i && ops[start] != Op::Equal) ++start;  // (cannot happen: earlier changes joined)
    std::size_t end = i;                                   // one past the last change of the hunk
    for (;;) {
      while (end < ops.size() && ops[end] != Op::Equal) ++end;
      std::size_t next = end;
      while (next < ops.size() && ops[next] == Op::Equal) ++next;
      if (next < ops.size() && next - end <= 2 * kContext) {
        end = next;
        continue;
      }
      break;
    }
    const std::size_t stop = std::min(ops.size(), end + kContext);
    const std::size_t a_len = ai[stop] - ai[start], b_len = bi[stop] - bi[start];
    const std::size_t a_from = a_len ? ai[start] + 1 : ai[start], b_from = b_len ? bi[start] + 1 : bi[start];
    out += "@@ -" + std::to_string(a_from) + (a_len == 1 ? "" : "," + std::to_string(a_len)) + " +" +
           std::to_string(b_from) + (b_len == 1 ? "" : "," + std::to_string(b_len)) + " @@\n";
    for (std::size_t k = start; k < stop; ++k) {
      switch (ops[k]) {
        case Op::Equal: emit_line(out, ' ', a[ai[k]]); break;
        case Op::Delete: emit_line(out, '-', a[ai[k]]); break;
        case Op::Insert: emit_line(out, '+', b[bi[k]]); break;
      }
    }
    i = stop;
  }
  return out;
}

namespace {

std::string error_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

bool read_all(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

bool same_stat(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec &&
         a.st_ino == b.st_ino;
}

}  // namespace

std::string write_fixed_file(const SourceFile& file, const std::string& fixed) {
  std::error_code ec;
  // Write through a symlink to the file it names, so the link stays a link.
  const fs::path target = fs::canonical(file.abs_path, ec);
  if (ec) return "cannot resolve the file: " + ec.message();
  struct stat before {};
  if (::stat(target.c_str(), &before) != 0) return error_text("cannot stat the file");
  if (!S_ISREG(before.st_mode)) return "not a regular file";
  // The new text replaces the file by a rename: a hard link would keep the old text, and a
  // read-only file would be written all the same (the folder's permission is what counts).
  if (before.st_nlink > 1)
    return "the file has " + std::to_string(before.st_nlink) +
           " hard links, which a fix would separate from each other; not fixed";
  if ((before.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0) return "the file is read-only; not fixed";
  std::string raw;
  if (!read_all(target.string(), raw)) return "cannot read the file back";
  // The loader reads a UTF-8 byte order mark as three spaces; compare (and write) the bytes on disk.
  if (raw != text_on_disk(file, file.text)) return "the file changed since it was read; not fixed (run again)";
  // The mark is the file's when it had one, and only then (fixes leave its three bytes alone).
  if (file.bom && fixed.rfind("   ", 0) != 0) return "the fix would remove the byte order mark; not fixed";
  const std::string out = text_on_disk(file, fixed);

  std::string tmp = (target.parent_path() / ("." + target.filename().string() + ".trl-lint-XXXXXX")).string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return error_text("cannot create a temporary file next to it");
  auto fail = [&](const char* what) {
    std::string message = error_text(what);
    ::close(fd);
    ::unlink(tmp.c_str());
    return message;
  };
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("cannot write the temporary file");
    }
    done += static_cast<std::size_t>(n);
  }
  // The owner and group first (a change of owner clears set-id bits), then the mode. Only root
  // can give a file to another user: a file someone else owns is not fixed rather than taken.
  if ((before.st_uid != ::geteuid() || before.st_gid != ::getegid()) && ::fchown(fd, before.st_uid, before.st_gid) != 0)
    return fail("cannot give the fixed file the owner and group of the original; not fixed");
  if (::fchmod(fd, before.st_mode & 07777) != 0) return fail("cannot set the mode of the temporary file");
  if (::fsync(fd) != 0) return fail("cannot flush the temporary file");
  if (::close(fd) != 0) {
    std::string message = error_text("cannot close the temporary file");
    ::unlink(tmp.c_str());
    return message;
  }
  // Last check: nobody wrote the file while we prepared the new text.
  struct stat now {};
  if (::stat(target.c_str(), &now) != 0 || !same_stat(before, now)) {
    ::unlink(tmp.c_str());
    return "the file changed while it was being fixed; not fixed (run again)";
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    std::string message = error_text("cannot replace the file");
    ::unlink(tmp.c_str());
    return message;
  }
  return "";
}

}  // namespace trl
