"""The assignments are the folders of solutions/: a new one needs no edit elsewhere.

A copy of the course gets a small third assignment folder; the Makefile's list,
the grader's settings and the tests' helpers all see it, without any other file
changed. The tests' registry (testsupport/assignments.py) has a row for every folder,
naming only cells the folder's notebook has.
"""

import json
import os

import pytest

from testsupport.assignments import ASSIGNMENTS
from testsupport.course import ROOT, assignments, copy_course, make, read_notebook

THIRD = "sampling"


def _notebook():
    cell = {"cell_type": "code", "execution_count": None, "outputs": [], "source": "x = 1\n",
            "metadata": {"nbgrader": {"grade_id": "x_answer", "solution": True, "grade": False,
                                      "locked": False, "schema_version": 3}}}
    return {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def course_with_a_third_assignment(tmp_path):
    course = copy_course(str(tmp_path / "course"), for_make=True)
    folder = os.path.join(course, "solutions", THIRD)
    os.makedirs(folder)
    with open(os.path.join(folder, "sampling.ipynb"), "w", encoding="utf-8") as handle:
        json.dump(_notebook(), handle)
    return course


def test_a_third_assignment_folder_is_in_the_makefiles_list(course_with_a_third_assignment):
    done = make(course_with_a_third_assignment, "--eval=show-assignments: ; @echo $(ASSIGNMENTS)",
                "show-assignments", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == sorted([*ASSIGNMENTS, THIRD])


def test_a_third_assignment_folder_is_in_the_graders_settings(course_with_a_third_assignment):
    from grader.settings import load

    settings = load(course_with_a_third_assignment)
    assert settings.assignments == sorted([*ASSIGNMENTS, THIRD])


def test_a_third_assignment_folder_is_seen_by_the_test_helpers(course_with_a_third_assignment):
    assert assignments(course_with_a_third_assignment) == {
        **{name: row.notebook for name, row in ASSIGNMENTS.items()}, THIRD: "sampling"}


def test_the_course_settings_name_no_assignment():
    with open(os.path.join(ROOT, "nbgrader_config.py"), encoding="utf-8") as handle:
        settings = handle.read()
    for name in assignments():
        assert f'"{name}"' not in settings and f"'{name}'" not in settings, name


def test_every_folder_of_solutions_has_a_row_of_the_tests_registry_and_every_row_a_folder():
    assert sorted(ASSIGNMENTS) == sorted(assignments())
    for name, row in ASSIGNMENTS.items():
        assert row.name == name and row.notebook == assignments()[name]


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_a_row_names_only_cells_its_notebook_has_with_the_points_it_gives(name):
    row = ASSIGNMENTS[name]
    cells = [cell["metadata"]["nbgrader"] for cell in read_notebook("solutions", name)["cells"]
             if cell.get("metadata", {}).get("nbgrader")]
    assert {c["grade_id"]: c["points"] for c in cells if c.get("grade")} == row.points
    assert list(row.points) == [c["grade_id"] for c in cells if c.get("grade")]
    answers = {c["grade_id"] for c in cells if c.get("solution")}
    for named in (row.package_answers, row.partial, row.typed, row.oracle):
        assert set(named) <= answers, (name, sorted(set(named) - answers))
    assert set(row.function_tests) | set(row.hidden_values) <= set(row.points)
    assert {student.total for student in row.students.values()} <= {
        points / 2 for points in range(int(2 * row.max_score) + 1)}
    assert 0 <= row.typed_score <= row.max_score and 0 < row.partial_score < row.max_score
    assert 0 <= row.oracle_score < row.max_score and row.students["solution"].total == row.max_score
