"""What a student sees of each check before and after their own due date."""

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from traitlets.config import Config

from grader.service.page.visibility import (HINT_CHARS, Visibility, assertion_messages,
                                       checked_visibilities, course_visibilities, hidden_checks,
                                       hint, student_view)
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
          "AssertionError: double gave a wrong value\n  more lines of the traceback"),
    Check("ones_values", False, 0.0, 2.0, "AssertionError: ones(3) must be a tensor of ones"),
    Check("answer_value", True, 1.0, 1.0),
]


def test_the_hidden_checks_are_the_test_cells_that_hold_hidden_tests():
    assert hidden_checks(instructor_notebook()) == {"double_hidden"}


def test_by_default_visible_checks_show_now_hidden_ones_a_hint_and_no_points():
    views = student_view(GRADED, {"double_hidden"}, {}, DUE, BEFORE,
                         assertion_messages(instructor_notebook()))
    assert [(v.grade_id, v.visibility, v.passed, v.message, v.points) for v in views] == [
        ("double_visible", Visibility.NOW, True, "", None),
        ("double_hidden", Visibility.HINT, False, "AssertionError: double gave a wrong value",
         None),
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


def test_the_messages_a_hidden_check_may_show_are_its_own_assertions_words():
    assert assertion_messages(instructor_notebook()) == {"double_hidden": frozenset({
        "AssertionError: double should return an int",
        "AssertionError: double gave a wrong value"})}


HIDDEN_HINTS = [  # (what the check said, what its hint shows before the due date)
    ("the student's function raised, naming the hidden input",
     "ValueError: in double: HIDDEN INPUT WAS 21",
     "double raised ValueError on an input of the hidden tests; what it said is shown after "
     "the due date"),
    ("the student's function failed an assert of its own",
     "AssertionError: in double: got 21\nmore",
     "double raised AssertionError on an input of the hidden tests; what it said is shown "
     "after the due date"),
    ("the check's code failed on what the function returned",
     "ValueError: invalid literal for int() with base 10: 'x was 21'",
     "ValueError in the check; what it said is shown after the due date"),
    ("an assertion message made from the hidden test's values",
     "AssertionError: double(21) should be 42, got 'x was 21'",
     "AssertionError: the check's message is shown after the due date (it is made from the "
     "values of a hidden test)"),
    ("the instructor's own words", "AssertionError: double gave a wrong value",
     "AssertionError: double gave a wrong value"),
    ("an assertion without a message", "AssertionError", "AssertionError"),
    ("a time-out, in the grader's words",
     "timed out in double_hidden (in double: timed out after 10 seconds)",
     "timed out in double_hidden (in double: timed out after 10 seconds)"),
]


@pytest.mark.parametrize("case, message, shown", HIDDEN_HINTS, ids=[c[0] for c in HIDDEN_HINTS])
def test_a_hidden_checks_hint_never_echoes_what_the_students_code_said(case, message, shown):
    failed = [Check("double_hidden", False, 0.0, 2.0, message)]
    messages = assertion_messages(instructor_notebook())
    [before] = student_view(failed, {"double_hidden"}, {}, DUE, BEFORE, messages)
    assert (before.passed, before.message) == (False, shown)
    [after] = student_view(failed, {"double_hidden"}, {}, DUE, AFTER, messages)
    assert after.message == message  # the whole of it once the due date passed


def test_a_visible_check_shows_the_students_own_exception_at_once():
    failed = [Check("double_visible", False, 0.0, 1.0, "ValueError: in double: bad input 2")]
    [view] = student_view(failed, {"double_hidden"}, {}, DUE, BEFORE,
                          assertion_messages(instructor_notebook()))
    assert view.message == "ValueError: in double: bad input 2"
