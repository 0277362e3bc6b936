"""How many checks a student may ask for: N per window, per student and assignment
(``c.CheckRateLimit``), told to the student with what remains and when the next is allowed.

Only a hand-in that reached its checks counts: one refused before any check ran (not a
notebook, a syntax error, unreadable) costs nothing; a Submit counts as a check when its
verdicts show before the due date (requests.counted_checks). A request over the limit is refused
before any sandbox starts, and the refusal says when to come back.
"""

import dataclasses
from collections.abc import Iterable
from datetime import datetime, timedelta

from traitlets.config import Config

from ...settings import CheckRateLimit


@dataclasses.dataclass(frozen=True)
class RateLimit:
    """At most ``checks`` counted checks in any ``window`` of time."""

    checks: int
    window: timedelta

    def __post_init__(self):
        if self.checks < 1:
            raise ValueError(f"c.CheckRateLimit.checks is {self.checks}: it must be at least 1")
        if self.window <= timedelta(0):
            raise ValueError(f"c.CheckRateLimit.window_minutes is "
                             f"{self.window.total_seconds() / 60:g}: it must be more than 0")


@dataclasses.dataclass(frozen=True)
class Allowance:
    """What the student may do at ``now``: whether a check is allowed, how many remain
    in the window, and when the next one is allowed (None: now)."""

    allowed: bool
    remaining: int
    next_allowed: datetime | None
    limit: RateLimit

    def sentence(self) -> str:
        """The words the page and a refusal show."""
        per = _window_words(self.limit.window)
        if self.allowed:
            return (f"{self.remaining} of {self.limit.checks} checks left {per}; a notebook "
                    f"that cannot be checked (not a notebook, a syntax error) costs none")
        return (f"no checks left: {self.limit.checks} {per} are used; the next is allowed at "
                f"{self.next_allowed:%Y-%m-%d %H:%M} UTC")


def allowance(counted: Iterable[datetime], now: datetime, limit: RateLimit) -> Allowance:
    """What is left at ``now`` after the counted checks (their arrival times, UTC)."""
    start = now - limit.window
    recent = sorted(when for when in counted if start < when <= now)
    remaining = max(0, limit.checks - len(recent))
    if remaining:
        return Allowance(True, remaining, None, limit)
    # the oldest check still in the window leaves it a window after it arrived
    return Allowance(False, 0, recent[-limit.checks] + limit.window, limit)


def _window_words(window: timedelta) -> str:
    minutes = window.total_seconds() / 60
    if minutes >= 60 and minutes % 60 == 0:
        hours = int(minutes // 60)
        return "per hour" if hours == 1 else f"per {hours} hours"
    return f"per {minutes:g} minutes"


def course_rate_limit(config: Config | None) -> RateLimit:
    """The rate limit ``c.CheckRateLimit`` of a course's nbgrader_config.py sets."""
    settings = CheckRateLimit(config=config)
    return RateLimit(settings.checks, timedelta(minutes=settings.window_minutes))
