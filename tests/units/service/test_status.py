"""Whether the grading service is warm, as the queue's database keeps it (status.py): a
service is `starting` until its templates are ready, then `warm` with the time, then
`stopped` with why; one whose process is gone, or that was not seen for longer than its
lease, is shown `gone`. `grader queue` prints it above its table; `queue --status`
prints it alone and exits 0 only when a service is warm."""

import datetime
import json
import os

import pytest

from grader.cli import main
from grader.service import MAX_ATTEMPTS, Store, course_store
from grader.service.queue.status import (ServiceState, announce, begin, host_prefix, seen, services,
                                   stop_the_gone)

HERE = host_prefix()
ALIVE = f"{HERE}{os.getpid()}"  # this test's process: alive
DEAD = f"{HERE}99999999"  # above any process id Linux hands out


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return Store(str(tmp_path / "service" / "queue.db"))
    return Store(request.getfixturevalue("postgres_database"), MAX_ATTEMPTS,
                 blobs=str(tmp_path / "service" / "blobs"))


def states(store, now=None):
    return [(status.name, status.state, status.detail) for status in services(store, HERE, now)]


def test_a_service_is_starting_then_warm_with_the_time_then_stopped(store):
    begin(store, ALIVE, "preparing the templates and checks")
    assert states(store) == [(ALIVE, ServiceState.STARTING,
                              "preparing the templates and checks")]
    before = datetime.datetime.now(datetime.timezone.utc)
    announce(store, ALIVE, ServiceState.WARM, "tiny: 2 at a time")
    [warm] = services(store, HERE)
    assert (warm.state, warm.detail) == (ServiceState.WARM, "tiny: 2 at a time")
    assert warm.started <= before <= warm.since
    assert warm.line() == (f"service {ALIVE}: warm since "
                           f"{warm.since.isoformat().replace('+00:00', 'Z')} (tiny: 2 at a time)")
    announce(store, ALIVE, ServiceState.STOPPED, "stopped")
    assert states(store) == [(ALIVE, ServiceState.STOPPED, "stopped")]


def test_a_new_service_clears_the_stopped_ones_and_the_killed_ones_are_marked(store):
    begin(store, f"{HERE}1")  # process 1 is always alive
    announce(store, f"{HERE}1", ServiceState.STOPPED, "stopped")
    assert states(store) == [(f"{HERE}1", ServiceState.STOPPED, "stopped")]
    begin(store, DEAD)  # a new service: the stopped one cleared
    announce(store, DEAD, ServiceState.WARM, "tiny")
    [gone] = services(store, HERE)
    assert (gone.name, gone.state, gone.state_before) == (DEAD, ServiceState.GONE, "warm")
    assert "gone (last seen " in gone.line()
    begin(store, ALIVE)  # as serve does: then the killed ones marked
    stop_the_gone(store, HERE)
    assert states(store) == [
        (DEAD, ServiceState.STOPPED,
         "ended while warm without saying it stopped (killed, or its queue failed)"),
        (ALIVE, ServiceState.STARTING, "")]


def test_a_service_with_the_process_id_of_a_killed_one_replaces_its_row(store):
    begin(store, ALIVE)
    announce(store, ALIVE, ServiceState.WARM, "tiny")
    [killed] = services(store, HERE)
    begin(store, ALIVE, "preparing")  # the same host and process id, after a restart
    [new] = services(store, HERE)
    assert (new.state, new.detail) == (ServiceState.STARTING, "preparing")
    assert new.started >= killed.since


def test_a_service_not_seen_for_longer_than_its_lease_is_gone_and_its_heartbeat_keeps_it(
        store):
    other_host = "another-host:123"  # its process cannot be looked at from here
    announce(store, other_host, ServiceState.WARM)  # not begun: no row, nothing written
    assert services(store, HERE) == []
    begin(store, other_host, lease_seconds=60.0)
    announce(store, other_host, ServiceState.WARM, "tiny")
    [status] = services(store, HERE)
    last = status.seen.timestamp()
    assert [s.state for s in services(store, HERE, now=last + 59)] == [ServiceState.WARM]
    assert [s.state for s in services(store, HERE, now=last + 61)] == [ServiceState.GONE]
    seen(store, other_host)
    [again] = services(store, HERE)
    assert again.seen >= status.seen and again.state == ServiceState.WARM


def course_with_service(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.submitted_directory = 'course-data/submitted'\n")
    return course_store(str(tmp_path / "course-data"))


def test_queue_status_exits_0_only_when_a_service_is_warm(tmp_path, capsys):
    store = course_with_service(tmp_path)
    assert main(["queue", "--status", "--course", str(tmp_path)]) == 1
    assert capsys.readouterr().out == "service: never started on this queue\n"
    begin(store, ALIVE, "preparing the templates and checks")
    assert main(["queue", "--status", "--json", "--course", str(tmp_path)]) == 1
    [starting] = json.loads(capsys.readouterr().out)
    assert (starting["service"], starting["state"], starting["detail"]) == (
        ALIVE, "starting", "preparing the templates and checks")
    assert sorted(starting) == ["detail", "seen", "service", "since", "started", "state"]
    announce(store, ALIVE, ServiceState.WARM, "tiny: 1 at a time")
    assert main(["queue", "--status", "--course", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith(f"service {ALIVE}: warm since ")
    assert main(["queue", "--json", "--course", str(tmp_path)]) == 0  # the jobs, as before
    assert json.loads(capsys.readouterr().out) == []
