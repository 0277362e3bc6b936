"""The late policies' arithmetic: a percentage per day with a floor, and a late-day budget
spent in due-date order, each on the table of cases the syllabi's examples use."""

import datetime
import math

import pytest
from nbgrader.plugins import LateSubmissionPlugin
from traitlets import TraitError
from traitlets.config import Config

from grader.plugins.late import (DAY_SECONDS, LateCharge, LateDayBudget, Lateness,
                                 PercentPerDay, days_late, earns_points, late_charges,
                                 points_end, policy_in_words)

HOUR = 3600.0
MINUTE = 60.0
MONDAY = datetime.datetime(2026, 12, 7, 17, 0)
NEXT_MONDAY = MONDAY + datetime.timedelta(days=7)

# (case, seconds late, whole days late, penalty of a 10-point notebook at 10% a day)
CASES = [
    ("on time", 0.0, 0, None),
    ("1 minute late", MINUTE, 1, 1.0),
    ("exactly one day late", DAY_SECONDS, 1, 1.0),
    ("25 hours late", 25 * HOUR, 2, 2.0),
    ("six days late, past the floor of half the score", 6 * DAY_SECONDS, 6, 5.0),
]


def percent_per_day(**settings):
    config = Config()
    for name, value in settings.items():
        setattr(config.PercentPerDay, name, value)
    return PercentPerDay(config=config)


@pytest.mark.parametrize("case, seconds, days, penalty", CASES, ids=[c[0] for c in CASES])
def test_ten_percent_a_day_with_a_floor_of_half(case, seconds, days, penalty):
    assert days_late(seconds) == days
    policy = percent_per_day(percent=10.0, floor_percent=50.0)
    assert policy.late_submission_penalty("alice", 10.0, seconds) == penalty


def test_a_part_of_a_day_counted_as_a_fraction():
    policy = percent_per_day(percent=10.0, part_day_counts=False)
    assert policy.late_submission_penalty("alice", 12.0, 25 * HOUR) == pytest.approx(
        12.0 * 10.0 * 25 / 24 / 100)
    assert policy.late_submission_penalty("alice", 12.0, 15 * DAY_SECONDS) == 12.0  # all of it


@pytest.mark.parametrize("method, expected", [("none", [None, None, None]),
                                              ("zero", [None, 10.0, 10.0])])
def test_nbgraders_own_policies_on_the_same_cases(method, expected):
    """What stock nbgrader's plugin gives, for comparison: the recording only calls it late."""
    plugin = LateSubmissionPlugin(penalty_method=method)
    got = [plugin.late_submission_penalty("alice", 10.0, s) if s > 0 else None
           for s in (0.0, MINUTE, 25 * HOUR)]
    assert got == expected


def lateness(assignment, due, hours_after_due, extension_hours=None):
    extension = (datetime.timedelta(hours=extension_hours) if extension_hours is not None
                 else None)
    return Lateness(assignment, due, extension, due + datetime.timedelta(hours=hours_after_due))


def test_a_budget_is_spent_in_due_date_order_whatever_order_it_is_read_in():
    budget = LateDayBudget(days=3)
    first = lateness("first", MONDAY, 25)  # 2 days
    second = lateness("second", NEXT_MONDAY, 49)  # 3 days, only 1 left: 25 hours charged
    expected = {"first": LateCharge(25 * HOUR, 0.0, 2, 1),
                "second": LateCharge(49 * HOUR, 25 * HOUR, 1, 0)}
    assert budget.spend([first, second]) == expected
    assert budget.spend([second, first]) == expected


def test_an_extension_moves_the_due_date_before_any_late_day_is_spent():
    budget = LateDayBudget(days=2)
    extended = lateness("first", MONDAY, 25, extension_hours=48)  # on time for the student
    late = lateness("second", NEXT_MONDAY, 1)  # 1 minute to 1 hour late: 1 day
    assert extended.seconds_late == 0 and extended.seconds_after_class_due == 25 * HOUR
    assert budget.spend([extended, late]) == {"first": LateCharge(0.0, 0.0, 0, 2),
                                              "second": LateCharge(HOUR, 0.0, 1, 1)}


