#include "analyzer/parse/tree_sitter.hpp"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace trl::ts {

namespace {
// Whether this build runs under a sanitizer whose allocator is not safe to use in the child of a
// fork of a multi-threaded process (see parse_in_child).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizedAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kSanitizedAllocator = true;
#else
constexpr bool kSanitizedAllocator = false;
#endif
#else
constexpr bool kSanitizedAllocator = false;
#endif

// The probe runs from a constructor given the program's arguments, which glibc passes to
// constructors (musl and others do not): elsewhere there is no probe, only the fork.
#if defined(__GLIBC__)
constexpr bool kProbeAvailable = true;
#else
constexpr bool kProbeAvailable = false;
#endif

struct ParserDeleter {
  void operator()(TSParser* p) const { ts_parser_delete(p); }
};

// The CPU time one parse may take is bounded without a thread of its own. tree-sitter's timeout
// counts wall-clock time, which would make the result depend on the machine's load (a busy CI
// box would skip files a quiet one parses), so it only ends an attempt: an attempt that times out
// is started again from the beginning, with twice the time but never more than the CPU budget
// has left, until the thread's CPU clock says the parse has used its budget. An attempt is never
// resumed, although tree-sitter 0.20.7 can (tree_sitter/api.h, ts_parser_parse): a resumed parse
// advances its stack versions in another order than an uninterrupted one, and on text with
// syntax errors a different version can win, so the tree would depend on where the attempt was
// cut. The first attempt has as much wall time as the whole CPU budget: a parse that takes
// longer than that is a pathology. (This was a watchdog thread that woke every 50 ms for the life
// of the process: one more thread to start in every run, and a lock, a list entry and two
// CPU-clock reads for every parse.)
constexpr std::uint64_t kFirstAttemptMicros = static_cast<std::uint64_t>(kParseCpuBudgetSeconds * 1e6);
std::atomic<std::uint64_t> first_attempt_micros{kFirstAttemptMicros};

double thread_cpu_seconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::atomic<double> cpu_budget_seconds{kParseCpuBudgetSeconds};

// Tests only: which other process parse_in_child may use.
std::atomic<OtherProcess> other_process_for_testing{OtherProcess::Probe};

// The parses on this thread that ended Unchecked (see unchecked_parses).
thread_local std::uint64_t unchecked_count = 0;

// tree-sitter 0.20.7 (Debian 12) corrupts its heap when one run of "extras" (comments, line
// continuations) reaches 65,535 tokens (tree-sitter issue #2134, fixed in 0.20.8: a node's child
// count was 16 bits, see may_overflow_child_count). All three
// grammars write comments with `#`; a run is the comment-only, continuation-only and blank
// lines between two lines of code. Runs that long are blanked (bytes become spaces, so every
// offset, line and column stays the same): a 60,000-line comment holds nothing trl-lint reads.
constexpr std::size_t kMaxExtrasRun = 60000;

std::optional<std::string> without_long_extra_runs(std::string_view text) {
  std::optional<std::string> copy;
  std::size_t run_start = 0, run_extras = 0, pos = 0;
  auto close_run = [&](std::size_t end) {
    if (run_extras >= kMaxExtrasRun) {
      if (!copy) copy.emplace(text);
      for (std::size_t i = run_start; i < end; ++i)
        if ((*copy)[i] != '\n' && (*copy)[i] != '\r') (*copy)[i] = ' ';
    }
    run_extras = 0;
  };
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    std::size_t a = line.find_first_not_of(" \t\r\f\v");
    const bool blank = a == std::string_view::npos;
    const bool extra =
        !blank && (line[a] == '#' || line.substr(a).find_first_not_of("\\ \t\r") == std::string_view::npos);
    if (blank || extra) {
      if (run_extras == 0) run_start = pos;
      if (extra) ++run_extras;
    } else {
      close_run(pos);
    }
    pos = end + 1;
  }
  close_run(text.size());
  return copy;
}

}  // namespace

namespace {
thread_local Reparse* current_reparse = nullptr;
}  // namespace

