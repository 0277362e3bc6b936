"""The service's durable queue: bytes stored first, jobs claimed under a lease, each state
change one transaction, duplicates and workers that die recorded as such.

Every test of a store runs on both of its databases: an SQLite file, and a new database
on the test run's PostgreSQL server (tests/conftest.py's `postgres_server`)."""

import datetime
import multiprocessing
import os
import stat
import subprocess
import threading
import time

import pytest

from grader.service import (MAX_ATTEMPTS, CheckRecord, JobSource, JobState, ReleaseOutcome,
                            SourceKind, Store, StoreError, course_store)

NOTEBOOK = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'
OTHER = b'{"cells": [], "metadata": {"edited": true}, "nbformat": 4, "nbformat_minor": 5}\n'


@pytest.fixture(params=["sqlite", "postgresql"])
def make_store(request, tmp_path):
    """Stores on one queue: `make_store(max_attempts)` opens it (again)."""
    if request.param == "sqlite":
        where, blobs = str(tmp_path / "service" / "queue.db"), None
    else:
        where, blobs = request.getfixturevalue("postgres_database"), str(
            tmp_path / "service" / "blobs")
    return lambda max_attempts=MAX_ATTEMPTS: Store(where, max_attempts, blobs=blobs)


@pytest.fixture
def store(make_store):
    return make_store()


def test_a_hand_in_waits_with_its_bytes_stored_by_their_digest(store):
    arrived = datetime.datetime(2026, 12, 1, 16, 59, tzinfo=datetime.timezone.utc)
    job = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit", arrived)
    assert (job.student, job.assignment, job.source, job.state, job.attempts) == (
        "ada", "tiny", "submit", JobState.WAITING, 0)
    assert job.arrived == arrived and job.graded is None and job.score is None
    assert store.files(job) == {"tiny.ipynb": NOTEBOOK}
    assert store.jobs() == [job]
    import hashlib
    blob = hashlib.sha256(NOTEBOOK).hexdigest()
    assert os.path.isfile(os.path.join(store.blobs, blob[:2], blob))


def test_students_cannot_read_the_queue_or_the_bytes(store):
    store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    modes = {}
    for folder, _, names in os.walk(os.path.dirname(store.blobs)):
        modes[folder] = stat.S_IMODE(os.stat(folder).st_mode)
        for name in names:
            modes[os.path.join(folder, name)] = stat.S_IMODE(os.stat(os.path.join(folder, name))
                                                             .st_mode)
    folders = {p: m for p, m in modes.items() if os.path.isdir(p)}
    assert set(folders.values()) == {0o700}
    blobs = [m for p, m in modes.items() if p.startswith(store.blobs) and os.path.isfile(p)]
    assert blobs == [0o600]
    if store.path.endswith(".db"):  # the SQLite file; a PostgreSQL server keeps its own
        assert modes[store.path] == 0o600


