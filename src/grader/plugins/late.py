"""The course's late policies: nbgrader LateSubmissionPlugin classes that nbgrader_config.py names.

nbgrader's own plugin has two policies, ``penalty_method = "none"`` and
``"zero"``. Two more are here, chosen with ``c.AssignLatePenalties.plugin_class``:

- `PercentPerDay`: a percentage of the notebook's score per day late (a part of
  a day counting as a whole day, or not), never below a floor.
- `LateDayBudget`: each student has a number of late days for the whole course,
  spent in due-date order, whole days per assignment; lateness the budget covers
  costs nothing, the rest gets the policy in `LateDayBudget.after`.

Lateness is always counted from the student's own due date: the class's due
date plus the student's extension (nbgrader's ``SubmittedAssignment.extension``), as
grader.deadlines reads it.
A `Lateness` is what the gradebook says of one student's assignment; `late_charges`
turns a student's `Lateness` records into what each assignment is charged, and
`points_end` asks the same policy how late one assignment may still be handed in for
points (the solutions wait for it).
"""

import dataclasses
import datetime
import math
from dataclasses import dataclass
from typing import Any

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Bool, Float, Integer, TraitError, Type, validate

from ..deadlines import Deadline, as_utc, naive_utc

DAY_SECONDS = 86400.0
# a hand-in that still earns points this long after its due date earns them for ever
POINTS_HORIZON = datetime.timedelta(days=36525)  # a century


def days_late(seconds_late: float) -> int:
    """Whole days late, a part of a day counting as a day: 1 minute is 1, 25 hours are 2."""
    return math.ceil(seconds_late / DAY_SECONDS) if seconds_late > 0 else 0


@dataclass(frozen=True)
class Lateness:
    """One student's assignment as the gradebook holds it: due dates and hand-in time."""

    assignment: str
    class_due: datetime.datetime | None  # the class's due date (kept aware UTC), None: none
    extension: datetime.timedelta | None  # the student's extension, None: none
    timestamp: datetime.datetime | None  # when it was handed in (kept aware UTC), None: unknown

    def __post_init__(self) -> None:
        # nbgrader's naive times mean UTC: both are kept aware, so they always compare
        object.__setattr__(self, "class_due", as_utc(self.class_due))
        object.__setattr__(self, "timestamp", as_utc(self.timestamp))

    @property
    def due(self) -> datetime.datetime | None:
        """The student's own due date (aware UTC): the class's, plus the extension."""
        return Deadline.of(self.class_due, self.extension).effective

    @property
    def seconds_late(self) -> float:
        """Seconds after the student's own due date (0 when on time, undated or unknown)."""
        if self.due is None or self.timestamp is None:
            return 0.0
        return max(0.0, (self.timestamp - self.due).total_seconds())

    @property
    def seconds_after_class_due(self) -> float:
        """Seconds after the class's due date, whatever the extension."""
        if self.class_due is None or self.timestamp is None:
            return 0.0
        return max(0.0, (self.timestamp - self.class_due).total_seconds())


@dataclass(frozen=True)
class LateCharge:
    """What one late assignment is charged: the seconds the penalty is computed from, and,
    under a `LateDayBudget`, the late days it spent and those left after it."""

    seconds_late: float  # after the student's own due date
    seconds_charged: float  # what the policy's penalty is computed from
    late_days_used: int = 0
    late_days_left: int | None = None  # None: the course has no late-day budget


class PercentPerDay(LateSubmissionPlugin):
    """A percentage of the notebook's score taken per day late, never below a floor.

    With percent = 10 and the defaults, 1 minute late loses 10%, 25 hours late
    20%; with floor_percent = 50 a late notebook keeps at least half its score.
    (The inherited penalty_method is not used.)
    """

    percent = Float(10.0, min=0.0, max=100.0,
                    help="percent of a late notebook's score taken per day late").tag(config=True)
    part_day_counts = Bool(True, help="a part of a day late counts as a whole day (1 minute "
                                      "late: one day); off, days are counted in fractions"
                           ).tag(config=True)
    floor_percent = Float(0.0, min=0.0, max=100.0,
                          help="the least percent of its score a late notebook keeps"
                          ).tag(config=True)

    def percent_taken(self, seconds_late: float) -> float:
        """The percent of the score taken for `seconds_late` (0 when on time)."""
        if seconds_late <= 0:
            return 0.0
        days = days_late(seconds_late) if self.part_day_counts else seconds_late / DAY_SECONDS
        return min(self.percent * days, 100.0 - self.floor_percent)

    def late_submission_penalty(self, student_id: str, score: float,
                                total_seconds_late: float) -> float | None:
        if total_seconds_late <= 0:
            return None
        return score * self.percent_taken(total_seconds_late) / 100.0


