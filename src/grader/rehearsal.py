"""A rehearsal: a whole fake class on this machine, with nbgrader's own commands.

    make rehearse [REHEARSAL_STUDENTS=4]
    python -m grader.rehearsal [--students N] [--folder DIR] [--assignment NAME ...]

A copy of the course (nbgrader_config.py, solutions/, exercises/) in
course-data/rehearsal/course with its own exchange and gradebook, and N
students, each with a home folder of their own (so their own nbgrader cache):

    release -> fetch -> submit -> (due date) -> late submit -> collect ->
    autograde (sandboxed) -> feedback -> release feedback -> fetch feedback -> grades

The students take turns being correct, partial, untouched and late (correct,
but handed in after the due date). Nothing of the real course is touched; the
rehearsal folder is replaced on every run. At the end it prints where to look.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import shutil
import subprocess
import sys
import time

KINDS = ["correct", "partial", "untouched", "late"]
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
         "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter"]
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
COURSE_FILES = ["nbgrader_config.py", "solutions", "exercises"]


class RehearsalError(Exception):
    pass


def student_names(count):
    names = NAMES[:count]
    return names + [f"student{i + 1:02d}" for i in range(len(names), count)]


def environment(home=None, user=None):
    """The environment of one command: the course's .venv first on PATH (nbgrader runs
    alembic), the rehearsal's own gradebook, and for a student their own HOME."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("JUPYTER") and k != "GPTCOURSE_DB_URL"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    if home:
        env.update(HOME=home, USER=user, LOGNAME=user)
    return env


def run(args, cwd, env, what):
    started = time.monotonic()
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RehearsalError(f"{what} failed (exit {result.returncode}):\n"
                             f"{(result.stdout + result.stderr)[-4000:]}")
    print(f"  {what} ({time.monotonic() - started:.1f} s)", flush=True)
    return result


def answers(source_notebook, kind):
    """{grade_id: source} a student of `kind` writes into the answer cells."""
    with open(source_notebook, encoding="utf-8") as handle:
        cells = json.load(handle)["cells"]
    solutions = {}
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            lines = "".join(cell["source"]).splitlines(keepends=True)
            solutions[meta["grade_id"]] = "".join(l for l in lines if l.strip() not in MARKERS)
    if kind == "untouched":
        return {}
    if kind == "partial":  # the first half of the answers
        return dict(list(solutions.items())[:max(1, len(solutions) // 2)])
    return solutions


def write_answers(path, given):
    with open(path, encoding="utf-8") as handle:
        nb = json.load(handle)
    for cell in nb["cells"]:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in given:
            cell["source"] = given[grade_id]
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(nb, handle, indent=1)


def rehearse(repository, folder, count, assignments=None):
    """Runs the rehearsal; returns a dict of what happened and where it is."""
    from . import course
    from .instructor import set_due_date, write_grades

    # the rehearsal has a gradebook of its own, never the course's shared one
    os.environ.pop("GPTCOURSE_DB_URL", None)
    folder = os.path.abspath(folder)
    if os.path.exists(folder):
        shutil.rmtree(folder)
    course_dir = os.path.join(folder, "course")
    exchange = os.path.join(folder, "exchange")
    homes = os.path.join(folder, "homes")
    os.makedirs(course_dir)
    os.makedirs(exchange)
    os.chmod(exchange, 0o1777)  # as on a shared server: everyone writes, nobody deletes others'
    for name in COURSE_FILES:
        source = os.path.join(repository, name)
        copy = shutil.copytree if os.path.isdir(source) else shutil.copy
        copy(source, os.path.join(course_dir, name))
    settings = course.load(course_dir)
    assignments = assignments or settings.assignments
    course.check_assignments(settings, assignments)
    nbgrader = [sys.executable, "-m", "nbgrader"]
    on_exchange = ["--course", settings.course_id, f"--Exchange.root={exchange}"]
    instructor = environment()
    students = {name: KINDS[i % len(KINDS)] for i, name in enumerate(student_names(count))}
    print(f"rehearsal in {folder}: {len(students)} students "
          f"({', '.join(f'{n} {k}' for n, k in students.items())})", flush=True)

    print("the instructor releases", flush=True)
    for assignment in assignments:
        run(nbgrader + ["generate_assignment", assignment, "--force"], course_dir, instructor,
            f"make release ASSIGNMENT={assignment}")
        run(nbgrader + ["release_assignment", assignment, "--force"] + on_exchange, course_dir,
            instructor, f"make release-to-exchange ASSIGNMENT={assignment}")

    def as_student(student, command, assignment):
        home = os.path.join(homes, student)
        os.makedirs(home, exist_ok=True)
        extra = [f"--student={student}"] if command != "fetch_assignment" else []
        run(nbgrader + [command, assignment] + on_exchange + extra, home,
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
        run(nbgrader + ["collect", assignment, "--update"] + on_exchange, course_dir,
            instructor, f"make collect ASSIGNMENT={assignment}")
        run([sys.executable, "-m", "grader", "autograde", assignment, "--jobs",
             str(min(2, os.cpu_count() or 1))], course_dir, instructor,
            f"make autograde ASSIGNMENT={assignment}")
        run(nbgrader + ["generate_feedback", assignment, "--force"], course_dir, instructor,
            f"make feedback ASSIGNMENT={assignment}")
        run(nbgrader + ["release_feedback", assignment] + on_exchange, course_dir, instructor,
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
    print(f"  course/course-data/reports/summary.txt   what happened to each student")
    for assignment in assignments:
        print(f"  course/course-data/reports/{assignment}.html  the grade report page")
    print("  course/course-data/exports/              Canvas and roster CSVs; grades.csv beside")
    print("  course/course-data/feedback/             every student's feedback pages")
    for student in students:
        pages = [p for a in assignments for p in feedback[(student, a)]]
        print(f"  homes/{student}/ ({students[student]}): {len(pages)} feedback page(s) fetched,"
              f" e.g. homes/{pages[0] if pages else '-'}")
    return {"folder": folder, "course": course_dir, "homes": homes, "exchange": exchange,
            "students": students, "assignments": assignments, "feedback": feedback,
            "due": due, "written": written}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m grader.rehearsal",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=4, help="how many students (default 4)")
    parser.add_argument("--folder", default=os.path.join("course-data", "rehearsal"),
                        help="where the rehearsal runs (replaced; default course-data/rehearsal)")
    parser.add_argument("--assignment", action="append", default=[],
                        help="rehearse this assignment only (repeatable; default: all)")
    parser.add_argument("--course", default=".", help="the course repository to rehearse")
    args = parser.parse_args(argv)
    from .course import CourseError

    if not 1 <= args.students <= 200:
        print("error: --students takes a number from 1 to 200", file=sys.stderr)
        return 2
    try:
        rehearse(os.path.abspath(args.course), args.folder, args.students, args.assignment)
    except (CourseError, RehearsalError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
