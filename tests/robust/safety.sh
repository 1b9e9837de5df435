#!/usr/bin/env bash
# trl-lint never executes or imports analysed code, never opens a network connection, writes
# nothing but its result cache (by default the folder .trl-lint_cache at the project root, like
# ruff's .ruff_cache; nothing at all with --no-cache), and never reads outside the paths it is
# given (besides the system libraries it is linked with). Checked with strace on every
# subcommand, with a snapshot of the tree before and after, and with a run in a network
# namespace without any interface.
set -uo pipefail
# The default cache placement is what is checked here, not the test suite's shared cache folder.
unset TRL_LINT_CACHE_DIR TRL_LINT_NO_CACHE
# LeakSanitizer cannot run under ptrace (strace): a sanitized build (make test-asan) checks
# leaks in every other test.
[ -n "${TRL_LINT_SANITIZED:-}" ] && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
bin=$(realpath "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
: "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
work=$(mktemp -d)
traces=$(mktemp -d)
trap 'rm -rf "$work" "$traces"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v strace >/dev/null || fail "strace is missing: run \`make setup-test\`"

proj=$work/proj
cp -r "$TRL_LINT_FIXTURES/TRL101/yaml_packing_accel_yaml_cp" "$proj"
# Bait: a script that would leave a mark if it were ever run or imported, and a symlink out.
cat >> "$proj/scripts/sft.py" <<'PY'
import os, socket
open(os.path.join(os.path.dirname(__file__), "EXECUTED"), "w").write("ran")
socket.create_connection(("192.0.2.1", 80), timeout=1)
PY
printf '#!/bin/sh\ntouch "$(dirname "$0")/EXECUTED"\n' > "$proj/setup.sh"; chmod +x "$proj/setup.sh" "$proj/launch.sh"
echo "outside/" > "$proj/.gitignore"
ln -s /etc/hostname "$proj/outside.yaml"
mkdir -p "$work/home" "$work/cwd"

snapshot() {
  # Folders without their modification time: their listing says what changed in them.
  (cd "$work" && find . -type d -printf '%p %y %m\n' | sort && find . ! -type d -printf '%p %y %s %m %T@ %l\n' | sort &&
    find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
before=$(snapshot)

commands=(
  "$proj"
  "--output-format concise $proj"
  "runs $proj"
  "show-run ../proj/launch.sh:5 --path $proj"
  "rule --all"
  "rule TRL101"
)
cache="$proj/.trl-lint_cache"

# check_all PASS [FLAGS]: every command under strace with FLAGS; PASS names the trace folder.
check_all() {
  local pass=$1 flags=${2:-}
  local t="$traces/$pass"
  mkdir -p "$t"
  cd "$work/cwd" || exit 2
  local i=0
  for c in "${commands[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    HOME=$work/home timeout 60 strace -f -qq -o "$t/$i" -e trace=%file,%network,%process \
      "$bin" --threads 2 $flags $c > "$t/out$i" 2>&1
    status=$?
    [ "$status" -le 1 ] || { cat "$t/out$i"; fail "'trl-lint $flags $c' exited with $status"; }
  done
  cd "$t" || exit 2
  grep -q TRL101 out1 || fail "the check found nothing: the test would prove nothing"

  # 1. No network: not even a socket.
  if grep -hE '^[0-9]+ +(socket|socketpair|connect|bind|listen|accept4?|sendto|sendmsg|recvfrom)\(' [0-9]*; then
    fail "a network system call"
  fi
  # 2. No program run and no process started: one execve per invocation (trl-lint itself), and
  #    clone only for threads.
  execs=$(cat [0-9]* | grep -cE '^[0-9]+ +execve\(')
  [ "$execs" -eq "${#commands[@]}" ] || { grep -hE 'execve\(' [0-9]*; fail "$execs execve calls"; }
  if grep -hE '^[0-9]+ +(fork|vfork)\(|^[0-9]+ +clone3?\(' [0-9]* | grep -v CLONE_THREAD; then
    fail "a process was started"
  fi
  # 3. Nothing written, created, renamed, removed or re-permissioned, but inside the cache folder
  #    (and nothing at all with --no-cache).
  local writes
  writes=$(grep -hE '^[0-9]+ +(open|openat|creat)\(.*(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC)' [0-9]*
           grep -hE '^[0-9]+ +(mkdir|mkdirat|unlink|unlinkat|rmdir|rename|renameat2?|link|linkat|symlink|symlinkat|chmod|fchmodat|chown|fchownat|truncate|utimensat|mknod|mknodat)\(' [0-9]*)
  if [ "$flags" = "--no-cache" ] || [ "$pass" = default-again ]; then
    # --no-cache writes nothing; neither does a run whose findings the cache served.
    [ -z "$writes" ] || { echo "$writes"; fail "a file system change ($pass)"; }
  else
    # Every path argument of a writing call lies in the cache folder (mkdir of the folder itself).
    bad=$(grep -oE '"[^"]*"' <<< "$writes" | tr -d '"' | grep -vE "^$cache(/|$)" || true)
    [ -z "$bad" ] || { echo "$writes"; fail "a file system change outside the cache folder: $bad"; }
    grep -q "$cache/results-" <<< "$writes" || fail "no cache entry written: the test would prove nothing"
  fi
  # 4. Files opened: only inside the analysed folder, and the loader's and libc's own files
  #    (glibc's malloc reads /proc/sys/vm/overcommit_memory before it shrinks a thread's heap:
  #    check_may_shrink_heap in malloc/arena.c, glibc 2.36 of Debian 12; it shows with threads).
  allowed='^(/etc/ld\.so\.cache|/lib/|/lib64/|/usr/lib/|/usr/lib64/|/proc/self/|/proc/sys/vm/overcommit_memory$|/sys/devices/system/cpu/|/usr/share/locale/|/etc/localtime)'
  opened=$(grep -hoE '^[0-9]+ +openat\(AT_FDCWD, "[^"]*"' [0-9]* | sed -E 's/.*"([^"]*)"$/\1/' | sort -u)
  bad=$(grep -vE "$allowed" <<< "$opened" | grep -v "^$proj\(/\|$\)" || true)
  [ -z "$bad" ] || fail "opened outside the analysed folder: $bad"
  grep -q "^$proj/scripts/sft.py$" <<< "$opened" || fail "the trace misses the script: the test would prove nothing"
  grep -q '/etc/hostname' <<< "$opened" && fail "followed a symlink out of the root"
}

# 5. The tree, HOME and the working folder are unchanged (but for the cache folder, which holds
#    only its .gitignore, its CACHEDIR.TAG, entries, their parts files and facts packs, no
#    temporary file); the bait never ran.
check_all no-cache --no-cache
after=$(snapshot)
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); fail "files changed with --no-cache"; }
[ ! -e "$cache" ] || fail "--no-cache created $cache"
check_all default
check_all default-again  # a second pass reads the entries the first wrote
[ -d "$cache" ] || fail "no cache folder at the project root"
extra=$(cd "$cache" && ls -A | grep -vE '^(\.gitignore|CACHEDIR\.TAG|results-[0-9a-f]{16}\.(bin|parts)|facts\.bin)$' || true)
[ -z "$extra" ] || fail "unexpected files in the cache folder: $extra"
rm -rf "$cache"
after=$(snapshot)
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after"); fail "files changed"; }
[ -z "$(ls -A "$work/home")$(ls -A "$work/cwd")" ] || { ls -la "$work/home" "$work/cwd"; fail "files created in HOME or the working folder"; }
[ ! -e "$proj/EXECUTED" ] && [ ! -e "$proj/scripts/EXECUTED" ] || fail "analysed code was executed"

# 6. Without any network interface, the result is the same.
normal=$("$bin" --no-cache --output-format concise "$proj" 2>&1)
if unshare -n true 2>/dev/null; then ns=(unshare -n)
elif unshare -rn true 2>/dev/null; then ns=(unshare -rn)
else ns=(); echo "note: no network namespace available here; the strace checks above still ran"; fi
if [ ${#ns[@]} -gt 0 ]; then
  isolated=$("${ns[@]}" "$bin" --no-cache --output-format concise "$proj" 2>&1)
  [ "$normal" = "$isolated" ] || fail "different output without network"
fi
# 7. The one process trl-lint starts: a text long enough that tree-sitter 0.20.7 might corrupt
#    its heap on it is parsed first by trl-lint itself, started again as a probe (argv[0]
#    "trl-lint (parse probe)", the text in an in-memory file). No other program, no network,
#    nothing written.
big=$work/big
mkdir -p "$big"
# (Python: YAML is read by libyaml in this process, whatever its length.)
python3 -c "print('from trl import SFTConfig\n' + ''.join(f'key{i} = [1, 2]\n' for i in range(3000)), end='')" > "$big/long.py"
t=$traces/probe
mkdir -p "$t"
(cd "$work/cwd" && HOME=$work/home timeout 60 strace -f -qq -o "$t/trace" -e trace=%file,%network,%process,memfd_create,ftruncate \
  "$bin" --no-cache --output-format concise "$big" > "$t/out" 2>&1)
status=$?
sed -i -E '/^Checked [0-9]+ files?(, [0-9]+ runs?)?: /d' "$t/out"  # the summary line
# The file is valid: a clean run, not a probe that failed and a file reported unchecked.
[ "$status" -eq 0 ] && [ ! -s "$t/out" ] || { cat "$t/out"; fail "the run over a long valid Python file exited with $status"; }
# The probe's process emptied its input file: it was trl-lint, and it read the text.
probe=$(grep -E '^[0-9]+ +execve\("/proc/self/exe", \["trl-lint \(parse probe\)", "python"' "$t/trace" | awk '{print $1}')
# (strace splits a call another thread interrupts: "ftruncate(0, 0 <unfinished ...>", then
# "<... ftruncate resumed>) = 0".)
[ -n "$probe" ] && grep -qE "^$probe +(ftruncate\(0, 0\)|<\.\.\. ftruncate resumed>\)) *= 0" "$t/trace" ||
  { grep -E 'execve\(|ftruncate' "$t/trace"; fail "no probe started: the test would prove nothing"; }
[ "$(grep -cE '^[0-9]+ +execve\(' "$t/trace")" -eq 2 ] || { grep -E 'execve\(' "$t/trace"; fail "a program other than trl-lint and its probe was run"; }
if grep -E '^[0-9]+ +(socket|socketpair|connect|bind|listen|accept4?|sendto|sendmsg|recvfrom)\(' "$t/trace"; then
  fail "a network system call (probe)"
fi
if grep -E '^[0-9]+ +(open|openat|creat)\(.*(O_WRONLY|O_RDWR|O_CREAT|O_TRUNC)' "$t/trace" | grep -v '"/dev/null"'; then
  fail "a file opened for writing (probe)"
fi
echo "ok: no network, no exec but the parse probe, no writes but the cache folder (none with --no-cache), no reads outside the root"
