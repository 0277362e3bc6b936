"""One record of a grade: the gradebook, and every view of the service made from it.

A student's grade of an assignment lives in one place: nbgrader's gradebook, which
the single writer changes in the same step as the student's report part
(reports/<assignment>/<student>.json, each check's message) and autograded notebook.
`make autograde`, `make regrade APPLY=1`, formgrader's manual grades, extensions and
late penalties all change that record, and nothing else. So the service keeps no grade
of its own for a submission: what its queue holds of a graded hand-in (score, checks)
is what the grader gave at the time; the hand-in the gradebook now holds
(`current_submissions`: the student's latest submission that reached it) is shown
as the gradebook and the report part say (`as_recorded`): by `grader queue`, the
students' page, `student-view`. The feedback released and the grades pushed at the
due date remember the score they sent and its digest of score, comments and checks'
messages (the store's ``sent_grades`` and ``sent_digests``), and the service sends either
again, once, when that digest changed (`changed_since_sent`).

A check ("Check my notebook") never reaches the gradebook: its job keeps its own
result, which only its student sees.
"""

import dataclasses
import os
from collections.abc import Collection, Iterable, Mapping

from ...recording import read_student_parts
from ...reports import read_grades
from ...results import CheckStatus, StudentResult
from ...safe_text import shown_id
from ...settings import CourseError, Settings
from ...worker import Assignment
from ..queue.records import CheckRecord, JobState, QueuedJob
from ..queue.release_watch import release_digest
from ..queue.sent_digests import sent_digests
from ..queue.store import Store

Pair = tuple[str, str]  # (student, assignment)


@dataclasses.dataclass(frozen=True)
class RecordedGrade:
    """A student's grade of an assignment as the gradebook holds it now."""

    score: float  # after the late penalty (their extension counted), as the pushes send it
    max_score: float
    penalty: float  # the late penalty taken off, 0: none
    seconds_late: float  # after their own due date, 0: on time
    points: Mapping[tuple[str, str], float]  # (notebook, grade_id) -> points, manual wins
    digest: str = ""  # of the score, the comments and the checks' messages (reports.digest)

    def penalty_words(self) -> str:
        """The late penalty in words, "" when none was taken."""
        if self.penalty <= 0:
            return ""
        hours = self.seconds_late / 3600
        return (f"handed in {hours:.1f} h after the due date: a late penalty of "
                f"{self.penalty:g} point(s) applied")


def recorded_grades(settings: Settings, assignments: Iterable[str]
                    ) -> dict[Pair, RecordedGrade]:
    """{(student, assignment): RecordedGrade} of every submission the gradebook holds of
    `assignments`; an assignment not in the gradebook (not released) has none."""
    grades: dict[Pair, RecordedGrade] = {}
    if settings.db_url.startswith("sqlite:///") and not os.path.isfile(
            settings.db_url[len("sqlite:///"):]):
        return grades  # no gradebook yet: nothing recorded (and none made by looking)
    for assignment in sorted(set(assignments)):
        try:
            _, [held] = read_grades(settings, [assignment])
        except CourseError:
            continue
        for student, entry in held.submissions.items():
            grades[(student, assignment)] = RecordedGrade(
                entry.score, entry.max_score, min(entry.penalty, entry.raw_score),
                entry.seconds_late, dict(entry.points), entry.digest)
    return grades


def reached_gradebook(job: QueuedJob) -> bool:
    """Whether a job's result went into the gradebook: a graded submission, or one refused
    by the grader with a score (0); never a check, never a refusal before grading."""
    if job.is_check:
        return False
    return job.state == JobState.GRADED or (job.state == JobState.REFUSED
                                            and job.score is not None)


def current_submissions(jobs: Iterable[QueuedJob]) -> dict[Pair, QueuedJob]:
    """{(student, assignment): the student's latest submission that reached the gradebook}:
    the hand-in the gradebook's grade is of."""
    current: dict[Pair, QueuedJob] = {}
    for job in sorted(jobs, key=lambda job: job.id):
        if reached_gradebook(job):
            current[(job.student, job.assignment)] = job
    return current


def settled_submissions(jobs: Iterable[QueuedJob]) -> dict[Pair, QueuedJob]:
    """`current_submissions`, less each pair with a newer submission waiting or being
    graded: the writer records a grade in the gradebook before the queue marks its job
    graded, so the gradebook's score may already be the newer one's; its feedback and
    push follow once it is graded, and an earlier hand-in's never go out again for it."""
    jobs = list(jobs)
    current = current_submissions(jobs)
    for job in jobs:
        pair = (job.student, job.assignment)
        if (not job.is_check and job.state in (JobState.WAITING, JobState.GRADING)
                and pair in current and job.id > current[pair].id):
            del current[pair]
    return current


