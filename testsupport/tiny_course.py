"""A tiny nbgrader course for the grader's tests, and filled-in notebooks of it (hand them
in with testsupport.hand_in, grade them with testsupport.course.run_grader).

The assignment `tiny` has one notebook with a locked set-up cell, three answer
cells and four test cells (6 points): `double` (visible test 1 point, hidden
test 2 points), `ones` (2 points, checks with torch.equal, isinstance and
sum), and the value `answer` (1 point).
"""

import hashlib
import json
import os
import subprocess
import sys

import nbformat
from nbgrader.api import Gradebook

from testsupport.course import nbgrader_env, released_once
from testsupport.gradebook import sqlite_url

ASSIGNMENT = "tiny"
NOTEBOOK = "tiny"
MAX_SCORE = 6.0
HIDDEN_MARK = "HIDDEN-CHECK-SENTINEL-7731"  # text only the hidden test contains
POINTS = {"double_visible": 1.0, "double_hidden": 2.0, "ones_values": 2.0, "answer_value": 1.0}
ANSWERS = {
    "double_answer": "def double(x):\n    return 2 * x\n",
    "ones_answer": "def ones(n):\n    return torch.ones(n)\n",
    "answer_answer": "answer = 42\n",
}
CONFIG = '''import os
c = get_config()
ROOT = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "tinycourse"
c.CourseDirectory.root = ROOT
c.CourseDirectory.source_directory = "source"
c.CourseDirectory.release_directory = "release"
c.CourseDirectory.submitted_directory = "course-data/submitted"
c.CourseDirectory.autograded_directory = "course-data/autograded"
c.CourseDirectory.feedback_directory = "course-data/feedback"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(ROOT, "course-data", "gradebook.db")
c.Exchange.root = os.path.join(ROOT, "course-data", "exchange")
# the test's students have no account on this machine: their hand-ins are the tester's own
c.ExchangeCollect.check_owner = False
c.Execute.timeout = 3
c.SandboxGrader.memory_mib = 1536
c.SandboxGrader.course_package = "gptcourse"
c.ServicePage.instructors_group = "gptcourse-graders"
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "grader.plugins.feedback.HideTestCode",
]
c.GenerateFeedback.exporter_class = "grader.plugins.feedback.FeedbackPage"
'''


def _meta(grade_id, *, solution=False, grade=False, locked=False, points=0):
    meta = {"grade_id": grade_id, "solution": solution, "grade": grade, "locked": locked,
            "schema_version": 3}
    if grade:
        meta["points"] = points
    return {"nbgrader": meta}


def instructor_notebook():
    cells = [
        nbformat.v4.new_markdown_cell("# Tiny homework\n\nThree small questions.",
                                      metadata=_meta("intro", locked=True)),
        nbformat.v4.new_code_cell("import torch\nfrom gptcourse import GPTModel",
                                  metadata=_meta("setup", locked=True)),
        nbformat.v4.new_code_cell(
            "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION",
            metadata=_meta("double_answer", solution=True)),
        nbformat.v4.new_code_cell(
            '"""Check that double(2) is the int 4"""\n'
            'result = double(2)\n'
            'assert type(result) is int and result == 4, "double(2) should be 4"',
            metadata=_meta("double_visible", grade=True, locked=True, points=1)),
        nbformat.v4.new_code_cell(
            '"""Check that double doubles numbers it has not seen"""\n'
            "### BEGIN HIDDEN TESTS\n"
            f"# {HIDDEN_MARK}\n"
            "for value in (21, -7, 0):\n"
            "    expected = 2 * value\n"
            "    result = double(value)\n"
            '    assert type(result) is int, "double should return an int"\n'
            '    assert result == expected, "double gave a wrong value"\n'
            "### END HIDDEN TESTS",
            metadata=_meta("double_hidden", grade=True, locked=True, points=2)),
        nbformat.v4.new_code_cell(
            "def ones(n):\n    ### BEGIN SOLUTION\n    return torch.ones(n)\n    ### END SOLUTION",
            metadata=_meta("ones_answer", solution=True)),
        nbformat.v4.new_code_cell(
            '"""Check that ones(n) is a float tensor of n ones"""\n'
            "for n in (1, 3, 5):\n"
            "    t = ones(n)\n"
            '    assert type(t) is torch.Tensor, "ones should return a torch.Tensor"\n'
            "    assert t.shape == (n,) and t.dtype == torch.float32\n"
            '    assert torch.equal(t, torch.ones(n)), "ones(n) should hold n ones"\n'
            "assert not torch.equal(torch.zeros(2), torch.ones(2))\n"
            "assert not torch.allclose(torch.zeros(2), torch.ones(2))\n"
            "assert isinstance(torch.ones(1), torch.Tensor) and not isinstance(1, str)\n"
            "assert sum([1, 2]) == 3",
            metadata=_meta("ones_values", grade=True, locked=True, points=2)),
        nbformat.v4.new_code_cell("### BEGIN SOLUTION\nanswer = 42\n### END SOLUTION",
                                  metadata=_meta("answer_answer", solution=True)),
        nbformat.v4.new_code_cell(
            '"""Check that answer is the int 42"""\n'
            'assert type(answer) is int and answer == 42, "answer should be 42"',
            metadata=_meta("answer_value", grade=True, locked=True, points=1)),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    return nb


def make_course(root):
    """A course at `root` with the assignment released (gradebook and release/ written).

    The course is released once per test process and copied from there.
    """
    return released_once(("tiny",), _release_course, root)


def _release_course(root):
    os.makedirs(os.path.join(root, "source", ASSIGNMENT), exist_ok=True)
    os.makedirs(os.path.join(root, "course-data", "submitted"), exist_ok=True)
    with open(os.path.join(root, "nbgrader_config.py"), "w") as handle:
        handle.write(CONFIG)
    nbformat.write(instructor_notebook(),
                   os.path.join(root, "source", ASSIGNMENT, NOTEBOOK + ".ipynb"))
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT,
                    "--force"], cwd=root, env=nbgrader_env(), check=True, capture_output=True)
    return root


