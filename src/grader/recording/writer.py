"""The single writer: gradebook rows, autograded notebooks and the grade report, in a fixed order.

Workers only compute (worker/); the grader's main process records each
student's `StudentResult` through one `Writer`, which owns every write of a run
and its order: the student's autograded notebooks and report part are staged,
the gradebook is changed in one database transaction, and only then are the
files put in place. A run that is interrupted (Ctrl-C, kill) leaves every
student either fully recorded or as before, and running again overwrites
cleanly; what a killed writer left is removed by the next run (files.py).
The writer keeps one connection to the gradebook for the run (each student
still its own transaction): the database's statements are compiled once, not
once per student. A gradebook that stops answering (the database restarted, the
network gone) is tried again for c.GradebookWriter.retry_seconds; then the run
stops with one `GradebookGone` naming it, and the same command grades the
students not recorded.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, NamedTuple

import nbformat
from nbgrader.api import Gradebook

from ..files import StagedFiles
from ..plan import HandIn
from ..results import StudentResult, StudentStatus
from ..safe_text import file_name, shown, shown_id, student_id_problem, writable, writable_record
from ..settings import CourseError, Settings, shown_url
from .gradebook import open_gradebook, read_timestamp, record_in_gradebook
from .report_parts import remove_assignment_leftovers, write_assignment_report, write_student_report

if TYPE_CHECKING:  # nbgrader's preprocessors import slowly: only named here
    from datetime import datetime

    from nbgrader.preprocessors import AssignLatePenalties

RETRY_PAUSES = (0.5, 1.0, 2.0, 4.0)  # seconds between tries of a silent gradebook, last repeated


class GradebookGone(CourseError):
    """The gradebook stopped answering and did not answer again in time: the run stops."""


def connection_lost(error: Exception) -> bool:
    """Whether `error` says the database cannot be reached (refused, closed, restarting),
    rather than something wrong with what was written."""
    from sqlalchemy import exc

    return (isinstance(error, (exc.OperationalError, exc.InterfaceError))
            or bool(getattr(error, "connection_invalidated", False)))


class RecordingFailure(NamedTuple):
    """A student whose result was not recorded: the grader (or its sandbox) failed on them."""

    student: str
    sandbox: bool  # the sandbox could not run on this machine, rather than the grader failing


class Writer:
    """Records one assignment's results, one student at a time, in the grader's main process.

    `start()` before the first student (the reports folder, and what killed
    writers left), `record()` for each student's result, `finish()` at the end
    (the assignment's report rebuilt from every student's part), `close()` if
    the run stops before. A student the writer fails on is reported for that
    student and the run goes on: `record` returns the `RecordingFailure`, and
    `failures` lists every one of the run.
    """

    def __init__(self, settings: Settings, assignment: str):
        self.settings, self.assignment = settings, assignment
        self.failures: list[RecordingFailure] = []
        self.recorded = 0  # students whose gradebook rows this run committed
        self._gradebook: Gradebook | None = None
        self._late_penalties: AssignLatePenalties | None = None

    def _open(self) -> tuple[Gradebook, AssignLatePenalties]:
        """The run's gradebook connection and late-penalty preprocessor, made on first use."""
        if self._gradebook is None:
            self._gradebook = open_gradebook(self.settings.db_url, self.settings.course_id)
        if self._late_penalties is None:
            self._late_penalties = self.settings.late_penalties()
        return self._gradebook, self._late_penalties

    def close(self) -> None:
        """Let go of the gradebook connection (a later record opens another)."""
        if self._gradebook is not None:
            gradebook, self._gradebook = self._gradebook, None
            try:
                gradebook.close()
            except Exception:  # noqa: BLE001 (every transaction already ended: nothing is lost)
                pass

    def start(self) -> None:
        os.makedirs(self.settings.reports, exist_ok=True)
        remove_assignment_leftovers(self.settings.reports, self.settings.autograded,
                                    self.assignment)

    def finish(self) -> list[StudentResult]:
        self.close()
        return write_assignment_report(self.settings.reports, self.assignment)

    def record(self, hand_in: HandIn, result: StudentResult) -> RecordingFailure | None:
        """Record one student's result: files staged, gradebook committed, files published;
        the failure when the student's result could not be recorded, else None.

        A grader killed between the commit and the publishing leaves the new
        grades with the previous files (and its temporaries); the next run
        regrades every student and removes them.
        """
        settings = self.settings
        student = file_name(hand_in.student)
        if result.status in (StudentStatus.GRADER_FAILED, StudentStatus.NO_SANDBOX):
            failure = self._failed(student, result.status == StudentStatus.NO_SANDBOX)
            print(f"error grading {shown(student)}: {shown(result.error)}", file=sys.stderr)
            self._report_only(hand_in, f"not graded: the grader failed on this submission "
                                          f"({result.error})")
            return failure
        staged = StagedFiles()
        # a refused folder is not read at all (it may be a link to someone else's files)
        refused = result.status == StudentStatus.REFUSED
        submitted_dir = None if refused else hand_in.submitted_dir
        try:
            timestamp, note = read_timestamp(submitted_dir) if submitted_dir else (None, None)
            if note:
                result.notes.append(note)
            if student != hand_in.student or student_id_problem(student):  # not storable
                result.student = shown_id(student)
                write_student_report(settings.reports, self.assignment, result, staged)
                staged.publish()
                return None
            write_autograded(settings.autograded, hand_in.student, self.assignment, result,
                             submitted_dir, staged)
            write_student_report(settings.reports, self.assignment, result, staged)
            self._record_with_retries(result, timestamp)
            staged.publish()
        except GradebookGone:
            staged.discard()
            raise
        except Exception as error:  # noqa: BLE001 (reported for this student; the run goes on)
            staged.discard()
            self.close()  # the next student starts on a new connection
            failure = self._failed(student, False)
            message = writable(f"{type(error).__name__}: {error}")
            print(f"error recording {shown(student)}: {shown(message)}", file=sys.stderr)
            self._report_only(hand_in, f"not recorded: the grader failed while recording "
                                          f"this submission ({message})")
            return failure
        except BaseException:
            staged.discard()
            self.close()
            raise
        states = ", ".join(f"{nb.notebook}: {nb.status}" for nb in result.notebooks)
        print(f"{shown(student)}: {result.points:g}/{result.max_points:g} ({states}) in "
              f"{result.seconds:.1f} s", file=sys.stderr)
        return None

    def _failed(self, student: str, sandbox: bool) -> RecordingFailure:
        failure = RecordingFailure(student, sandbox)
        self.failures.append(failure)
        return failure

    def _record_with_retries(self, result: StudentResult, timestamp: datetime | None) -> None:
        """record_in_gradebook, tried again on a new connection while the gradebook does not
        answer, for up to c.GradebookWriter.retry_seconds; then GradebookGone."""
        waited_since, pauses = None, iter(RETRY_PAUSES)
        while True:
            try:
                gradebook, late_penalties = self._open()
                record_in_gradebook(gradebook, result, timestamp, late_penalties)
            except Exception as error:
                if not connection_lost(error):
                    raise
                self.close()
                reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
                shown = shown_url(self.settings.db_url)
                limit = self.settings.gradebook_retry_seconds
                now = time.monotonic()
                if waited_since is None:
                    waited_since = now
                    print(f"warning: the gradebook {shown} does not answer ({reason}); "
                          f"trying again for up to {limit:g} s", file=sys.stderr)
                if now - waited_since >= limit:
                    raise GradebookGone(
                        f"the gradebook {shown} stopped answering ({reason}) and did not "
                        f"answer again within {limit:g} s (c.GradebookWriter.retry_seconds): "
                        f"grading stopped after {self.recorded} student(s) recorded in this "
                        f"run; once the database is back, the same command grades the "
                        f"others") from None
                time.sleep(min(next(pauses, RETRY_PAUSES[-1]), limit - (now - waited_since)))
                continue
            if waited_since is not None:
                print(f"the gradebook answers again after {time.monotonic() - waited_since:.0f} s",
                      file=sys.stderr)
            self.recorded += 1
            return

    def _report_only(self, hand_in, note):
        """A report entry saying why a student has no new result (best effort)."""
        student = file_name(hand_in.student)
        try:
            write_student_report(self.settings.reports, self.assignment,
                                 StudentResult(student, self.assignment,
                                               StudentStatus.GRADER_FAILED, [note]))
        except Exception as error:  # noqa: BLE001 (already failing; say so and go on)
            print(f"error reporting on {shown(student)}: {shown(repr(error))}", file=sys.stderr)


