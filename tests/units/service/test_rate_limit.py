"""N checks per window per student and assignment, with what remains and when the next is."""

from datetime import UTC, datetime, timedelta

import pytest
from traitlets.config import Config

from grader.service.page.rate_limit import RateLimit, allowance, course_rate_limit

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
HOUR = RateLimit(3, timedelta(hours=1))


def minutes_ago(*minutes):
    return [NOW - timedelta(minutes=m) for m in minutes]


def test_checks_left_count_only_the_window():
    left = allowance(minutes_ago(5, 70, 200), NOW, HOUR)
    assert (left.allowed, left.remaining, left.next_allowed) == (True, 2, None)
    assert left.sentence().startswith("2 of 3 checks left per hour")


def test_over_the_limit_the_next_check_is_when_the_oldest_of_the_window_leaves_it():
    left = allowance(minutes_ago(50, 10, 30, 90), NOW, HOUR)
    assert (left.allowed, left.remaining) == (False, 0)
    assert left.next_allowed == NOW + timedelta(minutes=10)  # 50 minutes ago + 1 hour
    assert left.sentence() == ("no checks left: 3 per hour are used; the next is allowed at "
                               "2026-12-01 12:10 UTC")
    later = allowance(minutes_ago(50, 10, 30), left.next_allowed, HOUR)
    assert (later.allowed, later.remaining) == (True, 1)


def test_more_counted_than_the_limit_waits_for_enough_to_leave():
    left = allowance(minutes_ago(55, 40, 20, 5), NOW, HOUR)
    assert left.next_allowed == NOW + timedelta(minutes=20)  # the 2nd oldest of four leaves


def test_the_course_config_sets_the_limit_and_a_wrong_one_is_named():
    config = Config()
    config.CheckRateLimit.checks = 4
    config.CheckRateLimit.window_minutes = 30.0
    assert course_rate_limit(config) == RateLimit(4, timedelta(minutes=30))
    assert course_rate_limit(Config()) == RateLimit(5, timedelta(hours=1))
    with pytest.raises(ValueError, match="c.CheckRateLimit.checks is 0: it must be at least 1"):
        RateLimit(0, timedelta(hours=1))
    with pytest.raises(ValueError, match="window_minutes is -5: it must be more than 0"):
        RateLimit(1, timedelta(minutes=-5))
