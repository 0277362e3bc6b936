"""The feedback pages of the students collected from an LMS, in one zip it takes back.

`make collect-zip` records, in course-data/lms/<assignment>.csv, the name each
notebook had in the LMS's download. Both LMSs find the student of an uploaded
file from the front of that name, so each feedback page keeps it and ends with
the notebook's name instead of the file's:

- Canvas (the assignment's "Re-upload submissions", which attaches each file to
  the student's submission as a comment): ``doejane_late_12345_67891_`` (name,
  late flag, user id, attachment id) + ``parameters.html``;
- Moodle (the assignment's "Upload multiple feedback files in a zip"):
  ``Jane Doe_4242_assignsubmission_file_`` (full name, participant id, the
  submission plugin) + ``parameters.html``; a download made "in folders" gives
  the same names.
"""

import csv
import glob
import io
import os
import re
import zipfile

from ..files import write_atomically
from ..safe_text import shown_id
from ..settings import CourseError, Settings
from .exchange import feedback_folders

# the front of a downloaded file's name that the LMS reads the student from
NAME_FRONT = {
    "canvas": re.compile(r"^(?P<front>[^/]*?_(?:late_)?\d+_\d+_)"),
    "moodle": re.compile(r"^(?P<front>[^/]*?_\d+_assignsubmission_file_)/?"),
}
UPLOAD_HOW = {
    "canvas": "Canvas: the assignment's page, Re-upload submissions",
    "moodle": "Moodle: the assignment's View all submissions, Upload multiple feedback files "
              "in a zip",
}


def manifest_path(settings: Settings, assignment: str) -> str:
    return os.path.join(settings.data, "lms", f"{assignment}.csv")


def read_manifest(settings: Settings, assignment: str) -> list:
    """The rows make collect-zip recorded for `assignment` (dicts), or [] if it never ran."""
    path = manifest_path(settings, assignment)
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for number, row in enumerate(rows, 2):
        if not row.get("student_id") or row.get("lms") not in NAME_FRONT or not row.get(
                "lms_file_name"):
            raise CourseError(f"{path}, line {number}: expected student_id, lms (canvas or "
                              f"moodle) and lms_file_name; run make collect-zip again")
    return rows


def feedback_name(row: dict, notebook: str) -> str:
    """The name the LMS takes the feedback page of `notebook` back under, for one collected row."""
    match = NAME_FRONT[row["lms"]].match(row["lms_file_name"])
    if not match:
        raise CourseError(f"{row['lms_file_name']!r} (collected for {shown_id(row['student_id'])}) "
                          f"is not a {row['lms']} download name")
    return match.group("front") + notebook + ".html"


def write_feedback_zip(settings: Settings, assignment: str) -> list:
    """Writes course-data/lms/feedback-<assignment>.zip; returns lines saying what it holds,
    who is left out and why, and where the plain feedback folders are."""
    rows = read_manifest(settings, assignment)
    folders = feedback_folders(settings, assignment)
    relative = os.path.relpath
    if not rows:
        return [f"{assignment}: nothing was collected from an LMS (make collect-zip records it); "
                f"the feedback pages are in {relative(settings.feedback)}/<student>/{assignment}/"]
    lines, entries = [], {}
    for row in rows:
        student = row["student_id"]
        folder = folders.get(student)
        if folder is None:
            lines.append(f"{assignment}: {shown_id(student)} has no feedback page yet "
                         f"(run make autograde and make feedback)")
            continue
        for page in sorted(glob.glob(os.path.join(glob.escape(folder), "*.html"))):
            notebook = os.path.basename(page)[:-len(".html")]
            entries[feedback_name(row, notebook)] = page
    collected = {row["student_id"] for row in rows}
    lines += [f"{assignment}: {shown_id(s)} was not collected from the LMS: make "
              f"release-feedback, or hand over {relative(folder)}/"
              for s, folder in folders.items() if s not in collected]
    kinds = sorted({row["lms"] for row in rows})
    target = os.path.join(settings.data, "lms", f"feedback-{assignment}.zip")
    content = io.BytesIO()
    with zipfile.ZipFile(content, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, page in sorted(entries.items()):
            archive.write(page, name)
    write_atomically(target, content.getvalue())
    how = "; ".join(UPLOAD_HOW[k] for k in kinds)
    return lines + [f"{assignment}: {len(entries)} feedback page(s) for the LMS in "
                    f"{relative(target)} (upload it in {how})",
                    f"{assignment}: the same pages, one folder per student: "
                    f"{relative(settings.feedback)}/<student>/{assignment}/"]
