"""What the service's queue holds, typed: a hand-in's job and state, where it came from,
how its feedback went out, where its grade was pushed.

Each is written to the queue's database as the text its values name (`JobState`,
`SourceKind` and `ReleaseOutcome` keep their values; a `JobSource` is stored as it
reads), so a database written before these types reads the same; store.py turns the
rows into these records and back.
"""

import dataclasses
import datetime
import enum
import json
from collections.abc import Mapping
from typing import Any, NewType


class JobState(enum.StrEnum):
    WAITING = "waiting"  # stored, not claimed yet (or given back)
    GRADING = "grading"  # claimed by a worker, under its lease
    GRADED = "graded"  # graded and recorded in the gradebook
    FAILED = "failed"  # the grader failed on it, `max_attempts` times or for good
    REFUSED = "refused"  # not graded at all (its reason says why)
    DUPLICATE = "duplicate"  # the same bytes as the student's latest hand-in: not graded again
    SUPERSEDED = "superseded"  # a later hand-in of the same came before it was graded: kept, not graded


FINAL_STATES = (JobState.GRADED, JobState.FAILED, JobState.REFUSED)


class SourceKind(enum.StrEnum):
    """How a hand-in reached the queue: the first word of its source."""

    EXCHANGE = "exchange"  # nbgrader's exchange (inbound.py): the inbound folder's name follows
    ZIP = "zip"  # an LMS's zip (collect-zip --queue): the zip's file name follows
    CHECK = "check"  # "Check my notebook" (requests.py: the page, `python -m grader check`)
    HUB = "hub"  # "Hand in" on the course page over HTTP (page/actions.py): student+assignment+time
    OTHER = "other"  # a program's own word (a test's "submit", a benchmark's): the whole source


class JobSource(str):
    """Where a hand-in came from, as its job's row stores it: its `kind`, then ``:`` and
    `where` when there is one (``exchange:ada+tiny+2026-…``, ``zip:download.zip``,
    ``check``). A text: what an older queue holds reads the same."""

    @classmethod
    def of(cls, kind: SourceKind, where: str = "") -> "JobSource":
        return cls(f"{kind}:{where}" if where else str(kind))

    @property
    def kind(self) -> SourceKind:
        word = self.partition(":")[0]
        known = {str(kind) for kind in SourceKind} - {SourceKind.OTHER}
        return SourceKind(word) if word in known else SourceKind.OTHER

    @property
    def where(self) -> str:
        """The folder or file it came in ("" for a check or a program's own word)."""
        return self.partition(":")[2] if self.kind is not SourceKind.OTHER else ""

    @staticmethod
    def prefix(kind: SourceKind) -> str:
        """What every source of `kind` that names where it came in starts with."""
        return f"{kind}:"


@dataclasses.dataclass(frozen=True)
class CheckRecord:
    """What one check of a graded hand-in gave."""

    grade_id: str
    passed: bool
    points: float
    max_points: float
    message: str = ""


@dataclasses.dataclass(frozen=True)
class QueuedJob:
    """One hand-in the service knows: whose, of what, its bytes' digest and how it went."""

    id: int
    student: str
    assignment: str
    digest: str  # SHA-256 of the hand-in: its files' names and digests
    source: JobSource  # where it came from (exchange:<folder>, zip:<file>, check, ...)
    state: JobState
    attempts: int  # times a worker claimed it
    arrived: datetime.datetime  # UTC
    graded: datetime.datetime | None  # UTC, when it reached its final state
    score: float | None
    max_score: float | None
    checks: list[CheckRecord]
    reason: str  # why it failed, was refused or is a duplicate (of which job)
    files: dict[str, str] = dataclasses.field(repr=False, default_factory=dict)  # name -> digest

    @property
    def is_check(self) -> bool:
        """Whether it is a "Check my notebook": graded for the student's eyes only, never
        recorded in the gradebook (only a Submit, a zip or a program's hand-in is)."""
        return self.source.kind is SourceKind.CHECK


class ReleaseOutcome(enum.StrEnum):
    """How one hand-in's feedback went out at its student's due date (due_feedback.py)."""

    THROUGH_EXCHANGE = "exchange"  # filed in the exchange's feedback folder
    NOT_THROUGH_EXCHANGE = "listed"  # handed in another way: the page listed, in feedback/
    ON_THE_PAGE = "page"  # the course page over HTTP shows it (c.HubTransport.transport)


@dataclasses.dataclass(frozen=True)
class FeedbackRelease:
    """The feedback page of one graded hand-in, given out at its student's due date."""

    job_id: int
    student: str
    assignment: str
    digest: str  # the hand-in's digest (its job's)
    released: datetime.datetime  # UTC
    outcome: ReleaseOutcome


# the LMS gradebook a final grade went to, by the name of its push
# (c.GradingService.push_final_grades: an LMS's name, as make NAME-push, or "lti")
PushTarget = NewType("PushTarget", str)


def job_from_row(row: Mapping[str, Any]) -> QueuedJob:
    """The QueuedJob of one database row."""
    def moment(text: str | None) -> datetime.datetime | None:
        return datetime.datetime.fromisoformat(text) if text else None

    return QueuedJob(id=row["id"], student=row["student"], assignment=row["assignment"],
                     digest=row["digest"], source=JobSource(row["source"]),
                     state=JobState(row["state"]), attempts=row["attempts"],
                     arrived=moment(row["arrived"]), graded=moment(row["graded"]),
                     score=row["score"], max_score=row["max_score"],
                     checks=[CheckRecord(**c) for c in json.loads(row["checks"])],
                     reason=row["reason"], files=json.loads(row["files"]))
