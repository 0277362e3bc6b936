"""What the grade push's tests share: the tiny course with an LMS roster and ada's grade."""

import os

import pytest

from grader.cli import main
from testsupport.tiny_course import POINTS, record_grades


@pytest.fixture(scope="module")
def graded_course(tiny_course):
    """The tiny course (one copy per test module) whose roster gives ada and bob the LMS's
    user ids 101 and 102, ada graded 5 of 6 and bob not at all."""
    roster = os.path.join(tiny_course, "roster-in.csv")
    with open(roster, "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,lms_user_id\nada,Ada,Adams,101\nbob,Bob,Brown,102\n")
    assert main(["roster", roster, "--course", tiny_course]) == 0
    record_grades(tiny_course, "ada", {**POINTS, "answer_value": 0.0})  # 5 of 6
    return tiny_course
