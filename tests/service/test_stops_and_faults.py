"""The grading service when something stops under it: a worker process killed mid-grading,
SIGTERM during a long grading, kill -9 and a restart. Each time the hand-ins are graded (or
given back to the queue) and nothing of the service is left: no bubblewrap sandbox, no
cgroup, no work folder. The gradebook's PostgreSQL restarted under it: no thread of the
service dies, and each hand-in is graded once. Its SQLite queue locked by another program:
said once, waited for, and the service stopped naming it when the lock stays. And what it
says of itself: `queue --status` says starting until
its templates are ready, then warm, then stopped.

What is counted is the service's own: the processes whose environment holds the test's
TMPDIR (the service, its workers, their sandboxes), the cgroups named after a process of
its tree (testsupport.left_behind), and the grader's folders in that TMPDIR. Each test has a
copy of the tiny course of its own, whose checks may run for 60 s and whose service gives
the gradings in flight 2 s after SIGTERM.
"""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from nbgrader.api import Gradebook

from grader.service import JobState, course_store
from grader.service.queue.inbound import POLL_SECONDS
from testsupport.course import nbgrader_env
from testsupport.postgres import TemporaryPostgres
from testsupport.left_behind import ProcessTree, grader_cgroups, still_running, temporary_things
from testsupport.service import exchange_submit, start_service, stop_service, wait_until_final
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, make_course, released

DEADLINE = 300  # seconds to wait for a service to grade what it was given
DOUBLE = "def double(x):\n    return 2 * x\n"
SLOW = "import time\ntime.sleep(2)\n" + DOUBLE  # a grading of a few seconds
LONG = "import time\ntime.sleep(50)\n" + DOUBLE  # a grading longer than the stop allows
PATIENCE = 20  # c.GradebookWriter.retry_seconds of the lock test: a lock held longer stops it
# bubblewrap that starts no sandbox until the file GATE exists, except the trial one
# (`true`) that serve runs first: the service's templates wait for the test
GATED_BWRAP = """#!/bin/sh
for last; do :; done
if [ "$last" != true ]; then
    while [ ! -e '{gate}' ]; do sleep 0.1; done
fi
exec '{bwrap}' "$@"
"""


