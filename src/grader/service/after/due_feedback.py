"""Feedback at each student's due date: the course's feedback page, released through the exchange.

While the service runs, every ``c.GradingService.feedback_check_seconds`` it looks
for hand-ins whose feedback is due (`feedback_due`): a student's latest graded
hand-in of an assignment, nothing of theirs still to grade, once their own due
date (the class's plus their extension) has passed and its feedback has not gone
out yet. At the due date that is their latest on-time hand-in; a hand-in graded
after it (a late one, or an on-time one graded late) is due as soon as it is
graded. An assignment without a due date is left to the instructor's commands.

Each is given out as the batch does it: `nbgrader generate_feedback` writes the
course's own feedback page from the gradebook and autograded/ (make feedback),
then `nbgrader release_feedback` files it in the exchange (make release-feedback),
where `nbgrader fetch_feedback` gets it. A student who did not hand in through the
exchange (an LMS zip: no submission_secret.txt) is listed, not failed: their page
is in feedback/ for `make feedback-zip`. Over HTTP (``c.HubTransport.transport =
"http"``) the page is filed nowhere: the course page shows it. Only then is the release
recorded in the store (`Store.record_release`), so a service killed in between releases the same
page again at its next start (nbgrader overwrites it) and none is lost; one
recorded is never released again.
"""

import dataclasses
import datetime
import glob
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from nbgrader.api import Gradebook, MissingEntry

from ...deadlines import deadline_of
from ...safe_text import shown_id, writable
from ...settings import HubTransport, Settings
from .recorded import RecordedGrade, changed_since_sent, recorded_grades, settled_submissions
from ..queue.events import EventHub, GradeEvent
from ..queue.records import JobState, QueuedJob, ReleaseOutcome
from ..queue.store import FEEDBACK_SENT, Store, utc_now

EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")  # what nbgrader's release reads
RETRY_SECONDS = 60.0  # a release that failed is tried again after this long
PENDING = (JobState.WAITING, JobState.GRADING)
Pair = tuple[str, str]  # (student, assignment)
# how a command is run: (command, folder) -> (exit status, what it printed)
RunCommand = Callable[[Sequence[str], str], tuple[int, str]]


def run_nbgrader(command: Sequence[str], folder: str) -> tuple[int, str]:
    """Run `command` in `folder`; its exit status and what it printed."""
    done = subprocess.run(list(command), cwd=folder, capture_output=True, text=True,
                          errors="replace", check=False)
    return done.returncode, done.stdout + done.stderr


def ready_hand_ins(jobs: Iterable[QueuedJob], released: set[int]) -> dict[Pair, QueuedJob]:
    """{(student, assignment): job} of the hand-ins whose feedback may go out once due: the
    pair's latest graded or refused submission (what autograded/ holds; a check never is),
    if graded, no submission of the pair still waiting or being graded, and not released
    yet."""
    latest: dict[Pair, QueuedJob] = {}
    pending: set[Pair] = set()
    for job in sorted(jobs, key=lambda job: job.id):
        pair = (job.student, job.assignment)
        if job.is_check:  # the student's own look: never what is graded
            continue
        if job.state in PENDING:
            pending.add(pair)
        elif job.state == JobState.GRADED or (job.state == JobState.REFUSED
                                              and job.score is not None):
            latest[pair] = job  # a refusal without a score never reached the gradebook
    return {pair: job for pair, job in latest.items()
            if pair not in pending and job.state == JobState.GRADED and job.id not in released}


def feedback_due(jobs: Iterable[QueuedJob], released: set[int],
                 dues: Mapping[Pair, datetime.datetime | None], now: datetime.datetime
                 ) -> list[QueuedJob]:
    """The hand-ins whose feedback is due at `now`, in the order they arrived (`dues`: each
    pair's own due date, None where the assignment has none)."""
    due = []
    for pair, job in ready_hand_ins(jobs, released).items():
        moment = dues.get(pair)
        if moment is not None and now >= moment:
            due.append(job)
    return sorted(due, key=lambda job: job.id)


def due_dates(settings: Settings, pairs: Iterable[Pair]) -> dict[Pair, datetime.datetime | None]:
    """Each student's own due date (UTC) of each assignment, extensions included, as
    requests.student_due gives it, read in one gradebook session."""
    pairs = set(pairs)
    dues: dict[Pair, datetime.datetime | None] = {}
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for assignment in sorted({assignment for _, assignment in pairs}):
            try:
                row = gb.find_assignment(assignment)
            except MissingEntry:
                row = None
            extensions = {} if row is None else {
                submission.student_id: submission.extension for submission in row.submissions}
            for student, named in pairs:
                if named == assignment:
                    dues[(student, assignment)] = deadline_of(row,
                                                              extensions.get(student)).effective
    return dues


