"""What grading an explain answer reads: the cell, the student's text and their own values."""

import os
from dataclasses import dataclass
from typing import Any

import nbformat

from ..cells import nbgrader_meta, source_text
from ..plan import Unreadable, read_submission
from ..rubric import Rubric, load_rubric, rubric_path
from ..settings import CourseError, Settings


@dataclass(frozen=True)
class ExplainCell:
    """An assignment's manually graded answer: its notebook, grade_id, points and rubric."""

    assignment: str
    notebook: str
    grade_id: str
    points: float
    rubric: Rubric


def explain_cell(settings: Settings, assignment: str) -> ExplainCell:
    """The explain cell of `assignment` (its instructor notebook's manually graded markdown
    answer) and its rubric, checked against the cell's points."""
    for notebook, path in settings.instructor_notebooks(assignment).items():
        for cell in nbformat.read(path, as_version=4).cells:
            meta = nbgrader_meta(cell)
            if cell.cell_type == "markdown" and meta.get("grade") and meta.get("solution"):
                points = float(meta.get("points") or 0)
                rubric = load_rubric(rubric_path(settings.root, assignment), points,
                                     meta["grade_id"])
                return ExplainCell(assignment, notebook, meta["grade_id"], points, rubric)
    raise CourseError(f"{assignment} has no explain cell (a manually graded markdown answer; "
                      f"docs/explain-questions.md)")


def student_answer(settings: Settings, cell: ExplainCell, student: str) -> str | None:
    """The student's text of the explain cell as they handed it in (found by its grade_id,
    else by its cell id), or None when there is no such notebook or cell, or it cannot be
    read (plan.read_submission: too large, too deeply nested, no notebook)."""
    path = os.path.join(settings.submitted, student, cell.assignment, cell.notebook + ".ipynb")
    try:
        cells = read_submission(path)["cells"]
    except (OSError, Unreadable):
        return None
    for found in cells:
        if nbgrader_meta(found).get("grade_id") == cell.grade_id:
            return source_text(found.get("source"))
    for found in cells:
        if found.get("id") == cell.grade_id:
            return source_text(found.get("source"))
    return None


def student_values(settings: Settings, rubric: Rubric, student: str) -> dict[str, Any]:
    """The placeholders of `rubric` for `student`: the names its `values` bind, run with the
    student's id and the course's salt (the instructor's code, as the set-up cells are)."""
    names: dict[str, Any] = {"student": student, "salt": settings.variant_salt}
    try:
        exec(compile(rubric.values, rubric.path + " (values)", "exec"), names)  # noqa: S102
    except Exception as error:  # the instructor's code: say where it failed
        raise CourseError(f"{rubric.path}: the values failed for {student}: "
                          f"{type(error).__name__}: {error}") from None
    return {name: names[name] for name in rubric.placeholders if name in names}
