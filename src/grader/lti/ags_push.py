"""`lti_push`: one assignment's grades into the platform's gradebook through AGS, or a dry run.

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

from ..lms import LmsRefused, LmsRequestFailed, LmsSubmission, LmsUnavailable
from ..push import (PushCounts, PushOutcome, PushRow, only_students, plan_rows,
                    shared_refusals, table, write_rows)
from ..reports import AssignmentGrades, Person, number, read_grades
from ..settings import CourseError, Settings
from .ags import find_line_item, find_or_create_line_item, post_score, results
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


def lti_push(settings: Settings, assignment: str, dry_run: bool = False,
             students: Collection[str] | None = None) -> tuple[list[str], int]:
    """(the lines to print, 0 all pushed or 1 some failed) of the push of `assignment`
    (of `students` only, when given)."""
    services = platform_services(settings, ("lineitems_url",))
    people, [grades] = read_grades(settings, [assignment])
    record = LineItemRecord(os.path.join(settings.data, services.registration.key_folder))
    return push_scores(services, people, grades, dry_run, students, record)


def push_scores(services: PlatformServices, people: dict[str, Person],
                grades: AssignmentGrades, dry_run: bool = False,
                students: Collection[str] | None = None, record: LineItemRecord | None = None
                ) -> tuple[list[str], int]:
    """`lti_push` of the grades `grades` of the students `people` (of `students` only, when
    given, and of those whose scores the line item `record` keeps held, if it is gone)."""
    try:
        if dry_run:
            item, how = find_line_item(services, grades.name)
        else:
            item, how = find_or_create_line_item(services, grades.name, grades.max_score)
        held = results(services, item, grades.max_score) if item else {}
    except (LmsRefused, LmsUnavailable, LmsRequestFailed) as error:
        raise CourseError(f"{error}; nothing was written") from None
    sent_before = record.of(grades.name) if record else None
    gone = sent_before is not None and (item is None or item.url != sent_before.url)
    if gone and students is not None:
        students = set(students) | sent_before.students
    people = only_students(people, students, lti_user_id)
    in_platform = {p.lti_user_id: LmsSubmission(p.lti_user_id, None, ())
                   for p in people.values() if p.lti_user_id}
    in_platform.update(held)
    rows = plan_rows(people, grades, in_platform, TITLE, lti_user_id, NO_LTI_ID)
    for row in rows:  # a score posted carries both: send both where either differs
        row.send_grade = row.send_comment = row.writes
    lines = [f"{grades.name} -> line item " + (f"{item.url} {item.label!r} (found by {how})"
                                                if item else "(none yet: the push makes it)")]
    if gone:
        lines.append(f"note: the line item {sent_before.url} the course made for {grades.name} "
                     f"is gone from the platform; every grade sent to it before is sent again")
    if item and abs(item.score_maximum - grades.max_score) > 1e-9:
        lines.append(f"note: the line item is out of {number(item.score_maximum)} points, the "
                     f"course {number(grades.max_score)}; scores are sent out of "
                     f"{number(grades.max_score)}")
    if dry_run:
        return lines + table(rows, False, TITLE) + [
            f"dry run: nothing written ({sum(r.writes for r in rows)} score(s) would be "
            f"posted)"] + shared_refusals(rows, TITLE), 0
    def send(row: PushRow) -> str:
        post_score(services, item, row.lms_user_id, row.grade, grades.max_score, row.comment)
        return "score and comment"

    refused = write_rows(rows, send, "the platform answered 401")
    if record is not None:
        holding = {r.student for r in rows
                   if r.outcome in (PushOutcome.SENT, PushOutcome.UP_TO_DATE)}
        if not gone and sent_before is not None:
            holding |= sent_before.students  # a score is never taken off a line item
        record.keep(grades.name, SentLineItem(item.url, frozenset(holding)))
    lines += table(rows, True, TITLE)
    counts = PushCounts.of(rows)
    lines.append(f"{counts.sent} score(s) posted, {counts.up_to_date} up to date, "
                 f"{counts.missing} without an LTI user id, {counts.failed} failed"
                 + (": run the push again to finish them" if counts.failed else ""))
    lines += shared_refusals(rows, TITLE)
    if refused:
        raise CourseError("\n".join(lines + [refused]))
    return lines, 1 if counts.failed or counts.shared else 0
