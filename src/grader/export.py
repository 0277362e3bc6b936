"""Grades out of the gradebook: grades.csv, a Canvas gradebook CSV and a plain roster CSV.

Every figure is read from nbgrader's gradebook, so manual grades given in
formgrader and late penalties count everywhere exactly as nbgrader counts them
(a grade's manual score replaces its automatic one; the score is the raw score
less the late penalty, never below zero). Student-controlled text (ids, names,
e-mail addresses, sections) is written without control characters, and a cell
a spreadsheet would read as a formula (starting with =, +, - or @) is prefixed
with an apostrophe, which spreadsheets show as text. Files are written to a
temporary name and moved into place, so a failed export never leaves half a file.
"""

import csv
import io
import os
import re
from dataclasses import dataclass, field

import nbformat

from .files import write_atomically
from .record import spreadsheet_safe
from .roster import read_roster, roster_path

CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# nbgrader's own `nbgrader export` columns, in its order
GRADES_FIELDS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name",
                 "email", "raw_score", "late_submission_penalty", "score", "max_score"]
PERSON_FIELDS = ["id", "first_name", "last_name", "email", "section"]


def plain(text):
    """`text` as one line of plain text: control characters (tab, CR, newline, NUL...) removed."""
    return CONTROL.sub("", "" if text is None else str(text))


def cell(text):
    """`text` safe as a spreadsheet cell: plain, and never read as a formula."""
    return spreadsheet_safe(plain(text))


def number(value):
    """A score as the CSV shows it: 6.5, 10 (no trailing .0)."""
    return f"{float(value or 0):g}"


@dataclass
class Person:
    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    section: str = ""
    lms_user_id: str = ""

    @property
    def name(self):
        """'Last, First' as LMS gradebooks list students, or the id when there is no name."""
        if self.last_name and self.first_name:
            return f"{self.last_name}, {self.first_name}"
        return self.last_name or self.first_name or self.id


@dataclass
class Check:
    notebook: str
    grade_id: str
    max_points: float


@dataclass
class Submission:
    student: str
    timestamp: object
    seconds_late: float
    raw_score: float
    penalty: float
    max_score: float
    points: dict = field(default_factory=dict)  # (notebook, grade_id) -> points (manual wins)
    notebook_scores: dict = field(default_factory=dict)  # notebook -> score less its penalty

    @property
    def score(self):
        return max(0.0, self.raw_score - self.penalty)


@dataclass
class AssignmentGrades:
    name: str
    duedate: object
    max_score: float
    checks: list  # Check, in notebook order
    submissions: dict  # student id -> Submission


def checks_in_order(settings, assignment):
    """Every graded cell of an assignment (its checks and manually graded answers), in the
    order the notebooks show them."""
    checks = []
    for name, path in settings.instructor_notebooks(assignment).items():
        for nb_cell in nbformat.read(path, as_version=4).cells:
            meta = nb_cell.metadata.get("nbgrader", {})
            if meta.get("grade") and meta.get("grade_id"):
                checks.append(Check(name, meta["grade_id"], float(meta.get("points", 0))))
    return checks


def read_grades(settings, assignments):
    """({student id: Person}, [AssignmentGrades]) from the gradebook and the imported roster."""
    from .course import CourseError

    try:
        return _read_grades(settings, assignments)
    except CourseError:
        raise
    except Exception as error:  # noqa: BLE001 (database unreadable, unreachable, ...)
        raise CourseError(f"the gradebook {settings.db_url} cannot be read: {error}") from None


def _read_grades(settings, assignments):
    from nbgrader.api import Gradebook, MissingEntry

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
                from .course import CourseError

                raise CourseError(f"assignment {name!r} is not in the gradebook: "
                                  f"run make release") from None
            submissions = {}
            for submitted in gb.assignment_submissions(name):
                entry = Submission(submitted.student.id, submitted.timestamp,
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


def grades_rows(people, grades):
    """nbgrader's export rows: every student of the gradebook for every assignment."""
    rows = []
    for assignment in grades:
        for student in sorted(people):
            person = people[student]
            submission = assignment.submissions.get(student)
            row = {"assignment": cell(assignment.name),
                   "duedate": assignment.duedate or "", "student_id": cell(student),
                   "last_name": cell(person.last_name), "first_name": cell(person.first_name),
                   "email": cell(person.email), "max_score": number(assignment.max_score)}
            if submission is None:
                row.update(timestamp="", raw_score="0", late_submission_penalty="0", score="0")
            else:
                row.update(timestamp=submission.timestamp or "",
                           raw_score=number(submission.raw_score),
                           late_submission_penalty=number(submission.penalty),
                           score=number(submission.score))
            rows.append(row)
    return rows


def canvas_rows(people, grades):
    """Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then one
    column per assignment, and a 'Points Possible' row first."""
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    header += [cell(a.name) for a in grades]
    rows = [header, ["Points Possible", "", "", "", ""] + [number(a.max_score) for a in grades]]
    for student in sorted(people, key=lambda s: (people[s].name.lower(), s)):
        person = people[student]
        scores = [number(a.submissions[student].score) if student in a.submissions else "0"
                  for a in grades]
        rows.append([cell(person.name), cell(person.lms_user_id), cell(student), cell(student),
                     cell(person.section)] + scores)
    return rows


def roster_rows(people, grades):
    """The roster's columns, then the score of each assignment and the total."""
    header = PERSON_FIELDS + [cell(a.name) for a in grades] + ["total", "max_total"]
    rows = [header]
    max_total = sum(a.max_score for a in grades)
    for student in sorted(people):
        person = people[student]
        scores = [a.submissions[student].score if student in a.submissions else 0.0
                  for a in grades]
        rows.append([cell(getattr(person, f)) for f in PERSON_FIELDS]
                    + [number(s) for s in scores] + [number(sum(scores)), number(max_total)])
    return rows


def csv_text(rows, fields=None):
    text = io.StringIO(newline="")
    if fields:
        writer = csv.DictWriter(text, fields)
        writer.writeheader()
        writer.writerows(rows)
    else:
        csv.writer(text).writerows(rows)
    return text.getvalue()


def export_paths(settings):
    data = os.path.dirname(settings.submitted)
    return {"grades": os.path.join(data, "grades.csv"),
            "canvas": os.path.join(data, "exports", "canvas.csv"),
            "roster": os.path.join(data, "exports", "grades-by-student.csv")}


def write_exports(settings, people, grades):
    """grades.csv, exports/canvas.csv and exports/grades-by-student.csv; returns their paths."""
    paths = export_paths(settings)
    write_atomically(paths["grades"], csv_text(grades_rows(people, grades), GRADES_FIELDS))
    write_atomically(paths["canvas"], csv_text(canvas_rows(people, grades)))
    write_atomically(paths["roster"], csv_text(roster_rows(people, grades)))
    return paths
