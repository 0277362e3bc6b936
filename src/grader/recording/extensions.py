"""Students' extensions, from a CSV file into nbgrader's gradebook (make extensions).

The file (extensions.csv in the course folder unless told; git ignores it, since
it names students and their accommodations) has one row per extension:

    student_id,assignment,extra_hours,new_due,note
    alice,parameters,48,,illness (dean's letter)
    bob,parameters,,2026-12-04 17:00 UTC,accommodation

Either extra_hours (hours after the class's due date) or new_due (a date and
time with its time zone: UTC, an offset such as +01:00 or an IANA zone name such
as Europe/Berlin, read as a due date is, due_dates.py) is given, never both;
note is for the instructor and is not stored. Every row is checked first: an
unknown student or assignment, an assignment without a due date, both or neither
of extra_hours/new_due, a number that is not a positive number of hours, a date
without a time or a time zone, a date that can be read two ways (05/02/2026:
write 2026-05-02), a new due date before the class's or more than a year
after it (as extra_hours, a typing mistake), the same
student and assignment twice: each is reported with its line, and nothing is
written if any row is wrong.

The file is the whole list: applying it sets every extension it names, in
nbgrader's own field (SubmittedAssignment.extension, created for a student who
has not handed in yet), and removes every extension of the gradebook it no
longer names. Applying the same file again changes nothing. The late penalties
of every student whose extension changed are charged again.

A file that would let a student earn points on an assignment after its solutions
went out (after_solutions.py) is refused whole, naming each student, assignment
and moment, unless `despite_public_solutions` is given; then it is applied and a
warning line names each.
"""

import csv
import datetime
import io
import math
import os
import re
from dataclasses import dataclass

from nbgrader.api import Gradebook, Student, SubmittedAssignment, SubmittedNotebook
from nbgrader.plugins import LateSubmissionPlugin

from ..deadlines import stored_due
from ..safe_text import one_line, student_id_problem
from ..settings import CourseError, Settings
from .after_solutions import FLAG, MAKE_VARIABLE, extensions_past_solutions
from .due_dates import ZONE_FORMS, instant_problem, read_instant
from .late_penalties import assign_late_penalties
from .points_windows import known_students

EXTENSIONS_FILE = "extensions.csv"
COLUMNS = ("student_id", "assignment", "extra_hours", "new_due", "note")
MAX_HOURS = 366 * 24  # a year: more is a typing mistake
HAS_TIME = re.compile(r"\d{1,2}:\d{2}")
DAY_AND_MONTH = re.compile(r"(?<![\d:])(\d{1,2})[/.-](\d{1,2})[/.-](\d{2,4})(?![\d:])")


@dataclass(frozen=True)
class Extension:
    """One row of the extensions file, checked: the extension nbgrader stores."""

    student: str
    assignment: str
    extension: datetime.timedelta
    line: int


def hours_text(extension: datetime.timedelta) -> str:
    """'48 h', '2.5 h'."""
    return f"{extension.total_seconds() / 3600:g} h"


def ambiguous_date(text: str) -> str | None:
    """Why the date in `text` can be read two ways (05/02/2026: 2 May or 5 February), or
    None: a date written day and month first, both of which can be a month."""
    found = DAY_AND_MONTH.search(text)
    if not found:
        return None
    first, second, year = int(found[1]), int(found[2]), found[3]
    if first == second or not (1 <= first <= 12 and 1 <= second <= 12):
        return None
    year = year if len(year) == 4 else f"20{year}"
    return (f"{found[0]!r} may be {year}-{first:02}-{second:02} or {year}-{second:02}-"
            f"{first:02}: write the date as ISO 8601, year-month-day, e.g. "
            f"\"{year}-{first:02}-{second:02} 17:00 UTC\"")


def parse_new_due(text: str) -> datetime.datetime:
    """A date, time and time zone as naive UTC (as nbgrader stores dates); ValueError saying
    what is wrong otherwise (a date that can be read two ways included)."""
    if not HAS_TIME.search(text):
        raise ValueError(f"new_due {text!r} has no time: write e.g. \"2026-12-04 17:00 UTC\"")
    ambiguous = ambiguous_date(text)
    if ambiguous:
        raise ValueError(f"new_due {text!r} is ambiguous: {ambiguous}")
    try:
        when, zoned = read_instant(text)
    except ValueError as error:
        raise ValueError(instant_problem("new_due", text, str(error),
                                         "2026-12-04 17:00 UTC")) from None
    if not zoned:
        raise ValueError(f"new_due {text!r} has no time zone: add {ZONE_FORMS}")
    return when


