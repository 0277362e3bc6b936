"""An LMS download put in place: `make collect-zip ZIP=path ASSIGNMENT=name [LMS=canvas]`.

Every notebook of the zip lands where `nbgrader collect` puts one,
``submitted/<student>/<assignment>/<notebook>.ipynb`` beside ``timestamp.txt``,
so that autograding and nbgrader's late penalty treat it as any other submission.

1. The zip is checked whole (archive.py); a hostile one is refused before
   anything is written.
2. Each entry's name is read with the LMS's rules (names.py) and matched to a
   student of the roster (Canvas: the user id, the roster's `lms_user_id`;
   Moodle: the full name, refused when two students share it) and to a notebook
   of the assignment (renamed copies such as `parameters-1.ipynb` included).
   Every file that is not collected is listed with the reason.
3. Of several attempts at one notebook the latest is kept (the later time, then
   the larger Canvas attachment id). The time is the zip entry's; where a due
   date is set and Canvas's late flag disagrees with it, the flag decides
   (a flagged file not after the due date counts as one second after it, an
   unflagged one after the due date as handed in at the due date), with a line.
4. A student already collected keeps that submission unless the zip's is later;
   a replaced one is moved to ``lms/replaced/<assignment>/`` first, with a line.
5. nbgrader's own `ZipCollectApp` moves the chosen files into submitted/ and
   writes timestamp.txt, through `LmsFileNameCollector`.
6. ``lms/<assignment>.csv`` records, per student and notebook, what came from
   the LMS (ids, the file's name in the zip, the time, the late flag) for
   feedback that goes back the same way; a second collect updates it.
"""

import csv
import datetime
import logging
import os
import shutil
from dataclasses import dataclass

from nbgrader.api import Gradebook, MissingEntry

from ..files import csv_text, remove_left_over_folders, tagged_folder, write_atomically
from ..recording import read_timestamp
from ..reports import read_roster
from ..reports.roster import roster_path
from ..settings import CourseError, Settings
from .archive import ArchiveEntry, checked_entries, open_archive, read_entries
from .names import (BLIND_MARKING, LAYOUTS, PATTERNS, LmsFileName, LmsFileNameCollector,
                    comparable_name, read_lms_name, released_notebook)

MANIFEST_FIELDS = ["student_id", "lms", "lms_user_id", "attachment_id", "lms_file_name",
                   "submitted_at", "late", "notebook"]
LMS_NAMES = {"canvas": "Canvas", "moodle": "Moodle"}
ONE_SECOND = datetime.timedelta(seconds=1)


@dataclass(frozen=True)
class Attempt:
    """One notebook file of the zip matched to a student and a released notebook."""

    student_id: str
    notebook: str  # the released notebook's file name, "parameters.ipynb"
    name: LmsFileName
    entry: ArchiveEntry

    @property
    def order(self) -> tuple:
        """Later attempts sort later: the entry's time, then the attachment id."""
        return (self.entry.modified, int(self.name.attachment_id or 0), self.entry.name)


def shown_time(moment: datetime.datetime | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M:%S} UTC" if moment else "at an unknown time"


def roster_matches(lms: str, roster: list) -> dict:
    """{LMS key: [student ids]}: Canvas's user id, or Moodle's full name compared loosely."""
    matches = {}
    for person in roster:
        if lms == "canvas":
            key = person.lms_user_id
        else:
            key = comparable_name(f"{person.first_name} {person.last_name}")
        if key:
            matches.setdefault(key, []).append(person.id)
    return matches


def student_for(name: LmsFileName, matches: dict) -> tuple:
    """(student id, None) for the file `name`, or (None, why no student matches)."""
    if name.lms == "canvas":
        found = matches.get(name.lms_user_id, [])
        what = f"Canvas user {name.lms_user_id} ({name.student_name})"
        column = "lms_user_id (Canvas's ID column)"
    else:
        if BLIND_MARKING.match(name.student_name):
            return None, ("Moodle hid the student's name (blind marking): reveal the "
                          "identities and download again")
        found = matches.get(comparable_name(name.student_name), [])
        what = f"Moodle's {name.student_name!r}"
        column = "first_name and last_name"
    if len(found) > 1:
        return None, f"{what} matches {len(found)} students of the roster ({', '.join(found)})"
    if not found:
        return None, f"{what} is not on the roster (no student with that {column})"
    return found[0], None


