"""The grading service as a real process on the tiny course: hand-ins from the exchange and
from the store graded and recorded as they arrive, a kill -9 in the middle of a rush losing and
doubling nothing, and SIGTERM stopping cleanly with nothing left behind; the same kill -9
on a course whose gradebook, and so the service's queue, is PostgreSQL.

The tests share one course (module scope) and run one after another on it.
"""

import datetime
import json
import os
import subprocess
import sys
import time

import pytest

from grader.service import JobState, course_store
from testsupport.course import nbgrader_env
from testsupport.gradebook import gradebook_rows, gradebook_scores, sqlite_url
from testsupport.service import exchange_submit, start_service, stop_service, wait_until_final
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, POINTS, correct, make_course, released

DEADLINE = 300  # seconds to wait for a service to grade what it was given
FULL = {grade_id: points for grade_id, points in POINTS.items()}
WRONG_DOUBLE = {**FULL, "double_visible": 0.0, "double_hidden": 0.0}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("service") / "course")
    make_course(root)
    return root


@pytest.fixture(scope="module")
def postgres_course(tmp_path_factory, postgres_server):
    """The tiny course with its gradebook in a PostgreSQL database, released there."""
    root = str(tmp_path_factory.mktemp("service-postgres") / "course")
    make_course(root)
    db_url = postgres_server.create_database("service_gradebook")
    config = os.path.join(root, "nbgrader_config.py")
    with open(config, encoding="utf-8") as handle:
        lines = [line for line in handle if not line.startswith("c.CourseDirectory.db_url")]
    with open(config, "w", encoding="utf-8") as handle:
        handle.writelines(lines + [f"c.CourseDirectory.db_url = {db_url!r}\n"])
    os.remove(os.path.join(root, "course-data", "gradebook.db"))
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT,
                    "--force"], cwd=root, env=nbgrader_env(), check=True, capture_output=True)
    return root, db_url


@pytest.fixture
def tmpdir_of_service(tmp_path):
    folder = tmp_path / "service-tmp"
    folder.mkdir()
    return str(folder)


def environment(tmpdir):
    """The service's temporary folder is the test's own: what it leaves there is seen."""
    return {"TMPDIR": tmpdir}


def notebook_bytes(course, **answers):
    return json.dumps(correct(released(course), **answers)).encode("utf-8")


def test_hand_ins_from_the_exchange_and_the_store_are_graded_into_the_gradebook_and_sigterm_leaves_nothing(
        course, tmpdir_of_service, tmp_path):
    store = course_store(os.path.join(course, "course-data"))
    # what nbgrader submit writes, the moment before the folder reaches the exchange
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC")
    with open(tmp_path / "service.log", "wb") as log:
        service = start_service(course, "--workers", "2",
                                env_overrides=environment(tmpdir_of_service), log=log)
        try:
            exchange_submit(course, "tinycourse", "exa", ASSIGNMENT,
                            {NOTEBOOK + ".ipynb": notebook_bytes(course)}, stamp)
            store.hand_in("sta", ASSIGNMENT, {NOTEBOOK + ".ipynb": notebook_bytes(
                course, double_answer="def double(x):\n    return x\n")}, "submit")
            jobs = wait_until_final(store, 2, time.monotonic() + DEADLINE, service)
        finally:
            status = stop_service(service, timeout=30)
    output = (tmp_path / "service.log").read_text(errors="replace")
    assert status == 0, output
    by_student = {job.student: job for job in jobs}
    assert sorted(by_student) == ["exa", "sta"], output
    assert [by_student[s].state for s in ("exa", "sta")] == [JobState.GRADED] * 2, output
    assert by_student["exa"].source.startswith("exchange:exa+tiny+")
    assert (by_student["exa"].score, by_student["sta"].score) == (6.0, 3.0)
    assert {c.grade_id: (c.passed, c.points) for c in by_student["sta"].checks} == {
        "double_visible": (False, 0.0), "double_hidden": (False, 0.0),
        "ones_values": (True, 2.0), "answer_value": (True, 1.0)}
    scores = gradebook_scores(course, ASSIGNMENT)
    assert scores["exa"] == FULL and scores["sta"] == WRONG_DOUBLE
    # what nbgrader's exchange wrote travels into submitted/, as `make collect` puts it
    with open(os.path.join(course, "course-data", "submitted", "exa", ASSIGNMENT,
                           "timestamp.txt")) as handle:
        assert handle.read() == stamp
    assert os.listdir(tmpdir_of_service) == []  # no work root, sandbox folder or temporary file
    assert [j for j in store.jobs() if j.state == JobState.GRADING] == []


