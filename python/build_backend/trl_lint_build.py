"""The PEP 517 build backend of the trl-lint Python package (standard library only).

`pip install .`, `pip wheel .` and `make wheel` come here. The wheel carries:
  trl_lint/                          the module (`python -m trl_lint`, `find_trl_lint_bin()`)
  trl_lint-X.Y.Z.data/scripts/trl-lint  the compiled binary, which pip installs into bin/
  trl_lint-X.Y.Z.dist-info/          METADATA, WHEEL, RECORD

The binary is built with CMake in build/wheel (RelWithDebInfo, the tests off, then stripped), or
taken as it is from the file TRL_LINT_BINARY names (a binary built already: CI, the tests).
TRL_LINT_BUILD_DIR overrides the build folder; CMAKE_BUILD_PARALLEL_LEVEL the number of jobs.
When grammars/node_modules is missing, `npm ci` installs the pinned grammars first (the only
step that needs the network, as for every build from a checkout).

The platform tag is manylinux_2_N_<arch> when the binary needs only the C library (N: the newest
glibc symbol version it uses), else linux_<arch>.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIST = "trl_lint"  # the distribution name, normalised for file names

# The libraries every manylinux policy lets a wheel's binary load from the system.
_MANYLINUX_LIBS = {
    "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}


# --- project metadata ---------------------------------------------------------------------------

def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        data = f.read()
    try:
        import tomllib  # Python 3.11+
        return tomllib.loads(data.decode("utf-8"))["project"]
    except ImportError:
        pass
    # Older Pythons: the [project] table holds plain `key = "string"` lines and a list or two;
    # read the strings (enough for the metadata), and the classifiers list.
    text = data.decode("utf-8")
    section = re.search(r"^\[project\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S).group(1)
    project = dict(re.findall(r'^([a-z-]+) = "([^"]*)"$', section, re.M))
    found = re.search(r"^classifiers = \[(.*?)\]", section, re.M | re.S)
    project["classifiers"] = re.findall(r'"([^"]*)"', found.group(1)) if found else []
    return project


def _version():
    return _project()["version"]


def _metadata():
    project = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
    ]
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    if project.get("keywords"):
        lines.append("Keywords: " + ",".join(project["keywords"]))
    for classifier in project.get("classifiers", []):
        lines.append(f"Classifier: {classifier}")
    readme = project.get("readme")
    body = ""
    if isinstance(readme, str) and os.path.isfile(os.path.join(ROOT, readme)):
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _dist_info():
    return f"{DIST}-{_version()}.dist-info"


# --- the binary ---------------------------------------------------------------------------------

def _run(cmd, **kwargs):
    print("trl-lint build:", " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, **kwargs)


def _build_binary(workdir):
    """Returns the path of the stripped trl-lint binary for the wheel, in workdir."""
    built = os.environ.get("TRL_LINT_BINARY")
    if built:
        if not os.path.isfile(built):
            raise RuntimeError(f"TRL_LINT_BINARY={built}: no such file")
    else:
        built = _cmake_build()
    # The debug information is most of the file (about 100 of 110 MB): a wheel carries the code.
    stripped = os.path.join(workdir, "trl-lint")
    if shutil.which("strip"):
        _run(["strip", "-o", stripped, built])
    else:
        shutil.copyfile(built, stripped)
    return stripped


def _cmake_build():
    for tool in ("cmake",):
        if not shutil.which(tool):
            raise RuntimeError(f"building trl-lint needs {tool} (on Debian: `make setup` in the checkout)")
    grammars = os.path.join(ROOT, "grammars")
    if not os.path.isdir(os.path.join(grammars, "node_modules")):
        if not shutil.which("npm"):
            raise RuntimeError("grammars/node_modules is missing and npm is not installed: run `make setup`")
        _run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], cwd=grammars)
    build = os.environ.get("TRL_LINT_BUILD_DIR") or os.path.join(ROOT, "build", "wheel")
    if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        _run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DTRL_LINT_TESTS=OFF"])
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    _run(["cmake", "--build", build, "--target", "trl-lint", "-j", jobs])
    return os.path.join(build, "trl-lint")


def _platform_tag(binary):
    machine = platform.machine().lower()
    if machine == "amd64":
        machine = "x86_64"
    if not sys.platform.startswith("linux"):
        return re.sub(r"[^a-z0-9]+", "_", sysconfig.get_platform().lower())
    fallback = f"linux_{machine}"
    if not shutil.which("readelf"):
        return fallback
    try:
        dynamic = subprocess.run(["readelf", "-d", binary], check=True, capture_output=True, text=True).stdout
        versions = subprocess.run(["readelf", "-V", binary], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return fallback
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    if not needed <= _MANYLINUX_LIBS:
        return fallback
    glibc = [tuple(int(x) for x in v.split(".")) for v in re.findall(r"\bGLIBC_(\d+\.\d+)\b", versions)]
    major, minor = max(glibc) if glibc else (2, 17)
    if (major, minor) < (2, 17):
        major, minor = 2, 17
    return f"manylinux_{major}_{minor}_{machine}"


# --- wheel writing ------------------------------------------------------------------------------

def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"sha256={digest}"


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED)
        self.records = []

    def add(self, name, data, executable=False):
        if isinstance(data, str):
            data = data.encode("utf-8")
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        mode = 0o755 if executable else 0o644
        info.external_attr = (stat.S_IFREG | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        self.records.append(f"{name},{_record_hash(data)},{len(data)}")

    def close(self, record_name):
        self.records.append(f"{record_name},,")
        info = zipfile.ZipInfo(record_name, date_time=(1980, 1, 1, 0, 0, 0))
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        self.zip.writestr(info, "\n".join(self.records) + "\n")
        self.zip.close()


def _package_files():
    package = os.path.join(ROOT, "python", "trl_lint")
    for name in sorted(os.listdir(package)):
        if name.endswith(".py"):
            with open(os.path.join(package, name), "rb") as f:
                yield f"trl_lint/{name}", f.read()


# --- PEP 517 hooks ------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    dist_info = os.path.join(metadata_directory, _dist_info())
    os.makedirs(dist_info, exist_ok=True)
    with open(os.path.join(dist_info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    with tempfile.TemporaryDirectory() as work:
        binary = _build_binary(work)
        tag = f"py3-none-{_platform_tag(binary)}"
        name = f"{DIST}-{version}-{tag}.whl"
        os.makedirs(wheel_directory, exist_ok=True)
        wheel = _Wheel(os.path.join(wheel_directory, name))
        for path, data in _package_files():
            wheel.add(path, data)
        with open(binary, "rb") as f:
            wheel.add(f"{DIST}-{version}.data/scripts/trl-lint", f.read(), executable=True)
        dist_info = _dist_info()
        wheel.add(f"{dist_info}/METADATA", _metadata())
        wheel.add(f"{dist_info}/WHEEL",
                  "Wheel-Version: 1.0\nGenerator: trl_lint_build\nRoot-Is-Purelib: false\n" f"Tag: {tag}\n")
        wheel.close(f"{dist_info}/RECORD")
    return name


def _sdist_files():
    """The files of the source archive: git's tracked files in a checkout, else the tree."""
    if os.path.isdir(os.path.join(ROOT, ".git")) or os.path.isfile(os.path.join(ROOT, ".git")):
        try:
            out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
            return sorted(p for p in out.decode("utf-8").split("\0") if p and os.path.isfile(os.path.join(ROOT, p)))
        except (OSError, subprocess.CalledProcessError):
            pass
    skip = {".git", "node_modules", "dist", "__pycache__"}
    files = []
    for folder, dirs, names in os.walk(ROOT):
        rel = os.path.relpath(folder, ROOT)
        dirs[:] = [d for d in dirs if d not in skip and not (rel == "." and d.startswith("build"))]
        files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return sorted(files)


def build_sdist(sdist_directory, config_settings=None):
    base = f"{DIST}-{_version()}"
    name = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in _sdist_files():
            tar.add(os.path.join(ROOT, rel), arcname=f"{base}/{rel}", recursive=False)
        pkg_info = _metadata().encode("utf-8")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        info.mode = 0o644
        tar.addfile(info, io.BytesIO(pkg_info))
    return name