def test_the_same_bytes_again_are_a_duplicate_and_other_bytes_a_new_hand_in(store):
    first = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    again = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    other_student = store.hand_in("bob", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    edited = store.hand_in("ada", "tiny", {"tiny.ipynb": OTHER}, "submit")
    back_to_first = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    assert again.state == JobState.DUPLICATE and again.reason == f"the same files as hand-in {first.id}"
    assert [j.state for j in (other_student, edited, back_to_first)] == [JobState.WAITING] * 3
    assert [j.id for j in store.jobs(student="ada")] == [first.id, again.id, edited.id,
                                                          back_to_first.id]


def test_bad_file_names_are_refused_before_anything_is_stored(store):
    for name in ("../escape.ipynb", "/abs.ipynb", "a//b.ipynb"):
        with pytest.raises(StoreError, match="not a plain relative path"):
            store.hand_in("ada", "tiny", {name: NOTEBOOK}, "submit")
    with pytest.raises(StoreError, match="no files"):
        store.hand_in("ada", "tiny", {}, "submit")
    assert store.jobs() == []


def test_a_database_other_than_sqlite_or_postgresql_is_refused_with_what_is_taken(tmp_path):
    with pytest.raises(StoreError, match=r"an SQLite file, an sqlite:/// URL or a PostgreSQL "
                       r"URL, not mysql:// \(mysql://grader:\*\*\*@localhost/gradebook\)"):
        Store("mysql://grader:secret@localhost/gradebook", blobs=str(tmp_path))
    with pytest.raises(StoreError) as raised:
        Store("postgresql://grader:secret@localhost:port/gradebook", blobs=str(tmp_path))
    assert str(raised.value).startswith("the service's queue cannot use postgresql+psycopg2://"
                                        "grader:***@localhost:port/gradebook: ")
    assert "secret" not in str(raised.value)


def test_an_unreachable_postgresql_is_named_without_its_password(tmp_path):
    from testsupport.network import free_port

    url = f"postgresql://grader:secret@127.0.0.1:{free_port()}/gradebook"
    with pytest.raises(StoreError) as raised:
        Store(url, blobs=str(tmp_path / "blobs"))
    message = str(raised.value)
    assert message.startswith("the service's queue cannot open postgresql+psycopg2://grader:"
                              f"***@127.0.0.1:{url.split(':')[3].split('/')[0]}/gradebook: ")
    assert "secret" not in message and "refused" in message
    with pytest.raises(StoreError, match="needs the folder of its blobs"):
        Store(url)


def test_a_wrong_postgresql_password_or_database_is_named_without_the_password(
        postgres_server, postgres_database, tmp_path):
    wrong_password = postgres_database.replace(postgres_server.password, "not-the-password")
    with pytest.raises(StoreError, match=r"cannot open postgresql\+psycopg2://postgres:\*\*\*@"
                       r".*password authentication failed for user \"postgres\""):
        Store(wrong_password, blobs=str(tmp_path / "blobs"))
    no_database = postgres_database.rsplit("/", 1)[0] + "/no_such_gradebook"
    with pytest.raises(StoreError, match=r"/no_such_gradebook: .*\"no_such_gradebook\" does not "
                       r"exist") as raised:
        Store(no_database, blobs=str(tmp_path / "blobs"))
    assert postgres_server.password not in str(raised.value)


def test_on_postgresql_the_queue_is_in_its_own_schema_of_the_gradebooks_database(
        postgres_server, postgres_database, tmp_path):
    data = tmp_path / "course-data"
    store = course_store(str(data), postgres_database)
    job = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    assert store.blobs == str(data / "service" / "blobs") and store.files(job) == {
        "tiny.ipynb": NOTEBOOK}
    assert not (data / "service" / "queue.db").exists()
    with postgres_server.connect(postgres_database.rsplit("/", 1)[1]) as connection:
        with connection.cursor() as cursor:
            cursor.execute("SELECT table_schema, table_name FROM information_schema.tables "
                           "WHERE table_name = 'jobs'")
            assert cursor.fetchall() == [("grader_service", "jobs")]
            cursor.execute("SELECT student, state FROM grader_service.jobs")
            assert cursor.fetchall() == [("ada", "waiting")]
    assert course_store(str(data), postgres_database).jobs() == [job]
    assert course_store(str(tmp_path / "other"), "sqlite:///gradebook.db").path == str(
        tmp_path / "other" / "service" / "queue.db")


def test_a_claim_leases_the_oldest_waiting_job_and_finish_records_its_grade(store):
    first = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    second = store.hand_in("bob", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    claimed = store.claim("w1", lease_seconds=60)
    assert (claimed.id, claimed.state, claimed.attempts) == (first.id, JobState.GRADING, 1)
    assert store.claim("w2", lease_seconds=60).id == second.id
    assert store.claim("w3", lease_seconds=60) is None
    checks = [CheckRecord("double_visible", True, 1.0, 1.0, ""),
              CheckRecord("double_hidden", False, 0.0, 2.0, "double(21) should be 42")]
    done = store.finish(first.id, JobState.GRADED, 1.0, 3.0, checks, "")
    assert (done.state, done.score, done.max_score, done.checks) == (
        JobState.GRADED, 1.0, 3.0, checks)
    assert done.graded.tzinfo == datetime.timezone.utc
    with pytest.raises(StoreError, match="final state"):
        store.finish(second.id, JobState.WAITING)


def test_a_students_second_hand_in_waits_until_the_first_is_graded(store):
    first = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    assert store.claim("w1", 60).id == first.id
    second = store.hand_in("ada", "tiny", {"tiny.ipynb": OTHER}, "submit")
    assert store.claim("w2", 60) is None
    store.finish(first.id, JobState.GRADED, 6.0, 6.0, [])
    assert store.claim("w2", 60).id == second.id


def test_an_expired_lease_is_claimed_again_and_counted_until_the_job_fails(make_store):
    store = make_store(max_attempts=2)
    job = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    assert store.claim("w1", lease_seconds=0.01).attempts == 1
    time.sleep(0.05)  # the lease runs out: w1 died
    again = store.claim("w2", lease_seconds=0.01)
    assert (again.id, again.attempts) == (job.id, 2)
    assert store.heartbeat(job.id, "w1") is False
    time.sleep(0.05)
    assert store.claim("w3", lease_seconds=60) is None
    failed = store.job(job.id)
    assert failed.state == JobState.FAILED and "stopped 2 times" in failed.reason


def test_a_heartbeat_keeps_the_lease_and_a_release_gives_the_job_back_uncounted(store):
    job = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    store.claim("w1", lease_seconds=0.2)
    assert store.heartbeat(job.id, "w1", lease_seconds=60)
    time.sleep(0.3)
    assert store.claim("w2", 60) is None  # the heartbeat kept it
    assert store.release(job.id, "w2") is False
    assert store.release(job.id, "w1", "the service stopped") is True
    back = store.job(job.id)
    assert (back.state, back.attempts, back.reason) == (JobState.WAITING, 0,
                                                        "the service stopped")


def test_take_back_ends_at_once_the_leases_of_this_machines_dead_workers_only(store):
    dead = subprocess.Popen(["true"])
    dead.wait()
    workers = {"ada": f"host_a:{dead.pid}", "bob": f"host_a:{os.getpid()}",
               "cy": f"hostXa:{dead.pid}", "dee": f"other:{dead.pid}"}
    jobs = {}
    for student, worker in workers.items():
        jobs[student] = store.hand_in(student, "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
        assert store.claim(worker, lease_seconds=600).id == jobs[student].id
    assert store.take_back("host_a:") == [jobs["ada"].id]  # _ is no wildcard
    again = store.claim("host_a:1", lease_seconds=600)
    assert (again.id, again.attempts) == (jobs["ada"].id, 2)
    assert store.claim("host_a:1", lease_seconds=600) is None


def test_a_job_whose_lease_ran_out_is_never_handed_to_the_worker_grading_it(store):
    job = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    store.claim("w1", lease_seconds=0.01)
    time.sleep(0.05)  # no heartbeat went through (the database restarted): w1 still grades it
    assert store.claim("w1", lease_seconds=60) is None
    assert store.heartbeat(job.id, "w1", lease_seconds=60)  # its next heartbeat keeps it
    store.finish(job.id, JobState.GRADED, 6.0, 6.0, [])
    assert store.job(job.id).attempts == 1


def test_a_service_with_the_name_of_a_killed_one_takes_back_its_jobs(store):
    job = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    itself = f"host_a:{os.getpid()}"  # alive: a new service with the process id used again
    store.claim(itself, lease_seconds=600)
    assert store.take_back("host_a:") == []
    assert store.take_back("host_a:", itself) == [job.id]
    again = store.claim(itself, lease_seconds=600)
    assert (again.id, again.attempts) == (job.id, 2)


def test_a_failed_grading_is_retried_then_ends_failed_with_its_reason(make_store):
    store = make_store(max_attempts=2)
    job = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    store.claim("w1", 60)
    assert store.retry(job.id, "the worker crashed").state == JobState.WAITING
    store.claim("w1", 60)
    ended = store.retry(job.id, "the worker crashed")
    assert (ended.state, ended.reason) == (JobState.FAILED,
                                           "the worker crashed (after 2 attempts)")
    assert ended.graded is not None


def test_claims_from_many_threads_hand_out_each_job_once(store):
    for n in range(20):
        store.hand_in(f"s{n:02d}", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    claimed, lock = [], threading.Lock()

    def worker(name):
        while (job := store.claim(name, 60)) is not None:
            with lock:
                claimed.append(job.id)

    threads = [threading.Thread(target=worker, args=(f"w{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(claimed) == [j.id for j in store.jobs()]


def claim_all(store, worker, claimed):
    while (job := store.claim(worker, 60)) is not None:
        claimed.put(job.id)


def test_claims_from_many_processes_hand_out_each_job_once(store):
    context = multiprocessing.get_context("fork")
    for n in range(20):
        store.hand_in(f"s{n:02d}", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    claimed = context.Queue()
    processes = [context.Process(target=claim_all, args=(store, f"p{n}", claimed))
                 for n in range(3)]
    for process in processes:
        process.start()
    ids = [claimed.get(timeout=60) for _ in range(20)]
    for process in processes:
        process.join(timeout=60)
    assert [p.exitcode for p in processes] == [0, 0, 0]
    assert sorted(ids) == [j.id for j in store.jobs()]
    assert {j.state for j in store.jobs()} == {JobState.GRADING}


def test_a_second_store_on_the_same_queue_sees_the_same_jobs(make_store):
    job = make_store().hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "exchange:ada+tiny+x")
    again = make_store()
    assert again.jobs() == [job]
    assert again.known_sources("exchange:") == {"exchange:ada+tiny+x"}
    assert again.known_sources("exchange_") == again.known_sources("Exchange:") == set()
    assert again.known_sources("exchange:ada+tiny+x") == {"exchange:ada+tiny+x"}


def test_a_sources_kind_and_a_releases_outcome_are_read_back_from_the_words_stored(make_store):
    store = make_store()
    sources = [JobSource.of(SourceKind.EXCHANGE, "ada+tiny+2026-12-01"),
               JobSource.of(SourceKind.ZIP, "download.zip"), JobSource.of(SourceKind.CHECK),
               "submit"]  # the last a program's own word, as a test or a benchmark hands in
    jobs = [store.hand_in(student, "tiny", {"tiny.ipynb": NOTEBOOK}, source)
            for student, source in zip("abcd", sources)]
    read = {job.student: job.source for job in make_store().jobs()}
    assert [(read[s].kind, read[s].where) for s in "abcd"] == [
        (SourceKind.EXCHANGE, "ada+tiny+2026-12-01"), (SourceKind.ZIP, "download.zip"),
        (SourceKind.CHECK, ""), (SourceKind.OTHER, "")]
    # stored as the words an older queue holds
    assert [read[s] for s in "abcd"] == ["exchange:ada+tiny+2026-12-01", "zip:download.zip",
                                         "check", "submit"]
    store.record_release(jobs[0], ReleaseOutcome.NOT_THROUGH_EXCHANGE)
    [release] = make_store().releases()
    assert release.outcome is ReleaseOutcome.NOT_THROUGH_EXCHANGE and release.outcome == "listed"


def test_what_root_stores_belongs_to_the_owner_of_the_courses_data(tmp_path):
    """The hub's page runs as root; the grading service, as the course's owner, must read
    what the page stored (here the owner is nobody, 65534)."""
    if os.geteuid() != 0:
        pytest.fail("this test checks what root writes: it runs as root, as make test does")
    data = tmp_path / "course-data"
    data.mkdir()
    os.chown(data, 65534, 65534)
    store = Store(str(data / "service" / "queue.db"))
    job = store.hand_in("ann", "tiny", {"tiny.ipynb": b"{}"}, "check")
    blob = next(p for p in (data / "service" / "blobs").rglob("*") if p.is_file())
    for path in (data / "service", data / "service" / "queue.db", blob.parent, blob):
        assert os.stat(path).st_uid == 65534, path
    assert store.files(job) == {"tiny.ipynb": b"{}"}


def test_a_feedback_release_is_recorded_once_per_hand_in_and_read_back_by_another_store(
        make_store):
    store = make_store()
    job = store.hand_in("ada", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    first = datetime.datetime(2026, 12, 1, 17, 0, 1, tzinfo=datetime.timezone.utc)
    store.record_release(job, "exchange", first)
    store.record_release(job, "listed", first + datetime.timedelta(minutes=1))
    [release] = make_store().releases()
    assert (release.job_id, release.student, release.assignment, release.digest,
            release.released, release.outcome) == (job.id, "ada", "tiny", job.digest, first,
                                                   "exchange")


def test_a_check_is_never_the_duplicate_of_a_submission_nor_a_submission_of_a_check(store):
    checked = store.hand_in("ann", "tiny", {"tiny.ipynb": NOTEBOOK}, "check")
    submitted = store.hand_in("ann", "tiny", {"tiny.ipynb": NOTEBOOK}, "exchange:ann+tiny+1")
    assert (checked.state, submitted.state) == (JobState.WAITING, JobState.WAITING)
    assert (checked.is_check, submitted.is_check) == (True, False)
    again = store.hand_in("ann", "tiny", {"tiny.ipynb": NOTEBOOK}, "check")
    assert again.state == JobState.DUPLICATE and again.reason == f"the same files as hand-in {checked.id}"
    resubmitted = store.hand_in("ann", "tiny", {"tiny.ipynb": NOTEBOOK}, "exchange:ann+tiny+2")
    assert resubmitted.reason == f"the same files as hand-in {submitted.id}"


def test_a_stored_hand_in_damaged_on_disk_is_refused_on_read_and_may_be_handed_in_again(store):
    job = store.hand_in("ann", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    digest = job.files["tiny.ipynb"]
    blob = os.path.join(store.blobs, digest[:2], digest)
    os.chmod(blob, 0o600)
    with open(blob, "r+b") as handle:
        handle.write(b"[")  # one byte changed by the disk
    with pytest.raises(StoreError, match=r"the stored copy of tiny.ipynb of hand-in \d+ is "
                       r"damaged on disk .*not graded: hand the same notebook in again"):
        store.files(job)
    store.claim("w", 60)
    store.finish(job.id, JobState.REFUSED, reason="not graded: damaged")
    again = store.hand_in("ann", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    assert again.state == JobState.WAITING  # not a duplicate of the damaged one
    assert store.files(again) == {"tiny.ipynb": NOTEBOOK}  # its bytes written again, whole


def test_a_job_refused_as_it_is_handed_in_is_final_at_once(store):
    job = store.hand_in("bob", "tiny", {"tiny.ipynb": NOTEBOOK}, "exchange:bob+tiny+1",
                        refused="refused: owned by ada")
    assert (job.state, job.reason) == (JobState.REFUSED, "refused: owned by ada")
    assert job.graded is not None and store.claim("w", 60) is None


def test_the_score_sent_and_the_release_graded_against_are_remembered(store):
    store.record_sent("ann", "tiny", "canvas", 5.0)
    store.record_sent("ann", "tiny", "canvas", 6.0)
    store.record_sent("ann", "tiny", "feedback", 5.0)
    assert store.sent_scores("canvas") == {("ann", "tiny"): 6.0}
    job = store.hand_in("ann", "tiny", {"tiny.ipynb": NOTEBOOK}, "submit")
    store.claim("w", 60)
    store.finish(job.id, JobState.GRADED, 6.0, 6.0, [], release="ab" * 32)
    assert store.releases_graded() == {job.id: "ab" * 32}