def parse_extensions(text: str, source: str, students: set[str],
                     due_dates: dict[str, datetime.datetime | None]) -> list[Extension]:
    """The `Extension` rows of an extensions file's `text`; CourseError listing every bad row.

    `students`: the known student ids; `due_dates`: {assignment: class due date
    (naive UTC) or None} of the course's released assignments.
    """
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    header = [name.strip() for name in reader.fieldnames or []]
    if not header:
        raise CourseError(f"{source}: empty; the first line names the columns: "
                          f"{','.join(COLUMNS)}")
    reader.fieldnames = header
    unknown = [name for name in header if name not in COLUMNS]
    missing = [name for name in ("student_id", "assignment") if name not in header]
    if unknown or missing or not {"extra_hours", "new_due"} & set(header):
        raise CourseError(f"{source}, line 1: the columns are student_id, assignment, "
                          f"extra_hours or new_due, and note"
                          + (f"; unknown: {', '.join(unknown)}" if unknown else "")
                          + (f"; missing: {', '.join(missing)}" if missing else ""))
    rows, problems, seen = [], [], {}
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            raise CourseError(f"{source}, line {reader.line_num}: {error}") from None
        line = reader.line_num
        values = {k: (v or "").strip() for k, v in row.items() if k is not None}
        if not any(values.values()):
            continue  # a blank line
        try:
            rows.append(_checked_row(values, line, students, due_dates, seen))
        except ValueError as error:
            problems.append(f"{source}, line {line}: {one_line(str(error))}")
    if problems:
        raise CourseError(f"{len(problems)} bad row(s) in the extensions file; nothing was "
                          f"applied:\n" + "\n".join(problems))
    return rows


def _checked_row(values, line, students, due_dates, seen):
    student, assignment = values.get("student_id", ""), values.get("assignment", "")
    hours, new_due = values.get("extra_hours", ""), values.get("new_due", "")
    problem = student_id_problem(student)
    if problem:
        raise ValueError(f"student id {student!r} {problem}")
    if student not in students:
        raise ValueError(f"unknown student {student!r} (not in the roster or the gradebook: "
                         f"make roster first)")
    if assignment not in due_dates:
        known = ", ".join(sorted(due_dates)) or "none released"
        raise ValueError(f"unknown assignment {assignment!r} (assignments: {known})")
    if (student, assignment) in seen:
        raise ValueError(f"{student} already has an extension for {assignment} on line "
                         f"{seen[student, assignment]}")
    if bool(hours) == bool(new_due):
        raise ValueError("give either extra_hours or new_due" + (", not both" if hours else ""))
    class_due = due_dates[assignment]
    if class_due is None:
        raise ValueError(f"{assignment} has no due date: make release ASSIGNMENT={assignment} "
                         f"DUEDATE=... first")
    if hours:
        try:
            number = float(hours)
        except ValueError:
            raise ValueError(f"extra_hours {hours!r} is not a number") from None
        if not math.isfinite(number) or not 0 < number <= MAX_HOURS:
            raise ValueError(f"extra_hours {hours!r} is not a number of hours from 0 to "
                             f"{MAX_HOURS} (a year)")
        extension = datetime.timedelta(hours=number)
    else:
        extension = parse_new_due(new_due) - class_due
        if extension <= datetime.timedelta(0):
            raise ValueError(f"new_due {new_due!r} is not after the class's due date, "
                             f"{class_due:%Y-%m-%d %H:%M:%S} UTC")
        if extension > datetime.timedelta(hours=MAX_HOURS):
            hours = extension.total_seconds() / 3600
            raise ValueError(f"new_due {new_due!r} is {hours:,.0f} h after the "
                             f"class's due date, {class_due:%Y-%m-%d %H:%M:%S} UTC: more than "
                             f"{MAX_HOURS} h (a year), as extra_hours allows; a typing mistake?")
    seen[student, assignment] = line
    return Extension(student, assignment, extension, line)


