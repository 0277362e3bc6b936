"""`CanvasGradePush`: one assignment's grades and feedback summaries into Canvas, or a dry run.

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
from typing import Any

from ..lms import (GRADE_PUSH_PLATFORM, CanvasConnection, CanvasPush, LmsAssignment,
                   LmsCourseApi, LmsSetupError, LmsSubmission, connection_from,
                   exported_assignment_id)
from ..reports import AssignmentGrades, Person, number
from ..settings import CourseError, Settings
from .plan import PushRow
from .plugin import GradePush, push_with

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


class CanvasGradePush(GradePush):
    """Canvas's REST API: the course and token of c.CanvasPush (or the environment), the
    assignment found by the map, the gradebook export's header or its name, the grade and
    the comment each sent where Canvas lacks it."""

    title = GRADE_PUSH_PLATFORM.title
    missing = f"not in {GRADE_PUSH_PLATFORM.title} or without a user id"
    refused_by = f"{GRADE_PUSH_PLATFORM.title} answered 401"

    def __init__(self, connection: CanvasConnection | None = None, connect: Connect = connect_api,
                 environ: Mapping[str, str] = os.environ, **kwargs: Any):
        super().__init__(**kwargs)
        self.connection, self.connect, self.environ = connection, connect, environ
        self.api: LmsCourseApi | None = None
        self.target: LmsAssignment | None = None

    def prepare(self, settings: Settings) -> None:
        try:
            self.connection = connection_from(settings.config, self.environ)
        except LmsSetupError as error:
            raise CourseError(str(error)) from None

    def open(self, grades: AssignmentGrades, dry_run: bool) -> list[str]:
        if self.connection is None:
            raise CourseError(f"no {self.title} connection: prepare(settings) first")
        self.api = self.connect(self.connection)
        self.target, how = lms_assignment(self.api, self.connection, grades.name)
        lines = [f"{grades.name} -> {self.title} assignment {self.target.id} "
                 f"{self.target.name!r} (found by {how})"]
        points = self.target.points_possible
        if points is not None and abs(points - grades.max_score) > 1e-9:
            lines.append(f"note: {self.title} gives it {number(points)} points, the course "
                         f"{number(grades.max_score)}; the grades are sent as points")
        return lines

    def held(self, people: dict[str, Person], grades: AssignmentGrades
             ) -> dict[str, LmsSubmission]:
        return self.api.submissions(self.target.id)

    def send(self, row: PushRow, grades: AssignmentGrades) -> str:
        self.api.send(self.target.id, row.lms_user_id,
                      number(row.grade) if row.send_grade else None,
                      row.comment if row.send_comment else None)
        return " and ".join(w for w, send in (("grade", row.send_grade),
                                              ("comment", row.send_comment)) if send)


def push_grades(settings: Settings, assignment: str, dry_run: bool = False,
                connect: Connect = connect_api, environ: Mapping[str, str] = os.environ,
                students: Collection[str] | None = None) -> tuple[list[str], int]:
    """(the lines to print, the exit status: 0 all pushed, 1 some students failed) of the
    push of `assignment` to Canvas with the grades `make grades` exports (of `students`
    only, when given), or of its dry run, which writes nothing. CourseError for a setting
    to fix, a refused token (nothing more written) or an assignment the LMS does not have."""
    plugin = CanvasGradePush(connect=connect, environ=environ, config=settings.config)
    return push_with(plugin, settings, assignment, dry_run, students)


def push_assignment(connection: CanvasConnection, people: dict[str, Person],
                    grades: AssignmentGrades, dry_run: bool = False,
                    connect: Connect = connect_api) -> tuple[list[str], int]:
    """`push_grades` of the grades `grades` of the students `people`."""
    report = CanvasGradePush(connection, connect).push(people, grades, dry_run)
    return report.lines, report.status
