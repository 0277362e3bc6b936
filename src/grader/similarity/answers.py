"""What the similarity report compares: each student's answer cells, read defensively.

A student's answers are the code cells of their submitted notebooks that
nbgrader marks ``solution: true`` and the code cells they added (no nbgrader
grade_id); the instructor's set-up and test cells are left out, whatever the
student did to them. A cell counts up to its first COMPARED_CELL_CHARS characters
(a longer one is cut, not dropped), and a student up to MAX_CELLS cells and
MAX_STUDENT_CHARS characters in all, which bounds what one student costs the report
in time and memory; a student compared in part is listed with what was left out. The
shared code is every code cell of the instructor's notebooks: the released code,
and the solutions, which the site teaches. A submission that cannot be read is
listed with its reason, never fatal.
"""

import ast
import os
from dataclasses import dataclass, field
from typing import Any

from ..cells import nbgrader_meta, source_text
from ..plan import Unreadable, read_submission, submission_link_problem
from ..safe_text import shown, shown_id, student_id_problem
from ..settings import CourseError, Settings

RELEASED_STUB = "raise NotImplementedError()\n"
# the characters of one cell compared, its first; the rest is cut (a pasted data dump is no answer)
COMPARED_CELL_CHARS = 100_000
MAX_CELLS = 300  # of one student, compared
# of one student's code compared, in all: fingerprinting is linear in it (about 10 s a
# million characters), and it is 60 times a whole honest notebook's answers
MAX_STUDENT_CHARS = 200_000


@dataclass(frozen=True)
class AnswerCell:
    """One cell compared: where it is and its source (as the student wrote it)."""

    notebook: str
    number: int  # 1-based position in the notebook
    label: str  # its grade_id, or "added cell"
    source: str  # every control, bidi or invisible character written as its escape


@dataclass
class ClassAnswers:
    """An assignment's answers: each student's cells, the shared code, and who is missing."""

    assignment: str
    students: dict[str, list[AnswerCell]] = field(default_factory=dict)
    shared: list[str] = field(default_factory=list)  # sources of the instructor's code cells
    required: set[str] = field(default_factory=set)  # names the instructor's cells read
    not_compared: dict[str, str] = field(default_factory=dict)  # {student: reason}
    compared_in_part: dict[str, str] = field(default_factory=dict)  # {student: what was left out}


def compared_cell(cell: dict[str, Any]) -> str | None:
    """What a submitted cell counts as ("solution" grade_id or "added cell"), or None when
    it is not compared (markdown, the instructor's set-up and test cells)."""
    if cell.get("cell_type") != "code":
        return None
    meta = nbgrader_meta(cell)
    if meta.get("solution"):
        return meta.get("grade_id") or "answer cell"
    if meta.get("grade_id"):
        return None
    return "added cell"


def read_names(sources: list[str]) -> set[str]:
    names = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        names.update(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    return names


def instructor_code(settings: Settings, assignment: str) -> tuple[list[str], list[str]]:
    """([every code cell's source], {notebook names}) of the assignment's instructor notebooks."""
    shared = [RELEASED_STUB]
    notebooks = settings.instructor_notebooks(assignment)
    for path in notebooks.values():
        try:
            nb = read_submission(path)
        except (Unreadable, OSError) as error:
            raise CourseError(f"instructor notebook {path} cannot be read: {error}") from None
        shared += [source_text(c.get("source")) for c in nb["cells"]
                   if c.get("cell_type") == "code"]
    return shared, sorted(notebooks)


def student_cells(settings: Settings, student: str, assignment: str,
                  notebooks: list[str]) -> tuple[list[AnswerCell], str]:
    """([AnswerCell] of one student's submission, what of it was left out ("" when
    nothing)); raises Unreadable with the reason."""
    problem = student_id_problem(student)
    if problem:
        raise Unreadable(f"student id {problem}")
    problem = submission_link_problem(settings.submitted, student, assignment)
    if problem:
        raise Unreadable(problem)
    cells, missing, budget = [], [], CompareBudget()
    for name in notebooks:
        path = os.path.join(settings.submitted, student, assignment, name + ".ipynb")
        try:
            nb = read_submission(path)
        except FileNotFoundError:
            missing.append(name + ".ipynb")
            continue
        except OSError as error:
            raise Unreadable(f"{name}.ipynb could not be read ({error.strerror})") from None
        except Unreadable as error:
            raise Unreadable(f"{name}.ipynb: {error}") from None
        for number, cell in enumerate(nb["cells"], 1):
            label = compared_cell(cell)
            source = budget.taken(cell["source"]) if label else ""
            if source:
                cells.append(AnswerCell(name, number, shown(label),
                                        shown(source, keep_layout=True)))
    if missing and len(missing) == len(notebooks):
        raise Unreadable("no notebook handed in (" + ", ".join(missing) + ")")
    return cells, budget.left_out()


@dataclass
class CompareBudget:
    """What of one student's cells is compared: MAX_CELLS cells, COMPARED_CELL_CHARS
    characters of each and MAX_STUDENT_CHARS in all, in notebook order."""

    cells: int = 0
    chars: int = 0
    cut_chars: int = 0  # left out of cells compared in part, or not compared at all
    cut_cells: int = 0  # cells not compared at all

    def taken(self, source: str) -> str:
        """The start of `source` compared ("" when nothing of it is)."""
        room = min(COMPARED_CELL_CHARS, MAX_STUDENT_CHARS - self.chars)
        if self.cells >= MAX_CELLS or room <= 0:
            self.cut_cells += bool(source.strip())
            self.cut_chars += len(source)
            return ""
        kept = source[:room]
        self.cells += 1
        self.chars += len(kept)
        self.cut_chars += len(source) - len(kept)
        return kept

    def left_out(self) -> str:
        if not self.cut_chars and not self.cut_cells:
            return ""
        return (f"{self.cut_chars:,} characters left out ({self.cut_cells:,} cells not compared "
                f"at all): a student's first {MAX_CELLS} cells are compared, the first "
                f"{COMPARED_CELL_CHARS:,} characters of each and {MAX_STUDENT_CHARS:,} in all")


def read_class(settings: Settings, assignment: str) -> ClassAnswers:
    """Every submitted student's answer cells for `assignment`, and the shared code."""
    shared, notebooks = instructor_code(settings, assignment)
    answers = ClassAnswers(assignment, shared=shared, required=read_names(shared))
    for student in settings.students(assignment):
        try:
            answers.students[student], left_out = student_cells(settings, student, assignment,
                                                                notebooks)
            if left_out:
                answers.compared_in_part[shown_id(student)] = left_out
        except Unreadable as error:
            answers.not_compared[shown_id(student)] = str(error)
    return answers
