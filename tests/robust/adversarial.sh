#!/usr/bin/env bash
# Hostile and unusual input: trl-lint must end with exit 0 or 1 within a time limit, and say
# what it skipped and why. One case per call, so ctest runs them in parallel:
#   adversarial.sh <trl-lint> <case>
# Big and binary inputs are generated here, never committed.
set -uo pipefail
bin=$1 case=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
: "${TRL_LINT_FIXTURES:?the fixture projects: build/fixtures, which the build writes (ctest sets this)}"
work=$(mktemp -d)
trap 'chmod -R u+rwX "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 2
LIMIT=${TRL_LINT_ADVERSARIAL_TIMEOUT:-60}

fail() { echo "FAIL [$case]: $*"; echo "--- output:"; cat "$work/out" 2>/dev/null; exit 1; }

# lint <dir-or-file> [options...]: runs trl-lint (concise) with a timeout; output in $work/out.
# LIMIT: seconds of wall-clock time. CPU_LIMIT (optional): seconds of CPU time, which a loaded
# machine does not stretch the way it stretches wall-clock time (SIGXCPU past it).
lint() {
  local target=$1; shift
  (if [ -n "${CPU_LIMIT:-}" ]; then ulimit -S -t "$CPU_LIMIT"; fi
   exec timeout -k 5 "$LIMIT" "$bin" --output-format concise "$@" "$target") > "$work/out" 2>&1
  status=$?
  # The summary line that ends every check (on stderr) is not a finding.
  sed -i -E '/^Checked [0-9]+ files?(, [0-9]+ runs?)?: /d' "$work/out"
  [ "$status" -eq 124 ] && fail "did not finish within $LIMIT s"
  [ "$status" -eq 152 ] && fail "used more than $CPU_LIMIT s of CPU time"
  [ "$status" -le 1 ] || fail "exit code $status (want 0 or 1)"
}
expect() { grep -qF -- "$1" "$work/out" || fail "output lacks: $1"; }
expect_status() { [ "$status" -eq "$1" ] || fail "exit code $status, want $1"; }

# A project where TRL101 fires (packing in the trainer YAML, cp_size=2 in the accelerate YAML).
trl101_project() {
  cp -r "$TRL_LINT_FIXTURES/TRL101/yaml_packing_accel_yaml_cp" "$1"
  rm -f "$1/expected.txt" "$1/CASE.md"
}

case $case in
  deep-python)
    # 100,000 nested brackets: the extractor stops at its depth limit and says so. The file
    # imports trl: the pre-filter would otherwise leave it unparsed (nothing reaches it).
    mkdir p && python3 -c "print('import trl'); print('x = ' + '[' * 100000 + ']' * 100000)" > p/deep.py
    lint p; expect_status 1
    expect "p/deep.py:2:155: TRL904 Python nested more than 150 levels deep"
    # The same file reached by nothing and naming nothing of training: not parsed at all.
    mkdir q && python3 -c "print('x = ' + '[' * 100000 + ']' * 100000)" > q/deep.py
    lint q; expect_status 0
    ;;
  deep-yaml)
    mkdir p && python3 -c "print('a: ' + '[' * 100000 + ']' * 100000)" > p/deep.yaml
    python3 -c "print('b: ' + '{a: ' * 100000 + '}' * 100000)" > p/deep_map.yaml
    lint p; expect_status 1
    expect "p/deep.yaml:1:204: TRL904 YAML nested more than 200 levels deep"
    expect "p/deep_map.yaml:1:"
    ;;
  deep-shell)
    # Subshells and arithmetic nested 100,000 deep: the shell walker is iterative; nothing to skip.
    mkdir p && python3 -c "print('(' * 100000 + 'echo hi' + ')' * 100000)" > p/sub.sh
    python3 -c "print('x=' + '\$((' * 50000 + '1' + '))' * 50000)" > p/arith.sh
    lint p; expect_status 0
    ;;
  long-elif)
    # 20,000 elif branches: bounded (the evaluator recurses along the chain).
    mkdir p && python3 -c "
