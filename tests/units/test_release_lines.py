"""The lines make release writes into the notebooks: the variant salt (refused while stale)
and the install line of the course package.

Also where the set-up that reads the student's id runs: never in the shared prelude.
"""

import json
import os

import nbformat

from testsupport.course import copy_course


def salt_lines(path):
    with open(path, encoding="utf-8") as handle:
        cells = json.load(handle)["cells"]
    return [line for cell in cells for line in "".join(cell["source"]).splitlines()
            if line.startswith("COURSE_SALT = ")]


def test_a_new_terms_salt_is_written_into_the_notebook_and_refused_until_then(tmp_path):
    from grader.settings import load, stale_salts, write_release_lines

    course = copy_course(str(tmp_path / "course"))
    config = os.path.join(course, "nbgrader_config.py")
    notebook = os.path.join(course, "solutions", "parameters", "parameters.ipynb")
    assert stale_salts(load(course)) == []
    with open(notebook, "rb") as handle:
        before = handle.read()
    assert write_release_lines(load(course)) == []  # nothing to change: the file is kept byte for byte
    with open(config, "a", encoding="utf-8") as handle:
        handle.write('c.StudentVariants.salt = "2027-spring"\n')
    stale = stale_salts(load(course))
    assert stale == ['solutions/parameters/parameters.ipynb has COURSE_SALT = "2026-fall", but '
                     'c.StudentVariants.salt is "2027-spring": run `make release`, which '
                     'writes the salt into the notebooks']
    assert write_release_lines(load(course)) == [(notebook, 'COURSE_SALT = "2027-spring"')]
    assert stale_salts(load(course)) == []
    [line] = salt_lines(notebook)
    assert line.startswith('COURSE_SALT = "2027-spring"  # ')  # the comment is kept
    with open(notebook, "rb") as handle:
        after = handle.read()
    assert len(after.splitlines()) == len(before.splitlines())  # one line changed, no reformatting
    assert sum(a != b for a, b in zip(after.splitlines(), before.splitlines())) == 1


def test_the_set_up_that_reads_the_student_id_is_not_in_the_shared_prelude():
    from grader.plan import build_plan
    from grader.worker.execution import leading_setup
    from testsupport.course import ROOT

    instructor = nbformat.read(os.path.join(ROOT, "solutions", "parameters", "parameters.ipynb"),
                               as_version=4)
    plan = build_plan(instructor, None)
    code = [i for i, cell in enumerate(plan.cells) if cell.kind != "markdown"]
    prelude = [plan.cells[i].grade_id for i in leading_setup(plan, code)]
    assert prelude == ["install", "setup", "student_id"]
    assert plan.cells[code[len(prelude)]].grade_id == "own-model"
