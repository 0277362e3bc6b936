"""The autograded notebook: the instructor's notebook with the student's answers and the outputs
the driver decided (never what the student's kernel claims about the checks)."""

import copy

import nbformat

from ..cells import CellKind
from ..plan import Plan, PlanCell
from ..safe_text import without_controls
from ..sandbox import CellOutcome, CellStatus


ADDED_BY_STUDENT = "added_by_student"  # cell metadata of the student's own text cells


def autograded_notebook(instructor: nbformat.NotebookNode, plan: Plan,
                        outcomes: dict[int, CellOutcome], problem: str = ""
                        ) -> nbformat.NotebookNode:
    """The instructor's notebook with the student's answers and the outputs the driver decided."""
    nb = copy.deepcopy(instructor)
    cells = []
    count = 0
    if problem:
        cells.append(nbformat.v4.new_markdown_cell(f"**Grading note:** {problem}. "
                                                   "The answers below are empty."))
    for index, cell in enumerate(plan.cells):
        if cell.instructor_index is not None:
            new = copy.deepcopy(instructor.cells[cell.instructor_index])
        elif cell.kind == CellKind.MARKDOWN:  # text the student added: the page frames it
            new = nbformat.v4.new_markdown_cell(metadata={ADDED_BY_STUDENT: True})
        else:
            new = nbformat.v4.new_code_cell()
        new.pop("id", None)
        if new.cell_type != "code":
            if cell.kind == CellKind.MARKDOWN:
                new.source = cell.source
            cells.append(new)
            continue
        new.source = cell.source
        new.outputs = []
        outcome = outcomes.get(index)
        if outcome is not None:
            count += 1
            new.execution_count = count
            new.outputs = cell_outputs(cell, outcome, count)
        else:
            new.execution_count = None
        cells.append(new)
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    for position, cell in enumerate(nb.cells, 1):  # fresh unique ids (nbformat 4.5), the
        cell.id = f"cell-{position}"  # same in every run, so regrading gives identical files
    return nbformat.from_dict(nb)


def cell_outputs(cell: PlanCell, outcome: CellOutcome, count: int
                 ) -> list[nbformat.NotebookNode]:
    if cell.kind == CellKind.TEST:  # the checker's own printing and the short reason only
        outputs = []
        if outcome.stdout:
            outputs.append(nbformat.v4.new_output("stream", name="stdout",
                                                  text=without_controls(outcome.stdout)))
        if outcome.status != CellStatus.PASSED:
            outputs.append(error_output(outcome.message or outcome.status))
        return outputs
    outputs = []
    for stream, text in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
        if text:
            outputs.append(nbformat.v4.new_output("stream", name=stream,
                                                  text=without_controls(text)))
    if outcome.result is not None:
        outputs.append(nbformat.v4.new_output("execute_result",
                                              data={"text/plain": without_controls(outcome.result)},
                                              execution_count=count))
    if outcome.status != CellStatus.OK:
        outputs.append(error_output(outcome.message or outcome.status))
    return outputs


def error_output(message: str) -> nbformat.NotebookNode:
    message = without_controls(message)
    name, _, value = message.partition(": ")
    if not value or " " in name:
        name, value = "Error", message
    return nbformat.v4.new_output("error", ename=name, evalue=value, traceback=[message])
