"""Hand-ins taken from the exchange's inbound folder: each complete folder once, and one
the queue's database could not take (its server down) taken when it is back; one in another
student's name refused, its arrival the time it reached the exchange."""

import os
import pwd
import time

from grader.service import JobState, Store, take_inbound
from grader.service.queue.queue_database import QueueUnreachable
from testsupport.service import exchange_submit

NOTEBOOK = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'


def test_a_folder_the_queue_could_not_take_is_taken_once_its_database_is_back(
        postgres_server, postgres_database, tmp_path):
    store = Store(postgres_database, blobs=str(tmp_path / "service" / "blobs"))
    course = str(tmp_path / "course")
    folder = exchange_submit(course, "tinycourse", "ada", "tiny", {"tiny.ipynb": NOTEBOOK},
                             "2026-01-15 12:00:00.000000 UTC")
    inbound = os.path.dirname(folder)
    known: set[str] = set()
    postgres_server.halt()
    try:
        assert take_inbound(store, inbound, known, check_owner=False) == []
        assert known == set()  # not given up: looked at again
        try:
            store.jobs()
        except QueueUnreachable as error:
            assert str(error).startswith("the service's queue cannot open postgresql")
            assert postgres_server.password not in str(error)
        else:
            raise AssertionError("a stopped PostgreSQL server was read")
    finally:
        postgres_server.resume()
    made = take_inbound(store, inbound, known, check_owner=False)
    assert len(made) == 1 and take_inbound(store, inbound, known, check_owner=False) == []
    job = store.job(made[0])
    assert (job.student, job.assignment, job.state, job.source) == (
        "ada", "tiny", JobState.WAITING, "exchange:" + os.path.basename(folder))
    assert store.files(job)["tiny.ipynb"] == NOTEBOOK
    assert sorted(store.files(job)) == ["submission_secret.txt", "timestamp.txt", "tiny.ipynb"]


def test_a_folder_in_another_students_name_is_refused_and_its_arrival_cannot_be_set_back(
        tmp_path, capsys):
    store = Store(str(tmp_path / "service" / "queue.db"))
    course = str(tmp_path / "course")
    me = pwd.getpwuid(os.getuid()).pw_name
    started = time.time()
    theirs = exchange_submit(course, "tinycourse", "bob", "tiny", {"tiny.ipynb": NOTEBOOK},
                             "2026-12-01 16:55:00.000000 UTC")
    mine = exchange_submit(course, "tinycourse", me, "tiny", {"tiny.ipynb": NOTEBOOK},
                           "2026-12-01 16:55:00.000000 UTC")
    for folder in (theirs, mine):  # the student sets every time back by a day
        for path in [folder] + [os.path.join(folder, n) for n in os.listdir(folder)]:
            os.utime(path, (started - 86400, started - 86400))
    made = take_inbound(store, os.path.dirname(theirs), set())
    by_student = {store.job(i).student: store.job(i) for i in made}
    assert by_student["bob"].state == JobState.REFUSED
    assert by_student["bob"].reason == (f"refused: it claims to be handed in by bob but is "
                                        f"owned by {me} (a hand-in in another student's "
                                        "name?); not graded")
    assert "claims to be handed in by bob" in capsys.readouterr().err
    assert by_student[me].state == JobState.WAITING
    assert by_student[me].arrived.timestamp() >= started - 1  # its ctime, not the mtime set
