"""The ``svmgo`` console script of the wheel: runs the bundled svmgo command
(svmgo/bin/svmgo) with the same arguments, in place of this process."""

import os
import sys


def main() -> None:
    """Replaces this process with the bundled svmgo command."""
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "svmgo")
    if not os.access(exe, os.X_OK):
        sys.exit(f"svmgo: the command is not bundled in this installation ({exe})")
    os.execv(exe, [exe] + sys.argv[1:])
