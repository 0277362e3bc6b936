"""The course's AI policy in the released notebooks: a locked cell after the introduction and
the declaration cell after it, added by nbgrader generate_assignment's first step; nothing
without a policy; neither graded."""

import copy
import json
import os

import nbformat
from nbgrader.converters import GenerateAssignment
from nbgrader.preprocessors import CheckCellMetadata, ClearSolutions, LockCells
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

from testsupport import tiny_course as fx
from grader.cells import CellKind
from grader.plan import build_plan
from grader.plugins.ai_policy import AiPolicyCells

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))))
TINY = fx.instructor_notebook()  # one copy: its cells' random ids are the same in every run
POLICY = "You may ask an AI to explain an error.\n\nWrite every answer yourself."


def generated(config, assignment=fx.ASSIGNMENT):
    """The tiny notebook after the policy's step and nbgrader's steps that need no gradebook
    (locking, solutions cleared, the metadata validated), as generate_assignment runs them."""
    nb = copy.deepcopy(TINY)
    resources = {"nbgrader": {"assignment": assignment, "notebook": fx.NOTEBOOK,
                              "student": "."}, "language": "python"}
    for step in (AiPolicyCells, LockCells, ClearSolutions, CheckCellMetadata):
        nb, resources = step(config=Config(config)).preprocess(nb, resources)
    return nb


def test_the_policy_is_a_locked_cell_after_the_introduction_and_the_declaration_follows():
    nb = generated({"AiPolicy": {"policies": {fx.ASSIGNMENT: POLICY}, "declaration": True}})
    ids = [cell.metadata.nbgrader["grade_id"] for cell in nb.cells]
    assert ids[:4] == ["intro", "ai_policy", "ai_declaration", "setup"]
    policy, declaration = nb.cells[1], nb.cells[2]
    assert (policy.cell_type, policy.id, policy.source) == (
        "markdown", "ai-policy", "## AI policy for this assignment\n\n" + POLICY)
    assert dict(policy.metadata.nbgrader) == {"grade": False, "grade_id": "ai_policy",
                                              "locked": True, "schema_version": 3,
                                              "solution": False}
    assert (policy.metadata.deletable, policy.metadata.editable) == (False, False)
    assert (declaration.cell_type, declaration.id) == ("markdown", "ai-declaration")
    assert declaration.source.startswith("**Your AI declaration** (not graded;")
    assert "which AI tools you used for this assignment" in declaration.source
    assert dict(declaration.metadata.nbgrader) == {"grade": False, "grade_id": "ai_declaration",
                                                   "locked": False, "schema_version": 3,
                                                   "solution": False}
    assert "editable" not in declaration.metadata and "deletable" not in declaration.metadata


def test_without_declaration_only_the_policy_is_added_and_other_assignments_get_nothing():
    only_policy = generated({"AiPolicy": {"policies": {fx.ASSIGNMENT: POLICY}}})
    assert [c.metadata.nbgrader["grade_id"] for c in only_policy.cells][:3] == [
        "intro", "ai_policy", "setup"]
    other = generated({"AiPolicy": {"policies": {"another": POLICY}, "declaration": True}})
    empty = generated({"AiPolicy": {"policies": {fx.ASSIGNMENT: "  \n"}, "declaration": True}})
    plain = generated({})
    assert nbformat.writes(other) == nbformat.writes(empty) == nbformat.writes(plain)
    assert len(plain.cells) == len(fx.instructor_notebook().cells)


def test_a_notebook_that_does_not_open_with_text_gets_the_policy_at_the_top():
    nb = fx.instructor_notebook()
    del nb.cells[0]
    config = Config({"AiPolicy": {"policies": {"tiny": POLICY}}})
    nb, _ = AiPolicyCells(config=config).preprocess(nb, {"nbgrader": {"assignment": "tiny"}})
    assert [c.metadata.nbgrader["grade_id"] for c in nb.cells][:2] == ["ai_policy", "setup"]
    again, _ = AiPolicyCells(config=config).preprocess(nb, {"nbgrader": {"assignment": "tiny"}})
    assert [c.metadata.nbgrader["grade_id"] for c in again.cells].count("ai_policy") == 1


def test_the_policy_and_the_declaration_add_no_points_and_change_no_score():
    """A student's notebook with both cells, the declaration filled in, is planned with the
    same checks and points as one without them, and both cells are text, never run."""
    nb = generated({"AiPolicy": {"policies": {fx.ASSIGNMENT: POLICY}, "declaration": True}})
    submission = json.loads(nbformat.writes(nb))
    submission["cells"][2]["source"] += "I asked an assistant about `torch.ones`."
    without = json.loads(nbformat.writes(generated({})))
    with_cells, plain = build_plan(fx.instructor_notebook(), submission), build_plan(
        fx.instructor_notebook(), without)
    checks = [(c.grade_id, c.kind, c.points) for c in with_cells.cells if c.points or c.grade_id]
    assert checks == [(c.grade_id, c.kind, c.points) for c in plain.cells
                      if c.points or c.grade_id]
    assert sum(c.points for c in with_cells.cells) == sum(c.points for c in plain.cells) == 6.0
    added = [c for c in with_cells.cells if c.grade_id is None]
    assert [c.kind for c in added] == [CellKind.MARKDOWN, CellKind.MARKDOWN]
    assert added[1].source.endswith("I asked an assistant about `torch.ones`.")
    assert with_cells.notes == plain.notes


def test_the_course_runs_the_policys_step_first_then_every_step_of_nbgrader():
    config = PyFileConfigLoader("nbgrader_config.py", path=ROOT).load_config()
    configured = list(config.GenerateAssignment.preprocessors)
    defaults = [f"nbgrader.preprocessors.{step.__name__}"
                for step in GenerateAssignment.class_traits()["preprocessors"].default()]
    assert configured == ["grader.plugins.ai_policy.AiPolicyCells"] + defaults
    assert (config.AiPolicy.policies, config.AiPolicy.declaration) == ({}, False)
