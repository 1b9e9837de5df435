#!/usr/bin/env python3
"""Runs the Example and the "Use instead" of every rule's documentation as a project.

Usage: check_rule_examples.py TRL_LINT [CODE...]
       check_rule_examples.py --self-test TRL_LINT   (the checker on pages made to fail)

For each rule (`trl-lint rule --all`, or the codes given), reads its documentation from the
binary (`trl-lint rule CODE`, the Markdown docs/rules/ is generated from) and checks the
convention of CONTRIBUTING.md ("Examples in the rule documentation"):

- every fenced code block under `## Example` and `## Use instead` is a file: its first line is
  a comment that names the file's path (`# recipes/sft.yaml`), and nothing else;
- the Example's files, written into an empty project (an empty `.trl-lint.toml` marks its root),
  make trl-lint report the rule's code, and only that code, with a finding in the file of the
  Example's first block (the mistake is shown first);
- the "Use instead" files replace the Example's files of the same path (or are added) and the
  project then gets no finding at all.

A rule without an Example must be listed in NO_EXAMPLE with the reason. Exit 0 when every rule
passes, 1 otherwise; each failure names the rule, the block and what was found.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

# Rules whose Example cannot be written as a small project of text files.
NO_EXAMPLE = {
    "TRL901": "needs a file the operating system refuses to read (permissions, a file that vanishes)",
    "TRL902": "needs bytes that are not UTF-8 text, which a Markdown code block cannot hold",
    "TRL904": "needs YAML or Python nested past the extractors' depth limits (200 levels of YAML, 150 of Python): a line of hundreds of brackets teaches a reader nothing",
    "TRL905": "needs a file over the 10 MB size limit",
}

# `# path` on the first line of a block: folders, then a file name with an extension (or a file
# known without one), so that a one-word comment (`# packing`) is not taken for a path.
PATH_LINE = re.compile(r"^#\s+((?:[A-Za-z0-9_.\-]+/)*(?:[A-Za-z0-9_.\-]*\.[A-Za-z0-9]+|Makefile|Dockerfile))\s*$")
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([^`\s]*)")


class DocError(Exception):
    pass


def sections(markdown):
    """The `## ` sections of a page: {title: [lines]}. Fenced blocks may hold `## ` lines."""
    out, title, fence = {}, None, None
    for line in markdown.splitlines():
        m = FENCE.match(line)
        if fence is None and line.startswith("## "):
            title = line[3:].strip()
            out.setdefault(title, [])
            continue
        if m and fence is None:
            fence = m.group(1)
        elif fence is not None and line.strip().startswith(fence[0] * len(fence)) and line.strip().strip(fence[0]) == "":
            fence = None
        if title is not None:
            out[title].append(line)
    return out


def blocks(lines):
    """The fenced code blocks of a section: [(language, [lines])]."""
    out, cur, fence, lang = [], None, None, ""
    for line in lines:
        if cur is None:
            m = FENCE.match(line)
            if m:
                fence, lang, cur = m.group(1), m.group(2), []
            continue
        stripped = line.strip()
        if stripped.startswith(fence[0] * len(fence)) and stripped.strip(fence[0]) == "":
            out.append((lang, cur))
            cur = None
            continue
        cur.append(line)
    if cur is not None:
        raise DocError("a code block is not closed")
    return out


def files_of(code, section, lines):
    """{path: text} of a section's blocks, checking that each names its file."""
    files, order = {}, []
    try:
        found = blocks(lines)
    except DocError as e:
        raise DocError(f"{code} {section}: {e}") from None
    for n, (lang, body) in enumerate(found, 1):
        where = f"{code} {section}, block {n} (```{lang})"
        first = body[0] if body else ""
        m = PATH_LINE.match(first)
        if not m:
            raise DocError(f"{where}: the first line must name the file (`# recipes/sft.yaml`); found `{first}`")
        path = m.group(1)
        parts = path.split("/")
        if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise DocError(f"{where}: `{path}` must be a relative path inside the project")
        if path in files:
            raise DocError(f"{where}: `{path}` is given twice")
        files[path] = "\n".join(body) + "\n"
        order.append(path)
    return files, order