def test_a_kill_9_in_the_middle_of_a_rush_loses_and_doubles_nothing(course, tmpdir_of_service,
                                                                     tmp_path):
    kill_9_in_a_rush(course, sqlite_url(course), tmpdir_of_service, tmp_path)


def test_on_postgresql_a_kill_9_in_the_middle_of_a_rush_loses_and_doubles_nothing(
        postgres_course, tmpdir_of_service, tmp_path):
    course, db_url = postgres_course
    kill_9_in_a_rush(course, db_url, tmpdir_of_service, tmp_path)
    assert not os.path.exists(os.path.join(course, "course-data", "service", "queue.db"))
    assert os.listdir(os.path.join(course, "course-data", "service")) == ["blobs"]


def kill_9_in_a_rush(course, db_url, tmpdir_of_service, tmp_path):
    """8 hand-ins and a duplicate, the service killed (-9) once 3 are graded, started again:
    each graded once, the duplicate not graded, the gradebook `db_url` as the batch gives."""
    store = course_store(os.path.join(course, "course-data"), db_url)
    before = len(store.jobs())
    students = [f"rush{n}" for n in range(8)]
    answers = {student: ({} if n % 2 else {"answer_answer": "answer = 41\n"})
               for n, student in enumerate(students)}
    with open(tmp_path / "service.log", "wb") as log:
        first = start_service(course, "--workers", "2",
                              env_overrides=environment(tmpdir_of_service), log=log)
        try:
            made = [store.hand_in(s, ASSIGNMENT, {NOTEBOOK + ".ipynb": notebook_bytes(
                course, **answers[s])}, "submit") for s in students]
            again = store.hand_in(students[0], ASSIGNMENT, {NOTEBOOK + ".ipynb": notebook_bytes(
                course, **answers[students[0]])}, "submit")
            # killed once the first hand-ins are graded, the others still to come
            wait_until_final(store, before + 3, time.monotonic() + DEADLINE, first)
        finally:
            first.kill()
            first.wait()
        killed_at = {j.id: j.state for j in store.jobs()}
        second = start_service(course, "--workers", "2",
                               env_overrides=environment(tmpdir_of_service), log=log)
        try:
            jobs = wait_until_final(store, before + len(made) + 1, time.monotonic() + DEADLINE,
                                    second)
        finally:
            status = stop_service(second, timeout=30)
    output = (tmp_path / "service.log").read_text(errors="replace")
    assert status == 0, output
    assert sum(1 for s in killed_at.values() if s in ("waiting", "grading")) >= 1, killed_at
    rush = {j.id: j for j in jobs[before:]}
    assert rush[again.id].state == JobState.DUPLICATE
    assert {rush[j.id].state for j in made} == {JobState.GRADED}, output
    assert all(rush[j.id].attempts in (1, 2) for j in made)
    assert {rush[j.id].student: rush[j.id].score for j in made} == {
        s: (6.0 if n % 2 else 5.0) for n, s in enumerate(students)}
    scores = gradebook_scores(db_url, ASSIGNMENT)
    assert {s: scores[s] for s in students} == {
        s: FULL if n % 2 else {**FULL, "answer_value": 0.0} for n, s in enumerate(students)}
    rows = gradebook_rows(db_url, ASSIGNMENT)
    assert [count for student, count in rows["submissions"] if student in students] == [1] * 8
    assert os.listdir(tmpdir_of_service) == []


def test_a_batch_autograde_after_the_service_records_the_same_rows(course):
    """Runs after the tests above, on what they graded: the service's gradebook is what the
    batch gives for every student's latest hand-in."""
    from testsupport.course import run_grader

    by_service = gradebook_rows(sqlite_url(course), ASSIGNMENT)
    assert len(by_service["submissions"]) == 10  # exa, sta and the rush of 8
    finished = run_grader(course, ASSIGNMENT, timeout=DEADLINE)
    assert finished.returncode == 0, finished.stderr
    assert gradebook_rows(sqlite_url(course), ASSIGNMENT) == by_service

