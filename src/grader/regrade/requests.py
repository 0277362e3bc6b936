"""Students' regrade requests, from regrade-requests.csv in the course folder and from the
course page.

One row per request (git ignores the file: it names students):

    student,assignment,check,message
    bob,parameters,count_parameters_unseen_configs,"my count is right, I checked by hand"

`check` is a check's grade_id; `message` is the student's, shown to the
instructor as it is. Every row is checked before any is used: a missing column,
an empty student, assignment or check, and each is reported with its line.

The requests students ask on the course page (grader.recording.asked_regrades) are
listed beside the file's rows while they are open, each with its id instead of a line.
"""

import csv
import os
from dataclasses import dataclass
from enum import StrEnum

from ..recording import open_requests
from ..safe_text import one_line
from ..settings import CourseError, Settings

REQUESTS_FILE = "regrade-requests.csv"
COLUMNS = ("student", "assignment", "check", "message")


class RequestSource(StrEnum):
    """Where a regrade request came from."""

    CSV = REQUESTS_FILE  # a row the instructor typed
    PAGE = "the course page"  # asked by the student, open


@dataclass(frozen=True)
class RegradeRequest:
    """One student's request that one check of one assignment be looked at again."""

    student: str
    assignment: str
    check: str  # the check's grade_id
    message: str
    line: int  # the file's line; 0 for a request from the page
    source: RequestSource = RequestSource.CSV
    request_id: str = ""  # the page's request's id; "" for a row of the file


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


def page_requests(settings: Settings, assignment: str) -> list[RegradeRequest]:
    """The open requests students asked of `assignment` on the course page, oldest first."""
    return [RegradeRequest(r.student, r.assignment, r.item, r.message, 0, RequestSource.PAGE,
                           r.id) for r in open_requests(settings, assignment)]
