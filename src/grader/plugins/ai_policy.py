"""The course's AI policy in each released notebook: what ``nbgrader generate_assignment`` adds.

`AiPolicyCells` is the first preprocessor of c.GenerateAssignment.preprocessors. For an
assignment with a policy (c.AiPolicy.policies) it puts, right after the notebook's first
cell when that is markdown (the introduction; else at the top), a locked markdown cell
holding the policy (grade_id ``ai_policy``), and with c.AiPolicy.declaration a markdown
cell after it where the student says which AI they used (grade_id ``ai_declaration``).

The cells are added when the notebook is generated, not written into solutions/: the
course's configuration is their one source, so a change of the policy is one line and
`make release`, and a course without a policy gets the same released notebooks, byte for
byte, as without this preprocessor. nbgrader's own steps after it treat the policy as any
locked cell (made read-only, its source and checksum recorded in the gradebook, so nbgrader
puts it back if a student changes it). Neither cell is graded: the policy is read-only and
the declaration is a plain markdown cell nbgrader does not manage (a markdown cell cannot
be an answer without points), so the assignment's points and every score stay the same;
the grader keeps both as text of the student's notebook. Each has a fixed cell id, so two
releases of one policy are the same bytes.
"""

from typing import Any

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbformat import NotebookNode
from traitlets import Bool

from ..settings import DECLARATION_GRADE_ID, DECLARATION_PROMPT, POLICY_GRADE_ID, AiPolicy

POLICY_HEADING = "## AI policy for this assignment"


def _metadata(grade_id: str, locked: bool) -> dict[str, Any]:
    meta = {"grade": False, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": False}
    return {"deletable": False, "editable": False, "nbgrader": meta} if locked else {
        "nbgrader": meta}


def ai_policy_cells(policy: str, declaration: bool) -> list[NotebookNode]:
    """The cells an assignment with `policy` gets: the locked policy, then, with
    `declaration`, the cell the student fills. None for an empty policy."""
    if not policy.strip():
        return []
    cells = [nbformat.v4.new_markdown_cell(f"{POLICY_HEADING}\n\n{policy.strip()}",
                                           id=POLICY_GRADE_ID.replace("_", "-"),
                                           metadata=_metadata(POLICY_GRADE_ID, locked=True))]
    if declaration:
        cells.append(nbformat.v4.new_markdown_cell(
            DECLARATION_PROMPT + "\n\n", id=DECLARATION_GRADE_ID.replace("_", "-"),
            metadata=_metadata(DECLARATION_GRADE_ID, locked=False)))
    return cells


def with_ai_policy(nb: NotebookNode, policy: str, declaration: bool) -> NotebookNode:
    """`nb` with the policy's cells after its first markdown cell (at the top when the
    first cell is not markdown); unchanged when `policy` is empty or the notebook holds
    them already."""
    cells = ai_policy_cells(policy, declaration)
    present = {cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") for cell in nb.cells}
    if not cells or POLICY_GRADE_ID in present:
        return nb
    at = 1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0
    nb.cells[at:at] = cells
    return nb


class AiPolicyCells(Preprocessor):
    """The assignment's AI policy (and the declaration cell) added to each notebook that
    nbgrader generates for students."""

    enabled = Bool(True, help="on unless configured off").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]
                   ) -> tuple[NotebookNode, dict[str, Any]]:
        settings = AiPolicy(parent=self)
        assignment = resources.get("nbgrader", {}).get("assignment", "")
        return with_ai_policy(nb, settings.policy_of(assignment), settings.declaration), resources
