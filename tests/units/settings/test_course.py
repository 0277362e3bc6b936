"""The assignments are the folders of solutions/: a new one needs no edit elsewhere.

A copy of the course gets a small third assignment folder; the Makefile's list,
the grader's settings and the tests' helpers all see it, without any other file
changed.
"""

import json
import os

import pytest

from testsupport.course import ROOT, assignments, copy_course, make

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
    assert done.stdout.split() == sorted(["logits-to-text", "parameters", THIRD])


def test_a_third_assignment_folder_is_in_the_graders_settings(course_with_a_third_assignment):
    from grader.settings import load

    settings = load(course_with_a_third_assignment)
    assert settings.assignments == sorted(["logits-to-text", "parameters", THIRD])


def test_a_third_assignment_folder_is_seen_by_the_test_helpers(course_with_a_third_assignment):
    assert assignments(course_with_a_third_assignment) == {
        "logits-to-text": "logits_to_text", "parameters": "parameters", THIRD: "sampling"}


def test_the_course_settings_name_no_assignment():
    with open(os.path.join(ROOT, "nbgrader_config.py"), encoding="utf-8") as handle:
        settings = handle.read()
    for name in assignments():
        assert f'"{name}"' not in settings and f"'{name}'" not in settings, name
