"""What a regrade calls a change, and the students' regrade requests read from their file."""

import pytest

from grader.regrade import read_regrade_requests, student_change
from grader.regrade.changes import answer_to
from grader.regrade.regrading import note_regrade
from grader.results import (CheckResult, CheckStatus, NotebookResult, NotebookStatus,
                            StudentResult)
from grader.settings import CourseError


def result(double, answer, message="double(2) should be 4"):
    tests = [CheckResult("double_visible", double, 1.0,
                         CheckStatus.PASSED if double else CheckStatus.FAILED,
                         "" if double else message),
             CheckResult("answer_value", answer, 1.0,
                         CheckStatus.PASSED if answer else CheckStatus.FAILED, "")]
    notebook = NotebookResult("tiny", NotebookStatus.GRADED, tests=tests,
                              autograded={"cells": [], "metadata": {}})
    return StudentResult("bob", "tiny", notebooks=[notebook])


def test_the_same_result_graded_again_is_no_change():
    assert student_change(result(0.0, 1.0), result(0.0, 1.0)) is None


def test_a_check_that_now_passes_is_a_change_with_both_totals():
    change = student_change(result(0.0, 1.0), result(1.0, 1.0))
    assert (change.student, change.old_total, change.new_total, change.max_total) == (
        "bob", 1.0, 2.0, 2.0)
    assert [c.text() for c in change.checks] == ["tiny/double_visible: 0 -> 1 (failed -> passed)"]


def test_a_new_failure_message_alone_is_a_change():
    change = student_change(result(0.0, 1.0), result(0.0, 1.0, "double(2) gave 4.0"))
    assert [c.text() for c in change.checks] == ["tiny/double_visible: 0 -> 0 (message changed)"]


def test_a_student_without_a_report_part_changes_from_nothing():
    change = student_change(None, result(1.0, 0.0))
    assert change.old_total == 0.0
    assert [c.text() for c in change.checks] == ["tiny/answer_value: none -> 0 (none -> failed)",
                                                 "tiny/double_visible: none -> 1 (none -> passed)"]


def test_the_regrade_is_noted_in_each_autograded_notebook():
    graded = result(1.0, 1.0)
    note_regrade(graded, "2026-12-02 20:00:00 UTC", "a looser check")
    assert graded.notebooks[0].autograded["metadata"]["regraded"] == {
        "at": "2026-12-02 20:00:00 UTC", "reason": "a looser check"}


def test_requests_are_read_and_each_answered_in_words(tmp_path):
    path = tmp_path / "regrade-requests.csv"
    path.write_text("student,assignment,check,message\n"
                    "bob,tiny,double_visible,\"2.0 * x\n doubles\"\n"
                    "carol,tiny,answer_value,close\n"
                    "dave,tiny,answer_value,\n")
    requests = read_regrade_requests(str(path))
    assert [(r.student, r.check, r.message) for r in requests] == [
        ("bob", "double_visible", "2.0 * x doubles"), ("carol", "answer_value", "close"),
        ("dave", "answer_value", "")]
    changes = {"bob": student_change(result(0.0, 1.0), result(1.0, 1.0))}
    regraded = {"bob", "carol"}
    assert [answer_to(r, regraded, changes) for r in requests] == [
        "answered: tiny/double_visible: 0 -> 1 (failed -> passed)",
        "not answered: the check's result does not change",
        "not answered: this student is not regraded (STUDENTS=...)"]


def test_no_file_is_no_request_and_a_bad_row_names_its_line(tmp_path):
    assert read_regrade_requests(str(tmp_path / "none.csv")) == []
    path = tmp_path / "regrade-requests.csv"
    path.write_text("student,assignment,check,message\nbob,tiny,,why\n,tiny,x,y\n")
    with pytest.raises(CourseError) as error:
        read_regrade_requests(str(path))
    assert str(error.value) == (f"{path}, line 2: no check\n{path}, line 3: no student")
    path.write_text("student,check\nbob,x\n")
    with pytest.raises(CourseError, match="missing: assignment, message"):
        read_regrade_requests(str(path))
