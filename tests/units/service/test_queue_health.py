"""The service's queue in trouble (queue_health.py): said once, tried again, and over only
when a write goes through: an SQLite queue locked by another program is read still."""

import threading

import pytest

from grader.service import Store
from grader.service.queue import queue_health
from grader.service.queue.queue_database import QueueUnreachable
from grader.service.queue.queue_health import QueueHealth


@pytest.fixture
def health(tmp_path, monkeypatch):
    monkeypatch.setattr(queue_health, "PAUSE_SECONDS", 0.01)
    return QueueHealth(Store(str(tmp_path / "service" / "queue.db")), threading.Event(), 60)


def failing_once(result):
    calls = []

    def call():
        calls.append(1)
        if len(calls) == 1:
            raise QueueUnreachable("the service's queue q.db failed: database is locked")
        return result

    return call


def test_a_read_that_works_does_not_end_the_trouble_and_a_write_does(health, capsys):
    assert health.persist(failing_once("read"), reads=True) == "read"
    assert health.trouble_since is not None  # read, not written to: still locked
    assert health.persist(lambda: "read again", reads=True) == "read again"
    assert health.persist(failing_once("written")) == "written"
    assert health.trouble_since is None
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == ("serve: the service's queue q.db failed: database is locked; trying "
                        "again for up to 60 s")
    assert lines[1].startswith(f"serve: the service's queue {health.store.where} answers "
                               "again after ")
    assert len(lines) == 2  # the second failure, in the same trouble, is not said again


def test_once_the_service_gave_up_no_call_is_made(health):
    health.give_up("the queue is gone")
    made = []
    assert health.persist(lambda: made.append(1)) is None
    assert made == [] and health.stop.is_set()