def test_undated_or_unknown_times_are_never_late():
    undated = Lateness("first", None, datetime.timedelta(hours=5), MONDAY)
    unknown = Lateness("second", MONDAY, None, None)
    assert undated.seconds_late == 0 and undated.due is None and unknown.seconds_late == 0
    assert late_charges(LateDayBudget(days=1), [undated, unknown]) == {
        "first": LateCharge(0.0, 0.0, 0, 1), "second": LateCharge(0.0, 0.0, 0, 1)}


def test_without_a_budget_every_second_late_is_charged():
    assert late_charges(PercentPerDay(), [lateness("first", MONDAY, 25)]) == {
        "first": LateCharge(25 * HOUR, 25 * HOUR)}


def test_after_the_budget_the_configured_policy_applies():
    config = Config()
    config.LateSubmissionPlugin.penalty_method = "zero"
    assert LateDayBudget(config=config).late_submission_penalty("a", 6.0, HOUR) == 6.0
    config.LateDayBudget.after = "grader.plugins.late.PercentPerDay"
    config.PercentPerDay.percent = 5.0
    budget = LateDayBudget(config=config)
    assert budget.late_submission_penalty("a", 10.0, 25 * HOUR) == pytest.approx(1.0)
    assert budget.late_submission_penalty("a", 10.0, 0.0) is None


def test_the_course_config_names_a_policy_as_it_names_a_preprocessor():
    from nbgrader.preprocessors import AssignLatePenalties

    config = Config()
    config.AssignLatePenalties.plugin_class = "grader.plugins.late.LateDayBudget"
    config.LateDayBudget.days = 4
    late = AssignLatePenalties(config=config)
    late.init_plugin()
    assert type(late.plugin_inst) is LateDayBudget and late.plugin_inst.days == 4


def test_a_budget_cannot_be_followed_by_another_budget():
    with pytest.raises(TraitError, match="cannot be a budget"):
        LateDayBudget(after=LateDayBudget)


# (case, settings, the policy in words): what the instructors' page says of each
POLICIES_IN_WORDS = [
    ("nbgraders zero", {"LateSubmissionPlugin.penalty_method": "zero"},
     "a notebook handed in after its due date scores 0, a minute late or days late"),
    ("nbgraders none", {"LateSubmissionPlugin.penalty_method": "none"},
     "a notebook handed in after its due date keeps every point"),
    ("ten percent a day, a floor of half",
     {"AssignLatePenalties.plugin_class": "grader.plugins.late.PercentPerDay",
      "PercentPerDay.percent": 10.0, "PercentPerDay.floor_percent": 50.0},
     "10% of a late notebook's score is taken per day late, a part of a day counting as a "
     "whole day, and it keeps at least 50% of its score"),
    ("five late days, then zero",
     {"AssignLatePenalties.plugin_class": "grader.plugins.late.LateDayBudget",
      "LateDayBudget.days": 5, "LateSubmissionPlugin.penalty_method": "zero"},
     "each student has 5 late days for the whole course, spent in due-date order, a whole "
     "day for each part of a day late; lateness they do not cover: a notebook handed in "
     "after its due date scores 0, a minute late or days late"),
]


@pytest.mark.parametrize("case, settings, words", POLICIES_IN_WORDS,
                         ids=[p[0] for p in POLICIES_IN_WORDS])
def test_each_policy_is_said_in_words_from_the_config(case, settings, words):
    from nbgrader.preprocessors import AssignLatePenalties

    config = Config()
    for name, value in settings.items():
        section, trait = name.split(".")
        setattr(config[section], trait, value)
    late = AssignLatePenalties(config=config)
    late.init_plugin()
    assert policy_in_words(late.plugin_inst) == words


def budget_then(days, after="nbgrader.plugins.LateSubmissionPlugin", **after_settings):
    """A LateDayBudget of `days`, then `after` (nbgrader's "zero", or PercentPerDay with
    `after_settings`)."""
    config = Config()
    config.LateSubmissionPlugin.penalty_method = "zero"
    config.LateDayBudget.days = days
    config.LateDayBudget.after = after
    for name, value in after_settings.items():
        setattr(config.PercentPerDay, name, value)
    return LateDayBudget(config=config)


