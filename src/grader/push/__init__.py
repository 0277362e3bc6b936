"""The grade push wing: each student's grade and feedback summary sent into the LMS's gradebook.

- ``plugin.py``: `GradePush`, a push as one plugin class, chosen by
  ``c.GradePush.plugin_class`` as nbgrader's export plugin is: who is there,
  what the LMS holds, one row sent; the push's own flow around it and its typed
  `PushReport`; `push_configured`, the push of the course's chosen class.
- ``plan.py``: what is sent to each student (`PushRow`): the grade `make grades`
  exports (after the late policy and any extension), the feedback summary as a
  comment, and what the LMS holds now, so only what changed is sent; nothing to a
  user id two students hold; what became of each row (`PushOutcome`) and the rows
  counted (`PushCounts`).
- ``send.py``: the report's table and `write_rows`, each row sent, which every
  push shares.
- ``canvas.py``: `CanvasGradePush`, Canvas's REST API (the default), and
  `push_grades` (`push_assignment` of grades given).
- ``commands.py``: ``push-grades`` (the chosen class) and ``canvas-push`` (Canvas's).
"""

from .canvas import CanvasGradePush, push_assignment, push_grades
from .plan import (PushCounts, PushOutcome, PushRow, feedback_comment, only_students,
                   plan_rows, shared_refusals, shared_rows)
from .plugin import (GradePush, PushReport, configured_push, final_pushes, push_configured,
                     push_with)
from .send import table, write_rows

__all__ = ["CanvasGradePush", "GradePush", "PushCounts", "PushOutcome", "PushReport",
           "PushRow", "configured_push", "feedback_comment", "final_pushes", "only_students",
           "plan_rows", "push_assignment", "push_configured", "push_grades", "push_with",
           "shared_refusals", "shared_rows", "table", "write_rows"]
