"""What a grade push reads of an LMS, and the errors its API raises (canvas_api.py).

Kept apart from the API itself, which imports its client library, so that the
push's plan and the command line import nothing slow.
"""

from dataclasses import dataclass


class LmsRefused(Exception):
    """The LMS refused the token: nothing more is sent."""


class LmsUnavailable(Exception):
    """A request the LMS still answered 429 or 5xx (or not at all) after every retry."""


class LmsRequestFailed(Exception):
    """The LMS answered a request with an error that another try would not change."""


@dataclass(frozen=True)
class LmsAssignment:
    """An assignment of the LMS's course."""

    id: int
    name: str
    points_possible: float | None


@dataclass(frozen=True)
class LmsSubmission:
    """A student's submission of one assignment as the LMS holds it now."""

    user_id: str
    score: float | None  # None: no grade
    comments: tuple[str, ...]  # the text of every comment on it
