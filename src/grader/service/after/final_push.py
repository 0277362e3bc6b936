"""Each student's grade pushed to the LMS when it becomes final (``c.GradingService``).

A grade is final at the same moment as the feedback at the due date
(due_feedback.py): the student's latest graded hand-in, nothing of theirs still
to grade, once their own due date (extensions included) has passed; a hand-in
graded after it is final when graded. ``c.GradingService.push_final_grades``
names the push (off when empty): one of `pushers`, a table by name of what the
instructor's own push commands run (``canvas``: make canvas-push; ``lti``: make
lti-push), so another LMS is one more entry. Each is called for the students
whose grade became final, with the grade those commands send (after the late
policy and any extension); it sends only what the LMS lacks, so a push repeated
after a restart writes nothing twice. A push is recorded in the store once it
went through; one that fails (a refused token, the LMS down, a student it could
not write) is reported and tried again after RETRY_SECONDS, and never stops the
service.

The gradebook's score pushed is remembered (recorded.py); when the gradebook changes
it later (`make regrade APPLY=1`, a batch `make autograde`, a manual grade in
formgrader, an extension granted after the push), the service pushes that student's
grade again, once, and says so.
"""

import datetime
from collections.abc import Collection, Mapping
from typing import Protocol

from ...safe_text import shown_id
from ...settings import CourseError, Settings
from .due_feedback import Look, feedback_due, ready_hand_ins
from .recorded import changed_since_sent, settled_submissions
from ..queue.records import PushTarget, QueuedJob
from ..queue.store import Store

RETRY_SECONDS = 60.0  # a push that failed is tried again after this long


class Pusher(Protocol):
    """A push of some students' grades of one assignment (push_grades, lti_push): the lines
    to print and 0 (all pushed) or 1 (some failed); CourseError when nothing could be."""

    def __call__(self, settings: Settings, assignment: str, *,
                 students: Collection[str]) -> tuple[list[str], int]: ...


class PushSetupError(Exception):
    """c.GradingService.push_final_grades names no push this service knows."""


def chosen_pusher(name: str, pushers: Mapping[str, Pusher]) -> Pusher | None:
    """The push `name` of `pushers`, None for "" (off); PushSetupError for another name."""
    if not name:
        return None
    if name not in pushers:
        raise PushSetupError(f"c.GradingService.push_final_grades = {name!r} is not a push "
                             f"this service knows ({', '.join(sorted(pushers)) or 'none'}, or "
                             "'' for off)")
    return pushers[name]


class FinalPush:
    """The grades of a course's hand-ins pushed to the LMS gradebook `lms` as they become
    final."""

    def __init__(self, settings: Settings, store: Store, assignments: Collection[str],
                 lms: PushTarget, push: Pusher):
        self.settings, self.store, self.lms, self.push = settings, store, lms, push
        self.assignments = set(assignments)
        self.retry_after: dict[str, datetime.datetime] = {}  # assignment -> when to try again

    def tick(self, now: datetime.datetime | None = None) -> list[str]:
        """Push every grade final at `now` and not pushed yet, and every pushed grade the
        gradebook changed since (a regrade, a batch run, a manual grade, an extension);
        returns the lines to print."""
        return self.look(Look.taken(self.settings, self.store, self.assignments, now))

    what = "final grades to the LMS"  # how its failures are said

    def look(self, look: Look) -> list[str]:
        """`tick` on a look shared with the feedback's release (settled.py)."""
        now = look.now
        jobs = [job for job in look.jobs if job.assignment in self.assignments]
        pushed = self.store.pushed(self.lms)
        ready = ready_hand_ins(jobs, pushed)
        final = feedback_due(ready.values(), pushed, look.dues(), now) if ready else []
        changed = self.changed(jobs, pushed, ready, look)
        lines = []
        for assignment in sorted({job.assignment for job in final} | {a for _, a in changed}):
            if self.retry_after.get(assignment, now) > now:
                continue
            lines += self.push_final(assignment, [j for j in final if j.assignment == assignment],
                                     now, {p: c for p, c in changed.items() if p[1] == assignment},
                                     look)
        return lines

    def changed(self, jobs: list[QueuedJob], pushed: set[int],
                ready: Mapping[tuple[str, str], QueuedJob], look: Look
                ) -> dict[tuple[str, str], tuple[float, float]]:
        """{pair: (score pushed, score now)} of the grades pushed whose gradebook score is
        no longer the one pushed, nothing of theirs waiting to be pushed."""
        current = {pair: job for pair, job in settled_submissions(jobs).items()
                   if job.id in pushed and pair not in ready}
        if not current:
            return {}
        return changed_since_sent(self.store, self.lms, look.grades(), set(current))

    def push_final(self, assignment: str, jobs: list[QueuedJob], now: datetime.datetime,
                   changed: Mapping[tuple[str, str], tuple[float, float]] | None = None,
                   look: Look | None = None) -> list[str]:
        """Push the grades of `jobs` (one per student) of `assignment`, and again those of
        `changed` ({pair: (score pushed, score now)}); recorded when done."""
        changed = changed or {}
        students = sorted({job.student for job in jobs} | {s for s, _ in changed})
        look = look or Look.taken(self.settings, self.store, [assignment], now)
        scores = look.grades()
        head = (f"{assignment}: final grade(s) of {', '.join(shown_id(s) for s in students)} "
                f"to {self.lms}")
        again = [f"  {shown_id(s)}: the gradebook's grade changed since it was pushed "
                 f"({old:g} -> {new:g}): pushed again" if abs(old - new) > 1e-9 else
                 f"  {shown_id(s)}: a comment or a check's message changed since it was "
                 f"pushed: pushed again"
                 for (s, _), (old, new) in sorted(changed.items())]
        try:
            lines, status = self.push(self.settings, assignment, students=students)
        except CourseError as error:
            lines, status = [str(error)], 2
        except Exception as error:  # noqa: BLE001 (reported and tried again; grading goes on)
            lines, status = [f"{type(error).__name__}: {error}"], 2
        if status == 0:
            for job in jobs:
                self.store.record_push(job, self.lms, now)
            for student in students:
                if (student, assignment) in scores:
                    self.store.record_sent(student, assignment, self.lms,
                                           scores[(student, assignment)].score, now,
                                           digest=scores[(student, assignment)].digest)
            self.retry_after.pop(assignment, None)
            return [f"{head}: pushed"] + again + [f"  {line}" for line in lines]
        self.retry_after[assignment] = now + datetime.timedelta(seconds=RETRY_SECONDS)
        return ([f"{head}: not all pushed; tried again in {RETRY_SECONDS:g} s"]
                + [f"  {line}" for line in lines])
