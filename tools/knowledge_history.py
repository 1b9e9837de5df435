#!/usr/bin/env python3
"""Generates rules/knowledge/history_*.yaml: the configuration classes of TRL, accelerate and
transformers at every release, as version-indexed tables.

Run by hand when a library releases (not at build time); commit its output. It reads the
libraries' source text at each release tag of a git checkout with `git cat-file`; nothing of the
library is imported or run. The source is read by trl-lint's own Python extraction (the reading
trl-lint does of an installed release newer than its knowledge), through tools/history_extract.cpp:
build it first (`cmake --build build --target history_extract`; $TRL_LINT_HISTORY_EXTRACT names
another binary). This script keeps what the tables need beyond one module: which classes and
files to read, a trainer's base followed through its module's imports, bases flattened, ranges.

    tools/knowledge_history.py trl /path/to/trl rules/knowledge/history_trl.yaml
    tools/knowledge_history.py accelerate /path/to/accelerate rules/knowledge/history_accelerate.yaml
    tools/knowledge_history.py transformers /path/to/transformers rules/knowledge/history_transformers.yaml [--origin REPO]
    tools/knowledge_history.py dir tests/unit/data/history/trl > out.yaml   # releases as folders

What is read at each release:
- for TRL, every class named `*Trainer` in trl/trainer/*.py and trl/experimental/** (one per name:
  trl/trainer's first, then the first file by path): the parameters of its `__init__` (position,
  kind, whether required, literal default) and which of them the source deprecates: listed by a
  `_deprecate_arguments(deprecated_args=[...])` decorator, accepted under an old name by a
  `deprecate_kwarg(old, ..., new_name)` decorator (an `alias` entry), or warned about in the body
  (`if p ...: warnings.warn("The `p` argument is deprecated ...")`). A class whose `__init__` only
  passes `*args, **kwargs` to `super().__init__`, or that has none, takes the parameters of its
  first base when that is a trainer of the same release (`init_src` names its file); otherwise
  they are unknown there (`init: unknown`).
- every `@dataclass` class named `*Config`, `*Arguments` or `*Plugin` in the scanned files: its
  fields (annotated class attributes, except `ClassVar`s and `field(init=False)`), their type,
  default, `choices` (field metadata `choices`, a `Literal[...]` annotation, or help text that
  says "must be one of" followed by quoted values), and whether the help text says "deprecated".
  Bases that are dataclasses of the same library and release are flattened into the class (their
  fields first, the class's own declarations win); other bases (TrainingArguments) are kept as
  bases.
- for accelerate, the options `launch_command_parser` in commands/launch.py adds.
- for transformers, `TrainingArguments` in src/transformers/training_args.py.
- in every library, a dataclass field its `__post_init__` converts to an enum (`self.f =
  SomeEnum(self.f)`, which raises ValueError on any other value) takes that enum's string values
  as its choices (`choices_from: enum`): the enum of the class's own module, else of another
  module read at that release (for transformers also trainer_utils.py and debug_utils.py).

Output: for each class, the release ranges where it exists (with its bases and file), and for each
field the release ranges with one type/default/choices each. A range names the first and the last
release of the scanned list where the entry holds; the source of an entry is its file at those tags.
"""

import json
import os
import re
import subprocess
import sys

EXTRACTOR = os.environ.get("TRL_LINT_HISTORY_EXTRACT") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "history_extract")
MIN_RELEASE = {"trl": (0, 9), "accelerate": (0, 30), "transformers": (4, 40)}
# transformers: the file of TrainingArguments, and the files of the enums its __post_init__ converts
# its strategy, scheduler and optimizer fields to.
TRANSFORMERS_FILES = ("src/transformers/training_args.py",)
TRANSFORMERS_ENUM_FILES = ("src/transformers/training_args.py", "src/transformers/trainer_utils.py",
                           "src/transformers/debug_utils.py")
CLASS_SUFFIXES = ("Config", "Arguments", "Plugin")


