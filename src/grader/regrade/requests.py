"""Students' regrade requests, from regrade-requests.csv in the course folder.

One row per request (git ignores the file: it names students):

    student,assignment,check,message
    bob,parameters,count_parameters_unseen_configs,"my count is right, I checked by hand"

`check` is a check's grade_id; `message` is the student's, shown to the
instructor as it is. Every row is checked before any is used: a missing column,
an empty student, assignment or check, and each is reported with its line.
"""

import csv
import os
from dataclasses import dataclass

from ..safe_text import one_line
from ..settings import CourseError

REQUESTS_FILE = "regrade-requests.csv"
COLUMNS = ("student", "assignment", "check", "message")


@dataclass(frozen=True)
class RegradeRequest:
    """One student's request that one check of one assignment be looked at again."""

    student: str
    assignment: str
    check: str  # the check's grade_id
    message: str
    line: int


def read_regrade_requests(path: str) -> list[RegradeRequest]:
    """Every request of the file at `path` ([] when there is no file); CourseError naming
    the file and line of each bad row, nothing used if any is bad."""
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise CourseError(f"{path}: the header must name {', '.join(COLUMNS)}; "
                              f"missing: {', '.join(missing)}")
        requests, problems = [], []
        for row in reader:
            line = reader.line_num
            values = {c: (row.get(c) or "").strip() for c in COLUMNS}
            empty = [c for c in ("student", "assignment", "check") if not values[c]]
            if empty:
                problems.append(f"{path}, line {line}: no {' and no '.join(empty)}")
                continue
            requests.append(RegradeRequest(values["student"], values["assignment"],
                                           values["check"], one_line(values["message"]), line))
    if problems:
        raise CourseError("\n".join(problems))
    return requests
