"""Does `python -m grader canvas-push` push the gradebook's grades of a real course?

The tiny course (testsupport.tiny_course) with its gradebook: a roster with
Canvas user ids, one student graded, one with nothing handed in; Canvas is the
small API on 127.0.0.1 (testsupport.fake_canvas).
"""

import os
import warnings

import pytest

from grader.cli import main
from grader.push import push_grades
from grader.settings import load
from testsupport.fake_canvas import FakeCanvas, Served
from testsupport.tiny_course import ASSIGNMENT

TOKEN = "tiny-course-token"


@pytest.fixture(scope="module")
def course(graded_course):
    with open(os.path.join(graded_course, "nbgrader_config.py"), "a", encoding="utf-8") as config:
        config.write("\nc.CanvasPush.backoff_seconds = 0.001  # short waits, for the test\n")
    return graded_course


@pytest.fixture
def canvas(monkeypatch, tmp_path):
    fake = FakeCanvas(77, TOKEN, {5: {"name": ASSIGNMENT, "points_possible": 6.0}},
                      students={"101", "102"})
    served = Served(fake)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    token_file.chmod(0o600)
    monkeypatch.setenv("CANVAS_URL", served.url)
    monkeypatch.setenv("CANVAS_COURSE", "77")
    monkeypatch.setenv("CANVAS_TOKEN_FILE", str(token_file))
    yield fake
    served.close()


def push(course, *extra):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Canvas may respond unexpectedly")  # http: on 127.0.0.1
        return main(["canvas-push", ASSIGNMENT, "--course", course, *extra])


def test_a_dry_run_then_a_push_then_a_second_push_that_writes_nothing(course, canvas, capsys):
    assert push(course, "--dry-run") == 0
    shown = capsys.readouterr().out.splitlines()
    assert canvas.writes == []
    assert [line.split()[:4] for line in shown[2:4]] == [["ada", "101", "-", "5"],
                                                        ["bob", "102", "-", "0"]]
    assert push(course) == 0
    assert {(w.user, w.posted_grade) for w in canvas.writes} == {("101", "5"), ("102", "0")}
    assert canvas.comments[(5, "101")][0].startswith(f"{ASSIGNMENT}: 5/6 points\n")
    capsys.readouterr()
    assert push(course) == 0
    assert len(canvas.writes) == 2
    assert capsys.readouterr().out.splitlines()[-1].startswith("0 student(s) written, 2 up to")


def test_without_the_settings_the_push_says_which_to_set(course, monkeypatch, capsys):
    for name in ("CANVAS_URL", "CANVAS_COURSE", "CANVAS_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    assert push(course) == 2
    assert "set CANVAS_URL (or c.CanvasPush.url in nbgrader_config.py)" in capsys.readouterr().err


def test_the_push_settings_in_nbgrader_config_are_known_to_check_config(course, capsys):
    assert main(["check-config", "--course", course]) == 0
    assert capsys.readouterr().err == ""


def test_a_push_of_some_students_writes_only_theirs(course, canvas):
    """What the grading service pushes when a student's grade becomes final."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Canvas may respond unexpectedly")  # http: on 127.0.0.1
        lines, status = push_grades(load(course), ASSIGNMENT, students=["bob"])
    assert status == 0
    assert [(w.user, w.posted_grade) for w in canvas.writes] == [("102", "0")]
    assert [line.split()[0] for line in lines[2:]] == ["bob", "1"]
