#!/usr/bin/env python3
"""Rule tests written in Markdown: one file per rule (tests/cases/TRL101.md) or per topic
(tests/cases/dataflow.md), each case a project written inline. See tests/cases/README.md.

  mdtest.py check TRL_LINT FILE.md [CASE...]    run the cases; exit 1 on any difference
  mdtest.py update TRL_LINT FILE.md [CASE...]   rewrite the snapshots and `#>` marks from the output
  mdtest.py materialize OUT DIR [COPY...]       write every case of DIR/*.md as the project
                                                OUT/<file stem>/<case>, beside copies of the
                                                COPY folders (fixture projects kept as folders)
  mdtest.py list FILE.md                        the names of the cases

A case's project, materialized, is what the golden scripts (tests/golden/check_golden.sh and
check_views.sh) read: the files, CASE.md, ARGS, SHOW_RUN, expected.txt (the concise lines, derived
from the full snapshot), expected-full.txt and the views' expected-* files. `check` runs those
scripts on it, so a case and a fixture folder are judged alike.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "golden")
BASES = "bases.md"

FENCE = re.compile(r"^(`{3,})(.*)$")
CASE_HEADING = re.compile(r"^## (\S+)\s*$")
DIRECTIVE = re.compile(r"^(base|args): (.*)$")
# `  #> TRL001 TRL108` at the end of a line of a file block.
MARK = re.compile(r"  #> ((?:[A-Z]+[0-9]+)(?: [A-Z]+[0-9]+)*)$")
# A last line `#> CODE...` alone: findings at the end of the file (the line after its last).
END_MARK = re.compile(r"#> ((?:[A-Z]+[0-9]+)(?: [A-Z]+[0-9]+)*)")
# A finding's first two lines in the full output: `severity[CODE] [*]: message` and ` --> path:line:col`.
FULL_HEADER = re.compile(r"^(?:error|warning|info)\[([A-Z]+[0-9]+)\](?: \[\*\])?: (.*)$")
FULL_LOCATION = re.compile(r"^ +--> (.*):([0-9]+):([0-9]+)$")
FIXES_SEPARATOR = "--- the fixes (trl-lint --diff) ---"
ROOT_MARKERS = (".trl-lint.toml", ".trl-lint.yaml", "pyproject.toml")
# The views a case can snapshot: block argument -> the file check_views.sh compares.
VIEWS = {"runs": "expected-runs.txt", "graph-dot": "expected-graph.dot",
         "graph-mermaid": "expected-graph.mmd", "show-run": "expected-show-run.txt"}
LANGUAGES = {".py": "python", ".yaml": "yaml", ".yml": "yaml", ".sh": "bash", ".slurm": "bash",
             ".toml": "toml", ".json": "json", ".ipynb": "json", ".md": "markdown", ".txt": "text",
             ".cfg": "ini", ".ini": "ini", ".lua": "lua"}


class CaseError(Exception):
    pass


class File:
    def __init__(self, path, lang, attrs, lines):
        self.path, self.lang, self.attrs, self.lines = path, lang, attrs, lines

    def text_lines(self):
        """The file's lines: the block's without the marks."""
        lines = self.lines[:-1] if self.lines and END_MARK.fullmatch(self.lines[-1]) else self.lines
        return [MARK.sub("", line) for line in lines]

    def content(self):
        """The file's bytes."""
        text = "".join(line + "\n" for line in self.text_lines())
        if "noeol" in self.attrs:
            text = text[:-1]
        data = text.encode("utf-8")
        return (b"\xef\xbb\xbf" + data) if "bom" in self.attrs else data

    def marks(self):
        """(line, code) for every code marked in the block."""
        out = []
        lines = self.text_lines()
        for number, line in enumerate(self.lines, 1):
            m = MARK.search(line) if number <= len(lines) else END_MARK.fullmatch(line)
            if m:
                out += [(number, code) for code in m.group(1).split()]
        return out

    def set_marks(self, codes_by_line):
        lines = self.text_lines()
        end = len(lines) + 1
        for number, codes in sorted(codes_by_line.items()):
            if number > end:
                raise CaseError(f"{self.path}:{number}: a finding past the end of the file")
            if number == end:
                lines.append("#> " + " ".join(codes))
            else:
                lines[number - 1] += "  #> " + " ".join(codes)
        self.lines = lines

    def render(self):
        body = "\n".join(self.lines)
        fence = fence_for(body)
        info = " ".join([self.lang, self.path] + self.attrs)
        return f"{fence}{info}\n{body}{chr(10) if self.lines else ''}{fence}\n"


