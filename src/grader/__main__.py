"""``python -m grader COMMAND``: see cli.py, or ``python -m grader --help``."""

import sys

from .numerics import fork_safe_numerics

# before anything loads torch (grader/numerics.py)
fork_safe_numerics()

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
