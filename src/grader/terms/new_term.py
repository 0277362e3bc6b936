"""Next term's course started from this one (make new-term).

`start_new_term` copies the course's own files (those git keeps, or every file but
the run-time data when the folder is no git work tree) into a folder that must not
exist yet, and changes there what belongs to a term:

- the salt of each student's own model, ``c.StudentVariants.salt``: the new term's
  name and a random part, so last term's answers fit no one's model; the instructor
  notebooks' ``COURSE_SALT`` lines are written with it (make release then writes the
  students' copies);
- the course id, ``c.CourseDirectory.course_id``, where it names the term
  (``gptcourse-2026-fall`` becomes ``gptcourse-2027-spring``);
- the due dates: each assignment's due date, moved by the same whole number of weeks,
  into a gradebook of the new course that holds nothing else. Whole weeks in the
  course's time zone keep each date's weekday and its time of day on the clock, across
  a change to or from daylight saving time. The number of weeks is the fewest that put
  the first due date on or after the new term's start (`weeks_to_shift`), unless given.

Nothing of the students goes: no roster, extensions, regrade requests, submissions,
grades, feedback or queue (the run-time data folder and the files that name students
are not copied). The new folder is written beside the target and renamed into place
last, so a failure leaves no half-made course.
"""

import datetime
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import zoneinfo
from dataclasses import dataclass

from nbgrader.api import Gradebook

from ..recording import EXTENSIONS_FILE, local_instant
from ..settings import CourseError, Settings, load, write_release_lines

# files of a course folder that name students or hold a secret: never carried over
PERSONAL_FILES = (EXTENSIONS_FILE, "regrade-requests.csv", "gradebook-url.txt")
# folders that are built or installed, not written by the course's authors
NOT_COURSE = {".git", ".venv", "_build", "_publish", "__pycache__", ".pytest_cache",
              ".book-deps", ".hub-deps", ".student-wheels", ".lock-tools", "dask-certs",
              "term-archives"}
TERM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
SEASONS = "spring|summer|fall|autumn|winter"
# a term in a course id: 2026-fall, fall2026, 2026_spring, ...
TERM_IN_ID = re.compile(rf"(?i)(?:19|20)\d\d[-_]?(?:{SEASONS})|(?:{SEASONS})[-_]?(?:19|20)\d\d")
SALT_SETTING = re.compile(r"^(c\.StudentVariants\.salt\s*=\s*)(['\"]).*?\2", re.MULTILINE)
COURSE_ID_SETTING = re.compile(r"^(c\.CourseDirectory\.course_id\s*=\s*)(['\"])(.*?)\2",
                               re.MULTILINE)


@dataclass(frozen=True)
class NewTerm:
    """What `start_new_term` wrote: where, the course id, the salt, the weeks and each
    assignment's new due date (naive UTC, as nbgrader stores it)."""

    folder: str
    course_id: str
    salt: str
    weeks: int
    due_dates: dict[str, datetime.datetime]


def zone_of(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise CourseError(f"ZONE={name!r} is no IANA time zone (e.g. Europe/Berlin, "
                          f"America/New_York, UTC)") from None


def on_the_clock(due: datetime.datetime, zone: zoneinfo.ZoneInfo) -> datetime.datetime:
    """A due date as nbgrader stores it (naive UTC), as the clocks of `zone` show it (naive)."""
    return due.replace(tzinfo=datetime.timezone.utc).astimezone(zone).replace(tzinfo=None)


def weeks_to_shift(first_due: datetime.datetime, start: datetime.date,
                   zone: zoneinfo.ZoneInfo) -> int:
    """The fewest whole weeks that move `first_due` (naive UTC) to `start` or later, on the
    clocks of `zone`; CourseError when the new term does not start after it."""
    days = (start - on_the_clock(first_due, zone).date()).days
    if days <= 0:
        raise CourseError(f"START={start} is not after this term's first due date "
                          f"({on_the_clock(first_due, zone):%Y-%m-%d %H:%M} {zone.key}): "
                          f"give the new term's first day")
    return -(-days // 7)


def shifted(due: datetime.datetime, weeks: int, zone: zoneinfo.ZoneInfo) -> datetime.datetime:
    """`due` (naive UTC) moved by `weeks` whole weeks on the clocks of `zone`: the same weekday
    and time of day there, whatever daylight saving time does; naive UTC again."""
    local = on_the_clock(due, zone) + datetime.timedelta(weeks=weeks)
    try:
        instant = local_instant(local, zone, zone.key)
    except ValueError as error:
        raise CourseError(f"a due date moved by {weeks} weeks: {error}") from None
    return instant.astimezone(datetime.timezone.utc).replace(tzinfo=None)


def course_files(settings: Settings) -> list[str]:
    """The course's own files, relative to its root: those git keeps (and new ones it does
    not ignore) in a git work tree, otherwise every file outside the built and installed
    folders; never the run-time data or a file that names students."""
    root = settings.root
    listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True)
    top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True)
    if listed.returncode == 0 and os.path.realpath(top.stdout.strip()) == os.path.realpath(root):
        names = [n for n in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if n]
    else:
        names = []
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(d for d in subfolders if d not in NOT_COURSE)
            names += [os.path.relpath(os.path.join(folder, f), root) for f in files]
    data = os.path.relpath(settings.data, root) + os.sep
    return sorted(n for n in names
                  if not (n + os.sep).startswith(data) and n not in PERSONAL_FILES
                  and os.path.isfile(os.path.join(root, n))
                  and not set(n.split(os.sep)) & NOT_COURSE)


