"""`make grades` (grader.reports.outputs): does it warn, per student, of a notebook collected
after the grade it writes, and say nothing once that notebook is graded?"""

import datetime

from grader.intake import collect_zip
from grader.reports import write_grades
from testsupport.lms_download import (canvas_name, graded_as_handed_in,
                                      two_canvas_students_graded, write_zip)
from testsupport.tiny_course import ASSIGNMENT, released


def test_grades_warn_of_each_notebook_collected_after_its_grade(tmp_path):
    first = datetime.datetime(2026, 1, 15, 11)
    course, settings = two_canvas_students_graded(tmp_path, first)
    assert not [line for line in write_grades(settings, [ASSIGNMENT])
                if line.startswith("warning")]
    collect_zip(settings, ASSIGNMENT, write_zip(str(tmp_path / "later.zip"), [
        (canvas_name("Bob", "Builder", 102, 3, "tiny.ipynb"), released(course),
         first + datetime.timedelta(hours=6))]))
    lines = write_grades(settings, [ASSIGNMENT])
    assert [line for line in lines if line.startswith("warning")] == [
        "warning: tiny: bob's submission of 2026-01-15 17:00:00 UTC is not graded yet (the "
        "grade is of the one handed in 2026-01-15 11:00:00 UTC): run make autograde "
        "ASSIGNMENT=tiny, then make feedback"]
    assert lines[1] == "grades (nbgrader's columns): course-data/grades.csv"
