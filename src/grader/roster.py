"""The class roster: student ids, names, e-mail addresses and sections, imported from a CSV.

    make roster ROSTER=students.csv

The CSV has a header row with the column ``id`` (the student's login, as
nbgrader knows it) and any of ``first_name``, ``last_name``, ``email``,
``section`` and ``lms_user_id`` (the student's id in the LMS, e.g. Canvas's
numeric user id). Names and e-mail addresses go into nbgrader's gradebook
(formgrader shows them, grades.csv carries them); the whole roster, sections
included, is kept as ``course-data/roster.csv`` for the exports. Importing
again updates the students it lists and keeps every grade.
"""

import csv
import os

from .course import CourseError

COLUMNS = ["id", "first_name", "last_name", "email", "section", "lms_user_id"]


def roster_path(settings):
    return os.path.join(os.path.dirname(settings.submitted), "roster.csv")


def id_problem(student):
    """Why `student` cannot be a student id (nbgrader, the reports and shells need a plain
    line of text that is not read as an option), or None."""
    if not student.strip():
        return "the id is empty"
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in student):
        return "the id holds a control character"
    if student.startswith("-"):
        return "the id starts with '-'"
    if student != student.strip():
        return "the id starts or ends with a space"
    if "/" in student or student in (".", ".."):
        return "the id is not a folder name"
    return None


def parse_roster(path):
    """[Person] from the CSV at `path`; CourseError with the line for anything wrong in it."""
    from .export import Person, plain

    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
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
                problem = id_problem(student)
                if problem:
                    raise CourseError(f"{path}, line {line}: {problem} ({student!r})")
                if student in seen:
                    raise CourseError(f"{path}, line {line}: {student!r} is listed twice "
                                      f"(first on line {seen[student]})")
                seen[student] = line
                people.append(Person(student, **{k: plain(row.get(k) or "").strip()
                                                 for k in COLUMNS[1:]}))
    except OSError as error:
        raise CourseError(f"the roster {path} cannot be read: {error}") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise CourseError(f"the roster {path} is not a UTF-8 CSV file: {error}") from None
    if not people:
        raise CourseError(f"{path}: no students in it")
    return people


def read_roster(path):
    """The imported roster ([Person]), or [] before any import."""
    if not os.path.exists(path):
        return []
    return parse_roster(path)


def import_roster(settings, source):
    """Every student of the CSV `source` into the gradebook and course-data/roster.csv."""
    from nbgrader.api import Gradebook

    from .export import csv_text
    from .files import write_atomically

    people = parse_roster(source)
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
