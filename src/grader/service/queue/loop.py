"""The service's loop: jobs claimed from the store, graded by one engine kept warm, recorded.

`serve` runs until `stop` is set (SIGTERM, SIGINT). It prepares every released
assignment (templates and checks, before the workers are forked), keeps ONE
engine for as long as the releases stay the same and feeds it through a
`HandInQueue`: a claimer
thread leases jobs from the store as the engine has room, a heartbeat thread
keeps their leases, and each result is recorded through the assignment's
single `Writer` as soon as it comes back, then the job finished. Stopping:
nothing more is claimed, the jobs not handed out yet go back to the queue
(their leases released), the gradings in flight finish and are recorded, and
the work folders are removed. A service killed outright leaves leases that run
out, or that the next service on this machine takes back at once.

Each hand-in recorded in the gradebook is announced on the service's `EventHub`
(`graded`, events.py); the add-ons given (service/after/: the feedback and the
pushes) run beside the loop and are told each set of releases it grades against.
``serving.py`` assembles them (`run_service`); this module imports no other room.
"""

import dataclasses
import multiprocessing
import os
import queue
import shutil
import sys
import threading
from collections.abc import Sequence

from ...dask_tls import TLS_FOLDER
from ...engines import EngineBroken, HandInQueue, engine
from ...plan import HandIn, refusal, refused_result
from ...recording import Writer
from ...results import CheckStatus, StudentResult, StudentStatus
from ...safe_text import writable
from ...settings import GradingService, Settings
from ...worker import (Assignment, Job, close_templates, prepare_machine, private_work_root,
                      read_job, remove_left_overs)
from .events import AddOn, EventHub, GradeEvent
from .queue_health import QueueHealth
from .release_watch import (ReleaseWatch, release_digest, release_folder, released_assignments,
                            watch_releases)
from .records import CheckRecord, JobState, QueuedJob
from .status import ServiceState, announce, begin, host_prefix, seen, stop_the_gone
from .store import Store, StoreError
from .submitted import place_in_submitted

LEASE_SECONDS = 60.0  # a claimed job's lease, renewed every LEASE_SECONDS / 4
IDLE_SECONDS = 0.5  # the claimer's wait when the store has nothing to grade


@dataclasses.dataclass(frozen=True)
class Claimed:
    """A job leased from the store and its hand-in in submitted/, as the engine grades it."""

    job: QueuedJob
    hand_in: HandIn

    @property
    def student(self) -> str:
        return self.job.student

    @property
    def assignment(self) -> str:
        return self.job.assignment


def worker_name() -> str:
    """This service's name on its leases: host and process id."""
    return f"{host_prefix()}{os.getpid()}"


def check_records(result: StudentResult) -> list[CheckRecord]:
    """Each check's result, as the store keeps it."""
    return [CheckRecord(t.grade_id, t.status == CheckStatus.PASSED, t.points, t.max_points,
                        t.message) for nb in result.notebooks for t in nb.tests]


