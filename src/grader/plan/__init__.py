"""The plan wing: reading a submission, and the notebook that is actually run.

- ``submission.py``: a submission's folder, files and notebook JSON, read defensively:
  `parse_submission`, the one reader of a student's notebook bytes on every route.
- ``build.py``: `build_plan`, the student's cells in the student's order with the
  instructor's own cells put back, and notes on what was repaired or moved.
- ``matching.py``: a submission whose nbgrader metadata is gone, matched to the
  release by its cells' text (or refused, for one reason).
- ``hand_in.py``: `HandIn`, one student's hand-in on the instructor's machine;
  `refusal`, why one is not graded at all, and `refused_result`, its result then.
"""

from .build import MAX_EXTRA_CELLS, Plan, PlanCell, build_plan
from .hand_in import HandIn, refusal, refused_result
from .matching import with_metadata_restored
from .submission import (MAX_COPIED_FILE_BYTES, MAX_NESTING, MAX_NOTEBOOK_BYTES, MAX_NOTEBOOK_CELLS,
                         NOTES_KEY, Unreadable, parse_submission, read_submission,
                         read_submission_bytes, student_extra_files, submission_link_problem)

__all__ = ["MAX_COPIED_FILE_BYTES", "MAX_EXTRA_CELLS", "MAX_NESTING", "MAX_NOTEBOOK_BYTES",
           "MAX_NOTEBOOK_CELLS", "NOTES_KEY", "HandIn", "Plan", "PlanCell",
           "Unreadable", "build_plan", "parse_submission", "read_submission",
           "read_submission_bytes", "refusal", "refused_result", "student_extra_files",
           "submission_link_problem", "with_metadata_restored"]