@pytest.fixture
def course(tmp_path):
    root = str(tmp_path / "course")
    make_course(root)
    with open(os.path.join(root, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write("c.Execute.timeout = 60\nc.GradingService.stop_seconds = 2\n")
    return root


@pytest.fixture
def tmpdir_of_service(tmp_path):
    folder = tmp_path / "service-tmp"
    folder.mkdir()
    return str(folder)


def hand_in(store, course, student, double=DOUBLE):
    notebook = json.dumps(correct(released(course), double_answer=double)).encode("utf-8")
    return store.hand_in(student, ASSIGNMENT, {NOTEBOOK + ".ipynb": notebook}, "submit")


def workers_of(service):
    """The ids of the service's worker processes: its children forked from it (the same
    command line), not its templates' bubblewrap."""
    try:
        with open(f"/proc/{service.pid}/cmdline", "rb") as handle:
            command = handle.read()
    except OSError:  # it ended (wait_for says so)
        return []
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                same = handle.read() == command
        except (OSError, IndexError, ValueError):
            continue
        if parent == service.pid and same:
            found.append(int(name))
    return found


def grading_started(service):
    """Whether a worker of the service grades a student: its cgroups, made for its first
    student's sandbox, are there (the service's own are its templates')."""
    return bool(grader_cgroups(set(workers_of(service))))


def wait_for(condition, service, what):
    """Poll `condition` until it holds; the test fails if the service ends or DEADLINE
    passes first."""
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert service.poll() is None, f"the service ended before {what}"
        assert time.monotonic() < deadline, f"no {what} within {DEADLINE} s"
        time.sleep(0.1)


def nothing_left(trees, tmpdir, course):
    """What the services followed by `trees` left: their cgroups, the grader's folders in
    `tmpdir` and temporary files in `course`, and their processes still running."""
    pids = set().union(*(tree.stop() for tree in trees))
    running = still_running(f"TMPDIR={tmpdir}")
    return grader_cgroups(pids) + temporary_things(tmpdir, course) + [
        f"process {pid} ({name})" for pid, name in sorted(running.items())]


def test_a_worker_killed_mid_grading_is_replaced_and_every_later_hand_in_is_graded(
        course, tmpdir_of_service, tmp_path):
    store = course_store(os.path.join(course, "course-data"))
    with open(tmp_path / "service.log", "wb") as log:
        service = start_service(course, "--workers", "1",
                                env_overrides={"TMPDIR": tmpdir_of_service}, log=log)
        tree = ProcessTree(service)
        try:
            slow = hand_in(store, course, "slowpoke", SLOW)
            wait_for(lambda: grading_started(service), service, "student's sandbox")
            for worker in workers_of(service):
                os.kill(worker, signal.SIGKILL)  # as the OOM killer does
            later = [hand_in(store, course, student) for student in ("ada", "bob", "cy")]
            jobs = wait_until_final(store, 4, time.monotonic() + DEADLINE, service)
        finally:
            status = stop_service(service, timeout=60)
    output = (tmp_path / "service.log").read_text(errors="replace")
    assert status == 0, output
    by_id = {job.id: job for job in jobs}
    assert [by_id[job.id].state for job in later] == [JobState.GRADED] * 3, output
    assert [by_id[job.id].score for job in later] == [6.0] * 3
    assert "a grading worker process died" in output
    # the hand-in whose worker was killed is graded again, that attempt counted
    assert (by_id[slow.id].state, by_id[slow.id].score, by_id[slow.id].attempts) == (
        JobState.GRADED, 6.0, 2), output
    assert nothing_left([tree], tmpdir_of_service, course) == []
    assert os.listdir(tmpdir_of_service) == []


def test_sigterm_during_a_long_grading_gives_it_back_and_leaves_nothing(
        course, tmpdir_of_service, tmp_path):
    store = course_store(os.path.join(course, "course-data"))
    with open(tmp_path / "service.log", "wb") as log:
        service = start_service(course, "--workers", "2",
                                env_overrides={"TMPDIR": tmpdir_of_service}, log=log)
        tree = ProcessTree(service)
        try:
            long = hand_in(store, course, "longer", LONG)
            wait_for(lambda: grading_started(service), service, "student's sandbox")
        finally:
            status = stop_service(service, timeout=120)
    output = (tmp_path / "service.log").read_text(errors="replace")
    assert status == 0, output
    assert "did not finish within 2 s: given back to the queue" in output
    job = store.job(long.id)
    assert (job.state, job.attempts, job.reason) == (
        JobState.WAITING, 0, "the service stopped before grading it")
    assert nothing_left([tree], tmpdir_of_service, course) == []
    assert os.listdir(tmpdir_of_service) == []


def test_a_kill_9_then_a_restart_then_sigterm_leave_nothing_of_either_service(
        course, tmpdir_of_service, tmp_path):
    store = course_store(os.path.join(course, "course-data"))
    students = ["kim", "lee", "max"]
    with open(tmp_path / "service.log", "wb") as log:
        first = start_service(course, "--workers", "2",
                              env_overrides={"TMPDIR": tmpdir_of_service}, log=log)
        trees = [ProcessTree(first)]
        try:
            made = [hand_in(store, course, student, SLOW) for student in students]
            wait_for(lambda: grading_started(first), first, "student's sandbox")
        finally:
            first.kill()
            first.wait()
        second = start_service(course, "--workers", "2",
                               env_overrides={"TMPDIR": tmpdir_of_service}, log=log)
        trees.append(ProcessTree(second))
        try:
            jobs = wait_until_final(store, len(made), time.monotonic() + DEADLINE, second)
        finally:
            status = stop_service(second, timeout=60)
    output = (tmp_path / "service.log").read_text(errors="replace")
    assert status == 0, output
    assert [job.state for job in jobs] == [JobState.GRADED] * 3, output
    assert nothing_left(trees, tmpdir_of_service, course) == []
    assert os.listdir(tmpdir_of_service) == []


def test_serve_without_bubblewrap_stops_at_once_with_one_line_naming_the_package(
        course, tmp_path):
    empty = tmp_path / "bin-without-bwrap"
    empty.mkdir()
    serve = subprocess.run([sys.executable, "-m", "grader", "serve", "--course", course],
                           env=nbgrader_env(PATH=str(empty)), capture_output=True, text=True,
                           timeout=120)
    assert serve.returncode == 2
    assert serve.stderr.splitlines() == [
        "error: bubblewrap (bwrap) is not installed: run `make grading-system` (the Debian "
        "package bubblewrap); student code never runs unsandboxed"]
    assert not os.path.exists(os.path.join(course, "course-data", "service"))


def test_a_queue_deleted_under_the_service_stops_it_at_once_naming_the_file(
        course, tmpdir_of_service, tmp_path):
    store = course_store(os.path.join(course, "course-data"))
    queue = os.path.join(course, "course-data", "service", "queue.db")
    with open(tmp_path / "service.log", "wb") as log:
        service = start_service(course, "--workers", "1",
                                env_overrides={"TMPDIR": tmpdir_of_service}, log=log)
        tree = ProcessTree(service)
        try:
            hand_in(store, course, "ada")
            assert wait_until_final(store, 1, time.monotonic() + DEADLINE, service)[0].state \
                == JobState.GRADED
            for path in (queue, queue + "-wal", queue + "-shm"):
                if os.path.exists(path):
                    os.remove(path)
            status = service.wait(timeout=DEADLINE)
        finally:
            if service.poll() is None:
                stop_service(service)
    output = (tmp_path / "service.log").read_text(errors="replace")
    assert status == 1, output
    assert "Traceback" not in output and output.count("no such table") <= 1, output
    assert f"serve: the service's queue {queue} is gone (deleted or emptied" in output
    assert "a new release of" not in output
    assert nothing_left([tree], tmpdir_of_service, course) == []


def service_status(course):
    """`python -m grader queue --status --json`: its exit status and the services listed."""
    done = subprocess.run([sys.executable, "-m", "grader", "queue", "--status", "--json",
                           "--course", course], env=nbgrader_env(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_queue_status_says_starting_until_the_templates_are_ready_then_warm_then_stopped(
        course, tmpdir_of_service, tmp_path):
    gate = tmp_path / "templates-may-start"
    gated = tmp_path / "gated-bin"
    gated.mkdir()
    (gated / "bwrap").write_text(GATED_BWRAP.format(gate=gate, bwrap=shutil.which("bwrap")))
    (gated / "bwrap").chmod(0o755)
    store = course_store(os.path.join(course, "course-data"))
    with open(tmp_path / "service.log", "wb") as log:
        service = start_service(course, "--workers", "1", log=log, env_overrides={
            "TMPDIR": tmpdir_of_service, "PATH": f"{gated}{os.pathsep}{os.environ['PATH']}"})
        tree = ProcessTree(service)
        try:
            wait_for(lambda: service_status(course)[1], service, "row of the service")
            status, [starting] = service_status(course)  # its templates wait for the gate
            assert (status, starting["state"], starting["detail"]) == (
                1, "starting", "preparing the templates and checks"), starting
            assert starting["service"].endswith(f":{service.pid}")
            gate.touch()
            wait_for(lambda: service_status(course)[0] == 0, service, "warm service")
            status, [warm] = service_status(course)
            assert (warm["service"], warm["state"], warm["detail"]) == (
                starting["service"], "warm", "tiny: 1 at a time"), warm
            assert warm["started"] == starting["started"] <= starting["since"] < warm["since"]
            graded = hand_in(store, course, "ada")
            assert wait_until_final(store, 1, time.monotonic() + DEADLINE, service)[0].score \
                == 6.0
        finally:
            exit_status = stop_service(service, timeout=60)
    output = (tmp_path / "service.log").read_text(errors="replace")
    assert exit_status == 0, output
    assert store.job(graded.id).state == JobState.GRADED
    status, [stopped] = service_status(course)
    assert (status, stopped["state"], stopped["detail"]) == (1, "stopped", "stopped"), stopped
    table = subprocess.run([sys.executable, "-m", "grader", "queue", "--course", course],
                           env=nbgrader_env(), capture_output=True, text=True, timeout=120)
    assert table.stdout.splitlines()[0] == (
        f"service {stopped['service']}: stopped at {stopped['since']} (stopped)")
    assert nothing_left([tree], tmpdir_of_service, course) == []


def test_the_gradebooks_postgresql_restarted_under_the_service_kills_no_thread_and_grades_once(
        course, tmpdir_of_service, tmp_path):
    lease = 4.0  # seconds: the server stays down longer, as a restart under load may
    with TemporaryPostgres() as server:  # the test's own: it is stopped and started again
        url = server.create_database("gradebook")
        with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as config:
            config.write(f"c.CourseDirectory.db_url = {url!r}\n")
        released_there = subprocess.run(
            [sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
            cwd=course, env=nbgrader_env(), capture_output=True, text=True, timeout=300)
        assert released_there.returncode == 0, released_there.stderr[-3000:]
        store = course_store(os.path.join(course, "course-data"), url)
        log_path = tmp_path / "service.log"
        with open(log_path, "wb") as log:
            service = start_service(course, "--workers", "1", "--lease", f"{lease:g}", log=log,
                                    env_overrides={"TMPDIR": tmpdir_of_service})
            tree = ProcessTree(service)
            try:
                first = hand_in(store, course, "ada")
                wait_until_final(store, 1, time.monotonic() + DEADLINE, service)
                slow = hand_in(store, course, "slowpoke", SLOW)
                wait_for(lambda: store.job(slow.id).state == JobState.GRADING, service,
                         "claim of the slow hand-in")
                server.halt()  # every connection cut, as a crash or an immediate restart
                down_since = time.monotonic()
                # down until the service met it in its queue (the claimer) and in the
                # gradebook (the slow grading recorded), and its lease ran out
                wait_for(lambda: all(said in log_path.read_text(errors="replace") for said in (
                    "trying again for up to", "does not answer")), service, "restart met")
                time.sleep(max(0.0, down_since + 2 * lease - time.monotonic()))
                server.resume()  # the same data and port
                later = hand_in(store, course, "later")
                jobs = wait_until_final(store, 3, time.monotonic() + DEADLINE, service)
            finally:
                exit_status = stop_service(service, timeout=60)
        output = log_path.read_text(errors="replace")
        with Gradebook(url, "tinycourse") as gradebook:
            recorded = {student: gradebook.find_submission(ASSIGNMENT, student).score
                        for student in ("ada", "slowpoke", "later")}
    assert exit_status == 0, output
    assert "Traceback" not in output and "Exception in thread" not in output, output
    by_id = {job.id: job for job in jobs}
    assert [(by_id[job.id].state, by_id[job.id].score, by_id[job.id].attempts)
            for job in (first, slow, later)] == [(JobState.GRADED, 6.0, 1)] * 3, output
    assert [output.count(f"{student}: 6/6 ") for student in ("ada", "slowpoke", "later")] \
        == [1, 1, 1], output  # each recorded once, by the one writer
    assert recorded == {"ada": 6.0, "slowpoke": 6.0, "later": 6.0}
    assert "answers again after" in output
    assert nothing_left([tree], tmpdir_of_service, course) == []


def test_a_queue_locked_by_another_program_is_waited_for_then_the_service_stops_naming_it(
        course, tmpdir_of_service, tmp_path):
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as config:
        config.write("c.GradingService.queue_busy_seconds = 0.5\n"
                     f"c.GradebookWriter.retry_seconds = {PATIENCE}\n")
    store = course_store(os.path.join(course, "course-data"))
    queue = os.path.join(course, "course-data", "service", "queue.db")
    locked = f"serve: the service's queue {queue} failed: database is locked"
    log_path = tmp_path / "service.log"
    locker = sqlite3.connect(queue, isolation_level=None, timeout=60)  # another program
    with open(log_path, "wb") as log:
        service = start_service(course, "--workers", "1", log=log,
                                env_overrides={"TMPDIR": tmpdir_of_service})
        tree = ProcessTree(service)
        try:
            wait_for(lambda: service_status(course)[0] == 0, service, "warm service")
            locker.execute("BEGIN EXCLUSIVE")
            wait_for(lambda: locked in log_path.read_text(errors="replace"), service,
                     "lock said")
            notebook = json.dumps(correct(released(course))).encode("utf-8")
            exchange_submit(course, "tinycourse", "bea", ASSIGNMENT,
                            {NOTEBOOK + ".ipynb": notebook}, "2026-12-01 16:00:00.000000 UTC")
            time.sleep(3 * POLL_SECONDS)  # the exchange looked at, locked, a few times
            locker.execute("COMMIT")
            graded = hand_in(store, course, "ada")
            jobs = wait_until_final(store, 2, time.monotonic() + DEADLINE, service)
            assert sorted((job.student, job.score) for job in jobs) == [
                ("ada", 6.0), ("bea", 6.0)], log_path.read_text(errors="replace")
            locker.execute("BEGIN EXCLUSIVE")  # and kept: past retry_seconds the service stops
            exit_status = service.wait(timeout=DEADLINE)
        finally:
            locker.close()
            if service.poll() is None:
                stop_service(service)
    output = log_path.read_text(errors="replace")
    assert exit_status == 1, output
    assert "Traceback" not in output and "a new release of" not in output, output
    assert "not taken yet" not in output  # the exchange waits for the queue, silently
    assert output.count(f"{locked}; trying again for up to {PATIENCE} s") == 2, output  # once each
    assert f"serve: the service's queue {queue} answers again after" in output
    assert f"{locked}, for {PATIENCE} s: the service stops" in output
    assert store.job(graded.id).state == JobState.GRADED
    assert nothing_left([tree], tmpdir_of_service, course) == []
