"""A course whose package does not use torch is graded without torch: the grader never
imports it (here it cannot: `import torch` fails in the grader's process), nor does the
student's sandbox.

The course's package is the standard library's ``json``, which uses no torch; its
notebook asks for a function, and its checks call the student's `torch_loaded` in
their kernel (a check's calls run there).
"""

import os
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from testsupport.course import nbgrader_env
from testsupport.gradebook import sqlite_url
from testsupport.hand_in import hand_in

ASSIGNMENT = NOTEBOOK = "encoding"
CONFIG = '''import os
c = get_config()
ROOT = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "jsoncourse"
c.CourseDirectory.root = ROOT
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "course-data/submitted"
c.CourseDirectory.autograded_directory = "course-data/autograded"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(ROOT, "course-data", "gradebook.db")
c.Exchange.root = os.path.join(ROOT, "course-data", "exchange")
c.Execute.timeout = 10
c.SandboxGrader.course_package = "json"
'''
# the grader's command, in a process where `import torch` raises ImportError
WITHOUT_TORCH = ("import runpy, sys; sys.modules['torch'] = None; "
                 "sys.argv = ['grader', *sys.argv[1:]]; "
                 "runpy.run_module('grader', run_name='__main__')")


def meta(grade_id, **flags):
    points = flags.pop("points", None)
    nbgrader = {"grade_id": grade_id, "solution": False, "grade": False, "locked": False,
                "schema_version": 3, **flags}
    if points is not None:
        nbgrader["points"] = points
    return {"nbgrader": nbgrader}


def instructor_notebook():
    cells = [
        nbformat.v4.new_code_cell("import json\nimport sys", metadata=meta("setup", locked=True)),
        nbformat.v4.new_code_cell(
            "def encoded(value):\n    ### BEGIN SOLUTION\n"
            "    return json.dumps(value, sort_keys=True)\n    ### END SOLUTION",
            metadata=meta("encoded_answer", solution=True)),
        nbformat.v4.new_code_cell(
            "def torch_loaded():\n    ### BEGIN SOLUTION\n"
            "    return sys.modules.get('torch') is not None\n    ### END SOLUTION",
            metadata=meta("torch_loaded_answer", solution=True)),
        nbformat.v4.new_code_cell(
            '"""Check that encoded writes keys in order"""\n'
            'assert encoded({"b": 1, "a": [2]}) == \'{"a": [2], "b": 1}\'',
            metadata=meta("encoded_sorted", grade=True, locked=True, points=2)),
        nbformat.v4.new_code_cell(
            '"""Check that the kernel did not load torch"""\n'
            "assert torch_loaded() is False, 'the kernel loaded torch'",
            metadata=meta("no_torch", grade=True, locked=True, points=1)),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    return nb


@pytest.fixture(scope="module")
def graded_without_torch(tmp_path_factory):
    """(course folder, the grader's run) of one student's hand-in graded in a process that
    cannot import torch."""
    root = str(tmp_path_factory.mktemp("without-torch") / "course")
    os.makedirs(os.path.join(root, "source", ASSIGNMENT))
    os.makedirs(os.path.join(root, "course-data", "submitted"))
    with open(os.path.join(root, "nbgrader_config.py"), "w", encoding="utf-8") as handle:
        handle.write(CONFIG)
    nbformat.write(instructor_notebook(),
                   os.path.join(root, "source", ASSIGNMENT, NOTEBOOK + ".ipynb"))
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT],
                   cwd=root, env=nbgrader_env(), check=True, capture_output=True, timeout=300)
    released = nbformat.read(os.path.join(root, "release", ASSIGNMENT, NOTEBOOK + ".ipynb"),
                             as_version=4)
    answers = {"encoded_answer": "def encoded(value):\n"
                                 "    return json.dumps(value, sort_keys=True)\n",
               "torch_loaded_answer": "def torch_loaded():\n"
                                      "    return sys.modules.get('torch') is not None\n"}
    for cell in released.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        cell.source = answers.get(grade_id, cell.source)
    hand_in(root, "ada", ASSIGNMENT, {NOTEBOOK + ".ipynb": released})
    run = subprocess.run([sys.executable, "-c", WITHOUT_TORCH, "autograde", ASSIGNMENT],
                         cwd=root, env=nbgrader_env(), capture_output=True, text=True,
                         timeout=900)
    return root, run


def test_a_course_without_torch_is_graded_in_full_by_a_grader_that_cannot_import_it(
        graded_without_torch):
    root, run = graded_without_torch
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    with Gradebook(sqlite_url(root), "jsoncourse") as gb:
        submission = gb.find_submission_notebook(NOTEBOOK, ASSIGNMENT, "ada")
        scores = {grade.name: grade.score for grade in submission.grades}
    assert scores == {"encoded_sorted": 2.0, "no_torch": 1.0}
