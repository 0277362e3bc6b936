"""An LMS download put in place: `make collect-zip ZIP=path ASSIGNMENT=name [LMS=...]`.

Every notebook of the zip lands where `nbgrader collect` puts one,
``submitted/<student>/<assignment>/<notebook>.ipynb`` beside ``timestamp.txt``,
so that autograding and nbgrader's late penalty treat it as any other submission.

1. The zip is checked whole (archive.py); a hostile one is refused before
   anything is written.
2. Each entry's name is read with the LMS's rules (its class in grader.lms) and
   matched to a student of the roster (by the LMS's user id, the roster's
   `lms_user_id`, or by full name, refused when two students share it or two of
   the LMS's people, by their ids, match one student) and to a
   notebook of the assignment (renamed copies such as `parameters-1.ipynb`
   included) (attempts.py). Every file that is not collected is listed with
   the reason.
3. Of several attempts at one notebook the latest is kept (the later time, then
   the larger attachment id). The time is the zip entry's; where a due date is
   set and the LMS has a late flag that disagrees with it, the LMS decides
   (`Platform.handed_in_at`), with a line.
4. A student already collected keeps that submission unless the zip's is later;
   a replaced one is moved to ``lms/replaced/<assignment>/`` first, with a line.
5. nbgrader's own `ZipCollectApp` moves the chosen files into submitted/ and
   writes timestamp.txt, through `LmsFileNameCollector` (transfer.py).
6. ``lms/<assignment>.csv`` (manifest.py) records, per student and notebook,
   what came from the LMS (ids, the file's name in the zip, the time, the late
   flag) for feedback that goes back the same way; a second collect updates it.

What it did comes back as a `CollectOutcome` (outcome.py), its counts as fields;
the command line prints its lines.
"""

import collections
import datetime
import os
import shutil
from enum import StrEnum

from nbgrader.api import Gradebook, MissingEntry

from ..deadlines import stored_due
from ..lms import (DEFAULT_PLATFORM, PLATFORMS, Platform, UnknownPlatform,
                   gradebooks, platform, shown_time)
from ..recording import read_timestamp
from ..reports import read_roster
from ..reports.roster import roster_path
from ..safe_text import shown_id
from ..settings import CourseError, Settings
from .archive import ArchiveEntry, checked_entries, open_archive, read_entries
from .attempts import (Attempt, SkippedFile, SkipReason, latest_attempts, one_person_each,
                       sort_entries)
from .manifest import manifest_path, read_manifest, replaced_folder, update_manifest
from .outcome import CollectOutcome
from .transfer import transfer_with_nbgrader


def due_date(settings: Settings, assignment: str) -> datetime.datetime | None:
    """The assignment's due date in the gradebook (naive UTC), or None."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            return stored_due(gb.find_assignment(assignment))
        except MissingEntry:
            return None


class Room(StrEnum):
    """What becomes of a student's submission collected before, when the zip has one."""

    FREE = "free"  # none collected before: the zip's is collected
    REPLACED = "replaced"  # moved to lms/replaced/: the zip's, later, is collected
    KEPT = "kept"  # kept: the zip's is not collected


def make_room(settings: Settings, assignment: str, student: str,
              moment: datetime.datetime) -> tuple[Room, str | None]:
    """(what became of the submission of `student` collected before, to make room for the
    zip's, handed in at `moment`; the line that says so, or None when there was none). One
    collected before is kept unless the zip's is later; a replaced one is moved to
    lms/replaced/ first."""
    folder = os.path.join(settings.submitted, student, assignment)
    if os.path.islink(folder) or (os.path.lexists(folder) and not os.path.isdir(folder)):
        return Room.KEPT, f"kept {student}: {folder} is not a folder; left as it is"
    if not os.path.isdir(folder):
        return Room.FREE, None
    before, _ = read_timestamp(folder)
    if before is None or before >= moment:
        return Room.KEPT, (f"kept {student}'s {assignment} already collected "
                           f"({shown_time(before)}): the zip's, {shown_time(moment)}, is not "
                           f"later")
    backup = replaced_folder(settings, assignment, student, before)
    if os.path.lexists(backup):  # the same submission, replaced before and collected again
        shutil.rmtree(backup)
    os.makedirs(os.path.dirname(backup), exist_ok=True)
    shutil.move(folder, backup)
    return Room.REPLACED, (f"replaced {student}'s {assignment} collected before "
                           f"({shown_time(before)}) with the zip's, {shown_time(moment)}; the "
                           f"earlier one is kept in {os.path.relpath(backup, settings.root)}")


