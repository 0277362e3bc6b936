"""A new release picked up while the service runs: a hand-in graded, a check changed and
released again with `nbgrader generate_assignment` (make release), and the next hand-in
graded against the new check, without a restart; then an assignment released while the
service runs, handed in at once, graded too."""

import json
import os
import shutil
import subprocess
import sys
import time

import nbformat
import pytest

from grader.service import JobState, course_store
from testsupport.course import nbgrader_env
from testsupport.service import start_service, stop_service, wait_until_final
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, make_course, released

DEADLINE = 300  # seconds to wait for the service to grade or switch
LOOK = 0.3  # c.GradingService.release_check_seconds in this course
NEW_CHECK = '"""Check that answer is the int 41"""\nassert answer == 41, "answer should be 41"'


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("release") / "course")
    make_course(root)
    with open(os.path.join(root, "nbgrader_config.py"), "a") as handle:
        handle.write(f"c.GradingService.release_check_seconds = {LOOK}\n")
    return root


def release(course, assignment):
    """What make release runs: nbgrader generate_assignment."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", assignment,
                           "--force"], cwd=course, env=nbgrader_env(), capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def wait_for_line(log, text, count, process):
    """The service's output once `text` appears in it `count` times."""
    deadline = time.monotonic() + DEADLINE
    while True:
        output = log.read_text(errors="replace")
        if output.count(text) >= count:
            return output
        if time.monotonic() > deadline or process.poll() is not None:
            pytest.fail(f"{text!r} not printed {count} times within {DEADLINE} s\n{output}")
        time.sleep(0.2)


def test_a_changed_check_is_graded_after_make_release_without_a_restart(course, tmp_path):
    store = course_store(os.path.join(course, "course-data"))
    source = os.path.join(course, "source", ASSIGNMENT, f"{NOTEBOOK}.ipynb")
    log = tmp_path / "service.log"
    with open(log, "wb") as output:
        service = start_service(course, env_overrides={"TMPDIR": str(tmp_path)}, log=output)
        try:
            first = store.hand_in("ada", ASSIGNMENT, {f"{NOTEBOOK}.ipynb": json.dumps(
                correct(released(course))).encode()}, "submit")
            wait_until_final(store, 1, time.monotonic() + DEADLINE, service)
            assert store.job(first.id).score == 6.0, log.read_text()

            nb = nbformat.read(source, as_version=4)
            [cell] = [c for c in nb.cells if c.metadata["nbgrader"]["grade_id"] == "answer_value"]
            cell.source = NEW_CHECK
            nbformat.write(nb, source)
            release(course, ASSIGNMENT)
            text = wait_for_line(log, "serving tiny", 2, service)
            assert f"serve: a new release of {ASSIGNMENT}:" in text

            second = store.hand_in("ada", ASSIGNMENT, {f"{NOTEBOOK}.ipynb": json.dumps(
                correct(released(course), double_answer="def double(x):\n    return x + x\n")
            ).encode()}, "submit")
            wait_until_final(store, 2, time.monotonic() + DEADLINE, service)

            os.makedirs(os.path.join(course, "source", "tiny2"))
            shutil.copy(source, os.path.join(course, "source", "tiny2", f"{NOTEBOOK}.ipynb"))
            release(course, "tiny2")
            third = store.hand_in("bea", "tiny2", {f"{NOTEBOOK}.ipynb": json.dumps(
                correct(released(course))).encode()}, "submit")
            wait_until_final(store, 3, time.monotonic() + DEADLINE, service)
        finally:
            status = stop_service(service, timeout=30)
    text = log.read_text(errors="replace")
    assert status == 0, text
    graded = store.job(second.id)
    assert graded.state == JobState.GRADED and graded.score == 5.0, text
    checks = {c.grade_id: (c.passed, c.message) for c in graded.checks}
    assert checks["answer_value"][0] is False and "answer should be 41" in checks["answer_value"][1]
    assert {g: p for g, (p, _) in checks.items() if g != "answer_value"} == {
        "double_visible": True, "double_hidden": True, "ones_values": True}
    assert store.job(first.id).score == 6.0  # graded against the release it came under
    new = store.job(third.id)
    assert (new.state, new.score, new.attempts) == (JobState.GRADED, 5.0, 1), text
    assert "serving tiny, tiny2: 1 at a time" in text
