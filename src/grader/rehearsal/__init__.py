"""Rehearsals: a whole fake class on this machine, before a real one.

- ``exchange.py``: `rehearse`, the class of a hub: students fetch and submit
  through nbgrader's exchange, and fetch their feedback from it (make rehearse).
- ``lms.py``: `rehearse_lms`, the class of an LMS: no hub and no exchange; a
  Canvas download collected, extensions, feedback zipped for Canvas (make rehearse-lms).
- ``lti.py``: `rehearse_lti`, the class of an LTI 1.3 platform: a student launched, the
  roster by NRPS, the scores by AGS, the platform's scores beside the gradebook's
  (make rehearse-lti). Imported by that command only: nothing else loads the platform.
- ``lti_platform.py``: `LtiPlatform`, that platform on 127.0.0.1 (lti1p3platform's signing
  and tokens; its members, line items and scores in memory), for the rehearsal and tests.
- ``common.py``: what the rehearsals share: the fake students, their answers, one step run.
"""

from .common import RehearsalError
from .exchange import rehearse
from .lms import REHEARSAL_LMS, rehearse_lms

__all__ = ["REHEARSAL_LMS", "RehearsalError", "rehearse", "rehearse_lms"]
