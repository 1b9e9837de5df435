#!/usr/bin/env python3
"""Differential test: trl-lint's reading of YAML and JSON files against Python's.

    yaml_diff.py DATA_VIEW SOURCE_DIR [EXTRA_DIR...]

Every YAML file of SOURCE_DIR/fixtures and of tests/yaml_diff/cases, every YAML under the extra
folders given (the shared corpus when present), and a generated set of tricky texts are read by
PyYAML (`yaml.safe_load_all`, the pure-Python loader) and by trl-lint (the data_view tool). They
must agree: both accept with the same keys, values and types, or both refuse at the same line.
JSON files are compared with Python's `json.loads` the same way.

Known, intended differences (the files are skipped):
- an application tag (`!foo`, `!!python/...`): `safe_load` refuses it, while loaders with their
  own constructors accept it; trl-lint reads the text and raises nothing (precision first);
- an alias to an anchor whose node is not finished (a recursive structure);
- keys Python finds equal though written differently (`1` and `true`, `1` and `1.0`): one dict
  key for Python, two for trl-lint.
Exit 77 (skipped) when PyYAML is not installed (Debian package python3-yaml).
"""
import datetime
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("SKIP: PyYAML is not installed (apt-get install python3-yaml)")
    sys.exit(77)


def key_text(k):
    if isinstance(k, str):
        return k
    if k is None:
        return "None"
    if isinstance(k, datetime.date) and not isinstance(k, datetime.datetime):
        return str(k)
    return repr(k)


def encode(v):
    if v is None or isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": v}
    if isinstance(v, (datetime.date, datetime.datetime)):
        return {"timestamp": True}
    if isinstance(v, bytes):
        return {"binary": True}
    if isinstance(v, list):
        return [encode(x) for x in v]
    if isinstance(v, dict):
        return {key_text(k): encode(x) for k, x in v.items()}
    if isinstance(v, set):
        return {key_text(k): None for k in v}
    return {"other": type(v).__name__}


def normalise_view(v):
    """data_view's encoding, brought to encode()'s."""
    if isinstance(v, list):
        return [normalise_view(x) for x in v]
    if isinstance(v, dict):
        if set(v) == {"int"}:
            return v
        if set(v) == {"float"}:
            return {"float": float(v["float"])}
        if set(v) == {"timestamp"}:
            return {"timestamp": True}
        return {k: normalise_view(x) for k, x in v.items()}
    return v


def same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) == {"float"} and set(b) == {"float"}:
            x, y = a["float"], b["float"]
            return x == y or (math.isnan(x) and math.isnan(y))
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def python_view(path):
    """('ok', documents) or ('error', line) or ('skip', why)."""
    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith(".json"):
        try:
            return "ok", [encode(json.loads(raw.decode("utf-8")))]
        except (ValueError, UnicodeDecodeError) as e:
            return "error", getattr(e, "lineno", None)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "skip", "not UTF-8"
    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.constructor.ConstructorError as e:
        if "could not determine a constructor" in str(e):
            return "skip", "application tag"
        mark = e.problem_mark
        return "error", mark.line + 1 if mark else None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        return "error", mark.line + 1 if mark else None
    except RecursionError:
        return "skip", "recursive structure"
    return "ok", [encode(d) for d in docs]