ReparseScope::ReparseScope(Reparse& reparse) : previous_(current_reparse) {
  current_reparse = &reparse;
}
ReparseScope::~ReparseScope() {
  current_reparse = previous_;
}

bool sanitized_allocator() {
  return kSanitizedAllocator;
}

void set_other_process_for_testing(OtherProcess allowed) {
  other_process_for_testing.store(allowed);
}

std::uint64_t unchecked_parses() {
  return unchecked_count;
}

void set_parse_limits_for_testing(double budget_seconds, std::uint64_t first_attempt) {
  cpu_budget_seconds.store(budget_seconds);
  first_attempt_micros.store(first_attempt);
}

const TSLanguage* language_of(FileKind kind) {
  switch (kind) {
    case FileKind::Python: return tree_sitter_python();
    case FileKind::Yaml: return tree_sitter_yaml();
    case FileKind::Shell: return tree_sitter_bash();
    default: return nullptr;
  }
}

namespace {

thread_local ParseFailure last_failure = ParseFailure::None;

// Parses with `parser` in attempts (see first_attempt_micros); null when the CPU budget ran out.
// No attempt may take more wall-clock time than the CPU budget has left, and CPU time never
// exceeds wall-clock time: a parse that needs more than the budget is cancelled on any machine,
// however loaded, and one that needs less completes unless the machine gives it less than that
// share of a core.
Tree parse_in_attempts(TSParser* parser, const TSLanguage* language, const TSTree* old, std::string_view text) {
  const double budget = cpu_budget_seconds.load(std::memory_order_relaxed);
  double window = static_cast<double>(first_attempt_micros.load(std::memory_order_relaxed)) * 1e-6;
  const double started = thread_cpu_seconds();
  for (double left = budget; left > 0;) {
    ts_parser_set_timeout_micros(parser,
                                 std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::min(window, left) * 1e6)));
    Tree tree(ts_parser_parse_string(parser, old, text.data(), static_cast<uint32_t>(text.size())));
    if (tree) return tree;
    // The attempt timed out (the language is set, so nothing else returns null). Its state is
    // dropped, with the external scanner's: the next attempt starts as the first did.
    if (!ts_parser_set_language(parser, language)) return nullptr;
    left = budget - (thread_cpu_seconds() - started);
    window *= 2;
  }
  return nullptr;
}

}  // namespace

// tree-sitter 0.20.7 stores a node's child count in 16 bits (lib/src/subtree.h, `uint16_t
// child_count`; 32 bits from 0.20.8, commit 67d13cf). A node with more than 65,535 children
// makes it compute the address of the children wrongly and free a pointer that malloc never
// returned: the process aborts, or its heap is corrupted. Long runs of comments are one way to
// get such a node (without_long_extra_runs above). The other is error recovery: a text that
// is still in error at its end is wrapped in one ERROR node with everything on the parse stack
// as its children (a 790 KB Python file with an error on every line is enough). The stack holds
// at most the text's tokens, the zero-width tokens the grammar's scanner adds, and the missing
// tokens error recovery inserts (at most one per real token). Every real token starts one of
// these units: a run of ASCII letters and underscores, a run of digits (`1if` is two tokens), a
// non-ASCII character, any other character but a space, tab or carriage return; a line end
// counts three (Python's NEWLINE, and an INDENT and a DEDENT at most on average). Zero-width
// tokens: Python's are in those three; bash's (the `concat` between the parts of a word,
// heredoc markers) are at most one per unit; YAML's (the starts and ends of its blocks) at most
// two per unit. So the stack holds at most 2, 4 or 6 times the units.
bool may_overflow_child_count(const TSLanguage* language, std::string_view text) {
  constexpr std::size_t kLimit = 65535;
  const std::size_t factor = language == tree_sitter_python() ? 2 : language == tree_sitter_bash() ? 4 : 6;
  if (3 * factor * text.size() <= kLimit) return false;  // at most 3 units a byte
  enum class Class { Space, Letter, Digit, Other };
  std::size_t units = 0;
  Class previous = Class::Space;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    Class now = Class::Other;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
      now = Class::Letter;
    else if (c >= '0' && c <= '9')
      now = Class::Digit;
    else if (c == ' ' || c == '\t' || c == '\r')
      now = Class::Space;
    if (c == '\n')
      units += 3;
    else if (c >= 0x80)
      units += (c & 0xC0u) == 0xC0u ? 1 : 0;  // a lead byte: one per character
    else if (now == Class::Other || ((now == Class::Letter || now == Class::Digit) && now != previous))
      ++units;
    previous = c >= 0x80 ? Class::Other : now;
    if (factor * units > kLimit) return true;
  }
  return false;
}

