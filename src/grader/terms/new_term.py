"""Next term's course started from this one (make new-term).

`start_new_term` copies the course's own content into a folder that must not exist yet,
and changes there what belongs to a term. What is carried is an allow-list
(`carried_files`): nbgrader_config.py, the notebooks (the source and release folders),
rubrics/, and the names at the folder's top that ``c.TermCarryOver.carried`` lists (the
course's code, pages, documents and build files); of those, the files git keeps (and new
ones it does not ignore) in a git work tree, otherwise every file but the built and
installed folders. Nothing of the term's own state is carried even where a name on the
list would take it (places.py): no run-time data (gradebook, notebooks, feedback, the
service's queue and stores, reports, defense sheets, similarity reports, regrade and
explain state), no released-solutions record (the new term's ``make publish`` would put
last term's solutions out on its first day), extensions, regrade requests or
gradebook-url.txt. What is left behind at the top is named (`NewTerm.left_behind`).

It changes:

- the salt of each student's own model, ``c.StudentVariants.salt``: the new term's
  name and a random part, so last term's answers fit no one's model; the instructor
  notebooks' ``COURSE_SALT`` lines are written with it (make release then writes the
  students' copies);
- the course id, ``c.CourseDirectory.course_id`` (`next_course_id`): the one given, or
  the term in it replaced (``gptcourse-2026-fall`` becomes ``gptcourse-2027-spring``), or
  the term added to an id that names none (``gptcourse-2027-spring``). The id names the
  course's folders in nbgrader's exchange: a new course that keeps this term's id while
  the exchange is this term's too (``c.Exchange.root`` the same, or left to the
  machine's) is refused, since its service would take this term's hand-ins;
- the due dates: each assignment's due date, moved by the same whole number of weeks,
  into a gradebook of the new course that holds nothing else. Whole weeks in the
  course's time zone keep each date's weekday and its time of day on the clock, across
  a change to or from daylight saving time. The number of weeks is the fewest that put
  the first due date on or after the new term's start (`weeks_to_shift`), unless given.

The new folder is written beside the target and renamed into place last, so a failure
leaves no half-made course.
"""

import datetime
import fnmatch
import os
import re
import secrets
import shutil
import subprocess
import tempfile
import zoneinfo
from dataclasses import dataclass

from nbgrader.api import Gradebook

from ..deadlines import stored_due
from ..recording import local_instant
from ..rubric import RUBRICS_FOLDER
from ..settings import CourseError, Settings, TermCarryOver, load, write_release_lines
from .archive import students_versions_folder
from .places import exchange_root, is_term_state

# folders that are built or installed, not written by the course's authors
NOT_COURSE = {".git", ".venv", "_build", "_publish", "__pycache__", ".pytest_cache",
              ".book-deps", ".hub-deps", ".student-wheels", ".lock-tools", "dask-certs",
              "term-archives"}
TERM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
COURSE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
SEASONS = "spring|summer|fall|autumn|winter"
# a term in a course id: 2026-fall, fall2026, 2026_spring, ...
TERM_IN_ID = re.compile(rf"(?i)(?:19|20)\d\d[-_]?(?:{SEASONS})|(?:{SEASONS})[-_]?(?:19|20)\d\d")
SALT_SETTING = re.compile(r"^(c\.StudentVariants\.salt\s*=\s*)(['\"]).*?\2", re.MULTILINE)
COURSE_ID_SETTING = re.compile(r"^(c\.CourseDirectory\.course_id\s*=\s*)(['\"])(.*?)\2",
                               re.MULTILINE)


@dataclass(frozen=True)
class NewTerm:
    """What `start_new_term` wrote: where, the course id, the salt, the weeks, each
    assignment's new due date (naive UTC, as nbgrader stores it), and what it carried."""

    folder: str
    course_id: str
    salt: str
    weeks: int
    due_dates: dict[str, datetime.datetime]
    old_course_id: str = ""  # this term's
    carried: tuple[str, ...] = ()  # the files copied, relative to the folder
    left_behind: tuple[str, ...] = ()  # the names at this course folder's top not carried


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


def kept_by_git(root: str) -> list[str] | None:
    """The files git keeps (and new ones it does not ignore) in the work tree whose top is
    `root`, relative to it; None when `root` is no git work tree's top."""
    listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True)
    top = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel"],
                         capture_output=True, text=True)
    if listed.returncode != 0 or os.path.realpath(top.stdout.strip()) != os.path.realpath(root):
        return None
    return [n for n in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if n]


def carried_names(settings: Settings) -> list[str]:
    """The allow-list: the names at the course folder's top that next term's course is made
    of (shell patterns among them): nbgrader_config.py, the notebooks' folders, rubrics/,
    and c.TermCarryOver.carried. CourseError for an entry that is not a name at the top."""
    listed = TermCarryOver(config=settings.config).carried
    bad = [n for n in listed if not n or "/" in n.strip("/") or n in (".", "..")]
    if bad:
        raise CourseError(f"c.TermCarryOver.carried lists {bad[0]!r}: each entry is a name (or "
                          f"a shell pattern) at the top of the course folder, e.g. 'book'")
    own = [os.path.relpath(f, settings.root).split(os.sep)[0]
           for f in (settings.source, students_versions_folder(settings))
           if not os.path.relpath(f, settings.root).startswith(os.pardir)]
    return ["nbgrader_config.py", RUBRICS_FOLDER, *own, *(n.strip("/") for n in listed)]


