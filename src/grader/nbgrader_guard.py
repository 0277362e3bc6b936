"""Deprecated path of the guard against nbgrader's own autograde, now in
``grader.plugins.nbgrader_guard``.

An nbgrader_config.py written before it moved names
``grader.nbgrader_guard.SandboxedGradingOnly``; it still loads from here, and
`make check-config` says the new name.
"""

import warnings

from .plugins.nbgrader_guard import SandboxedGradingOnly

MOVED_TO = "grader.plugins.nbgrader_guard"  # read by the check of nbgrader_config.py
warnings.warn(f"grader.nbgrader_guard is deprecated: name {MOVED_TO} in nbgrader_config.py",
              DeprecationWarning, stacklevel=2)

__all__ = ["SandboxedGradingOnly"]
