"""The course's late policy applied again to every recorded grade (make late-policy).

A late policy changed in nbgrader_config.py during the term reaches the grades already
recorded only when they are charged again: `apply_late_policy` charges every student who
handed in one of the chosen assignments under the policy as it is now (all of their
assignments, since a late-day budget is spent across them), and says whose late penalty
changed, from what to what.
"""

from dataclasses import dataclass

from nbgrader.api import Gradebook, SubmittedAssignment

from ..plugins.late import policy_in_words
from ..settings import Settings
from .late_penalties import assign_late_penalties

Penalties = dict[tuple[str, str], float]  # (student, assignment) -> the late penalty taken


@dataclass(frozen=True)
class PenaltyChange:
    """One student's assignment whose late penalty the policy now changes."""

    student: str
    assignment: str
    before: float
    after: float

    def in_words(self) -> str:
        return (f"{self.student} {self.assignment}: late penalty {self.before:g} -> "
                f"{self.after:g} point(s)")


def recorded_penalties(settings: Settings, students: set[str]) -> Penalties:
    """{(student, assignment): the late penalty the gradebook holds} of `students`."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        return {(s.student_id, s.assignment.name): sum(
                    nb.late_submission_penalty or 0.0 for nb in s.notebooks)
                for s in gb.db.query(SubmittedAssignment)
                .filter(SubmittedAssignment.student_id.in_(sorted(students)))}


def apply_late_policy(settings: Settings, assignments: list[str]) -> list[PenaltyChange]:
    """Charges again, under the course's late policy as it is now, every student with a
    submission of `assignments`; returns each late penalty it changed, by student."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        students = {s.student_id for s in gb.db.query(SubmittedAssignment)
                    if s.assignment.name in assignments}
    before = recorded_penalties(settings, students)
    late_penalties = settings.late_penalties()
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            for student in sorted(students):
                assign_late_penalties(gb.db, student, late_penalties)
            gb.db.commit()
        except BaseException:
            gb.db.rollback()
            raise
    after = recorded_penalties(settings, students)
    return [PenaltyChange(student, assignment, before.get((student, assignment), 0.0), now)
            for (student, assignment), now in sorted(after.items())
            if abs(now - before.get((student, assignment), 0.0)) > 1e-9]


def late_policy_lines(settings: Settings, assignments: list[str]) -> list[str]:
    """What `apply_late_policy` did, in words: the policy, then each change."""
    changes = apply_late_policy(settings, assignments)
    policy = policy_in_words(settings.late_penalties().plugin_inst)
    return [f"late policy applied again to {', '.join(assignments)} ({policy}): "
            f"{len(changes)} late penalt{'y' if len(changes) == 1 else 'ies'} changed",
            *(f"  {change.in_words()}" for change in changes)]
