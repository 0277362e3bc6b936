"""What a grade push reads of an LMS, the API it reads and writes it through (`LmsCourseApi`),
and the errors that API raises (canvas_api.py).

Kept apart from the API itself, which imports its client library, so that the
push's plan and the command line import nothing slow.
"""

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


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


@runtime_checkable
class LmsCourseApi(Protocol):
    """One LMS course's gradebook as a grade push reads and writes it: Canvas's REST API
    (`CanvasCourseApi`, canvas_api.py) and the tests' Canvas in memory satisfy it. Each
    raises `LmsRefused`, `LmsUnavailable` or `LmsRequestFailed` when the LMS says no."""

    def assignments(self) -> list[LmsAssignment]:
        """Every assignment of the course."""
        ...

    def assignment(self, assignment_id: int) -> LmsAssignment:
        """The assignment of id `assignment_id`."""
        ...

    def submissions(self, assignment_id: int) -> dict[str, LmsSubmission]:
        """{user id: LmsSubmission} of every student of the course in the assignment."""
        ...

    def send(self, assignment_id: int, user_id: str, grade: str | None,
             comment: str | None) -> None:
        """`grade` and `comment` to the student's submission (read with `submissions`
        first); either None: not sent."""
        ...

