"""The solutions policy (grader.publish.solutions_policy): an assignment's solutions go out
only once every student's due date, extensions included, has passed; hidden tests never."""

import dataclasses
import datetime
import os

import nbformat
import pytest
from nbgrader.api import Gradebook

from grader.publish import latest_due, solution_notebooks
from grader.publish.solutions_policy import (RECORD_FILE, assignments_with_public_solutions,
                                             check_solutions_may_go_out, read_record,
                                             record_release)
from grader.recording import apply_extensions, set_due_date
from grader.settings import CourseError, load
from testsupport.tiny_course import ASSIGNMENT, HIDDEN_MARK

DUE = datetime.datetime(2026, 12, 1, 17, 0)  # naive UTC, as nbgrader stores it


@pytest.fixture(scope="module")
def settings(tiny_course, tmp_path_factory):
    """The tiny course, due at DUE, with alice and bob; bob has 48 hours more, carol 30."""
    settings = load(tiny_course)
    set_due_date(settings, ASSIGNMENT, "2026-12-01 17:00:00 UTC")
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student in ("alice", "bob", "carol"):
            gb.update_or_create_student(student)
    extensions = tmp_path_factory.mktemp("extensions") / "extensions.csv"
    extensions.write_text("student_id,assignment,extra_hours,new_due,note\n"
                          f"bob,{ASSIGNMENT},48,,\ncarol,{ASSIGNMENT},30,,\n")
    apply_extensions(settings, str(extensions))
    return settings


def test_the_latest_due_date_is_the_latest_extension(settings):
    assert latest_due(settings, ASSIGNMENT) == (DUE + datetime.timedelta(hours=48),
                                                "bob's, with an extension")


@pytest.mark.parametrize("now, refused", [
    (DUE - datetime.timedelta(hours=1), True),  # before the class's due date
    (DUE + datetime.timedelta(hours=47), True),  # after it, before bob's
    (DUE + datetime.timedelta(hours=48), False),  # bob's due date: nobody may hand in now
    (DUE + datetime.timedelta(days=30), False),
])
def test_solutions_are_refused_until_the_latest_due_date_naming_it(settings, now, refused):
    if refused:
        with pytest.raises(CourseError) as error:
            check_solutions_may_go_out(settings, ASSIGNMENT, now)
        assert str(error.value) == (
            f"the solutions of {ASSIGNMENT} stay private until 2026-12-03 17:00:00 UTC, the "
            f"latest due date (bob's, with an extension): a student may still hand in until "
            f"then; nothing was released")
    else:
        assert check_solutions_may_go_out(settings, ASSIGNMENT, now) == DUE + datetime.timedelta(
            hours=48)


def test_an_assignment_nobody_has_a_due_date_for_is_refused(settings, tmp_path):
    no_gradebook = dataclasses.replace(settings, db_url=f"sqlite:///{tmp_path / 'gradebook.db'}")
    with pytest.raises(CourseError) as error:
        latest_due(no_gradebook, ASSIGNMENT)
    assert "no gradebook at" in str(error.value) and "nothing was released" in str(error.value)
    assert not (tmp_path / "gradebook.db").exists()  # not made by asking
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.update_or_create_assignment("tiny-2")  # released, no due date
    for assignment in ("tiny-2", "never-released"):
        with pytest.raises(CourseError) as error:
            latest_due(settings, assignment)
        assert str(error.value).startswith(f"nobody has a due date for {assignment} in the "
                                           f"gradebook")
        assert f"make release ASSIGNMENT={assignment} DUEDATE=" in str(error.value)


def test_the_solution_notebooks_keep_the_solutions_and_lose_every_hidden_test(settings):
    [(name, text)] = solution_notebooks(settings, ASSIGNMENT).items()
    assert name == "tiny.ipynb"
    notebook = nbformat.reads(text, as_version=4)
    sources = "\n".join(cell.source for cell in notebook.cells)
    assert "    return 2 * x" in sources and "answer = 42" in sources
    assert HIDDEN_MARK not in text and "double gave a wrong value" not in text
    assert "BEGIN" not in text and "END SOLUTION" not in text
    assert '"""Check that double doubles numbers it has not seen"""' in sources  # its visible part
    assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")


def test_the_record_is_written_whole_read_back_and_refused_when_wrong(settings, tmp_path):
    course = dataclasses.replace(settings, root=str(tmp_path))
    assert assignments_with_public_solutions(course) == []
    released = datetime.datetime(2026, 12, 4, 9, 30)
    record_release(course, ASSIGNMENT, DUE + datetime.timedelta(hours=48), released)
    assert (tmp_path / RECORD_FILE).read_text() == (
        "assignment,latest_due_utc,released_utc\n"
        f"{ASSIGNMENT},2026-12-03 17:00:00,2026-12-04 09:30:00\n")
    assert assignments_with_public_solutions(course, released) == [ASSIGNMENT]
    with pytest.raises(CourseError) as error:  # a due date edited into the future
        assignments_with_public_solutions(course, DUE)
    assert "whose latest due date, 2026-12-03 17:00:00 UTC, is still to come" in str(error.value)
    (tmp_path / RECORD_FILE).write_text("assignment,latest_due_utc,released_utc\n"
                                        "homework-9,2026-01-01 00:00:00,2026-01-02 00:00:00\n")
    with pytest.raises(CourseError) as error:
        assignments_with_public_solutions(course)
    assert "unknown assignment 'homework-9'" in str(error.value)
    assert sorted(os.listdir(tmp_path)) == [RECORD_FILE]  # no temporary file left
    assert read_record(course)["homework-9"]["latest_due_utc"] == "2026-01-01 00:00:00"