print('import trl')  # parsed: the pre-filter skips files that name nothing of training
print('x = 1\nif x == 0:\n    y = 0')
for i in range(1, 20000): print(f'elif x == {i}:\n    y = {i}')" > p/elif.py
    lint p; expect_status 1
    expect "TRL904 if/elif chain longer than 512 branches; the rest of it is not analysed"
    ;;
  huge-file)
    # 50 MB of Python: over the default 10 MB limit, skipped without being read.
    mkdir p && yes 'x = 1' | head -c 52428800 > p/big.py
    trl101_project p/proj
    lint p; expect_status 1
    expect "p/big.py:1:1: TRL905 file is 50 MB, over the 10 MB limit (--max-file-size); skipped"
    expect "TRL101"  # the rest of the tree is still analysed
    ;;
  max-file-size-option)
    # The limit is configurable: a 2 MB YAML is skipped at 1 MB and read at the default.
    mkdir p && trl101_project p/proj
    { cat p/proj/recipes/qwen2.5-0.5b/sft_long.yaml; python3 -c "print(('# ' + 'padding ' * 128 + '\\n') * 2048, end='')"; } > p/proj/big.yaml
    mv p/proj/big.yaml p/proj/recipes/qwen2.5-0.5b/sft_long.yaml
    lint p --max-file-size 1; expect_status 1
    expect "sft_long.yaml:1:1: TRL905 file is 2 MB, over the 1 MB limit (--max-file-size); skipped"
    grep -q TRL101 "$work/out" && fail "TRL101 from a skipped file"
    lint p; expect_status 1
    expect "sft_long.yaml:15:1: TRL101"
    "$bin" --max-file-size 5000 p > out 2>&1; [ $? -eq 2 ] || fail "--max-file-size 5000 (over 4 GB) accepted"
    expect "--max-file-size: Value 5000 not in range 0 to 4095"
    ;;
  binary)
    mkdir p && head -c 65536 /dev/urandom > p/model.py && head -c 4096 /dev/urandom > p/weights.yaml
    printf '\x7fELF\x02\x01\x01\x00\x00\x00' > p/launch.sh
    lint p; expect_status 1
    for f in model.py weights.yaml launch.sh; do grep -qE "p/$f:1:1: TRL902 file (contains NUL bytes|is not valid UTF-8)" out || fail "$f"; done
    ;;
  invalid-utf8)
    mkdir p && printf 'packing = True\nname = "\xff\xfe caf\xc3"\n' > p/train.py
    printf 'a: "\xed\xa0\x80"\n' > p/surrogate.yaml   # an encoded UTF-16 surrogate
    printf 'b: \xc0\xaf\n' > p/overlong.yaml            # an overlong form of "/"
    lint p; expect_status 1
    for f in train.py surrogate.yaml overlong.yaml; do expect "p/$f:1:1: TRL902 file is not valid UTF-8; skipped"; done
    ;;
  nul-bytes)
    mkdir p && printf 'packing: true\n\0\nmax_length: 1\n' > p/config.yaml
    printf 'x = 1\0\n' > p/train.py
    lint p; expect_status 1
    expect "p/config.yaml:1:1: TRL902 file contains NUL bytes (binary?); skipped"
    expect "p/train.py:1:1: TRL902 file contains NUL bytes (binary?); skipped"
    ;;
  crlf-bom)
    # Windows line ends and a UTF-8 BOM change nothing: same finding, same line and column.
    trl101_project p
    for f in $(cd p && find . -type f); do
      python3 -c "import sys; p=sys.argv[1]; t=open(p,encoding='utf-8').read(); open(p,'w',encoding='utf-8-sig',newline='\r\n').write(t)" "p/$f"
    done
    head -c 3 p/launch.sh | od -An -tx1 | grep -q 'ef bb bf' || fail "fixture not converted"
    lint p; expect_status 1
    expect "p/recipes/qwen2.5-0.5b/sft_long.yaml:15:1: TRL101"
    ;;
  alias-bomb)
    # "Billion laughs": 10^9 strings if expanded. Shared, never expanded: the settings after it count.
    trl101_project p
    { echo 'lol: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'
      prev=a; for c in b c d e f g h i; do echo "$c: &$c [*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev,*$prev]"; prev=$c; done
      echo "merged: &m {<<: [*a], x: 1}"
      echo "merged2: {<<: [*m, *m, *m, *m], y: *i}"
      cat p/recipes/qwen2.5-0.5b/sft_long.yaml; } > bomb.yaml
    mv bomb.yaml p/recipes/qwen2.5-0.5b/sft_long.yaml
    # 4 GB of address space is plenty without expansion. Not under AddressSanitizer, which
    # reserves terabytes of shadow address space at start-up (make test-asan).
    [ -n "${TRL_LINT_SANITIZED:-}" ] || ulimit -v 4000000 2>/dev/null
    lint p; expect_status 1
    expect "p/recipes/qwen2.5-0.5b/sft_long.yaml:26:1: TRL101"
    ;;
  symlink-loop)
    mkdir -p p/sub && ln -s loop.py p/loop.py && ln -s b.yaml p/a.yaml && ln -s a.yaml p/b.yaml
    ln -s .. p/sub/up && ln -s . p/sub/self   # folder loops: symlinked folders are never followed
    ln -s /etc/passwd p/outside.yaml           # never read outside the root
    lint p; expect_status 1
    expect "p/loop.py:1:1: TRL901 symlink loop; skipped"
    expect "p/a.yaml:1:1: TRL901 symlink loop; skipped"
    expect "p/b.yaml:1:1: TRL901 symlink loop; skipped"
    expect "p/outside.yaml:1:1: TRL901 symlink points outside the analysed folder; not followed"
    lint p/loop.py; expect_status 1; expect "TRL901 symlink loop; skipped"
    ;;
  unreadable)
    # The tests usually run as root, where chmod 000 does not stop a read. What this covers:
    # a dangling symlink and a FIFO (neither can be read as a file, for any user), and, by
    # dropping to user `nobody` with setpriv when we are root, a real permission-denied file
    # and folder.
    mkdir p && ln -s gone.py p/train.py && mkfifo p/launch.sh
    lint p; expect_status 1
    expect "p/train.py:1:1: TRL901 dangling symlink (its target does not exist); skipped"
    expect "p/launch.sh:1:1: TRL901 not a regular file (FIFO, socket or device); skipped"
    lint p/launch.sh; expect_status 1   # named on the command line: still never opened
    expect "p/launch.sh:1:1: TRL901 not a regular file (FIFO, socket or device); skipped"
    rm p/train.py p/launch.sh
    echo 'packing: true' > p/secret.yaml && mkdir p/locked && echo 'x: 1' > p/locked/c.yaml
    # Virtual environments that can be entered but not listed (0711), or listed but not entered
    # (0744): skipped for their marker (asked by path, or seen in the listing), not reported.
    mkdir p/env_x p/env_r && touch p/env_x/pyvenv.cfg p/env_r/pyvenv.cfg
    echo 'x: [' > p/env_x/bad.yaml && echo 'x: [' > p/env_r/bad.yaml
    chmod 711 p/env_x && chmod 744 p/env_r
    chmod 000 p/secret.yaml p/locked && chmod 755 "$work" p
    if [ "$(id -u)" -eq 0 ]; then
      command -v setpriv >/dev/null || fail "setpriv (util-linux) missing"
      run=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    else
      run=()
    fi
    timeout -k 5 "$LIMIT" "${run[@]}" "$bin" --output-format concise p > out 2>&1; status=$?
    [ "$status" -le 1 ] || fail "exit code $status"
    expect "p/secret.yaml:1:1: TRL901 cannot read file"
    expect "p/locked:1:1: TRL901 cannot read directory: Permission denied"
    if grep -q "env_" out; then fail "a marked virtual environment was reported"; fi
    ;;
  fifo)
    # A FIFO with a name trl-lint reads, inside the tree: never opened (opening would block).
    mkdir -p p/recipes && mkfifo p/recipes/config.yaml p/train.py
    lint p; expect_status 1
    expect "p/recipes/config.yaml:1:1: TRL901 not a regular file (FIFO, socket or device); skipped"
    expect "p/train.py:1:1: TRL901 not a regular file"
    ;;
  odd-names)
    # Spaces and non-ASCII in folder and file names, quoted in the launch script.
    mkdir p && trl101_project "p/my pröject"
    cd "p/my pröject" || fail cd
    mv recipes/qwen2.5-0.5b "recipes/qwen ünïcode"
    mv recipes/qwen\ ünïcode/sft_long.yaml "recipes/qwen ünïcode/sft long 日本.yaml"
    mv scripts/sft.py "scripts/train me.py"
    cat > launch.sh <<'SH'