class Snapshot:
    def __init__(self, view, argument, lines):
        self.view, self.argument, self.lines = view, argument, lines  # view None: the findings

    def text(self):
        return "\n".join(self.lines)

    def render(self):
        body = self.text()
        fence = fence_for(body)
        info = " ".join(x for x in ("snapshot", self.view, self.argument) if x)
        return f"{fence}{info}\n{body}\n{fence}\n"


class Case:
    def __init__(self, name, line):
        self.name, self.line = name, line
        self.items = []  # raw text lines (str), File and Snapshot, in order

    def files(self):
        return [x for x in self.items if isinstance(x, File)]

    def snapshots(self):
        return [x for x in self.items if isinstance(x, Snapshot)]

    def directive(self, name):
        for x in self.items:
            if isinstance(x, str):
                m = DIRECTIVE.match(x)
                if m and m.group(1) == name:
                    return m.group(2).strip()
        return None

    def description(self):
        lines = [x for x in self.items if isinstance(x, str) and not DIRECTIVE.match(x)]
        return "\n".join(lines).strip() + "\n"

    def render(self):
        out = [f"## {self.name}\n"]
        for x in self.items:
            out.append(x + "\n" if isinstance(x, str) else x.render())
        return "".join(out)


def fence_for(body):
    longest = max((len(m.group(1)) for m in re.finditer(r"^(`{3,})", body, re.M)), default=0)
    return "`" * max(3, longest + 1)


