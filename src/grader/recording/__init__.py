"""The recording wing: everything a run writes about a student, by one writer.

- ``writer.py``: `Writer`, the single writer of a run (each student recorded, or a
  `RecordingFailure` returned), and the autograded files.
- ``gradebook.py``: one student's scores into nbgrader's gradebook, late penalty included.
- ``report_parts.py``: each student's part of the grade report, and the assignment's
  report rebuilt from all parts.
- ``released.py``: the gradebook's record of what `make release` released.
- ``due_dates.py``: an assignment's due date in the gradebook.
- ``late_penalties.py``: every notebook of a student charged as the late policy says.
- ``late_policy.py``: `apply_late_policy`, every recorded grade charged again under the
  late policy as it is now (make late-policy), with whose penalty changed.
- ``commands.py``: the wing's commands of ``python -m grader`` (apply-late-policy).
- ``manual_scores.py``: `write_manual_score`, the one writer of a manual score,
  compare-and-set: a score changed meanwhile is reported as a conflict, never overwritten.
- ``extensions.py``: students' extensions, from a CSV file into the gradebook.
- ``points_windows.py``: how late each student may still hand an assignment in for
  points under the late policy (`PointsWindow`).
- ``solutions_record.py``: solutions-released.csv, the assignments whose solutions are
  public and when they went out.
- ``after_solutions.py``: the extensions that would let a student earn points after an
  assignment's solutions went out.
- ``ungraded.py``: submissions newer than the grade the gradebook holds (`not_graded_yet`).
- ``asked_regrades.py``: the regrade requests students ask on the course page
  (`ask_regrade`, `open_requests`, `answer_request`, `requests_of`), one open per item.
"""

from .asked_regrades import (AskedRegrade, AskOutcome, AskStatus, RequestState, all_requests,
                             answer_request, ask_regrade, open_requests, request_items,
                             requests_of)
from .due_dates import local_instant, parse_due_date, set_due_date
from .extensions import EXTENSIONS_FILE, apply_extensions, hours_text, parse_extensions
from .gradebook import read_timestamp, record_in_gradebook
from .late_penalties import charges_of, lateness_of
from .manual_scores import ManualScoreWrite, ManualWriteStatus, write_manual_score
from .points_windows import PointsWindow, points_windows
from .released import check_released, unreleased_changes
from .report_parts import (read_student_parts, rebuild_assignment_reports,
                           write_assignment_report, write_student_report)
from .ungraded import NotGradedYet, not_graded_yet
from .writer import RecordingFailure, Writer, write_autograded

__all__ = ["AskOutcome", "AskStatus", "AskedRegrade", "RequestState", "all_requests",
           "answer_request", "ask_regrade", "open_requests", "request_items", "requests_of",
           "EXTENSIONS_FILE", "ManualScoreWrite", "ManualWriteStatus", "NotGradedYet",
           "PointsWindow", "RecordingFailure", "Writer",
           "apply_extensions", "charges_of", "local_instant", "check_released", "hours_text",
           "lateness_of", "not_graded_yet", "parse_due_date", "points_windows",
           "parse_extensions", "read_student_parts",
           "read_timestamp", "rebuild_assignment_reports", "record_in_gradebook",
           "set_due_date", "unreleased_changes", "write_assignment_report", "write_autograded",
           "write_manual_score", "write_student_report"]
