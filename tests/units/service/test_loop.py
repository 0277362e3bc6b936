"""The service's loop on its own: a fake engine (threads, no sandbox) and a fake store.

No notebook is graded: a hand-in's "grade" is a function of its student, its result
recorded by a fake writer that answers as the real one does (a grader failure is not
recorded), and the store is a dict of jobs with leases.
"""

import concurrent.futures
import contextlib
import dataclasses
import datetime
import os
import threading
import time
import types

import pytest
from traitlets.config import Config

from grader.engines import Engine
from grader.plan import HandIn
from grader.results import CheckResult, CheckStatus, NotebookResult, NotebookStatus, StudentResult
from grader.service import EventHub, GradeEvent, JobSource, JobState, QueuedJob
from grader.service.after import due_feedback, settled
from grader.service.queue import loop
from grader.service.queue.release_watch import release_digest

ASSIGNMENT = "hw1"
UTC = datetime.timezone.utc
WAIT = 10.0  # the longest any test waits for the loop


class FakeStore:
    """The jobs of a queue in a dict: claims under a lease (one that ran out is claimable
    again, as the real store's), retries, releases; what went on, in `said`."""

    def __init__(self, students, max_attempts=3):
        self.lock = threading.Lock()
        self.max_attempts = max_attempts
        self.jobs_by_id = {}
        self.leases = {}  # job id -> (worker, lease until: monotonic)
        self.lapsed = []  # the job ids whose lease ran out while a worker held them
        self.graded_against = {}  # job id -> the digest of the release it was graded against
        self.heartbeats = 0
        self.released_feedback = []
        for student in students:
            self.add(student)

    def add(self, student, assignment=ASSIGNMENT):
        with self.lock:
            job_id = len(self.jobs_by_id) + 1
            self.jobs_by_id[job_id] = QueuedJob(
                job_id, student, assignment, f"digest-{job_id}", JobSource("exchange:inbound"),
                JobState.WAITING, 0, datetime.datetime(2026, 12, 1, tzinfo=UTC), None, None,
                None, [], "")
            return job_id

    def change(self, job_id, **fields):
        self.jobs_by_id[job_id] = dataclasses.replace(self.jobs_by_id[job_id], **fields)

    def take_back(self, host, itself=""):
        return []

    def claim(self, worker, lease_seconds):
        with self.lock:
            now = time.monotonic()
            for job_id, (_, until) in list(self.leases.items()):
                if until < now:  # ran out: the job is claimable again
                    self.lapsed.append(job_id)
                    del self.leases[job_id]
                    self.change(job_id, state=JobState.WAITING)
            for job in sorted(self.jobs_by_id.values(), key=lambda j: j.id):
                if job.state == JobState.WAITING:
                    self.change(job.id, state=JobState.GRADING, attempts=job.attempts + 1)
                    self.leases[job.id] = (worker, now + lease_seconds)
                    return self.jobs_by_id[job.id]
            return None

    def heartbeat(self, job_id, worker, lease_seconds=60.0):
        with self.lock:
            self.heartbeats += 1
            if self.leases.get(job_id, ("",))[0] != worker:
                return False
            self.leases[job_id] = (worker, time.monotonic() + lease_seconds)
            return True

    def release(self, job_id, worker, reason=""):
        with self.lock:
            self.leases.pop(job_id, None)
            self.change(job_id, state=JobState.WAITING, reason=reason)
            return True

    def retry(self, job_id, reason):
        with self.lock:
            self.leases.pop(job_id, None)
            job = self.jobs_by_id[job_id]
            state = JobState.FAILED if job.attempts >= self.max_attempts else JobState.WAITING
            self.change(job_id, state=state, reason=reason)
            return self.jobs_by_id[job_id]

    def finish(self, job_id, state, score=None, max_score=None, checks=None, reason="",
               release=""):
        with self.lock:
            self.leases.pop(job_id, None)
            self.change(job_id, state=JobState(state), score=score, max_score=max_score,
                        checks=list(checks or []), reason=reason,
                        graded=datetime.datetime.now(UTC))
            self.graded_against[job_id] = release
            return self.jobs_by_id[job_id]

    def files(self, job):
        return {"hw1.ipynb": b"{}"}

    def jobs(self, student=None, assignment=None):
        with self.lock:
            return sorted(self.jobs_by_id.values(), key=lambda j: j.id)

    def job(self, job_id):
        return self.jobs_by_id[job_id]

    def releases(self):
        return [types.SimpleNamespace(job_id=j) for j in self.released_feedback]

    def record_release(self, job, outcome, now):
        self.released_feedback.append(job.id)

    def releases_graded(self):
        return dict(self.graded_against)

    def sent_scores(self, target):
        return {}

    def record_sent(self, student, assignment, target, score, now=None):
        pass


class FakeWriter:
    """The assignment's single writer: each result recorded, save a grader failure, which
    it returns as the real Writer returns its RecordingFailure."""

    recorded = []  # (student, points) of every result recorded, across writers

    def __init__(self, settings, assignment):
        self.assignment = assignment

    def start(self):
        pass

    def record(self, hand_in, result):
        if result.status == "grader failed":
            return "not recorded"
        FakeWriter.recorded.append((hand_in.student, result.points))
        return None

    def finish(self):
        pass


