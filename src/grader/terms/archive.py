"""A finished term's course data in one archive with its checksum (make archive-term).

`write_archive` writes ``term-archives/<course id>-<UTC time>.tar.gz`` in the course
folder (git ignores it) and beside it ``<the same>.tar.gz.sha256`` in the form
``sha256sum -c`` reads. The archive holds, under the course folder's own paths:

- the whole run-time data folder (course-data/): the gradebook, submitted/,
  autograded/, feedback/, reports/ (grades, item analysis), exports, the grading
  service's queue (service/queue.db and its blobs), regrades/, a local exchange;
- the reports folder where ``c.Reports.directory`` puts it elsewhere in the course
  folder;
- nbgrader_config.py, the instructor's and the students' notebooks (solutions/,
  exercises/), the rubrics (rubrics/), the record of the released solutions
  (solutions-released.csv), the extensions and regrade requests files: what regrading
  the term again needs, the explain answers as graded included (their rubrics, the
  grading state in course-data/explain/, the salt of the students' values);
- ``TERM-MANIFEST.json`` first: when it was written, the course id, and the SHA-256 of
  every other file in it.

An SQLite database (the gradebook, the queue) is copied through SQLite's own backup,
so a service writing meanwhile leaves a consistent copy. A gradebook in PostgreSQL is
refused: its rows live in the database server (dump it with pg_dump beside the
archive). `read_archive` checks the checksum file, then every file against the
manifest, and refuses a member that is not a plain file or folder inside the course.
"""

import datetime
import hashlib
import io
import json
import os
import sqlite3
import tarfile
import tempfile
from dataclasses import dataclass

from nbgrader.coursedir import CourseDirectory
from sqlalchemy.engine import make_url

from ..rubric import RUBRICS_FOLDER
from ..settings import CourseError, Settings
from ..settings.course_wheel import file_sha256
from .places import ARCHIVE_FOLDER, ARCHIVED_RECORDS

MANIFEST = "TERM-MANIFEST.json"
CHECKSUM_SUFFIX = ".sha256"
COURSE_FILES = ("nbgrader_config.py", *ARCHIVED_RECORDS)
SQLITE_MAGIC = b"SQLite format 3\0"
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")  # in the copy through SQLite's backup


@dataclass(frozen=True)
class TermArchive:
    """An archive read and checked: its path, checksum and manifest."""

    path: str
    sha256: str
    written: datetime.datetime  # aware, UTC
    course_id: str
    files: dict[str, str]  # path in the course folder -> SHA-256
    data: str = "course-data"  # the run-time data folder, relative to the course folder


def sqlite_gradebook(settings: Settings) -> str:
    """The gradebook's SQLite file, relative to the course folder; CourseError otherwise."""
    url = make_url(settings.db_url)
    if url.get_backend_name() != "sqlite":
        raise CourseError("the gradebook is in PostgreSQL: make archive-term archives a "
                          "course whose gradebook and queue are SQLite files; dump the "
                          "database with pg_dump and archive course-data/ with it")
    relative = os.path.relpath(os.path.abspath(url.database), settings.root)
    if relative.startswith(os.pardir):
        raise CourseError(f"the gradebook {url.database} is outside the course folder "
                          f"{settings.root}: make archive-term archives what is inside it")
    return relative


def students_versions_folder(settings: Settings) -> str:
    """The folder of the students' versions (nbgrader's release_directory)."""
    directory = CourseDirectory(config=settings.config, root=settings.root)
    return os.path.join(settings.root, directory.release_directory)


def term_files(settings: Settings) -> list[str]:
    """Every file of the term, relative to the course folder, sorted; CourseError when the
    reports are outside the course folder."""
    root = settings.root
    reports = os.path.abspath(settings.reports)
    if os.path.relpath(reports, root).startswith(os.pardir):
        raise CourseError(f"the reports folder {reports} (c.Reports.directory) is outside the "
                          f"course folder {root}: make archive-term archives what is inside it")
    found = {sqlite_gradebook(settings)} | {n for n in COURSE_FILES
                                            if os.path.isfile(os.path.join(root, n))}
    for top in (settings.data, reports, settings.source, students_versions_folder(settings),
                os.path.join(root, RUBRICS_FOLDER)):
        for folder, subfolders, files in os.walk(top):
            subfolders.sort()
            if os.path.relpath(folder, root).split(os.sep)[0] == ARCHIVE_FOLDER:
                continue
            for name in files:
                path = os.path.join(folder, name)
                if os.path.isfile(path) and not os.path.islink(path) \
                        and not name.endswith(SQLITE_SIDE_FILES):
                    found.add(os.path.relpath(path, root))
    return sorted(found)


def snapshot(path: str) -> bytes | None:
    """An SQLite database's bytes copied through its backup (consistent while it is being
    written), or None for any other file."""
    with open(path, "rb") as handle:
        if handle.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            return None
    with tempfile.TemporaryDirectory() as folder:
        copy = os.path.join(folder, "copy.db")
        source = sqlite3.connect(path)  # read-write: closing it removes the -wal and -shm files
        target = sqlite3.connect(copy)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        with open(copy, "rb") as handle:
            return handle.read()


