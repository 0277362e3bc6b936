"""Late penalties in the gradebook: every notebook of one student charged as the course's policy says.

nbgrader's AssignLatePenalties charges one notebook from its own submission's
lateness. A late-day budget (grader.plugins.late.LateDayBudget) needs the student's
other assignments too, so `assign_late_penalties` charges all of a student's
submissions at once, from what the gradebook holds (due dates, extensions,
hand-in times). It runs whenever one of them changes: a submission recorded,
an extension granted or removed, a due date set. The result is then the same
whatever order the assignments were graded in.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from nbgrader.api import SubmittedAssignment, SubmittedNotebook
from nbgrader.plugins import LateSubmissionPlugin
from sqlalchemy.orm import scoped_session

from ..deadlines import class_due
from ..plugins.late import LateCharge, Lateness, late_charges

if TYPE_CHECKING:  # nbgrader's preprocessors import slowly: only named here
    from nbgrader.preprocessors import AssignLatePenalties


def lateness_of(submission: SubmittedAssignment) -> Lateness:
    """A submitted assignment's due dates and hand-in time, as grader.plugins.late reads them."""
    return Lateness(submission.assignment.name, class_due(submission.assignment),
                    submission.extension, submission.timestamp)


def student_submissions(db: scoped_session, student_id: str) -> list[SubmittedAssignment]:
    """Every SubmittedAssignment of one student in the gradebook's session `db`."""
    return db.query(SubmittedAssignment).filter(SubmittedAssignment.student_id == student_id).all()


def charges_of(db: scoped_session, student_id: str,
               plugin: LateSubmissionPlugin) -> dict[str, LateCharge]:
    """{assignment: grader.plugins.late.LateCharge} of one student under the course's plugin."""
    return late_charges(plugin, [lateness_of(s) for s in student_submissions(db, student_id)])


def assign_late_penalties(db: scoped_session, student_id: str,
                          late_penalties: AssignLatePenalties) -> None:
    """Sets late_submission_penalty on every submitted notebook of one student, as nbgrader's
    AssignLatePenalties does for one (`late_penalties` is one, its plugin initialised).

    The caller commits. A notebook's score is read from the gradebook, so its grades
    must be flushed first.
    """
    plugin = late_penalties.plugin_inst
    charges = charges_of(db, student_id, plugin)
    for submission in student_submissions(db, student_id):
        charge = charges[submission.assignment.name]
        # queried, not submission.notebooks: that list may predate rows added in this session
        for notebook in db.query(SubmittedNotebook).filter(
                SubmittedNotebook.assignment_id == submission.id):
            db.refresh(notebook)  # its score, a column computed from the grades
            notebook.late_submission_penalty = None
            if charge.seconds_charged > 0:
                penalty = plugin.late_submission_penalty(student_id, notebook.score,
                                                         charge.seconds_charged)
                if penalty is not None:
                    notebook.late_submission_penalty = penalty_within_score(
                        penalty, notebook.score, late_penalties.log)
    db.flush()


def penalty_within_score(penalty: float, score: float, log: logging.Logger) -> float:
    """A plugin's penalty kept between 0 and the notebook's score, as nbgrader keeps it,
    with the same warning when it had to be changed."""
    kept = min(max(penalty, 0), score)
    if kept != penalty:
        why = "< 0" if penalty < 0 else "> score"
        log.warning(f"(Penalty {why}) Adjusting late submission penalty from {penalty} to {kept}.")
    return kept
