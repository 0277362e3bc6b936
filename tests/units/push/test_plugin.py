"""Is a grade push one plugin class, chosen by configuration as nbgrader's export plugin is?

A fake LMS is written here, in the test, as a `GradePush` subclass; the tiny
course's nbgrader_config.py names it in ``c.GradePush.plugin_class``; ``python -m
grader push-grades`` then sends it each student's row, with no edit of the grader.
"""

import os

import pytest

from grader.cli import main
from grader.lms import LmsRefused, LmsSubmission
from grader.push import CanvasGradePush, GradePush, PushOutcome, configured_push
from grader.settings import CourseError, load
from testsupport.tiny_course import ASSIGNMENT


class FakeLms(GradePush):
    """An LMS in memory: its students by user id, what it holds, every row it was sent."""

    title = "FakeLMS"
    holds: dict[str, LmsSubmission] = {}
    received: list[tuple[str, float, str]] = []
    refuse = False

    def open(self, grades, dry_run):
        return [f"{grades.name} -> FakeLMS ({'dry run' if dry_run else 'push'})"]

    def held(self, people, grades):
        return dict(FakeLms.holds)

    def send(self, row, grades):
        if FakeLms.refuse:
            raise LmsRefused("FakeLMS refused the token")
        FakeLms.received.append((row.lms_user_id, row.grade, row.comment))
        FakeLms.holds[row.lms_user_id] = LmsSubmission(row.lms_user_id, row.grade,
                                                       (row.comment,))
        return "grade and comment"


class NotAPush:
    """A class that is no GradePush."""


@pytest.fixture(scope="module")
def course(graded_course):
    with open(os.path.join(graded_course, "nbgrader_config.py"), "a", encoding="utf-8") as config:
        config.write(f'\nc.GradePush.plugin_class = "{__name__}.FakeLms"\n')
    return graded_course


@pytest.fixture(autouse=True)
def empty_lms():
    FakeLms.holds = {"101": LmsSubmission("101", None, ()), "102": LmsSubmission("102", None, ())}
    FakeLms.received = []
    FakeLms.refuse = False


def test_the_class_the_configuration_names_is_the_push(course):
    assert type(configured_push(load(course))) is FakeLms


def test_push_grades_sends_each_row_to_the_configured_plugin_and_prints_its_report(course,
                                                                                 capsys):
    assert main(["push-grades", ASSIGNMENT, "--course", course]) == 0
    assert [(user, grade) for user, grade, _ in FakeLms.received] == [("101", 5.0), ("102", 0.0)]
    comments = dict((user, comment) for user, _, comment in FakeLms.received)
    assert comments["101"].splitlines()[0] == f"{ASSIGNMENT}: 5/6 points"
    assert comments["102"].splitlines() == [f"{ASSIGNMENT}: 0/6 points", "nothing handed in"]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{ASSIGNMENT} -> FakeLMS (push)"
    assert lines[1].split() == ["student", "FakeLMS", "user", "id", "grade", "in", "FakeLMS",
                                "now", "grade", "to", "send", "done"]
    assert [line.split() for line in lines[2:4]] == [
        ["ada", "101", "-", "5", "sent", "grade", "and", "comment"],
        ["bob", "102", "-", "0", "sent", "grade", "and", "comment"]]
    assert lines[4] == ("2 student(s) written, 0 up to date, 0 not in the LMS or without a "
                        "user id, 0 failed")


def test_a_dry_run_sends_nothing_and_a_second_push_nothing_more(course, capsys):
    assert main(["push-grades", ASSIGNMENT, "--dry-run", "--course", course]) == 0
    assert FakeLms.received == []
    assert capsys.readouterr().out.splitlines()[-1] == (
        "dry run: nothing written (2 student(s) would be written)")
    assert main(["push-grades", ASSIGNMENT, "--course", course]) == 0
    assert len(FakeLms.received) == 2
    assert main(["push-grades", ASSIGNMENT, "--course", course]) == 0
    assert len(FakeLms.received) == 2  # the LMS holds both: nothing sent again
    assert capsys.readouterr().out.splitlines()[-1] == (
        "0 student(s) written, 2 up to date, 0 not in the LMS or without a user id, 0 failed")


def test_the_plugin_s_report_is_typed(course):
    people_rows = FakeLms(config=load(course).config)
    from grader.reports import read_grades

    people, [grades] = read_grades(load(course), [ASSIGNMENT])
    report = people_rows.push(people, grades, students=["bob"])
    assert [(row.student, row.outcome) for row in report.rows] == [("bob", PushOutcome.SENT)]
    assert (report.counts.sent, report.counts.failed, report.status) == (1, 0, 0)


def test_a_refused_token_stops_the_push_with_a_clear_message(course, capsys):
    FakeLms.refuse = True
    assert main(["push-grades", ASSIGNMENT, "--course", course]) == 2
    error = capsys.readouterr().err
    assert "FakeLMS refused the token" in error
    assert "not sent (the LMS answered 401)" in error


def test_canvas_push_is_canvas_s_class_whatever_the_configuration_names(course, capsys,
                                                                        monkeypatch):
    for name in ("CANVAS_URL", "CANVAS_COURSE", "CANVAS_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    assert main(["canvas-push", ASSIGNMENT, "--course", course]) == 2
    assert "to push grades to Canvas, set CANVAS_URL" in capsys.readouterr().err
    assert FakeLms.received == []
    assert issubclass(CanvasGradePush, GradePush)


def test_a_class_that_is_no_grade_push_is_refused_with_its_name(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        f'c = get_config()\nc.GradePush.plugin_class = "{__name__}.NotAPush"\n')
    with pytest.raises(CourseError, match="c.GradePush.plugin_class"):
        configured_push(load(str(tmp_path)))
