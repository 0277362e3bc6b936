"""A claimed hand-in put where the batch reads it: submitted/<student>/<assignment>/.

The service grades through the batch's own path: the job's files are written
into the course's submitted/ folder (as `nbgrader collect` would), replacing
the folder whole, and read from there into a worker's Job. So the gradebook
holds what a batch `autograde` of the student's latest hand-in gives, and a
batch run after the service records the same. A student's hand-ins of one
assignment are claimed one at a time (store.py), so the folder is not
replaced while that student is being graded.

A student's "Check my notebook" is never a submission: it is written under
service/checks/ instead (`checks_folder`), graded the same way, and its result
kept on its job only, so submitted/ and the gradebook keep what was handed in.
The timestamp graded is the hand-in's arrival where it brings none, and bounded
by it where the student wrote it (`bounded_timestamp`).
"""

import datetime
import os
import shutil
import sys

from nbgrader.utils import parse_utc

from ...plan import HandIn
from ...safe_text import shown
from ...settings import Settings
from .inbound import inbound_files
from .records import JobSource, QueuedJob, SourceKind
from .store import Store, StoreError

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"  # nbgrader's timestamp.txt
# how much earlier than its arrival a hand-in's own timestamp.txt may say it was handed in
# (nbgrader submit writes it before it copies the notebooks)
ARRIVAL_TOLERANCE = datetime.timedelta(seconds=60)


def bounded_timestamp(job: QueuedJob, written: bytes | None) -> str | None:
    """The timestamp.txt to grade `job` with, when it is not the one handed in (None: that
    one). Without one, its arrival. From the exchange, where the student writes it, the
    time it says is kept between the arrival less ARRIVAL_TOLERANCE and the arrival: a
    hand-in is never graded as handed in earlier than that (nor later than it arrived);
    one that cannot be read is its arrival. Each change is printed to the service's log."""
    arrived = job.arrived.astimezone(datetime.timezone.utc)
    if written is None:
        return arrived.strftime(TIMESTAMP_FORMAT)
    if job.source.kind is not SourceKind.EXCHANGE:
        return None  # an LMS's own record of when, or a program's
    try:
        said = parse_utc(written.decode("utf-8").strip()).replace(tzinfo=datetime.timezone.utc)
    except (ValueError, OverflowError, UnicodeDecodeError):
        said = None
    if said is not None and arrived - ARRIVAL_TOLERANCE <= said <= arrived:
        return None
    graded = arrived if said is None or said > arrived else arrived - ARRIVAL_TOLERANCE
    print(f"serve: hand-in {job.id} of {job.assignment} by {shown(job.student)}: its "
          f"timestamp.txt says {shown(said.isoformat() if said else 'nothing readable')}, but "
          f"it reached the exchange at {arrived.isoformat()}: graded as handed in at "
          f"{graded.isoformat()}", file=sys.stderr, flush=True)
    return graded.strftime(TIMESTAMP_FORMAT)


def checks_folder(settings: Settings) -> str:
    """Where a student's check is graded: service/checks/ of the course's data folder, beside
    the queue (only the grader's account reads it), never submitted/."""
    return os.path.join(settings.data, "service", "checks")


def place_in_submitted(settings: Settings, job: QueuedJob, files: dict[str, bytes],
                       notebooks: dict[str, str]) -> HandIn:
    """Write `files` (a job's bytes) as submitted/<student>/<assignment>/ (a check: the same
    under `checks_folder`, so that it never replaces what is graded), with a timestamp.txt
    of its arrival where it brings none; returns its HandIn. StoreError when the student's
    folder is a link (nothing is written)."""
    root = checks_folder(settings) if job.is_check else settings.submitted
    if job.is_check:  # students' tries: the grader's account alone reads them
        for folder in (os.path.dirname(root), root):
            os.makedirs(folder, mode=0o700, exist_ok=True)
            os.chmod(folder, 0o700)
    student_folder = os.path.join(root, job.student)
    if os.path.islink(student_folder) or os.path.islink(root):
        raise StoreError(f"{student_folder} is a link; not graded")
    target = os.path.join(student_folder, job.assignment)
    staging = os.path.join(student_folder, f".{job.assignment}.service-new")
    old = os.path.join(student_folder, f".{job.assignment}.service-old")
    for left in (staging, old):  # left by a service that was killed
        shutil.rmtree(left, ignore_errors=True)
    os.makedirs(staging)
    for name, content in files.items():
        path = os.path.join(staging, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(content)
    stamp = bounded_timestamp(job, files.get("timestamp.txt"))
    if stamp is not None:
        with open(os.path.join(staging, "timestamp.txt"), "w", encoding="utf-8") as handle:
            handle.write(stamp)
    if os.path.lexists(target):
        os.rename(target, old)
    os.rename(staging, target)
    shutil.rmtree(old, ignore_errors=True)
    return HandIn(job.student, job.assignment, target, notebooks)


def queue_submitted(settings: Settings, store: Store, assignment: str, source: JobSource
                    ) -> list[str]:
    """Hand every student's submitted/<student>/<assignment>/ to the service's queue (after
    `collect-zip`, say); returns a line per student. One unchanged since its last hand-in is
    recorded as a duplicate and not graded again; a folder that is a link is skipped."""
    lines = []
    for student in settings.students(assignment):
        folder = os.path.join(settings.submitted, student, assignment)
        if os.path.islink(folder) or os.path.islink(os.path.dirname(folder)):
            lines.append(f"{assignment}: {shown(student)} not queued: its folder is a link")
            continue
        try:
            job = store.hand_in(student, assignment, inbound_files(folder), source)
        except (OSError, StoreError) as error:
            lines.append(f"{assignment}: {shown(student)} not queued: {shown(str(error))}")
            continue
        lines.append(f"{assignment}: {shown(student)} queued as hand-in {job.id} ({job.state})")
    return lines
