"""A hand-in before it is read: which are refused, and what a refused one scores."""

import os
import types

import nbformat

from testsupport import tiny_course as fx
from grader.cells import CellKind
from grader.plan import HandIn, build_plan, refusal, refused_result
from grader.results import CheckStatus, NotebookStatus, StudentStatus


def _hand_in(root, student):
    return HandIn(student, fx.ASSIGNMENT, os.path.join(root, "submitted", student, fx.ASSIGNMENT),
                  {fx.NOTEBOOK: os.path.join(root, "instructor.ipynb")})


def test_a_student_folder_that_is_a_link_is_refused_and_a_plain_one_is_not(tmp_path):
    submitted = tmp_path / "submitted"
    (submitted / "alice" / fx.ASSIGNMENT).mkdir(parents=True)
    (tmp_path / "elsewhere" / fx.ASSIGNMENT).mkdir(parents=True)
    (submitted / "mallory").symlink_to(tmp_path / "elsewhere")
    settings = types.SimpleNamespace(submitted=str(submitted))
    assert refusal(settings, _hand_in(str(tmp_path), "alice")) is None
    assert "symbolic link" in refusal(settings, _hand_in(str(tmp_path), "mallory"))
    assert "student id" in refusal(settings, _hand_in(str(tmp_path), "-rf"))


def test_a_refused_hand_in_scores_nothing_on_every_check_with_the_reason(tmp_path):
    nbformat.write(fx.instructor_notebook(), str(tmp_path / "instructor.ipynb"))
    result = refused_result(_hand_in(str(tmp_path), "mallory"), "not graded: a link")
    assert result.status == StudentStatus.REFUSED and result.notes == ["not graded: a link"]
    [notebook] = result.notebooks
    assert notebook.status == NotebookStatus.UNREADABLE
    assert {t.grade_id: t.max_points for t in notebook.tests} == fx.POINTS
    assert all(t.points == 0 and t.status == CheckStatus.NOT_RUN
               and t.message == "not graded: a link" for t in notebook.tests)


def test_the_plan_names_each_cell_s_kind_with_the_enum():
    plan = build_plan(fx.instructor_notebook(), None)
    assert all(isinstance(cell.kind, CellKind) for cell in plan.cells)
    assert [c.grade_id for c in plan.cells if c.kind == CellKind.TEST] == list(fx.POINTS)
