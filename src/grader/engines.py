"""Where students are graded: here, in a pool of local processes, or on a Dask cluster.

All three are `concurrent.futures` executors, and `graded` is the one path a run
takes through any of them: it reads each submission into a Job (plain data) just
before handing it out, keeps a bounded number of jobs in flight, and yields
(submission, result) as results come back, each student exactly once, to the
single writer in the grader's main process.

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
import sys
import threading
import time

from .grade import grade_student
from .sandbox import SandboxError, private_work_root, remove_stale_work_roots

JOBS_IN_FLIGHT_PER_SLOT = 2  # jobs handed out per Dask worker slot, read just in time
CONNECT_SECONDS = 30  # default wait for the scheduler, and then for a first worker


class EngineError(Exception):
    """The cluster cannot be used (unreachable scheduler, no workers): the instructor's to fix."""


def safe_grade(job):
    """grade_student, with the grader's own failures turned into a record, not a crash."""
    started = time.monotonic()
    try:
        record = grade_student(job)
    except SandboxError as error:  # the machine's set-up, not the submission
        return {"student": job.student, "assignment": job.assignment, "error": str(error),
                "sandbox": True}
    except Exception as error:  # noqa: BLE001 (reported for this student; the run goes on)
        return {"student": job.student, "assignment": job.assignment, "error": repr(error)}
    record["seconds"] = time.monotonic() - started
    return record


def failed(submission, message):
    return {"student": submission.student, "assignment": submission.assignment,
            "error": message}


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
                    yield submission, failed(submission, repr(error))
        if not pending:
            return
        done, _ = concurrent.futures.wait(pending, timeout=5,
                                          return_when=concurrent.futures.FIRST_COMPLETED)
        for future in done:
            submission = pending.pop(future)
            try:
                result = future.result()
            except Exception as error:  # noqa: BLE001 (a worker died: this student only)
                result = failed(submission, f"the grading worker process failed ({error!r})")
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
            remove_stale_work_roots()
            stack = contextlib.ExitStack()
            _work_root = stack.enter_context(private_work_root())
            atexit.register(stack.close)
        return safe_grade(job)


@contextlib.contextmanager
def dask_cluster(address, wait=CONNECT_SECONDS):
    """(executor, in_flight, slots) on the Dask cluster whose scheduler is at `address`.

    Raises EngineError when the scheduler cannot be reached within `wait`
    seconds, or when no worker has joined it within `wait` seconds more.
    """
    try:
        from distributed import Client
    except ImportError as error:
        raise EngineError(f"--scheduler needs the dask and distributed packages ({error}): "
                          "run `make setup`") from None
    try:
        client = Client(address, timeout=wait, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise EngineError(
            f"could not reach the Dask scheduler at {address} within {wait:g} s ({error}). "
            "Check that `dask scheduler` is running there, that the address and port are "
            "right (tcp://HOST:8786 by default) and that this machine may connect to it") from None
    try:
        try:
            client.wait_for_workers(1, timeout=wait)
        except TimeoutError:
            raise EngineError(
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
