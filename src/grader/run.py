"""One autograding run: which students, where they are graded, and what it leaves behind.

`autograde` is the whole run of `python -m grader autograde`: it picks the
submissions, refuses those it must not read, hands the others to the workers
as plain data (grade.py's `Job`) and gives each result to the single writer
(record.py), each student exactly once. Everything a run starts and the
temporary folders it makes are here too: the workers, its private work root,
and the removal of what killed runs left.

Where students are graded: all three ways are `concurrent.futures` executors,
and `graded` is the one path a run takes through any of them. It reads each
submission into a Job just before handing it out, keeps a bounded number in
flight, and yields results as they come back.

- `--jobs 1`: `InlineExecutor` grades in the grader's own process; nothing starts.
- `--jobs N`: a `ProcessPoolExecutor` of N forked processes. Forking is cheap
  (the grader's modules are already imported) and the processes live for the
  whole run, so what a worker keeps between students (a warm template, its
  checkers) is reused. A local Dask cluster would add a scheduler and spawned
  workers that import everything again, for no gain on one machine.
- `--scheduler ADDRESS`: the workers of a Dask cluster (`dask worker ADDRESS
  --nthreads 1`). They get each job as data and need no course folder. A worker
  lost mid-run is replaced by Dask, which runs its tasks again elsewhere; a
  result that arrives twice is recorded once.
"""

import atexit
import concurrent.futures
import contextlib
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
from dataclasses import dataclass

import nbformat

from .course import CourseError, blocked_functions, check_gradebook
from .files import remove_left_over_folders, tagged_folder
from .grade import grade_student, prepare_checkers, read_instructor_notebooks, read_job
from .notebooks import (build_plan, clean_name, shown_id, student_id_problem,
                        submission_link_problem)
from .record import Writer
from .results import NO_SANDBOX, REFUSED, NotebookResult, StudentResult, TestResult, failed
from .sandbox import SandboxCgroups, SandboxError, bwrap_available


@dataclass
class Submission:
    """One student's submission on the instructor's machine: what is read and recorded."""

    student: str
    assignment: str
    submitted_dir: str  # submitted/<student>/<assignment>
    instructor_notebooks: dict  # notebook name -> path of the instructor's .ipynb


def autograde(settings, assignment, limits, jobs=1, scheduler=None, wait=None,
              students=None, shard=None):
    """Grade and record every submission of `assignment`; returns the exit status.

    0 when every submission was processed, 1 when the grader failed on some
    (reported for each); raises CourseError for the instructor's own problems.
    `students` limits the run to those ids, `shard` (K, N) to the K-th of N
    shares of the sorted students; `limits` is the sandbox's Limits.
    """
    if not scheduler and not bwrap_available():
        raise CourseError("bubblewrap (bwrap) is not installed: run `make system` "
                          "(Debian package bubblewrap); student code never runs unsandboxed")
    notebooks = settings.instructor_notebooks(assignment)
    check_gradebook(settings, assignment, notebooks)
    chosen = chosen_students(settings, assignment, students, shard)
    blocked = blocked_functions(settings, notebooks)
    instructor_texts = read_instructor_notebooks(notebooks)
    submissions = [Submission(student, assignment,
                              os.path.join(settings.submitted, student, assignment), notebooks)
                   for student in chosen]

    def prepare(submission):
        return read_job(submission.student, submission.assignment, submission.submitted_dir,
                        instructor_texts, limits, blocked=blocked)

    if jobs > 1 and not scheduler:
        prepare_checkers(instructor_texts)  # once here: the forked workers share them
    writer = Writer(settings, assignment)
    with engine(jobs, scheduler, wait) as (executor, in_flight, where, grade):
        print(f"autograding {assignment}: {len(submissions)} submission(s), {where}",
              file=sys.stderr)
        print(limits_in_force(limits, settings.package, blocked), file=sys.stderr)
        writer.start()
        gradable = []
        for submission in submissions:
            reason = refusal(settings, submission)
            if reason:
                writer.record(submission, refused_result(submission, reason))
            else:
                gradable.append(submission)
        remove_left_overs()
        with private_work_root():
            for submission, result in graded(gradable, prepare, executor, in_flight, grade):
                writer.record(submission, result)
    writer.finish()
    if any(sandbox for _, sandbox in writer.failures):
        where = "the Dask workers" if scheduler else "this machine"
        raise CourseError("the sandbox could not be started (see the messages above): "
                          f"check that bubblewrap works on {where}")
    if writer.failures:
        print(f"the grader failed on: {', '.join(s for s, _ in writer.failures)} "
              "(see messages above)", file=sys.stderr)
        return 1
    return 0


