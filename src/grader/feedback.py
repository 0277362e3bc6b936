"""Deprecated path of the feedback classes, now in ``grader.plugins.feedback``.

An nbgrader_config.py written before they moved names
``grader.feedback.FeedbackPage`` and ``grader.feedback.HideTestCode``; both
still load from here, and `make check-config` says the new name.
"""

import warnings

from .plugins.feedback import FeedbackPage, HideTestCode

MOVED_TO = "grader.plugins.feedback"  # read by the check of nbgrader_config.py
warnings.warn(f"grader.feedback is deprecated: name {MOVED_TO} in nbgrader_config.py",
              DeprecationWarning, stacklevel=2)

__all__ = ["FeedbackPage", "HideTestCode"]
