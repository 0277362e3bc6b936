"""A claimed hand-in put where the batch reads it: submitted/<student>/<assignment>/.

The service grades through the batch's own path: the job's files are written
into the course's submitted/ folder (as `nbgrader collect` would), replacing
the folder whole, and read from there into a worker's Job. So the gradebook
holds what a batch `autograde` of the student's latest hand-in gives, and a
batch run after the service records the same. A student's hand-ins of one
assignment are claimed one at a time (store.py), so the folder is not
replaced while that student is being graded.
"""

import os
import shutil

from ..plan import HandIn
from ..safe_text import writable
from ..settings import Settings
from .inbound import inbound_files
from .records import JobSource, QueuedJob
from .store import Store, StoreError

TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"  # nbgrader's timestamp.txt


def place_in_submitted(settings: Settings, job: QueuedJob, files: dict[str, bytes],
                       notebooks: dict[str, str]) -> HandIn:
    """Write `files` (a job's bytes) as submitted/<student>/<assignment>/, with a
    timestamp.txt of its arrival where it brings none; returns its HandIn.
    StoreError when the student's folder is a link (nothing is written)."""
    student_folder = os.path.join(settings.submitted, job.student)
    if os.path.islink(student_folder) or os.path.islink(settings.submitted):
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
    if "timestamp.txt" not in files:
        with open(os.path.join(staging, "timestamp.txt"), "w", encoding="utf-8") as handle:
            handle.write(job.arrived.strftime(TIMESTAMP_FORMAT))
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
            lines.append(f"{assignment}: {writable(student)} not queued: its folder is a link")
            continue
        try:
            job = store.hand_in(student, assignment, inbound_files(folder), source)
        except (OSError, StoreError) as error:
            lines.append(f"{assignment}: {writable(student)} not queued: {writable(str(error))}")
            continue
        lines.append(f"{assignment}: {writable(student)} queued as hand-in {job.id} ({job.state})")
    return lines