def rewritten_config(text: str, salt: str, old_term: str, term: str) -> tuple[str, str]:
    """(nbgrader_config.py's text with the new salt and, where the course id names a term,
    the new term in it; the course id as written)."""
    salt_line = f"c.StudentVariants.salt = {salt!r}"
    if SALT_SETTING.search(text):
        text = SALT_SETTING.sub(lambda m: m[1] + repr(salt), text, count=1)
    else:
        text = text.rstrip("\n") + f"\n\n# this term's salt of each student's own model " \
                                   f"(make new-term)\n{salt_line}\n"
    found = COURSE_ID_SETTING.search(text)
    if found and TERM_IN_ID.search(found[3]):
        new_id = TERM_IN_ID.sub(term, found[3], count=1)
        text = text[:found.start()] + f"{found[1]}{new_id!r}" + text[found.end():]
        return text, new_id
    if found and old_term and old_term in found[3]:
        new_id = found[3].replace(old_term, term, 1)
        text = text[:found.start()] + f"{found[1]}{new_id!r}" + text[found.end():]
        return text, new_id
    return text, found[3] if found else ""


def this_term_due_dates(settings: Settings) -> dict[str, datetime.datetime]:
    with Gradebook(settings.db_url, settings.course_id) as gb:
        return {a.name: a.duedate for a in gb.assignments
                if a.duedate is not None and a.name in settings.assignments}


def start_new_term(settings: Settings, target: str, term: str, start: datetime.date | None,
                   zone_name: str = "UTC", weeks: int | None = None) -> NewTerm:
    """Next term's course in `target`, from this one (see the module's docstring)."""
    if not TERM_NAME.match(term):
        raise CourseError(f"TERM={term!r}: a term's name is letters, digits, '.', '_' and "
                          f"'-', e.g. 2027-spring")
    target = os.path.abspath(target)
    if os.path.lexists(target):
        raise CourseError(f"{target} exists already: make new-term writes a new folder and "
                          f"never over another; give a TO that does not exist")
    if not os.path.isdir(os.path.dirname(target)):
        raise CourseError(f"{os.path.dirname(target)}: no such folder to write {target} in")
    zone = zone_of(zone_name)
    dues = this_term_due_dates(settings)
    if weeks is None:
        if start is None:
            raise CourseError("give START=YYYY-MM-DD, the new term's first day (or WEEKS=N)")
        weeks = weeks_to_shift(min(dues.values()), start, zone) if dues else 0
    elif weeks < 0:
        raise CourseError(f"WEEKS={weeks}: the new term comes after this one")
    new_dues = {name: shifted(due, weeks, zone) for name, due in sorted(dues.items())}
    salt = f"{term}-{secrets.token_hex(4)}"
    old_term = settings.variant_salt if settings.variant_salt and \
        settings.variant_salt in settings.course_id else ""
    building = tempfile.mkdtemp(prefix=f".{os.path.basename(target)}-", dir=os.path.dirname(target))
    try:
        for name in course_files(settings):
            os.makedirs(os.path.join(building, os.path.dirname(name)), exist_ok=True)
            shutil.copy2(os.path.join(settings.root, name), os.path.join(building, name),
                         follow_symlinks=False)
        config_path = os.path.join(building, "nbgrader_config.py")
        with open(config_path, encoding="utf-8") as handle:
            text, _ = rewritten_config(handle.read(), salt, old_term, term)
        with open(config_path, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.rename(building, target)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    try:
        fresh = load(target)
        if fresh.variant_salt != salt:
            raise CourseError(f"{target}/nbgrader_config.py: the new salt did not take (it "
                              f"reads {fresh.variant_salt!r}); set c.StudentVariants.salt = "
                              f"{salt!r} there by hand")
        write_release_lines(fresh)
        record_due_dates(fresh, new_dues)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return NewTerm(target, fresh.course_id, salt, weeks, new_dues)


def record_due_dates(settings: Settings, dues: dict[str, datetime.datetime]) -> None:
    """The assignments and their due dates into the new course's gradebook, refused where
    that gradebook holds any of them already (another term's, in a shared database)."""
    os.makedirs(settings.data, exist_ok=True)  # an SQLite gradebook's folder
    with Gradebook(settings.db_url, settings.course_id) as gb:
        there = sorted({a.name for a in gb.assignments} & set(settings.assignments))
        if there:
            raise CourseError(f"the new course's gradebook ({settings.course_id}) already "
                              f"holds {', '.join(there)}: give the new term a database of "
                              f"its own (gradebook-url.txt) or a course id that names the "
                              f"term")
        for name in settings.assignments:
            gb.update_or_create_assignment(name, duedate=dues.get(name))
