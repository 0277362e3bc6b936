"""``python -m grader COMMAND``: see cli.py, or ``python -m grader --help``."""

import os
import sys

# One OpenMP and one MKL thread in every thread of the grader, set before anything loads
# torch (the libraries read them once, as they load). Each grading worker is one core's
# work, and the workers are forked from this process, which must hold no thread of a
# numeric library's pool when it forks: with the defaults, the checks' set-up importing
# torch in a thread of its own left a pool thread behind it, alive at the fork.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
os.environ.update(ONE_THREAD)

# nbformat's validator imports jsonschema, which compiles 38 grammars (about a second of
# every command's start-up) for the IRI formats when rfc3987_syntax is installed (Jupyter
# installs it); a notebook's schema uses no such format, so the grader goes without them
sys.modules.setdefault("rfc3987_syntax", None)

import gc  # noqa: E402

from .cli import main  # noqa: E402

if __name__ == "__main__":
    status = main()
    # what is left is freed with the interpreter: its last collections need not look at
    # torch's million objects first (most of a second of every grading run's end)
    gc.freeze()
    sys.exit(status)
