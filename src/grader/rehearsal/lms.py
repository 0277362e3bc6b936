"""The rehearsal of a class that hands in through its LMS: no hub, no exchange.

    make rehearse-lms
    python -m grader rehearse-lms [--folder DIR] [--assignment NAME ...]

A copy of the course in course-data/rehearsal-lms/course, with its own
gradebook, and four students, as Canvas knows them (a gradebook export gives the
roster):

    alice  correct, on time
    bob    partial, saved by Colab (its own notebook metadata, ids on every cell)
    carol  correct, on time; the browser renamed the file "parameters (1).ipynb"
    dave   correct, 25 hours late, with a 48-hour extension (an accommodation)

    roster (Canvas export) -> release, due date -> students answer -> Canvas's
    "Download Submissions" zip -> collect-zip -> extensions -> autograde ->
    feedback -> feedback-zip -> grades (Canvas CSV)

Every step is the grader's or nbgrader's own command, as the instructor types it;
nothing of the real course is touched, and the folder is replaced on every run.
"""

import datetime
import json
import os
import sys
import zipfile
from typing import Any

from ..lms import Canvas
from ..settings import load
from .common import answered_copy, course_copy, environment, run_step

REHEARSAL_LMS = Canvas()  # the class's LMS, whose download and gradebook export are made here
DUE = datetime.datetime(2026, 3, 2, 17, 0, 0)  # the class's due date (UTC)
# student id: (first, last, Canvas user id, what they hand in, hours after the due date)
STUDENTS = {
    "alice": ("Alice", "Archer", 10001, "correct", -20.0),
    "bob": ("Bob", "Brown", 10002, "partial", -3.0),
    "carol": ("Carol", "Chen", 10003, "correct", -0.5),
    "dave": ("Dave", "Diaz", 10004, "correct", 25.0),
}
SAVED_BY = {"bob": "colab"}
RENAMED = {"carol": "{stem} (1).ipynb"}
EXTENSIONS = [("dave", 48, "illness, granted by the course office")]


def canvas_file_name(first: str, last: str, user_id: int, attachment_id: int, file_name: str,
                     late: bool) -> str:
    """The name Canvas's Download Submissions gives a file (`Canvas.download_name`)."""
    return REHEARSAL_LMS.download_name(first, last, user_id, attachment_id, file_name, late)


def as_colab_saves(path: str) -> None:
    """The notebook at `path` as Colab writes it back: its own notebook metadata, an id
    in every cell's metadata, nbformat 4.0."""
    with open(path, encoding="utf-8") as handle:
        nb = json.load(handle)
    nb["nbformat_minor"] = 0
    nb["metadata"] = {"colab": {"provenance": [], "name": os.path.basename(path)},
                      "kernelspec": {"name": "python3", "display_name": "Python 3"},
                      "language_info": {"name": "python"}}
    for number, cell in enumerate(nb["cells"]):
        cell.pop("id", None)
        cell["metadata"]["id"] = f"c{number:04d}colab"
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(nb, handle, indent=2)


def canvas_export(path: str, assignments: list[str]) -> None:
    """Canvas's gradebook export of the class: a Points Possible row, the test student."""
    gradebook = REHEARSAL_LMS.gradebook
    columns = gradebook.columns + [
        f"{a} ({900 + i})" for i, a in enumerate(assignments)] + ["Current Score"]
    rows = [",".join(columns),
            f"    {gradebook.points_possible},,,,," + ",".join("10.00" for _ in assignments)
            + ",(read only)"]
    for student, (first, last, user_id, _, _) in STUDENTS.items():
        rows.append(f'"{last}, {first}",{user_id},{user_id + 50000},{student},Section 1,'
                    + ",".join("" for _ in assignments) + ",")
    rows.append(f'"{gradebook.test_student}",99999,,,Section 1,'
                + ",".join("" for _ in assignments) + ",")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(rows) + "\n")


def canvas_download(path: str, course_dir: str, work: str, assignment: str) -> None:
    """The zip Canvas's Download Submissions gives for `assignment`."""
    notebooks = sorted(n for n in os.listdir(os.path.join(course_dir, "exercises", assignment))
                       if n.endswith(".ipynb"))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, (student, (first, last, user_id, _, hours)) in enumerate(STUDENTS.items()):
            moment = DUE + datetime.timedelta(hours=hours)
            for index, notebook in enumerate(notebooks):
                stem = notebook[:-len(".ipynb")]
                shown = RENAMED.get(student, "{stem}.ipynb").format(stem=stem)
                name = canvas_file_name(first, last, user_id, 70000 + 10 * number + index, shown,
                                        late=hours > 0)
                info = zipfile.ZipInfo(name, moment.timetuple()[:6])
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(os.path.join(work, student, assignment, notebook), "rb") as handle:
                    archive.writestr(info, handle.read())


