"""The LMS wing: one class per LMS, asked by collecting, feedback, the exports and the roster.

- ``base.py``: `Platform`, what an LMS is to the grader (its download's file names,
  how a file is matched to the roster, its late flag, how feedback goes back), and
  `GradebookCsv`, the columns of an LMS's gradebook CSV.
- ``canvas.py``, ``moodle.py``: `Canvas` and `Moodle`, one class each.
- ``registry.py``: `PLATFORMS`, `platform(name)`, the default LMS.
- ``names.py``: what every LMS's names share: `LmsFileName`, the released notebook a
  renamed copy is (`released_notebook`).
"""

from .base import GradebookCsv, Platform, RosterPerson
from .canvas import Canvas
from .moodle import Moodle
from .names import LmsFileName, comparable_name, released_notebook, shown_time
from .registry import (DEFAULT_PLATFORM, PLATFORMS, UnknownPlatform, gradebooks,
                       known_platforms, platform)

__all__ = ["Canvas", "DEFAULT_PLATFORM", "GradebookCsv", "LmsFileName", "Moodle", "PLATFORMS",
           "Platform", "RosterPerson", "UnknownPlatform", "comparable_name",
           "gradebooks", "known_platforms", "platform", "released_notebook",
           "shown_time"]
