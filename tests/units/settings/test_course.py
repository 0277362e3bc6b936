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

from testsupport.assignment_row import Student, required_fields
from testsupport.assignments import (ASSIGNMENTS, load_rows, missing_row_message, missing_rows,
                                     row_file, row_problems)
from testsupport.course import ROOT, assignments, copy_course, make

THIRD = "beam-search"  # a throw-away assignment, no folder of solutions/


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
    with open(os.path.join(folder, "beam_search.ipynb"), "w", encoding="utf-8") as handle:
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
        **{name: row.notebook for name, row in ASSIGNMENTS.items()}, THIRD: "beam_search"}


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
    assert message.startswith("solutions/beam-search/ has no row in the tests' registry: write "
                              "testsupport/assignments/beam_search.py defining ROW = "
                              "AssignmentRow(...)")
    assert "name='beam-search', notebook='beam_search'" in message
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
            "ROW = AssignmentRow(name='beam-search', notebook='beam_search', points={}, "
            "students={'solution': Student(total=0)}, hidden_values={}, "
            "allowed_imports=frozenset(), package_answers=(), partial=(), partial_score=0, "
            "typed={}, typed_score=0, function_tests=(), oracle={}, oracle_score=0)\n")
    assert missing_rows(course) == []
    rows = load_rows(course)
    assert sorted(rows) == sorted([*ASSIGNMENTS, THIRD]) and rows[THIRD].notebook == "beam_search"
    assert ASSIGNMENTS is not rows and THIRD not in ASSIGNMENTS


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_a_row_names_only_cells_its_notebook_has_with_the_points_it_gives(name):
    assert row_problems(ASSIGNMENTS[name]) == []


def test_a_row_that_does_not_fit_its_notebook_says_what_does_not():
    import dataclasses

    row = ASSIGNMENTS["parameters"]
    wrong = dataclasses.replace(
        row, points={**row.points, "output_shape": 1}, partial=("no_such_answer",),
        function_tests=("no_such_check",), allowed_imports=row.allowed_imports - {"GPTModel"},
        package_answers=(), partial_score=0, students={**row.students, "quarter": Student(2.25)})
    problems = row_problems(wrong)
    assert problems[0].startswith("its points are {'output_shape': 1, ")
    assert problems[1:] == [
        "partial names ['no_such_answer'], no answer cell of the notebook",
        "function_tests names ['no_such_check'], no test cell of the notebook",
        f"allowed_imports is {sorted(row.allowed_imports - {'GPTModel'})}; the notebook imports "
        f"{sorted(row.allowed_imports)} from the package",
        "package_answers leaves out ['count_parameters_answer', 'count_tied_parameters_answer', "
        "'model_size_mib_answer'], which write a function the package has",
        "a student's total is not a score of the notebook (0 to the most, in halves)",
        "typed_score or partial_score is no score the notebook can give",
        "the student 'solution' is missing or does not earn every point"]


def test_the_honest_students_of_every_row_have_names_of_their_own():
    from testsupport.honest_students import STYLES

    names = [style.name for style in STYLES]
    names += [name for row in ASSIGNMENTS.values()
              for name in (*row.wrappers, *row.argument_changers)]
    assert sorted(name for name in set(names) if names.count(name) > 1) == []
    assert {style.assignment for row in ASSIGNMENTS.values() for style in row.styles
            if style.assignment != row.name} == set()