def attempt_or_reason(lms: str, entry: ArchiveEntry, notebooks: list, matches: dict,
                      assignment: str) -> tuple:
    """(the Attempt the file `entry` is, None) or (None, why it is not collected)."""
    if entry.name.startswith("__MACOSX/"):
        return None, "a copy macOS adds to a zip it makes, not a submission"
    if not entry.name.endswith(".ipynb"):
        return None, "not a notebook (.ipynb)"
    name = read_lms_name(lms, entry.name)
    if name is None:
        return None, f"not named as {LMS_NAMES[lms]} names a submission ({LAYOUTS[lms]})"
    student, why = student_for(name, matches)
    if student is None:
        return None, why
    notebook = released_notebook(name.file_name, notebooks)
    if notebook is None:
        return None, (f"{name.file_name!r} is not a notebook of {assignment} "
                      f"(its notebooks: {', '.join(notebooks)})")
    return Attempt(student, notebook, name, entry), None


def sort_entries(lms: str, entries: list, notebooks: list, roster: list, assignment: str
                 ) -> tuple:
    """([Attempt], [skipped line]) for every file of the zip."""
    matches = roster_matches(lms, roster)
    attempts, skipped = [], []
    for entry in entries:
        attempt, why = attempt_or_reason(lms, entry, notebooks, matches, assignment)
        if attempt:
            attempts.append(attempt)
        else:
            skipped.append(f"skipped {entry.name!r}: {why}")
    return attempts, skipped


def latest_attempts(attempts: list) -> tuple:
    """([the latest Attempt of each student and notebook], [skipped line for the others])."""
    by_notebook = {}
    for attempt in attempts:
        by_notebook.setdefault((attempt.student_id, attempt.notebook), []).append(attempt)
    latest, skipped = [], []
    for _, group in sorted(by_notebook.items()):
        group.sort(key=lambda a: a.order)
        latest.append(group[-1])
        for older in group[:-1]:
            skipped.append(f"skipped {older.entry.name!r}: an older attempt of "
                           f"{older.notebook} by {older.student_id} "
                           f"({group[-1].entry.name!r} is later)")
    return latest, skipped


def submission_time(attempt: Attempt, due: datetime.datetime | None) -> tuple:
    """(submission time, naive UTC; None or a line saying how Canvas's late flag changed it)."""
    moment = attempt.entry.modified
    if due is None or attempt.name.lms != "canvas":
        return moment, None
    if attempt.name.late and moment <= due:
        return due + ONE_SECOND, (
            f"{attempt.entry.name!r}: Canvas flags it late but the zip dates it "
            f"{shown_time(moment)}, not after the due date {shown_time(due)}: taken as "
            f"handed in one second after the due date")
    if not attempt.name.late and moment > due:
        return due, (
            f"{attempt.entry.name!r}: Canvas counts it on time (an extension in Canvas?) "
            f"though the zip dates it {shown_time(moment)}, after the due date: taken as "
            f"handed in at the due date")
    return moment, None