def read_extensions_file(path: str) -> str:
    """The text of the extensions file; CourseError if it cannot be read."""
    if not os.path.isfile(path):
        raise CourseError(f"no extensions file {path}: write one with the columns "
                          f"{','.join(COLUMNS)} (make extensions EXTENSIONS=path)")
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise CourseError(f"{path} cannot be read: {error}") from None


def past_solutions_lines(settings: Settings, gb: Gradebook, wanted: list[Extension],
                         plugin: LateSubmissionPlugin, path: str,
                         despite_public_solutions: bool) -> list[str]:
    """Warning lines for the extensions that reach past an assignment's public solutions
    (after_solutions.py) when `despite_public_solutions`; CourseError naming them otherwise."""
    past = extensions_past_solutions(
        settings, gb, plugin,
        {(e.student, e.assignment): (e.extension, e.line) for e in wanted}, path)
    if past and not despite_public_solutions:
        raise CourseError(
            f"{len(past)} extension(s) would let a student earn points after the solutions "
            f"went out, and could hand in what they read; nothing was applied:\n"
            + "\n".join(p.in_words() for p in past)
            + f"\nto grant them all the same: make extensions {MAKE_VARIABLE}=1 (python -m "
              f"grader extensions {FLAG})")
    return [f"warning: granted after the solutions went out, as {FLAG} says: {p.in_words()}"
            for p in past]


def apply_extensions(settings: Settings, path: str,
                     despite_public_solutions: bool = False) -> list[str]:
    """Applies the extensions file at `path` to the gradebook; returns one line per
    extension set, kept or removed, after a warning line for each that reaches past an
    assignment's public solutions (refused without `despite_public_solutions`)."""
    text = read_extensions_file(path)
    late_penalties = settings.late_penalties()
    with Gradebook(settings.db_url, settings.course_id) as gb:
        db = gb.db
        due_dates = {a.name: stored_due(a) for a in gb.assignments}
        wanted = parse_extensions(text, path, known_students(settings, gb), due_dates)
        lines = past_solutions_lines(settings, gb, wanted, late_penalties.plugin_inst, path,
                                     despite_public_solutions)
        changed = set()
        try:
            granted = {(e.student, e.assignment) for e in wanted}
            for submission in (db.query(SubmittedAssignment)
                               .filter(SubmittedAssignment.extension.isnot(None))):
                key = (submission.student_id, submission.assignment.name)
                if key not in granted:
                    lines.append(f"{key[0]} {key[1]}: extension of "
                                 f"{hours_text(submission.extension)} removed (not in the file)")
                    submission.extension = None
                    changed.add(key[0])
                    _drop_if_empty(db, submission)
            for entry in wanted:
                if db.get(Student, entry.student) is None:
                    db.add(Student(id=entry.student))
                    db.flush()
                submission = _submission(gb, entry.assignment, entry.student)
                due = due_dates[entry.assignment] + entry.extension
                kept = " (unchanged)" if submission.extension == entry.extension else ""
                if not kept:
                    submission.extension = entry.extension
                    changed.add(entry.student)
                lines.append(f"{entry.student} {entry.assignment}: extension of "
                             f"{hours_text(entry.extension)}, due {due:%Y-%m-%d %H:%M:%S} UTC"
                             f"{kept}")
            db.flush()
            for student in sorted(changed):
                assign_late_penalties(db, student, late_penalties)
            db.commit()
        except BaseException:
            db.rollback()
            raise
    if not lines:
        lines.append(f"no extensions in {path}, none in the gradebook")
    return lines


def _submission(gb, assignment, student):
    """The student's SubmittedAssignment, created without notebooks when there is none yet
    (the grader adds them when the student hands in)."""
    db = gb.db
    found = (db.query(SubmittedAssignment)
             .filter(SubmittedAssignment.assignment == gb.find_assignment(assignment),
                     SubmittedAssignment.student_id == student).one_or_none())
    if found is None:
        found = SubmittedAssignment(assignment=gb.find_assignment(assignment),
                                    student=db.get(Student, student))
        db.add(found)
        db.flush()
    return found


def _drop_if_empty(db, submission):
    """Deletes a SubmittedAssignment that only held an extension: nothing handed in."""
    has_notebooks = (db.query(SubmittedNotebook)
                     .filter(SubmittedNotebook.assignment_id == submission.id).first())
    if submission.timestamp is None and has_notebooks is None:
        db.delete(submission)