#!/usr/bin/env bash
accelerate launch --config_file recipes/accelerate_configs/context_parallel_2gpu.yaml \
    "scripts/train me.py" --config "recipes/qwen ünïcode/sft long 日本.yaml"
SH
    cd "$work" || fail cd
    lint "p/my pröject"; expect_status 1
    expect "p/my pröject/recipes/qwen ünïcode/sft long 日本.yaml:15:1: TRL101"
    ;;
  control-chars)
    # Control characters in a file name (a newline, an escape sequence) and in a YAML value a
    # message quotes: every finding stays one `path:line:col: CODE message` line, and no raw
    # control byte reaches the terminal (each is shown as its Unicode control picture, U+2400 +
    # its code, in concise and full output alike).
    trl101_project p
    # (an accelerate config by its first key: a broken YAML file of an unknown kind is silent)
    printf 'compute_environment: LOCAL_MACHINE\nmixed_precision: [unclosed, x\nnum_processes: 2\n' > "p/bad"$'\n'"name"$'\e'"[31m.yaml"
    printf 'lr_scheduler_type: "cosine\\e[2J"\n' >> p/recipes/qwen2.5-0.5b/sft_long.yaml
    lint p; expect_status 1
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$work/out"; then fail "a raw control character in the concise output"; fi
    bad=$(grep -cvE '^[^:]+:[0-9]+:[0-9]+: TRL[0-9]{3} ' "$work/out")
    [ "$bad" -eq 0 ] || fail "$bad output lines are not path:line:col: CODE message"
    expect "p/bad␊name␛[31m.yaml:"
    expect "cosine␛[2J"
    expect "TRL101"
    timeout -k 5 "$LIMIT" "$bin" --output-format full --no-cache p > "$work/out" 2>&1
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$work/out"; then fail "a raw control character in the full output"; fi
    # PyYAML stops at the end of the text, line 2, where the flow sequence should have closed.
    expect "--> p/bad␊name␛[31m.yaml:3:14"
    # show-run: an environment value that spans lines stays on its `NAME = value` line.
    printf '#!/usr/bin/env bash\nNOTE="first line\nsecond\tline" accelerate launch --config_file recipes/accelerate_configs/context_parallel_2gpu.yaml scripts/sft.py --config recipes/qwen2.5-0.5b/sft_long.yaml\n' > p/launch.sh
    (cd p && timeout -k 5 "$LIMIT" "$bin" show-run launch.sh:2) > "$work/out" 2>&1 || fail "show-run failed"
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$work/out"; then fail "a raw control character in show-run"; fi
    expect "  NOTE = first line␊second␉line"
    ;;
  comment-run)
    # 70,000 comment lines in a row crash tree-sitter 0.20.7 (issue #2134); trl-lint blanks such
    # runs before parsing. The code after the comments is still analysed.
    trl101_project p
    { yes '# generated comment' | head -n 70000; cat p/scripts/sft.py; } > p/scripts/sft2.py && mv p/scripts/sft2.py p/scripts/sft.py
    { head -n 3 p/launch.sh; yes '# comment' | head -n 70000; tail -n +4 p/launch.sh; } > p/l2.sh && mv p/l2.sh p/launch.sh
    lint p; expect_status 1
    expect "p/recipes/qwen2.5-0.5b/sft_long.yaml:15:1: TRL101"
    # The same project's other true finding (TRL201, packing without FlashAttention) is expected too.
    [ "$(grep -vc ': TRL201 ' out)" -eq 1 ] || fail "unexpected diagnostics"
    ;;
  error-every-line)
    # A syntax error on every line of 40,000: tree-sitter 0.20.7's error recovery wraps what is
    # left on its stack in one ERROR node of more than 65,535 children, whose 16-bit child count
    # overflows, and the process aborted ("free(): invalid size"). trl-lint tries a text that long
    # in a child process first, and reports the file instead. The rest is still analysed.
    trl101_project p
    python3 -c "
