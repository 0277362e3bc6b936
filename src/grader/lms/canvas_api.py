"""One Canvas course through its REST API (canvasapi): an assignment's grades and comments read,
one student's grade and comment written, 429 and 5xx answers retried with a growing wait.

The calls (Canvas's Submissions API):

    GET  /api/v1/courses/:course                                 the course
    GET  /api/v1/courses/:course/assignments[/:id]               its assignments
    GET  /api/v1/courses/:course/assignments/:id/submissions     every student's, with
         include[]=submission_comments                           their comments
    PUT  /api/v1/courses/:course/assignments/:id/submissions/:user
         submission[posted_grade]=8.5, comment[text_comment]=... one student's grade, comment

A refused token, or one whose user may not grade the course (401), raises
`LmsRefused`; a request still failing after its retries raises `LmsUnavailable`;
another error answer raises `LmsRequestFailed`. A write that failed and is tried again is checked
against the submission first, so a comment Canvas kept is not posted twice.
"""

import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

import requests
from canvasapi import Canvas as CanvasClient
from canvasapi.exceptions import (CanvasException, InvalidAccessToken, RateLimitExceeded,
                                  ResourceDoesNotExist, Unauthorized)

from .canvas_settings import CanvasConnection
from .push_records import (LmsAssignment, LmsRefused, LmsRequestFailed, LmsSubmission,
                           LmsUnavailable)

SERVER_ERROR = re.compile(r"status code (5[0-9][0-9])")
Answer = TypeVar("Answer")


def submission_of(raw: Any) -> LmsSubmission:
    """An `LmsSubmission` from canvasapi's Submission `raw`."""
    comments = getattr(raw, "submission_comments", None) or []
    score = getattr(raw, "score", None)
    return LmsSubmission(str(raw.user_id), None if score is None else float(score),
                         tuple(c.get("comment", "") for c in comments))


class CanvasCourseApi:
    """One Canvas course, as the push reads and writes it (an `LmsCourseApi`)."""

    def __init__(self, connection: CanvasConnection,
                 sleep: Callable[[float], None] = time.sleep):
        self.connection = connection
        self.sleep = sleep
        self.client = CanvasClient(connection.url, connection.token)
        self.raw_assignments: dict[int, Any] = {}  # canvasapi's, by id
        self.raw_submissions: dict[tuple[int, str], Any] = {}  # by (assignment, user id)
        self.course = self.call(f"course {connection.course}",
                                lambda: self.client.get_course(connection.course))

    def call(self, what: str, request: Callable[[], Answer], retries: int | None = None
             ) -> Answer:
        """`request()`, retried (`retries` times, default the connection's) while Canvas
        answers 429 or 5xx or cannot be reached."""
        retries = self.connection.retries if retries is None else retries
        wait = self.connection.backoff_seconds
        for attempt in range(retries + 1):
            try:
                return request()
            except InvalidAccessToken:
                raise LmsRefused(f"Canvas at {self.connection.url} refused the access token "
                                 f"(401: expired, revoked or mistyped): make a new one in "
                                 f"Canvas (Account, Settings, New Access Token) and put it "
                                 f"in the token file") from None
            except Unauthorized:
                raise LmsRefused(f"{what}: Canvas at {self.connection.url} does not let the "
                                 f"token's user do this (401): the token must be a teacher's "
                                 f"of course {self.connection.course}") from None
            except ResourceDoesNotExist:
                raise LmsRequestFailed(f"{what}: not found in Canvas at "
                                       f"{self.connection.url}") from None
            except (CanvasException, requests.ConnectionError, requests.Timeout) as error:
                if not (isinstance(error, (RateLimitExceeded, requests.RequestException))
                        or SERVER_ERROR.search(str(error))):
                    raise LmsRequestFailed(f"{what}: {error}") from None
                if attempt == retries:
                    raise LmsUnavailable(f"{what}: {error} (after {attempt + 1} tries)"
                                         ) from None
                self.sleep(wait)
                wait *= 2
        raise AssertionError("unreachable: the last try returns or raises")

    def assignments(self) -> list[LmsAssignment]:
        """Every assignment of the course."""
        raw = self.call("the course's assignments", lambda: list(self.course.get_assignments()))
        self.raw_assignments.update({a.id: a for a in raw})
        return [LmsAssignment(a.id, a.name, getattr(a, "points_possible", None)) for a in raw]

    def assignment(self, assignment_id: int) -> LmsAssignment:
        """The assignment of id `assignment_id`."""
        raw = self.call(f"assignment {assignment_id}",
                        lambda: self.course.get_assignment(assignment_id))
        self.raw_assignments[raw.id] = raw
        return LmsAssignment(raw.id, raw.name, getattr(raw, "points_possible", None))

    def submissions(self, assignment_id: int) -> dict[str, LmsSubmission]:
        """{user id: LmsSubmission} of every student of the course in the assignment."""
        raw = self.raw_assignments[assignment_id]
        found = self.call(f"the submissions of assignment {assignment_id}", lambda: list(
            raw.get_submissions(include=["submission_comments"])))
        self.raw_submissions.update({(assignment_id, str(s.user_id)): s for s in found})
        return {str(s.user_id): submission_of(s) for s in found}

    def submission(self, assignment_id: int, user_id: str) -> LmsSubmission:
        """The student's submission as Canvas holds it now."""
        raw = self.raw_assignments[assignment_id]
        found = self.call(f"user {user_id}'s submission", lambda: raw.get_submission(
            int(user_id), include=["submission_comments"]))
        self.raw_submissions[(assignment_id, user_id)] = found
        return submission_of(found)

    def send(self, assignment_id: int, user_id: str, grade: str | None,
             comment: str | None) -> None:
        """`grade` (posted as the grade) and `comment` (a text comment) to the student's
        submission (read with `submissions` first); either None: not sent. A write answered
        429 or 5xx is tried again, after the submission is read again, with only what it
        still lacks, so a comment Canvas kept before it failed is not posted twice."""
        wait = self.connection.backoff_seconds
        for attempt in range(self.connection.retries + 1):
            fields = {}
            if grade is not None:
                fields["submission"] = {"posted_grade": grade}
            if comment is not None:
                fields["comment"] = {"text_comment": comment}
            if not fields:
                return
            raw = self.raw_submissions[(assignment_id, user_id)]
            try:
                self.call(f"user {user_id}'s grade", lambda: raw.edit(**fields), retries=0)
                return
            except LmsUnavailable:
                if attempt == self.connection.retries:
                    raise
            self.sleep(wait)
            wait *= 2
            now = self.submission(assignment_id, user_id)
            if grade is not None and now.score == float(grade):
                grade = None
            if comment is not None and comment in now.comments:
                comment = None
