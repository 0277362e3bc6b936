"""A throw-away copy of the course for running its make targets in tests.

The copy has the Makefile, nbgrader_config.py, solutions/ and exercises/ and
uses the repository's .venv (linked), so `make` there sets up nothing and
everything it writes stays in the copy.
"""

import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COPIED = ["Makefile", "nbgrader_config.py", "requirements.txt", "pyproject.toml"]


def copy_course(folder, extra=()):
    os.makedirs(folder, exist_ok=True)
    for name in COPIED:  # copy2 keeps the times: .venv's stamp stays newer than the files
        shutil.copy2(os.path.join(ROOT, name), folder)
    for name in ("solutions", "exercises", *extra):
        shutil.copytree(os.path.join(ROOT, name), os.path.join(folder, name))
    os.symlink(os.path.join(ROOT, ".venv"), os.path.join(folder, ".venv"))
    return folder


def make(folder, *args, env=None, timeout=600):
    environ = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GPTCOURSE_DB_URL")}
    environ.update(env or {})
    return subprocess.run(["make", "--no-print-directory", *args], cwd=folder, env=environ,
                          capture_output=True, text=True, timeout=timeout)
