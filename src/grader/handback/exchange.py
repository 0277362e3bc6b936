"""Feedback released through nbgrader's exchange, for the students who handed in through it.

nbgrader's `release_feedback` files each feedback page in the exchange under a
hash of the submission's secret, which only the exchange's `submit` writes
(submission_secret.txt). A notebook collected another way (an LMS download, a
copy by hand) has none, and nbgrader would stop the whole release at the first
such student with a FileNotFoundError. Here those students are left out of
nbgrader's run and listed, one line each, with where their feedback is.
"""

import glob
import os
import subprocess
import sys

from ..safe_text import shown_id
from ..settings import CourseError, Settings

EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")  # what nbgrader's release reads


def feedback_folders(settings: Settings, assignment: str) -> dict[str, str]:
    """{student: folder} of every student with a feedback page of `assignment`."""
    if not os.path.isdir(settings.feedback):
        return {}
    folders = {}
    for student in sorted(os.listdir(settings.feedback)):
        folder = os.path.join(settings.feedback, student, assignment)
        if os.path.isdir(folder) and glob.glob(os.path.join(glob.escape(folder), "*.html")):
            folders[student] = folder
    return folders


def came_through_exchange(folder: str) -> bool:
    return all(os.path.isfile(os.path.join(folder, name)) for name in EXCHANGE_FILES)


def release_feedback(settings: Settings, assignment: str) -> list[str]:
    """Releases the feedback of `assignment` to the exchange with nbgrader's own command, for
    every student who handed in through it; returns one line per student left out.

    Raises CourseError when nbgrader's command fails (its own output has been shown).
    """
    folders = feedback_folders(settings, assignment)
    if not folders:
        return [f"{assignment}: no feedback pages in {os.path.relpath(settings.feedback)}/*/"
                f"{assignment}/ (run make feedback first)"]
    through = [s for s, folder in folders.items() if came_through_exchange(folder)]
    others = [s for s in folders if s not in through]
    lines = [f"{assignment}: {shown_id(s)} did not hand in through the exchange (no "
             f"submission_secret.txt): give the feedback another way (make feedback-zip for "
             f"an LMS): {os.path.relpath(folders[s])}/" for s in others]
    if not through:
        return lines + [f"{assignment}: nothing to release through the exchange"]
    command = [sys.executable, "-m", "nbgrader", "release_feedback", assignment]
    if others:
        if any("," in s for s in others):  # nbgrader's exclusion list is comma-separated
            runs = [command + [f"--student={glob.escape(s)}"] for s in through]
        else:
            runs = [command + ["--CourseDirectory.student_id_exclude=" + ",".join(others)]]
    else:
        runs = [command]
    for run in runs:
        if subprocess.run(run, cwd=settings.root).returncode != 0:
            raise CourseError(f"nbgrader release_feedback {assignment} failed (its messages "
                              f"are above)")
    return lines + [f"{assignment}: feedback released through the exchange for "
                    f"{len(through)} student(s)"]
