"""``python -m grader COMMAND``: see cli.py, or ``python -m grader --help``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
