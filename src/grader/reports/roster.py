"""The class roster: student ids, names, e-mail addresses and sections, imported from a CSV.

    make roster ROSTER=students.csv

The CSV has a header row with the column ``id`` (the student's login, as
nbgrader knows it) and any of ``first_name``, ``last_name``, ``email``,
``section``, ``lms_user_id`` (the student's id in the LMS, e.g. Canvas's
numeric user id), ``sis_user_id`` (the institution's id, which the LMS's
gradebook import takes back as it gave it) and ``lti_user_id`` (the LTI 1.3
user id, which ``make lti-roster`` fills in). Names and e-mail addresses go into nbgrader's gradebook
(formgrader shows them, grades.csv carries them); the whole roster, sections
included, is kept as ``course-data/roster.csv`` for the exports. Importing
again updates the students it lists and keeps every grade. Each LMS id
(lms_user_id, sis_user_id, lti_user_id) is one student's: a roster in which two
rows share one, or which gives a student one that a student it does not list
holds, is refused with nothing imported (the LMS would take one student's grade
for the other's).

An LMS's own gradebook export (for Canvas: Grades, Export, "Export Entire
Gradebook") is read as it comes, with the columns its class names
(`Platform.gradebook`, a `GradebookCsv`): the student's sortable name ("Last,
First"), the LMS's user id (the number in the names of its submission
downloads: lms_user_id), the institution's id (sis_user_id, written back
unchanged in the LMS's gradebook import), the course's student id and the
section; its other columns (scores, assignments) are left out, and the rows
that are not students (the points-possible row the LMS puts first, a row of
its settings, its test student) are skipped with a line saying so.
"""

import csv
import os
from dataclasses import dataclass

from nbgrader.api import Gradebook

from ..files import csv_text, write_atomically
from ..lms import GradebookCsv, Platform, gradebooks
from ..safe_text import FORMULA_STARTS, one_line, student_id_problem
from ..settings import CourseError, Settings

COLUMNS = ["id", "first_name", "last_name", "email", "section", "lms_user_id", "sis_user_id",
           "lti_user_id"]
PERSON_FIELDS = COLUMNS[:5]  # the roster's columns in the exports
USER_ID_COLUMNS = ("lms_user_id", "sis_user_id", "lti_user_id")  # one student's each
SHARED_ID = "one LMS user, two students: their grades would overwrite each other"
QUOTE = "'"  # before a cell's text, a spreadsheet shows the text and runs no formula


def roster_cell(value: str) -> str:
    """`value` as a cell of roster.csv that no spreadsheet runs as a formula: '=1+2' is
    written "'=1+2"; `roster_value` reads back exactly `value`."""
    if value[:1] in FORMULA_STARTS or (value[:1] == QUOTE
                                       and value[1:2] in (*FORMULA_STARTS, QUOTE)):
        return QUOTE + value
    return value


def roster_value(cell: str) -> str:
    """What the cell `cell` of a roster holds: `roster_cell` undone (and a spreadsheet's
    own quote before a formula's text)."""
    if cell[:1] == QUOTE and cell[1:2] in (*FORMULA_STARTS, QUOTE):
        return cell[1:]
    return cell


@dataclass
class Person:
    """One student of the class list."""

    id: str
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    section: str = ""
    lms_user_id: str = ""
    sis_user_id: str = ""  # the institution's id, as the LMS's gradebook export gave it
    lti_user_id: str = ""  # the LTI 1.3 user id (the sub of launches, NRPS's user_id)

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
    """[Person] from the CSV at `path`, the course's roster or an LMS's gradebook export;
    CourseError with the line for anything wrong in it. The rows of an LMS's export that
    are not students are skipped, each with a line added to `notes`."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            reader = csv.DictReader(handle)
            headers = {h.strip() for h in (reader.fieldnames or [])}
            for lms, gradebook in gradebooks():
                if set(gradebook.identifying) <= headers:
                    people = parse_gradebook_export(path, reader, lms, gradebook,
                                                    [] if notes is None else notes)
                    if not people:
                        raise CourseError(f"{path}: no students in it")
                    return people
                if gradebook.student in headers:
                    missing = [c for c in gradebook.identifying if c not in headers]
                    raise CourseError(f"{path}: a {lms.title} gradebook export needs the columns "
                                      f"{', '.join(gradebook.columns)}; {', '.join(missing)} "
                                      f"missing (export the entire gradebook from {lms.title} "
                                      f"again)")
            header = [h.strip().lower() for h in (reader.fieldnames or [])]
            if "id" not in header:
                raise CourseError(f"{path}: the first row must name the columns, one of them "
                                  f"'id' (the columns: {', '.join(COLUMNS)})")
            unknown = [h for h in header if h not in COLUMNS]
            if unknown:
                raise CourseError(f"{path}: unknown column(s) {', '.join(unknown)} "
                                  f"(the columns: {', '.join(COLUMNS)})")
            reader.fieldnames = header
            people, seen, users = [], {}, {}
            for row in reader:
                line = reader.line_num
                if None in row:
                    raise CourseError(f"{path}, line {line}: more cells than columns")
                student = roster_value((row.get("id") or "").strip())
                check_new_id(path, line, student, seen)
                people.append(Person(student, **{k: roster_value(one_line(row.get(k) or "")
                                                                 .strip())
                                                 for k in COLUMNS[1:]}))
                check_new_user_ids(path, line, people[-1], users)
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


def check_new_user_ids(path: str, line: int, person: Person,
                       users: dict[tuple[str, str], tuple[int, str]]) -> None:
    """CourseError if an LMS's id of `person` (lms_user_id, sis_user_id, lti_user_id) is
    another student's of an earlier line (in `users`: {(column, id): (line, student)})."""
    for column in USER_ID_COLUMNS:
        value = getattr(person, column)
        if not value:
            continue
        if (column, value) in users:
            first, other = users[column, value]
            raise CourseError(f"{path}, lines {first} and {line}: {other} and {person.id} share "
                              f"{column} {value} ({SHARED_ID})")
        users[column, value] = (line, person.id)