class Service:
    """One grading service of a course: its store, its engine and what it holds now."""

    def __init__(self, settings: Settings, store: Store, workers: int = 1,
                 scheduler: str | None = None, lease_seconds: float = LEASE_SECONDS,
                 hub: EventHub | None = None, add_ons: Sequence[AddOn] = ()):
        self.settings, self.store = settings, store
        self.hub = hub or EventHub()  # `graded` emitted here, as each result is recorded
        self.add_ons = list(add_ons)  # run beside the loop (service/after/: after-grading)
        self.workers, self.scheduler, self.lease_seconds = max(1, workers), scheduler, lease_seconds
        self.name = worker_name()
        self.held: dict[int, QueuedJob] = {}  # claimed and not finished, by job id
        self.lock = threading.Lock()  # held
        # the writers (the claimer records refusals): a gradebook waited for while it
        # restarts holds only this, not the claimer's and the heartbeat's `lock`
        self.writing = threading.Lock()
        self.writers: dict[str, Writer] = {}
        self.prepared: dict[str, Assignment] = {}
        self.looked_at: set[str] = set()  # the assignments of solutions/ when last prepared
        self.handed_in_for: set[str] = set()  # released since then, and handed in already
        self.ending = threading.Event()  # set: the releases graded now are left (a new one)
        self.worker_lost = ""  # why the engine broke (a worker process died), until replaced
        self.abandoned = threading.Event()  # set: stopping, what is in flight given back
        # after a stop, how long what is in flight may take to finish
        self.stop_seconds = GradingService(config=settings.config).stop_seconds
        # whether the queue answers (queue_health.py): a failure that lasts stops the service
        self.health = QueueHealth(store, threading.Event(), settings.gradebook_retry_seconds)

    def serve(self, stop: threading.Event, room: int | None = None) -> None:
        """Grade every hand-in the store has and gets, until `stop` is set; a release that
        changes (or an assignment released since) is switched to between gradings."""
        remove_left_overs()
        if self.health.stop is not stop:
            self.health = QueueHealth(self.store, stop, self.settings.gradebook_retry_seconds)
        host = self.name.rpartition(":")[0] + ":"
        # leases of dead services here, and of one that had this service's name
        self.health.persist(lambda: self.store.take_back(host, self.name))
        self.health.persist(lambda: begin(self.store, self.name, "preparing the templates and "
                                          "checks", self.lease_seconds))
        self.health.persist(lambda: stop_the_gone(self.store, host))  # killed ones, shown so
        chosen = GradingService(config=self.settings.config)
        watch = ReleaseWatch(self.settings)
        threads = [threading.Thread(target=self.keep_leases, args=(stop,), name="heartbeat",
                                    daemon=True),
                   *(thread for add_on in self.add_ons for thread in add_on.threads(stop))]
        changed: list[str] = []  # the assignments whose new release is being prepared
        with private_work_root():
            try:
                for thread in threads:
                    thread.start()
                while not stop.is_set():
                    self.looked_at = set(self.settings.assignments)
                    self.prepared = released_assignments(self.settings, self.prepared)
                    for add_on in self.add_ons:
                        for line in add_on.serving(self.prepared, changed):
                            print(f"serve: {line}", file=sys.stderr, flush=True)
                    self.grade_release(stop, watch, chosen.release_check_seconds, room)
                    changed = []
                    if stop.is_set():
                        break
                    if self.worker_lost:
                        print(f"serve: a grading worker process died ({self.worker_lost}): "
                              "the workers and their templates are started again; the "
                              "hand-ins it held are graded by them", file=sys.stderr,
                              flush=True)
                        self.worker_lost = ""
                        self.announce(ServiceState.STARTING, "starting its workers again")
                    elif names := sorted(set(watch.changes) | self.handed_in_for):
                        changed = names
                        print(f"serve: a new release of {', '.join(names)}: the gradings in "
                              "flight are recorded; preparing it, the hand-ins waiting are "
                              "graded against it", file=sys.stderr, flush=True)
                        watch.taken()
                        self.handed_in_for = set()
                        self.announce(ServiceState.STARTING,
                                      f"preparing the new release of {', '.join(names)}")
                    close_templates()  # started again for the new engine, before its workers
                    remove_left_overs()  # what a worker that died left: cgroups, folders
                for thread in threads:
                    thread.join(timeout=30)
            finally:
                self.give_back_held("the service stopped before grading it")
                close_templates()
                remove_left_overs()  # what a worker stopped on the way out left

    def grade_release(self, stop: threading.Event, watch: ReleaseWatch, every: float,
                      room: int | None = None) -> None:
        """Grade against the releases prepared now until `stop` is set or a release changes:
        then nothing more is claimed, the jobs not handed out go back to the queue, and the
        gradings in flight finish and are recorded."""
        self.ending = ending = threading.Event()
        waiting: queue.Queue[Claimed] = queue.Queue()
        hand_ins: HandInQueue[Claimed] = HandInQueue(waiting)
        try:
            if not self.scheduler:
                for assignment in self.prepared.values():
                    prepare_machine(assignment, self.workers)
            with engine(self.workers, self.scheduler,
                        tls_folder=os.path.join(self.settings.root, TLS_FOLDER)) as grading:
                for name in self.prepared:
                    self.writers[name] = Writer(self.settings, name)
                    self.writers[name].start()
                serving = f"{', '.join(self.prepared) or 'no assignment'}: {grading.where}"
                print(f"serving {serving}", file=sys.stderr, flush=True)
                self.announce(ServiceState.WARM, serving)  # templates and checks ready
                threads = [threading.Thread(target=self.claim_jobs, name="claimer", daemon=True,
                                            args=(ending, waiting, hand_ins,
                                                  room or grading.in_flight())),
                           threading.Thread(target=watch_releases, name="releases", daemon=True,
                                            args=(watch, stop, ending, every))]
                for thread in threads:
                    thread.start()
                try:
                    for claimed, result in grading.graded(hand_ins, self.read,
                                                          stop_when_broken=True):
                        self.record(claimed, result)
                except EngineBroken as broken:
                    ending.set()
                    self.engine_broken(broken)
                for thread in threads:
                    thread.join(timeout=30)
        finally:
            ending.set()
            with self.writing:
                for writer in self.writers.values():
                    writer.finish()
                self.writers = {}

    def engine_broken(self, broken: EngineBroken) -> None:
        """A worker process died (the OOM killer, a crash, a stop past its time): the
        hand-ins being graded go back to the queue with that attempt counted (one of them
        may be the cause: three and it ends failed), the others as if never claimed; the
        serve loop then starts a new engine (unless the service is stopping)."""
        self.worker_lost = str(broken)
        reason = f"its grading worker process died ({broken})"
        for claimed in broken.in_flight:
            if self.abandoned.is_set():
                self.give_back(claimed.job.id, "the service stopped before grading it")
            else:
                self.retry(claimed.job, reason)
        for claimed in broken.not_started:
            self.give_back(claimed.job.id, "its grading worker process died before grading it")

    def abandon(self) -> None:
        """A stop that waited too long: every job held goes back to the queue, and the
        workers are stopped (SIGTERM: each stops its student's sandbox, removes its cgroups
        and ends), so that the gradings in flight end now."""
        self.abandoned.set()
        self.give_back_held("the service stopped before grading it")
        for worker in multiprocessing.active_children():
            worker.terminate()

    def read(self, claimed: Claimed) -> Job:
        """The worker's Job of a claimed hand-in, read from submitted/ as the batch reads it."""
        return read_job(self.prepared[claimed.assignment], claimed.student,
                        claimed.hand_in.submitted_dir)

    def claim_jobs(self, stop: threading.Event, waiting: "queue.Queue[Claimed]",
                   hand_ins: HandInQueue[Claimed], room: int) -> None:
        """Lease jobs while the engine has room; at `stop`, give back those not handed out
        and close the queue."""
        try:
            while not stop.is_set():
                with self.lock:
                    full = len(self.held) >= room
                job = None if full else self.health.persist(
                    lambda: self.store.claim(self.name, self.lease_seconds))
                if job is None:
                    stop.wait(IDLE_SECONDS)
                    continue
                claimed = self.placed(job)
                if claimed is not None:
                    hand_ins.put(claimed)
        finally:
            while True:
                try:
                    claimed = waiting.get_nowait()
                except queue.Empty:
                    break
                if isinstance(claimed, Claimed):
                    self.give_back(claimed.job.id, "the service stopped before grading it")
            hand_ins.close()

    def placed(self, job: QueuedJob) -> Claimed | None:
        """A claimed job written into submitted/, held; None when it is refused (recorded)."""
        with self.lock:
            self.held[job.id] = job
        if job.assignment not in self.prepared and self.released_since(job.assignment):
            self.give_back(job.id, "its assignment was released after the service prepared")
            self.handed_in_for.add(job.assignment)
            self.ending.set()  # prepared at once, then graded
            return None
        if job.assignment not in self.prepared:
            self.finish(job, JobState.REFUSED, reason=f"{job.assignment!r} is not an "
                        f"assignment this service grades ({', '.join(self.prepared) or 'none'})")
            return None
        notebooks = self.settings.instructor_notebooks(job.assignment)
        try:
            hand_in = place_in_submitted(self.settings, job, self.store.files(job), notebooks)
        except (OSError, StoreError) as error:
            self.finish(job, JobState.REFUSED, reason=f"not graded: {error}")
            return None
        reason = refusal(self.settings, hand_in)
        if reason:
            self.record(Claimed(job, hand_in), refused_result(hand_in, reason))
            return None
        return Claimed(job, hand_in)

    def released_since(self, assignment: str) -> bool:
        """Whether `assignment` was released after the releases graded now were prepared
        (solutions/ did not have it then, release/ has it now)."""
        return (assignment not in self.looked_at and assignment in self.settings.assignments
                and os.path.isdir(release_folder(self.settings, assignment)))

    def record(self, claimed: Claimed, result: StudentResult) -> None:
        """A result into the gradebook through the assignment's writer, then the job finished;
        a check's only into its job (never the gradebook), its folder removed; none once the
        service abandoned what was in flight (given back, graded next time)."""
        if self.abandoned.is_set():
            return
        if claimed.job.is_check:
            self.finish_check(claimed, result)
            return
        with self.writing:
            failed = self.writers[claimed.assignment].record(claimed.hand_in, result)
        job = claimed.job
        if failed is not None:
            self.retry(job, result.error or "the grader failed while recording it")
        else:
            self.finish_graded(job, result)

    def finish_graded(self, job: QueuedJob, result: StudentResult) -> None:
        """A job graded (or refused by the grader) finished with its result and the digest
        of the release it was graded against."""
        release = release_digest(self.prepared[job.assignment].instructor_texts)
        refused = result.status == StudentStatus.REFUSED
        state = JobState.REFUSED if refused else JobState.GRADED
        with self.hub.ordering:
            self.finish(job, state, result.points, result.max_points, check_records(result),
                        "; ".join(result.notes) if refused else "", release)
            if not job.is_check:  # in the gradebook now (a check never is)
                self.hub.emit(GradeEvent.GRADED, dataclasses.replace(
                    job, state=state, score=result.points, max_score=result.max_points,
                    checks=check_records(result)))

    def finish_check(self, claimed: Claimed, result: StudentResult) -> None:
        """A check's result kept on its job alone: what the student sees, nothing graded."""
        job = claimed.job
        if result.status in (StudentStatus.GRADER_FAILED, StudentStatus.NO_SANDBOX):
            self.retry(job, result.error or "the grader failed on it")
        else:
            self.finish_graded(job, result)
        shutil.rmtree(claimed.hand_in.submitted_dir, ignore_errors=True)

    def finish(self, job: QueuedJob, state: JobState, score: float | None = None,
               max_score: float | None = None, checks: list[CheckRecord] | None = None,
               reason: str = "", release: str = "") -> None:
        self.health.persist(lambda: self.store.finish(job.id, state, score, max_score, checks,
                                                      reason, release))
        with self.lock:
            self.held.pop(job.id, None)

    def retry(self, job: QueuedJob, reason: str) -> None:
        self.health.persist(lambda: self.store.retry(job.id, writable(reason)))
        with self.lock:
            self.held.pop(job.id, None)

    def give_back(self, job_id: int, reason: str) -> None:
        self.health.persist(lambda: self.store.release(job_id, self.name, reason))
        with self.lock:
            self.held.pop(job_id, None)

    def give_back_held(self, reason: str) -> None:
        """Every job still held back to the queue (a service stopping early)."""
        with self.lock:
            held = list(self.held)
        for job_id in held:
            self.give_back(job_id, reason)

    def announce(self, state: ServiceState, detail: str) -> None:
        """Write the service's state into the queue (status.py: `grader queue` shows it)."""
        self.health.persist(lambda: announce(self.store, self.name, state, detail))

    def keep_leases(self, stop: threading.Event) -> None:
        """Renew the lease of every job held, every quarter lease, and say the service is
        alive, until `stop` is set."""
        while not stop.wait(self.lease_seconds / 4):
            self.health.persist(lambda: seen(self.store, self.name))
            with self.lock:
                held = list(self.held)
            for job_id in held:
                self.health.persist(lambda: self.store.heartbeat(job_id, self.name,
                                                                 self.lease_seconds))