namespace {

// The name the probe process is started under (its argv[0]): `probe_entry` below runs the probe
// in a process started with it, before main, in any program that parses (trl-lint, the tests,
// the fuzz targets); other programs never use it.
constexpr const char* kProbeName = "trl-lint (parse probe)";

// The grammars a probe can be asked for, by the name its command line gives.
struct NamedLanguage {
  std::string_view name;
  const TSLanguage* (*language)();
};
constexpr NamedLanguage kNamedLanguages[] = {
    {"python", tree_sitter_python}, {"yaml", tree_sitter_yaml}, {"bash", tree_sitter_bash}};

const char* language_name(const TSLanguage* language) {
  for (const NamedLanguage& named : kNamedLanguages)
    if (named.language() == language) return named.name.data();
  return nullptr;
}

const TSLanguage* language_named(std::string_view name) {
  for (const NamedLanguage& named : kNamedLanguages)
    if (named.name == name) return named.language();
  return nullptr;
}

// The signals a crash of the probe or the forked child ends it with: set to their defaults in
// it, and read as tree-sitter corrupting its heap (failure_of).
constexpr int kCrashSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE};

// What a probe's (or a forked child's) exit status says: 0 the tree was made and freed, 2 the CPU
// budget ran out, 3 no parser. Killed by a crash signal (or, in a sanitized build, ended with
// another status: the sanitizer's report of the bad free), tree-sitter corrupted its heap.
// Anything else says nothing of the text (the OOM killer's SIGKILL, a SIGTERM sent to the probe,
// SIGXCPU): unchecked, as when no process could be started.
ParseFailure failure_of(int status) {
  if (WIFEXITED(status)) {
    switch (WEXITSTATUS(status)) {
      case 0: return ParseFailure::None;
      case 2: return ParseFailure::CpuBudget;
      case 3: return ParseFailure::Unchecked;
      default: return kSanitizedAllocator ? ParseFailure::NodeTooWide : ParseFailure::Unchecked;
    }
  }
  if (WIFSIGNALED(status))
    for (const int signal : kCrashSignals)
      if (WTERMSIG(status) == signal) return ParseFailure::NodeTooWide;
  return ParseFailure::Unchecked;
}

// The probe and the forked child make no core dump, and no crash report through a core_pattern
// pipe (systemd-coredump, apport), which RLIMIT_CORE does not stop.
void no_core_dump() {
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

std::optional<int> wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return std::nullopt;
  return status;
}

