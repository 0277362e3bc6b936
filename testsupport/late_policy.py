"""What the tests of late policies share: the class's due date, a moment after it, and the
course's settings under another late policy."""

import copy
import dataclasses
import datetime

UTC = datetime.timezone.utc
DUE = datetime.datetime(2026, 12, 1, 17, 0, tzinfo=UTC)  # the class's due date
EARLIER = "tiny-0"  # an assignment due a week before, which alice handed in 25 hours late
ZERO = {"LateSubmissionPlugin.penalty_method": "zero"}  # the course's own


def at(days=0, hours=0):
    """DUE moved by so many days and hours."""
    return DUE + datetime.timedelta(days=days, hours=hours)


def under(settings, policy):
    """The course's settings with `policy` ({"Section.trait": value}) in its configuration."""
    config = copy.deepcopy(settings.config)
    for name, value in policy.items():
        section, trait = name.split(".")
        setattr(config[section], trait, value)
    return dataclasses.replace(settings, config=config)
