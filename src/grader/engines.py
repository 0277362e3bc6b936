"""Where students are graded: a pool of forked processes on this machine, or a Dask cluster.

Both are `concurrent.futures` executors, and `graded` is the one path a run
takes through either. It takes each hand-in from a list (a batch run) or from
a queue that is fed while it grades (`HandInQueue`, or any `HandInSource`),
reads it into a Job just before handing it out, keeps a bounded number in
flight, and yields results as they come back, also while it waits for the
next hand-in. `engine` says where a run grades, as an `Engine`.

- `--jobs N` (1 too): a `ProcessPoolExecutor` of N forked processes, while the
  single writer records in the grader's own process, on another core. Forking is cheap
  (the grader's modules are already imported) and the processes live for the
  whole run, so what a worker keeps between students (a warm template, its
  checkers) is reused. A local Dask cluster would add a scheduler and spawned
  workers that import everything again, for no gain on one machine.
- `--scheduler ADDRESS`: the workers of a Dask cluster (`dask worker ADDRESS
  --nthreads 1`). They get each job as data and need no course folder. A worker
  lost mid-run is replaced by Dask, which runs its tasks again elsewhere; each
  hand-in's result is yielded once.

A local worker still grading one student past the bound of `Limits.student_seconds`
(a check's own code that never returns, which no notebook budget covers) writes its
stack to the grader's error output and ends. That, or a worker killed mid-run (the
OOM killer, a crash), breaks its whole pool: every later job would fail at once. A
batch reports the students in flight and those after them as failed (the same
command grades them again); a run that goes on (the grading service) asks `graded`
to raise `EngineBroken` instead, with the hand-ins it held, and starts a new engine.
"""

import concurrent.futures
import contextlib
import dataclasses
import faulthandler
import multiprocessing
import multiprocessing.queues
import multiprocessing.util
import os
import queue
import signal
import time
import types
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, Protocol, TypeVar, runtime_checkable

from .dask_tls import (CONNECT_SECONDS, TLS_FOLDER, cluster_security, dask_cluster,
                       refuse_plaintext)
from .results import StudentResult, grader_failed
from .worker import Job, adopt_templates, close_templates, grade_on_worker, grade_safely

RECHECK_SECONDS = 5.0  # longest wait for a result before the jobs in flight are counted again
QUEUE_POLL_SECONDS = 0.2  # while a queue may bring a hand-in: wait this long for a result at most
STOP_SECONDS = 30.0  # a run that stops early: how long its workers get to clean up
EXIT_ON_SIGTERM = 128 + signal.SIGTERM  # the exit status of a run ended by SIGTERM
_TERMINATED: list[int] = []  # the signal that is ending this process, once it came


class EngineBroken(Exception):
    """The engine's worker processes are gone (one was killed: the OOM killer, a crash),
    so it grades nothing more. `in_flight` were being graded when it broke (one of them
    perhaps the cause); `not_started` were taken and never handed to a worker."""

    def __init__(self, reason: str, in_flight: list, not_started: list):
        super().__init__(reason)
        self.in_flight, self.not_started = in_flight, not_started


class HandedIn(Protocol):
    """What `graded` reads of a hand-in itself: whose it is, of which assignment."""

    student: str
    assignment: str


H = TypeVar("H", bound=HandedIn)


@runtime_checkable
class HandInSource(Protocol[H]):
    """Where `graded` takes hand-ins from, one at a time, as they come."""

    def take(self, timeout: float) -> H | None:
        """The next hand-in, waiting for one up to `timeout` seconds (0: not at all);
        None when none came."""

    @property
    def closed(self) -> bool:
        """Whether every hand-in has been taken and no more will come."""


class HandInList(Generic[H]):
    """The hand-ins of a batch, taken in order, each student's first only: a run records
    a student once, so one listed twice is graded once."""

    def __init__(self, hand_ins: Iterable[H]):
        self._left = iter(hand_ins)
        self._taken: set[str] = set()
        self._closed = False

    def take(self, timeout: float = 0.0) -> H | None:
        """The next hand-in of a student not taken yet (never waits); None at the end."""
        for hand_in in self._left:
            if hand_in.student not in self._taken:
                self._taken.add(hand_in.student)
                return hand_in
        self._closed = True
        return None

    @property
    def closed(self) -> bool:
        """Whether the list is used up."""
        return self._closed


