"""The roster import (make roster ROSTER=...): one LMS user id is one student, or the roster is
refused, naming both rows and the id, with nothing imported."""

import os

import pytest
from nbgrader.api import Gradebook, MissingEntry

from grader.cli import main
from testsupport.gradebook import sqlite_url
from testsupport.lms_download import canvas_gradebook_export


@pytest.fixture
def course(tiny_course):
    """The tiny course with ada (Canvas user 101) imported."""
    with Gradebook(sqlite_url(tiny_course), "tinycourse") as gb:
        for student in gb.students:
            gb.remove_student(student.id)
    if os.path.exists(roster := os.path.join(tiny_course, "course-data", "roster.csv")):
        os.remove(roster)
    first = os.path.join(tiny_course, "first.csv")
    with open(first, "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,lms_user_id\nada,Ada,Adams,101\n")
    assert main(["roster", first, "--course", tiny_course]) == 0
    return tiny_course


def roster_text(course):
    with open(os.path.join(course, "course-data", "roster.csv"), encoding="utf-8") as handle:
        return handle.read()


def in_gradebook(course, student):
    with Gradebook(sqlite_url(course), "tinycourse") as gb:
        try:
            return gb.find_student(student).lms_user_id
        except MissingEntry:
            return None


def test_two_rows_sharing_a_canvas_user_id_are_refused_naming_both(course, capsys):
    before = roster_text(course)
    path = os.path.join(course, "shared.csv")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,lms_user_id\nbob,Bob,Brown,102\n"
                     "cy,Cy,Cole,102\n")
    assert main(["roster", path, "--course", course]) == 2
    assert (f"{path}, lines 2 and 3: bob and cy share lms_user_id 102 (one LMS user, two "
            f"students: their grades would overwrite each other)" in capsys.readouterr().err)
    assert (in_gradebook(course, "bob"), in_gradebook(course, "cy")) == (None, None)
    assert roster_text(course) == before


def test_a_canvas_export_with_one_id_twice_is_refused(course, capsys):
    export = os.path.join(course, "canvas-export.csv")
    with open(export, "w", encoding="utf-8") as handle:
        handle.write(canvas_gradebook_export([("Bob", "Brown", 102, "", "bob", "A"),
                                              ("Cy", "Cole", 102, "", "cy", "A")]))
    assert main(["roster", export, "--course", course]) == 2
    assert "bob and cy share lms_user_id 102" in capsys.readouterr().err
    assert in_gradebook(course, "bob") is None


def test_a_new_student_with_the_id_another_student_holds_is_refused(course, capsys):
    path = os.path.join(course, "second.csv")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,lms_user_id\nbob,Bob,Brown,101\n")
    assert main(["roster", path, "--course", course]) == 2
    assert (f"{path}: bob would share lms_user_id 101 with ada, whom the course already "
            f"has" in capsys.readouterr().err)
    assert in_gradebook(course, "bob") is None and in_gradebook(course, "ada") == "101"


def test_an_id_moved_from_one_student_to_another_in_one_import_is_taken(course):
    path = os.path.join(course, "corrected.csv")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,lms_user_id\nada,Ada,Adams,103\n"
                     "bob,Bob,Brown,101\n")
    assert main(["roster", path, "--course", course]) == 0
    assert (in_gradebook(course, "ada"), in_gradebook(course, "bob")) == ("103", "101")
