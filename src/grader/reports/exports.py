"""Grades out of the course: grades.csv, each LMS's gradebook import and a roster CSV with scores.

Student-controlled text (ids, names, e-mail addresses, sections) is written
without control characters, and a cell a spreadsheet would read as a formula
(starting with =, +, - or @) is prefixed with an apostrophe, which
spreadsheets show as text. Files are written to a temporary name and moved
into place, so a failed export never leaves half a file.
"""

import os

from ..deadlines import naive_utc
from ..files import csv_text, write_atomically
from ..lms import GradebookCsv, gradebooks
from ..safe_text import CsvValue, spreadsheet_cell
from ..settings import Settings
from .grades import AssignmentGrades, number
from .roster import PERSON_FIELDS, Person

# nbgrader's own `nbgrader export` columns, in its order
GRADES_FIELDS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name",
                 "email", "raw_score", "late_submission_penalty", "score", "max_score"]


def grades_rows(people: dict[str, Person], grades: list[AssignmentGrades]
                ) -> list[dict[str, CsvValue]]:
    """nbgrader's export rows: every student of the gradebook for every assignment."""
    rows = []
    for assignment in grades:
        for student in sorted(people):
            person = people[student]
            submission = assignment.submissions.get(student)
            row = {"assignment": spreadsheet_cell(assignment.name),
                   "duedate": naive_utc(assignment.class_due) or "", "student_id": spreadsheet_cell(student),
                   "last_name": spreadsheet_cell(person.last_name),
                   "first_name": spreadsheet_cell(person.first_name),
                   "email": spreadsheet_cell(person.email),
                   "max_score": number(assignment.max_score)}
            if submission is None:
                row.update(timestamp="", raw_score="0", late_submission_penalty="0", score="0")
            else:
                row.update(timestamp=submission.timestamp or "",
                           raw_score=number(submission.raw_score),
                           late_submission_penalty=number(submission.penalty),
                           score=number(submission.score))
            rows.append(row)
    return rows


def gradebook_import_rows(gradebook: GradebookCsv, people: dict[str, Person],
                          grades: list[AssignmentGrades]) -> list[list[CsvValue]]:
    """An LMS's gradebook import: the person's columns of `gradebook` (for Canvas: Student,
    ID, SIS User ID, SIS Login ID, Section), then one column per assignment, and the
    points-possible row first. The institution's id is the one the LMS's export gave (the
    roster's sis_user_id), empty where it gave none: never the course's id, which the LMS
    could take for another student's."""
    header = gradebook.columns + [spreadsheet_cell(a.name) for a in grades]
    rows = [header, [gradebook.points_possible, "", "", "", ""]
            + [number(a.max_score) for a in grades]]
    for student in sorted(people, key=lambda s: (people[s].name.lower(), s)):
        person = people[student]
        scores = [number(a.submissions[student].score) if student in a.submissions else "0"
                  for a in grades]
        rows.append([spreadsheet_cell(person.name), spreadsheet_cell(person.lms_user_id),
                     spreadsheet_cell(person.sis_user_id), spreadsheet_cell(student),
                     spreadsheet_cell(person.section)] + scores)
    return rows


def roster_rows(people: dict[str, Person], grades: list[AssignmentGrades]
                ) -> list[list[CsvValue]]:
    """The roster's columns, then the score of each assignment and the total."""
    header = PERSON_FIELDS + [spreadsheet_cell(a.name) for a in grades] + ["total", "max_total"]
    rows = [header]
    max_total = sum(a.max_score for a in grades)
    for student in sorted(people):
        person = people[student]
        scores = [a.submissions[student].score if student in a.submissions else 0.0
                  for a in grades]
        rows.append([spreadsheet_cell(getattr(person, f)) for f in PERSON_FIELDS]
                    + [number(s) for s in scores] + [number(sum(scores)), number(max_total)])
    return rows


def export_paths(settings: Settings) -> dict[str, str]:
    """{what: path}: "grades", each LMS's gradebook import under the LMS's name
    (exports/<lms>.csv), then "roster"."""
    data = settings.data
    return {"grades": os.path.join(data, "grades.csv"),
            **{lms.name: os.path.join(data, "exports", f"{lms.name}.csv")
               for lms, _ in gradebooks()},
            "roster": os.path.join(data, "exports", "grades-by-student.csv")}


def write_exports(settings: Settings, people: dict[str, Person], grades: list[AssignmentGrades]
                  ) -> dict[str, str]:
    """grades.csv, exports/<lms>.csv for each LMS with a gradebook import, and
    exports/grades-by-student.csv; returns their paths (`export_paths`)."""
    paths = export_paths(settings)
    write_atomically(paths["grades"], csv_text(grades_rows(people, grades), GRADES_FIELDS))
    for lms, gradebook in gradebooks():
        write_atomically(paths[lms.name],
                         csv_text(gradebook_import_rows(gradebook, people, grades)))
    write_atomically(paths["roster"], csv_text(roster_rows(people, grades)))
    return paths
