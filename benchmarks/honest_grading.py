"""Grading time per notebook on the honest corpus: this grader against an earlier one.

Hands in the honest notebooks of ``testsupport/honest_students.py`` (ordinary styles
that earn full marks in Jupyter) to a temporary copy of the course and grades
them twice in one run, each time in a fresh course folder: with the grader in
``src/grader`` and with the grader of an earlier commit (``--before``, by
default the one before the grader ran notebooks in the student's order inside
IPython). It prints seconds per notebook for both, their ratio, and the share
of the full marks each grader gave, and never fails because the machine is slow.

    .venv/bin/python benchmarks/honest_grading.py [--before REV] [--styles 12] [--jobs 1]
"""

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # testsupport

from testsupport.course import (assignments, copy_course, nbgrader_env,  # noqa: E402
                                release_assignments)
from testsupport.hand_in import hand_in  # noqa: E402
from testsupport.honest_students import CASES  # noqa: E402

BEFORE = "6046492"  # the grader before student-order plans, IPython and forked calls


def grader_at(revision, folder):
    """src/ of `revision` (only its grader package) unpacked in `folder`; returns the src path."""
    os.makedirs(folder, exist_ok=True)
    archive = os.path.join(folder, "grader.tar")
    subprocess.run(["git", "archive", "--format=tar", "-o", archive, revision, "src/grader"],
                   cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return os.path.join(folder, "src")


def make_course(folder, styles):
    release_assignments(copy_course(folder))
    for name in styles:
        style = CASES[name]
        hand_in(folder, name, style.assignment, style.handed_in(), timestamp=None)


def environment(grader_src):
    env = nbgrader_env()
    if grader_src:
        env["PYTHONPATH"] = grader_src  # its `grader` package comes before the installed one
    return env


def grade(course, grader_src, jobs):
    """(seconds, share of full marks given) for grading every assignment of `course`."""
    started = time.perf_counter()
    for assignment in assignments():
        result = subprocess.run([sys.executable, "-m", "grader", "autograde", assignment,
                                 "--jobs", str(jobs)], cwd=course, env=environment(grader_src),
                                capture_output=True, text=True)
        if result.returncode != 0:
            print(f"  (exit {result.returncode}) {result.stderr[-500:]}")
    seconds = time.perf_counter() - started
    earned = possible = 0.0
    for assignment in assignments():
        folder = os.path.join(course, "course-data", "reports", assignment)
        for name in os.listdir(folder):
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                record = json.load(handle)
            for notebook in record["notebooks"]:
                for test in notebook["tests"]:
                    earned += test["points"]
                    possible += test["max_points"]
    return seconds, earned / possible if possible else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help="git revision of the earlier grader")
    parser.add_argument("--styles", type=int, default=12,
                        help="honest notebooks to grade, an equal share from each assignment "
                             "(0: all)")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    names = sorted(CASES)
    if args.styles:
        per = max(1, args.styles // len(assignments()))
        names = [n for a in assignments()
                 for n in [m for m in names if CASES[m].assignment == a][:per]]
    print(f"honest corpus: {len(names)} notebooks, {args.jobs} worker(s); "
          f"{os.cpu_count()} cores, load average before {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="honest-bench-") as work:
        old_src = grader_at(args.before, os.path.join(work, "before"))
        rows = []
        for label, src in ((f"before ({args.before})", old_src), ("now", None)):
            course = os.path.join(work, label.split()[0], "course")
            make_course(course, names)
            seconds, share = grade(course, src, args.jobs)
            rows.append((label, seconds / len(names), share))
    print(f"load average after {os.getloadavg()[0]:.2f}")
    print(f"{'grader':<20} {'s/notebook':>10} {'full marks given':>17}")
    for label, per_notebook, share in rows:
        print(f"{label:<20} {per_notebook:>10.2f} {100 * share:>16.1f}%")
    print(f"now / before: {rows[1][1] / rows[0][1]:.2f}x the time per notebook")


if __name__ == "__main__":
    main()
