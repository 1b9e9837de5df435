#!/usr/bin/env python3
"""`make bench`: trl-lint end to end against a parse-only baseline, at several repository sizes.

Usage: bench/run_bench.py BUILD_DIR [--sizes openr1,60,1000,5000,20000] [--runs N]

For each corpus (synthetic repositories written under BUILD_DIR/bench/repos, and the real files
of ../shared/corpus when present) it runs trl-lint end to end several times (median and spread of
the wall time, peak RSS of the child from wait4) and bench_parse_baseline (tree-sitter parsing of
every Python and YAML file, single-threaded, nothing else), then prints the ratio, files per
second, MB/s and time per file. Alternating with these, it runs two floors: the same parse on every
core ("bound": bench_parse_baseline --threads NPROC), the fastest any tool could be that parses
every one of these files, and /bin/true ("start": a process that does nothing). trl-lint runs with --no-cache for these ("cold"); then with a
cache folder under BUILD_DIR/bench/cache: the run that fills it from empty ("first"), the runs
served from it ("warm"), alternating with bench_stat_floor on every core ("floor": the walk and one
stat of each file trl-lint reads, what a run that checks its cache file by file cannot go below),
and runs after a comment was appended to one trainer YAML ("1 changed", generated corpora only). `openr1` is a repository of the open-r1 size (40 Python files, 20 YAMLs);
`empty` an empty folder (process start-up alone); `--repo NAME=PATH` adds real repositories
(a checkout of huggingface/trl: notebooks and Markdown with code blocks, the library itself). Results go to BUILD_DIR/bench/results.txt and
results.json. Each generated corpus gets an empty `.trl-lint.toml`, its project root marker.
"""
import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def kept_text(r):
    """`kept/of` runs after one file changed, or `-`."""
    if r.get("edit_runs_total") is None:
        return "-"
    return f"{r['edit_runs_kept']}/{r['edit_runs_total']}"


def run_child(argv, cwd=None):
    """Wall seconds, peak RSS in MB, stdout, exit code and CPU seconds (user + system) of a child."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return wall, usage.ru_maxrss / 1024.0, out.decode(errors="replace"), proc.returncode, cpu


def machine():
    model = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = 0.0
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem_gb = int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return {"nproc": os.cpu_count(), "cpu": model, "memory_gb": round(mem_gb, 1), "kernel": platform.release()}


def corpus_stats(root):
    files = bytes_ = lint_files = 0
    # The folders trl-lint's discovery (and the baseline) skip by name; hidden ones such as
    # .github are read.
    skip = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
            ".pytest_cache", ".ruff_cache", ".eggs", "build", "dist", ".ipynb_checkpoints", "site-packages",
            ".cache", ".trl-lint_cache"}
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if x not in skip]
        for n in names:
            files += 1
            p = os.path.join(d, n)
            if n.endswith((".py", ".yaml", ".yml")):
                lint_files += 1
                bytes_ += os.path.getsize(p)
    return files, lint_files, bytes_


def fmt(x, width):
    return f"{x:>{width}.2f}" if x is not None else f"{'-':>{width}}"


def warm_spread(r):
    return f"{r['warm_median_s']*1000:.1f} ({r['warm_min_s']*1000:.0f}-{r['warm_max_s']*1000:.0f})"


def edit_ms(r):
    return "-" if r["edit_median_s"] is None else f"{r['edit_median_s']*1000:.1f}"


def edit_target(root):
    """The first trainer YAML of a generated repository (sorted), or None."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel = os.path.relpath(dirpath, root)
        if rel.startswith("recipes") and "accelerate_configs" not in rel:
            found += [os.path.join(dirpath, f) for f in filenames if f.endswith(".yaml")]
    return min(found) if found else None


def instructions(argv):
    """Instructions executed by argv and its threads (callgrind), or None when it cannot tell."""
    try:
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    except FileNotFoundError:
        return None
    for line in p.stderr.splitlines():
        if "refs:" in line:
            return int(line.split("refs:")[1].strip().replace(",", ""))
    return None