def due_date(settings: Settings, assignment: str) -> datetime.datetime | None:
    """The assignment's due date in the gradebook (naive UTC), or None."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        try:
            return gb.find_assignment(assignment).duedate
        except MissingEntry:
            return None


def lms_folder(settings: Settings) -> str:
    """course-data/lms/: the manifests, and the submissions a later collect replaced."""
    return os.path.join(settings.data, "lms")


def manifest_path(settings: Settings, assignment: str) -> str:
    return os.path.join(lms_folder(settings), f"{assignment}.csv")


def read_manifest(path: str) -> list:
    """The rows of a manifest written before, or [] when there is none."""
    if not os.path.exists(path):
        return []
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise CourseError(f"the manifest {path} cannot be read ({error}); move it away "
                          f"and collect again") from None


def transfer_with_nbgrader(settings: Settings, assignment: str, lms: str, chosen: list,
                           contents: dict, times: dict) -> None:
    """The `chosen` attempts into submitted/ through nbgrader's ZipCollectApp: written to an
    'extracted' folder of nbgrader's layout under their names in the zip, then collected by
    nbgrader with LmsFileNameCollector, which writes timestamp.txt."""
    from nbgrader.apps import ZipCollectApp  # imports nbgrader's apps: when collecting
    from nbgrader.coursedir import CourseDirectory  # (the same)

    os.makedirs(lms_folder(settings), exist_ok=True)
    remove_left_over_folders(lms_folder(settings))
    staging = tagged_folder("zipcollect", lms_folder(settings))
    try:
        extracted = os.path.join(staging, assignment, "extracted")
        for attempt in chosen:
            path = os.path.join(extracted, *attempt.entry.name.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(contents[attempt.entry.name])
        app = ZipCollectApp(config=settings.config, log_level=logging.ERROR)
        app.coursedir = CourseDirectory(config=settings.config, root=settings.root)
        app.coursedir.assignment_id = assignment
        app.downloaded_directory = os.path.relpath(staging, settings.root)
        app.collector_plugin = LmsFileNameCollector
        app.init_plugins()
        collector = app.collector_plugin_inst
        collector.lms, collector.extracted = lms, extracted
        collector.student_ids = {a.entry.name: a.student_id for a in chosen}
        collector.notebooks = {a.entry.name: a.notebook for a in chosen}
        collector.timestamps = {a.entry.name: f"{times[a.student_id]:%Y-%m-%d %H:%M:%S.%f} UTC"
                                for a in chosen}
        try:
            app.process_extracted_files()
        except SystemExit:  # nbgrader's app.fail: logged, then exits
            raise CourseError(f"nbgrader's zip_collect stopped collecting {assignment}; "
                              f"what it replaced is kept in "
                              f"{os.path.join(lms_folder(settings), 'replaced', assignment)}"
                              ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def make_room(settings: Settings, assignment: str, student: str,
              moment: datetime.datetime) -> tuple:
    """(whether the zip's submission of `student`, handed in at `moment`, is to be collected;
    the line that says what became of one collected before, or None). One collected before is
    kept unless the zip's is later; a replaced one is moved to lms/replaced/ first."""
    folder = os.path.join(settings.submitted, student, assignment)
    if os.path.islink(folder) or (os.path.lexists(folder) and not os.path.isdir(folder)):
        return False, f"kept {student}: {folder} is not a folder; left as it is"
    if not os.path.isdir(folder):
        return True, None
    before, _ = read_timestamp(folder)
    if before is None or before >= moment:
        return False, (f"kept {student}'s {assignment} already collected ({shown_time(before)}): "
                       f"the zip's, {shown_time(moment)}, is not later")
    backup = os.path.join(lms_folder(settings), "replaced", assignment,
                          f"{student} {before:%Y-%m-%d %H%M%S}")
    if os.path.lexists(backup):  # the same submission, replaced before and collected again
        shutil.rmtree(backup)
    os.makedirs(os.path.dirname(backup), exist_ok=True)
    shutil.move(folder, backup)
    return True, (f"replaced {student}'s {assignment} collected before ({shown_time(before)}) "
                  f"with the zip's, {shown_time(moment)}; the earlier one is kept in "
                  f"{os.path.relpath(backup, settings.root)}")


