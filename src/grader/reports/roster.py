"""The class roster: student ids, names, e-mail addresses and sections, imported from a CSV.

    make roster ROSTER=students.csv

The CSV has a header row with the column ``id`` (the student's login, as
nbgrader knows it) and any of ``first_name``, ``last_name``, ``email``,
``section`` and ``lms_user_id`` (the student's id in the LMS, e.g. Canvas's
numeric user id). Names and e-mail addresses go into nbgrader's gradebook
(formgrader shows them, grades.csv carries them); the whole roster, sections
included, is kept as ``course-data/roster.csv`` for the exports. Importing
again updates the students it lists and keeps every grade.

Canvas's own gradebook export (Grades, Export, "Export Entire Gradebook") is
read as it comes: ``Student`` ("Last, First"), ``ID`` (Canvas's user id, the
number in the names of its submission downloads: lms_user_id), ``SIS User
ID``, ``SIS Login ID`` (the course's student id) and ``Section``; its other
columns (scores, assignments) are left out, and the rows that are not students
(the "Points Possible" row Canvas puts first, the posting-policy row, Canvas's
test student "Student, Test") are skipped with a line saying so.
"""

import csv
import os
from dataclasses import dataclass

from nbgrader.api import Gradebook

from ..files import csv_text, write_atomically
from ..safe_text import one_line, student_id_problem
from ..settings import CourseError, Settings

COLUMNS = ["id", "first_name", "last_name", "email", "section", "lms_user_id"]
PERSON_FIELDS = COLUMNS[:5]  # the roster's columns in the exports
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_TEST_STUDENT = "Student, Test"


@dataclass
class Person:
    """One student of the class list."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    section: str = ""
    lms_user_id: str = ""

    @property
    def name(self) -> str:
        """'Last, First' as LMS gradebooks list students, or the id when there is no name."""
        if self.last_name and self.first_name:
            return f"{self.last_name}, {self.first_name}"
        return self.last_name or self.first_name or self.id


def roster_path(settings: Settings) -> str:
    """course-data/roster.csv, the roster as last imported."""
    return os.path.join(settings.data, "roster.csv")


def parse_roster(path: str, notes: list[str] | None = None) -> list[Person]:
    """[Person] from the CSV at `path`, the course's roster or Canvas's gradebook export;
    CourseError with the line for anything wrong in it. The rows of a Canvas export that
    are not students are skipped, each with a line added to `notes`."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            if set(CANVAS_COLUMNS[:2] + CANVAS_COLUMNS[3:4]) <= {
                    h.strip() for h in (reader.fieldnames or [])}:
                people = parse_canvas_export(path, reader, [] if notes is None else notes)
                if not people:
                    raise CourseError(f"{path}: no students in it")
                return people
            if "Student" in {h.strip() for h in (reader.fieldnames or [])}:
                missing = [c for c in CANVAS_COLUMNS[:2] + CANVAS_COLUMNS[3:4]
                           if c not in {h.strip() for h in reader.fieldnames}]
                raise CourseError(f"{path}: a Canvas gradebook export needs the columns "
                                  f"{', '.join(CANVAS_COLUMNS)}; {', '.join(missing)} missing "
                                  f"(export the entire gradebook from Canvas again)")
            header = [h.strip().lower() for h in (reader.fieldnames or [])]
            if "id" not in header:
                raise CourseError(f"{path}: the first row must name the columns, one of them "
                                  f"'id' (the columns: {', '.join(COLUMNS)})")
            unknown = [h for h in header if h not in COLUMNS]
            if unknown:
                raise CourseError(f"{path}: unknown column(s) {', '.join(unknown)} "
                                  f"(the columns: {', '.join(COLUMNS)})")
            reader.fieldnames = header
            people, seen = [], {}
            for row in reader:
                line = reader.line_num
                if None in row:
                    raise CourseError(f"{path}, line {line}: more cells than columns")
                student = (row.get("id") or "").strip()
                check_new_id(path, line, student, seen)
                people.append(Person(student, **{k: one_line(row.get(k) or "").strip()
                                                 for k in COLUMNS[1:]}))
    except OSError as error:
        raise CourseError(f"the roster {path} cannot be read: {error}") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise CourseError(f"the roster {path} is not a UTF-8 CSV file: {error}") from None
    if not people:
        raise CourseError(f"{path}: no students in it")
    return people


def check_new_id(path: str, line: int, student: str, seen: dict[str, int]) -> None:
    """CourseError unless `student` can be an id and is not listed before (in `seen`)."""
    problem = student_id_problem(student)
    if problem:
        raise CourseError(f"{path}, line {line}: the id {problem} ({student!r})")
    if student in seen:
        raise CourseError(f"{path}, line {line}: {student!r} is listed twice "
                          f"(first on line {seen[student]})")
    seen[student] = line


def parse_canvas_export(path: str, reader: csv.DictReader, notes: list[str]) -> list[Person]:
    """[Person] of the students of Canvas's gradebook export read by `reader`."""
    reader.fieldnames = [h.strip() for h in reader.fieldnames]
    people, seen = [], {}
    for row in reader:
        line = reader.line_num
        if None in row:
            raise CourseError(f"{path}, line {line}: more cells than columns")
        cell = {name: one_line(row.get(name) or "").strip() for name in CANVAS_COLUMNS}
        if cell["Student"] == "Points Possible":
            notes.append(f"{path}, line {line}: Canvas's Points Possible row, skipped")
            continue
        if not cell["Student"] and not cell["ID"]:
            notes.append(f"{path}, line {line}: no student (a row of Canvas's settings), "
                         f"skipped")
            continue
        if cell["Student"] == CANVAS_TEST_STUDENT:
            notes.append(f"{path}, line {line}: Canvas's test student ({CANVAS_TEST_STUDENT}), "
                         f"skipped")
            continue
        student = cell["SIS Login ID"]
        if not student:
            raise CourseError(f"{path}, line {line}: {cell['Student']!r} has no SIS Login ID, "
                              f"the course's student id (Canvas ID {cell['ID'] or 'none'})")
        check_new_id(path, line, student, seen)
        last, _, first = cell["Student"].partition(",")
        people.append(Person(student, first_name=first.strip(), last_name=last.strip(),
                             section=cell["Section"], lms_user_id=cell["ID"]))
    return people


def read_roster(path: str) -> list[Person]:
    """The imported roster ([Person]), or [] before any import."""
    if not os.path.exists(path):
        return []
    return parse_roster(path)


def import_roster(settings: Settings, source: str, notes: list[str] | None = None
                  ) -> list[Person]:
    """Every student of the CSV `source` into the gradebook and course-data/roster.csv
    (the rows of a Canvas export that are not students skipped, with lines in `notes`)."""
    people = parse_roster(source, notes)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for person in people:
            gb.update_or_create_student(person.id, first_name=person.first_name or None,
                                        last_name=person.last_name or None,
                                        email=person.email or None,
                                        lms_user_id=person.lms_user_id or None)
    kept = {p.id: p for p in read_roster(roster_path(settings))}
    kept.update({p.id: p for p in people})
    rows = [COLUMNS] + [[getattr(p, c) for c in COLUMNS] for _, p in sorted(kept.items())]
    write_atomically(roster_path(settings), csv_text(rows))
    return people