def write(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def lint(binary, root, what):
    """The findings of trl-lint on the project at root, as (code, path, line, message); `what` names the
    project in errors."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    env["TRL_LINT_NO_CACHE"] = "1"
    p = subprocess.run([binary, "--output-format", "json", "--no-cache", "."], cwd=root, env=env,
                       capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 1):
        raise DocError(f"{what}: trl-lint exited with {p.returncode}: {p.stderr.strip()}")
    findings = [(d["code"], d["location"]["path"], d["location"]["line"], d["message"]) for d in json.loads(p.stdout)]
    if (p.returncode == 1) != bool(findings):
        raise DocError(f"{what}: trl-lint exited with {p.returncode} with {len(findings)} findings")
    return findings


def show(findings):
    return "".join(f"\n    {path}:{line}: {code} {message}" for code, path, line, message in findings)


def check(binary, code, page=None):
    """Raises DocError with what is wrong with one rule's examples (page: its Markdown, read from the binary
    when not given)."""
    if page is None:
        page = subprocess.run([binary, "rule", code], capture_output=True, text=True, check=True).stdout
    secs = sections(page)
    if "Example" not in secs:
        if code in NO_EXAMPLE:
            return "no example: " + NO_EXAMPLE[code]
        raise DocError(f"{code}: the documentation has no `## Example` (or list the rule in NO_EXAMPLE with why)")
    if code in NO_EXAMPLE:
        raise DocError(f"{code}: has an Example now; remove it from NO_EXAMPLE")
    example, order = files_of(code, "Example", secs["Example"])
    if "Use instead" not in secs:
        raise DocError(f"{code}: the documentation has an Example but no `## Use instead`")
    instead, _ = files_of(code, "Use instead", secs["Use instead"])
    if not example:
        raise DocError(f"{code} Example: no code block")
    if not instead:
        raise DocError(f"{code} Use instead: no code block")
    with tempfile.TemporaryDirectory(prefix=f"trl-lint-doc-{code}-") as tmp:
        root = os.path.join(tmp, "project")
        os.makedirs(root)
        write(root, {".trl-lint.toml": ""})
        write(root, example)
        found = lint(binary, root, f"{code} Example")
        ours = [f for f in found if f[0] == code]
        others = [f for f in found if f[0] != code]
        files = ", ".join(order)
        if not ours:
            raise DocError(f"{code} Example ({files}): {code} is not reported; found:{show(found) or ' nothing'}")
        if others:
            raise DocError(f"{code} Example ({files}): other rules fire too, the Example must show one mistake:"
                           f"{show(others)}")
        if not any(f[1] == order[0] for f in ours):
            raise DocError(f"{code} Example: no {code} finding in `{order[0]}`, the first block (show the "
                           f"mistake first); found:{show(ours)}")
        write(root, instead)
        after = lint(binary, root, f"{code} Use instead")
        if after:
            raise DocError(f"{code} Use instead ({', '.join(instead)} over the Example): must be silent; found:"
                           f"{show(after)}")
    return None


SFT = "```bash\n# launch.sh\ntrl sft --config recipes/sft.yaml\n```\n"
SELF_TESTS = [
    # (what, code, page, the failure expected: a part of its message, or None for a pass)
    ("a page that follows the convention", "TRL201",
     "## Example\n```yaml\n# recipes/sft.yaml\npacking: true\n```\n```text\n# requirements.txt\n"
     "transformers==4.53.0\n```\n" + SFT + "\n## Use instead\n```yaml\n# recipes/sft.yaml\npacking: false\n```\n", None),
    ("a block without its path", "TRL201",
     "## Example\n```yaml\npacking: true\n```\n\n## Use instead\n```yaml\n# recipes/sft.yaml\n```\n",
     "Example, block 1 (```yaml): the first line must name the file"),
    ("a block in Use instead without its path", "TRL205",
     "## Example\n```yaml\n# recipes/sft.yaml\npacking: true\nmax_length: null\n```\n" + SFT +
     "\n## Use instead\n```yaml\nmax_length: 4096\n```\n", "Use instead, block 1 (```yaml)"),
    ("a one-word comment is not a path", "TRL205",
     "## Example\n```yaml\n# packing\npacking: true\n```\n\n## Use instead\n```yaml\n# sft.yaml\n```\n",
     "the first line must name the file (`# recipes/sft.yaml`); found `# packing`"),
    ("a path outside the project", "TRL205",
     "## Example\n```yaml\n# ../sft.yaml\npacking: true\n```\n\n## Use instead\n```yaml\n# sft.yaml\n```\n",
     "must be a relative path inside the project"),
    ("the same path twice", "TRL205",
     "## Example\n```yaml\n# sft.yaml\n```\n```yaml\n# sft.yaml\n```\n\n## Use instead\n```yaml\n# sft.yaml\n```\n",
     "is given twice"),
    ("an Example that does not fire (no launch: nothing reads the YAML)", "TRL205",
     "## Example\n```yaml\n# recipes/sft.yaml\npacking: true\nmax_length: null\n```\n\n## Use instead\n"
     "```yaml\n# recipes/sft.yaml\n```\n", "TRL205 is not reported; found: nothing"),
    ("an Example where another rule fires too", "TRL205",
     "## Example\n```yaml\n# recipes/sft.yaml\npacking: true\nmax_length: null\nfp16: true\nbf16: true\n```\n" +
     SFT + "\n## Use instead\n```yaml\n# recipes/sft.yaml\n```\n", "other rules fire too"),
    ("an Example whose mistake is not in its first block", "TRL205",
     "## Example\n" + SFT + "```yaml\n# recipes/sft.yaml\npacking: true\nmax_length: null\n```\n\n## Use instead\n"
     "```yaml\n# recipes/sft.yaml\n```\n", "no TRL205 finding in `launch.sh`, the first block"),
    ("a Use instead that still fires", "TRL205",
     "## Example\n```yaml\n# recipes/sft.yaml\npacking: true\nmax_length: null\n```\n" + SFT +
     "\n## Use instead\n```yaml\n# recipes/sft.yaml\npacking: true\nmax_length: null  # unchanged\n```\n",
     "Use instead (recipes/sft.yaml over the Example): must be silent"),
    ("a block that is not closed", "TRL205", "## Example\n```yaml\n# sft.yaml\npacking: true\n\n## Use instead\n",
     "TRL205 Example: a code block is not closed"),
    ("no Example", "TRL205", "## What it does\nText.\n", "has no `## Example`"),
    ("an Example and no Use instead", "TRL205", "## Example\n```yaml\n# a.yaml\n```\n",
     "but no `## Use instead`"),
    ("an Example for a rule listed in NO_EXAMPLE", "TRL905", "## Example\n```yaml\n# a.yaml\n```\n",
     "remove it from NO_EXAMPLE"),
    ("a rule listed in NO_EXAMPLE without one", "TRL905", "## What it does\nText.\n", None),
]


def self_test(binary):
    """Runs the checker on SELF_TESTS; returns the number of cases that did not behave."""
    bad = 0
    for what, code, page, expected in SELF_TESTS:
        try:
            check(binary, code, page)
            got = None
        except DocError as e:
            got = str(e)
        ok = got is None if expected is None else (got is not None and expected in got)
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": expected {expected!r}, got {got!r}"))
        bad += not ok
    return bad


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return 1 if self_test(os.path.abspath(argv[2])) else 0
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(argv[1])
    codes = argv[2:]
    if not codes:
        listing = subprocess.run([binary, "rule", "--all"], capture_output=True, text=True, check=True).stdout
        codes = [line.split()[0] for line in listing.splitlines() if line.strip()]
    unknown = set(NO_EXAMPLE) - set(codes) if not argv[2:] else set()
    failures = [f"NO_EXAMPLE lists {c}, which is not a rule" for c in sorted(unknown)]
    for code in codes:
        try:
            note = check(binary, code)
            print(f"{code}: ok" + (f" ({note})" if note else ""))
        except DocError as e:
            failures.append(str(e))
            print(f"{code}: FAILED")
    for f in failures:
        print("\n" + f)
    if failures:
        print(f"\n{len(failures)} rule documentation example(s) failed (see CONTRIBUTING.md, \"Examples in the "
              f"rule documentation\")")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
