"""Grading on a Dask cluster gives what grading on this machine gives, and survives a lost worker.

The test starts a `dask scheduler` and two `dask worker` processes on 127.0.0.1,
as a cluster would run them (`--nthreads 1`). The workers run as an unprivileged
system account, each in a temporary working folder of its own, while the course
folder is root's with mode 0700: a worker that tried to read the course, the
submissions or the gradebook would fail, so everything it grades reaches it as
data. The batch (see testsupport.scaling) is the one the parallel tests grade, and
the serial run on this machine is the reference. The grading service (`serve --scheduler`)
hands its jobs to the same cluster, its queue staying in its own store.
"""

import os
import pwd
import json
import re
import shutil
import subprocess
import time

import pytest

from grader.dask_tls import TLS_FOLDER, make_certificates
from grader.service import JobState, course_store
from testsupport.dask_cluster import DaskCluster, worker_account
from testsupport.network import free_port
from testsupport.course import run_grader
from testsupport.scaling import (ASSIGNMENT, GRADER_TIMEOUT, STUDENTS, batch_course, finish,
                                 gradebook_rows, output_files, start_grader)
from testsupport.gradebook import gradebook_scores, sqlite_url
from testsupport.service import start_service, stop_service, wait_until_final
from testsupport.tiny_course import ASSIGNMENT as TINY
from testsupport.tiny_course import NOTEBOOK, POINTS, correct, make_course, released

RECORDED_LINE = re.compile(r"^(\S+): [\d.]+/[\d.]+ \(", re.MULTILINE)


@pytest.fixture(scope="module")
def cluster():
    """A scheduler and two workers on 127.0.0.1, the workers as an unprivileged account."""
    running = DaskCluster(worker_account())
    try:
        running.start(workers=2)
        yield running
    finally:
        running.stop()


def private_course(path, released_gradebook):
    """The batch's course folder, root's own with mode 0700, as on an instructor's machine."""
    course, kinds = batch_course(path, released_gradebook)
    os.chmod(course, 0o700)
    return course, kinds


@pytest.fixture(scope="module")
def cluster_run(cluster, released_sqlite_gradebook, tmp_path_factory):
    """The batch graded through the cluster: (course, grader output)."""
    course, _ = private_course(str(tmp_path_factory.mktemp("on-dask") / "course"),
                               released_sqlite_gradebook)
    done = run_grader(course, ASSIGNMENT, "--scheduler", cluster.address,
                      "--tls-folder", cluster.certs, timeout=GRADER_TIMEOUT, check=True)
    output = done.stdout + done.stderr
    return course, output


@pytest.fixture(scope="module")
def run_with_a_worker_lost(cluster, cluster_run, released_sqlite_gradebook, tmp_path_factory):
    """The batch graded again; one worker is killed while it grades a student.

    Returns (course, exit status, output, the student the killed worker had).
    """
    from distributed import Client

    course, _ = private_course(str(tmp_path_factory.mktemp("worker-lost") / "course"),
                               released_sqlite_gradebook)
    grader = start_grader(course, "--scheduler", cluster.address, "--tls-folder", cluster.certs)
    victim, task = None, None
    with Client(cluster.address, timeout=60, set_as_default=False,
                security=cluster.security()) as client:
        deadline = time.monotonic() + 600
        while victim is None and time.monotonic() < deadline:
            assert grader.poll() is None, "the grader finished before a worker could be killed"
            # a worker on which a student's task has been running for a while
            for address, tasks in client.processing().items():
                if tasks and address in cluster.worker_addresses():
                    victim, task = address, str(tasks[0])
                    break
            time.sleep(0.5)
        assert victim is not None, "no worker started grading within 600 s"
        cluster.kill_worker(victim)
    code, output = finish(grader)
    return course, code, output, task


def test_workers_cannot_read_the_course_folder(cluster, cluster_run):
    course, _ = cluster_run
    entry = pwd.getpwuid(cluster.account_uid)
    listing = subprocess.run(["ls", course], user=entry.pw_uid, group=entry.pw_gid,
                             extra_groups=[], capture_output=True, text=True, timeout=60)
    assert listing.returncode != 0 and "Permission denied" in listing.stderr
    assert all(owner == entry.pw_uid for owner in cluster.worker_owners())


def test_the_cluster_gives_the_same_grades_reports_and_autograded_files_as_one_worker(
        serial_sqlite_run, cluster_run):
    course, output = cluster_run
    assert "on the Dask cluster at tls://127.0.0.1:" in output
    assert gradebook_rows(sqlite_url(course)) == serial_sqlite_run.rows
    files = output_files(course)
    assert sorted(files) == sorted(serial_sqlite_run.files)
    different = [path for path in files if files[path] != serial_sqlite_run.files[path]]
    assert different == []
    assert sorted(RECORDED_LINE.findall(output)) == STUDENTS


