"""A student's "Check my notebook": the request checked, limited, queued; and what the
student then sees of their hand-ins, check by check, by visibility.

`ask_for_check` is the one way a check is asked for (the hub's page and `python -m
grader check` both call it). Before anything is stored it refuses what cannot be
graded (another assignment's notebook, a file that is not a notebook, one too large):
such a request costs no check. Then the rate limit: a request over it is refused
before any sandbox starts, saying when the next is allowed. Only then are the bytes
stored and a job queued, as every hand-in is.

`student_hand_ins` is what the student's page lists: each hand-in of theirs, newest
first, with its state and each check as `visibility.student_view` shows it at their
own due date (extensions included), and the checks left.
"""

import dataclasses
import datetime
import json

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from ..plan import MAX_NOTEBOOK_BYTES
from ..settings import Settings
from .rate_limit import Allowance, RateLimit, allowance, course_rate_limit
from .records import JobSource, JobState, QueuedJob, SourceKind
from .store import Store, utc_now
from .visibility import (CheckView, assertion_messages, course_visibilities, hidden_checks,
                         student_view)

# the hand-ins that cost a check: graded, or on their way to it; one refused before its
# checks ran (not a notebook, unreadable), a duplicate or a grader failure costs none
COUNTED_STATES = (JobState.WAITING, JobState.GRADING, JobState.GRADED)


@dataclasses.dataclass(frozen=True)
class Asked:
    """What became of a request: the job queued (None: refused, and why), the checks left."""

    job: QueuedJob | None
    refusal: str
    allowance: Allowance | None  # None: refused before the limit was looked at


@dataclasses.dataclass(frozen=True)
class HandInView:
    """One hand-in as its student sees it."""

    job: QueuedJob
    checks: list[CheckView]


def counted_checks(jobs: list[QueuedJob]) -> list[datetime.datetime]:
    """The arrival times of the hand-ins that cost a check."""
    return [job.arrived for job in jobs if job.state in COUNTED_STATES]


def unfit_files(settings: Settings, assignment: str, files: dict[str, bytes]) -> str:
    """Why `files` cannot be checked as `assignment`, or "" when they can."""
    notebooks = settings.instructor_notebooks(assignment)
    if not notebooks:
        return f"there is no released assignment {assignment!r} to check"
    if not files:
        return "no notebook was sent"
    names = ", ".join(f"{name}.ipynb" for name in sorted(notebooks))
    for name, content in files.items():
        if not name.endswith(".ipynb") or name[:-len(".ipynb")] not in notebooks:
            return f"{name} is not a notebook of {assignment} (its notebooks: {names})"
        if len(content) > MAX_NOTEBOOK_BYTES:
            return (f"{name} is {len(content) >> 20} MiB, more than a notebook may be "
                    f"({MAX_NOTEBOOK_BYTES >> 20} MiB)")
        try:
            cells = json.loads(content.decode("utf-8")).get("cells")
        except (UnicodeDecodeError, ValueError, AttributeError):
            cells = None
        if not isinstance(cells, list):
            return f"{name} is not a notebook (no cells could be read from it)"
    return ""


def ask_for_check(settings: Settings, store: Store, student: str, assignment: str,
                  files: dict[str, bytes], limit: RateLimit | None = None,
                  now: datetime.datetime | None = None) -> Asked:
    """Queue a check of `files` for `student`, unless it cannot be graded or the limit is
    reached; nothing is stored for a refused request."""
    problem = unfit_files(settings, assignment, files)
    if problem:
        return Asked(None, f"not checked: {problem}; it costs no check", None)
    now = now or utc_now()
    limit = limit or course_rate_limit(settings.config)
    left = allowance(counted_checks(store.jobs(student, assignment)), now, limit)
    if not left.allowed:
        return Asked(None, f"not checked: {left.sentence()}", left)
    job = store.hand_in(student, assignment, files, JobSource.of(SourceKind.CHECK), now)
    if job.state == JobState.DUPLICATE:
        return Asked(job, "", left)
    return Asked(job, "", dataclasses.replace(left, remaining=left.remaining - 1))


def student_due(settings: Settings, assignment: str, student: str
                ) -> datetime.datetime | None:
    """The student's own due date (UTC): the class's plus their extension; None: no due date."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            due = gb.find_assignment(assignment).duedate
        except MissingEntry:
            return None
        if due is None:
            return None
        try:
            extension = gb.find_submission(assignment, student).extension
        except MissingEntry:
            extension = None
    due = due + (extension or datetime.timedelta(0))
    return due.replace(tzinfo=datetime.timezone.utc)


def student_hand_ins(settings: Settings, store: Store, student: str, assignment: str,
                     now: datetime.datetime | None = None
                     ) -> tuple[list[HandInView], Allowance]:
    """The student's hand-ins of `assignment`, newest first, as they see them at `now`,
    and the checks they have left."""
    now = now or utc_now()
    jobs = store.jobs(student, assignment)
    hidden: set[str] = set()
    own_words: dict[str, frozenset[str]] = {}
    for path in settings.instructor_notebooks(assignment).values():
        instructor = nbformat.read(path, as_version=4)
        hidden |= hidden_checks(instructor)
        own_words.update(assertion_messages(instructor))
    configured = course_visibilities(settings.config)
    due = student_due(settings, assignment, student)
    views = [HandInView(job, student_view(job.checks, hidden, configured, due, now, own_words))
             for job in sorted(jobs, key=lambda job: job.id, reverse=True)]
    return views, allowance(counted_checks(jobs), now, course_rate_limit(settings.config))