def released(root):
    """The student version as JSON (what a student fetches)."""
    with open(os.path.join(root, "release", ASSIGNMENT, NOTEBOOK + ".ipynb"),
              encoding="utf-8") as handle:
        return json.load(handle)


def record_grades(root, student, points):
    """`student`'s submission of the assignment in the course's gradebook with these auto
    scores ({grade_id: points}), as grading would leave them."""
    with Gradebook(sqlite_url(root), "tinycourse") as gb:
        gb.add_submission(ASSIGNMENT, student)
        for grade_id, got in points.items():
            gb.find_grade(grade_id, NOTEBOOK, ASSIGNMENT, student).auto_score = got
        gb.db.commit()


def grade_id(cell):
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta.get("grade_id") if isinstance(meta, dict) else None


def fill(nb, answers):
    """A copy of notebook JSON `nb` with the given answer cells' sources replaced."""
    nb = json.loads(json.dumps(nb))
    for cell in nb["cells"]:
        if grade_id(cell) in answers:
            cell["source"] = answers[grade_id(cell)]
    return nb


def correct(nb, **overrides):
    return fill(nb, {**ANSWERS, **overrides})


def tree_hashes(folder):
    """{relative path: sha256} of every file and link under `folder`."""
    hashes = {}
    for directory, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, folder)
            if os.path.islink(path):
                hashes[relative] = "link:" + os.readlink(path)
            else:
                with open(path, "rb") as handle:
                    hashes[relative] = hashlib.sha256(handle.read()).hexdigest()
    return hashes


def all_files(folder):
    """The path of every file under `folder`."""
    found = []
    for directory, _, names in os.walk(folder):
        found += [os.path.join(directory, name) for name in names]
    return found


def grader(*args, cwd):
    """`python -m grader ...` in `cwd`; returns the CompletedProcess."""
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=cwd,
                          env=nbgrader_env(), capture_output=True, text=True, timeout=120)


def report(root):
    """{student: {grade_id or '': [rows]}} from reports/tiny.json."""
    with open(os.path.join(root, "course-data", "reports", ASSIGNMENT + ".json"),
              encoding="utf-8") as handle:
        rows = json.load(handle)["rows"]
    by_student = {}
    for row in rows:
        by_student.setdefault(row["student"], []).append(row)
    return by_student


def release_changed_check(root, grade_id, source):
    """The instructor's fix: the check `grade_id` of the instructor's notebook given the
    new `source`, and the assignment released again (nbgrader generate_assignment)."""
    path = os.path.join(root, "source", ASSIGNMENT, NOTEBOOK + ".ipynb")
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id:
            cell.source = source
    nbformat.write(nb, path)
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT,
                    "--force"], cwd=root, env=nbgrader_env(), check=True, capture_output=True)