def carried_files(settings: Settings) -> tuple[list[str], list[str]]:
    """(the files next term's course is made of, relative to the course folder; the names
    at the folder's top left behind, built and installed folders aside), both sorted:
    the allow-list's files, never a file of the term's own state (places.py)."""
    root = settings.root
    names = kept_by_git(root)
    if names is None:
        names = []
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(d for d in subfolders if d not in NOT_COURSE)
            names += [os.path.relpath(os.path.join(folder, f), root) for f in files]
    allowed = carried_names(settings)
    carried = sorted(n for n in names
                     if any(fnmatch.fnmatchcase(n.split(os.sep)[0], p) for p in allowed)
                     and not set(n.split(os.sep)) & NOT_COURSE
                     and os.path.isfile(os.path.join(root, n))
                     and not is_term_state(settings, n))
    tops = {n.split(os.sep)[0] for n in carried}
    left = sorted(n + (os.sep if os.path.isdir(os.path.join(root, n)) else "")
                  for n in os.listdir(root) if n not in tops and n not in NOT_COURSE)
    return carried, left


def next_course_id(course_id: str, old_term: str, term: str, given: str = "") -> str:
    """Next term's course id: `given`, or `course_id` with its term replaced by `term`
    (`old_term`, this term's salt, counts as its term where the id holds it), or with
    `term` added where it names none. CourseError for an id nbgrader cannot use."""
    if given:
        new_id = given
    elif TERM_IN_ID.search(course_id):
        new_id = TERM_IN_ID.sub(term, course_id, count=1)
    elif old_term and old_term in course_id:
        new_id = course_id.replace(old_term, term, 1)
    else:
        new_id = f"{course_id}-{term}"
    if not COURSE_ID.match(new_id):
        raise CourseError(f"{'COURSE_ID' if given else 'the new course id'} {new_id!r} is not "
                          f"a course id: letters, digits, '.', '_' and '-', e.g. "
                          f"gptcourse-2027-spring" + ("" if given else "; give one with "
                                                          "COURSE_ID=..."))
    return new_id


def rewritten_config(text: str, salt: str, course_id: str) -> str:
    """nbgrader_config.py's text with the new salt and the new course id, each written over
    its setting or, where there is none as a plain string, added at the end."""
    for pattern, name, value in ((SALT_SETTING, "c.StudentVariants.salt", salt),
                                 (COURSE_ID_SETTING, "c.CourseDirectory.course_id", course_id)):
        found = pattern.search(text)
        if found:
            text = text[:found.start()] + found[1] + repr(value) + text[found.end():]
        else:
            text = text.rstrip("\n") + f"\n\n# this term's (make new-term)\n{name} = {value!r}\n"
    return text


def check_exchange_apart(this: Settings, new: Settings) -> None:
    """CourseError when next term's course keeps this term's id on this term's exchange:
    its service would take this term's hand-ins from the same inbound folder."""
    if new.course_id != this.course_id:
        return
    old_root, new_root = exchange_root(this), exchange_root(new)
    if new_root is not None and new_root != old_root:
        return
    where = new_root or "the machine's exchange (c.Exchange.root is not set in " \
                        "nbgrader_config.py)"
    raise CourseError(f"the new course would keep the course id {this.course_id!r} on this "
                      f"term's exchange, {where}: its grading service would take this "
                      f"term's hand-ins from {this.course_id}/inbound there; give it an id "
                      f"of its own (leave COURSE_ID out for one named after the term); "
                      f"nothing was written")


def this_term_due_dates(settings: Settings) -> dict[str, datetime.datetime]:
    with Gradebook(settings.db_url, settings.course_id) as gb:
        dues = {a.name: stored_due(a) for a in gb.assignments if a.name in settings.assignments}
    return {name: due for name, due in dues.items() if due is not None}


def start_new_term(settings: Settings, target: str, term: str, start: datetime.date | None,
                   zone_name: str = "UTC", weeks: int | None = None,
                   course_id: str = "") -> NewTerm:
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
    new_id = next_course_id(settings.course_id, old_term, term, course_id)
    carried, left_behind = carried_files(settings)
    building = tempfile.mkdtemp(prefix=f".{os.path.basename(target)}-", dir=os.path.dirname(target))
    try:
        for name in carried:
            os.makedirs(os.path.join(building, os.path.dirname(name)), exist_ok=True)
            shutil.copy2(os.path.join(settings.root, name), os.path.join(building, name),
                         follow_symlinks=False)
        config_path = os.path.join(building, "nbgrader_config.py")
        with open(config_path, encoding="utf-8") as handle:
            text = rewritten_config(handle.read(), salt, new_id)
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
        if fresh.course_id != new_id:
            raise CourseError(f"{target}/nbgrader_config.py: the new course id did not take "
                              f"(it reads {fresh.course_id!r}); write c.CourseDirectory."
                              f"course_id = {new_id!r} in this course's file as a plain string")
        check_exchange_apart(settings, fresh)
        write_release_lines(fresh)
        record_due_dates(fresh, new_dues)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return NewTerm(target, fresh.course_id, salt, weeks, new_dues, settings.course_id,
                   tuple(carried), tuple(left_behind))


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
