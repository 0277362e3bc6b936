"""Grading one student: pure computation, from a `Job` to a `StudentResult` (results.py).

Nothing here writes to the gradebook or to course-data: `grade_student` runs
each notebook's plan in sandboxed kernels (execution.py) and returns the
result. The single writer (recording/) records it. That split is what lets a
run grade in several worker processes or on a Dask cluster.
"""

import dataclasses
import time
from typing import Any

import nbformat

from ..cells import CellKind, source_text
from ..plan import Plan, Unreadable, build_plan, parse_submission, with_metadata_restored
from ..results import CheckResult, CheckStatus, NotebookResult, NotebookStatus, StudentResult
from ..sandbox import CellOutcome, CellStatus, GraderFault
from .autograded import autograded_notebook
from .caches import instructor_notebook
from .execution import execute_plan, failure_reason
from .job import Job
from .typed_id import per_student_names, reads_any, typed_id, typed_id_remark

# how a check that did not pass is recorded, by how its request ended
CHECK_STATUS = {CellStatus.TIMEOUT: CheckStatus.TIMEOUT, CellStatus.DIED: CheckStatus.DIED,
                CellStatus.NOT_RUN: CheckStatus.NOT_RUN}


def grade_student(job: Job) -> StudentResult:
    """Grade every notebook of one student; returns a StudentResult."""
    started = time.monotonic()
    results = [grade_notebook(name, job) for name in sorted(job.assignment.instructor_texts)]
    missing = [r.notebook for r in results if r.status == NotebookStatus.MISSING]
    notes = list(job.folder_notes)
    for note in job.folder_notes:
        if note.startswith("extra notebook") and missing:
            notes.append(f"{missing[0]}.ipynb is missing; was it renamed? ({note})")
    return StudentResult(job.student, job.assignment.name, notes=notes, notebooks=results,
                         seconds=time.monotonic() - started)


def grade_notebook(name: str, job: Job) -> NotebookResult:
    """Grade the student's notebook `name` against the instructor's notebook of that name."""
    started = time.monotonic()
    instructor = instructor_notebook(job.assignment, name)
    try:
        if name in job.unreadable:
            raise Unreadable(job.unreadable[name])
        if name not in job.submission:
            raise FileNotFoundError(name)
        submission = with_metadata_restored(instructor, parse_submission(job.submission[name]))
        status, message = NotebookStatus.GRADED, ""
    except FileNotFoundError:
        submission, status, message = None, NotebookStatus.MISSING, "notebook missing"
    except Unreadable as problem:
        submission, status, message = None, NotebookStatus.UNREADABLE, str(problem)
    plan = build_plan(instructor, submission)
    if status == NotebookStatus.GRADED:
        try:
            outcomes, execution_notes = execute_plan(plan, job, instructor)
        except GraderFault as fault:
            raise GraderFault(f"{name}.ipynb: {fault}") from None
        execution_notes += with_typed_id_remark(instructor, submission, plan, outcomes, job.student)
    else:
        outcomes, execution_notes = {}, []
    tests: list[CheckResult] = []
    for index, cell in enumerate(plan.cells):
        if cell.kind != CellKind.TEST:
            continue
        outcome = outcomes.get(index)
        if status != NotebookStatus.GRADED:
            tests.append(CheckResult(cell.grade_id, 0.0, cell.points, CheckStatus.NOT_RUN, message))
        elif outcome is None:
            tests.append(CheckResult(cell.grade_id, 0.0, cell.points, CheckStatus.NOT_RUN,
                                     "too many kernel restarts"))
        elif outcome.status == CellStatus.PASSED:
            tests.append(CheckResult(cell.grade_id, cell.points, cell.points, CheckStatus.PASSED))
        else:
            tests.append(CheckResult(cell.grade_id, 0.0, cell.points,
                                     CHECK_STATUS.get(outcome.status, CheckStatus.FAILED),
                                     failure_reason(outcome, cell)))
    autograded = None
    if status != NotebookStatus.MISSING:
        autograded = autograded_notebook(instructor, plan, outcomes, message)
    return NotebookResult(name, status, message, plan.notes + execution_notes, tests,
                          time.monotonic() - started, autograded)


def with_typed_id_remark(instructor: nbformat.NotebookNode, submission: dict[str, Any],
                         plan: Plan, outcomes: dict[int, CellOutcome], student: str) -> list[str]:
    """Notes on a typed id that is not the student's; the words are added to the message of
    every failed check of the student's own model, in `outcomes` (worker/typed_id.py)."""
    remark = typed_id_remark(typed_id(source_text(cell.get("source")) for cell
                                      in submission["cells"] if cell.get("cell_type") == "code"),
                             student)
    if remark is None:
        return []
    names, told = per_student_names(instructor), False
    for index, cell in enumerate(plan.cells):
        outcome = outcomes.get(index)
        if (cell.kind == CellKind.TEST and outcome is not None
                and outcome.status == CellStatus.FAILED and reads_any(cell.source, names)):
            outcomes[index] = dataclasses.replace(outcome, message=f"{outcome.message}\n{remark}")
            told = True
    return [remark] if told else []
