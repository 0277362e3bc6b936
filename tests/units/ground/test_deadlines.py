"""A student's deadline (grader.deadlines): one reader of the class's due date and the
student's extension, aware UTC, that every page, push, policy and report asks."""

import ast
import datetime
import pathlib
import zoneinfo

import pytest
from nbgrader.api import Gradebook

import grader
from grader.deadlines import Deadline, as_utc, class_due, deadline_of, naive_utc, stored_due
from grader.publish.solutions_policy import points_windows
from grader.recording import apply_extensions, lateness_of, set_due_date
from grader.reports import read_grades
from grader.service.after.due_feedback import due_dates
from grader.service.page.requests import student_due
from grader.settings import load
from grader.terms.retention import last_due_date
from testsupport.late_policy import DUE, EARLIER, UTC, at
from testsupport.tiny_course import ASSIGNMENT

PACKAGE = pathlib.Path(grader.__file__).parent
NAIVE_DUE = DUE.replace(tzinfo=None)  # as nbgrader stores it
HOURS_48 = datetime.timedelta(hours=48)


class Row:
    """An assignment as the gradebook gives it: only its stored due date."""

    def __init__(self, duedate):
        self.duedate = duedate


@pytest.mark.parametrize("stored", [NAIVE_DUE, DUE, DUE.astimezone(zoneinfo.ZoneInfo("Asia/Tokyo"))],
                         ids=["naive read as UTC", "aware UTC", "aware in another zone"])
def test_a_due_date_naive_or_aware_is_the_same_instant_in_utc(stored):
    deadline = deadline_of(Row(stored))
    assert deadline == Deadline(DUE, None, DUE)
    assert deadline.effective.tzinfo is UTC and deadline.effective.utcoffset() == datetime.timedelta(0)
    assert stored_due(Row(stored)) == NAIVE_DUE


def test_an_extension_moves_the_students_own_deadline_not_the_classs():
    deadline = deadline_of(Row(NAIVE_DUE), HOURS_48)
    assert (deadline.due, deadline.extension, deadline.effective) == (DUE, HOURS_48, at(2))


def test_no_due_date_is_no_deadline_whatever_the_extension():
    assert deadline_of(Row(None), HOURS_48) == Deadline(None, HOURS_48, None)
    assert deadline_of(None) == Deadline(None, None, None)
    assert class_due(None) is None and stored_due(Row(None)) is None


def test_a_due_date_given_in_a_daylight_saving_zone_is_its_utc_instant():
    new_york = zoneinfo.ZoneInfo("America/New_York")
    summer = datetime.datetime(2026, 7, 1, 17, 0, tzinfo=new_york)  # EDT, UTC-4
    winter = datetime.datetime(2026, 12, 1, 17, 0, tzinfo=new_york)  # EST, UTC-5
    assert deadline_of(Row(summer)).effective == datetime.datetime(2026, 7, 1, 21, 0, tzinfo=UTC)
    assert deadline_of(Row(winter)).effective == datetime.datetime(2026, 12, 1, 22, 0, tzinfo=UTC)
    # the extension is a duration: 48 hours across the autumn change are 48 hours in UTC
    autumn = datetime.datetime(2026, 10, 31, 12, 0, tzinfo=new_york)
    assert (deadline_of(Row(autumn), HOURS_48).effective
            == datetime.datetime(2026, 11, 2, 16, 0, tzinfo=UTC))
    assert naive_utc(winter) == datetime.datetime(2026, 12, 1, 22, 0)
    assert as_utc(None) is None


@pytest.fixture(scope="module")
def settings(tiny_course, tmp_path_factory):
    """The tiny course due at DUE; bob has 48 hours more and handed in, EARLIER due a week
    before."""
    settings = load(tiny_course)
    set_due_date(settings, ASSIGNMENT, "2026-12-01 17:00:00 UTC")
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.update_or_create_student("bob")
        gb.update_or_create_assignment(EARLIER, duedate=at(-7).replace(tzinfo=None))
        with gb.db.no_autoflush:  # nbgrader adds it in steps (SQLAlchemy warns otherwise)
            gb.add_submission(ASSIGNMENT, "bob", timestamp=at(1).replace(tzinfo=None))
    extensions = tmp_path_factory.mktemp("extensions") / "extensions.csv"
    extensions.write_text("student_id,assignment,extra_hours,new_due,note\n"
                          f"bob,{ASSIGNMENT},48,,\n")
    apply_extensions(settings, str(extensions))
    return settings


def test_the_six_callers_give_one_student_the_same_deadline(settings):
    with Gradebook(settings.db_url, settings.course_id) as gb:
        recorded = lateness_of(gb.find_submission(ASSIGNMENT, "bob")).due
    _, (grades,) = read_grades(settings, [ASSIGNMENT])
    window = next(w for w in points_windows(settings, ASSIGNMENT) if w.student == "bob")
    seen = {
        "service.requests.student_due": student_due(settings, ASSIGNMENT, "bob"),
        "service.due_feedback.due_dates": due_dates(settings, [("bob", ASSIGNMENT)])[
            ("bob", ASSIGNMENT)],
        "terms.retention.last_due_date": last_due_date(settings),
        "recording.late_penalties.lateness_of": recorded,
        "reports.grades.read_grades": grades.class_due + grades.extensions["bob"],
        "publish.solutions_policy.points_windows": window.due,
    }
    assert seen == dict.fromkeys(seen, at(2))
    assert all(moment.tzinfo is not None for moment in seen.values())


# the attributes that are not an assignment's: the command line's --duedate option
NOT_AN_ASSIGNMENT = {("recording/commands.py", "args")}


def duedate_reads():
    """(file, the name the attribute is read from) of every `.duedate` read in src/grader."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr == "duedate"
                    and isinstance(node.ctx, ast.Load)):
                owner = node.value.id if isinstance(node.value, ast.Name) else ast.unparse(node.value)
                found.append((str(path.relative_to(PACKAGE)), owner))
    return found


def test_only_the_deadline_reader_reads_an_assignments_due_date():
    reads = [(path, owner) for path, owner in duedate_reads() if (path, owner) not in NOT_AN_ASSIGNMENT]
    assert reads == [("deadlines.py", "assignment")]
