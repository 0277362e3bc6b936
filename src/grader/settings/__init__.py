"""The ground floor: the course's settings and the errors that are the instructor's to fix.

- ``errors.py``: `CourseError` (the course set-up is wrong) and `SandboxError`
  (the sandbox cannot start on this machine).
- ``limits.py``: `SandboxGrader`, the grader's own settings with their defaults,
  and `Limits`, the numbers one sandbox runs under, built in `limits_from_config`.
- ``config_file.py``: nbgrader_config.py checked as nbgrader loads it.
- ``course.py``: `Settings` of one course, read through nbgrader's `CourseDirectory`.
- ``release_lines.py``: the lines `make release` writes into the instructor's
  notebooks (`write_release_lines`): the salt of each student's own model (checked
  there by `stale_salts`) and where the course package installs from off the hub.
"""

from .config_file import check_config
from .course import Settings, load
from .errors import CourseError, SandboxError
from .limits import Limits, SandboxGrader, limits_from_config
from .release_lines import stale_salts, write_release_lines

__all__ = ["CourseError", "Limits", "SandboxError", "SandboxGrader", "Settings", "check_config",
           "limits_from_config", "load", "stale_salts", "write_release_lines"]
