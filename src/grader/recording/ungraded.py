"""Submissions handed in or collected after the grade the gradebook holds: not graded yet.

A collect (`make collect`, `make collect-zip`) puts a newer notebook in
submitted/ with its timestamp.txt; the gradebook keeps the grade, and the
feedback page, of the one graded before until the next autograde, which
records the new timestamp. `not_graded_yet` names each student whose
submission is newer than their grade (or has none), so that the grades can
say it and the feedback zip does not send the old page under the new file's
name.
"""

import os
from dataclasses import dataclass
from datetime import datetime

from nbgrader.api import Gradebook

from ..safe_text import shown_id
from ..settings import Settings
from .gradebook import read_timestamp


@dataclass(frozen=True)
class NotGradedYet:
    """A student's submission in submitted/ that the gradebook's grade is not of."""

    student: str
    assignment: str
    handed_in: datetime  # the submission's time, from its timestamp.txt (naive UTC)
    graded: datetime | None  # the time of the submission graded; None: never graded

    @property
    def why(self) -> str:
        """What is not graded, in words, with what to run."""
        what = (f"the grade is of the one handed in {self.graded:%Y-%m-%d %H:%M:%S} UTC"
                if self.graded else "the gradebook has no grade of it")
        return (f"{shown_id(self.student)}'s submission of {self.handed_in:%Y-%m-%d %H:%M:%S} "
                f"UTC is not graded yet ({what}): run make autograde "
                f"ASSIGNMENT={self.assignment}, then make feedback")

    @property
    def line(self) -> str:
        return f"{self.assignment}: {self.why}"


def not_graded_yet(settings: Settings, assignment: str) -> dict[str, NotGradedYet]:
    """{student: NotGradedYet} of every student of submitted/ whose submission of
    `assignment` is later than the one the gradebook graded, or was never graded. A
    submission without a readable time, or graded without one (refused), is left out."""
    handed_in = {}
    for student in settings.students(assignment):
        folder = os.path.join(settings.submitted, student, assignment)
        if os.path.islink(folder) or not os.path.isdir(folder):
            continue  # refused when graded, never read
        moment, _ = read_timestamp(folder)
        if moment is not None:
            handed_in[student] = moment
    if not handed_in:
        return {}
    with Gradebook(settings.db_url, settings.course_id) as gb:
        graded = {s.student_id: (s.timestamp, bool(s.notebooks) or s.timestamp is not None)
                  for s in gb.assignment_submissions(assignment)}
    found = {}
    for student, moment in sorted(handed_in.items()):
        when, recorded = graded.get(student, (None, False))
        if not recorded or (when is not None and moment > when):
            found[student] = NotGradedYet(student, assignment, moment, when)
    return found
