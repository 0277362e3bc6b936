"""The assignments are the folders of solutions/: a new one needs no edit elsewhere.

A copy of the course gets a small third assignment folder; the Makefile's list,
the grader's settings and the tests' helpers all see it, without any other file
changed. The tests' registry (testsupport/assignments/) has a row module for every
folder and a folder for every row module, each row naming only cells the folder's
notebook has; a folder without its row is named, with what the row must hold.
"""

import json
import os

import pytest

from testsupport.assignment_row import required_fields
from testsupport.assignments import (ASSIGNMENTS, load_rows, missing_row_message, missing_rows,
                                     row_file)
from testsupport.course import ROOT, assignments, copy_course, make, notebook_file, read_notebook
from testsupport.notebook_contract import package_function_answers, package_imports

THIRD = "sampling"


def _notebook():
    cell = {"cell_type": "code", "execution_count": None, "outputs": [], "source": "x = 1\n",
            "metadata": {"nbgrader": {"grade_id": "x_answer", "solution": True, "grade": False,
                                      "locked": False, "schema_version": 3}}}
    return {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


@pytest.fixture
def course_with_a_third_assignment(tmp_path):
    course = copy_course(str(tmp_path / "course"), ("testsupport/assignments",), for_make=True)
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
    assert missing_rows() == [], "\n\n".join(missing_row_message(name) for name in missing_rows())
    folder = os.path.dirname(row_file("any"))
    modules = sorted(f for f in os.listdir(folder) if f.endswith(".py") and f != "__init__.py")
    assert modules == sorted(os.path.basename(row_file(name)) for name in assignments()), (
        "a row module of testsupport/assignments/ whose folder of solutions/ is gone")
    assert sorted(ASSIGNMENTS) == sorted(assignments())
    for name, row in ASSIGNMENTS.items():
        assert row.name == name and row.notebook == assignments()[name]


def test_a_folder_without_its_row_is_named_with_what_the_row_must_hold(
        course_with_a_third_assignment):
    course = course_with_a_third_assignment
    assert missing_rows(course) == [THIRD]
    rows = load_rows(course)
    assert sorted(rows) == sorted(ASSIGNMENTS)
    with pytest.raises(KeyError) as missing:
        rows[THIRD]
    message = missing.value.args[0]
    assert message.startswith("solutions/sampling/ has no row in the tests' registry: write "
                              "testsupport/assignments/sampling.py defining ROW = "
                              "AssignmentRow(...)")
    assert "name='sampling', notebook='sampling'" in message
    for field, meaning in required_fields():
        assert f"    {field}: {meaning}\n" in message
    assert [field for field, _ in required_fields()] == [
        "name", "notebook", "points", "students", "hidden_values", "allowed_imports",
        "package_answers", "partial", "partial_score", "typed", "typed_score",
        "function_tests", "oracle", "oracle_score"]
    assert all(meaning for _, meaning in required_fields())
    with pytest.raises(KeyError, match="'nothing' is no assignment: the assignments are the "
                                       "folders of solutions/"):
        rows["nothing"]


def test_a_row_written_beside_a_third_folder_is_its_row(course_with_a_third_assignment):
    course = course_with_a_third_assignment
    with open(row_file(THIRD, course), "w", encoding="utf-8") as handle:
        handle.write(
            "from testsupport.assignment_row import AssignmentRow, Student\n\n"
            "ROW = AssignmentRow(name='sampling', notebook='sampling', points={}, "
            "students={'solution': Student(total=0)}, hidden_values={}, "
            "allowed_imports=frozenset(), package_answers=(), partial=(), partial_score=0, "
            "typed={}, typed_score=0, function_tests=(), oracle={}, oracle_score=0)\n")
    assert missing_rows(course) == []
    rows = load_rows(course)
    assert sorted(rows) == sorted([*ASSIGNMENTS, THIRD]) and rows[THIRD].notebook == "sampling"
    assert ASSIGNMENTS is not rows and THIRD not in ASSIGNMENTS


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
    notebook = notebook_file("solutions", name)
    assert row.allowed_imports == package_imports(notebook)
    assert package_function_answers(notebook) <= set(row.package_answers)
    assert {student.total for student in row.students.values()} <= {
        points / 2 for points in range(int(2 * row.max_score) + 1)}
    assert 0 <= row.typed_score <= row.max_score and 0 < row.partial_score < row.max_score
    assert 0 <= row.oracle_score < row.max_score and row.students["solution"].total == row.max_score
