"""Deprecated path of the late policies, now in ``grader.plugins.late``.

An nbgrader_config.py written before they moved names
``grader.late.PercentPerDay`` or ``grader.late.LateDayBudget``; both still load
from here, and `make check-config` says the new name.
"""

import warnings

from .plugins.late import LateDayBudget, PercentPerDay

MOVED_TO = "grader.plugins.late"  # read by the check of nbgrader_config.py
warnings.warn(f"grader.late is deprecated: name {MOVED_TO} in nbgrader_config.py",
              DeprecationWarning, stacklevel=2)

__all__ = ["LateDayBudget", "PercentPerDay"]
