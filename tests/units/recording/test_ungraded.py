"""Is a submission collected after its grade named as not graded yet, until it is graded,
and is one graded, refused or never handed in not named? (Grading is recorded by hand.)"""

import datetime

import pytest

from grader.intake import collect_zip
from grader.recording import NotGradedYet, not_graded_yet
from testsupport.lms_download import (canvas_name, graded_as_handed_in,
                                      two_canvas_students_collected, write_zip)
from testsupport.tiny_course import ASSIGNMENT, released

FIRST, LATER = datetime.datetime(2026, 1, 15, 11), datetime.datetime(2026, 1, 15, 17)


@pytest.fixture
def settings(tmp_path):
    return two_canvas_students_collected(tmp_path, FIRST)[1]


def test_a_notebook_collected_and_never_graded_is_not_graded_yet(settings):
    assert not_graded_yet(settings, ASSIGNMENT) == {
        "alice": NotGradedYet("alice", ASSIGNMENT, FIRST, None),
        "bob": NotGradedYet("bob", ASSIGNMENT, FIRST, None)}
    assert not_graded_yet(settings, ASSIGNMENT)["bob"].line == (
        "tiny: bob's submission of 2026-01-15 11:00:00 UTC is not graded yet (the gradebook "
        "has no grade of it): run make autograde ASSIGNMENT=tiny, then make feedback")


def test_a_notebook_collected_after_its_grade_is_not_graded_yet_until_graded(settings,
                                                                             tmp_path):
    for student in ("alice", "bob"):
        graded_as_handed_in(settings, ASSIGNMENT, student)
    assert not_graded_yet(settings, ASSIGNMENT) == {}
    collect_zip(settings, ASSIGNMENT, write_zip(str(tmp_path / "later.zip"), [
        (canvas_name("Alice", "Liddell", 101, 3, "tiny-1.ipynb"),
         released(settings.root), LATER)]))
    waiting = not_graded_yet(settings, ASSIGNMENT)
    assert waiting == {"alice": NotGradedYet("alice", ASSIGNMENT, LATER, FIRST)}
    assert waiting["alice"].line == (
        "tiny: alice's submission of 2026-01-15 17:00:00 UTC is not graded yet (the grade is "
        "of the one handed in 2026-01-15 11:00:00 UTC): run make autograde ASSIGNMENT=tiny, "
        "then make feedback")
    graded_as_handed_in(settings, ASSIGNMENT, "alice")
    assert not_graded_yet(settings, ASSIGNMENT) == {}
