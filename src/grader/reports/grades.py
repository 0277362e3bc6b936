"""Grades as the gradebook holds them: every figure the reports and exports show comes from here.

Every figure is read from nbgrader's gradebook, so manual grades given in
formgrader and late penalties count everywhere exactly as nbgrader counts them
(a grade's manual score replaces its automatic one; the score is the raw score
less the late penalty, never below zero).
"""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from ..deadlines import class_due
from ..recording import charges_of, lateness_of, read_student_parts
from ..settings import CourseError, Settings, shown_url
from .digest import feedback_digest
from .roster import Person, read_roster, roster_path


def number(value: float | None) -> str:
    """A score as the reports show it: 6.5, 10 (no trailing .0)."""
    return f"{float(value or 0):g}"


@dataclass
class Check:
    """One graded cell of an assignment (a check or a manually graded answer)."""

    notebook: str
    grade_id: str
    max_points: float


@dataclass
class SubmissionGrades:
    """One student's grades of one assignment, as the gradebook holds them."""

    student: str
    timestamp: datetime | None
    seconds_late: float
    raw_score: float
    penalty: float
    max_score: float
    # (notebook, grade_id) -> points (manual wins)
    points: dict[tuple[str, str], float] = field(default_factory=dict)
    notebook_scores: dict[str, float] = field(default_factory=dict)  # less its penalty
    extension: timedelta | None = None  # the student's extension, None: none
    seconds_after_class_due: float = 0.0  # late by the class's due date, extension aside
    late_days_used: int = 0  # under a late-day budget (grader.plugins.late.LateDayBudget)
    late_days_left: int | None = None  # None: the course has no late-day budget
    # (notebook, grade_id) -> the grader's comment (manual wins), each check's message
    comments: dict[tuple[str, str], str] = field(default_factory=dict)
    messages: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return max(0.0, self.raw_score - self.penalty)

    @property
    def digest(self) -> str:
        """What went out to the student, as one digest (reports.digest)."""
        return feedback_digest(self.score, self.comments, self.messages)


@dataclass
class AssignmentGrades:
    """One assignment's grades: its due date, its checks and each student's submission."""

    name: str
    class_due: datetime | None  # aware UTC, None: none set
    max_score: float
    checks: list[Check]  # in notebook order
    submissions: dict[str, SubmissionGrades]  # by student id
    extensions: dict[str, timedelta] = field(default_factory=dict)  # handed in or not

    def score_of(self, student: str) -> float:
        """The student's score as the exports and the grade push give it: after the late
        penalty (their extension counted), 0 when nothing was handed in."""
        submission = self.submissions.get(student)
        return submission.score if submission is not None else 0.0


def checks_in_order(settings: Settings, assignment: str) -> list[Check]:
    """Every graded cell of an assignment (its checks and manually graded answers), in the
    order the notebooks show them."""
    checks = []
    for name, path in settings.instructor_notebooks(assignment).items():
        for nb_cell in nbformat.read(path, as_version=4).cells:
            meta = nb_cell.metadata.get("nbgrader", {})
            if meta.get("grade") and meta.get("grade_id"):
                checks.append(Check(name, meta["grade_id"], float(meta.get("points", 0))))
    return checks


def read_grades(settings: Settings, assignments: list[str]
                ) -> tuple[dict[str, Person], list[AssignmentGrades]]:
    """({student id: Person}, [AssignmentGrades]) from the gradebook and the imported roster."""
    try:
        return _read_grades(settings, assignments)
    except CourseError:
        raise
    except Exception as error:  # noqa: BLE001 (database unreadable, unreachable, ...)
        raise CourseError(f"the gradebook {shown_url(settings.db_url)} cannot be read: "
                          f"{error}") from None


def _read_grades(settings, assignments):
    people = {}
    roster = {p.id: p for p in read_roster(roster_path(settings))}
    result = []
    plugin = settings.late_penalties().plugin_inst
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student in gb.students:
            known = roster.get(student.id)
            people[student.id] = Person(student.id, student.first_name or "",
                                        student.last_name or "", student.email or "",
                                        known.section if known else "",
                                        student.lms_user_id or "",
                                        known.sis_user_id if known else "",
                                        known.lti_user_id if known else "")
        for student_id, person in roster.items():
            people.setdefault(student_id, person)
        for name in assignments:
            try:
                assignment = gb.find_assignment(name)
            except MissingEntry:
                raise CourseError(f"assignment {name!r} is not in the gradebook: "
                                  f"run make release") from None
            submissions, extensions = {}, {}
            parts = {part.student: part for part in read_student_parts(settings.reports, name)}
            for submitted in gb.assignment_submissions(name):
                if submitted.extension is not None:
                    extensions[submitted.student_id] = submitted.extension
                if submitted.timestamp is None and not submitted.notebooks:
                    continue  # only an extension: nothing handed in yet
                lateness = lateness_of(submitted)  # nbgrader's own reading, undated allowed
                charge = charges_of(gb.db, submitted.student_id, plugin)[name]
                entry = SubmissionGrades(submitted.student.id, submitted.timestamp,
                                         lateness.seconds_late, submitted.score,
                                         submitted.late_submission_penalty or 0.0,
                                         submitted.max_score, extension=submitted.extension,
                                         seconds_after_class_due=lateness.seconds_after_class_due,
                                         late_days_used=charge.late_days_used,
                                         late_days_left=charge.late_days_left)
                for notebook in submitted.notebooks:
                    entry.notebook_scores[notebook.name] = max(
                        0.0, notebook.score - (notebook.late_submission_penalty or 0.0))
                    for grade in notebook.grades:
                        entry.points[(notebook.name, grade.name)] = grade.score
                    for comment in notebook.comments:
                        text = (comment.manual_comment if comment.manual_comment is not None
                                else comment.auto_comment)
                        if text:
                            entry.comments[(notebook.name, comment.name)] = text
                part = parts.get(entry.student)
                for notebook_part in part.notebooks if part is not None else []:
                    for test in notebook_part.tests:
                        if test.message:
                            entry.messages[(notebook_part.notebook, test.grade_id)] = test.message
                submissions[entry.student] = entry
            result.append(AssignmentGrades(name, class_due(assignment), assignment.max_score,
                                           checks_in_order(settings, name), submissions,
                                           extensions))
    return people, result
