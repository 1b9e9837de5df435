#!/usr/bin/env bash
# A path names what is reported, never what is analysed: for each fixture project, every
# subfolder and every file named alone (from the project's folder), and `cd SUB && trl-lint`,
# report exactly the findings of the whole project whose location or related locations are under
# that path, with the same text.
# Usage: scope_test.sh TRL_LINT FIXTURES [GLOB...]
#   GLOB: fixture projects relative to FIXTURES (default: every folder holding expected.txt).
set -u
# An activated environment would decide the installed versions (python_environment.hpp).
unset VIRTUAL_ENV CONDA_PREFIX
bin=$(realpath "$1")
fixtures=$(realpath "$2")
shift 2

# Two projects named together: each is analysed as it is alone (its own pins, its own imports),
# and the order of the paths changes nothing.
two=$(mktemp -d)
cp -R "$fixtures/TRL301/seven_processes" "$two/a" && rm -f "$two/a/.trl-lint.toml" && mkdir "$two/a/.git"
cp -R "$fixtures/TRL201/packing_before_0_19" "$two/b" && rm -f "$two/b/.trl-lint.toml" &&
  printf '[project]\nname = "b"\n' > "$two/b/pyproject.toml"
concise() { (cd "$1" && shift && "$bin" --no-cache --output-format concise "$@" 2>/dev/null); }
alone=$( (concise "$two" a; concise "$two" b) | sort)
[ -n "$alone" ] || { echo "FAIL: the two projects have no findings"; exit 1; }
for order in "a b" "b a" "b/recipes b a/launch.sh a"; do
  # shellcheck disable=SC2086
  together=$(concise "$two" $order | sort)
  if [ "$together" != "$alone" ]; then
    echo "FAIL: trl-lint $order differs from each project alone:"
    diff <(printf '%s\n' "$alone") <(printf '%s\n' "$together")
    rm -rf "$two"
    exit 1
  fi
done
rm -rf "$two"

exec python3 - "$bin" "$fixtures" "$@" <<'EOF'
import glob, json, os, re, subprocess, sys

binary, fixtures, patterns = sys.argv[1], sys.argv[2], sys.argv[3:]
if patterns:
    projects = sorted({os.path.realpath(p) for pat in patterns for p in glob.glob(os.path.join(fixtures, pat))
                       if os.path.isfile(os.path.join(p, "expected.txt"))})
else:
    projects = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(fixtures, "**", "expected.txt"), recursive=True))

def args_of(project):
    path = os.path.join(project, "ARGS")
    return open(path).read().split() if os.path.exists(path) else []

def findings(cwd, extra, paths):
    """The findings as (code, message, primary, related...), paths made absolute."""
    out = subprocess.run([binary, "--no-cache", "--output-format", "json", *extra, *paths], cwd=cwd,
                         capture_output=True, text=True, timeout=120)
    if out.returncode > 1:
        raise SystemExit(f"FAIL: trl-lint {' '.join(paths)} in {cwd} exited with {out.returncode}:\n{out.stderr}")
    def loc(l):
        return (os.path.normpath(os.path.join(cwd, l["path"])), l["line"], l["column"])
    def absolute(token):
        path = os.path.join(cwd, token)
        return os.path.normpath(path) if ("/" in token or "." in token) and os.path.isfile(path) else token
    def text(message):
        # Paths in a message are relative to the working folder, as locations are: made absolute.
        return re.sub(r"[\w./-]+", lambda m: absolute(m.group(0)), message)
    return [(d["code"], text(d["message"]), loc(d["location"])) + tuple(loc(r["location"]) for r in d["related"])
            for d in json.loads(out.stdout or "[]")]

def under(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")

failures = 0
checked = 0
for project in projects:
    extra = args_of(project)
    whole = findings(project, extra, ["."])
    cases = []
    for dirpath, dirnames, filenames in os.walk(project):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", ".trl-lint_cache"))
        if dirpath != project:
            cases.append(dirpath)
        cases.extend(os.path.join(dirpath, f) for f in sorted(filenames))
    for target in cases:
        expected = sorted(f for f in whole if any(under(l[0], target) for l in f[2:]))
        runs = [("named", lambda: findings(project, extra, [os.path.relpath(target, project)]))]
        if os.path.isdir(target):
            runs.append(("cd", lambda: findings(target, extra, [])))
        for how, run in runs:
            checked += 1
            got = sorted(run())
            if got != expected:
                failures += 1
                rel = os.path.relpath(target, fixtures)
                print(f"FAIL: {rel} ({'named alone' if how == 'named' else 'cd there, no path'}) "
                      f"differs from the whole project's findings under it")
                for f in sorted(set(expected) - set(got)):
                    print(f"  missing: {f[0]} {f[2][0]}:{f[2][1]}:{f[2][2]} {f[1]}")
                for f in sorted(set(got) - set(expected)):
                    print(f"  extra:   {f[0]} {f[2][0]}:{f[2][1]}:{f[2][2]} {f[1]}")
print(f"scope: {len(projects)} projects, {checked} paths checked, {failures} failures")
sys.exit(1 if failures or not projects else 0)
EOF
