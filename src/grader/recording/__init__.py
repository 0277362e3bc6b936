"""The recording wing: everything a run writes about a student, by one writer.

- ``writer.py``: `Writer`, the single writer of a run, and the autograded files.
- ``gradebook.py``: one student's scores into nbgrader's gradebook, late penalty included.
- ``report_parts.py``: each student's part of the grade report, and the assignment's
  report rebuilt from all parts.
- ``released.py``: the gradebook's record of what `make release` released.
- ``due_dates.py``: an assignment's due date in the gradebook.
"""

from .due_dates import parse_due_date, set_due_date
from .gradebook import read_timestamp, record_in_gradebook
from .released import check_released, unreleased_changes
from .report_parts import (read_student_parts, rebuild_assignment_reports,
                           write_assignment_report, write_student_report)
from .writer import Writer, write_autograded

__all__ = ["Writer", "check_released", "parse_due_date", "read_student_parts", "read_timestamp",
           "rebuild_assignment_reports", "record_in_gradebook", "set_due_date",
           "unreleased_changes", "write_assignment_report", "write_autograded",
           "write_student_report"]
