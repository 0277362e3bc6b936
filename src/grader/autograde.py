"""One autograding run: which students, which are refused, and each result to the single writer.

`autograde` is the whole run of `python -m grader autograde`: it prepares the
assignment once, picks the submissions, refuses those it must not read, hands
the others to the workers as plain data (worker/'s `Job`, through engines.py)
and gives each result to the single writer (recording/'s `Writer`), each
student exactly once.
"""

import os
import sys

from .dask_tls import TLS_FOLDER, refuse_plaintext
from .engines import EXIT_ON_SIGTERM, engine, sigterm_as_exit
from .plan import HandIn, refusal, refused_result
from .recording import Writer, check_released
from .safe_text import shown_id
from .sandbox import SandboxCgroups, require_sandbox
from .settings import CourseError, Limits, Settings
from .worker import (Job, close_templates, prepare_assignment, prepare_machine,
                     private_work_root, read_job, remove_left_overs)


def autograde(settings: Settings, assignment: str, limits: Limits, jobs: int = 1,
              scheduler: str | None = None, wait: float | None = None,
              students: list[str] | None = None, shard: tuple[int, int] | None = None,
              tls_folder: str | None = None, allow_plaintext: bool = False) -> int:
    """Grade and record every submission of `assignment`; returns the exit status.

    0 when every submission was processed, 1 when the grader failed on some
    (reported for each); raises CourseError for the instructor's own problems.
    `students` limits the run to those ids, `shard` (K, N) to the K-th of N
    shares of the sorted students; `limits` is the sandbox's Limits. A Dask
    `scheduler` is reached over TLS with the certificates in `tls_folder` (by
    default dask-certs/ of the course), a tcp:// one only with `allow_plaintext`.
    """
    if scheduler:
        refuse_plaintext(scheduler, allow_plaintext)
        tls_folder = tls_folder or os.path.join(settings.root, TLS_FOLDER)
    if not scheduler:
        require_sandbox()
    notebooks = settings.instructor_notebooks(assignment)
    check_released(settings, assignment, notebooks)
    chosen = chosen_students(settings, assignment, students, shard)
    prepared = prepare_assignment(settings, assignment, limits)
    hand_ins = [HandIn(student, assignment,
                       os.path.join(settings.submitted, student, assignment), notebooks)
                for student in chosen]

    def prepare(hand_in: HandIn) -> Job:
        return read_job(prepared, hand_in.student, hand_in.submitted_dir)

    writer = Writer(settings, assignment)
    remove_left_overs()
    with sigterm_as_exit(), private_work_root():
        try:
            if not scheduler and hand_ins:
                # the templates and the checks, once for the machine: the workers share them
                prepare_machine(prepared, jobs)
            with engine(jobs, scheduler, wait, tls_folder, allow_plaintext) as grading:
                print(f"autograding {assignment}: {len(hand_ins)} submission(s), "
                      f"{grading.where}", file=sys.stderr)
                print(limits_in_force(limits, settings.package, prepared.blocked),
                      file=sys.stderr)
                writer.start()
                gradable = []
                for hand_in in hand_ins:
                    reason = refusal(settings, hand_in)
                    if reason:
                        writer.record(hand_in, refused_result(hand_in, reason))
                    else:
                        gradable.append(hand_in)
                for hand_in, result in grading.graded(gradable, prepare):
                    writer.record(hand_in, result)
        except SystemExit as stop:
            if stop.code == EXIT_ON_SIGTERM:
                print(f"autograding {assignment} stopped by SIGTERM: the students recorded so "
                      "far are kept; the same command grades the others", file=sys.stderr)
            raise
        finally:
            writer.close()
            close_templates()
            remove_left_overs()  # what a worker killed on the way out left
    writer.finish()
    if any(failure.sandbox for failure in writer.failures):
        where = "the Dask workers" if scheduler else "this machine"
        raise CourseError("the sandbox could not be started (see the messages above): "
                          f"check that bubblewrap works on {where}")
    if writer.failures:
        print(f"the grader failed on: {', '.join(shown_id(f.student) for f in writer.failures)} "
              "(see messages above)", file=sys.stderr)
        return 1
    return 0


def chosen_students(settings: Settings, assignment: str, students: list[str] | None = None,
                    shard: tuple[int, int] | None = None) -> list[str]:
    """The students with a submission of `assignment`, sorted; only `students` if given,
    and of those only share K of N if `shard` is (K, N)."""
    chosen = settings.students(assignment)
    if students:
        unknown = sorted(set(students) - set(chosen))
        if unknown:
            print(f"warning: no submission of {assignment} from: {', '.join(unknown)}",
                  file=sys.stderr)
        chosen = [s for s in chosen if s in students]
    if shard:
        k, n = shard
        chosen = [s for i, s in enumerate(chosen) if i % n == k - 1]
    return chosen


def limits_in_force(limits: Limits, package: str, blocked: tuple[str, ...]) -> str:
    """The sandbox's limits in words, printed when grading starts (docs/grading-sandbox.md)."""
    whole, why = SandboxCgroups.available()
    sandbox = (f"{limits.memory_mib} MiB of memory and {limits.max_processes} processes per "
               f"sandbox in all ({why})" if whole else
               f"per process only: {limits.memory_mib} MiB of address space each, "
               f"{limits.max_processes} processes per sandbox user ({why})")
    stubs = ", ".join(blocked) if blocked else "none"
    return (f"sandbox limits: {limits.timeout:g} s per cell; {sandbox}; writable folders "
            f"{limits.tmpfs_mib} MiB each, files up to {limits.file_mib} MiB; no network; "
            f"{limits.notebook_seconds:g} s per notebook in all, restarts included\n"
            f"{package} functions students must write themselves (stubs in the sandbox): {stubs}")