def other_lms(lms: Platform, entries: list[ArchiveEntry], skipped: list[SkippedFile]
              ) -> Platform | None:
    """The LMS the zip may be from when every notebook of it is not named as `lms` names
    submissions: the first other LMS that reads one of their names, or else the first
    other; None when some notebook follows `lms`'s names."""
    unnamed = [s.entry for s in skipped if s.reason is SkipReason.NOT_NAMED]
    others = [p for p in PLATFORMS.values() if p is not lms]
    if not unnamed or not others or len(unnamed) != sum(e.name.endswith(".ipynb")
                                                        for e in entries):
        return None
    return next((p for p in others if any(p.read_name(e) for e in unnamed)), others[0])


def collect_zip(settings: Settings, assignment: str, zip_path: str,
                lms: str = DEFAULT_PLATFORM) -> CollectOutcome:
    """Every notebook of the LMS download `zip_path` into submitted/<student>/`assignment`/,
    read as the LMS named `lms` names its files; returns what was collected, replaced, kept
    and skipped."""
    try:
        platform_of_zip = platform(lms)
    except UnknownPlatform as error:
        raise CourseError(str(error)) from None
    settings.check_assignments([assignment])
    notebooks = [name + ".ipynb" for name in settings.instructor_notebooks(assignment)]
    roster = read_roster(roster_path(settings))
    if not roster:
        exports = " or ".join(f"{p.title}'s" for p, _ in gradebooks())
        raise CourseError(f"there is no roster to match the LMS's students with: run make "
                          f"roster ROSTER=file first ({exports} gradebook export or the "
                          f"course's roster with lms_user_id)")
    with open_archive(zip_path) as archive:  # every check before anything is written
        entries = checked_entries(archive, zip_path)
        attempts, skipped = sort_entries(platform_of_zip, entries, notebooks, roster, assignment)
        recorded = {row["student_id"]: row.get("lms_user_id") or ""
                    for row in read_manifest(manifest_path(settings, assignment))
                    if row.get("lms") == platform_of_zip.name}
        attempts, not_one = one_person_each(platform_of_zip, attempts, roster, recorded)
        skipped += not_one
        latest, older = latest_attempts(attempts)
        contents = read_entries(archive, zip_path, [a.entry.name for a in latest])
    due = due_date(settings, assignment)
    lines: list[str] = []
    times: dict[str, datetime.datetime] = {}
    late: dict[str, bool] = {}
    for attempt in latest:  # a student's time: the latest of their notebooks'
        moment, note = platform_of_zip.handed_in_at(attempt.name, attempt.entry.modified, due)
        lines += [note] if note else []
        times[attempt.student_id] = max(moment, times.get(attempt.student_id, moment))
    for attempt in latest:
        flagged = platform_of_zip.is_late(attempt.name, times[attempt.student_id], due)
        late[attempt.student_id] = late.get(attempt.student_id, False) or flagged
    chosen: list[Attempt] = []
    earlier: list[str] = []
    rooms: list[Room] = []
    for student in sorted(times):
        room, line = make_room(settings, assignment, student, times[student])
        earlier += [line] if line else []
        rooms.append(room)
        if room is not Room.KEPT:
            chosen += [a for a in latest if a.student_id == student]
    manifest = ""
    if chosen:
        transfer_with_nbgrader(settings, assignment, platform_of_zip.name, chosen, contents,
                               times)
        update_manifest(settings, assignment, chosen, late)
        manifest = os.path.relpath(manifest_path(settings, assignment), settings.root)
    for attempt in chosen:
        lines.append(f"collected {shown_id(attempt.student_id)}: {attempt.notebook} from "
                     f"{attempt.entry.name!r} (submitted {shown_time(times[attempt.student_id])}"
                     f"{', late' if late[attempt.student_id] else ''})")
    lines += earlier + [s.line for s in skipped + older]
    reasons = collections.Counter(s.reason for s in skipped + older)
    return CollectOutcome(
        assignment, zip_path, platform_of_zip, collected=len({a.student_id for a in chosen}),
        replaced=rooms.count(Room.REPLACED), kept=rooms.count(Room.KEPT),
        not_notebooks=reasons[SkipReason.NOT_A_NOTEBOOK], not_named=reasons[SkipReason.NOT_NAMED],
        not_on_roster=reasons[SkipReason.NO_STUDENT],
        not_of_assignment=reasons[SkipReason.OTHER_NOTEBOOK],
        older_attempts=reasons[SkipReason.OLDER_ATTEMPT],
        two_people=reasons[SkipReason.TWO_PEOPLE], manifest=manifest,
        other_lms=other_lms(platform_of_zip, entries, skipped), lines=lines)