def write_archive(settings: Settings, folder: str | None = None,
                  now: datetime.datetime | None = None) -> TermArchive:
    """The term's archive and its checksum file (see the module's docstring)."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    folder = os.path.abspath(folder or os.path.join(settings.root, ARCHIVE_FOLDER))
    os.makedirs(folder, mode=0o700, exist_ok=True)
    path = os.path.join(folder, f"{settings.course_id}-{now:%Y%m%dT%H%M%SZ}.tar.gz")
    if os.path.lexists(path):
        raise CourseError(f"{path} exists already; wait a second and archive again")
    names = term_files(settings)
    contents = {}
    for name in names:
        full = os.path.join(settings.root, name)
        copied = snapshot(full)
        if copied is None:
            with open(full, "rb") as handle:
                copied = handle.read()
        contents[name] = copied
    manifest = {"course_id": settings.course_id, "written": now.isoformat(),
                "data": os.path.relpath(settings.data, settings.root),
                "files": {n: hashlib.sha256(b).hexdigest() for n, b in contents.items()}}
    partial = path + ".partial"
    with tarfile.open(partial, "w:gz") as tar:
        def add(name: str, data: bytes, mode: int = 0o600) -> None:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), mode, int(now.timestamp())
            tar.addfile(info, io.BytesIO(data))
        add(MANIFEST, json.dumps(manifest, indent=1, sort_keys=True).encode())
        for name, data in contents.items():
            add(name, data, os.stat(os.path.join(settings.root, name)).st_mode & 0o777)
    os.chmod(partial, 0o600)
    digest = file_sha256(partial)
    with open(path + CHECKSUM_SUFFIX, "w", encoding="utf-8") as handle:
        handle.write(f"{digest}  {os.path.basename(path)}\n")
    os.replace(partial, path)
    return TermArchive(path, digest, now, settings.course_id, manifest["files"],
                       manifest["data"])


def checked_checksum(path: str) -> str:
    """The archive's SHA-256, checked against its checksum file; CourseError if it differs."""
    if not os.path.isfile(path):
        raise CourseError(f"ARCHIVE={path}: no such file")
    sums = path + CHECKSUM_SUFFIX
    if not os.path.isfile(sums):
        raise CourseError(f"{sums} is missing: without it the archive cannot be checked")
    with open(sums, encoding="utf-8") as handle:
        expected = handle.read().split()[:1]
    digest = file_sha256(path)
    if expected != [digest]:
        raise CourseError(f"{path}: its SHA-256 is {digest}, its checksum file says "
                          f"{expected[0] if expected else 'nothing'}: the archive is damaged "
                          f"or not the one written; use another copy")
    return digest


def safe_member(member: tarfile.TarInfo) -> bool:
    parts = member.name.split("/")
    return (member.isfile() or member.isdir()) and not member.name.startswith("/") \
        and os.pardir not in parts


def read_archive(path: str, into: str | None = None) -> TermArchive:
    """The archive at `path`, checksum and every file checked; with `into`, its files are
    extracted under that folder (CourseError for anything that does not check)."""
    digest = checked_checksum(path)
    with tarfile.open(path, "r:gz") as tar:
        members = tar.getmembers()
        if not members or members[0].name != MANIFEST:
            raise CourseError(f"{path}: no {MANIFEST} first; not a term archive")
        manifest = json.loads(tar.extractfile(members[0]).read())
        unsafe = [m.name for m in members if not safe_member(m)]
        if unsafe:
            raise CourseError(f"{path}: refused, it holds {unsafe[0]!r}, not a plain file "
                              f"inside the course")
        seen = set()
        for member in members[1:]:
            if not member.isfile():
                continue
            data = tar.extractfile(member).read()
            if hashlib.sha256(data).hexdigest() != manifest["files"].get(member.name):
                raise CourseError(f"{path}: {member.name} differs from the manifest")
            seen.add(member.name)
            if into:
                target = os.path.join(into, member.name)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as handle:
                    handle.write(data)
                os.chmod(target, member.mode & 0o777)
        missing = sorted(set(manifest["files"]) - seen)
        if missing:
            raise CourseError(f"{path}: {missing[0]} is in the manifest, not in the archive")
    return TermArchive(path, digest, datetime.datetime.fromisoformat(manifest["written"]),
                       manifest["course_id"], manifest["files"], manifest["data"])


def latest_archive(settings: Settings) -> str:
    """The course's newest archive in term-archives/; CourseError when there is none."""
    folder = os.path.join(settings.root, ARCHIVE_FOLDER)
    names = sorted(n for n in (os.listdir(folder) if os.path.isdir(folder) else [])
                   if n.startswith(settings.course_id + "-") and n.endswith(".tar.gz"))
    if not names:
        raise CourseError(f"no archive of {settings.course_id} in {folder}: run make "
                          f"archive-term first")
    return os.path.join(folder, names[-1])
