"""Grades as the gradebook holds them: every figure the reports and exports show comes from here.

Every figure is read from nbgrader's gradebook, so manual grades given in
formgrader and late penalties count everywhere exactly as nbgrader counts them
(a grade's manual score replaces its automatic one; the score is the raw score
less the late penalty, never below zero).
"""

from dataclasses import dataclass, field

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from ..settings import CourseError, Settings
from .roster import Person, read_roster, roster_path


def number(value: object) -> str:
    """A score as the reports show it: 6.5, 10 (no trailing .0)."""
    return f"{float(value or 0):g}"


@dataclass
class Check:
    notebook: str
    grade_id: str
    max_points: float


@dataclass
class SubmissionGrades:
    """One student's grades of one assignment, as the gradebook holds them."""

    student: str
    timestamp: object
    seconds_late: float
    raw_score: float
    penalty: float
    max_score: float
    points: dict = field(default_factory=dict)  # (notebook, grade_id) -> points (manual wins)
    notebook_scores: dict = field(default_factory=dict)  # notebook -> score less its penalty

    @property
    def score(self) -> float:
        return max(0.0, self.raw_score - self.penalty)


@dataclass
class AssignmentGrades:
    name: str
    duedate: object
    max_score: float
    checks: list  # Check, in notebook order
    submissions: dict  # student id -> SubmissionGrades


def checks_in_order(settings: Settings, assignment: str) -> list:
    """Every graded cell of an assignment (its checks and manually graded answers), in the
    order the notebooks show them."""
    checks = []
    for name, path in settings.instructor_notebooks(assignment).items():
        for nb_cell in nbformat.read(path, as_version=4).cells:
            meta = nb_cell.metadata.get("nbgrader", {})
            if meta.get("grade") and meta.get("grade_id"):
                checks.append(Check(name, meta["grade_id"], float(meta.get("points", 0))))
    return checks


def read_grades(settings: Settings, assignments: list) -> tuple:
    """({student id: Person}, [AssignmentGrades]) from the gradebook and the imported roster."""
    try:
        return _read_grades(settings, assignments)
    except CourseError:
        raise
    except Exception as error:  # noqa: BLE001 (database unreadable, unreachable, ...)
        raise CourseError(f"the gradebook {settings.db_url} cannot be read: {error}") from None


def _read_grades(settings, assignments):
    people = {}
    roster = {p.id: p for p in read_roster(roster_path(settings))}
    result = []
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student in gb.students:
            known = roster.get(student.id)
            people[student.id] = Person(student.id, student.first_name or "",
                                        student.last_name or "", student.email or "",
                                        known.section if known else "",
                                        student.lms_user_id or "")
        for student_id, person in roster.items():
            people.setdefault(student_id, person)
        for name in assignments:
            try:
                assignment = gb.find_assignment(name)
            except MissingEntry:
                raise CourseError(f"assignment {name!r} is not in the gradebook: "
                                  f"run make release") from None
            submissions = {}
            for submitted in gb.assignment_submissions(name):
                entry = SubmissionGrades(submitted.student.id, submitted.timestamp,
                                   submitted.total_seconds_late, submitted.score,
                                   submitted.late_submission_penalty or 0.0,
                                   submitted.max_score)
                for notebook in submitted.notebooks:
                    entry.notebook_scores[notebook.name] = max(
                        0.0, notebook.score - (notebook.late_submission_penalty or 0.0))
                    for grade in notebook.grades:
                        entry.points[(notebook.name, grade.name)] = grade.score
                submissions[entry.student] = entry
            result.append(AssignmentGrades(name, assignment.duedate, assignment.max_score,
                                           checks_in_order(settings, name), submissions))
    return people, result