// An open file descriptor, closed when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// The probe: this program again, started afresh through /proc/self/exe (posix_spawn) with
// `kProbeName <language> <CPU budget, µs> <first attempt, µs>`, its standard input an in-memory
// file holding the text (memfd_create: nothing on disk, no pipe to fill), its standard output
// and error /dev/null (the spawn fails without it). The probe empties that file once it has read the text:
// the proof that the program started was the probe, and not a loader (`ld.so trl-lint`) or
// valgrind, which /proc/self/exe names under them. Nullopt when no probe could be started or
// none confirmed; the fork below is the fallback.
std::optional<ParseFailure> parse_in_probe(const char* name, std::string_view text) {
  if (!kProbeAvailable || text.empty()) return std::nullopt;
  // The text is written to a file: a limit on file sizes (ulimit -f) would end this process
  // with SIGXFSZ.
  rlimit file_size{};
  if (::getrlimit(RLIMIT_FSIZE, &file_size) == 0 && file_size.rlim_cur != RLIM_INFINITY &&
      text.size() > file_size.rlim_cur)
    return std::nullopt;
  const Descriptor input(::memfd_create("trl-lint-probe-text", MFD_CLOEXEC));
  if (input.get() < 0) return std::nullopt;
  for (std::size_t written = 0; written < text.size();) {
    const ssize_t n = ::write(input.get(), text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    written += static_cast<std::size_t>(n);
  }
  if (::lseek(input.get(), 0, SEEK_SET) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  if (posix_spawn_file_actions_init(&actions) != 0) return std::nullopt;
  if (posix_spawnattr_init(&attributes) != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return std::nullopt;
  }
  // The caller's thread may block signals; the probe starts with none blocked, and the crash
  // signals at their defaults. Without its standard input in place the probe would read this
  // process's (the LSP server's is the editor's messages): any failure here starts nothing.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (const int signal : kCrashSignals) sigaddset(&defaults, signal);
  bool ready = posix_spawn_file_actions_adddup2(&actions, input.get(), STDIN_FILENO) == 0 &&
               posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0) == 0 &&
               posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0) == 0 &&
               posix_spawnattr_setsigmask(&attributes, &none) == 0 &&
               posix_spawnattr_setsigdefault(&attributes, &defaults) == 0 &&
               posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) == 0;
  std::string budget = std::to_string(static_cast<std::uint64_t>(cpu_budget_seconds.load() * 1e6));
  std::string first = std::to_string(first_attempt_micros.load());
  std::string probe_name = kProbeName, language_arg = name;
  char* argv[] = {probe_name.data(), language_arg.data(), budget.data(), first.data(), nullptr};
  pid_t pid = -1;
  if (ready) ready = ::posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv, environ) == 0;
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (!ready) return std::nullopt;
  const std::optional<int> status = wait_for(pid);
  struct stat after {};
  if (!status || ::fstat(input.get(), &after) != 0 || after.st_size != 0) return std::nullopt;
  return failure_of(*status);
}

// The end of the probe and of the forked child: parses `text` as ts::parse would (the same budget
// and attempts), frees the tree and exits with the status failure_of reads.
[[noreturn]] void parse_and_exit(const TSLanguage* language, std::string_view text) {
  TSParser* parser = ts_parser_new();
  if (!parser || !ts_parser_set_language(parser, language)) ::_exit(3);
  Tree tree = parse_in_attempts(parser, language, nullptr, text);
  const bool made = tree != nullptr;
  tree.reset();
  ts_parser_delete(parser);
  ::_exit(made ? 0 : 2);
}

// The fallback, where no probe can start (no /proc, a sandbox that forbids exec, a loader or
// valgrind in between): a fork of this process, which parses and exits. glibc keeps malloc
// usable in the child of a multi-threaded process (it takes the arenas' locks around fork).
// AddressSanitizer's allocator takes none: a child could wait forever for a lock another thread
// held at the fork (the many-steps test hung this way under make test-asan), so sanitized builds
// never fork and report the text unchecked instead.
ParseFailure parse_in_fork(const TSLanguage* language, std::string_view text) {
  if (kSanitizedAllocator) return ParseFailure::Unchecked;
  const pid_t pid = ::fork();
  if (pid < 0) return ParseFailure::Unchecked;
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (null_fd >= 0) {
      ::dup2(null_fd, STDOUT_FILENO);
      ::dup2(null_fd, STDERR_FILENO);
    }
    no_core_dump();
    // A crash ends the child as it would end a program without handlers of its own (a test
    // framework's handler would report it as the parent's failure).
    for (const int signal : kCrashSignals) ::signal(signal, SIG_DFL);
    parse_and_exit(language, text);
  }
  const std::optional<int> status = wait_for(pid);
  return status ? failure_of(*status) : ParseFailure::Unchecked;
}

// Parses `text` in another process and says how it went: in the probe, or else in a fork.
ParseFailure parse_in_child(const TSLanguage* language, std::string_view text) {
  const char* name = language_name(language);
  if (!name) return ParseFailure::Unchecked;
  const OtherProcess allowed = other_process_for_testing.load();
  if (allowed == OtherProcess::None) return ParseFailure::Unchecked;
  if (allowed == OtherProcess::Probe) {
    if (const std::optional<ParseFailure> probed = parse_in_probe(name, text)) return *probed;
  }
  return parse_in_fork(language, text);
}