import sys
out = ['from trl import SFTConfig\\n']
for i in range(40000):
    out.append(('v%d = [1, 2,\\n' % i, 'def f%d(:\\n  return )\\n' % i, 'x = a b c if else\\n', 'v%d = (1 +\\n' % i)[i % 4])
sys.stdout.write(''.join(out))" > p/broken.py
    lint p; expect_status 1
    expect "p/broken.py:1:1: TRL903 Python could not be parsed: tree-sitter 0.20.7 corrupts its memory on this text"
    expect "p/recipes/qwen2.5-0.5b/sft_long.yaml:15:1: TRL101"
    ;;
  long-yaml)
    # tree-sitter-yaml counts rows in 16 bits: a YAML file over 32,767 lines is skipped with a
    # diagnostic, not reported as a syntax error.
    mkdir p && python3 -c "print(''.join(f'key{i}: {i}\\n' for i in range(40000)), end='')" > p/big.yaml
    python3 -c "print(''.join(f'key{i}: {i}\\n' for i in range(30000)), end='')" > p/ok.yaml
    lint p; expect_status 1
    expect "p/big.yaml:1:1: TRL905 YAML file has 40001 lines, more than the 32767 the YAML parser supports; skipped"
    grep -q "ok.yaml" out && fail "a 30,000-line YAML file was not parsed"
    ;;
  probe-fallback)
    # A text long enough that tree-sitter 0.20.7 might corrupt its heap on it is parsed first in
    # a probe: trl-lint started again through /proc/self/exe. Where that names another program
    # (trl-lint run by the loader, `ld.so trl-lint`), or where the text may not be written to the
    # probe's in-memory file (`ulimit -f` below its size: SIGXFSZ ended the run), a fork tries
    # the text instead. Sanitized builds never fork (their allocator can hang in the child) and
    # report the Python file unchecked. The long YAML file is read by libyaml in this process, so
    # it is never reported.
    mkdir p && python3 -c "