def rehearse_lms(repository: str, folder: str, assignments: list[str] | None = None
                 ) -> dict[str, Any]:
    """Runs the LMS rehearsal; returns a dict of what happened and where it is."""
    lms = REHEARSAL_LMS
    folder = os.path.abspath(folder)
    course_dir, work = course_copy(repository, folder), os.path.join(folder, "students")
    settings = load(course_dir)
    assignments = assignments or settings.assignments
    settings.check_assignments(assignments)
    env = environment()
    nbgrader = [sys.executable, "-m", "nbgrader"]
    grader = [sys.executable, "-m", "grader"]
    print(f"LMS rehearsal in {folder}: " + ", ".join(
        f"{s} {STUDENTS[s][3]}" for s in STUDENTS), flush=True)

    def step(args, what):
        return run_step(args, course_dir, env, what)

    print("the instructor imports the class and releases", flush=True)
    export_name = f"{lms.name}-gradebook-export.csv"
    export = os.path.join(folder, export_name)
    canvas_export(export, assignments)
    step(grader + ["roster", export], f"make roster ROSTER={export_name}")
    due = f"{DUE:%Y-%m-%d %H:%M:%S} UTC"
    for assignment in assignments:
        step(nbgrader + ["generate_assignment", assignment, "--force"],
             f"make release ASSIGNMENT={assignment}")
        step(grader + ["due", assignment, due], f'  due date "{due}" (DUEDATE=...)')

    print(f"the students answer, in Colab or on their laptops, and upload to {lms.title}",
          flush=True)
    downloads = {}
    for assignment in assignments:
        for student, (_, _, _, kind, _) in STUDENTS.items():
            for path in answered_copy(course_dir, assignment,
                                      os.path.join(work, student, assignment), kind):
                if SAVED_BY.get(student) == "colab":
                    as_colab_saves(path)
        downloads[assignment] = os.path.join(folder, f"submissions-{assignment}.zip")
        canvas_download(downloads[assignment], course_dir, work, assignment)
        print(f"  {lms.title}'s Download Submissions: "
              f"{os.path.relpath(downloads[assignment], folder)}", flush=True)

    print("the instructor collects, grades and hands feedback back", flush=True)
    extensions = os.path.join(course_dir, "extensions.csv")
    with open(extensions, "w", encoding="utf-8") as handle:
        handle.write("student_id,assignment,extra_hours,note\n" + "".join(
            f"{s},{a},{hours},{note}\n" for s, hours, note in EXTENSIONS for a in assignments))
    collected = {}
    for assignment in assignments:
        collected[assignment] = step(
            grader + ["collect-zip", assignment, downloads[assignment], "--lms", lms.name],
            f"make collect-zip ZIP=submissions-{assignment}.zip ASSIGNMENT={assignment}").stdout
    step(grader + ["extensions", extensions], "make extensions")
    for assignment in assignments:
        step(grader + ["autograde", assignment, "--jobs", str(min(2, os.cpu_count() or 1))],
             f"make autograde ASSIGNMENT={assignment}")
        step(nbgrader + ["generate_feedback", assignment, "--force"],
             f"make feedback ASSIGNMENT={assignment}")
        step(grader + ["feedback-zip", assignment], f"make feedback-zip ASSIGNMENT={assignment}")
    written = step(grader + ["grades"] + assignments, "make grades").stdout

    print(f"\nwhere to look (in {folder}):")
    print("  course/course-data/reports/summary.txt        what happened to each student")
    for assignment in assignments:
        print(f"  course/course-data/reports/{assignment}.html       the grade report page")
        print(f"  course/course-data/lms/feedback-{assignment}.zip  upload to {lms.title}: "
              f"{lms.upload_action}")
    print(f"  course/course-data/exports/                   the {lms.title} gradebook import CSV")
    print("  course/course-data/feedback/<student>/        each student's feedback pages")
    return {"folder": folder, "course": course_dir, "assignments": assignments,
            "downloads": downloads, "collected": collected, "written": written}