@dataclasses.dataclass
class Look:
    """One look at the queue and the gradebook, shared by all that act on settled grades:
    the queue's jobs read once, and the gradebook's due dates and grades each read at most
    once, when first asked for (`dues`, `grades`)."""

    settings: Settings
    now: datetime.datetime
    jobs: list[QueuedJob]
    due_read: dict[Pair, datetime.datetime | None] | None = None
    grades_read: dict[Pair, RecordedGrade] | None = None

    @classmethod
    def taken(cls, settings: Settings, store: Store, assignments: Iterable[str],
              now: datetime.datetime | None = None) -> "Look":
        """A look at `store`'s hand-ins of `assignments` at `now`."""
        assignments = set(assignments)
        return cls(settings, now or utc_now(),
                   [job for job in store.jobs() if job.assignment in assignments])

    def dues(self) -> dict[Pair, datetime.datetime | None]:
        """Each due date of the pairs with a graded hand-in (due_dates), read once."""
        if self.due_read is None:
            pairs = ready_hand_ins(self.jobs, set())
            self.due_read = due_dates(self.settings, pairs) if pairs else {}
        return self.due_read

    def grades(self) -> dict[Pair, RecordedGrade]:
        """The gradebook's grades of the assignments of the hand-ins it holds, read once."""
        if self.grades_read is None:
            held = {assignment for _, assignment in settled_submissions(self.jobs)}
            self.grades_read = recorded_grades(self.settings, held) if held else {}
        return self.grades_read


def for_students(command: list[str], chosen: Sequence[str], everyone: Iterable[str]
                 ) -> list[list[str]]:
    """`command` run for the `chosen` students only: one run excluding the others of
    `everyone`, or one run per student where a name holds a comma (nbgrader's exclusion
    list is comma-separated)."""
    others = sorted(set(everyone) - set(chosen))
    if len(chosen) == 1 or any("," in s for s in [*chosen, *others]):
        return [command + [f"--student={glob.escape(s)}"] for s in chosen]
    return [command + ["--CourseDirectory.student_id_exclude=" + ",".join(others)]
            if others else command]


def students_with(folder: str, assignment: str) -> list[str]:
    """The students with a folder `folder`/<student>/`assignment`/."""
    if not os.path.isdir(folder):
        return []
    return sorted(s for s in os.listdir(folder)
                  if os.path.isdir(os.path.join(folder, s, assignment)))


