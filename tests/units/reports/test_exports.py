"""The LMS's gradebook import (grader.reports.exports): does Canvas get back, in its "SIS User
ID" column, the id its own gradebook export gave each student, and never the course's id?"""

import csv

import pytest

from grader.reports import import_roster, read_grades
from grader.reports.exports import write_exports
from grader.settings import load
from testsupport.lms_download import canvas_gradebook_export
from testsupport.tiny_course import ASSIGNMENT, make_course

STUDENTS = [  # (first, last, canvas id, sis user id, sis login id = course id, section)
    ("Alice", "Liddell", 101, "S-0001", "alice", "A"),
    ("Bob", "Builder", 102, "", "bob", "B"),  # Canvas gave no SIS User ID
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("exports")
    course = make_course(str(folder / "course"))
    export = folder / "canvas-gradebook.csv"
    export.write_text(canvas_gradebook_export(STUDENTS), encoding="utf-8")
    settings = load(course)
    import_roster(settings, str(export))
    people, grades = read_grades(settings, [ASSIGNMENT])
    paths = write_exports(settings, people, grades)
    with open(paths["canvas"], encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def test_the_sis_user_id_is_the_one_canvas_gave(exported):
    assert exported[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert exported[2][:5] == ["Builder, Bob", "102", "", "bob", "B"]
    assert exported[3][:5] == ["Liddell, Alice", "101", "S-0001", "alice", "A"]