def check_kept_user_ids(source: str, people: list[Person], kept: list[Person]) -> None:
    """CourseError if a student of `people` (an import from `source`) would get an LMS's id
    that a student the course keeps (`kept`: the roster's and the gradebook's, whom the
    import does not list) holds."""
    listed = {p.id for p in people}
    holders = {(column, getattr(p, column)): p.id for p in kept if p.id not in listed
               for column in USER_ID_COLUMNS if getattr(p, column)}
    for person in people:
        for column in USER_ID_COLUMNS:
            other = holders.get((column, getattr(person, column)))
            if other:
                raise CourseError(f"{source}: {person.id} would share {column} "
                                  f"{getattr(person, column)} with {other}, whom the course "
                                  f"already has ({SHARED_ID}); correct the file, or list "
                                  f"{other} in it with their own; nothing was imported")


def parse_gradebook_export(path: str, reader: csv.DictReader, lms: Platform,
                           gradebook: GradebookCsv, notes: list[str]) -> list[Person]:
    """[Person] of the students of the gradebook export of `lms` read by `reader`."""
    reader.fieldnames = [h.strip() for h in reader.fieldnames or []]
    people: list[Person] = []
    seen: dict[str, int] = {}
    users: dict[tuple[str, str], tuple[int, str]] = {}
    for row in reader:
        line = reader.line_num
        if None in row:
            raise CourseError(f"{path}, line {line}: more cells than columns")
        cell = {name: one_line(row.get(name) or "").strip() for name in gradebook.columns}
        name, user_id = cell[gradebook.student], cell[gradebook.user_id]
        if name == gradebook.points_possible:
            notes.append(f"{path}, line {line}: {lms.title}'s {gradebook.points_possible} row, "
                         f"skipped")
            continue
        if not name and not user_id:
            notes.append(f"{path}, line {line}: no student (a row of {lms.title}'s settings), "
                         f"skipped")
            continue
        if name == gradebook.test_student:
            notes.append(f"{path}, line {line}: {lms.title}'s test student "
                         f"({gradebook.test_student}), skipped")
            continue
        student = cell[gradebook.login_id]
        if not student:
            raise CourseError(f"{path}, line {line}: {name!r} has no {gradebook.login_id}, "
                              f"the course's student id ({lms.title} {gradebook.user_id} "
                              f"{user_id or 'none'})")
        check_new_id(path, line, student, seen)
        last, _, first = name.partition(",")
        people.append(Person(student, first_name=first.strip(), last_name=last.strip(),
                             section=cell[gradebook.section], lms_user_id=user_id,
                             sis_user_id=cell[gradebook.sis_user_id]))
        check_new_user_ids(path, line, people[-1], users)
    return people


def read_roster(path: str) -> list[Person]:
    """The imported roster ([Person]), or [] before any import."""
    if not os.path.exists(path):
        return []
    return parse_roster(path)


def import_roster(settings: Settings, source: str, notes: list[str] | None = None
                  ) -> list[Person]:
    """Every student of the CSV `source` into the gradebook and course-data/roster.csv
    (the rows of an LMS's export that are not students skipped, with lines in `notes`)."""
    people = parse_roster(source, notes)
    kept = {p.id: p for p in read_roster(roster_path(settings))}
    with Gradebook(settings.db_url, settings.course_id) as gb:
        check_kept_user_ids(source, people, list(kept.values()) + [
            Person(s.id, lms_user_id=s.lms_user_id or "") for s in gb.students])
        for person in people:
            gb.update_or_create_student(person.id, first_name=person.first_name or None,
                                        last_name=person.last_name or None,
                                        email=person.email or None,
                                        lms_user_id=person.lms_user_id or None)
    for person in people:  # an LTI user id the import does not carry is kept
        person.lti_user_id = person.lti_user_id or getattr(kept.get(person.id), "lti_user_id", "")
    kept.update({p.id: p for p in people})
    write_roster(settings, list(kept.values()))
    return people


def write_roster(settings: Settings, people: list[Person]) -> str:
    """course-data/roster.csv holding `people`, sorted by id, each cell safe to open in a
    spreadsheet (`roster_cell`); returns its path."""
    rows = [COLUMNS] + [[roster_cell(getattr(p, c)) for c in COLUMNS]
                        for p in sorted(people, key=lambda p: p.id)]
    return write_atomically(roster_path(settings), csv_text(rows))
