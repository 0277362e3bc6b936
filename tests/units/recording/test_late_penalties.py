"""A late penalty kept within a notebook's score (grader.recording.late_penalties)."""

import logging

from grader.recording.late_penalties import penalty_within_score


def test_a_penalty_is_kept_between_zero_and_the_score_with_a_warning_when_changed(caplog):
    log = logging.getLogger("late-penalty-test")
    with caplog.at_level(logging.WARNING, logger="late-penalty-test"):
        assert penalty_within_score(2.5, 10.0, log) == 2.5
        assert caplog.messages == []
        assert penalty_within_score(-1.0, 10.0, log) == 0
        assert penalty_within_score(12.0, 10.0, log) == 10.0
    assert caplog.messages == [
        "(Penalty < 0) Adjusting late submission penalty from -1.0 to 0.",
        "(Penalty > score) Adjusting late submission penalty from 12.0 to 10.0."]