class HandInQueue(Generic[H]):
    """Hand-ins as they arrive: `put` each (from any thread), `close` when no more will come;
    one `graded` takes them.

    Unlike a batch's list, every hand-in is graded and gets its own result, a
    student's second as well as their first: a grading service takes each new
    hand-in of a student, and the one recorded last is the one handed in last
    (`graded` hands out a student's hand-ins one after another, in the order they
    were put).
    """

    _CLOSE = object()  # put by close: every hand-in before it has been taken

    def __init__(self, waiting: queue.Queue[H] | None = None):
        self._queue = waiting if waiting is not None else queue.Queue()
        self._closed = False

    def put(self, hand_in: H) -> None:
        """Hand in `hand_in` to be graded."""
        self._queue.put(hand_in)

    def close(self) -> None:
        """No more hand-ins: `graded` ends once those put before are graded."""
        self._queue.put(self._CLOSE)

    def take(self, timeout: float) -> H | None:
        """The next hand-in put, waiting for one up to `timeout` seconds; None when none
        came (or the queue was closed)."""
        if self._closed:
            return None
        try:
            hand_in = self._queue.get(timeout=timeout) if timeout > 0 else self._queue.get_nowait()
        except queue.Empty:
            return None
        if hand_in is self._CLOSE:
            self._closed = True
            return None
        return hand_in

    @property
    def closed(self) -> bool:
        """Whether the queue was closed and every hand-in put before has been taken."""
        return self._closed


@dataclasses.dataclass(frozen=True)
class Engine:
    """Where a run grades: the executor, how many jobs to hand out at once now (it may
    change on a cluster), where that is in words, and the task that grades one Job."""

    executor: concurrent.futures.Executor
    in_flight: Callable[[], int]
    where: str
    grade: Callable[[Job], StudentResult]

    def graded(self, hand_ins: Iterable[H] | HandInSource[H], prepare: Callable[[H], Job],
               stop_when_broken: bool = False) -> Iterator[tuple[H, StudentResult]]:
        """`graded` on this engine."""
        return graded(hand_ins, prepare, self.executor, self.in_flight, self.grade,
                      stop_when_broken)


