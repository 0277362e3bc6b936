"""The regrade wing: a class graded again after a check changed, who changes shown first.

- ``requests.py``: students' regrade requests, from regrade-requests.csv and the course
  page's open ones (`page_requests`).
- ``grading.py``: `grade_again`, the chosen students graded against the current
  release in memory, through the same engine and warm templates as autograde.
- ``changes.py``: what changes per student and check, and which requests that answers.
- ``regrading.py``: `regrade`, the dry run (a record under regrades/, nothing else
  written) and, applied, exactly the changed students recorded and their feedback
  written again.
"""

from .changes import CheckChange, StudentChange, student_change
from .regrading import regrade, regrades_folder
from .requests import (REQUESTS_FILE, RegradeRequest, RequestSource, page_requests,
                       read_regrade_requests)

__all__ = ["REQUESTS_FILE", "CheckChange", "RegradeRequest", "RequestSource", "StudentChange",
           "page_requests", "read_regrade_requests", "regrade", "regrades_folder", "student_change"]
