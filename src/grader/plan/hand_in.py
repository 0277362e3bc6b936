"""One student's hand-in on the instructor's machine, and why one is not graded at all.

A `HandIn` is what the run knows of a submission before it is read: whose it
is, of which assignment, where it lies and the instructor's notebooks it
answers. `refusal` says why it must not be read (its folder is a link, its id
cannot be stored, ...); `refused_result` is then its result, every check 0 points.
"""

import os
from dataclasses import dataclass

import nbformat

from ..cells import CellKind
from ..results import (CheckResult, CheckStatus, NotebookResult, NotebookStatus, StudentResult,
                       StudentStatus)
from ..safe_text import file_name, shown_id, student_id_problem
from ..settings import Settings
from .build import build_plan
from .submission import submission_link_problem


@dataclass
class HandIn:
    """One student's hand-in on the instructor's machine: what is read and recorded."""

    student: str
    assignment: str
    submitted_dir: str  # submitted/<student>/<assignment>
    instructor_notebooks: dict[str, str]  # notebook name -> path of the instructor's .ipynb


def refusal(settings: Settings, hand_in: HandIn) -> str | None:
    """Why a hand-in is not graded at all (its folder is a link, ...), or None."""
    if file_name(hand_in.student) != hand_in.student:
        return "the student folder's name is not valid UTF-8 text; not graded"
    problem = student_id_problem(hand_in.student)
    if problem:
        return f"student id {shown_id(hand_in.student)} {problem}; not graded"
    # the folder it lies in: submitted/, or the service's own for a student's check
    root = os.path.dirname(os.path.dirname(hand_in.submitted_dir))
    return submission_link_problem(root, hand_in.student, hand_in.assignment)


def refused_result(hand_in: HandIn, reason: str) -> StudentResult:
    """The result of a hand-in that was not run: every check 0 points, with `reason`."""
    notebooks = []
    for name, path in sorted(hand_in.instructor_notebooks.items()):
        plan = build_plan(nbformat.read(path, as_version=4), None)
        tests = [CheckResult(cell.grade_id, 0.0, cell.points, CheckStatus.NOT_RUN, reason)
                 for cell in plan.cells if cell.kind == CellKind.TEST]
        notebooks.append(NotebookResult(name, NotebookStatus.UNREADABLE, reason, [], tests))
    return StudentResult(hand_in.student, hand_in.assignment, StudentStatus.REFUSED, [reason],
                         notebooks)
