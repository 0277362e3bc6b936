"""An assignment's due date, recorded in the gradebook (make release DUEDATE=...).

A due date (and an extension's new_due, extensions.py) is read as one instant:
the date and time with an offset (``2026-12-01 17:00 +01:00``), with UTC (or GMT,
Z), or with an IANA zone name (``2026-12-01 17:00 Europe/Berlin``, daylight saving
time included); without any, as UTC, as nbgrader reads it. A zone abbreviation
(PST, BST, EST, CET, ...) is refused: each stands for different offsets in
different places, and the date parser would silently take it for UTC. So is a
local time the zone's clocks skip (02:30 on the night they go forward) or pass
twice (the night they go back), and ``GMT+3``, which some programs read as three
hours behind GMT.
"""

import re
import warnings
import zoneinfo
from datetime import datetime, timedelta, timezone, tzinfo

from dateutil import parser
from nbgrader.api import Gradebook, MissingEntry

from ..settings import CourseError, Settings
from .late_penalties import assign_late_penalties

ZONE_FORMS = "an offset such as +01:00, UTC, or an IANA zone name such as Europe/Berlin"
ZONE_NAME = re.compile(r"\s([A-Za-z][\w+-]*(?:/[\w+-]+)+)\s*$")  # Europe/Berlin, at the end
OFFSET_AFTER_UTC = re.compile(r"\b((?:UTC|GMT|UT)\s*[+-]\s*\d[\d:]*)", re.IGNORECASE)
WORD = re.compile(r"[^\W\d_]+")  # letters: a month, a weekday, AM, UTC, ... or a zone's name
NOT_A_DATE = "is not a date and time"
UTC_NAMES = {name: timezone.utc for name in ("UTC", "GMT", "UT", "Z")}


def offset_text(offset: timedelta) -> str:
    """'+02:00', '-03:30'."""
    minutes = round(offset.total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02}:{abs(minutes) % 60:02}"


def duration_words(delta: timedelta) -> str:
    """'an hour', '30 minutes', '2 hours'."""
    minutes = round(abs(delta.total_seconds()) / 60)
    if minutes % 60:
        return f"{minutes} minutes"
    return "an hour" if minutes == 60 else f"{minutes // 60} hours"


def local_instant(local: datetime, zone: tzinfo, name: str) -> datetime:
    """The instant of the wall-clock time `local` (naive) in `zone`; ValueError when the
    zone's clocks skip that time or show it twice."""
    first, second = local.replace(tzinfo=zone, fold=0), local.replace(tzinfo=zone, fold=1)
    if first.utcoffset() == second.utcoffset():
        return first
    shown = f"{local:%Y-%m-%d %H:%M}" + (f":{local:%S}" if local.second else "")
    amount = duration_words(second.utcoffset() - first.utcoffset())
    if first.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None) != local:
        raise ValueError(f"{shown} never happens in {name}: its clocks skip {amount} that "
                         f"night; give a time that happens, or the zone as {ZONE_FORMS}")
    raise ValueError(f"{shown} happens twice in {name} (at {offset_text(first.utcoffset())}, "
                     f"then at {offset_text(second.utcoffset())}: its clocks go back {amount} "
                     f"that night); write the offset instead, e.g. {shown} "
                     f"{offset_text(first.utcoffset())} (the zone may be {ZONE_FORMS})")