def test_the_grading_service_hands_its_jobs_to_the_cluster_and_keeps_the_record_in_its_store(
        cluster, tmp_path):
    """`serve --scheduler`: the cluster's workers grade, the store holds the queue."""
    course = str(tmp_path / "course")
    make_course(course)
    shutil.copytree(cluster.certs, os.path.join(course, TLS_FOLDER))
    store = course_store(os.path.join(course, "course-data"))
    release = released(course)
    wrong = "def double(x):\n    return x\n"
    handed = {"dsa": correct(release), "dsb": correct(release, double_answer=wrong),
              "dsc": release}
    log_path = tmp_path / "service.log"
    with open(log_path, "wb") as log:
        service = start_service(course, "--scheduler", cluster.address, log=log)
        try:
            for student, notebook in handed.items():
                store.hand_in(student, TINY, {NOTEBOOK + ".ipynb": json.dumps(notebook).encode()},
                              "submit")
            jobs = wait_until_final(store, len(handed), time.monotonic() + GRADER_TIMEOUT,
                                    service)
        finally:
            status = stop_service(service, timeout=60)
    output = log_path.read_text(errors="replace")
    assert status == 0, output[-4000:]
    assert f"on the Dask cluster at {cluster.address}" in output
    assert {j.student: (j.state, j.attempts, j.score) for j in jobs} == {
        "dsa": (JobState.GRADED, 1, 6.0), "dsb": (JobState.GRADED, 1, 3.0),
        "dsc": (JobState.GRADED, 1, 0.0)}, output[-4000:]
    scores = gradebook_scores(course, TINY)
    assert scores["dsa"] == POINTS
    assert scores["dsb"] == {**POINTS, "double_visible": 0.0, "double_hidden": 0.0}
    assert set(scores) == set(handed)


def test_a_worker_killed_mid_run_loses_no_student_and_records_each_once(
        serial_sqlite_run, run_with_a_worker_lost):
    course, code, output, task = run_with_a_worker_lost
    assert task.startswith("grade_on_worker-")
    assert code == 0, output[-4000:]
    rows = gradebook_rows(sqlite_url(course))
    assert rows["submissions"] == [(student, 1) for student in STUDENTS]
    assert rows == serial_sqlite_run.rows
    assert sorted(RECORDED_LINE.findall(output)) == STUDENTS  # each reported once
    files = output_files(course)
    assert sorted(files) == sorted(serial_sqlite_run.files)
    assert [p for p in files if files[p] != serial_sqlite_run.files[p]] == []


def test_an_unreachable_scheduler_is_the_instructors_error_and_grades_nobody(
        released_sqlite_gradebook, tmp_path):
    course, _ = batch_course(str(tmp_path / "course"), released_sqlite_gradebook)
    address = f"tls://127.0.0.1:{free_port()}"  # nothing listens there
    certs = make_certificates(str(tmp_path / "certs"))
    code, output = finish(start_grader(course, "--scheduler", address, "--wait", "3",
                                       "--tls-folder", os.path.dirname(certs[0])))
    assert code == 2
    assert f"could not reach the Dask scheduler at {address}" in output
    assert "`dask scheduler` is running there" in output
    assert gradebook_rows(sqlite_url(course))["submissions"] == []
    assert not os.path.exists(os.path.join(course, "course-data", "autograded"))


def test_a_scheduler_without_workers_is_the_instructors_error(
        released_sqlite_gradebook, tmp_path):
    course, _ = batch_course(str(tmp_path / "course"), released_sqlite_gradebook)
    with DaskCluster() as lonely:
        lonely.start(workers=0)
        code, output = finish(start_grader(course, "--scheduler", lonely.address,
                                           "--wait", "3", "--tls-folder", lonely.certs))
    assert code == 2
    assert f"no Dask worker joined the scheduler at {lonely.address} within 3 s" in output
    assert "--nthreads 1" in output
    assert gradebook_rows(sqlite_url(course))["submissions"] == []


def test_a_plain_tcp_scheduler_is_refused_unless_the_instructor_allows_it(
        released_sqlite_gradebook, tmp_path):
    course, _ = batch_course(str(tmp_path / "course"), released_sqlite_gradebook)
    address = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there either
    code, output = finish(start_grader(course, "--scheduler", address, "--wait", "3"))
    assert code == 2
    assert f"the Dask scheduler address {address} is not tls://" in output
    assert "travel unencrypted" in output and "--allow-plaintext-dask" in output
    assert "could not reach" not in output  # refused before any connection
    code, output = finish(start_grader(course, "--scheduler", address, "--wait", "3",
                                       "--allow-plaintext-dask"))
    assert code == 2 and f"could not reach the Dask scheduler at {address}" in output
    assert gradebook_rows(sqlite_url(course))["submissions"] == []
