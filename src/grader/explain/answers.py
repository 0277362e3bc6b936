"""What grading an explain answer reads: the cell, the student's text and their own values,
and the student's AI declaration (`declaration_of`), which the staff read beside the answer."""

import os
from dataclasses import dataclass
from typing import Any

import nbformat

from ..cells import nbgrader_meta, source_text
from ..plan import Unreadable, read_submission
from ..rubric import Rubric, load_rubric, rubric_path
from ..safe_text import capped, student_id_problem, writable
from ..settings import DECLARATION_GRADE_ID, DECLARATION_PROMPT, CourseError, Settings


MAX_DECLARATION_CHARS = 20_000  # of a declaration shown beside an answer; the file keeps all


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


def declaration_of(settings: Settings, student: str, assignment: str) -> str | None:
    """The student's AI declaration for `assignment` as they handed it in, for the staff to
    read beside the answer, or None when no notebook of theirs holds it or can be read.

    The declaration is the text of the cell ``ai_declaration`` that c.AiPolicy.declaration
    adds (found by its grade_id, else by the prompt it opens with), the released prompt
    taken off: "" when the student wrote nothing in it. A notebook is read as the grader
    reads it (plan.read_submission: too large, too deeply nested, no notebook: None). The
    text is the student's as written, HTML included: whatever shows it escapes it; past
    `MAX_DECLARATION_CHARS` it is cut, saying so. A student id that is no folder name, or
    an unknown assignment, is refused (CourseError)."""
    problem = student_id_problem(student)
    if problem:
        raise CourseError(f"student id {student!r} {problem}")
    for notebook in settings.instructor_notebooks(assignment):
        path = os.path.join(settings.submitted, student, assignment, notebook + ".ipynb")
        try:
            cells = read_submission(path)["cells"]
        except (OSError, Unreadable):
            continue
        texts = [source_text(cell.get("source")).strip() for cell in cells]
        found = [text for cell, text in zip(cells, texts)
                 if nbgrader_meta(cell).get("grade_id") == DECLARATION_GRADE_ID]
        # an editor that drops nbgrader's metadata (Colab) keeps the released prompt
        found += [text for text in texts if text.startswith(DECLARATION_PROMPT)]
        if found:
            return _shown_declaration(found[0].removeprefix(DECLARATION_PROMPT).strip())
    return None


def _shown_declaration(text: str) -> str:
    if len(text) <= MAX_DECLARATION_CHARS:
        return writable(text)
    return (capped(text, MAX_DECLARATION_CHARS) + f"\n\n[... cut: the declaration is "
            f"{len(text):,} characters; the first {MAX_DECLARATION_CHARS:,} are shown]")


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
