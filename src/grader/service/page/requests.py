"""A student's "Check my notebook": the request checked, limited, queued; and what the
student then sees of their hand-ins, check by check, by visibility.

`ask_for_check` is the one way a check is asked for (the hub's page and `python -m
grader check` both call it). Before anything is stored it refuses what cannot be
graded (another assignment's notebook, a file that is not a notebook, one too large,
a cell Python cannot parse, named by its line and message): such a request costs no
check. Then the rate limit: a request over it is refused before any sandbox starts,
saying when the next is allowed. Only then are the bytes stored and a job queued. A
check is never a submission: it is graded for its student's eyes only (loop.py), and
only a Submit changes what is graded.

Every hand-in whose verdicts the student sees before the due date counts against the
limit (`counted_checks`), in the order they arrived: each check, and each Submit while
checks are left; a Submit over the limit is graded all the same and its verdicts wait
for the due date, and so do a check's that got past the refusal (asked at the same
moment as another, from another process). So in no window do more hand-ins show their
verdicts than the limit allows, however they came.

`student_hand_ins` is what the student's page lists: each hand-in of theirs, newest
first, with its state and each check as `visibility.student_view` shows it at their
own due date (extensions included, though what went out stays shown), the hand-in the
gradebook holds as the gradebook records it (recorded.py), and the checks left.
"""

import dataclasses
import datetime
import threading

import nbformat
from nbgrader.api import Gradebook

from ...deadlines import student_deadline
from ...plan import MAX_NOTEBOOK_BYTES, NOTES_KEY, Unreadable, parse_submission
from ...settings import Settings
from .rate_limit import Allowance, RateLimit, allowance, course_rate_limit
from ..queue.records import JobSource, JobState, QueuedJob, SourceKind
from ..after.recorded import RecordedGrade, recorded_jobs
from ..queue.store import Store, utc_now
from .visibility import (CheckView, Visibility, assertion_messages, course_visibilities,
                         hidden_checks, student_view)

# the hand-ins that cost a check: graded, or on their way to it; one refused before its
# checks ran (not a notebook, unreadable), a duplicate or a grader failure costs none
COUNTED_STATES = (JobState.WAITING, JobState.GRADING, JobState.GRADED)
OVER_THE_LIMIT = ("handed in over the limit of checks: it is graded all the same, and its "
                  "checks show after the due date")
# one request of this process at a time between counting a student's checks and storing
# theirs (the page answers each request in a thread of its own)
ASKING = threading.Lock()


@dataclasses.dataclass(frozen=True)
class Asked:
    """What became of a request: the job queued (None: refused, and why), the checks left."""

    job: QueuedJob | None
    refusal: str
    allowance: Allowance | None  # None: refused before the limit was looked at


@dataclasses.dataclass(frozen=True)
class HandInView:
    """One hand-in as its student sees it: the gradebook's record of it (`grade`, None for
    a check or a hand-in the gradebook no longer holds) and a note on it ("": none)."""

    job: QueuedJob
    checks: list[CheckView]
    grade: RecordedGrade | None = None
    note: str = ""


def counted_checks(jobs: list[QueuedJob], due: datetime.datetime | None, limit: RateLimit
                   ) -> tuple[list[datetime.datetime], set[int]]:
    """(the arrival times of the hand-ins that cost a check, the ids of the hand-ins whose
    checks are kept until the due date because they came over the limit).

    Every hand-in whose verdicts the student sees before the due date costs one, taken in
    the order they arrived: each check asked for (refused at the limit, before it was
    stored), and each submission (Submit) that arrived before the due date, while checks
    were left in the window of its arrival. One over the limit is graded all the same, its
    verdicts shown only after the due date: a Submit, which is never refused for the rate,
    or a check stored past the limit (two asked at once from two processes)."""
    counted: list[datetime.datetime] = []
    withheld: set[int] = set()
    for job in sorted(jobs, key=lambda job: (job.arrived, job.id)):
        if job.state not in COUNTED_STATES:
            continue
        if not job.is_check and due is not None and job.arrived >= due:
            continue  # its verdicts show at once, with everyone's after the due date
        if allowance(counted, job.arrived, limit).allowed:
            counted.append(job.arrived)
        else:
            withheld.add(job.id)
    return counted, withheld


