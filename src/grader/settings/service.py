"""The grading service's settings for what students see before their due date.

- `CheckFeedback`: each check's visibility before the due date
  (``c.CheckFeedback.checks = {"count_parameters_hidden": "after_due"}``; the words are
  ``now``, ``hint`` and ``after_due``, service/visibility.py says what each shows).
- `CheckRateLimit`: how many checks a student may ask for per assignment in a window
  (``c.CheckRateLimit.checks = 5``, ``c.CheckRateLimit.window_minutes = 60``).
"""

from traitlets import Dict, Float, Int
from traitlets.config import Configurable


class CheckFeedback(Configurable):
    """What a student sees of each check before their own due date."""

    checks = Dict(help="grade id -> 'now' (verdict and message), 'hint' (verdict and a "
                  "one-line hint) or 'after_due' (nothing before the due date); a check not "
                  "named is 'now', or 'hint' if it has hidden tests").tag(config=True)


class CheckRateLimit(Configurable):
    """How many checks the service grades for a student and an assignment in a window."""

    checks = Int(5, help="checks a student may ask for per assignment in each window; a "
                 "notebook that cannot be checked costs none").tag(config=True)
    window_minutes = Float(60.0, help="the window of the rate limit, in minutes").tag(
        config=True)
