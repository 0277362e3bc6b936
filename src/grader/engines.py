"""Where students are graded: a pool of forked processes on this machine, or a Dask cluster.

Both are `concurrent.futures` executors, and `graded` is the one path a run
takes through either. It reads each submission into a Job just
before handing it out, keeps a bounded number in flight, and yields results
as they come back.

- `--jobs N` (1 too): a `ProcessPoolExecutor` of N forked processes, while the
  single writer records in the grader's own process, on another core. Forking is cheap
  (the grader's modules are already imported) and the processes live for the
  whole run, so what a worker keeps between students (a warm template, its
  checkers) is reused. A local Dask cluster would add a scheduler and spawned
  workers that import everything again, for no gain on one machine.
- `--scheduler ADDRESS`: the workers of a Dask cluster (`dask worker ADDRESS
  --nthreads 1`). They get each job as data and need no course folder. A worker
  lost mid-run is replaced by Dask, which runs its tasks again elsewhere; a
  result that arrives twice is recorded once.
"""

import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
import sys

from .results import grader_failed
from .settings import CourseError
from .worker import adopt_templates, grade_on_worker, grade_safely

JOBS_IN_FLIGHT_PER_SLOT = 2  # jobs handed out per Dask worker slot, read just in time
CONNECT_SECONDS = 30  # default wait for the scheduler, and then for a first worker


@contextlib.contextmanager
def engine(jobs: int = 1, scheduler: str | None = None, wait: float | None = None) -> object:
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
    context = multiprocessing.get_context("fork")
    channels = context.SimpleQueue()  # each worker's control channel of the machine's templates
    for channel in range(1, workers + 1):
        channels.put(channel)
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context,
                                                initializer=start_worker,
                                                initargs=(os.getpid(), channels)) as pool:
        yield pool, lambda: 2 * workers, f"{workers} at a time", grade_safely


def start_worker(grader_pid: int, channels: object) -> None:
    """Worker start-up: if the grader is killed, its workers (and their sandboxes) die too;
    the worker takes a control channel of its own of the templates the grader started."""
    import ctypes

    pr_set_pdeathsig = 1  # Linux prctl option
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != grader_pid:  # the grader died before the line above took effect
        os._exit(1)
    adopt_templates(channels.get())


def graded(submissions: list, prepare: object, executor: object, in_flight: object,
           grade: object = grade_safely) -> object:
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
                    yield submission, grader_failed(submission.student, submission.assignment,
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
                result = grader_failed(submission.student, submission.assignment,
                                f"the grading worker process failed ({error!r})")
            if submission.student in recorded:  # the same student twice: recorded once
                continue
            recorded.add(submission.student)
            yield submission, result


@contextlib.contextmanager
def dask_cluster(address: str, wait: float = CONNECT_SECONDS) -> object:
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