def chosen_students(settings, assignment, students=None, shard=None):
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


@contextlib.contextmanager
def engine(jobs=1, scheduler=None, wait=None):
    """(executor, jobs to hand out at once, description, task) for --jobs N or --scheduler.

    One student is read ahead per local worker, two per Dask worker slot (the
    transfer overlaps the grading); --jobs 1 grades each as soon as it is read.
    """
    if scheduler:
        with dask_cluster(scheduler, wait or CONNECT_SECONDS) as (executor, in_flight, slots):
            yield (executor, in_flight, f"on the Dask cluster at {scheduler} "
                   f"({slots()} worker slot(s) now)", grade_on_worker)
        return
    workers = max(1, jobs)
    if workers == 1:
        yield InlineExecutor(), lambda: 1, "1 at a time", safe_grade
        return
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context,
                                                initializer=_exit_with_grader,
                                                initargs=(os.getpid(),)) as pool:
        yield pool, lambda: 2 * workers, f"{workers} at a time", safe_grade


def _exit_with_grader(grader_pid):
    """Worker start-up: if the grader is killed, its workers (and their sandboxes) die too."""
    import ctypes

    pr_set_pdeathsig = 1  # Linux prctl option
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != grader_pid:  # the grader died before the line above took effect
        os._exit(1)


def limits_in_force(limits, package, blocked):
    """The sandbox's limits in words, printed when grading starts (README: how to check)."""
    whole, why = SandboxCgroups.available()
    sandbox = (f"{limits.memory_mib} MiB of memory and {limits.max_processes} processes per "
               f"sandbox in all ({why})" if whole else
               f"per process only: {limits.memory_mib} MiB of address space each, "
               f"{limits.max_processes} processes per sandbox user ({why})")
    stubs = ", ".join(blocked) if blocked else "none"
    return (f"sandbox limits: {limits.timeout:g} s per cell; {sandbox}; writable folders "
            f"{limits.tmpfs_mib} MiB each, files up to {limits.file_mib} MiB; no network\n"
            f"{package} functions students must write themselves (stubs in the sandbox): {stubs}")


def refusal(settings, submission):
    """Why a submission is not graded at all (its folder is a link, ...), or None."""
    if clean_name(submission.student) != submission.student:
        return "the student folder's name is not valid UTF-8 text; not graded"
    problem = student_id_problem(submission.student)
    if problem:
        return f"student id {shown_id(submission.student)} {problem}; not graded"
    return submission_link_problem(settings.submitted, submission.student,
                                   submission.assignment)


def refused_result(submission, reason):
    """The result of a submission that was not run: every check 0 points, with `reason`."""
    notebooks = []
    for name, path in sorted(submission.instructor_notebooks.items()):
        plan = build_plan(nbformat.read(path, as_version=4), None)
        tests = [TestResult(cell.grade_id, 0.0, cell.points, "not run", reason)
                 for cell in plan.cells if cell.kind == "test"]
        notebooks.append(NotebookResult(name, "unreadable", reason, [], tests))
    return StudentResult(submission.student, submission.assignment, REFUSED, [reason],
                         notebooks)


# --- the run's temporary folders -------------------------------------------------

@contextlib.contextmanager
def private_work_root():
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


def remove_left_overs(base=None):
    """Remove what graders that are gone left: their work roots and working folders in
    `base` (the temporary folder) and their sandboxes' cgroups; returns the paths."""
    return remove_left_over_folders(base) + SandboxCgroups.remove_stale()


# --- where students are graded ----------------------------------------------------

