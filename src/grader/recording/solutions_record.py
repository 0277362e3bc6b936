"""The record of the solutions made public, solutions-released.csv beside nbgrader_config.py.

`make release-solutions` writes a row when an assignment's solutions go out; `make publish`
publishes the solutions of every assignment it names (so the file is committed: the
workflow has no gradebook); `make extensions` reads when each went out, and refuses an
extension that lets a student earn points after it. One row per assignment:

    assignment,latest_due_utc,released_utc,open_students
    parameters,2026-12-08 17:00:00,2026-12-09 09:30:00,
    logits-to-text,2026-12-15 17:00:00,2026-12-16 10:00:00,ada until 2026-12-18 17:00:00 UTC

latest_due_utc is the last moment a student not named in open_students could earn points on
the assignment; open_students names those an instructor released the solutions despite
(`--despite-open-students`), each with how long they could still hand in for points. A file
of the first three columns only, as written before, is read as naming no one.
"""

import csv
import datetime
import io
import os

from ..files import write_atomically
from ..settings import CourseError, Settings

RECORD_FILE = "solutions-released.csv"
RECORD_FIELDS = ("assignment", "latest_due_utc", "released_utc", "open_students")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def utc_text(moment: datetime.datetime) -> str:
    """An aware moment as the record writes it, in UTC: '2026-12-08 17:00:00'."""
    if moment.tzinfo is None:
        raise ValueError(f"{moment} has no time zone (the record's times are aware UTC)")
    return f"{moment.astimezone(datetime.timezone.utc):{TIME_FORMAT}}"


def record_path(settings: Settings) -> str:
    return os.path.join(settings.root, RECORD_FILE)


def read_record(settings: Settings) -> dict[str, dict[str, str]]:
    """{assignment: its row} of solutions-released.csv (none when there is no file)."""
    path = record_path(settings)
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    problems = [f"{path}, line {n}: {row}" for n, row in enumerate(rows, 2)
                if not row.get("assignment") or row.get("latest_due_utc") is None]
    if problems:
        raise CourseError(f"{path} has rows without an assignment or a due date "
                          f"({', '.join(RECORD_FIELDS)}):\n" + "\n".join(problems))
    return {row["assignment"]: {name: row.get(name) or "" for name in RECORD_FIELDS}
            for row in rows}


def recorded_time(row: dict[str, str], column: str) -> datetime.datetime:
    """A time of a row of the record, aware UTC; CourseError naming the row when it is not
    written as TIME_FORMAT."""
    try:
        moment = datetime.datetime.strptime(row[column], TIME_FORMAT)
    except ValueError:
        raise CourseError(f"{RECORD_FILE}: {row['assignment']}'s {column} {row[column]!r} is "
                          f"not a time written as {TIME_FORMAT}") from None
    return moment.replace(tzinfo=datetime.timezone.utc)


def solutions_public_since(settings: Settings) -> dict[str, datetime.datetime]:
    """{assignment: when its solutions went out, aware UTC} of the record."""
    return {name: recorded_time(row, "released_utc")
            for name, row in sorted(read_record(settings).items())}


def record_release(settings: Settings, assignment: str, latest: datetime.datetime,
                   now: datetime.datetime | None = None, open_students: str = "") -> str:
    """`assignment` written into solutions-released.csv (whole, or not at all); its path.
    `latest` and `now` are aware; `open_students` names who could still earn points."""
    rows = read_record(settings)
    now = now or datetime.datetime.now(datetime.timezone.utc)
    rows[assignment] = {"assignment": assignment, "latest_due_utc": utc_text(latest),
                        "released_utc": utc_text(now), "open_students": open_students}
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, RECORD_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows[name] for name in sorted(rows))
    return write_atomically(record_path(settings), text.getvalue())
