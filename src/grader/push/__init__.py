"""The grade push wing: each student's grade and feedback summary sent into the LMS's gradebook.

- ``plan.py``: what is sent to each student (`PushRow`): the grade `make grades`
  exports (after the late policy and any extension), the feedback summary as a
  comment, and what the LMS holds now, so only what changed is sent; nothing to a
  user id two students hold; what became of each row (`PushOutcome`) and the rows
  counted (`PushCounts`).
- ``send.py``: `push_grades` (`push_assignment` of grades given): the dry run's table,
  or the push itself and its report per student; `write_rows`, the writing that the
  LTI push shares.
"""

from .plan import (PushCounts, PushOutcome, PushRow, feedback_comment, only_students,
                   plan_rows, shared_refusals, shared_rows)
from .send import push_assignment, push_grades, table, write_rows

__all__ = ["PushCounts", "PushOutcome", "PushRow", "feedback_comment", "only_students",
           "plan_rows", "push_assignment", "push_grades", "shared_refusals", "shared_rows",
           "table", "write_rows"]
