"""Feedback back to every student, whatever the hand-in.

- ``exchange.py``: `release_feedback`, nbgrader's release_feedback for the
  students who handed in through the exchange, and one line for each of the others.
- ``lms_zip.py``: `write_feedback_zip`, the feedback pages of the students collected
  from the LMS (make collect-zip), in one zip named as the LMS expects it back.
"""

from .exchange import release_feedback
from .lms_zip import write_feedback_zip

__all__ = ["release_feedback", "write_feedback_zip"]