class LateDayBudget(LateSubmissionPlugin):
    """Late days each student spends across the course's assignments, then another policy.

    Assignments are taken in due-date order (then by name). A late assignment
    spends whole days (a part of a day counts as one) while days remain: 25 hours
    late spends 2. When fewer days remain than it needs, it spends what is left and
    the lateness beyond them gets the `after` policy (its seconds counted from the
    student's due date moved by the days spent). Which days are spent depends only
    on due dates, extensions and hand-in times, never on scores, so the result
    does not depend on the order assignments are graded in.

    The spending needs the student's other assignments: the grader's recording
    (record_in_gradebook) computes it from the gradebook (`spend`); the plugin's
    own late_submission_penalty is given only the lateness the budget left.
    """

    days = Integer(5, min=0, help="late days each student may spend across the course's "
                                  "assignments").tag(config=True)
    after = Type(LateSubmissionPlugin, klass=LateSubmissionPlugin,
                 help="the policy for lateness the budget does not cover: nbgrader's "
                      "LateSubmissionPlugin (its penalty_method) or "
                      "grader.plugins.late.PercentPerDay").tag(config=True)

    @validate("after")
    def _after_is_not_a_budget(self, proposal: dict[str, Any]) -> type[LateSubmissionPlugin]:
        if issubclass(proposal["value"], LateDayBudget):
            raise TraitError("the policy after a late-day budget cannot be a budget itself")
        return proposal["value"]

    def spend(self, lateness: list[Lateness]) -> dict[str, LateCharge]:
        """{assignment: LateCharge} for one student's `Lateness` records, days spent in
        due-date order."""
        charges: dict[str, LateCharge] = {}
        left = self.days
        for entry in sorted(lateness, key=lambda e: (e.class_due is None, e.class_due or 0,
                                                     e.assignment)):
            seconds = entry.seconds_late
            if seconds <= 0:
                charges[entry.assignment] = LateCharge(0.0, 0.0, 0, left)
                continue
            used = min(days_late(seconds), left)
            left -= used
            charges[entry.assignment] = LateCharge(
                seconds, max(0.0, seconds - used * DAY_SECONDS), used, left)
        return charges

    def late_submission_penalty(self, student_id: str, score: float,
                                total_seconds_late: float) -> float | None:
        """The `after` policy's penalty for the lateness the budget did not cover."""
        if total_seconds_late <= 0:
            return None
        policy = self.after(parent=self)
        return policy.late_submission_penalty(student_id, score, total_seconds_late)


def policy_in_words(plugin: LateSubmissionPlugin) -> str:
    """The late policy `plugin` applies, as a sentence for students and instructors
    (the site's pages read it from nbgrader_config.py through this)."""
    if isinstance(plugin, LateDayBudget):
        after = plugin.after(parent=plugin)
        days = f"{plugin.days} late day{'s' if plugin.days != 1 else ''}"
        return (f"each student has {days} for the whole course, spent in due-date order, "
                "a whole day for each part of a day late; lateness they do not cover: "
                + policy_in_words(after))
    if isinstance(plugin, PercentPerDay):
        per_day = f"{plugin.percent:g}% of a late notebook's score is taken per day late"
        counted = (", a part of a day counting as a whole day" if plugin.part_day_counts
                   else ", counted in fractions of a day")
        floor = (f", and it keeps at least {plugin.floor_percent:g}% of its score"
                 if plugin.floor_percent else "")
        return per_day + counted + floor
    if plugin.penalty_method == "zero":
        return "a notebook handed in after its due date scores 0, a minute late or days late"
    return "a notebook handed in after its due date keeps every point"


def late_charges(plugin: LateSubmissionPlugin,
                 lateness: list[Lateness]) -> dict[str, LateCharge]:
    """{assignment: LateCharge} of one student's `Lateness` records under `plugin`."""
    if isinstance(plugin, LateDayBudget):
        return plugin.spend(lateness)
    return {e.assignment: LateCharge(e.seconds_late, e.seconds_late) for e in lateness}


def earns_points(plugin: LateSubmissionPlugin, student_id: str, lateness: list[Lateness],
                 assignment: str, handed_in: datetime.datetime) -> bool:
    """Whether `assignment` handed in at `handed_in` (naive UTC) would keep any of its points
    under `plugin`, for the student whose `Lateness` records these are: charged exactly as the
    recording charges it (`late_charges`, then the plugin's late_submission_penalty of a
    score of 1), the student's other hand-ins spending their late days first."""
    mine = [e for e in lateness if e.assignment == assignment]
    if not mine:
        raise ValueError(f"no Lateness record of {assignment} among {student_id}'s")
    others = [e for e in lateness if e.assignment != assignment]
    charge = late_charges(plugin, others + [dataclasses.replace(mine[0], timestamp=handed_in)])
    if charge[assignment].seconds_charged <= 0:
        return True
    penalty = plugin.late_submission_penalty(student_id, 1.0, charge[assignment].seconds_charged)
    return penalty is None or penalty < 1.0


def points_end(plugin: LateSubmissionPlugin, student_id: str, lateness: list[Lateness],
               assignment: str) -> datetime.datetime | None:
    """When points run out for `assignment` under `plugin` (naive UTC, rounded up to the
    second): a hand-in before it earns some (`earns_points`), one after it none. The
    student's own due date under nbgrader's "zero", later under a late-day budget with days
    left or a percentage per day that has not yet taken everything; None when a hand-in
    earns points however late (nbgrader's "none", a floor above 0%, or points for more than
    `POINTS_HORIZON`).

    The policy's own charging is asked, never a copy of its arithmetic: the moment is
    searched for, to the microsecond, on the hand-in time, since a later hand-in never
    earns more. ValueError when the assignment has no due date."""
    due = next((e.due for e in lateness if e.assignment == assignment), None)
    if due is None:
        raise ValueError(f"{assignment} has no due date, so no hand-in of it is late")

    def earns(microseconds: int) -> bool:
        return earns_points(plugin, student_id, lateness, assignment,
                            due + datetime.timedelta(microseconds=microseconds))

    earning, not_earning = 0, POINTS_HORIZON // datetime.timedelta(microseconds=1)
    if earns(not_earning):
        return None
    while not_earning - earning > 1:  # earns(earning) and not earns(not_earning)
        middle = (earning + not_earning) // 2
        if earns(middle):
            earning = middle
        else:
            not_earning = middle
    end = due + datetime.timedelta(microseconds=earning)
    return naive_utc(end + datetime.timedelta(microseconds=-end.microsecond % 1_000_000))
