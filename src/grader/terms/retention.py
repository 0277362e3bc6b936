"""After the archive: the students' files removed, and an archived term put back.

`purge_term` (make archive-term PURGE=1 CONFIRM=yes) removes every file of the term that
holds a student's work or values (places.py's `student_work`): their notebooks
(submitted/, autograded/, a local exchange, the simulated students' homes), their tries
and stored hand-ins (service/checks/, service/blobs/), their feedback (feedback/, the
LMS's files), the explain grading state, and of the reports each student's part of the
grade report with the assignment's rows made from them, the similarity reports and the
defense sheets. It keeps the grade record: the gradebook (every grade), the queue's rows,
grades.csv and the exports, the roster, summary.txt, the report pages, each check's item
analysis, the regrade records. It says both, file by file for what it keeps, folder by
folder for what it removes, and writes them to course-data/purged-term.json. It refuses,
removing nothing: before ``c.TermRetention.grace_days`` have passed since both the
archive was written and the term's last due date (extensions included); when the
archive's checksum or a file in it does not check; when a file to remove is not in the
archive as it is now (changed or new since: archive again); and without the confirmation.

`restore_term` (make restore-term ARCHIVE=...) puts an archive's files back in the
course folder, after its checksum and every file checked: a file of the data folder
that is there with other content is refused, with nothing written; a file that is
there with the same content (an SQLite database with the same rows) is left as it is;
a file of the course's own (nbgrader_config.py, the notebooks, the rubrics) that differs
is kept as it is here, and named (a regrade then says whether the release still fits the
grades).
"""

import datetime
import json
import os
import shutil
import sqlite3
import tempfile

from nbgrader.api import Gradebook

from ..deadlines import deadline_of
from ..settings import CourseError, Settings, TermRetention
from ..settings.course_wheel import file_sha256
from .archive import SQLITE_MAGIC, TermArchive, latest_archive, read_archive
from .places import ARCHIVED_RECORDS, files_under, student_work, within

PURGE_RECORD = "purged-term.json"


def last_due_date(settings: Settings) -> datetime.datetime | None:
    """The term's last due date, each student's extension included (aware UTC), or None."""
    last = None
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for assignment in gb.assignments:
            extensions = [None] + [s.extension for s in gb.assignment_submissions(assignment.name)]
            for extension in extensions:
                due = deadline_of(assignment, extension).effective
                if due is not None:
                    last = due if last is None else max(last, due)
    return last


def term_assignments(settings: Settings) -> list[str]:
    """The term's assignments: the source folder's and the gradebook's."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        return sorted(set(settings.assignments) | {a.name for a in gb.assignments})


def kept_files(settings: Settings, removed: list[str]) -> list[str]:
    """The term's files the purge keeps, relative to the course folder, sorted: the data
    and reports folders' files and the records at the top, but those it removes."""
    root = settings.root
    found = set(files_under(settings.data, root) + files_under(settings.reports, root))
    found |= {n for n in ARCHIVED_RECORDS if os.path.isfile(os.path.join(root, n))}
    return sorted(found - set(removed) - {os.path.relpath(os.path.join(settings.data,
                                                                       PURGE_RECORD), root)})


def grouped(files: list[str], settings: Settings) -> list[str]:
    """`files` by the folder of their kind, with their counts: each file or folder at the
    top of the data folder, of its service/ and of the reports folder
    (course-data/submitted/ (42 file(s)), course-data/reports/similarity-tiny.csv)."""
    bases = sorted({os.path.relpath(f, settings.root) for f in (
        settings.data, os.path.join(settings.data, "service"), settings.reports)},
        key=len, reverse=True)
    groups: dict[str, int] = {}
    for name in files:
        base = next((b for b in bases if name.startswith(b + os.sep)), "")
        head, _, tail = name[len(base) + 1 if base else 0:].partition(os.sep)
        key = os.path.join(base, head) + (os.sep if tail else "")
        groups[key] = groups.get(key, 0) + 1
    return [f"{key} ({count} file(s))" if key.endswith(os.sep) else key
            for key, count in sorted(groups.items())]


def remove_files(root: str, files: list[str], keep: str) -> None:
    """`files` (relative to `root`) removed, then the folders they leave empty, up to the
    folder `keep` or `root`."""
    for name in files:
        os.unlink(os.path.join(root, name))
    for folder in sorted({os.path.dirname(os.path.join(root, n)) for n in files},
                         key=len, reverse=True):
        while folder not in (root, keep) and within(folder, root) and os.path.isdir(folder) \
                and not os.listdir(folder):
            os.rmdir(folder)
            folder = os.path.dirname(folder)


def purge_term(settings: Settings, archive_path: str = "", confirm: bool = False,
               now: datetime.datetime | None = None) -> list[str]:
    """The students' work and values removed (see the module's docstring); the lines that
    say what went and what stays."""
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
    files = student_work(settings, term_assignments(settings))
    # a link (a student's, say) is removed, never followed; the archive holds none
    changed = [f for f in files if not os.path.islink(os.path.join(settings.root, f))
               and archive.files.get(f) != file_sha256(os.path.join(settings.root, f))]
    if changed:
        raise CourseError(f"{len(changed)} file(s) are not in {archive.path} as they are now "
                          f"(first: {changed[0]}): run make archive-term again; nothing "
                          f"removed")
    staying = kept_files(settings, files)
    removed, kept = grouped(files, settings), grouped(staying, settings)
    if not confirm:
        raise CourseError(f"this removes {len(files)} file(s) of the students' work and values "
                          f"for good ({', '.join(removed) or 'nothing'}; the archive "
                          f"{os.path.basename(archive.path)} keeps them); run again with "
                          f"CONFIRM=yes")
    remove_files(settings.root, files, settings.data)
    record = {"purged": now.isoformat(), "archive": os.path.basename(archive.path),
              "sha256": archive.sha256, "files": len(files), "removed": removed,
              "kept": kept}
    os.makedirs(settings.data, exist_ok=True)
    with open(os.path.join(settings.data, PURGE_RECORD), "w", encoding="utf-8") as handle:
        json.dump(record, handle, indent=1)
    return ([f"removed {len(files)} file(s) of the students' work and values "
             f"(the archive {archive.path} holds them):"] + [f"  removed: {r}" for r in removed]
            + [f"kept {len(staying)} file(s), the grade record (the gradebook, the queue's "
               f"rows, grades and exports, summary, report pages, item analysis, regrade "
               f"records):"]
            + [f"  kept: {k}" for k in kept])


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
