"""The LMS wing: one class per LMS, asked by collecting, feedback, the exports and the roster.

- ``base.py``: `Platform`, what an LMS is to the grader (its download's file names,
  how a file is matched to the roster, its late flag, how feedback goes back), and
  `GradebookCsv`, the columns of an LMS's gradebook CSV.
- ``canvas.py``, ``moodle.py``: `Canvas` and `Moodle`, one class each.
- ``registry.py``: `PLATFORMS`, `platform(name)`, the default LMS.
- ``canvas_settings.py``: `CanvasPush`, where grades are pushed (the site, the course, the
  token file, or CANVAS_URL, CANVAS_COURSE, CANVAS_TOKEN_FILE), read into a `CanvasConnection`.
- ``canvas_api.py``: `CanvasCourseApi`, one course's grades and comments through Canvas's
  REST API (canvasapi, imported only by the push), 429 and 5xx retried.
- ``push_records.py``: what a push reads of an LMS (`LmsAssignment`, `LmsSubmission`), the
  API it goes through (`LmsCourseApi`, a Protocol) and its errors (`LmsRefused`,
  `LmsUnavailable`, `LmsRequestFailed`).
- ``names.py``: what every LMS's names share: `LmsFileName`, the released notebook a
  renamed copy is (`released_notebook`).
"""

from .base import GradebookCsv, Platform, RosterPerson
from .canvas import Canvas
from .canvas_settings import (GRADE_PUSH_DOCS, CanvasConnection, CanvasPush, LmsSetupError,
                              connection_from, exported_assignment_id)
from .moodle import Moodle
from .names import LmsFileName, comparable_name, released_notebook, shown_time
from .push_records import (LmsAssignment, LmsCourseApi, LmsRefused, LmsRequestFailed,
                           LmsSubmission, LmsUnavailable)
from .registry import (DEFAULT_PLATFORM, GRADE_PUSH_COMMAND, GRADE_PUSH_PLATFORM, PLATFORMS,
                       UnknownPlatform, gradebooks, known_platforms, platform)

__all__ = ["Canvas", "CanvasConnection", "CanvasPush", "DEFAULT_PLATFORM", "GRADE_PUSH_COMMAND",
           "GRADE_PUSH_DOCS", "GRADE_PUSH_PLATFORM", "GradebookCsv", "LmsAssignment",
           "LmsCourseApi", "LmsFileName", "LmsRefused", "LmsRequestFailed", "LmsSetupError",
           "LmsSubmission", "LmsUnavailable", "Moodle", "PLATFORMS", "Platform", "RosterPerson",
           "UnknownPlatform", "comparable_name", "connection_from", "exported_assignment_id",
           "gradebooks", "known_platforms", "platform", "released_notebook", "shown_time"]