// The probe's side: reads the text, empties its input file, and parses (parse_and_exit). It dumps
// no core, and a crash ends it as it would end a program without handlers of its own.
[[noreturn]] void run_probe(const char* name, const char* budget_micros, const char* first_micros) {
  no_core_dump();
  const TSLanguage* language = language_named(name);
  if (!language) ::_exit(3);
  cpu_budget_seconds.store(static_cast<double>(std::strtoull(budget_micros, nullptr, 10)) * 1e-6);
  first_attempt_micros.store(std::strtoull(first_micros, nullptr, 10));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ::_exit(3);
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  // Read: the empty file tells parse_in_probe that the probe started.
  if (::ftruncate(STDIN_FILENO, 0) != 0) ::_exit(3);
  parse_and_exit(language, text);
}

#if defined(__GLIBC__)
// Runs before main (glibc passes constructors the program's arguments): the probe when this
// process was started as one, nothing otherwise. The probe uses only constant-initialised state
// (the atomics above, the grammars' tables) and libc, so the order of static initialisation
// does not matter.
__attribute__((constructor)) void probe_entry(int argc, char** argv, char** /*envp*/) {
  if (argc == 4 && argv && argv[0] && std::string_view(argv[0]) == kProbeName) run_probe(argv[1], argv[2], argv[3]);
}
#endif

}  // namespace

ParseFailure last_parse_failure() {
  return last_failure;
}

std::string parse_failure_message(std::string_view language_name) {
  const std::string what(language_name);
  switch (last_failure) {
    case ParseFailure::NodeTooWide:
      return what +
             " could not be parsed: tree-sitter 0.20.7 corrupts its memory on this text (a syntax tree node with more "
             "than 65,535 children, left by error recovery); file skipped";
    case ParseFailure::Unchecked:
      return what +
             " was not parsed: a text this long is first parsed in another process (tree-sitter 0.20.7 can corrupt "
             "its memory on one), which could not be started or did not finish; file skipped";
    case ParseFailure::CpuBudget:
    case ParseFailure::None: break;
  }
  return what + " could not be parsed within " + std::to_string(static_cast<int>(kParseCpuBudgetSeconds)) +
         " s of CPU time; file skipped";
}

Tree parse(const TSLanguage* language, std::string_view text) {
  last_failure = ParseFailure::None;
  Reparse* reparse = current_reparse;
  if (reparse && (reparse->consumed || reparse->language != language || reparse->text != text)) reparse = nullptr;
  if (reparse) reparse->consumed = true;
  std::optional<std::string> safe = without_long_extra_runs(text);
  if (safe) {
    text = *safe;
    reparse = nullptr;  // the tree of a rewritten text would not match the document
  }
  if (may_overflow_child_count(language, text)) {
    // The child parses from scratch: a parse that reuses an old tree (the editor's) can only
    // make the nodes a parse from scratch makes.
    last_failure = parse_in_child(language, text);
    if (last_failure == ParseFailure::Unchecked) ++unchecked_count;
    if (last_failure != ParseFailure::None) return nullptr;
  }
  // One parser per thread, kept: creating one per file cost 2% of a run over the real corpus
  // (a parser allocates its stacks). The language is set again for every text: that creates the
  // grammar's external scanner afresh. Resetting the parser is not enough: tree-sitter-python's
  // scanner (0.23) keeps whether it is inside an f-string across a reset, so an unterminated
  // f-string in one file made the next file's dedents disappear.
  thread_local std::unique_ptr<TSParser, ParserDeleter> kept;
  if (!kept) kept.reset(ts_parser_new());
  TSParser* parser = kept.get();
  if (!ts_parser_set_language(parser, language)) return nullptr;
  const TSTree* old = reparse ? reparse->old : nullptr;
  Tree tree = parse_in_attempts(parser, language, old, text);
  if (!tree) last_failure = ParseFailure::CpuBudget;
  if (reparse && tree) {
    reparse->tree = Tree(ts_tree_copy(tree.get()));
    reparse->used_old = old != nullptr;
  }
  return tree;
}