def result_of(student, points):
    check = CheckResult("q1", points, 2.0, CheckStatus.PASSED if points == 2 else
                        CheckStatus.FAILED, "")
    return StudentResult(student, ASSIGNMENT, notebooks=[
        NotebookResult("hw1", NotebookStatus.GRADED, tests=[check])])


@pytest.fixture
def served(monkeypatch, tmp_path):
    """A loop set up on fakes: (settings, releases texts by version, engines entered)."""
    FakeWriter.recorded = []
    releases = [{"hw1.ipynb": "version 1"}]
    entered = []
    grades = {"grade": lambda student: result_of(student, 2.0)}

    def released(settings, before=None):
        return {ASSIGNMENT: types.SimpleNamespace(instructor_texts=dict(releases[-1]))}

    @contextlib.contextmanager
    def fake_engine(workers, scheduler, tls_folder=None):
        entered.append(releases[-1]["hw1.ipynb"])
        with concurrent.futures.ThreadPoolExecutor(1) as executor:
            yield Engine(executor, lambda: 1, "on fake threads",
                         lambda job: grades["grade"](job[1]))

    def placed(settings, job, files, notebooks):
        return HandIn(job.student, job.assignment, str(tmp_path / job.student), {})

    for name, value in {
            "remove_left_overs": lambda *a: [], "close_templates": lambda: None,
            "private_work_root": contextlib.nullcontext, "prepare_machine": lambda *a: None,
            "released_assignments": released, "engine": fake_engine, "Writer": FakeWriter,
            "place_in_submitted": placed, "refusal": lambda settings, hand_in: None,
            "read_job": lambda assignment, student, folder: (assignment, student),
            "begin": lambda *a: None, "announce": lambda *a: None, "seen": lambda *a: None,
            "stop_the_gone": lambda *a: None}.items():
        monkeypatch.setattr(loop, name, value)
    config = Config()
    config.GradingService.release_check_seconds = 0.05
    config.GradingService.stop_seconds = 1.0
    settings = types.SimpleNamespace(config=config, gradebook_retry_seconds=1.0,
                                     assignments=[ASSIGNMENT], root=str(tmp_path),
                                     instructor_notebooks=lambda assignment: {})
    return types.SimpleNamespace(settings=settings, releases=releases, entered=entered,
                                 grades=grades, watch=FakeWatch())


class FakeWatch:
    """release/ watched: `changes` once `change` is set, until taken."""

    def __init__(self):
        self.changes = []
        self.next = []

    def changed(self):
        if self.next:
            self.changes, self.next = self.next, []
            return True
        return False

    def taken(self):
        self.changes = []


