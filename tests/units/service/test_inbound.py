"""Hand-ins taken from the exchange's inbound folder: each complete folder once, and one
the queue's database could not take (its server down) taken when it is back."""

import os

from grader.service import JobState, Store, take_inbound
from grader.service.queue_database import QueueUnreachable
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
        assert take_inbound(store, inbound, known) == []
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
    made = take_inbound(store, inbound, known)
    assert len(made) == 1 and take_inbound(store, inbound, known) == []
    job = store.job(made[0])
    assert (job.student, job.assignment, job.state, job.source) == (
        "ada", "tiny", JobState.WAITING, "exchange:" + os.path.basename(folder))
    assert store.files(job)["tiny.ipynb"] == NOTEBOOK
    assert sorted(store.files(job)) == ["submission_secret.txt", "timestamp.txt", "tiny.ipynb"]