open('p/long.yaml', 'w').write(''.join(f'key{i}: [a, b]\\n' for i in range(3000)))
out = ['from trl import SFTConfig\\n']
for i in range(40000):
    out.append(('v%d = [1, 2,\\n' % i, 'def f%d(:\\n  return )\\n' % i, 'x = a b c if else\\n', 'v%d = (1 +\\n' % i)[i % 4])
open('p/broken.py', 'w').write(''.join(out))"
    corrupt="p/broken.py:1:1: TRL903 Python could not be parsed: tree-sitter 0.20.7 corrupts its memory on this text"
    loader=$(ldd "$bin" | awk '/ld-linux/ {print $1}')
    [ -x "$loader" ] || fail "no loader found in: $(ldd "$bin")"
    for how in loader fsize sigchld; do
      case $how in
        loader) timeout -k 5 "$LIMIT" "$loader" "$bin" --no-cache --output-format concise p > out 2>&1 ;;
        fsize) (ulimit -f 100; exec timeout -k 5 "$LIMIT" "$bin" --no-cache --output-format concise p) > out 2>&1 ;;
        # Started with SIGCHLD ignored (inherited across exec): the kernel would reap the probe
        # before waitpid read its status, and every long file was reported unchecked.
        sigchld)
          python3 -c 'import os, signal, sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execvp(sys.argv[1], sys.argv[1:])' \
            timeout -k 5 "$LIMIT" "$bin" --no-cache --output-format concise p > out 2>&1 ;;
      esac
      status=$?
      expect_status 1
      if [ -n "${TRL_LINT_SANITIZED:-}" ] && [ "$how" != sigchld ]; then
        expect "p/broken.py:1:1: TRL903 Python was not parsed: a text this long is first parsed in another process"
      else
        expect "$corrupt"
      fi
      grep -q "long.yaml" out && fail "the valid long YAML file was reported ($how)"
      [ "$(wc -l < out)" -le 2 ] || fail "unexpected output ($how)"
    done
    # A report that depends on the machine (no process could try the file) is not cached: a
    # normal run afterwards parses the file.
    if [ -n "${TRL_LINT_SANITIZED:-}" ]; then
      cache=$work/cache
      TRL_LINT_CACHE_DIR=$cache timeout -k 5 "$LIMIT" "$loader" "$bin" --output-format concise p > out 2>&1
      expect "p/broken.py:1:1: TRL903 Python was not parsed"
      TRL_LINT_CACHE_DIR=$cache timeout -k 5 "$LIMIT" "$bin" --output-format concise p > out 2>&1
      grep -q "Python was not parsed" out && fail "a report of the loader run was replayed from the cache"
      expect "$corrupt"
    fi
    ;;
  many-steps)
    # A workflow of 5,000 steps and a Makefile of 5,000 recipes, each ending with a launch.
    # Each step and recipe line is parsed on its own (the binary before 7a3b98e parsed a blank
    # copy of the file up to each one: a minute here). The findings keep the file's lines and
    # columns.
    mkdir -p p/.github/workflows p/scripts && printf 'from trl import SFTConfig\n' > p/scripts/other.py
    python3 - <<'PY'
steps = "".join(f"      - name: step {i}\n        run: echo step {i} >> log.txt\n" for i in range(5000))
open("p/.github/workflows/ci.yml", "w").write(
    "name: ci\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n" + steps +
    "      - name: train\n        run: accelerate launch scripts/missing_train.py --max_steps 1\n")
