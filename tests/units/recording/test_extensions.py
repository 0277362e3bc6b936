"""The extensions file: good rows become nbgrader extensions, and every bad row is reported
with its line, nothing applied."""

import datetime

import pytest

from grader.recording import parse_extensions
from grader.recording.extensions import Extension
from grader.settings import CourseError
from testsupport.assignments import ASSIGNMENTS

DUE = datetime.datetime(2026, 12, 7, 17, 0)  # naive UTC, as nbgrader stores it
STUDENTS = {"alice", "bob", "carol"}
# the course's assignments; only parameters has a due date
DUE_DATES = {name: DUE if name == "parameters" else None for name in ASSIGNMENTS}
HEADER = "student_id,assignment,extra_hours,new_due,note\n"


def parse(text):
    return parse_extensions(text, "extensions.csv", STUDENTS, DUE_DATES)


def test_hours_or_a_new_due_date_become_the_extension_nbgrader_stores():
    rows = parse("\ufeff" + HEADER + "alice,parameters,48,,illness\n\n"
                 "bob,parameters,,2026-12-09 18:30 +01:00,accommodation\n"
                 "carol,parameters,2.5,,\n")
    assert rows == [Extension("alice", "parameters", datetime.timedelta(hours=48), 2),
                    Extension("bob", "parameters", datetime.timedelta(days=2, minutes=30), 4),
                    Extension("carol", "parameters", datetime.timedelta(hours=2.5), 5)]


@pytest.mark.parametrize("new_due, extension", [
    ("12/25/2026 17:00 UTC", datetime.timedelta(days=18)),  # only one month in it
    ("2026/12/09 17:00 UTC", datetime.timedelta(days=2)),  # year first
    ("2027-12-07 17:00 UTC", datetime.timedelta(days=365)),  # a year, as extra_hours allows
    ("2026-12-09 17:00 America/New_York", datetime.timedelta(days=2, hours=5)),
])
def test_a_new_due_date_that_reads_one_way_and_within_a_year_is_taken(new_due, extension):
    assert parse(HEADER + f"bob,parameters,,{new_due},\n") == [
        Extension("bob", "parameters", extension, 2)]


def test_a_file_without_a_note_or_new_due_column_is_read():
    assert parse("student_id,assignment,extra_hours\nalice,parameters,1\n") == [
        Extension("alice", "parameters", datetime.timedelta(hours=1), 2)]


BAD_ROWS = [
    ("dave,parameters,48,,", "unknown student 'dave'"),
    ("-rf,parameters,48,,", "student id '-rf' starts with '-'"),
    ("alice,paramaters,48,,", f"unknown assignment 'paramaters' (assignments: "
                              f"{', '.join(sorted(ASSIGNMENTS))})"),
    ("alice,logits-to-text,48,,", "logits-to-text has no due date"),
    ("bob,parameters,48,2026-12-09 17:00 UTC,", "give either extra_hours or new_due, not both"),
    ("bob,parameters,,,a note only", "give either extra_hours or new_due"),
    ("bob,parameters,two days,,", "extra_hours 'two days' is not a number"),
    ("bob,parameters,-5,,", "extra_hours '-5' is not a number of hours from 0 to 8784"),
    ("bob,parameters,nan,,", "extra_hours 'nan' is not a number of hours"),
    ("bob,parameters,,2026-12-09 17:00,", "new_due '2026-12-09 17:00' has no time zone"),
    ("bob,parameters,,2026-12-09 17:00 CET,", "new_due '2026-12-09 17:00 CET': 'CET' is a "
                                              "time-zone abbreviation"),
    ("bob,parameters,,2026-12-09 17:00 PST,", "'PST' is a time-zone abbreviation, which "
                                              "stands for different offsets"),
    ("bob,parameters,,2027-03-28 02:30 Europe/Berlin,", "2027-03-28 02:30 never happens in "
                                                        "Europe/Berlin"),
    ("bob,parameters,,2026-12-09 UTC,", "new_due '2026-12-09 UTC' has no time"),
    ("bob,parameters,,next friday 17:00 UTC,", "is not a date and time"),
    ("bob,parameters,,2026-12-07 16:00 UTC,", "is not after the class's due date, "
                                              "2026-12-07 17:00:00 UTC"),
    ("bob,parameters,,9999-12-07 17:00 UTC,", "new_due '9999-12-07 17:00 UTC' is 69,889,872 h "
                                              "after the class's due date, 2026-12-07 17:00:00 "
                                              "UTC: more than 8784 h (a year), as extra_hours "
                                              "allows"),
    ("bob,parameters,,9999-12-31 23:00 -05:00,", "is not a date nbgrader can store"),
    ("bob,parameters,,12/09/2026 17:00 UTC,", "new_due '12/09/2026 17:00 UTC' is ambiguous: "
                                              "'12/09/2026' may be 2026-12-09 or 2026-09-12: "
                                              "write the date as ISO 8601, year-month-day"),
    ("bob,parameters,,05.02.26 17:00 UTC,", "'05.02.26' may be 2026-05-02 or 2026-02-05"),
]


def test_every_bad_row_is_reported_with_its_line_and_nothing_is_returned():
    text = HEADER + "carol,parameters,24,,\n" + "".join(row + "\n" for row, _ in BAD_ROWS)
    text += "carol,parameters,12,,\n"  # twice
    with pytest.raises(CourseError) as raised:
        parse(text)
    message = str(raised.value)
    lines = message.splitlines()
    assert lines[0] == f"{len(BAD_ROWS) + 1} bad row(s) in the extensions file; nothing was applied:"
    for number, (line, (_, why)) in enumerate(zip(lines[1:], BAD_ROWS), start=3):
        assert line.startswith(f"extensions.csv, line {number}: ") and why in line, line
    assert lines[-1] == (f"extensions.csv, line {len(BAD_ROWS) + 3}: carol already has an "
                         f"extension for parameters on line 2")


@pytest.mark.parametrize("header, why", [
    ("", "empty"),
    ("student,assignment,extra_hours\n", "unknown: student; missing: student_id"),
    ("student_id,assignment,note\n", "the columns are student_id, assignment, extra_hours or "
                                     "new_due, and note"),
])
def test_a_file_whose_columns_are_wrong_is_refused(header, why):
    with pytest.raises(CourseError, match="extensions.csv") as raised:
        parse(header)
    assert why in str(raised.value)