JOBS_IN_FLIGHT_PER_SLOT = 2  # jobs handed out per Dask worker slot, read just in time
CONNECT_SECONDS = 30  # default wait for the scheduler, and then for a first worker


def safe_grade(job):
    """grade_student, with the grader's own failures turned into a result, not a crash."""
    try:
        return grade_student(job)
    except SandboxError as error:  # the machine's set-up, not the submission
        return failed(job.student, job.assignment, str(error), NO_SANDBOX)
    except Exception as error:  # noqa: BLE001 (reported for this student; the run goes on)
        return failed(job.student, job.assignment, repr(error))


def graded(submissions, prepare, executor, in_flight, grade=safe_grade):
    """Yields (submission, result) for every submission, each student exactly once.

    `prepare(submission)` reads one submission into a Job, here; `in_flight()`
    is how many jobs to hand out at once now (it may change on a cluster), so
    that only those are held in memory.
    A submission that cannot be read, or whose worker failed, gets an error
    result for that student only.
    """
    pending = {}
    remaining = iter(submissions)
    exhausted = False
    recorded = set()
    while True:
        while not exhausted and len(pending) < max(1, in_flight()):
            submission = next(remaining, None)
            if submission is None:
                exhausted = True
                break
            try:
                job = prepare(submission)
                pending[executor.submit(grade, job)] = submission
            except Exception as error:  # noqa: BLE001 (this student only; the run goes on)
                if submission.student not in recorded:
                    recorded.add(submission.student)
                    yield submission, failed(submission.student, submission.assignment,
                                             repr(error))
        if not pending:
            return
        done, _ = concurrent.futures.wait(pending, timeout=5,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        for future in done:
            submission = pending.pop(future)
            try:
                result = future.result()
            except Exception as error:  # noqa: BLE001 (a worker died: this student only)
                result = failed(submission.student, submission.assignment,
                                f"the grading worker process failed ({error!r})")
            if submission.student in recorded:  # the same student twice: recorded once
                continue
            recorded.add(submission.student)
            yield submission, result


class InlineExecutor(concurrent.futures.Executor):
    """Runs each call in this process when it is submitted: `--jobs 1` starts nothing."""

    def submit(self, fn, /, *args, **kwargs):
        future = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as error:  # noqa: BLE001 (handed to the caller like a pool would)
            future.set_exception(error)
        return future


# --- Dask -------------------------------------------------------------------

_one_at_a_time = threading.Lock()
_work_root = None


def grade_on_worker(job):
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
        return safe_grade(job)


@contextlib.contextmanager
def dask_cluster(address, wait=CONNECT_SECONDS):
    """(executor, in_flight, slots) on the Dask cluster whose scheduler is at `address`.

    Raises CourseError when the scheduler cannot be reached within `wait`
    seconds, or when no worker has joined it within `wait` seconds more.
    """
    try:
        from distributed import Client
    except ImportError as error:
        raise CourseError(f"--scheduler needs the dask and distributed packages ({error}): "
                          "run `make setup`") from None
    try:
        client = Client(address, timeout=wait, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise CourseError(
            f"could not reach the Dask scheduler at {address} within {wait:g} s ({error}). "
            "Check that `dask scheduler` is running there, that the address and port are "
            "right (tcp://HOST:8786 by default) and that this machine may connect to it") from None
    try:
        try:
            client.wait_for_workers(1, timeout=wait)
        except TimeoutError:
            raise CourseError(
                f"no Dask worker joined the scheduler at {address} within {wait:g} s: start "
                f"workers with `dask worker {address} --nthreads 1 --nworkers N` on machines "
                "with the course's Python environment and bubblewrap") from None
        crowded = sorted(w for w, n in client.nthreads().items() if n > 1)
        if crowded:
            print(f"warning: Dask workers with more than one thread grade one student at a "
                  f"time each (start them with --nthreads 1): {', '.join(crowded)}",
                  file=sys.stderr)

        def slots():
            return sum(client.nthreads().values())

        def in_flight():
            return JOBS_IN_FLIGHT_PER_SLOT * slots()

        executor = client.get_executor(pure=False)
        yield executor, in_flight, slots
    finally:
        client.close()
