"""The feedback pages of the students collected from an LMS, in one zip it takes back.

`make collect-zip` records, in course-data/lms/<assignment>.csv, the name each
notebook had in the LMS's download. The LMS finds the student of an uploaded
file from the front of that name, so each feedback page keeps it and ends with
the notebook's name instead of the file's (`Platform.feedback_name`); where
in the LMS the zip goes back is the platform's `upload_how`. A student whose
collected notebook is newer than their grade (collected again after grading) is
left out until the next autograde and feedback: their page is of the notebook
graded before, and would go back under the new file's name.
"""

import io
import os
import zipfile

from ..files import write_atomically
from ..intake import manifest_path, read_manifest
from ..lms import PLATFORMS
from ..recording import not_graded_yet
from ..safe_text import shown_id
from ..settings import CourseError, Settings
from .exchange import feedback_folders


def feedback_name(row: dict[str, str]) -> str:
    """The name the LMS takes back the feedback page of one collected notebook under."""
    lms = PLATFORMS.get(row.get("lms", ""))
    name = lms.read_name(row.get("lms_file_name", "")) if lms else None
    if lms is None or name is None or not row.get("notebook", "").endswith(".ipynb"):
        raise CourseError(f"the row of {shown_id(row.get('student_id', '?'))} in the manifest "
                          f"does not hold an LMS file name and a notebook; run make "
                          f"collect-zip again")
    return lms.feedback_name(name, row["notebook"])


def write_feedback_zip(settings: Settings, assignment: str) -> list[str]:
    """Writes course-data/lms/feedback-<assignment>.zip; returns lines saying what it holds,
    who is left out and why, and where the plain feedback folders are."""
    rows = read_manifest(manifest_path(settings, assignment))
    folders = feedback_folders(settings, assignment)
    relative = os.path.relpath
    if not rows:
        return [f"{assignment}: nothing was collected from an LMS (make collect-zip records it); "
                f"the feedback pages are in {relative(settings.feedback)}/<student>/{assignment}/"]
    lines, entries = [], {}
    waiting = not_graded_yet(settings, assignment)
    for row in rows:
        student = row["student_id"]
        page = os.path.join(folders.get(student, ""), row["notebook"][:-len(".ipynb")] + ".html")
        if student in waiting:
            lines.append(f"{assignment}: the page of {row['notebook']} is left out, being of "
                         f"the notebook graded before the one collected: {waiting[student].why}")
            continue
        if student not in folders or not os.path.isfile(page):
            lines.append(f"{assignment}: {shown_id(student)} has no feedback page for "
                         f"{row['notebook']} yet (run make autograde and make feedback)")
            continue
        entries[feedback_name(row)] = page
    collected = {row["student_id"] for row in rows}
    lines += [f"{assignment}: {shown_id(s)} was not collected from the LMS: make "
              f"release-feedback, or hand over {relative(folder)}/"
              for s, folder in folders.items() if s not in collected]
    content = io.BytesIO()
    with zipfile.ZipFile(content, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, page in sorted(entries.items()):
            archive.write(page, name)
    target = write_atomically(os.path.join(os.path.dirname(manifest_path(settings, assignment)),
                                           f"feedback-{assignment}.zip"), content.getvalue())
    how = "; ".join(PLATFORMS[k].upload_how for k in sorted({row["lms"] for row in rows}))
    return lines + [f"{assignment}: {len(entries)} feedback page(s) for the LMS in "
                    f"{relative(target)} (upload it in {how})",
                    f"{assignment}: the same pages, one folder per student: "
                    f"{relative(settings.feedback)}/<student>/{assignment}/"]
