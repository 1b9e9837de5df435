"""trl-lint: finds configuration mistakes in TRL / accelerate / transformers training setups.

The package carries the compiled ``trl-lint`` executable, which pip installs into the
environment's scripts folder (``bin/``). ``find_trl_lint_bin()`` tells where it is;
``python -m trl_lint ARGS`` runs it.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig

__all__ = ["find_trl_lint_bin"]

_EXE = "trl-lint" + (sysconfig.get_config_var("EXE") or "")


def _candidates():
    # The scheme this interpreter installs into (a venv's bin/, /usr/local/bin, ...).
    yield sysconfig.get_path("scripts")
    # A `pip install --user`.
    user_scheme = {"nt": "nt_user", "posix": "posix_user"}.get(os.name)
    if user_scheme and user_scheme in sysconfig.get_scheme_names():
        yield sysconfig.get_path("scripts", scheme=user_scheme)
    # `pip install --target DIR` puts the package in DIR and the executable in DIR/bin.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    yield os.path.join(package_root, "bin")
    # Beside the interpreter (a venv used without activation).
    yield os.path.dirname(sys.executable)


def find_trl_lint_bin() -> str:
    """Returns the path of the trl-lint executable this package installed."""
    for folder in _candidates():
        if not folder:
            continue
        path = os.path.join(folder, _EXE)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which(_EXE)
    if found:
        return found
    raise FileNotFoundError(f"{_EXE}: not found next to the trl_lint package nor on the PATH")
