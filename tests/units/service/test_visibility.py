"""What a student sees of each check before and after their own due date."""

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from traitlets.config import Config

from grader.service.visibility import (HINT_CHARS, Visibility, checked_visibilities,
                                       course_visibilities, hidden_checks, hint, student_view)
from testsupport.tiny_course import instructor_notebook

DUE = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
BEFORE, AFTER = DUE - timedelta(hours=1), DUE + timedelta(seconds=1)


@dataclasses.dataclass(frozen=True)
class Check:  # the fields of the service's store.CheckRecord
    grade_id: str
    passed: bool
    points: float
    max_points: float
    message: str = ""


GRADED = [
    Check("double_visible", True, 1.0, 1.0),
    Check("double_hidden", False, 0.0, 2.0,
          "AssertionError: double(-3) should be -6, got 6\n  more lines of the traceback"),
    Check("ones_values", False, 0.0, 2.0, "AssertionError: ones(3) must be a tensor of ones"),
    Check("answer_value", True, 1.0, 1.0),
]


def test_the_hidden_checks_are_the_test_cells_that_hold_hidden_tests():
    assert hidden_checks(instructor_notebook()) == {"double_hidden"}


def test_by_default_visible_checks_show_now_hidden_ones_a_hint_and_no_points():
    views = student_view(GRADED, {"double_hidden"}, {}, DUE, BEFORE)
    assert [(v.grade_id, v.visibility, v.passed, v.message, v.points) for v in views] == [
        ("double_visible", Visibility.NOW, True, "", None),
        ("double_hidden", Visibility.HINT, False,
         "AssertionError: double(-3) should be -6, got 6", None),
        ("ones_values", Visibility.NOW, False,
         "AssertionError: ones(3) must be a tensor of ones", None),
        ("answer_value", Visibility.NOW, True, "", None),
    ]
    assert all(v.max_points is None for v in views)


def test_after_due_shows_nothing_before_and_everything_with_points_after():
    configured = {"answer_value": Visibility.AFTER_DUE, "double_hidden": Visibility.AFTER_DUE}
    before = {v.grade_id: v for v in student_view(GRADED, {"double_hidden"}, configured,
                                                   DUE, BEFORE)}
    assert (before["answer_value"].passed, before["answer_value"].message) == (None, "")
    assert (before["double_hidden"].passed, before["double_hidden"].message) == (None, "")
    after = student_view(GRADED, {"double_hidden"}, configured, DUE, AFTER)
    assert [(v.passed, v.points, v.max_points) for v in after] == [
        (True, 1.0, 1.0), (False, 0.0, 2.0), (False, 0.0, 2.0), (True, 1.0, 1.0)]
    assert after[1].message == GRADED[1].message  # the whole message once the due date passed


def test_an_extension_keeps_the_points_hidden_until_the_students_own_due_date():
    extended = DUE + timedelta(hours=48)
    views = student_view(GRADED, {"double_hidden"}, {}, extended, AFTER)
    assert all(v.points is None for v in views)


def test_a_hint_is_one_line_and_bounded():
    assert hint("\n\n  first line  \nsecond") == "first line"
    long = hint("x" * 500)
    assert len(long) == HINT_CHARS and long.endswith("…")


def test_the_course_config_sets_visibilities_and_a_wrong_word_is_named():
    config = Config()
    config.CheckFeedback.checks = {"ones_values": "After_Due"}
    assert course_visibilities(config) == {"ones_values": Visibility.AFTER_DUE}
    with pytest.raises(ValueError, match=r"c.CheckFeedback.checks\['ones_values'\] is 'later'"
                                         r".*now, hint, after_due"):
        checked_visibilities({"ones_values": "later"})
