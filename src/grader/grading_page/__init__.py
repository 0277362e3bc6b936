"""The staff's grading page of the explain answers: an add-on (docs/explain-questions.md).

- ``split.py``: who grades whom: `assign_graders` shares the class among the graders (by
  section, at random with a seed, or as in a previous assignment), `may_score` says whether
  a grader may score a student, `progress` what is left per grader.
- ``split_record.py``: the split kept, course-data/grading-page/<assignment>.json:
  `graders_for` places only the students not placed yet, `reassign` moves students to
  another grader, recorded with who and when.
- ``config_lines.py``: what check-config says of c.GradingPage.
"""

from .config_lines import GRADING_PAGE_CONFIG_CHECKS, grading_page_check_lines
from .split import (GraderProgress, Progress, assign_graders, may_reassign, may_score,
                    placing_digest, progress)
from .split_record import (ReassignStatus, Reassignment, graders_for, read_split_record,
                           reassign, split_record_path)

__all__ = ["GRADING_PAGE_CONFIG_CHECKS", "GraderProgress", "Progress", "ReassignStatus",
           "Reassignment", "assign_graders", "grading_page_check_lines", "graders_for",
           "may_reassign", "may_score", "placing_digest", "progress", "read_split_record",
           "reassign", "split_record_path"]