def read_instant(text: str) -> tuple[datetime, bool]:
    """(the instant `text` names, as naive UTC as nbgrader stores dates; whether `text`
    names its zone). ValueError saying what is wrong: a complete clause that follows the
    text in a message."""
    zone, rest = None, text
    named = ZONE_NAME.search(text)
    if named:
        try:
            zone = zoneinfo.ZoneInfo(named[1])
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{named[1]!r} is no IANA time zone; write the zone as "
                             f"{ZONE_FORMS}") from None
        rest = text[:named.start()]
    glued = OFFSET_AFTER_UTC.search(rest)
    if glued:
        raise ValueError(f"{glued[1]!r} is read backwards by some programs (GMT+3 as three "
                         f"hours behind GMT); write the zone as {ZONE_FORMS}")
    words = parser.parserinfo()
    for word in WORD.findall(rest):
        if (word.upper() in UTC_NAMES or words.month(word) is not None or words.jump(word)
                or words.weekday(word) is not None or words.ampm(word) is not None
                or words.hms(word) is not None):
            continue
        if word.isupper():
            raise ValueError(f"{word!r} is a time-zone abbreviation, which stands for "
                             f"different offsets in different places (and may be read as UTC "
                             f"where it is not known); write the zone as {ZONE_FORMS}")
        raise ValueError(f"{NOT_A_DATE} ({word!r} is no word of one)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an unknown zone name cannot be left: checked above
        try:
            when = parser.parse(rest, tzinfos=UTC_NAMES)
        except (ValueError, OverflowError) as error:
            raise ValueError(f"{NOT_A_DATE} ({error})") from None
    if zone is not None:
        if when.tzinfo is not None:
            raise ValueError(f"gives both an offset and a zone name ({named[1]}); write the "
                             f"zone once, as {ZONE_FORMS}")
        when = local_instant(when, zone, named[1])
    if when.tzinfo is None:
        return when, False
    try:
        return when.astimezone(timezone.utc).replace(tzinfo=None), True
    except (ValueError, OverflowError):  # beyond the last year a date can hold
        raise ValueError("is not a date nbgrader can store") from None


def instant_problem(what: str, text: str, problem: str, example: str) -> str:
    """The message of `read_instant`'s `problem` with `text`, the value of `what` ("due
    date", "new_due"); a text that is no date gets `example` to follow."""
    if problem.startswith(NOT_A_DATE):
        problem += f"; write it as \"{example}\" (the zone as {ZONE_FORMS})"
    return f"{what} {text!r}" + (" " if problem.startswith(("is ", "gives ")) else ": ") + problem


def parse_due_date(text: str) -> datetime:
    """A due date as nbgrader stores it (naive UTC), from text such as '2026-12-01 17:00 UTC'
    or '2026-12-01 17:00 Europe/Berlin'; CourseError saying what is wrong."""
    try:
        return read_instant(text)[0]
    except ValueError as error:
        raise CourseError(instant_problem("due date", text, str(error),
                                          "2026-12-01 17:00:00 UTC")) from None


def set_due_date(settings: Settings, assignment: str, text: str) -> str:
    """Records the due date of a released assignment and charges the late penalties of its
    students again; returns what was done, in words.

    A due date cannot be removed while students have extensions of it (nbgrader
    counts an extension from the due date).
    """
    due = None if text.strip().lower() == "none" else parse_due_date(text)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            gb.find_assignment(assignment)
        except MissingEntry:
            raise CourseError(f"assignment {assignment!r} is not in the gradebook: "
                              f"run make release first") from None
        submissions = gb.assignment_submissions(assignment)
        extended = sorted(s.student_id for s in submissions if s.extension is not None)
        if due is None and extended:
            raise CourseError(f"{assignment} cannot lose its due date while "
                              f"{len(extended)} student(s) have an extension of it "
                              f"({', '.join(extended)}): remove them from the extensions "
                              f"file and run make extensions first")
        gb.update_or_create_assignment(assignment, duedate=due)
        late_penalties = settings.late_penalties()
        try:
            for student in sorted({s.student_id for s in submissions}):
                assign_late_penalties(gb.db, student, late_penalties)
            gb.db.commit()
        except BaseException:
            gb.db.rollback()
            raise
    if due is None:
        return f"{assignment}: no due date"
    moved = (f"; the {len(extended)} extension(s) of it count from this date (make "
             f"extensions again for a new_due that should stay put)" if extended else "")
    return f"{assignment}: due {due:%Y-%m-%d %H:%M:%S} UTC{moved}"