def write_autograded(autograded_root: str, student: str, assignment: str, result: StudentResult,
                     submitted_dir: str | None, staged: StagedFiles | None = None) -> None:
    """Autograded notebooks (and the timestamp) into autograded/<student>/<assignment>/.

    With `staged` (a StagedFiles) the files are only staged; the caller publishes.
    """
    own = staged is None
    staged = StagedFiles() if own else staged
    folder = os.path.join(autograded_root, student, assignment)
    os.makedirs(folder, exist_ok=True)
    try:
        for notebook in result.notebooks:
            target = os.path.join(folder, notebook.notebook + ".ipynb")
            if notebook.autograded is None:
                staged.remove(target)
                continue
            nb = nbformat.from_dict(writable_record(notebook.autograded))
            staged.write(target, nbformat.writes(nb))
        stamp = os.path.join(submitted_dir, "timestamp.txt") if submitted_dir else None
        if stamp is None:  # no usable submission folder: no timestamp either
            staged.remove(os.path.join(folder, "timestamp.txt"))
        elif os.path.isfile(stamp) and not os.path.islink(stamp):
            with open(stamp, encoding="utf-8", errors="replace") as handle:
                staged.write(os.path.join(folder, "timestamp.txt"), handle.read(200))
        # nbgrader's release_feedback needs the submission's secret beside the feedback
        secret = os.path.join(submitted_dir, "submission_secret.txt") if submitted_dir else None
        if secret and os.path.isfile(secret) and not os.path.islink(secret):
            with open(secret, encoding="utf-8", errors="replace") as handle:
                staged.write(os.path.join(folder, "submission_secret.txt"), handle.read(200))
    except BaseException:
        staged.discard()
        raise
    if own:
        staged.publish()
