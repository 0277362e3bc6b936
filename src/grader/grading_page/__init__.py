"""The staff's grading page of the explain answers: an add-on (docs/grading-page.md).

- ``numbers.py``: the numbers a student wrote (`written_numbers`, each a `WrittenNumber`)
  and whether one is a given value as people round and spell it (`same_number`).
- ``grouping.py``: each answer (`ExplainAnswer`) normalised by its student's own values
  (`normalise`), the answers grouped by reasoning (`group_answers`, each a `Group`; blank
  answers a group of their own) and the numbers that are another student's value
  (`integrity_flags`, each a `Flag`, never a score).
- ``split.py``: who grades whom: `assign_graders` shares the class among the graders (by
  section, at random with a seed, or as in a previous assignment), `may_score` says whether
  a grader may score a student, `progress` what is left per grader.
- ``split_record.py``: the split kept, course-data/grading-page/<assignment>.json:
  `graders_for` places only the students not placed yet, `reassign` moves students to
  another grader, recorded with who and when.
- ``config_lines.py``: what check-config says of c.GradingPage.
- ``question.py``: an explain question as the page shows it, its answers, values, groups
  and flags read once and kept (`Questions`).
- ``marks.py``: a mark saved compare-and-set into the gradebook and the explain record
  the terminal flow keeps too; an item applied to a group as drafts.
- ``staff.py``: the graders as the page meets them (`StaffSplit`).
- ``views.py`` and ``keys.js``: the page's HTML (every student's text escaped) and keys.
- ``app.py``: the page itself (`make_app`, `serve_grading_page`); ``commands.py``:
  ``python -m grader grading-page``.
"""

from .config_lines import GRADING_PAGE_CONFIG_CHECKS, grading_page_check_lines
from .grouping import (ExplainAnswer, Flag, Group, group_answers, integrity_flags, normalise,
                       shown_term)
from .numbers import WrittenNumber, same_number, written_numbers
from .split import (GraderProgress, Progress, assign_graders, may_reassign, may_score,
                    placing_digest, progress)
from .split_record import (ReassignStatus, Reassignment, graders_for, read_split_record,
                           reassign, split_record_path)

__all__ = ["GRADING_PAGE_CONFIG_CHECKS", "ExplainAnswer", "Flag", "GraderProgress", "Group",
           "Progress", "ReassignStatus", "Reassignment", "WrittenNumber", "assign_graders",
           "grading_page_check_lines", "graders_for", "group_answers", "integrity_flags",
           "may_reassign", "may_score", "normalise", "placing_digest", "progress",
           "read_split_record", "reassign", "same_number", "shown_term", "split_record_path",
           "written_numbers"]