# the student's records: `first` handed in 25 hours late (2 late days under a budget); `this`,
# due NEXT_MONDAY with a 48-hour extension, not handed in yet; `later`, due a week after it,
# handed in 4 days late (which, due later, spends nothing `this` could use)
RECORDS = [lateness("first", MONDAY, 25), Lateness("this", NEXT_MONDAY,
                                                    datetime.timedelta(hours=48), None),
           lateness("later", NEXT_MONDAY + datetime.timedelta(days=7), 4 * 24)]
OWN_DUE = NEXT_MONDAY + datetime.timedelta(hours=48)  # 2026-12-16 17:00

# (case, the policy, the last moment a hand-in of `this` earns points; None: however late)
POINTS_END = [
    ("nbgraders zero: the student's own due date", LateSubmissionPlugin(penalty_method="zero"),
     OWN_DUE),
    ("nbgraders none: however late", LateSubmissionPlugin(penalty_method="none"), None),
    ("25% a day, parts of days whole: 3 days", percent_per_day(percent=25.0),
     OWN_DUE + datetime.timedelta(days=3)),
    ("30% a day: 3 days (the 4th takes all)", percent_per_day(percent=30.0),
     OWN_DUE + datetime.timedelta(days=3)),
    ("25% a day in fractions: 4 days", percent_per_day(percent=25.0, part_day_counts=False),
     OWN_DUE + datetime.timedelta(days=4)),
    ("7% a day in fractions: to the second", percent_per_day(percent=7.0,
                                                             part_day_counts=False),
     OWN_DUE + datetime.timedelta(seconds=math.ceil(100 / 7 * DAY_SECONDS))),
    ("10% a day down to a floor of 10%: however late",
     percent_per_day(percent=10.0, floor_percent=10.0), None),
    ("5 late days, 2 spent on an earlier assignment, then zero: 3 days", budget_then(5),
     OWN_DUE + datetime.timedelta(days=3)),
    ("2 late days, both spent: the own due date", budget_then(2), OWN_DUE),
    ("5 late days, 2 spent, then 25% a day: 3 + 3 days",
     budget_then(5, "grader.plugins.late.PercentPerDay", percent=25.0),
     OWN_DUE + datetime.timedelta(days=6)),
    ("a budget, then 10% a day down to a floor of 50%: however late",
     budget_then(5, "grader.plugins.late.PercentPerDay", percent=10.0, floor_percent=50.0),
     None),
]


@pytest.mark.parametrize("case, policy, end", POINTS_END, ids=[p[0] for p in POINTS_END])
def test_the_last_moment_a_hand_in_earns_points_is_the_policys_own(case, policy, end):
    assert points_end(policy, "alice", RECORDS, "this") == end
    if end is not None:  # a second earlier earns points, a second later none
        for offset, earns in ((-1, True), (1, False)):
            moment = end + datetime.timedelta(seconds=offset)
            assert earns_points(policy, "alice", RECORDS, "this", moment) is earns, offset
    else:
        late = OWN_DUE + datetime.timedelta(days=365 * 50)
        assert earns_points(policy, "alice", RECORDS, "this", late)


def test_a_hand_in_already_recorded_is_replaced_not_added():
    """alice handed `this` in 3 days late already: a new hand-in replaces it, so its days do
    not count twice (under a budget the same 3 days are still there to spend)."""
    handed = [RECORDS[0], Lateness("this", NEXT_MONDAY, datetime.timedelta(hours=48),
                                   OWN_DUE + datetime.timedelta(days=3)), RECORDS[2]]
    assert points_end(budget_then(5), "alice", handed, "this") == OWN_DUE + datetime.timedelta(
        days=3)


def test_an_assignment_without_a_due_date_has_no_end_of_points():
    with pytest.raises(ValueError, match="has no due date"):
        points_end(budget_then(5), "alice", [Lateness("this", None, None, None)], "this")