def serving(served, monkeypatch, store, until, **options):
    """Run the loop on `store` in a thread until `until()` holds (or WAIT), then stop it;
    returns the Service."""
    monkeypatch.setattr(loop, "ReleaseWatch", lambda settings: served.watch)
    service = loop.Service(served.settings, store, **options)
    stop = threading.Event()
    thread = threading.Thread(target=service.serve, args=(stop,), daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT
    while not until() and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    thread.join(WAIT)
    assert not thread.is_alive(), "the loop did not stop once its stop was set"
    return service


def final(store):
    return all(job.state not in (JobState.WAITING, JobState.GRADING) for job in store.jobs())


def test_a_job_is_claimed_graded_and_recorded_with_its_release_and_graded_emitted(
        served, monkeypatch):
    store = FakeStore(["ada"])
    hub = EventHub()
    seen = []
    hub.subscribe(GradeEvent.GRADED, lambda happened: seen.append(happened))
    served.grades["grade"] = lambda student: result_of(student, 1.0)
    serving(served, monkeypatch, store, lambda: final(store), hub=hub)
    [job] = store.jobs()
    assert (job.state, job.score, job.max_score, job.attempts) == (JobState.GRADED, 1.0, 2.0, 1)
    assert [(c.grade_id, c.passed, c.points) for c in job.checks] == [("q1", False, 1.0)]
    assert store.graded_against == {job.id: release_digest({"hw1.ipynb": "version 1"})}
    assert FakeWriter.recorded == [("ada", 1.0)]
    assert [(h.event, h.job.id, h.job.state, h.job.score) for h in seen] == [
        (GradeEvent.GRADED, job.id, JobState.GRADED, 1.0)]
    assert store.leases == {}


def test_a_grader_failure_is_retried_not_recorded_and_the_loop_grades_the_next(
        served, monkeypatch):
    store = FakeStore(["ada", "bob"], max_attempts=1)

    def grade(student):
        if student == "ada":
            raise RuntimeError("the worker fell over")
        return result_of(student, 2.0)

    served.grades["grade"] = grade
    serving(served, monkeypatch, store, lambda: final(store))
    ada, bob = store.jobs()
    assert ada.state == JobState.FAILED and "the worker fell over" in ada.reason
    assert ada.score is None  # nothing recorded of it
    assert (bob.state, bob.score) == (JobState.GRADED, 2.0)
    assert FakeWriter.recorded == [("bob", 2.0)]


def test_a_new_release_is_switched_to_while_it_runs_and_later_hand_ins_graded_against_it(
        served, monkeypatch):
    store = FakeStore(["ada"])
    told = []

    class Watching:
        def threads(self, stop):
            return []

        def serving(self, prepared, changed):
            told.append((sorted(prepared), list(changed)))
            return []

    def after_first():  # ada graded: a new release, then bob hands in
        if store.jobs()[0].state == JobState.GRADED and len(store.jobs()) == 1:
            served.releases.append({"hw1.ipynb": "version 2"})
            served.watch.next = [ASSIGNMENT]
            store.add("bob")
        return len(store.jobs()) == 2 and final(store)

    serving(served, monkeypatch, store, after_first, add_ons=[Watching()])
    ada, bob = store.jobs()
    assert store.graded_against == {ada.id: release_digest({"hw1.ipynb": "version 1"}),
                                    bob.id: release_digest({"hw1.ipynb": "version 2"})}
    assert served.entered[:2] == ["version 1", "version 2"]  # a new engine for the new one
    assert told[:2] == [([ASSIGNMENT], []), ([ASSIGNMENT], [ASSIGNMENT])]


def test_the_lease_of_a_grading_longer_than_it_is_kept_and_never_runs_out(served, monkeypatch):
    store = FakeStore(["ada"])
    slow = threading.Event()

    def grade(student):
        slow.wait(0.8)  # four times the lease
        return result_of(student, 2.0)

    served.grades["grade"] = grade
    serving(served, monkeypatch, store, lambda: final(store), lease_seconds=0.2)
    [ada] = store.jobs()
    assert (ada.state, ada.attempts) == (JobState.GRADED, 1)  # claimed once, never again
    assert store.lapsed == [] and store.heartbeats >= 3
    assert FakeWriter.recorded == [("ada", 2.0)]


def test_a_stop_records_the_grading_in_flight_and_leaves_the_rest_waiting(served, monkeypatch):
    store = FakeStore(["ada", "bob"])
    started, go_on = threading.Event(), threading.Event()

    def grade(student):
        started.set()
        go_on.wait(WAIT)
        return result_of(student, 2.0)

    served.grades["grade"] = grade

    def stop_once_started():
        if started.is_set():
            threading.Timer(0.2, go_on.set).start()  # finishes after the stop
            return True
        return False

    serving(served, monkeypatch, store, stop_once_started)
    ada, bob = store.jobs()
    assert (ada.state, ada.score) == (JobState.GRADED, 2.0)  # in flight: finished, recorded
    assert bob.state == JobState.WAITING and store.leases == {}  # never claimed, or given back
    assert FakeWriter.recorded == [("ada", 2.0)]


def test_each_event_of_a_hand_in_through_the_loop_is_seen_once_in_order(
        served, monkeypatch, tmp_path):
    """graded (the loop), settled (the one poller: due date passed, nothing pending) and
    released (the feedback given out), once each, for a hand-in graded by the loop."""
    store = FakeStore(["ada"])
    served.settings.config.HubTransport.transport = "http"  # the page shows it: no exchange
    served.settings.feedback = str(tmp_path / "feedback")
    served.settings.autograded = str(tmp_path / "autograded")
    served.settings.db_url = "sqlite:///nowhere.db"
    served.settings.course_id = "course"
    served.settings.config.GradingService.feedback_check_seconds = 0.05  # its own ticks too
    past = datetime.datetime(2026, 12, 1, tzinfo=UTC)
    reads = []
    monkeypatch.setattr(due_feedback, "due_dates", lambda settings, pairs: reads.append(
        "dues") or {pair: past for pair in pairs})
    monkeypatch.setattr(due_feedback, "recorded_grades",
                        lambda settings, assignments: reads.append("grades") or {})

    def nbgrader(command, folder):
        if "generate_feedback" in command:
            os.makedirs(os.path.join(served.settings.feedback, "ada", ASSIGNMENT))
            with open(os.path.join(served.settings.feedback, "ada", ASSIGNMENT, "hw1.html"),
                      "w", encoding="utf-8") as page:
                page.write("<p>feedback</p>")
        return 0, ""

    hub = EventHub()
    seen = []
    for event in GradeEvent:
        hub.subscribe(event, lambda happened: seen.append((happened.event, happened.job.id)))
    after = settled.AfterGrading(served.settings, store, hub, run=nbgrader)
    service = serving(served, monkeypatch, store, lambda: final(store), hub=hub,
                      add_ons=[after])
    assert after.poller.readers and after.poller.assignments == {ASSIGNMENT}
    assert [h for h in seen] == [(GradeEvent.GRADED, 1)]
    for _ in range(3):  # the poller's ticks: the events come once
        after.poller.tick(datetime.datetime(2026, 12, 2, tzinfo=UTC))
    assert seen == [(GradeEvent.GRADED, 1), (GradeEvent.SETTLED, 1), (GradeEvent.RELEASED, 1)]
    assert store.released_feedback == [1]
    assert service.held == {} and after.poller.looks >= 3
