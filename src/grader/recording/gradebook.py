"""The gradebook: one student's automatic scores written as nbgrader's autograde writes them.

`record_in_gradebook` writes a `StudentResult` in one database transaction,
with the rows nbgrader's add_submission would create and the late penalty
nbgrader's AssignLatePenalties would give (late_penalties.py), through a
gradebook connection that the writer keeps for the run (`open_gradebook`).
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import TYPE_CHECKING

from nbgrader.api import Comment, Grade, Gradebook, Student, SubmittedAssignment, SubmittedNotebook
from nbgrader.utils import parse_utc

from ..results import NotebookStatus, StudentResult
from .late_penalties import assign_late_penalties

if TYPE_CHECKING:  # nbgrader's preprocessors import slowly: only named here
    from nbgrader.preprocessors import AssignLatePenalties


def read_timestamp(submitted_dir: str) -> tuple[datetime | None, str | None]:
    """The submission time from nbgrader's timestamp.txt, or (None, note) if unusable."""
    path = os.path.join(submitted_dir, "timestamp.txt")
    if not os.path.isfile(path) or os.path.islink(path):
        return None, None
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(200).strip()
        return (parse_utc(text), None) if text else (None, None)
    except (ValueError, OSError, OverflowError, UnicodeDecodeError):
        return None, "timestamp.txt could not be read; the submission time is unknown"


def open_gradebook(db_url: str, course_id: str) -> Gradebook:
    """nbgrader's Gradebook of the course at `db_url` (its tables made if missing); the
    caller closes it."""
    return Gradebook(db_url, course_id)


def record_in_gradebook(gb: Gradebook, result: StudentResult, timestamp: datetime | None,
                        late_penalties: AssignLatePenalties | None = None) -> None:
    """Write one student's auto scores (a StudentResult) in one transaction of the open
    gradebook `gb`, as nbgrader's autograde would; rolled back if anything fails.

    `late_penalties` is nbgrader's AssignLatePenalties built with the course's
    settings (Settings.late_penalties); a submission after the student's due date
    (the class's, plus any extension) gets, per notebook, the penalty its plugin
    gives, exactly as stock nbgrader assigns it; the student's other submissions
    are charged again with it (late_penalties.py: a late-day budget spans them).
    Without it nbgrader's default applies (no penalty).
    """
    if late_penalties is None:
        from nbgrader.preprocessors import AssignLatePenalties  # imports slowly: when needed

        late_penalties = AssignLatePenalties()
        late_penalties.init_plugin()
    db = gb.db
    try:
        if db.query(Student).filter(Student.id == result.student).one_or_none() is None:
            db.add(Student(id=result.student))
            db.flush()
        assignment = gb.find_assignment(result.assignment)
        submission = (db.query(SubmittedAssignment)
                      .filter(SubmittedAssignment.assignment == assignment,
                              SubmittedAssignment.student_id == result.student)
                      .one_or_none())
        if submission is None:
            submission = SubmittedAssignment(assignment=assignment,
                                             student=db.get(Student, result.student))
            db.add(submission)
            db.flush()
        submission.timestamp = timestamp
        _complete_structure(db, assignment, submission)
        statuses = {nb.notebook: nb.status for nb in result.notebooks}
        for notebook in assignment.notebooks:
            submitted = _submitted_notebook(db, notebook, submission)
            names = {c.id: c.name for c in list(notebook.grade_cells) + list(notebook.task_cells)}
            scores = result.scores(notebook.name)
            # not missing or unreadable
            graded = statuses.get(notebook.name) == NotebookStatus.GRADED
            for grade in db.query(Grade).filter(Grade.notebook_id == submitted.id):
                name = names.get(grade.cell_id)
                if name in scores:
                    grade.auto_score = float(scores[name])
                else:  # a manually graded answer or task: a person grades it
                    grade.auto_score = None if graded else 0.0
                grade.needs_manual_grade = (grade.manual_score is not None
                                            or grade.auto_score is None)
            db.flush()
        # this submission's and the student's others (a late-day budget spans them)
        assign_late_penalties(db, result.student, late_penalties)
        db.commit()
    except BaseException:
        db.rollback()
        raise


def _submitted_notebook(db, notebook, submission):
    return (db.query(SubmittedNotebook)
            .filter(SubmittedNotebook.notebook_id == notebook.id,
                    SubmittedNotebook.assignment_id == submission.id)
            .one_or_none())


def _complete_structure(db, assignment, submission):
    """The rows nbgrader's add_submission creates (a notebook, grades and comments), if missing."""
    for notebook in assignment.notebooks:
        submitted = _submitted_notebook(db, notebook, submission)
        if submitted is None:
            submitted = SubmittedNotebook(notebook_id=notebook.id, assignment_id=submission.id)
            db.add(submitted)
            db.flush()
        grades = {g.cell_id for g in db.query(Grade).filter(Grade.notebook_id == submitted.id)}
        comments = {c.cell_id for c in db.query(Comment).filter(Comment.notebook_id == submitted.id)}
        for cell in list(notebook.grade_cells) + list(notebook.task_cells):
            if cell.id not in grades:
                db.add(Grade(cell_id=cell.id, notebook_id=submitted.id))
        for cell in list(notebook.solution_cells) + list(notebook.task_cells):
            if cell.id not in comments:
                db.add(Comment(cell_id=cell.id, notebook_id=submitted.id))
        db.flush()
