"""Next term's due dates: moved by whole weeks on the course's clock, so each keeps its
weekday and its time of day there, across a change to or from daylight saving time."""

import datetime
import zoneinfo

import pytest

from grader.settings import CourseError
from grader.terms import shifted, weeks_to_shift

BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")
UTC = zoneinfo.ZoneInfo("UTC")


def on_berlin_clock(naive_utc):
    return naive_utc.replace(tzinfo=datetime.timezone.utc).astimezone(BERLIN)


def test_a_summer_due_date_moved_into_winter_keeps_its_weekday_and_hour_in_berlin():
    due = datetime.datetime(2026, 9, 1, 15, 0)  # Tuesday 17:00 CEST (+02:00)
    moved = shifted(due, 20, BERLIN)
    assert moved == datetime.datetime(2027, 1, 19, 16, 0)  # Tuesday 17:00 CET (+01:00)
    local = on_berlin_clock(moved)
    assert (local.strftime("%A %H:%M"), local.utcoffset()) == (
        "Tuesday 17:00", datetime.timedelta(hours=1))


def test_a_winter_due_date_moved_into_summer_keeps_them_too():
    due = datetime.datetime(2027, 1, 22, 22, 59)  # Friday 23:59 CET
    moved = shifted(due, 12, BERLIN)  # 2027-04-16, after the clocks went forward
    assert moved == datetime.datetime(2027, 4, 16, 21, 59)
    assert on_berlin_clock(moved).strftime("%A %H:%M") == "Friday 23:59"


def test_in_utc_whole_weeks_are_exactly_so_many_days():
    due = datetime.datetime(2026, 10, 6, 17, 0)
    assert shifted(due, 15, UTC) == due + datetime.timedelta(days=105)


def test_the_weeks_put_the_first_due_date_on_or_after_the_new_terms_start():
    first = datetime.datetime(2026, 9, 8, 15, 0)  # Tuesday 2026-09-08, 17:00 in Berlin
    assert weeks_to_shift(first, datetime.date(2027, 1, 18), BERLIN) == 19  # Tue 2027-01-19
    assert weeks_to_shift(first, datetime.date(2027, 1, 19), BERLIN) == 19  # that very day
    assert weeks_to_shift(first, datetime.date(2027, 1, 20), BERLIN) == 20
    # 23:30 UTC on Monday is already Tuesday in Berlin: the clock's date counts
    late = datetime.datetime(2026, 9, 7, 23, 30)
    assert weeks_to_shift(late, datetime.date(2027, 1, 19), BERLIN) == 19
    assert weeks_to_shift(late, datetime.date(2027, 1, 19), UTC) == 20  # Monday in UTC


def test_a_start_before_the_first_due_date_is_refused():
    with pytest.raises(CourseError, match="not after this term's first due date"):
        weeks_to_shift(datetime.datetime(2026, 9, 8, 15), datetime.date(2026, 9, 1), BERLIN)
