"""A rehearsal: a whole fake class on this machine, with nbgrader's own commands.

    make rehearse [REHEARSAL_STUDENTS=4]
    python -m grader rehearse [--students N] [--folder DIR] [--assignment NAME ...]

A copy of the course (nbgrader_config.py, solutions/, exercises/) in
course-data/rehearsal/course with its own exchange and gradebook, and N
students, each with a home folder of their own (so their own nbgrader cache):

    release -> fetch -> submit -> (due date) -> late submit -> collect ->
    autograde (sandboxed) -> feedback -> release feedback -> fetch feedback -> grades

The students take turns being correct, partial, untouched and late (correct,
but handed in after the due date). Nothing of the real course is touched; the
rehearsal folder is replaced on every run. At the end it prints where to look.
"""

import concurrent.futures
import datetime
import os
import sys
import time
from typing import Any

from ..lms import gradebooks
from ..recording import set_due_date
from ..reports import write_grades
from ..settings import load
from .common import (KINDS, answers, course_copy, environment, run_step, student_names,
                     write_answers)


def rehearse(repository: str, folder: str, count: int,
             assignments: list[str] | None = None) -> dict[str, Any]:
    """Runs the rehearsal; returns a dict of what happened and where it is."""
    # the rehearsal has a gradebook of its own, never the course's shared one
    folder = os.path.abspath(folder)
    course_dir = course_copy(repository, folder)
    exchange = os.path.join(folder, "exchange")
    homes = os.path.join(folder, "homes")
    os.makedirs(exchange)
    os.chmod(exchange, 0o1777)  # as on a shared server: everyone writes, nobody deletes others'
    settings = load(course_dir)
    assignments = assignments or settings.assignments
    settings.check_assignments(assignments)
    nbgrader = [sys.executable, "-m", "nbgrader"]
    on_exchange = ["--course", settings.course_id, f"--Exchange.root={exchange}"]
    instructor = environment()
    students = {name: KINDS[i % len(KINDS)] for i, name in enumerate(student_names(count))}
    print(f"rehearsal in {folder}: {len(students)} students "
          f"({', '.join(f'{n} {k}' for n, k in students.items())})", flush=True)

    print("the instructor releases", flush=True)
    for assignment in assignments:
        run_step(nbgrader + ["generate_assignment", assignment, "--force"], course_dir, instructor,
            f"make release ASSIGNMENT={assignment}")
        run_step(nbgrader + ["release_assignment", assignment, "--force"] + on_exchange, course_dir,
            instructor, f"make release-to-exchange ASSIGNMENT={assignment}")

    def as_student(student, command, assignment):
        home = os.path.join(homes, student)
        os.makedirs(home, exist_ok=True)
        extra = [f"--student={student}"] if command != "fetch_assignment" else []
        run_step(nbgrader + [command, assignment] + on_exchange + extra, home,
            environment(home, student), f"{student}: nbgrader {command} {assignment}")

    def hand_in(student):
        for assignment in assignments:
            as_student(student, "fetch_assignment", assignment)
            for name in sorted(os.listdir(os.path.join(course_dir, "solutions", assignment))):
                if name.endswith(".ipynb"):
                    write_answers(os.path.join(homes, student, assignment, name),
                                  answers(os.path.join(course_dir, "solutions", assignment, name),
                                          students[student]))
            as_student(student, "submit", assignment)

    def each_student(work, names):
        """`work` for every student in `names`, at the same time, as a class would."""
        with concurrent.futures.ThreadPoolExecutor(max(1, os.cpu_count() or 1)) as pool:
            for future in [pool.submit(work, name) for name in names]:
                future.result()

    print("the students fetch, answer and submit", flush=True)
    each_student(hand_in, [s for s, kind in students.items() if kind != "late"])
    due = datetime.datetime.now(datetime.timezone.utc)
    for assignment in assignments:
        print(f"  {set_due_date(settings, assignment, due.strftime('%Y-%m-%d %H:%M:%S.%f UTC'))}"
              f" (make release DUEDATE=...)", flush=True)
    time.sleep(1.0)  # the late students hand in after the due date
    each_student(hand_in, [s for s, kind in students.items() if kind == "late"])

    print("the instructor collects, grades and returns feedback", flush=True)
    for assignment in assignments:
        run_step(nbgrader + ["collect", assignment, "--update"] + on_exchange, course_dir,
            instructor, f"make collect ASSIGNMENT={assignment}")
        run_step([sys.executable, "-m", "grader", "autograde", assignment, "--jobs",
             str(min(2, os.cpu_count() or 1))], course_dir, instructor,
            f"make autograde ASSIGNMENT={assignment}")
        run_step(nbgrader + ["generate_feedback", assignment, "--force"], course_dir, instructor,
            f"make feedback ASSIGNMENT={assignment}")
        run_step(nbgrader + ["release_feedback", assignment] + on_exchange, course_dir, instructor,
            f"make release-feedback ASSIGNMENT={assignment}")

    print("the students fetch their feedback", flush=True)
    feedback = {}

    def fetch_feedback(student):
        for assignment in assignments:
            as_student(student, "fetch_feedback", assignment)
            root = os.path.join(homes, student, assignment, "feedback")
            feedback[(student, assignment)] = sorted(
                os.path.relpath(os.path.join(d, f), homes)
                for d, _, files in os.walk(root) for f in files if f.endswith(".html"))

    each_student(fetch_feedback, students)

    print("the instructor exports the grades", flush=True)
    written = write_grades(settings, assignments)
    print(f"\nwhere to look (in {folder}):")
    print("  course/course-data/reports/summary.txt   what happened to each student")
    for assignment in assignments:
        print(f"  course/course-data/reports/{assignment}.html  the grade report page")
    imports = " and ".join(lms.title for lms, _ in gradebooks())
    print(f"  course/course-data/exports/              {imports} and roster CSVs; grades.csv "
          f"beside")
    print("  course/course-data/feedback/             every student's feedback pages")
    for student in students:
        pages = [p for a in assignments for p in feedback[(student, a)]]
        print(f"  homes/{student}/ ({students[student]}): {len(pages)} feedback page(s) fetched,"
              f" e.g. homes/{pages[0] if pages else '-'}")
    return {"folder": folder, "course": course_dir, "homes": homes, "exchange": exchange,
            "students": students, "assignments": assignments, "feedback": feedback,
            "due": due, "written": written}
