"""After the archive: the students' files removed, and an archived term put back.

`purge_term` (make archive-term PURGE=1 CONFIRM=yes) removes the students' notebooks
(submitted/, autograded/, a local exchange, the simulated students' homes), their
feedback (feedback/, the LMS's feedback zips) and the grading service's stored
hand-ins (service/blobs/), and keeps the gradebook (every grade), the reports
(grades, summary, item analysis) and the queue's rows. It refuses, removing nothing:
before ``c.TermRetention.grace_days`` have passed since both the archive was written
and the term's last due date (extensions included); when the archive's checksum or a
file in it does not check; when a file to remove is not in the archive as it is now
(changed or new since: archive again); and without the confirmation.

`restore_term` (make restore-term ARCHIVE=...) puts an archive's files back in the
course folder, after its checksum and every file checked: a file of the data folder
that is there with other content is refused, with nothing written; a file that is
there with the same content (an SQLite database with the same rows) is left as it is;
a file of the course's own (nbgrader_config.py, the notebooks) that differs is kept as
it is here, and named (a regrade then says whether the release still fits the grades).
"""

import datetime
import json
import os
import shutil
import sqlite3
import tempfile

from nbgrader.api import Gradebook

from ..settings import CourseError, Settings, TermRetention
from ..settings.course_wheel import file_sha256
from .archive import SQLITE_MAGIC, TermArchive, latest_archive, read_archive

PURGE_RECORD = "purged-term.json"


def purged_folders(settings: Settings) -> list[str]:
    """The folders of the students' notebooks, feedback and stored hand-ins."""
    data = settings.data
    return [settings.submitted, settings.autograded, settings.feedback,
            os.path.join(data, "service", "blobs"),  # service/store.py's course_store
            os.path.join(data, "exchange"), os.path.join(data, "students"),
            os.path.join(data, "student-work"), os.path.join(data, "lms")]


def last_due_date(settings: Settings) -> datetime.datetime | None:
    """The term's last due date, each student's extension included (aware UTC), or None."""
    last = None
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for assignment in gb.assignments:
            if assignment.duedate is None:
                continue
            extra = [s.extension for s in gb.assignment_submissions(assignment.name)
                     if s.extension is not None]
            due = assignment.duedate + max(extra, default=datetime.timedelta(0))
            last = due if last is None else max(last, due)
    return last.replace(tzinfo=datetime.timezone.utc) if last else None


def files_under(folders: list[str], root: str) -> list[str]:
    found = []
    for top in folders:
        for folder, _, names in os.walk(top):
            found += [os.path.relpath(os.path.join(folder, n), root) for n in names]
    return sorted(found)


def purge_term(settings: Settings, archive_path: str = "", confirm: bool = False,
               now: datetime.datetime | None = None) -> list[str]:
    """The students' files removed (see the module's docstring); lines saying what went."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    archive = read_archive(archive_path or latest_archive(settings))
    if archive.course_id != settings.course_id:
        raise CourseError(f"{archive.path} is the archive of {archive.course_id}, not of "
                          f"{settings.course_id}")
    grace = TermRetention(config=settings.config).grace_days
    since = max(archive.written, last_due_date(settings) or archive.written)
    allowed = since + datetime.timedelta(days=grace)
    if now < allowed:
        raise CourseError(f"the students' files stay until {allowed:%Y-%m-%d %H:%M} UTC: "
                          f"c.TermRetention.grace_days = {grace} days after the archive "
                          f"({archive.written:%Y-%m-%d}) and the last due date; nothing removed")
    folders = [f for f in purged_folders(settings) if os.path.isdir(f)]
    files = files_under(folders, settings.root)
    changed = [f for f in files if archive.files.get(f) !=
               file_sha256(os.path.join(settings.root, f))]
    if changed:
        raise CourseError(f"{len(changed)} file(s) are not in {archive.path} as they are now "
                          f"(first: {changed[0]}): run make archive-term again; nothing "
                          f"removed")
    shown = [f"{os.path.relpath(f, settings.root)}/" for f in folders]
    if not confirm:
        raise CourseError(f"this removes {len(files)} file(s) in {', '.join(shown) or 'nothing'} "
                          f"for good (the archive {os.path.basename(archive.path)} keeps "
                          f"them); run again with CONFIRM=yes")
    for folder in folders:
        shutil.rmtree(folder)
    record = {"purged": now.isoformat(), "archive": os.path.basename(archive.path),
              "sha256": archive.sha256, "files": len(files), "folders": shown}
    with open(os.path.join(settings.data, PURGE_RECORD), "w", encoding="utf-8") as handle:
        json.dump(record, handle, indent=1)
    return [f"removed {len(files)} file(s): {', '.join(shown)}",
            f"kept: the gradebook, reports/ (grades, item analysis), the queue's rows; "
            f"the archive {archive.path} holds the rest"]


def sqlite_rows(path: str) -> list[str] | None:
    with open(path, "rb") as handle:
        if handle.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            return None
    connection = sqlite3.connect(path)  # read-write: closing it leaves no -wal, -shm
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def same_content(here: str, archived: str) -> bool:
    if file_sha256(here) == file_sha256(archived):
        return True
    rows = sqlite_rows(archived)
    return rows is not None and sqlite_rows(here) == rows


def restore_term(course: str, archive_path: str
                 ) -> tuple[TermArchive, list[str], list[str]]:
    """An archive's files back in the course folder `course` (see the module's docstring);
    the archive, the files written and the course's own files kept as they are here, both
    relative to the folder."""
    course = os.path.abspath(course)
    staging = tempfile.mkdtemp(prefix=".restore-term-", dir=course)
    try:
        archive = read_archive(os.path.abspath(archive_path), into=staging)
        written, conflicts, kept = [], [], []
        for name in sorted(archive.files):
            here = os.path.join(course, name)
            of_data = (name + os.sep).startswith(archive.data + os.sep)
            if os.path.islink(here) or os.path.lexists(here) and not os.path.isfile(here):
                conflicts.append(name)
            elif os.path.isfile(here):
                if not same_content(here, os.path.join(staging, name)):
                    (conflicts if of_data else kept).append(name)
            else:
                written.append(name)
        if conflicts:
            raise CourseError(f"{len(conflicts)} file(s) of the archive are in {course} with "
                              f"other content (first: {conflicts[0]}); nothing restored: "
                              f"restore into a copy of the course, or move those away")
        for name in written:
            os.makedirs(os.path.dirname(os.path.join(course, name)), mode=0o700, exist_ok=True)
            os.replace(os.path.join(staging, name), os.path.join(course, name))
        return archive, written, kept
    finally:
        shutil.rmtree(staging, ignore_errors=True)
