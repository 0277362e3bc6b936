"""An assignment's solutions, published once every student's due date has passed.

`make release-solutions ASSIGNMENT=name` asks the gradebook for the latest moment any
student may still hand in (`latest_due`: the class's due date, or a later one that an
extension gives), refuses before it, and otherwise records the assignment in
solutions-released.csv (beside nbgrader_config.py: commit it, since `make publish`
elsewhere has no gradebook to ask) and publishes the bundle again with the solutions in
it. `make publish` puts the solutions of every assignment the record names into
_publish/solutions/<assignment>/, made again from solutions/ each time
(`solution_notebooks`): the solution code stays, the hidden tests are taken out by
nbgrader's own ClearHiddenTests, as at release, and so are the outputs and the region
markers. Hidden tests are never published, not even after the due date: they stay
the checks of next term's class.
"""

import copy
import csv
import datetime
import io
import os

import nbformat
from nbgrader.api import Gradebook, MissingEntry

from ..files import write_atomically
from ..settings import CourseError, Settings, shown_url

RECORD_FILE = "solutions-released.csv"
RECORD_FIELDS = ("assignment", "latest_due_utc", "released_utc")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def naive_utc_now() -> datetime.datetime:
    """Now, as nbgrader stores times: naive UTC."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def gradebook_exists(settings: Settings) -> bool:
    """False only for an SQLite gradebook whose file is not there (opening would create it)."""
    prefix = "sqlite:///"
    if not settings.db_url.startswith(prefix):
        return True
    return os.path.isfile(settings.db_url[len(prefix):])


def latest_due(settings: Settings, assignment: str) -> tuple[datetime.datetime, str]:
    """(the latest due date of any student, naive UTC; whose it is, in words): the class's due
    date, or a student's own with an extension. CourseError when there is none."""
    fix = (f"record one with make release ASSIGNMENT={assignment} DUEDATE=\"2026-12-01 "
           f"17:00:00 UTC\" (make extensions for students' own)")
    if not gradebook_exists(settings):
        raise CourseError(f"no gradebook at {shown_url(settings.db_url)}, so no student has a "
                          f"due date for {assignment}: {fix}; nothing was released")
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            row = gb.find_assignment(assignment)
        except MissingEntry:
            row = None
        if row is None or row.duedate is None:
            raise CourseError(f"nobody has a due date for {assignment} in the gradebook "
                              f"({shown_url(settings.db_url)}), so no one's can have passed: "
                              f"{fix}; nothing was released")
        latest, whose = row.duedate, "the class's due date"
        for submission in sorted(row.submissions, key=lambda s: s.student_id):
            if submission.extension and row.duedate + submission.extension > latest:
                latest = row.duedate + submission.extension
                whose = f"{submission.student_id}'s, with an extension"
    return latest, whose


def check_solutions_may_go_out(settings: Settings, assignment: str,
                               now: datetime.datetime | None = None) -> datetime.datetime:
    """The latest due date of `assignment`, once it has passed; CourseError before, naming it."""
    latest, whose = latest_due(settings, assignment)
    now = now or naive_utc_now()
    if now < latest:
        raise CourseError(f"the solutions of {assignment} stay private until "
                          f"{latest:{TIME_FORMAT}} UTC, the latest due date ({whose}): a "
                          f"student may still hand in until then; nothing was released")
    return latest


def read_record(settings: Settings) -> dict[str, dict[str, str]]:
    """{assignment: its row} of solutions-released.csv (none when there is no file)."""
    path = os.path.join(settings.root, RECORD_FILE)
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    problems = [f"{path}, line {n}: {row}" for n, row in enumerate(rows, 2)
                if not row.get("assignment") or row.get("latest_due_utc") is None]
    if problems:
        raise CourseError(f"{path} has rows without an assignment or a due date "
                          f"({', '.join(RECORD_FIELDS)}):\n" + "\n".join(problems))
    return {row["assignment"]: row for row in rows}


def assignments_with_public_solutions(settings: Settings,
                                      now: datetime.datetime | None = None) -> list[str]:
    """The assignments whose solutions the record releases; CourseError for one the course
    does not have, or whose recorded due date is still to come."""
    record = read_record(settings)
    settings.check_assignments(sorted(record))
    now = now or naive_utc_now()
    for name, row in sorted(record.items()):
        try:
            due = datetime.datetime.strptime(row["latest_due_utc"], TIME_FORMAT)
        except ValueError:
            raise CourseError(f"{RECORD_FILE}: {name}'s latest_due_utc {row['latest_due_utc']!r}"
                              f" is not a time written as {TIME_FORMAT}") from None
        if now < due:
            raise CourseError(f"{RECORD_FILE} releases the solutions of {name}, whose latest "
                              f"due date, {due:{TIME_FORMAT}} UTC, is still to come: take its "
                              f"row out, or wait")
    return sorted(record)


def record_release(settings: Settings, assignment: str, latest: datetime.datetime,
                   now: datetime.datetime | None = None) -> str:
    """`assignment` written into solutions-released.csv (whole, or not at all); its path."""
    rows = read_record(settings)
    rows[assignment] = {"assignment": assignment, "latest_due_utc": f"{latest:{TIME_FORMAT}}",
                        "released_utc": f"{now or naive_utc_now():{TIME_FORMAT}}"}
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, RECORD_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows[name] for name in sorted(rows))
    return write_atomically(os.path.join(settings.root, RECORD_FILE), text.getvalue())


def without_markers(source: str) -> str:
    """A solution cell's source without nbgrader's BEGIN/END SOLUTION lines."""
    return "\n".join(line for line in source.split("\n")
                     if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line)


def solution_notebooks(settings: Settings, assignment: str) -> dict[str, str]:
    """{file name: notebook text} of the assignment's solutions as students may see them: the
    solution code in, the hidden tests, the outputs and the region markers out."""
    from nbgrader.preprocessors import ClearHiddenTests  # nbgrader's preprocessors load slowly

    clear = ClearHiddenTests(config=settings.config)
    published = {}
    for name, path in settings.instructor_notebooks(assignment).items():
        notebook = nbformat.read(path, as_version=4)
        notebook, _ = clear.preprocess(copy.deepcopy(notebook), {})
        for cell in notebook.cells:
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
            cell.source = without_markers(cell.source)
        published[name + ".ipynb"] = nbformat.writes(notebook) + "\n"
    return published