def binary_sizes(lint, build):
    """The binary's size, without its debug information, and the embedded knowledge's size."""
    out = {"file_mb": os.path.getsize(lint) / 1e6, "stripped_mb": 0.0, "knowledge_kb": 0.0}
    objcopy = shutil.which("objcopy")
    if objcopy:
        stripped = os.path.join(build, "bench", "trl-lint.stripped")
        if subprocess.run([objcopy, "--strip-debug", lint, stripped], capture_output=True).returncode == 0:
            out["stripped_mb"] = os.path.getsize(stripped) / 1e6
            os.remove(stripped)
    blob = os.path.join(build, "generated", "knowledge_blob.cpp")
    if os.path.exists(blob):
        text = open(blob).read()
        body = text[text.find("{") + 1:text.find("}")]
        out["knowledge_kb"] = body.count(",") / 1e3
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--sizes", default="empty,openr1,60,1000,5000,20000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--trl-lint", default=None, help="binary to measure (default BUILD/trl-lint)")
    ap.add_argument("--extra-args", default="", help="extra trl-lint arguments (space separated)")
    ap.add_argument("--repo", action="append", default=[], metavar="NAME=PATH",
                    help="also measure a real repository (a checkout of huggingface/trl, say); repeatable. "
                         "make bench passes TRL_LINT_BENCH_REPOS (space-separated NAME=PATH)")
    ap.add_argument("--instructions", action="store_true",
                    help="also count the instructions of one cold run of each (valgrind callgrind; corpora of "
                         "at most 1,000 files): unlike times, counts do not move with the machine's load")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    lint = os.path.abspath(args.trl_lint) if args.trl_lint else os.path.join(build, "trl-lint")
    baseline = os.path.join(build, "bench_parse_baseline")
    stat_floor = os.path.join(build, "bench_stat_floor")
    cores = os.cpu_count() or 1
    true_bin = shutil.which("true") or "/bin/true"
    out_dir = os.path.join(build, "bench")
    repos = os.path.join(out_dir, "repos")
    os.makedirs(repos, exist_ok=True)

    corpora = []
    for n in [s for s in args.sizes.split(",") if s]:
        if n == "empty":
            path = os.path.join(repos, "empty")
            os.makedirs(path, exist_ok=True)
            corpora.append(("empty", path))
            continue
        name = "openr1-size" if n == "openr1" else f"synthetic-{n}"
        path = os.path.join(repos, name)
        stamp = os.path.join(repos, f".{name}.done")
        if not os.path.exists(stamp):
            subprocess.run(["rm", "-rf", path], check=True)
            subprocess.run([sys.executable, os.path.join(HERE, "gen_repo.py"), path, str(n)], check=True)
            open(stamp, "w").close()
        corpora.append((name, path))
    # Each generated corpus is a project of its own: without a root marker its project would be
    # this checkout (the nearest `.git` above), analysed whole.
    for _, path in corpora:
        open(os.path.join(path, ".trl-lint.toml"), "a").close()
    # ../shared/corpus next to the checkout; a worktree under wt/ looks one level higher too.
    candidates = [os.path.normpath(os.path.join(REPO, *[".."] * up, "shared", "corpus")) for up in (1, 2)]
    shared = next((c for c in candidates if os.path.isdir(c)), candidates[0])
    if os.path.isdir(shared):
        corpora.append(("shared-corpus", shared))
    else:
        print(f"(no {shared}: the real corpus is skipped)")
    for spec in args.repo + os.environ.get("TRL_LINT_BENCH_REPOS", "").split():
        name, _, path = spec.partition("=")
        if not path or not os.path.isdir(path):
            sys.exit(f"--repo {spec}: expected NAME=PATH of a folder")
        corpora.append((name, os.path.abspath(path)))

    extra = args.extra_args.split()
    cache_root = os.path.join(out_dir, "cache")
    results = []
    for name, path in corpora:
        files, lint_files, size = corpus_stats(path)
        runs = args.runs if files <= 5000 else max(2, args.runs // 2)
        cold_cmd = [lint, "--output-format", "concise", "-q", "--no-cache", *extra, path]
        cache_dir = os.path.join(cache_root, name)
        subprocess.run(["rm", "-rf", cache_dir], check=True)
        warm_cmd = [lint, "--output-format", "concise", "-q", "--cache-dir", cache_dir, *extra, path]
        # One warm-up of each so the page cache holds the files for both.
        run_child(cold_cmd)
        run_child([baseline, path])
        print(f"{name}: {files} files ({lint_files} Python/YAML), {runs} runs each...", flush=True)
        # trl-lint and the baseline alternate, so that both see the same state of the machine
        # (on a shared virtual machine its speed drifts by tens of percent within minutes).
        walls, rss, cpus = [], [], []
        base_walls, base_rss, base_cpus = [], [], []
        bound_walls, start_walls = [], []
        for _ in range(runs):
            w, r, cold_out, rc, c = run_child(cold_cmd)
            if rc not in (0, 1):
                sys.exit(f"trl-lint exited {rc} on {path}")
            walls.append(w)
            rss.append(r)
            cpus.append(c)
            w, r, out, rc, c = run_child([baseline, path])
            if rc != 0:
                sys.exit(f"bench_parse_baseline exited {rc} on {path}")
            base_walls.append(w)
            base_rss.append(r)
            base_cpus.append(c)
            w, _, bound_out, rc, _ = run_child([baseline, "--threads", str(cores), path])
            if rc != 0 or bound_out.split()[:2] != out.split()[:2]:
                sys.exit(f"bench_parse_baseline --threads {cores} exited {rc} or parsed other files on {path}")
            bound_walls.append(w)
            start_walls.append(run_child([true_bin])[0])
        # The first run with the cache fills it (a miss that also writes the entry and the facts
        # pack), measured from an empty cache folder each time; then hits. Fills and hits
        # alternate for the same reason as above. Warm runs are short (a quarter of a second at
        # 20k files) and the most sensitive to noise: at least 10 of them, whatever --runs says.
        fill_walls = []
        warm_walls, warm_rss, warm_cpus = [], [], []
        floor_walls = []
        for i in range(max(runs, 10)):
            if i < runs:
                subprocess.run(["rm", "-rf", cache_dir], check=True)
                w, _, fill_out, _, _ = run_child(warm_cmd)
                if fill_out != cold_out:
                    sys.exit(f"the output of the run that fills the cache differs on {path}")
                fill_walls.append(w)
            w, r, warm_out, rc, c = run_child(warm_cmd)
            if warm_out != cold_out:
                sys.exit(f"the cached output differs from the computed one on {path}")
            warm_walls.append(w)
            warm_rss.append(r)
            warm_cpus.append(c)
            w, _, _, rc, _ = run_child([stat_floor, "--threads", str(cores), path])
            if rc != 0:
                sys.exit(f"bench_stat_floor exited {rc} on {path}")
            floor_walls.append(w)
        fill_wall = statistics.median(fill_walls)
        # One file of one run changed (a comment appended to a trainer YAML of a generated
        # repository; the real corpus is never written): a miss, which reads only what the
        # analysis needs. Each run appends another comment, so each is a miss.
        edit_walls = []
        kept_runs = None  # (kept, of) after the edit
        target = edit_target(path) if path.startswith(repos) else None
        if target:
            with open(target, "rb") as f:
                original = f.read()
            try:
                for i in range(runs):
                    with open(target, "wb") as f:
                        f.write(original + f"# edited {i} {time.time()}\n".encode())
                    w, _, edit_out, rc, _ = run_child(warm_cmd)
                    if edit_out != cold_out:
                        sys.exit(f"the output after a comment was appended to {target} differs")
                    edit_walls.append(w)
                # Once more with the cache's trace: how many runs and scripts the entry kept (the
                # rest were built and judged again).
                with open(target, "wb") as f:
                    f.write(original + f"# edited again {time.time()}\n".encode())
                traced = subprocess.run(warm_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        env={**os.environ, "TRL_LINT_CACHE_TRACE": "1"})
                m = re.search(r"cache kept (\d+) of (\d+) runs", traced.stderr.decode(errors="replace"))
                if m:
                    kept_runs = (int(m.group(1)), int(m.group(2)))
            finally:
                with open(target, "wb") as f:
                    f.write(original)
        med, base = statistics.median(walls), statistics.median(base_walls)
        bound = statistics.median(bound_walls)
        warm = statistics.median(warm_walls)
        floor = statistics.median(floor_walls)
        res = {
            "corpus": name,
            "files": files,
            "python_yaml_files": lint_files,
            "python_yaml_mb": round(size / 1e6, 3),
            "runs": runs,
            "trl_lint_median_s": round(med, 4),
            "trl_lint_min_s": round(min(walls), 4),
            "trl_lint_max_s": round(max(walls), 4),
            "trl_lint_peak_rss_mb": round(max(rss), 1),
            "baseline_median_s": round(base, 4),
            "baseline_min_s": round(min(base_walls), 4),
            "baseline_max_s": round(max(base_walls), 4),
            "baseline_peak_rss_mb": round(max(base_rss), 1),
            "ratio": round(med / base, 3) if base > 0 else None,
            "bound_threads": cores,
            "bound_median_s": round(bound, 4),
            "bound_min_s": round(min(bound_walls), 4),
            "bound_ratio": round(bound / base, 3) if base > 0 else None,
            "start_median_s": round(statistics.median(start_walls), 4),
            "trl_lint_cpu_median_s": round(statistics.median(cpus), 4),
            "baseline_cpu_median_s": round(statistics.median(base_cpus), 4),
            "cpu_ratio": round(statistics.median(cpus) / statistics.median(base_cpus), 3)
            if statistics.median(base_cpus) > 0 else None,
            "files_per_s": round(files / med, 1),
            "mb_per_s": round(size / 1e6 / med, 2),
            "us_per_file": round(med / max(files, 1) * 1e6, 1),
            "baseline_us_per_file": round(base / max(lint_files, 1) * 1e6, 1),
            "cache_fill_s": round(fill_wall, 4),
            "warm_median_s": round(warm, 4),
            "warm_min_s": round(min(warm_walls), 4),
            "warm_max_s": round(max(warm_walls), 4),
            "warm_cpu_median_s": round(statistics.median(warm_cpus), 4),
            "warm_peak_rss_mb": round(max(warm_rss), 1),
            "cold_over_warm": round(med / warm, 2) if warm > 0 else None,
            "floor_median_s": round(floor, 4),
            "cold_over_floor": round(med / floor, 2) if floor > 0 else None,
            "first_over_second": round(fill_wall / warm, 2) if warm > 0 else None,
            "edited_file": os.path.relpath(target, path) if target else None,
            "edit_median_s": round(statistics.median(edit_walls), 4) if edit_walls else None,
            "cold_over_edit": round(med / statistics.median(edit_walls), 2) if edit_walls else None,
            "edit_runs_kept": kept_runs[0] if kept_runs else None,
            "edit_runs_total": kept_runs[1] if kept_runs else None,
        }
        if args.instructions and files <= 1000:
            # --threads 1: the count of one thread's work, the baseline's shape.
            res["trl_lint_instructions"] = instructions([lint, "--threads", "1", *cold_cmd[1:]])
            res["baseline_instructions"] = instructions([baseline, path])
            if res["trl_lint_instructions"] and res["baseline_instructions"]:
                res["instruction_ratio"] = round(res["trl_lint_instructions"] / res["baseline_instructions"], 3)
        results.append(res)
        print(f"{name}: {res['trl_lint_median_s']*1000:.1f} ms trl-lint, {base*1000:.1f} ms baseline, "
              f"ratio {res['ratio']} (bound {res['bound_ratio']}), {res['us_per_file']} us/file, {res['trl_lint_peak_rss_mb']} MB, "
              f"warm cache {warm*1000:.1f} ms ({res['cold_over_warm']}x)"
              + (f", one file changed {res['edit_median_s']*1000:.1f} ms" if edit_walls else ""), flush=True)

    m = machine()
    lines = [
        f"machine: {m['nproc']} cores, {m['cpu']}, {m['memory_gb']} GB, Linux {m['kernel']}",
        f"date: {time.strftime('%Y-%m-%d %H:%M:%S')}; trl-lint args: concise -q {' '.join(extra)}; "
        f"load average at the end: {os.getloadavg()[0]:.1f}",
        "wall: median (min-max) of the runs; CPU: user+system of the child (wait4); ratio = trl-lint / baseline",
        f"bound: the baseline's parse on {cores} threads, nothing else; bound ratio = bound / baseline, the lowest",
        "ratio any tool that parses every one of these files could reach here; start: /bin/true (a process alone)",
        "trl-lint columns: --no-cache (cold); first: the run that fills an empty cache; warm: the next runs,",
        "served from the cache; first/warm = speed-up of the second run over the first;",
        f"floor: bench_stat_floor on {cores} threads, the walk and one stat of each file trl-lint reads (what a",
        "warm run that checks its cache file by file cannot go below); cold/floor: the highest cold/warm any could reach;",
        "1 changed: with the cache, after a comment was appended to one trainer YAML (generated corpora only);",
        "kept: of the runs, how many the cache kept after that change (the others were built and judged again)",
        "",
        f"{'corpus':<16} {'files':>6} {'py+yaml':>7} {'MB':>6} {'trl-lint ms (min-max)':>24} {'RSS MB':>7} "
        f"{'baseline ms':>11} {'ratio':>6} {'bound ms':>8} {'bound ratio':>11} {'start ms':>8} {'files/s':>8} {'MB/s':>6} {'us/file':>8} "
        f"{'CPU ms':>8} {'base CPU':>8} {'CPU ratio':>9} {'first ms':>8} {'warm ms (min-max)':>20} {'warm RSS':>8} "
        f"{'first/warm':>10} {'cold/warm':>9} {'floor ms':>8} {'cold/floor':>10} "
        f"{'1 changed ms':>12} {'cold/changed':>12} {'kept':>9}",
    ]
    for r in results:
        spread = f"{r['trl_lint_median_s']*1000:.1f} ({r['trl_lint_min_s']*1000:.0f}-{r['trl_lint_max_s']*1000:.0f})"
        lines.append(
            f"{r['corpus']:<16} {r['files']:>6} {r['python_yaml_files']:>7} {r['python_yaml_mb']:>6.2f} {spread:>24} "
            f"{r['trl_lint_peak_rss_mb']:>7.1f} {r['baseline_median_s']*1000:>11.1f} {fmt(r['ratio'], 6)} "
            f"{r['bound_median_s']*1000:>8.1f} {fmt(r['bound_ratio'], 11)} {r['start_median_s']*1000:>8.1f} "
            f"{r['files_per_s']:>8.0f} {r['mb_per_s']:>6.2f} {r['us_per_file']:>8.1f} "
            f"{r['trl_lint_cpu_median_s']*1000:>8.1f} {r['baseline_cpu_median_s']*1000:>8.1f} "
            f"{fmt(r['cpu_ratio'], 9)} {r['cache_fill_s']*1000:>8.1f} {warm_spread(r):>20} {r['warm_peak_rss_mb']:>8.1f} "
            f"{fmt(r['first_over_second'], 10)} {fmt(r['cold_over_warm'], 9)} {r['floor_median_s']*1000:>8.1f} "
            f"{fmt(r['cold_over_floor'], 10)} "
            f"{edit_ms(r):>12} {fmt(r['cold_over_edit'], 12)} {kept_text(r):>9}")
    binary = binary_sizes(lint, build)
    lines += ["", f"binary: {binary['file_mb']:.1f} MB on disk, {binary['stripped_mb']:.1f} MB without debug information "
                  f"(objcopy --strip-debug); embedded knowledge {binary['knowledge_kb']:.0f} kB"]
    for r in results:
        if r["corpus"] in ("empty", "openr1-size"):
            target = " (target: under 50 ms)" if r["corpus"] == "openr1-size" else ""
            lines.append(f"start-up, {r['corpus']}: {r['trl_lint_median_s']*1000:.1f} ms cold{target}")
    counted = [r for r in results if r.get("instruction_ratio")]
    if counted:
        lines += ["", "instructions of one cold run (valgrind callgrind, trl-lint with --threads 1):",
                  f"{'corpus':<16} {'trl-lint':>14} {'baseline':>14} {'ratio':>6}"]
        for r in counted:
            lines.append(f"{r['corpus']:<16} {r['trl_lint_instructions']:>14,} {r['baseline_instructions']:>14,} "
                         f"{fmt(r['instruction_ratio'], 6)}")
    text = "\n".join(lines) + "\n"
    print()
    print(text, end="")
    with open(os.path.join(out_dir, "results.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"machine": m, "binary": binary, "results": results}, f, indent=2)
    print(f"written: {out_dir}/results.txt, results.json")


if __name__ == "__main__":
    main()
