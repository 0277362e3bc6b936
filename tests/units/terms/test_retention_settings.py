"""The grace period is a setting of the course (what a purge removes: test_places.py)."""

from traitlets.config import Config

from grader.settings import TermRetention


def test_the_grace_period_is_half_a_year_unless_set():
    assert TermRetention().grace_days == 180
    config = Config()
    config.TermRetention.grace_days = 30
    assert TermRetention(config=config).grace_days == 30