TSFieldId field_id(TSNode node, const char* name) {
  const TSLanguage* language = ts_tree_language(node.tree);
  struct Known {
    const TSLanguage* language;
    const char* name;
    TSFieldId id;
  };
  thread_local std::vector<Known> known;  // a few dozen names across the grammars
  for (const Known& k : known)
    if (k.name == name && k.language == language) return k.id;
  const TSFieldId id =
      ts_language_field_id_for_name(language, name, static_cast<uint32_t>(std::char_traits<char>::length(name)));
  known.push_back({language, name, id});
  return id;
}

Span span(TSNode node, FileId file) {
  TSPoint s = ts_node_start_point(node), e = ts_node_end_point(node);
  return Span{file, ts_node_start_byte(node), ts_node_end_byte(node), Point{s.row, s.column}, Point{e.row, e.column}};
}

namespace {
// One cursor per thread, reset to each node. The extractors collect the children of most nodes
// of every tree (5% of a run over the real corpus): a cursor made for each call allocated its
// stack, and the vector grew by doubling.
class KeptCursor {
 public:
  KeptCursor() = default;
  KeptCursor(const KeptCursor&) = delete;
  KeptCursor& operator=(const KeptCursor&) = delete;
  ~KeptCursor() {
    if (made_) ts_tree_cursor_delete(&cursor_);
  }
  TSTreeCursor& at(TSNode node) {
    if (made_) {
      ts_tree_cursor_reset(&cursor_, node);
    } else {
      cursor_ = ts_tree_cursor_new(node);
      made_ = true;
    }
    return cursor_;
  }

 private:
  TSTreeCursor cursor_{};
  bool made_ = false;
};

std::vector<TSNode> collect(TSNode node, bool named_only) {
  std::vector<TSNode> out;
  // Both counts are kept in the node's summary (no walk); they only size the vector.
  out.reserve(named_only ? ts_node_named_child_count(node) : ts_node_child_count(node));
  thread_local KeptCursor kept;
  TSTreeCursor& cursor = kept.at(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode c = ts_tree_cursor_current_node(&cursor);
      if (!named_only || ts_node_is_named(c)) out.push_back(c);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  return out;
}
}  // namespace

std::vector<TSNode> named_children(TSNode node) {
  return collect(node, true);
}
std::vector<TSNode> children(TSNode node) {
  return collect(node, false);
}

std::vector<Comment> comments(TSNode root, std::string_view source, FileId file) {
  std::vector<Comment> out;
  // Comments start with `#` in every grammar we parse (Python, YAML, bash): only the subtrees
  // whose text holds one are walked, which skips most of a file.
  std::vector<std::uint32_t> hashes;
  for (std::size_t at = source.find('#'); at != std::string_view::npos; at = source.find('#', at + 1))
    hashes.push_back(static_cast<std::uint32_t>(at));
  if (hashes.empty()) return out;
  auto holds_hash = [&](TSNode node) {
    if (ts_node_eq(node, root)) return true;  // whatever the root's own range says
    auto it = std::lower_bound(hashes.begin(), hashes.end(), ts_node_start_byte(node));
    return it != hashes.end() && *it < ts_node_end_byte(node);
  };
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  for (;;) {
    TSNode node = ts_tree_cursor_current_node(&cursor);
    if (type(node) == "comment") {
      out.push_back({span(node, file), std::string(text(node, source))});
    } else if (holds_hash(node) && ts_tree_cursor_goto_first_child(&cursor)) {
      continue;
    }
    // Next sibling, or the next sibling of the nearest ancestor that has one.
    bool moved = false;
    while (!(moved = ts_tree_cursor_goto_next_sibling(&cursor))) {
      if (!ts_tree_cursor_goto_parent(&cursor)) break;
    }
    if (!moved) break;
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

}  // namespace trl::ts
