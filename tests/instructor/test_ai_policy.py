"""The course's AI policy through a real release and a real grading run: the tiny course
released by nbgrader generate_assignment with a policy and the declaration, then graded by
the sandboxed grader. The assignment is worth the same, a student scores the same with the
cells as without them, and the staff read the declaration as the student wrote it."""

import os
import subprocess
import sys

from nbgrader.api import Gradebook

from testsupport import tiny_course as fx
from testsupport.course import nbgrader_env, run_grader
from testsupport.gradebook import gradebook_scores, sqlite_url
from testsupport.hand_in import hand_in
from grader.explain import declaration_of
from grader.settings import load

POLICY = "You may ask an AI to explain an error message. Write every answer yourself."
WITH_POLICY = f'''
c.GenerateAssignment.preprocessors = ["grader.plugins.ai_policy.AiPolicyCells"] + [
    "nbgrader.preprocessors." + name for name in (
        "IncludeHeaderFooter", "InstantiateTests", "LockCells", "ClearSolutions", "ClearOutput",
        "CheckCellMetadata", "ComputeChecksums", "SaveCells", "ClearHiddenTests",
        "ClearMarkScheme", "ComputeChecksums", "CheckCellMetadata")]
c.AiPolicy.policies = {{"tiny": {POLICY!r}}}
c.AiPolicy.declaration = True
'''
# one wrong answer, so the totals compared are not the full marks of every notebook
WRONG_DOUBLE = {"double_answer": "def double(x):\n    return x\n"}


def released_with_policy(root):
    course = fx.make_course(root)
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(WITH_POLICY)
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", fx.ASSIGNMENT,
                    "--force"], cwd=course, env=nbgrader_env(), check=True, capture_output=True)
    return course


def max_score_and_locked_cells(course):
    with Gradebook(sqlite_url(course), "tinycourse") as gb:
        notebook = gb.find_notebook(fx.NOTEBOOK, fx.ASSIGNMENT)
        return (gb.find_assignment(fx.ASSIGNMENT).max_score,
                sorted(cell.name for cell in notebook.source_cells if cell.locked),
                sorted(cell.name for cell in notebook.grade_cells))


def test_a_release_with_a_policy_is_worth_the_same_and_grades_the_same(tmp_path):
    plain = fx.make_course(str(tmp_path / "plain"))
    policy = released_with_policy(str(tmp_path / "policy"))
    released = fx.released(policy)
    assert [fx.grade_id(cell) for cell in released["cells"][:3]] == [
        "intro", "ai_policy", "ai_declaration"]
    assert POLICY in "".join(released["cells"][1]["source"])

    plain_points, plain_locked, plain_checks = max_score_and_locked_cells(plain)
    points, locked, checks = max_score_and_locked_cells(policy)
    assert points == plain_points == fx.MAX_SCORE
    assert checks == plain_checks
    # the policy is a locked cell of the release's record, as nbgrader restores those
    assert locked == sorted(plain_locked + ["ai_policy"])

    declared = fx.correct(released, **WRONG_DOUBLE)
    declared["cells"][2]["source"] += "I asked an assistant what <code>torch.ones</code> does."
    hand_in(policy, "ada", fx.ASSIGNMENT, {fx.NOTEBOOK + ".ipynb": declared})
    hand_in(plain, "ada", fx.ASSIGNMENT,
            {fx.NOTEBOOK + ".ipynb": fx.correct(fx.released(plain), **WRONG_DOUBLE)})
    run_grader(policy, fx.ASSIGNMENT, check=True)
    run_grader(plain, fx.ASSIGNMENT, check=True)
    scores = gradebook_scores(policy, fx.ASSIGNMENT)
    assert scores == gradebook_scores(plain, fx.ASSIGNMENT)
    assert sum(scores["ada"].values()) == fx.MAX_SCORE - 3  # double's two checks missed

    assert declaration_of(load(policy), "ada", fx.ASSIGNMENT) == (
        "I asked an assistant what <code>torch.ones</code> does.")
    assert declaration_of(load(plain), "ada", fx.ASSIGNMENT) is None