def parse(path):
    """The preamble (lines before the first case) and the cases of a Markdown file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    preamble, cases, i = [], [], 0
    where = lambda n: f"{path}:{n + 1}"
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            fence, info = m.group(1), m.group(2).split()
            end = i + 1
            while end < len(lines) and not (lines[end].startswith(fence) and lines[end].strip("`") == ""
                                            and len(lines[end].strip()) >= len(fence)):
                end += 1
            if end == len(lines):
                raise CaseError(f"{where(i)}: unclosed code block")
            body = lines[i + 1:end]
            if not cases:
                preamble += lines[i:end + 1]
            elif info and info[0] == "snapshot":
                view = info[1] if len(info) > 1 else None
                if view is not None and view not in VIEWS:
                    raise CaseError(f"{where(i)}: unknown snapshot `{view}` (one of {', '.join(VIEWS)})")
                argument = " ".join(info[2:]) or None
                if (view == "show-run") != (argument is not None):
                    raise CaseError(f"{where(i)}: `snapshot show-run` takes a run (path:line), other snapshots nothing")
                cases[-1].items.append(Snapshot(view, argument, body))
            elif len(info) >= 2:
                attrs = info[2:]
                for a in attrs:
                    if a not in ("bom", "noeol"):
                        raise CaseError(f"{where(i)}: unknown file attribute `{a}` (bom, noeol)")
                cases[-1].items.append(File(info[1], info[0], attrs, body))
            else:
                cases[-1].items += lines[i:end + 1]
            i = end + 1
            continue
        h = CASE_HEADING.match(line)
        if h:
            if any(c.name == h.group(1) for c in cases):
                raise CaseError(f"{where(i)}: a second case named `{h.group(1)}`")
            cases.append(Case(h.group(1), i + 1))
        elif line.startswith("## "):
            raise CaseError(f"{where(i)}: a case's name is one word (letters, digits, `_`, `-`)")
        elif cases:
            cases[-1].items.append(line)
        else:
            preamble.append(line)
        i += 1
    for c in cases:
        paths = [f.path for f in c.files()]
        dup = {p for p in paths if paths.count(p) > 1}
        if dup:
            raise CaseError(f"{path}:{c.line}: `{c.name}` writes {', '.join(sorted(dup))} twice")
    return preamble, cases


def render(preamble, cases):
    return "".join(line + "\n" for line in preamble) + "".join(c.render() for c in cases)


def load_bases(folder):
    path = os.path.join(folder, BASES)
    if not os.path.exists(path):
        return {}
    return {c.name: c.files() for c in parse(path)[1]}


def project_files(case, bases):
    """path -> (File, from a base or not): the bases' files in order, then the case's own."""
    out = {}
    for name in (case.directive("base") or "").split():
        if name not in bases:
            raise CaseError(f"`{case.name}`: no base `{name}` in {BASES}")
        for f in bases[name]:
            out[f.path] = (f, True)
    for f in case.files():
        out[f.path] = (f, False)
    return out


def concise_lines(full):
    """The concise lines (`path:line:col: CODE message`) of a full-format output."""
    lines = full.split(FIXES_SEPARATOR)[0].split("\n")
    out = []
    for a, b in zip(lines, lines[1:]):
        h, loc = FULL_HEADER.match(a), FULL_LOCATION.match(b)
        if h and loc:
            out.append(f"{loc.group(1)}:{loc.group(2)}:{loc.group(3)}: {h.group(1)} {h.group(2)}")
    return out


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def materialize(case, bases, root):
    """Writes the case as a fixture project in root (a new folder)."""
    files = project_files(case, bases)
    for path, (f, _) in files.items():
        if path.startswith("/") or ".." in path.split("/"):
            raise CaseError(f"`{case.name}`: {path} is not a path inside the project")
        write(os.path.join(root, path), f.content())
    if not any(m in files for m in ROOT_MARKERS):
        write(os.path.join(root, ".trl-lint.toml"), b"")
    write(os.path.join(root, "CASE.md"), case.description())
    args = case.directive("args")
    if args:
        write(os.path.join(root, "ARGS"), args + "\n")
    findings = [s for s in case.snapshots() if s.view is None]
    if findings:
        full = findings[0].text()
        write(os.path.join(root, "expected-full.txt"), full + "\n")
        write(os.path.join(root, "expected.txt"), "".join(l + "\n" for l in concise_lines(full)))
    else:
        write(os.path.join(root, "expected.txt"), b"")
    for s in case.snapshots():
        if s.view:
            write(os.path.join(root, VIEWS[s.view]), s.text() + "\n")
            if s.view == "show-run":
                write(os.path.join(root, "SHOW_RUN"), s.argument + "\n")


def marks_of(concise):
    """path -> {line: [codes]} of concise lines."""
    out = {}
    for line in concise:
        path, number, _, rest = line.split(":", 3)
        out.setdefault(path, {}).setdefault(int(number), []).append(rest.split()[0])
    return out


def unmarkable(findings, files):
    """Problems of findings (path -> ...) in files the case cannot mark: not written, or a base's."""
    problems = []
    for path in findings:
        if path not in files:
            problems.append(f"a finding in {path}, a file the case does not write")
        elif files[path][1]:
            problems.append(f"a finding in {path}, a file of a base: write that file in the case to mark its lines")
    return problems


def check_marks(case, bases):
    files = project_files(case, bases)
    expected = marks_of(concise_lines(next((s.text() for s in case.snapshots() if s.view is None), "")))
    problems = unmarkable(expected, files)
    for path, (f, from_base) in files.items():
        if from_base:
            continue
        have = sorted(f.marks())
        want = sorted((n, c) for n, codes in expected.get(path, {}).items() for c in codes)
        if have != want:
            problems.append(f"{path}: marked {have or 'nothing'}, the snapshot has {want or 'nothing'}")
    return problems