# Texts where YAML 1.1 (PyYAML) and YAML 1.2 or a grammar's reading differ.
GENERATED = {
    "multiline_double_quoted_under_key": 'a:\n  b: "x,\n  y"\n  c: 1\n',
    "multiline_single_quoted_at_key_column": "k: 'one\ntwo'\nz: 2\n",
    "multiline_quoted_deeper": "k: \"one\n    two\n\n    three\"\n",
    "multiline_plain": "k: one\n  two\n  three\nz: 4\n",
    "plain_with_colon_and_hash": "url: http://x.org/a#b\nc: a:b\nd: x #comment\n",
    "booleans_1_1": "".join(f"k{i}: {w}\n" for i, w in enumerate(
        ["yes", "no", "on", "off", "Yes", "NO", "On", "OFF", "y", "n", "true", "False", "TRUE", "tRUE"])),
    "floats_1_1": "a: 1e-5\nb: 1.0e-5\nc: 1.0E+5\nd: 2.5e5\ne: .5\nf: 1_000.5\ng: .inf\nh: -.Inf\ni: .nan\nj: 1.\nk: 6.8523015e+5\nl: 685.230_15e+03\nm: 190:20:30.15\n",
    "ints_1_1": "a: 0o17\nb: 017\nc: 0x1F\nd: 0b101\ne: 1_000\nf: +12\ng: -0\nh: 190:20:30\ni: 08\nj: 0\n",
    "nulls": "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: nULL\n",
    "timestamps": "a: 2001-12-14\nb: 2001-12-14t21:59:43.10-05:00\nc: 2001-12-14 21:59:43.10\nd: 2001-13-14x\n",
    "anchors_aliases_merge": "base: &b\n  x: 1\n  y: 2\nother: &o {y: 3, z: 4}\nrun:\n  <<: [*b, *o]\n  x: 9\ncopy: *b\n",
    "merge_twice": "a: &a {k: 1}\nb: &b {k: 2}\nc:\n  <<: *a\n  <<: *b\n",
    "duplicate_keys": "a: 1\nb: 2\na: 3\n",
    "flow_collections": "a: {x: 1, y: [1, 2, {z: w}], 'q': \"r\"}\nb: [a, b, c: d]\nc: {}\nd: []\ne: {k}\n",
    "document_markers": "---\na: 1\n...\n---\nb: 2\n",
    "document_marker_only": "---\n",
    "empty": "",
    "comment_only": "# nothing\n",
    "bom": "\ufeffa: 1\nb: yes\n",
    "tab_after_value": "a: 1\t\nb:\tx\n",
    "tab_in_plain": "a: x\ty\n",
    "tab_in_quoted_and_block_and_comment": "a: \"x\ty\"\nb: |\n  x\ty\nc: 1 # c\td\nd: 'p\n\tq'\n",
    "tab_in_flow": "a: [1,\t2]\n",
    "tab_after_dash": "a:\n  - x\n  -\ty\n",
    "tab_before_comment": "a: 1\n\t# c\n",
    "tab_indent": "a:\n\tb: 1\n",
    "block_scalars": "a: |\n  l1\n   l2\n\n  l3\nb: >-\n  f1\n  f2\n\n  f3\nc: |+\n  keep\n\nd: >\n  x\n",
    "block_scalar_indent_indicator": "a: |2\n    two\n  one\n",
    "escapes": 'a: "tab\\there"\nb: "\\x41\\u00e9\\U0001F600"\nc: "line\\\n  joined"\nd: \'it\'\'s\'\n',
    "unicode": "clé: valeur\nemoji: \"😀\"\n名前: 値\n",
    "explicit_tags": "a: !!str 1\nb: !!int '7'\nc: !!float 1\nd: !!bool yes\ne: !!null ''\nf: ! 12\n",
    "complex_keys": "1: a\n1.5: b\nfalse: c\n~: d\n2024-01-01: e\n",
    "question_key": "? a\n: 1\n? b\n",
    "nested_sequence": "- a\n- - b\n  - c\n- d: e\n  f: g\n",
    "indentless_sequence": "a:\n- 1\n- 2\nb: 3\n",
    "strings_that_look_like_numbers": "a: '1e-5'\nb: 1e5\nc: 1E5\nd: +1.5e-3\ne: 0.1.2\nf: 1,000\ng: 0x\nh: 12:30\n",
    "sexagesimal": "a: 1:30\nb: -1:30:00\nc: 1:30.5\n",
    "unclosed_double_quote": 'a: "open\nb: 2\n',
    "unclosed_flow": "a: [1, 2\nb: 3\n",
    "mapping_value_in_plain": "a: b: c\n",
    "bad_indent": "a:\n  b: 1\n c: 2\n",
    "duplicate_anchor": "a: &x 1\nb: &x 2\n",
    "undefined_alias": "a: *nope\n",
    "tab_in_indentation_of_sequence": "a:\n  - 1\n\t- 2\n",
    "long_key": "? " + "k" * 1100 + "\n: v\n",
    "control_character": "a: b\x07c\n",
    "crlf": "a: 1\r\nb: \"x\r\n  y\"\r\n",
    "percent_directive": "%YAML 1.1\n---\na: 1\n",
    "unhashable_key": "? [a, b]\n: 1\n",
}


def main():
    view, source, *extra = sys.argv[1:]
    files = []
    for root in [os.path.join(source, "fixtures"), os.path.join(source, "tests", "yaml_diff", "cases")] + extra:
        for dirpath, _, names in os.walk(root):
            for n in sorted(names):
                if n.endswith((".yaml", ".yml")):
                    files.append(os.path.join(dirpath, n))
    tmp = tempfile.mkdtemp(prefix="yaml_diff.")
    for name, text in GENERATED.items():
        p = os.path.join(tmp, name + ".yaml")
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        files.append(p)
    json_cases = {
        "nan_infinity": '{"loss": NaN, "grad_norm": Infinity, "low": -Infinity, "ok": 1.5}',
        "plain": '{"a": [1, 2.0, "x", null, true], "b": {"c": 1e-5}}',
        "broken": '{"a": 1,',
    }
    for name, text in json_cases.items():
        p = os.path.join(tmp, name + ".json")
        with open(p, "w", encoding="utf-8") as f:
            f.write(text)
        files.append(p)

    out = subprocess.run([view] + files, capture_output=True, text=True, check=True).stdout.splitlines()
    views = {}
    for line in out:
        v = json.loads(line)
        views[v["path"]] = v
    failures, compared, skipped = [], 0, 0
    for path in files:
        kind, data = python_view(path)
        if kind == "skip":
            skipped += 1
            continue
        compared += 1
        v = views[path]
        if kind == "ok" and v["ok"]:
            mine = normalise_view(v["documents"])
            if not same(data, mine):
                failures.append(f"{path}: values differ\n  python:   {json.dumps(data)[:400]}\n  trl-lint: {json.dumps(mine)[:400]}")
        elif kind == "ok":
            failures.append(f"{path}: Python reads it, trl-lint reports {v['line']}:{v['column']}: {v['message']}")
        elif v["ok"]:
            failures.append(f"{path}: Python refuses it (line {data}), trl-lint reads it")
        elif data is not None and v["line"] != data and not path.endswith(".json"):
            failures.append(f"{path}: both refuse it, Python at line {data}, trl-lint at line {v['line']}: {v['message']}")
    for f in failures:
        print("FAIL", f)
    print(f"{compared} files compared, {skipped} skipped (application tags, recursive structures), {len(failures)} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
