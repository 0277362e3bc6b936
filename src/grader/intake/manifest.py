"""The manifest course-data/lms/<assignment>.csv: what came from the LMS, per notebook.

One row per student and notebook collected from an LMS download: the student,
the LMS, its ids, the file's name in the zip (which the LMS expects back with
the feedback), the submission time nbgrader recorded and the late flag. A
second collect replaces the rows of the students it collects and keeps the rest.
"""

import csv
import datetime
import os

from ..files import csv_text, write_atomically
from ..settings import CourseError, Settings
from .attempts import Attempt

MANIFEST_FIELDS = ["student_id", "lms", "lms_user_id", "attachment_id", "lms_file_name",
                   "submitted_at", "late", "notebook"]


def lms_folder(settings: Settings) -> str:
    """course-data/lms/: the manifests, and the submissions a later collect replaced."""
    return os.path.join(settings.data, "lms")


def manifest_path(settings: Settings, assignment: str) -> str:
    return os.path.join(lms_folder(settings), f"{assignment}.csv")


def read_manifest(path: str) -> list[dict[str, str]]:
    """The rows of a manifest written before, or [] when there is none."""
    if not os.path.exists(path):
        return []
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise CourseError(f"the manifest {path} cannot be read ({error}); move it away "
                          f"and collect again") from None


def update_manifest(settings: Settings, assignment: str, collected: list[Attempt],
                    late: dict[str, bool]) -> None:
    """lms/<assignment>.csv with a row per notebook `collected`, replacing the rows of the
    same students and keeping everyone else's; submitted_at is the text of the
    timestamp.txt nbgrader wrote."""
    path = manifest_path(settings, assignment)
    students = {attempt.student_id for attempt in collected}
    rows = [{field: row.get(field) or "" for field in MANIFEST_FIELDS}
            for row in read_manifest(path) if row.get("student_id") not in students]
    for attempt in collected:
        stamp = os.path.join(settings.submitted, attempt.student_id, assignment, "timestamp.txt")
        with open(stamp, encoding="utf-8") as handle:
            submitted_at = handle.read().strip()
        rows.append({"student_id": attempt.student_id, "lms": attempt.name.lms,
                     "lms_user_id": attempt.name.lms_user_id,
                     "attachment_id": attempt.name.attachment_id,
                     "lms_file_name": attempt.entry.name, "submitted_at": submitted_at,
                     "late": "true" if late[attempt.student_id] else "false",
                     "notebook": attempt.notebook})
    rows.sort(key=lambda row: (row["student_id"], row["notebook"]))
    write_atomically(path, csv_text(rows, MANIFEST_FIELDS))


def replaced_folder(settings: Settings, assignment: str, student: str,
                    before: datetime.datetime) -> str:
    """Where a submission collected before, at `before`, goes when a later collect replaces it."""
    return os.path.join(lms_folder(settings), "replaced", assignment,
                        f"{student} {before:%Y-%m-%d %H%M%S}")
