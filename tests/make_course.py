"""A throw-away copy of the course for running its make targets in tests.

The copy has the Makefile, nbgrader_config.py, solutions/ and exercises/ and
uses the repository's .venv (linked), so `make` there sets up nothing and
everything it writes stays in the copy.
"""

import os
import subprocess

from testsupport.course import copy_course as _copy_course


def copy_course(folder, extra=()):
    return _copy_course(folder, extra, for_make=True)


def make(folder, *args, env=None, timeout=600):
    environ = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GPTCOURSE_DB_URL")}
    environ.update(env or {})
    return subprocess.run(["make", "--no-print-directory", *args], cwd=folder, env=environ,
                          capture_output=True, text=True, timeout=timeout)