def report_parts(settings: Settings, assignments: Iterable[str]
                 ) -> dict[Pair, StudentResult]:
    """{(student, assignment): the student's report part}, each check's message."""
    return {(part.student, assignment): part for assignment in sorted(set(assignments))
            for part in read_student_parts(settings.reports, assignment)}


def as_recorded(job: QueuedJob, grade: RecordedGrade, part: StudentResult | None
                ) -> QueuedJob:
    """The hand-in the gradebook holds, as the gradebook and the report part say: its
    score after the late penalty, each check's points (a manual grade wins) and its
    message."""
    checks = list(job.checks)  # no part (written by an older grader): the queue's own
    if part is not None:
        checks = []
        for notebook in part.notebooks:
            for test in notebook.tests:
                points = grade.points.get((notebook.notebook, test.grade_id), test.points)
                passed = (points >= test.max_points if test.max_points > 0
                          else test.status == CheckStatus.PASSED)
                checks.append(CheckRecord(test.grade_id, passed, points, test.max_points,
                                          test.message))
    return dataclasses.replace(job, score=grade.score, max_score=grade.max_score,
                               checks=checks)


def recorded_jobs(settings: Settings, jobs: list[QueuedJob]
                  ) -> tuple[list[QueuedJob], dict[int, RecordedGrade]]:
    """`jobs`, each hand-in the gradebook holds shown as it is recorded (`as_recorded`),
    and {job id: its RecordedGrade} of those."""
    current = current_submissions(jobs)
    assignments = {assignment for _, assignment in current}
    grades = recorded_grades(settings, assignments) if current else {}
    parts = report_parts(settings, assignments) if current else {}
    by_id: dict[int, RecordedGrade] = {}
    shown = []
    for job in jobs:
        pair = (job.student, job.assignment)
        if current.get(pair) is job and pair in grades:
            by_id[job.id] = grades[pair]
            job = as_recorded(job, grades[pair], parts.get(pair))
        shown.append(job)
    return shown, by_id


def changed_since_sent(store: Store, target: str, grades: Mapping[Pair, RecordedGrade],
                       pairs: Collection[Pair]) -> dict[Pair, tuple[float, float]]:
    """{pair: (score sent, score now)} of `pairs` whose grade is no longer what last went
    out to `target`: its digest of score, comments and checks' messages differs (the two
    scores are then equal when only a comment or a message changed). One that went out
    before the scores sent were remembered (an older service) is remembered now, as it is;
    one remembered without a digest counts as its score, and gets its digest."""
    sent, digests = store.sent_scores(target), sent_digests(store.database, target)
    changes = {}
    for pair in sorted(pairs):
        if pair not in grades:
            continue
        now, digest = grades[pair].score, grades[pair].digest
        if sent.get(pair) is None:
            store.record_sent(pair[0], pair[1], target, now, digest=digest)
        elif abs(sent[pair] - now) > 1e-9:
            changes[pair] = (sent[pair], now)
        elif digests.get(pair) is None:
            store.record_sent(pair[0], pair[1], target, now, digest=digest)
        elif digests[pair] != digest:
            changes[pair] = (sent[pair], now)
    return changes


def graded_against_earlier(store: Store, prepared: Mapping[str, Assignment],
                           assignments: list[str]) -> list[str]:
    """A line per assignment of `assignments` naming the students whose recorded grade is
    of a hand-in graded against an earlier release than the one `prepared` now: the
    instructor's to regrade (make regrade shows who would change)."""
    graded = store.releases_graded()
    current = current_submissions(store.jobs())
    lines = []
    for assignment in assignments:
        if assignment not in prepared:
            continue
        now = release_digest(prepared[assignment].instructor_texts)
        earlier = sorted(shown_id(student) for (student, named), job in current.items()
                         if named == assignment and graded.get(job.id, now) != now)
        if earlier:
            lines.append(f"{assignment}: {len(earlier)} student(s) hold a grade of a hand-in "
                         f"graded against an earlier release: {', '.join(earlier)}; `make "
                         f"regrade ASSIGNMENT={assignment}` shows who would change")
    return lines