recipes = "".join(f"step{i}:\n\tpython -c 'print({i})'\n" for i in range(5000))
open("p/Makefile", "w").write(recipes + "train:\n\t@accelerate launch scripts/missing_make.py\n")
PY
    LIMIT=30 lint p; expect_status 1
    expect "p/.github/workflows/ci.yml:10008:32: TRL004 script \`scripts/missing_train.py\` does not exist"
    expect "p/Makefile:10002:21: TRL004 script \`scripts/missing_make.py\` does not exist"
    ;;
  empty-repo)
    # An empty repository: nothing to read, exit 0 (also with only a .git folder).
    mkdir -p e1 e2/.git/objects && touch e2/.git/HEAD
    lint e1; expect_status 0
    [ -s out ] && fail "output for an empty folder"
    lint e2; expect_status 0
    timeout "$LIMIT" "$bin" e1 > out 2>&1 || fail "full format"
    # Never a pass over a folder with nothing in it: the summary says no run was found.
    expect "Checked 0 files: no training run found"
    grep -q "All checks passed" out && fail "an empty folder reads as a pass"
    ;;
  many-files)
    # 3,000 small files in 300 folders, parsed on several threads.
    python3 - <<'PY'
import os
for d in range(300):
    os.makedirs(f"p/d{d}", exist_ok=True)
    for f in range(10):
        open(f"p/d{d}/f{f}.py", "w").write(f"from trl import SFTConfig\nargs = SFTConfig(packing={bool(f % 2)})\n")
PY
    lint p --threads 8
    ;;
  python-int-edge)
    # Integer arithmetic at the 64-bit edge: INT64_MIN // -1 and % -1 trapped with SIGFPE and
    # ended the run with no output; past 64 bits a value is unknown (Python's ints are not).
    mkdir p && cat > p/train.py <<'PY'
from trl import SFTConfig
a = -9223372036854775807 - 1
b = a // -1
c = a % -1
d = 9223372036854775807 + 1
e = -a
f = 4611686018427387904 * 2
args = SFTConfig(output_dir="o", max_length=b, per_device_train_batch_size=d)
PY
    lint p; expect_status 0
    ;;
  import-chain)
    # 6,000 project modules each importing the next (the evaluator recursed once per module and
    # overflowed its stack): the chain is cut at a depth limit and the deeper names are unknown.
    python3 - <<'PY'
import os
os.makedirs("p", exist_ok=True)
n = 6000
open("p/train.py", "w").write("from trl import SFTConfig\nimport m0\nargs = SFTConfig(output_dir='o', packing=m0.P)\n")
for i in range(n):
    nxt = f"import m{i + 1}\nP = m{i + 1}.P\n" if i + 1 < n else "P = True\n"
    open(f"p/m{i}.py", "w").write(nxt)
PY
    lint p
    ;;
  big-dict)
    # A 160,000-key dict literal (2.6 MB) and 2,000 loads of a 10,000-key YAML: building dicts
    # is linear (one erase per key made it 45 s), and loads are charged to the step budget.
    python3 - <<'PY'
import os
os.makedirs("p", exist_ok=True)
body = ", ".join(f'"label_{i}": {i}' for i in range(160000))
open("p/train.py", "w").write("from trl import SFTConfig\nLABELS = {" + body + "}\nargs = SFTConfig(output_dir='o')\n")
open("p/big.yaml", "w").write("".join(f"key{i}: {i}\n" for i in range(10000)))
loads = "".join(f"c{i} = yaml.safe_load(open('big.yaml'))\n" for i in range(2000))
open("p/load.py", "w").write("import yaml\nfrom trl import SFTConfig\n" + loads + "args = SFTConfig(output_dir='o')\n")
PY
    # About 7 s of CPU time in a release build (user and system); a sanitized one is several
    # times slower. The bound is on CPU time: a test run beside others on 2 cores took 32 s of
    # wall-clock time for the same work. Wall-clock time is bounded too, loosely, against a hang.
    if [ -n "${TRL_LINT_SANITIZED:-}" ]; then CPU_LIMIT=150 LIMIT=600 lint p; else CPU_LIMIT=30 LIMIT=120 lint p; fi
    ;;
  *) echo "unknown case $case"; exit 2 ;;
esac
echo "ok [$case]"
