"""Rehearsals: a whole fake class on this machine, before a real one.

- ``exchange.py``: `rehearse`, the class of a hub: students fetch and submit
  through nbgrader's exchange, and fetch their feedback from it (make rehearse).
- ``common.py``: what both share: the fake students, their answers, one step run.
"""

from .common import RehearsalError
from .exchange import rehearse

__all__ = ["RehearsalError", "rehearse"]
