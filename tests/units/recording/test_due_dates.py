"""A due date is the instant the instructor meant: an offset, UTC or an IANA zone name; a
zone abbreviation, a local time that never happens or happens twice is refused, saying why."""

import datetime

import pytest
from nbgrader.api import Gradebook

from grader.cli import main
from grader.recording import parse_due_date
from grader.settings import CourseError
from testsupport.gradebook import sqlite_url
from testsupport.tiny_course import ASSIGNMENT

ZONE_FORMS = "an offset such as +01:00, UTC, or an IANA zone name such as Europe/Berlin"


@pytest.mark.parametrize("text, utc", [
    ("2026-12-01 17:00:00 UTC", datetime.datetime(2026, 12, 1, 17)),
    ("2026-12-01 17:00 GMT", datetime.datetime(2026, 12, 1, 17)),
    ("2026-12-01T17:00:00Z", datetime.datetime(2026, 12, 1, 17)),
    ("Tuesday, 1 Dec 2026, 5:30 pm UTC", datetime.datetime(2026, 12, 1, 17, 30)),
    ("2026-12-01 17h30 UTC", datetime.datetime(2026, 12, 1, 17, 30)),
    ("2026-12-01 17:00", datetime.datetime(2026, 12, 1, 17)),  # no zone: UTC, as nbgrader reads it
    ("2026-12-01 17:00 -08:00", datetime.datetime(2026, 12, 2, 1)),
    ("2026-12-01 17:00 Europe/Berlin", datetime.datetime(2026, 12, 1, 16)),  # winter, +01:00
    ("2026-07-01 17:00 Europe/London", datetime.datetime(2026, 7, 1, 16)),  # summer, +01:00
    ("2026-12-01 17:00 America/Los_Angeles", datetime.datetime(2026, 12, 2, 1)),
    ("2026-10-25 02:30 +02:00", datetime.datetime(2026, 10, 25, 0, 30)),  # the offset says which
    ("2026-03-29 03:30 Europe/Berlin", datetime.datetime(2026, 3, 29, 1, 30)),  # just after the gap
])
def test_a_due_date_is_stored_as_the_instant_it_names(text, utc):
    assert parse_due_date(text) == utc


@pytest.mark.parametrize("text, why", [
    ("2026-12-01 17:00 PST", "'PST' is a time-zone abbreviation"),  # would be 8 h off
    ("2026-07-01 17:00 BST", "'BST' is a time-zone abbreviation"),  # would be 1 h off
    ("2026-12-01 17:00 EST", "'EST' is a time-zone abbreviation"),  # would be 5 h off
    ("2026-12-01 17:00 CET", "'CET' is a time-zone abbreviation"),
    ("2026-12-01 17:00 GMT+3", "'GMT+3' is read backwards by some programs"),
    ("2026-12-01 17:00 Mars/Olympus_Mons", "'Mars/Olympus_Mons' is no IANA time zone"),
    ("2026-12-01 17:00 +01:00 Europe/Berlin", "gives both an offset and a zone name"),
    ("2026-03-29 02:30 Europe/Berlin",
     "2026-03-29 02:30 never happens in Europe/Berlin: its clocks skip an hour that night"),
    ("2026-10-25 02:30 Europe/Berlin",
     "2026-10-25 02:30 happens twice in Europe/Berlin (at +02:00, then at +01:00: its clocks "
     "go back an hour that night); write the offset instead, e.g. 2026-10-25 02:30 +02:00"),
])
def test_a_zone_abbreviation_or_a_local_time_that_is_not_one_instant_is_refused(text, why):
    with pytest.raises(CourseError) as refused:
        parse_due_date(text)
    assert why in str(refused.value)
    assert ZONE_FORMS in str(refused.value)


def test_make_release_duedate_in_pacific_time_is_refused_and_nothing_is_recorded(tiny_course,
                                                                                 capsys):
    assert main(["due", ASSIGNMENT, "2026-12-01 17:00 PST", "--course", tiny_course]) == 2
    assert "'PST' is a time-zone abbreviation" in capsys.readouterr().err
    assert main(["check-config", "--duedate", "2026-03-29 02:30 Europe/Berlin",
                 "--course", tiny_course]) == 2
    assert "never happens in Europe/Berlin" in capsys.readouterr().err
    with Gradebook(sqlite_url(tiny_course), "tinycourse") as gb:
        assert gb.find_assignment(ASSIGNMENT).duedate is None
    assert main(["due", ASSIGNMENT, "2026-12-01 17:00 America/Los_Angeles",
                 "--course", tiny_course]) == 0
    assert capsys.readouterr().out == f"{ASSIGNMENT}: due 2026-12-02 01:00:00 UTC\n"
    with Gradebook(sqlite_url(tiny_course), "tinycourse") as gb:
        assert gb.find_assignment(ASSIGNMENT).duedate == datetime.datetime(2026, 12, 2, 1)