class DueFeedback:
    """The feedback of a course's hand-ins given out as it falls due, recorded in `store`."""

    def __init__(self, settings: Settings, store: Store, assignments: Iterable[str],
                 run: RunCommand = run_nbgrader, hub: EventHub | None = None):
        self.settings, self.store, self.run = settings, store, run
        self.hub = hub or EventHub()  # `released` emitted as each feedback goes out
        self.assignments = set(assignments)
        # over HTTP the course page shows each page given out: no exchange to file it in
        self.on_the_page = HubTransport(config=settings.config).transport == "http"
        self.retry_after: dict[int, datetime.datetime] = {}  # job id -> when to try again
        # {pair: (score shown, score now)} of the last look's changed grades
        self.last_changes: dict[Pair, tuple[float, float]] = {}

    def tick(self, now: datetime.datetime | None = None) -> list[str]:
        """Give out every feedback due at `now`; returns a line per student."""
        return self.look(Look.taken(self.settings, self.store, self.assignments, now))

    what = "feedback at the due date"  # how its failures are said

    def look(self, look: Look) -> list[str]:
        """Give out every feedback due at the look's moment; returns a line per student."""
        now = look.now
        jobs = [job for job in look.jobs if job.assignment in self.assignments]
        released = {release.job_id for release in self.store.releases()}
        ready = ready_hand_ins(jobs, released)
        due = [job for job in feedback_due(ready.values(), released, look.dues(), now)
               if self.retry_after.get(job.id, now) <= now] if ready else []
        again = self.changed(jobs, released, ready, now, look)
        lines = []
        for assignment in sorted({job.assignment for job in due + list(again.values())}):
            chosen = [j for j in due + list(again.values()) if j.assignment == assignment]
            lines += [f"{assignment}: {shown_id(s)}'s "
                      + (f"grade changed in the gradebook since the feedback went out ({old:g} "
                         f"-> {new:g})" if abs(old - new) > 1e-9 else
                         "comments or check messages changed since the feedback went out")
                      + ": their feedback is given out again"
                      for (s, a), (old, new) in sorted(self.last_changes.items())
                      if a == assignment and (s, a) in again]
            lines += self.give_out(assignment, chosen, now, look.grades())
        return lines

    def changed(self, jobs: list[QueuedJob], released: set[int],
                ready: Mapping[Pair, QueuedJob], now: datetime.datetime, look: Look
                ) -> dict[Pair, QueuedJob]:
        """{pair: the hand-in the gradebook holds} of each student whose feedback went out
        and whose gradebook score is no longer the one it showed (`last_changes` says from
        what to what)."""
        current = {pair: job for pair, job in settled_submissions(jobs).items()
                   if job.id in released and pair not in ready
                   and self.retry_after.get(job.id, now) <= now}
        if not current:
            self.last_changes = {}
            return {}
        self.last_changes = changed_since_sent(self.store, FEEDBACK_SENT, look.grades(),
                                               set(current))
        return {pair: current[pair] for pair in self.last_changes}

    def give_out(self, assignment: str, jobs: list[QueuedJob], now: datetime.datetime,
                 grades: Mapping[Pair, RecordedGrade]) -> list[str]:
        """Generate and release the feedback of `jobs` (one per student), then record it
        with the gradebook's score it shows (`grades`)."""
        settings = self.settings
        students = [job.student for job in jobs]
        scores = {pair: grade for pair, grade in grades.items() if pair[1] == assignment}
        nbgrader = [sys.executable, "-m", "nbgrader"]
        problem = self.run_all(for_students(
            nbgrader + ["generate_feedback", assignment, "--force"], students,
            students_with(settings.autograded, assignment)))
        folders = {job.student: os.path.join(settings.feedback, job.student, assignment)
                   for job in jobs}
        made = {s: folder for s, folder in folders.items()
                if glob.glob(os.path.join(glob.escape(folder), "*.html"))}
        lines = [self.failed(job, now, "no feedback page was made ("
                             + (problem or f"nothing in {os.path.relpath(folders[job.student])}/")
                             + ")")
                 for job in jobs if job.student not in made]
        through = [] if self.on_the_page else [
            s for s, folder in made.items()
            if all(os.path.isfile(os.path.join(folder, f)) for f in EXCHANGE_FILES)]
        problem = self.run_all(for_students(
            nbgrader + ["release_feedback", assignment], through,
            students_with(settings.feedback, assignment))) if through else ""
        for job in jobs:
            if job.student not in made:
                continue
            if self.on_the_page:
                self.released(job, ReleaseOutcome.ON_THE_PAGE, scores, now)
                lines.append(f"{assignment}: feedback of {shown_id(job.student)}'s hand-in "
                             f"{job.id} shown on the course page")
            elif job.student not in through:
                self.released(job, ReleaseOutcome.NOT_THROUGH_EXCHANGE, scores, now)
                lines.append(f"{assignment}: {shown_id(job.student)} did not hand in through "
                             "the exchange (no submission_secret.txt): their feedback is in "
                             f"{os.path.relpath(made[job.student])}/ (make feedback-zip)")
            elif problem:
                lines.append(self.failed(job, now, f"not released: {problem}"))
            else:
                self.released(job, ReleaseOutcome.THROUGH_EXCHANGE, scores, now)
                lines.append(f"{assignment}: feedback of {shown_id(job.student)}'s hand-in "
                             f"{job.id} released through the exchange")
        return lines

    def released(self, job: QueuedJob, outcome: ReleaseOutcome,
                 scores: Mapping[Pair, RecordedGrade], now: datetime.datetime) -> None:
        """Record how the feedback of `job` went out, say `released`, and remember what it
        showed; a retry it waited for is forgotten."""
        self.store.record_release(job, outcome, now)
        self.hub.emit(GradeEvent.RELEASED, job, now)
        self.sent(job, scores, now)
        self.retry_after.pop(job.id, None)

    def sent(self, job: QueuedJob, scores: Mapping[Pair, RecordedGrade],
             now: datetime.datetime) -> None:
        """Remember the gradebook's score the feedback of `job` showed, and its digest."""
        grade = scores.get((job.student, job.assignment))
        if grade is not None:
            self.store.record_sent(job.student, job.assignment, FEEDBACK_SENT, grade.score,
                                   now, digest=grade.digest)

    def run_all(self, commands: list[list[str]]) -> str:
        """Run each command; "" when all succeeded, else what the first failure said."""
        for command in commands:
            status, output = self.run(command, self.settings.root)
            if status != 0:
                last = [line for line in output.splitlines() if line.strip()][-3:]
                return writable(f"{' '.join(command[3:5])} exited with {status}: "
                                + " / ".join(last))
        return ""

    def failed(self, job: QueuedJob, now: datetime.datetime, reason: str) -> str:
        self.retry_after[job.id] = now + datetime.timedelta(seconds=RETRY_SECONDS)
        return (f"{job.assignment}: feedback of {shown_id(job.student)}'s hand-in {job.id}: "
                f"{reason}; tried again in {RETRY_SECONDS:g} s")


def release_at_due(tick: Callable[[], list[str]], stop: threading.Event, every: float,
                   what: str = "feedback at the due date") -> None:
    """`tick()` (DueFeedback.tick, or another look of the same kind) every `every` seconds
    until `stop` is set, its lines printed; a tick that fails is reported as `what` (once,
    until one works again: a database restarting is not said every few seconds) and the
    next one tries again (the service goes on grading)."""
    failing = False
    while not stop.is_set():
        try:
            lines = tick()
        except Exception as error:  # noqa: BLE001 (reported; grading is not stopped by it)
            said = (str(error).strip().splitlines() or [""])[0]  # not the SQL below it
            lines = [] if failing else [f"{what}: {type(error).__name__}: {said}; tried "
                                        f"again every {every:g} s"]
            failing = True
        else:
            lines = [f"{what}: working again", *lines] if failing else lines
            failing = False
        for line in lines:
            print(f"serve: {writable(line)}", file=sys.stderr, flush=True)
        stop.wait(every)
