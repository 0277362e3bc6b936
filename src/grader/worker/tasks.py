"""What a worker process runs for each student, and the private folders it grades in.

`grade_safely` is the task of a local worker: `grade_student` with the
grader's own failures turned into a result. `grade_on_worker` is the task of a
Dask worker: the same, in a private work root of that process. Every
temporary folder of a run lives in a `private_work_root`; `remove_left_overs`
removes what graders that are gone left.
"""

import atexit
import contextlib
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator

from ..files import remove_left_over_folders, tagged_folder
from ..results import StudentResult, StudentStatus, grader_failed
from ..sandbox import GraderFault, SandboxCgroups, SandboxError
from .grade import grade_student
from .job import Job


@contextlib.contextmanager
def private_work_root() -> Iterator[str]:
    """A folder only this grader can enter, used for every temporary folder while grading.

    Its name holds the grader's owner tag (files.py), so that a later run can
    tell that the grader that made it is gone. Working folders inside it are
    private even if a process made them world-writable, and it is removed at
    the end, also after an error.
    """
    root = tagged_folder("run")
    os.chmod(root, 0o700)
    saved = tempfile.tempdir
    tempfile.tempdir = root  # forked workers inherit it
    try:
        yield root
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(root, ignore_errors=True)


def remove_left_overs(base: str | None = None) -> list[str]:
    """Remove what graders that are gone left: their work roots and working folders in
    `base` (the temporary folder) and their sandboxes' cgroups; returns the paths."""
    return remove_left_over_folders(base) + SandboxCgroups.remove_stale()


def grade_safely(job: Job) -> StudentResult:
    """grade_student, with the grader's own failures turned into a result, not a crash.

    A `GraderFault` (a check's fork the system kept refusing) is "grader failed" for the
    student: nothing is recorded, so the next run grades the notebook again."""
    try:
        return grade_student(job)
    except GraderFault as fault:  # not the student's code: no grade now, graded next run
        return grader_failed(job.student, job.assignment.name,
                             f"{fault}; not the student's code: graded again on the next run")
    except SandboxError as error:  # the machine's set-up, not the submission
        return grader_failed(job.student, job.assignment.name, str(error),
                             StudentStatus.NO_SANDBOX)
    except Exception as error:  # noqa: BLE001 (reported for this student; the run goes on)
        return grader_failed(job.student, job.assignment.name, repr(error))


_one_at_a_time = threading.Lock()
_work_root = None


def grade_on_worker(job: Job) -> StudentResult:
    """The task a Dask worker runs: one student, in a private work root of this process.

    The lock keeps one student at a time per worker process even if the worker
    was started with more than one thread (sandboxes are numbered by process).
    """
    global _work_root
    with _one_at_a_time:
        if _work_root is None:
            remove_left_overs()
            stack = contextlib.ExitStack()
            _work_root = stack.enter_context(private_work_root())
            atexit.register(stack.close)
        return grade_safely(job)
