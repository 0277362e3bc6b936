"""`AgsGradePush`: one assignment's grades into the platform's gradebook through AGS, or a dry run.

The grade of each student is the one `make grades` exports and the Canvas push
sends (`AssignmentGrades.score_of`: after the late policy and any extension),
planned by the push's own `plan_rows` against the platform's results, so only
a score (or feedback summary) that differs from what the platform holds is
posted: a second push with nothing changed posts nothing. Students are found
by the roster's ``lti_user_id`` (make lti-roster); AGS needs no launch, so a
student who never opened the tool is pushed like the others. A student with no
LTI user id is listed and the others pushed; a 401 stops the push with what
was sent so far. When the line item the course made is gone from the platform
(deleted there: line_items.py keeps which it was and whose scores it held), the
push makes it again and sends it every one of those grades, not only the
students it was asked for (the grading service asks for each student as their
grade becomes final), and says so.
"""

import os
from collections.abc import Collection
from typing import Any

from ..lms import LmsSubmission
from ..push import GradePush, PushOutcome, PushRow, push_with
from ..reports import AssignmentGrades, Person, number
from ..settings import CourseError, Settings
from .ags import LineItem, find_line_item, find_or_create_line_item, post_score, results
from .keys import read_keys
from .line_items import LineItemRecord, SentLineItem
from .services import PlatformServices
from .registration import LtiSetupError, registration_from

TITLE = "LTI"
NO_LTI_ID = ("no LTI user id in the roster (make lti-roster; the platform lists only its "
             "course's learners)")


def lti_user_id(person: Person) -> str:
    return person.lti_user_id


def platform_services(settings: Settings, needs: tuple[str, ...]) -> PlatformServices:
    """The platform's services for the course's registration (c.LtiTool) and key pair;
    CourseError naming what to set or make."""
    try:
        registration = registration_from(settings.config, needs)
        return PlatformServices(registration, read_keys(os.path.join(
            settings.data, registration.key_folder)))
    except LtiSetupError as error:
        raise CourseError(str(error)) from None


class AgsGradePush(GradePush):
    """LTI Advantage's AGS: the line item the course made for the assignment (made again
    where it is gone), each score posted with its comment where the platform lacks either."""

    title = TITLE
    written = "score(s) posted"
    would_write = "score(s) would be posted"
    missing = "without an LTI user id"
    refused_by = "the platform answered 401"
    no_user_id = NO_LTI_ID

    def __init__(self, services: PlatformServices | None = None,
                 record: LineItemRecord | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.services, self.record = services, record
        self.item: LineItem | None = None
        self.held_scores: dict[str, LmsSubmission] = {}
        self.sent_before: SentLineItem | None = None
        self.gone = False

    def prepare(self, settings: Settings) -> None:
        self.services = platform_services(settings, ("lineitems_url",))
        self.record = LineItemRecord(os.path.join(settings.data,
                                                  self.services.registration.key_folder))

    def user_id(self, person: Person) -> str:
        return lti_user_id(person)

    def open(self, grades: AssignmentGrades, dry_run: bool) -> list[str]:
        if self.services is None:
            raise CourseError("no LTI platform: prepare(settings) first")
        if dry_run:
            self.item, how = find_line_item(self.services, grades.name)
        else:
            self.item, how = find_or_create_line_item(self.services, grades.name,
                                                      grades.max_score)
        self.held_scores = (results(self.services, self.item, grades.max_score)
                            if self.item else {})
        self.sent_before = self.record.of(grades.name) if self.record else None
        self.gone = self.sent_before is not None and (
            self.item is None or self.item.url != self.sent_before.url)
        item = self.item
        lines = [f"{grades.name} -> line item " + (
            f"{item.url} {item.label!r} (found by {how})" if item
            else "(none yet: the push makes it)")]
        if self.gone:
            lines.append(f"note: the line item {self.sent_before.url} the course made for "
                         f"{grades.name} is gone from the platform; every grade sent to it "
                         f"before is sent again")
        if item and abs(item.score_maximum - grades.max_score) > 1e-9:
            lines.append(f"note: the line item is out of {number(item.score_maximum)} points, "
                         f"the course {number(grades.max_score)}; scores are sent out of "
                         f"{number(grades.max_score)}")
        return lines

    def who(self, people: dict[str, Person], students: Collection[str] | None
            ) -> dict[str, Person]:
        if self.gone and students is not None:
            students = set(students) | self.sent_before.students
        return super().who(people, students)

    def held(self, people: dict[str, Person], grades: AssignmentGrades
             ) -> dict[str, LmsSubmission]:
        in_platform = {p.lti_user_id: LmsSubmission(p.lti_user_id, None, ())
                       for p in people.values() if p.lti_user_id}
        in_platform.update(self.held_scores)
        return in_platform

    def planned(self, rows: list[PushRow]) -> None:
        for row in rows:  # a score posted carries both: send both where either differs
            row.send_grade = row.send_comment = row.writes

    def send(self, row: PushRow, grades: AssignmentGrades) -> str:
        post_score(self.services, self.item, row.lms_user_id, row.grade, grades.max_score,
                   row.comment)
        return "score and comment"

    def finished(self, rows: list[PushRow], grades: AssignmentGrades) -> None:
        if self.record is None:
            return
        holding = {r.student for r in rows
                   if r.outcome in (PushOutcome.SENT, PushOutcome.UP_TO_DATE)}
        if not self.gone and self.sent_before is not None:
            holding |= self.sent_before.students  # a score is never taken off a line item
        self.record.keep(grades.name, SentLineItem(self.item.url, frozenset(holding)))


def lti_push(settings: Settings, assignment: str, dry_run: bool = False,
             students: Collection[str] | None = None) -> tuple[list[str], int]:
    """(the lines to print, 0 all pushed or 1 some failed) of the push of `assignment`
    (of `students` only, when given)."""
    return push_with(AgsGradePush(config=settings.config), settings, assignment, dry_run,
                     students)


def push_scores(services: PlatformServices, people: dict[str, Person],
                grades: AssignmentGrades, dry_run: bool = False,
                students: Collection[str] | None = None, record: LineItemRecord | None = None
                ) -> tuple[list[str], int]:
    """`lti_push` of the grades `grades` of the students `people` (of `students` only, when
    given, and of those whose scores the line item `record` keeps held, if it is gone)."""
    report = AgsGradePush(services, record).push(people, grades, dry_run, students)
    return report.lines, report.status