# --- versions ----------------------------------------------------------------------------------

def version_key(v):
    """Numeric sort key of a release string ("0.10" < "0.9.6" is false); pre-releases excluded."""
    parts = []
    for p in v.lstrip("v").split("."):
        m = re.match(r"^(\d+)", p)
        parts.append(int(m.group(1)) if m else 0)
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


def is_release(tag):
    return re.fullmatch(r"v?\d+(\.\d+){1,2}", tag) is not None


# --- source access -----------------------------------------------------------------------------

class GitSource:
    """Files of a git checkout at a tag, read with `git cat-file --batch`."""

    def __init__(self, repo):
        self.repo = repo
        self.proc = subprocess.Popen(["git", "-C", repo, "cat-file", "--batch"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)

    def releases(self, library):
        tags = subprocess.run(["git", "-C", self.repo, "tag"], capture_output=True, text=True,
                              check=True).stdout.split()
        low = MIN_RELEASE[library]
        tags = [t for t in tags if is_release(t) and version_key(t)[:2] >= low]
        return sorted(tags, key=version_key)

    def files(self, tag, folder):
        out = subprocess.run(["git", "-C", self.repo, "ls-tree", "-r", "--name-only", tag, folder],
                             capture_output=True, text=True, check=True).stdout
        return [f for f in out.split("\n") if f.endswith(".py")]

    def read(self, tag, path):
        self.proc.stdin.write(f"{tag}:{path}\n".encode())
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().decode().split()
        if len(header) < 3 or header[1] == "missing":
            return None
        size = int(header[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)  # the newline after the object
        return data.decode("utf-8", errors="replace")


class DirSource:
    """Releases as folders (`<root>/v0.12.0/trl/trainer/sft_config.py`): the tests' excerpts."""

    def __init__(self, root):
        self.root = root

    def releases(self, library):
        return sorted((d for d in os.listdir(self.root) if is_release(d)), key=version_key)

    def files(self, tag, folder):
        base = os.path.join(self.root, tag)
        out = []
        for d, _, names in os.walk(os.path.join(base, folder)):
            out += [os.path.relpath(os.path.join(d, n), base) for n in names if n.endswith(".py")]
        return sorted(out)

    def read(self, tag, path):
        try:
            with open(os.path.join(self.root, tag, path), encoding="utf-8") as f:
                return f.read()
        except OSError:
            return None


# --- extraction --------------------------------------------------------------------------------

def extract(texts):
    """What trl-lint's own Python extraction reads of the modules `texts` (path -> text; None for a
    file the tag lacks) through tools/history_extract.cpp, built as build/history_extract
    ($TRL_LINT_HISTORY_EXTRACT names another binary): per module, its dataclasses, enums, trainers,
    imports and launch options (ModuleScan in analyzer/eval/installed_classes.hpp)."""
    chunks = []
    for path, text in texts.items():
        if text is None:
            continue
        data = text.encode("utf-8")
        chunks.append(f"{path}\t{len(data)}\n".encode() + data)
    if not chunks:
        return []
    if not os.access(EXTRACTOR, os.X_OK):
        sys.exit(f"knowledge_history.py: {EXTRACTOR} not found: build it with "
                 "`cmake --build build --target history_extract` (or set TRL_LINT_HISTORY_EXTRACT)")
    done = subprocess.run([EXTRACTOR], input=b"".join(chunks), capture_output=True, check=True)
    return json.loads(done.stdout)["modules"]


def field_entry(f):
    """A field as the tables record it, from the extractor's reading."""
    entry = {"type": f["type"]}
    if "default" in f:
        entry["default"] = f["default"]
    if f["nullable"]:
        entry["nullable"] = True
    if f["choices"]:
        entry["choices"] = f["choices"]
        if f["choices_from_help"]:
            entry["choices_from"] = "help"
    if f["deprecated"]:
        entry["deprecated"] = True
    return entry


def launch_options(module):
    """The options `launch_command_parser` adds, from the extractor's reading: name -> entry."""
    options = {}
    for o in module["options"]:
        longs = [n[2:] for n in o["names"] if n.startswith("--")]
        if not longs or longs[0] == "help":
            continue
        entry = {}
        if o["action"] in ("store_true", "store_false"):
            entry["value"] = False
        elif "type" in o:
            entry["type"] = {"int": "int", "float": "float", "str": "str"}.get(o["type"], "object")
        if "choices" in o:
            entry["choices"] = o["choices"]
        if len(longs) > 1:
            entry["aliases"] = longs[1:]
        if o["help"] and re.search(r"\bdeprecated\b", o["help"], re.IGNORECASE):
            entry["deprecated"] = True
        options[longs[0]] = entry
    return options


# --- trainers ----------------------------------------------------------------------------------

def signature(init):
    """The parameters of an `__init__` as the tables record them, from the extractor's reading:
    name -> entry with pos, kind, required or default, deprecated; then the old names
    `deprecate_kwarg` takes in place of a parameter (kind alias)."""
    params = {}
    for p in init["params"]:
        entry = {"pos": p["pos"], "kind": p["kind"]}
        if p["required"]:
            entry["required"] = True
        elif "default" in p:
            entry["default"] = p["default"]
        if p["deprecated"]:
            entry["deprecated"] = True
        params[p["name"]] = entry
    for old, new in init["aliases"]:
        entry = {"kind": "alias", "deprecated": True}
        if new:
            entry["new"] = new
        params[old] = entry
    return params


def module_imports(module, path):
    """Names a module imports from TRL modules: local name -> (module folder or file stem, name)."""
    out = {}
    pkg = os.path.dirname(path)
    for st in module["imports"]:
        if st["level"]:
            base = pkg
            for _ in range(st["level"] - 1):
                base = os.path.dirname(base)
            mod = os.path.join(base, *st["module"].split(".")) if st["module"] else base
        elif st["module"].startswith("trl."):
            mod = os.path.join(*st["module"].split("."))
        else:
            continue
        for name, alias in st["names"]:
            out[alias or name] = (os.path.normpath(mod), name)
    return out


def is_trainer_module(path):
    return re.fullmatch(r"trl/trainer/[^/]+\.py", path) or path.startswith("trl/experimental/")


def scan_trainers(modules):
    """The trainer classes of one release: name -> {file, bases, init_src, params (None: unknown)}."""
    every = []  # (file, name, info, imports)
    for m in modules:
        if not is_trainer_module(m["path"]) or not m["trainers"]:
            continue
        imports = module_imports(m, m["path"])
        for t in m["trainers"]:
            every.append((m["path"], t["name"], {"file": m["path"], "bases": t["bases"], "init": t["init"]}, imports))

    def lookup(module, name):
        """A class `name` defined in `module` (a file stem or a package folder), or None."""
        hits = [e for e in every if e[1] == name and (e[0] == module + ".py" or e[0].startswith(module + "/"))]
        return sorted(hits, key=lambda e: e[0])[0] if hits else None

    def resolve(entry, depth=0):
        """(params, init_src, forwarded) of a class: its own __init__, or the one it forwards to or
        inherits from a trainer of the same release; params None when that is not a TRL trainer."""
        path, name, info, imports = entry
        init = info["init"]
        if init is not None and not init["forwards_all"]:
            return signature(init), path
        if not info["bases"] or depth > 8:
            return None, None
        base = info["bases"][0].split(".")[-1]
        target = None
        if base in imports:
            target = lookup(*imports[base])
        else:
            target = next((e for e in every if e[0] == path and e[1] == base), None)
        if target is None:
            return None, None
        return resolve(target, depth + 1)

    chosen = {}
    for e in sorted(every, key=lambda e: ("experimental" in e[0], e[0])):
        chosen.setdefault(e[1], e)  # one class per name: trl/trainer first, then the first file by name
    out = {}
    for name, e in chosen.items():
        params, src = resolve(e)
        bases = [b.split(".")[-1] for b in e[2]["bases"]]
        out[name] = {"file": e[0], "bases": bases, "init_src": src, "params": params}
    return out


def scan_release(source, library, tag):
    """classes: name -> {file, bases, fields}; options: launch options (accelerate); trainers."""
    if library == "trl":
        paths = source.files(tag, "trl")
    elif library == "transformers":
        paths = list(TRANSFORMERS_FILES)
    else:
        paths = [p for p in source.files(tag, "src/accelerate")
                 if p.endswith(("utils/dataclasses.py", "parallelism_config.py", "commands/launch.py"))]
    # Each file's text is read once per tag.
    texts = {p: source.read(tag, p) for p in paths}
    readable = [p for p in paths if "@dataclass" in (texts[p] or "")]
    wanted = list(readable)
    if library == "trl":
        wanted += [p for p in paths if p not in wanted and is_trainer_module(p) and "Trainer" in (texts[p] or "")]
    if library == "accelerate":
        wanted += [p for p in paths if p not in wanted and p.endswith("commands/launch.py")]
    if library == "transformers":
        wanted += [p for p in TRANSFORMERS_ENUM_FILES if p not in wanted]
    modules = extract({p: texts[p] if p in texts else source.read(tag, p) for p in wanted})
    trainers = scan_trainers(modules) if library == "trl" else {}
    options = {}
    found = {}
    enums = {}
    for m in modules:
        enums.update(m["enums"])
        if library == "accelerate" and m["path"].endswith("commands/launch.py"):
            options = launch_options(m)
    for m in modules:
        path = m["path"]
        if path not in readable:
            continue
        for c in m["dataclasses"]:
            fields = {f["name"]: field_entry(f) for f in c["fields"]}
            for fname, enum in c["enum_conversions"].items():
                # The conversion raises ValueError on any other value, whatever the entry point.
                # The enum of the class's own module first, else one of another module read.
                values = m["enums"].get(enum) or enums.get(enum)
                if values and fname in fields and not fields[fname].get("choices"):
                    fields[fname] = dict(fields[fname], choices=values, choices_from="enum")
            info = {"file": path, "bases": c["bases"], "fields": fields}
            # One class per name: outside trl/experimental first (the public one).
            old = found.get(c["name"])
            if old is None or ("experimental" in old["file"] and "experimental" not in path):
                found[c["name"]] = info
    classes = {}
    for name, info in found.items():
        if not name.endswith(CLASS_SUFFIXES) or name.startswith("_"):
            continue
        fields, bases, files = {}, [], {}
        flatten(found, name, fields, bases, files, 0)
        for f, where in files.items():
            if where != info["file"]:
                fields[f] = dict(fields[f], src=where)
        classes[name] = {"file": info["file"], "bases": bases, "fields": fields}
    return classes, options, trainers


def flatten(found, name, fields, bases, files, depth):
    """Fields of `name` with those of its dataclass bases of the same release (bases first)."""
    info = found[name]
    for b in info["bases"]:
        if b in found and depth < 16:
            flatten(found, b, fields, bases, files, depth + 1)
        elif b not in ("object", "Generic", "ABC") and b not in bases and depth == 0:
            bases.append(b)
        elif b not in found and b not in ("object", "Generic", "ABC") and b not in bases:
            bases.append(b)
    for f, entry in info["fields"].items():
        fields[f] = entry
        files[f] = info["file"]


# --- tables ------------------------------------------------------------------------------------

def ranges(releases, value_at):
    """[(first, last, value)] runs of equal non-None values over the releases."""
    out = []
    for tag in releases:
        v = value_at(tag)
        if v is not None and out and out[-1][2] == v and out[-1][1] == prev:
            out[-1] = (out[-1][0], tag, v)
        elif v is not None:
            out.append((tag, tag, v))
        prev = tag
    return out


def scalar(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        # A float YAML 1.1 (PyYAML, trl-lint's resolver) reads back as a float: a dot before the
        # exponent ("2.0e-05", not "2e-05", which is a string there).
        if v != v:
            return ".nan"
        if v in (float("inf"), float("-inf")):
            return ".inf" if v > 0 else "-.inf"
        text = repr(v)
        mantissa, _, exponent = text.partition("e")
        if "." not in mantissa:
            mantissa += ".0"
        return mantissa + ("e" + exponent if exponent else "")
    if isinstance(v, int):
        return repr(v)
    s = str(v)
    if re.fullmatch(r"[A-Za-z_][\w.\-/]*", s) and s.lower() not in (
            "true", "false", "yes", "no", "on", "off", "null", "none", "y", "n"):
        return s
    return "'" + s.replace("'", "''") + "'"


def flow(entry, keys):
    parts = []
    for k in keys:
        if k not in entry:
            continue
        v = entry[k]
        if isinstance(v, list):
            parts.append(f"{k}: [" + ", ".join(scalar(x) for x in v) + "]")
        else:
            parts.append(f"{k}: {scalar(v)}")
    return "{" + ", ".join(parts) + "}"


def freeze(d):
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in d.items()))


def thaw(t):
    return {k: list(v) if isinstance(v, tuple) else v for k, v in t}


def known_classes(folder):
    """Class names the hand-written knowledge files in `folder` describe (history_* excluded)."""
    names = set()
    for name in os.listdir(folder):
        if name.endswith(".yaml") and not name.startswith("history_"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                names |= set(re.findall(r"^  ([A-Z]\w+):\s*$", f.read(), re.MULTILINE))
    return names


# accelerate's plugins matter to launch configurations even where no rule names them yet.
EXTRA_CLASSES = {"accelerate": {"FullyShardedDataParallelPlugin", "DeepSpeedPlugin"}}


def generate(source, library, origin, keep=None):
    releases = source.releases(library)
    scans = {}
    for tag in releases:
        scans[tag] = scan_release(source, library, tag)
        print(f"{library} {tag}: {len(scans[tag][0])} classes", file=sys.stderr)
    names = [r.lstrip("v") for r in releases]
    out = [f"# Generated by tools/knowledge_history.py from {origin}: do not edit by hand.",
           f"# The configuration classes{' and trainers' if library == 'trl' else ''} of {library} at each release tag listed, read from the source",
           "# text (never imported). A range `from`..`to` names the first and last listed release where",
           "# an entry holds; its source is the class's file (or `src`) at those tags.",
           "history:", f"  {library}:", "    releases: [" + ", ".join(repr(n) for n in names) + "]", "    classes:"]
    class_names = sorted({c for tag in releases for c in scans[tag][0] if keep is None or c in keep})
    field_keys = ["from", "to", "type", "default", "nullable", "choices", "choices_from", "deprecated", "src"]
    for cname in class_names:
        out.append(f"      {cname}:")
        spans = ranges(releases, lambda t: freeze({"file": scans[t][0][cname]["file"],
                                                   "bases": scans[t][0][cname]["bases"]})
                       if cname in scans[t][0] else None)
        out.append("        spans:")
        for first, last, v in spans:
            d = thaw(v)
            out.append("          - " + flow({"from": first.lstrip("v"), "to": last.lstrip("v"), "file": d["file"],
                                              "bases": d["bases"]}, ["from", "to", "file", "bases"]))
        out.append("        fields:")
        fnames = []
        for t in releases:
            for f in scans[t][0].get(cname, {}).get("fields", {}):
                if f not in fnames:
                    fnames.append(f)
        for fname in sorted(fnames):
            fr = ranges(releases, lambda t: freeze(scans[t][0][cname]["fields"][fname])
                        if cname in scans[t][0] and fname in scans[t][0][cname]["fields"] else None)
            items = [flow(dict(thaw(v), **{"from": a.lstrip("v"), "to": b.lstrip("v")}), field_keys)
                     for a, b, v in fr]
            out.append(f"          {fname}: [" + ", ".join(items) + "]")
    if library == "trl":
        out += trainer_tables(releases, scans)
    if library == "accelerate":
        out.append("    launch_options:")
        onames = sorted({o for t in releases for o in scans[t][1]})
        for oname in onames:
            fr = ranges(releases, lambda t: freeze(scans[t][1][oname]) if oname in scans[t][1] else None)
            items = [flow(dict(thaw(v), **{"from": a.lstrip("v"), "to": b.lstrip("v")}),
                          ["from", "to", "value", "type", "choices", "aliases", "deprecated"]) for a, b, v in fr]
            out.append(f"      {oname}: [" + ", ".join(items) + "]")
    return "\n".join(out) + "\n"


def trainer_tables(releases, scans):
    """The `trainers:` section: each trainer class's spans and its __init__ parameters' ranges."""
    out = ["    trainers:"]
    names = sorted({c for t in releases for c in scans[t][2]})
    param_keys = ["from", "to", "pos", "kind", "required", "default", "deprecated", "new", "src"]

    def span_of(t, cname):
        tr = scans[t][2].get(cname)
        if tr is None:
            return None
        d = {"file": tr["file"], "bases": tr["bases"]}
        if tr["params"] is None:
            d["init"] = "unknown"
        elif tr["init_src"] != tr["file"]:
            d["init_src"] = tr["init_src"]
        return freeze(d)

    for cname in names:
        out.append(f"      {cname}:")
        out.append("        spans:")
        for first, last, v in ranges(releases, lambda t: span_of(t, cname)):
            d = dict(thaw(v), **{"from": first.lstrip("v"), "to": last.lstrip("v")})
            out.append("          - " + flow(d, ["from", "to", "file", "bases", "init_src", "init"]))
        pnames = []
        for t in releases:
            tr = scans[t][2].get(cname)
            for p in (tr or {}).get("params") or {}:
                if p not in pnames:
                    pnames.append(p)
        if not pnames:
            continue
        out.append("        params:")

        def param_at(t, p):
            tr = scans[t][2].get(cname)
            if tr is None or tr["params"] is None or p not in tr["params"]:
                return None
            entry = dict(tr["params"][p])
            if tr["init_src"] != tr["file"]:
                entry["src"] = tr["init_src"]
            return freeze(entry)

        for p in sorted(pnames):
            items = [flow(dict(thaw(v), **{"from": a.lstrip("v"), "to": b.lstrip("v")}), param_keys)
                     for a, b, v in ranges(releases, lambda t: param_at(t, p))]
            out.append(f"          {p}: [" + ", ".join(items) + "]")
    return out


def main(argv):
    if len(argv) < 2 or argv[0] not in ("trl", "accelerate", "transformers", "dir"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "dir":
        # dir ROOT [library]: releases as folders under ROOT; the library defaults to trl.
        library = argv[2] if len(argv) > 2 and argv[2] in MIN_RELEASE else "trl"
        sys.stdout.write(generate(DirSource(argv[1]), library, "excerpts"))
        return 0
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    library, repo = argv[0], argv[1]
    # --origin TEXT: the repository the tags were read from, when it is not huggingface/<library>
    # (a fork that keeps the upstream release tags).
    origin = f"huggingface/{library}"
    if "--origin" in argv[3:]:
        origin = argv[argv.index("--origin") + 1]
    head = subprocess.run(["git", "-C", repo, "describe", "--tags", "--always"], capture_output=True, text=True)
    # Only the classes trl-lint knows by name (the hand-written files beside the output).
    keep = known_classes(os.path.dirname(os.path.abspath(argv[2]))) | EXTRA_CLASSES.get(library, set())
    text = generate(GitSource(repo), library, f"the git tags of {origin} ({head.stdout.strip()})", keep)
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