def update_manifest(settings: Settings, assignment: str, lms: str, collected: list,
                    late: dict) -> None:
    """lms/<assignment>.csv with a row per notebook `collected` ([Attempt]), replacing the
    rows of the same students and keeping everyone else's; submitted_at is the text of the
    timestamp.txt nbgrader wrote."""
    path = manifest_path(settings, assignment)
    students = {attempt.student_id for attempt in collected}
    rows = [{field: row.get(field) or "" for field in MANIFEST_FIELDS}
            for row in read_manifest(path) if row.get("student_id") not in students]
    for attempt in collected:
        stamp = os.path.join(settings.submitted, attempt.student_id, assignment, "timestamp.txt")
        with open(stamp, encoding="utf-8") as handle:
            submitted_at = handle.read().strip()
        rows.append({"student_id": attempt.student_id, "lms": lms,
                     "lms_user_id": attempt.name.lms_user_id,
                     "attachment_id": attempt.name.attachment_id,
                     "lms_file_name": attempt.entry.name, "submitted_at": submitted_at,
                     "late": "true" if late[attempt.student_id] else "false",
                     "notebook": attempt.notebook})
    rows.sort(key=lambda row: (row["student_id"], row["notebook"]))
    write_atomically(path, csv_text(rows, MANIFEST_FIELDS))


def collect_zip(settings: Settings, assignment: str, zip_path: str, lms: str = "canvas"
                ) -> list:
    """Every notebook of the LMS download `zip_path` into submitted/<student>/`assignment`/;
    returns the lines that say what was collected, replaced, kept and skipped."""
    if lms not in PATTERNS:
        raise CourseError(f"LMS={lms!r}: the LMS is canvas or moodle")
    settings.check_assignments([assignment])
    notebooks = [name + ".ipynb" for name in settings.instructor_notebooks(assignment)]
    roster = read_roster(roster_path(settings))
    if not roster:
        raise CourseError("there is no roster to match the LMS's students with: run make "
                          "roster ROSTER=file first (Canvas's gradebook export or the course's "
                          "roster with lms_user_id)")
    with open_archive(zip_path) as archive:  # every check before anything is written
        entries = checked_entries(archive, zip_path)
        attempts, skipped = sort_entries(lms, entries, notebooks, roster, assignment)
        latest, older = latest_attempts(attempts)
        contents = read_entries(archive, zip_path, [a.entry.name for a in latest])
    due = due_date(settings, assignment)
    lines, times, late = [], {}, {}
    for attempt in latest:  # a student's time: the latest of their notebooks'
        moment, note = submission_time(attempt, due)
        lines += [note] if note else []
        times[attempt.student_id] = max(moment, times.get(attempt.student_id, moment))
    for attempt in latest:
        moment = times[attempt.student_id]
        flagged = attempt.name.late if lms == "canvas" else bool(due and moment > due)
        late[attempt.student_id] = late.get(attempt.student_id, False) or flagged
    chosen, earlier = [], []
    for student in sorted(times):
        collect, line = make_room(settings, assignment, student, times[student])
        earlier += [line] if line else []
        chosen += [a for a in latest if a.student_id == student] if collect else []
    if chosen:
        transfer_with_nbgrader(settings, assignment, lms, chosen, contents, times)
        update_manifest(settings, assignment, lms, chosen, late)
    for attempt in chosen:
        lines.append(f"collected {attempt.student_id}: {attempt.notebook} from "
                     f"{attempt.entry.name!r} (submitted {shown_time(times[attempt.student_id])}"
                     f"{', late' if late[attempt.student_id] else ''})")
    replaced = [line for line in earlier if line.startswith("replaced")]
    manifest = os.path.relpath(manifest_path(settings, assignment), settings.root)
    lines += earlier + skipped + older
    unnamed = [line for line in skipped if "not named as" in line]
    if unnamed and not attempts and len(unnamed) == sum(e.name.endswith(".ipynb")
                                                        for e in entries):
        other = "moodle" if lms == "canvas" else "canvas"
        lines.append(f"no notebook of the zip is named as {LMS_NAMES[lms]} names submissions: "
                     f"is it {LMS_NAMES[other]}'s download (LMS={other})?")
    lines.append(f"{assignment}: {len({a.student_id for a in chosen})} student(s) collected from "
                 f"{zip_path} ({len(replaced)} replacing an earlier collect), "
                 f"{len(earlier) - len(replaced)} kept as collected before, "
                 f"{len(skipped) + len(older)} file(s) skipped"
                 + (f"; the manifest: {manifest}" if chosen else ""))
    return lines
