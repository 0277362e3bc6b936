"""The reports wing: what the course's grades say, to the instructor and the LMS.

- ``roster.py``: the class list (`Person`), imported from a CSV.
- ``grades.py``: grades as the gradebook holds them (`read_grades`).
- ``digest.py``: `feedback_digest`, what went out to a student: score, comments, messages.
- ``summary.py``: summary.txt, per student and per check, and who needs attention.
- ``page.py``: the grade report page of an assignment, with its figures.
- ``exports.py``: grades.csv, the Canvas import and the roster with scores.
- ``items.py``: item analysis, per check its difficulty and discrimination (CSV and page).
- ``outputs.py``: `write_grades`, everything `make grades` writes.
"""

from .digest import feedback_digest
from .grades import AssignmentGrades, number, read_grades
from .items import item_analysis, item_analysis_of, write_item_analysis
from .outputs import write_grades
from .roster import Person, import_roster, parse_roster, read_roster, roster_path, write_roster
from .summary import attention, deadline_text, summary_text, write_summary

__all__ = ["AssignmentGrades", "Person", "attention", "deadline_text", "feedback_digest",
           "import_roster",
           "item_analysis", "item_analysis_of", "number",
           "parse_roster", "read_grades", "read_roster", "roster_path", "summary_text",
           "write_grades", "write_item_analysis", "write_roster", "write_summary"]