@contextlib.contextmanager
def engine(jobs: int = 1, scheduler: str | None = None, wait: float | None = None,
           tls_folder: str | None = None, allow_plaintext: bool = False) -> Iterator[Engine]:
    """The Engine of --jobs N or --scheduler ADDRESS, for as long as the run lasts.

    One student is read ahead per local worker, two per Dask worker slot (the
    transfer overlaps the grading); --jobs 1 grades each as soon as it is read.
    A scheduler is reached over TLS with the certificates in `tls_folder`
    (dask_tls.py); a tcp:// one only with `allow_plaintext`.
    """
    if scheduler:
        refuse_plaintext(scheduler, allow_plaintext)
        security = cluster_security(tls_folder or TLS_FOLDER) if scheduler.startswith(
            "tls://") else None
        with dask_cluster(scheduler, wait or CONNECT_SECONDS, security) as (
                executor, in_flight, slots):
            yield Engine(executor, in_flight, f"on the Dask cluster at {scheduler} "
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
        try:
            yield Engine(pool, lambda: 2 * workers, f"{workers} at a time", grade_in_pool)
        except BaseException:
            stop_workers(pool)
            raise


@contextlib.contextmanager
def sigterm_as_exit() -> Iterator[None]:
    """While it lasts, SIGTERM ends this process (and the workers it forks, which inherit
    it) as SystemExit(EXIT_ON_SIGTERM) does: every `finally` runs on the way out, so the
    cgroups, folders and temporary files the process made are removed by it."""
    previous = signal.signal(signal.SIGTERM, exit_on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def exit_on_sigterm(number: int, frame: types.FrameType | None) -> None:
    """The SIGTERM handler: SystemExit the first time; later ones do not interrupt the
    clean-up the first one started."""
    if not _TERMINATED:
        _TERMINATED.append(number)
        raise SystemExit(EXIT_ON_SIGTERM)


def grade_in_pool(job: Job) -> StudentResult:
    """The task of a local worker: grade_safely, unless the worker is stopping. SIGTERM
    while it grades (the grader stopping it, or its pool broken) unwinds the grading, which
    stops the student's sandbox; then the worker removes its cgroups and ends, rather than
    wait for a next job that will not come."""
    if _TERMINATED:
        raise SystemExit(EXIT_ON_SIGTERM)
    # the bound on what no notebook's budget covers: from a thread of its own, which needs
    # no lock of this process, so a worker stuck inside native code ends too
    faulthandler.dump_traceback_later(
        job.assignment.limits.student_seconds(len(job.assignment.instructor_texts)),
        exit=True)
    try:
        return grade_safely(job)
    except SystemExit:
        if not _TERMINATED:
            raise
    finally:
        faulthandler.cancel_dump_traceback_later()
    close_templates()
    os._exit(EXIT_ON_SIGTERM)


def stop_workers(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """A run that stops early (an error, SIGTERM): the jobs not started are cancelled and
    each worker is sent SIGTERM, so it stops its student's sandbox and removes its cgroups
    itself; one still there after STOP_SECONDS is killed (the next start sweeps what it
    left)."""
    workers = multiprocessing.active_children()
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    deadline = time.monotonic() + STOP_SECONDS
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            worker.kill()
            worker.join(5)


def start_worker(grader_pid: int, channels: multiprocessing.queues.SimpleQueue[int]) -> None:
    """Worker start-up: if the grader is killed, its workers (and their sandboxes) die too;
    the worker takes a control channel of its own of the templates the grader started."""
    import ctypes

    pr_set_pdeathsig = 1  # Linux prctl option
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != grader_pid:  # the grader died before the line above took effect
        os._exit(1)
    # SIGTERM (stop_workers, a pool that broke) ends the worker cleanly, whatever handler
    # the grader's own process has (the service's only asks it to stop)
    signal.signal(signal.SIGTERM, exit_on_sigterm)
    adopt_templates(channels.get())
    # a pool's worker ends through multiprocessing, which skips atexit: its students'
    # cgroups are removed as it ends (normally, or on SIGTERM from stop_workers)
    multiprocessing.util.Finalize(None, close_templates, exitpriority=10)


def graded(hand_ins: Iterable[H] | HandInSource[H], prepare: Callable[[H], Job],
           executor: concurrent.futures.Executor, in_flight: Callable[[], int],
           grade: Callable[[Job], StudentResult] = grade_safely,
           stop_when_broken: bool = False) -> Iterator[tuple[H, StudentResult]]:
    """Yields (hand-in, result) for every hand-in, as each result comes back.

    `hand_ins` is a list (a batch: each student once, see HandInList) or a
    HandInSource such as a HandInQueue, which may make it wait for the next
    hand-in: while it waits, results that come back are yielded. A student's
    hand-ins are handed out one after another, in the order they were taken.
    `prepare(hand_in)` reads one hand-in into a Job, here; `in_flight()` is how
    many jobs to hand out at once now (it may change on a cluster), so that only
    those are held in memory. A hand-in that cannot be read, or whose worker
    failed, gets an error result for that student only; with `stop_when_broken`,
    an executor whose workers are gone raises EngineBroken instead, with every
    hand-in it holds, once the results that came back before are yielded.
    """
    source = hand_ins if isinstance(hand_ins, HandInSource) else HandInList(hand_ins)
    pending: dict[concurrent.futures.Future[StudentResult], H] = {}
    held: list[H] = []  # taken while the same student's last hand-in was still in flight
    while True:
        room = max(1, in_flight())
        while len(pending) < room:
            hand_in = next_hand_in(source, held, {h.student for h in pending.values()},
                                   0.0 if pending else RECHECK_SECONDS)
            if hand_in is None:
                break
            try:
                pending[executor.submit(grade, prepare(hand_in))] = hand_in
            except concurrent.futures.BrokenExecutor as error:
                if stop_when_broken:
                    raise EngineBroken(repr(error), list(pending.values()),
                                       [hand_in, *held]) from None
                yield hand_in, grader_failed(hand_in.student, hand_in.assignment, repr(error))
            except Exception as error:  # noqa: BLE001 (this student only; the run goes on)
                yield hand_in, grader_failed(hand_in.student, hand_in.assignment, repr(error))
        if not pending:
            if source.closed and not held:
                return
            continue  # nothing in flight: the next take waits for a hand-in
        more_may_come = not source.closed and len(pending) < room
        done, _ = concurrent.futures.wait(
            pending, timeout=QUEUE_POLL_SECONDS if more_may_come else RECHECK_SECONDS,
            return_when=concurrent.futures.FIRST_COMPLETED)
        broken: list[H] = []  # in flight when the executor broke (stop_when_broken)
        cause = ""
        for future in done:
            hand_in = pending.pop(future)
            try:
                result = future.result()
            except concurrent.futures.BrokenExecutor as error:
                if stop_when_broken:
                    broken.append(hand_in)
                    cause = repr(error)
                    continue
                result = grader_failed(hand_in.student, hand_in.assignment,
                                       f"the grading worker process failed ({error!r})")
            except Exception as error:  # noqa: BLE001 (a worker died: this student only)
                result = grader_failed(hand_in.student, hand_in.assignment,
                                       f"the grading worker process failed ({error!r})")
            yield hand_in, result
        if broken:
            raise EngineBroken(cause, broken + list(pending.values()), list(held))


def next_hand_in(source: HandInSource[H], held: list[H], busy: set[str],
                 timeout: float) -> H | None:
    """The next hand-in to hand out: the first of `held` whose student is not `busy` (has
    none in flight), else one taken from `source` (waiting up to `timeout` seconds for
    it); one of a busy student is added to `held`. None when there is none now."""
    for index, hand_in in enumerate(held):
        if hand_in.student not in busy:
            return held.pop(index)
    while True:
        hand_in = source.take(timeout)
        if hand_in is None or hand_in.student not in busy:
            return hand_in
        held.append(hand_in)
        timeout = 0.0