def withheld_words(limit: RateLimit) -> str:
    """What a Submit over the limit is told: "its checks are shown at the due date since
    this hour's 5 checks are used"."""
    minutes = limit.window.total_seconds() / 60
    window = "this hour's" if minutes == 60 else f"the last {minutes:g} minutes'"
    return f"its checks are shown at the due date since {window} {limit.checks} checks are used"


def submit_words(settings: Settings, store: Store, job: QueuedJob,
                 limit: RateLimit | None = None) -> str:
    """The clause a student's Submit `job` adds to "handed in": `withheld_words` when its
    verdicts wait for the due date because the hour's checks are used, else ""."""
    limit = limit or course_rate_limit(settings.config)
    _, withheld = counted_checks(store.jobs(job.student, job.assignment),
                                 student_due(settings, job.assignment, job.student), limit)
    return withheld_words(limit) if job.id in withheld else ""


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
            nb = parse_submission(content)  # the one reader of a student's notebook
        except Unreadable as error:
            return f"{name}: {error}"
        if nb[NOTES_KEY]:  # a cell the grader would repair: the student's to mend first
            return f"{name} is damaged: {nb[NOTES_KEY][0].split(';')[0]}"
        problem = syntax_error(nb["cells"])
        if problem:
            return f"{name} has a syntax error: {problem}"
    return ""


def syntax_error(cells: list[object]) -> str:
    """Where the first code cell that Python cannot parse is and what it says ("cell
    double_answer (code cell 3), line 2: invalid syntax"); "" when every one parses. A
    cell's IPython magics and shell lines are read as IPython reads them."""
    from IPython.core.inputtransformer2 import TransformerManager  # imports slowly

    transformer = TransformerManager()
    code_cells = [cell for cell in cells
                  if isinstance(cell, dict) and cell.get("cell_type") == "code"]
    for number, cell in enumerate(code_cells, 1):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        try:
            compile(transformer.transform_cell(source), "<cell>", "exec")
        except SyntaxError as error:
            meta = cell.get("metadata", {})
            meta = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
            grade_id = meta.get("grade_id") if isinstance(meta, dict) else None
            where = (f"cell {grade_id} (code cell {number})" if isinstance(grade_id, str)
                     else f"code cell {number}")
            return f"{where}, line {error.lineno or 1}: {error.msg}"
        except (ValueError, TypeError) as error:  # a null byte, say
            return f"code cell {number}: {error}"
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
    due = student_due(settings, assignment, student)
    with ASKING:  # two requests at once both counting the last check left: one gets it
        counted, _ = counted_checks(store.jobs(student, assignment), due, limit)
        left = allowance(counted, now, limit)
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
        return student_deadline(gb, assignment, student).effective


def student_hand_ins(settings: Settings, store: Store, student: str, assignment: str,
                     now: datetime.datetime | None = None, limit: RateLimit | None = None
                     ) -> tuple[list[HandInView], Allowance]:
    """The student's hand-ins of `assignment`, newest first, as they see them at `now`,
    and the checks they have left. The hand-in the gradebook holds shows the gradebook's
    record of it (recorded.py); once the student's feedback went out, every check shows
    in full, even if an extension granted since moves their due date later."""
    now = now or utc_now()
    jobs, grades = recorded_jobs(settings, store.jobs(student, assignment))
    hidden: set[str] = set()
    own_words: dict[str, frozenset[str]] = {}
    for path in settings.instructor_notebooks(assignment).values():
        instructor = nbformat.read(path, as_version=4)
        hidden |= hidden_checks(instructor)
        own_words.update(assertion_messages(instructor))
    configured = course_visibilities(settings.config)
    due = student_due(settings, assignment, student)
    limit = limit or course_rate_limit(settings.config)
    counted, withheld = counted_checks(jobs, due, limit)
    shown_from = due
    released = [r.released for r in store.releases()
                if (r.student, r.assignment) == (student, assignment)]
    if released and (due is None or min(released) < due):
        shown_from = min(released)  # what went out stays shown
    views = []
    for job in sorted(jobs, key=lambda job: job.id, reverse=True):
        grade = grades.get(job.id)
        note = grade.penalty_words() if grade is not None else ""
        if job.id in withheld and not (shown_from is None or now >= shown_from):
            checks = [CheckView(c.grade_id, Visibility.AFTER_DUE, None, "", None, None)
                      for c in job.checks]
            note = OVER_THE_LIMIT
        else:
            checks = student_view(job.checks, hidden, configured, shown_from, now, own_words)
        views.append(HandInView(job, checks, grade, note))
    return views, allowance(counted, now, limit)