def run_script(script, binary, folder, update):
    env = dict(os.environ)
    env.pop("TRL_LINT_UPDATE_GOLDEN", None)
    if update:
        env["TRL_LINT_UPDATE_GOLDEN"] = "1"
    p = subprocess.run([os.path.join(GOLDEN, script), binary, folder], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def run_case(case, bases, binary, update, scratch):
    """Problems of one case ([] when it passes); with update, rewrites it from the output instead."""
    root = os.path.join(scratch, case.name)
    materialize(case, bases, root)
    problems = []
    views = any(s.view for s in case.snapshots())
    for script in ["check_golden.sh"] + (["check_views.sh"] if views else []):
        status, out = run_script(script, binary, root, update)
        if status != 0:
            problems.append(out.rstrip())
    if not update:
        return problems + check_marks(case, bases)
    if problems:
        return problems
    # Replace the findings snapshot and the marks with what trl-lint printed.
    full = read(os.path.join(root, "expected-full.txt")).rstrip("\n") if os.path.exists(
        os.path.join(root, "expected-full.txt")) else None
    items = case.items
    old = next((i for i, x in enumerate(items) if isinstance(x, Snapshot) and x.view is None), None)
    if old is not None and full is not None:
        items[old] = Snapshot(None, None, full.split("\n"))
    elif old is not None:  # no findings any more: the snapshot goes, with the blank line after it
        del items[old:old + (2 if items[old + 1:old + 2] == [""] else 1)]
    elif full is not None:  # a new snapshot goes before the views, or last
        at = next((i for i, x in enumerate(items) if isinstance(x, Snapshot)), len(items))
        while at > 0 and items[at - 1] == "":
            at -= 1
        items[at:at] = ["", Snapshot(None, None, full.split("\n"))]
    for s in case.snapshots():
        if s.view:
            s.lines = read(os.path.join(root, VIEWS[s.view])).rstrip("\n").split("\n")
    wanted = marks_of(concise_lines(full or ""))  # as check_marks reads them
    problems = unmarkable(wanted, project_files(case, bases))
    if problems:
        return problems
    for f in case.files():
        f.set_marks({n: sorted(codes) for n, codes in wanted.get(f.path, {}).items()})
    return []


def main(argv):
    if len(argv) < 3 or argv[1] not in ("check", "update", "materialize", "list"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    command = argv[1]
    try:
        if command == "list":
            print("\n".join(c.name for c in parse(argv[2])[1]))
            return 0
        if command == "materialize":
            out, folder, copies = argv[2], argv[3], argv[4:]
            bases = load_bases(folder)
            shutil.rmtree(out, ignore_errors=True)
            os.makedirs(out)
            for name in sorted(os.listdir(folder)):
                if name.endswith(".md") and name not in (BASES, "README.md"):
                    for case in parse(os.path.join(folder, name))[1]:
                        materialize(case, bases, os.path.join(out, name[:-3], case.name))
            for c in copies:
                shutil.copytree(c, os.path.join(out, os.path.basename(c.rstrip("/"))), symlinks=True,
                                ignore=shutil.ignore_patterns(".trl-lint_cache"))
            return 0
        binary, path, only = os.path.abspath(argv[2]), argv[3], set(argv[4:])
        preamble, cases = parse(path)
        bases = load_bases(os.path.dirname(os.path.abspath(path)))
        unknown = only - {c.name for c in cases}
        if unknown:
            print(f"no case {', '.join(sorted(unknown))} in {path}", file=sys.stderr)
            return 2
        failed = 0
        with tempfile.TemporaryDirectory(prefix="trl-lint-mdtest-") as scratch:
            for case in cases:
                if only and case.name not in only:
                    continue
                problems = run_case(case, bases, binary, command == "update", scratch)
                if problems:
                    failed += 1
                    print(f"FAIL {path}:{case.line}: {case.name}")
                    for p in problems:
                        print("  " + p.replace("\n", "\n  "))
        if command == "update":
            text = render(preamble, cases)
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
        ran = len(only) if only else len(cases)
        print(f"{path}: {ran - failed} of {ran} cases pass" if command == "check" else f"{path}: updated")
        return 1 if failed else 0
    except CaseError as e:
        print(f"mdtest: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
