"""`python -m trl_lint ARGS`: runs the trl-lint executable with ARGS (same exit code)."""

import os
import subprocess
import sys

from trl_lint import find_trl_lint_bin


def main() -> int:
    binary = find_trl_lint_bin()
    if os.name == "posix":
        # Replace this process: signals, the exit code and the LSP server's stdio go straight
        # to trl-lint.
        os.execv(binary, [binary, *sys.argv[1:]])
    return subprocess.call([binary, *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
