"""Rehearsals: a whole fake class on this machine, before a real one.

- ``exchange.py``: `rehearse`, the class of a hub: students fetch and submit
  through nbgrader's exchange, and fetch their feedback from it (make rehearse).
- ``lms.py``: `rehearse_lms`, the class of an LMS: no hub and no exchange; a
  Canvas download collected, extensions, feedback zipped for Canvas (make rehearse-lms).
- ``common.py``: what both share: the fake students, their answers, one step run.
"""

from .common import RehearsalError
from .exchange import rehearse
from .lms import REHEARSAL_LMS, rehearse_lms

__all__ = ["REHEARSAL_LMS", "RehearsalError", "rehearse", "rehearse_lms"]
