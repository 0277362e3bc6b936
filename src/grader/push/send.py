"""`push_grades`: one assignment's grades and feedback summaries into the LMS, or a dry run.

The LMS's assignment is the one c.CanvasPush.assignment_ids maps the
assignment to, else the id the LMS's gradebook export gives it in its header
(``parameters (901)``), else the one assignment of the same name. Only what the
LMS lacks is sent (plan.py), so running again after a failure finishes the rest
and sends nothing twice. A refused token stops the push with what was sent so
far; a student the LMS does not know, or whose write still fails after its
retries, is reported and the others are pushed.
"""

import os
from collections.abc import Callable, Collection, Mapping

from ..lms import (GRADE_PUSH_PLATFORM, CanvasConnection, CanvasPush, LmsAssignment,
                   LmsCourseApi, LmsRefused, LmsRequestFailed, LmsSetupError, LmsUnavailable,
                   connection_from, exported_assignment_id)
from ..reports import AssignmentGrades, Person, number, read_grades
from ..settings import CourseError, Settings
from .plan import (PushCounts, PushOutcome, PushRow, only_students, plan_rows,
                   shared_refusals)

Connect = Callable[[CanvasConnection], LmsCourseApi]  # the connection to the course's API


def connect_api(connection: CanvasConnection) -> LmsCourseApi:
    """The LMS's API for `connection`."""
    from ..lms.canvas_api import CanvasCourseApi  # canvasapi imports slowly: when pushing

    return CanvasCourseApi(connection)


def lms_assignment(api: LmsCourseApi, connection: CanvasConnection, assignment: str
                   ) -> tuple[LmsAssignment, str]:
    """(the LMS's assignment for `assignment`, how it was found)."""
    title = GRADE_PUSH_PLATFORM.title
    if assignment in connection.assignment_ids:
        return (api.assignment(connection.assignment_ids[assignment]),
                f"c.{CanvasPush.__name__}.assignment_ids")
    if connection.gradebook_export:
        found = exported_assignment_id(connection.gradebook_export, assignment)
        if found is not None:
            return api.assignment(found), f"the header of {connection.gradebook_export}"
    named = [a for a in api.assignments() if a.name.strip() == assignment]
    if len(named) == 1:
        return named[0], "its name"
    if named:
        raise CourseError(f"{len(named)} {title} assignments are named {assignment!r} (ids "
                          f"{', '.join(str(a.id) for a in named)}): say which in "
                          f"c.{CanvasPush.__name__}.assignment_ids = {{{assignment!r}: ID}}")
    raise CourseError(f"no {title} assignment is named {assignment!r}: name it so in "
                      f"{title}, or map it in c.{CanvasPush.__name__}.assignment_ids = "
                      f"{{{assignment!r}: ID}} (the id is in the assignment's address)")


def grade_text(value: float | None) -> str:
    return "-" if value is None else number(value)


def table(rows: list[PushRow], outcome: bool, title: str = GRADE_PUSH_PLATFORM.title
          ) -> list[str]:
    """The rows as a table: student, user id, grade in the LMS (`title`) now, grade to send
    (and what the push did, with `outcome`)."""
    header = ["student", f"{title} user id", f"grade in {title} now", "grade to send",
              "done" if outcome else "to write"]
    body = []
    for row in rows:
        if row.problem:
            what = row.problem
        elif outcome:
            what = row.outcome_text()
        else:
            what = " and ".join(w for w, send in (("grade", row.send_grade),
                                                  ("comment", row.send_comment)) if send)
            what = what or "nothing (up to date)"
        body.append([row.student, row.lms_user_id or "-", grade_text(row.now),
                     number(row.grade), what])
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header) - 1)]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[-1]
            for r in [header] + body]


def write_rows(rows: list[PushRow], send: Callable[[PushRow], str], refused_by: str) -> str:
    """Each row that has something to write sent with `send` (which says what it sent), its
    outcome set: up to date, sent, failed (the LMS down, after its retries), or not sent
    once the LMS refused the push (401, which `refused_by` words: the rows after it are not
    tried). Returns that refusal, or ''."""
    refused = ""
    for row in rows:
        if row.problem:
            continue
        if not row.writes:
            row.outcome = PushOutcome.UP_TO_DATE
        elif refused:
            row.outcome, row.why = PushOutcome.NOT_SENT, refused_by
        else:
            try:
                row.sent = send(row)
                row.outcome = PushOutcome.SENT
            except LmsRefused as error:
                refused = str(error)
                row.outcome, row.why = PushOutcome.NOT_SENT, refused_by
            except (LmsUnavailable, LmsRequestFailed) as error:
                row.outcome, row.why = PushOutcome.FAILED, str(error)
    return refused


def push_grades(settings: Settings, assignment: str, dry_run: bool = False,
                connect: Connect = connect_api, environ: Mapping[str, str] = os.environ,
                students: Collection[str] | None = None) -> tuple[list[str], int]:
    """(the lines to print, the exit status: 0 all pushed, 1 some students failed) of the
    push of `assignment` with the grades `make grades` exports (of `students` only, when
    given), or of its dry run, which writes nothing. CourseError for a setting to fix, a
    refused token (nothing more written) or an assignment the LMS does not have."""
    try:
        connection = connection_from(settings.config, environ)
    except LmsSetupError as error:
        raise CourseError(str(error)) from None
    people, [grades] = read_grades(settings, [assignment])
    return push_assignment(connection, only_students(people, students), grades, dry_run,
                           connect)


def push_assignment(connection: CanvasConnection, people: dict[str, Person],
                    grades: AssignmentGrades, dry_run: bool = False,
                    connect: Connect = connect_api) -> tuple[list[str], int]:
    """`push_grades` of the grades `grades` of the students `people`."""
    title = GRADE_PUSH_PLATFORM.title
    assignment = grades.name
    try:
        api = connect(connection)
        target, how = lms_assignment(api, connection, assignment)
        rows = plan_rows(people, grades, api.submissions(target.id), title)
    except (LmsRefused, LmsUnavailable, LmsRequestFailed) as error:
        raise CourseError(f"{error}; nothing was written") from None
    lines = [f"{assignment} -> {title} assignment {target.id} {target.name!r} (found by {how})"]
    if (target.points_possible is not None
            and abs(target.points_possible - grades.max_score) > 1e-9):
        lines.append(f"note: {title} gives it {number(target.points_possible)} points, the "
                     f"course {number(grades.max_score)}; the grades are sent as points")
    if dry_run:
        writes = sum(r.writes for r in rows)
        return lines + table(rows, outcome=False) + [
            f"dry run: nothing written ({writes} student(s) would be written)"] + (
            shared_refusals(rows, title)), 0
    def send(row: PushRow) -> str:
        api.send(target.id, row.lms_user_id, number(row.grade) if row.send_grade else None,
                 row.comment if row.send_comment else None)
        return " and ".join(w for w, send in (("grade", row.send_grade),
                                              ("comment", row.send_comment)) if send)

    refused = write_rows(rows, send, f"{title} answered 401")
    lines += table(rows, outcome=True)
    counts = PushCounts.of(rows)
    lines.append(f"{counts.sent} student(s) written, {counts.up_to_date} up to date, "
                 f"{counts.missing} not in {title} or without a user id, {counts.failed} failed"
                 + (": run the push again to finish them" if counts.failed else ""))
    lines += shared_refusals(rows, title)
    if refused:
        raise CourseError("\n".join(lines + [refused]))
    return lines, 1 if counts.failed or counts.shared else 0
