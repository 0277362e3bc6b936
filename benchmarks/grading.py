"""How fast a class is graded: one worker against two, SQLite against PostgreSQL.

Generates a batch of submissions for each assignment (correct, partial, empty,
crashing and unreadable notebooks in turn; see testsupport.synthetic_batch) and grades
it with ``python -m grader autograde`` at each number of workers into each kind
of gradebook, each run in a fresh course folder whose gradebook holds the released
assignments (releasing is not timed). It starts its own temporary PostgreSQL
server, as the tests do. It prints seconds per submission, the speed-up over one
worker and a projection for 1,000 notebooks on a 16-core machine, checks that
every run recorded the same grades, and never fails because the machine is slow.

    .venv/bin/python benchmarks/grading.py [--students 20] [--jobs 1,2]
        [--assignments parameters,logits-to-text] [--backends sqlite,postgresql]

--students is per assignment: the default batch is 2 x 20 = 40 submissions.
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # testsupport

from testsupport.course import nbgrader_env  # noqa: E402
from testsupport.gradebook import gradebook_rows, sqlite_url  # noqa: E402
from testsupport.postgres import TemporaryPostgres  # noqa: E402
from testsupport.synthetic_batch import KINDS, make_course, student_ids, write_batch  # noqa: E402

PROJECTED_NOTEBOOKS = 1000
PROJECTED_CORES = 16


def run(command, course, db_url):
    """(wall seconds, exit status, output tail) of one command run in ``course``."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=course, env=nbgrader_env(db_url),
                            capture_output=True, text=True)
    seconds = time.perf_counter() - start
    return seconds, result.returncode, (result.stdout + result.stderr)[-3000:]


def prepare(course, assignments, students, db_url):
    """A course folder with the batch handed in and the assignments released into db_url."""
    make_course(ROOT, course, assignments[0], students)
    for assignment in assignments[1:]:
        write_batch(course, os.path.join(course, "course-data", "submitted"), assignment, students)
    for assignment in assignments:
        _, code, tail = run([sys.executable, "-m", "nbgrader", "generate_assignment",
                             assignment, "--force"], course, db_url)
        if code != 0:
            raise SystemExit(f"releasing {assignment} failed:\n{tail}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20, help="submissions per assignment")
    parser.add_argument("--assignments", default="parameters,logits-to-text")
    parser.add_argument("--jobs", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--backends", default="sqlite,postgresql")
    args = parser.parse_args()
    assignments = args.assignments.split(",")
    jobs_list = [int(j) for j in args.jobs.split(",")]
    backends = args.backends.split(",")
    students = student_ids(args.students)
    n = len(students) * len(assignments)

    print(f"batch: {n} submissions ({len(students)} of each of {', '.join(assignments)}), "
          f"kinds in turn: {', '.join(KINDS)}")
    print(f"machine: {os.cpu_count()} cores, load average before: "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    server = TemporaryPostgres() if "postgresql" in backends else None
    results, reference, problems = [], None, 0
    with tempfile.TemporaryDirectory(prefix="grading-benchmark-") as work:
        if server:
            server.start()
        try:
            for backend in backends:
                for jobs in jobs_list:
                    name = f"{backend}-{jobs}"
                    course = os.path.join(work, name)
                    if backend == "sqlite":
                        db_url = sqlite_url(course)
                    else:
                        db_url = server.create_database(name.replace("-", "_"))
                    prepare(course, assignments, students, db_url)
                    seconds = 0.0
                    rows = {}
                    for assignment in assignments:
                        took, code, tail = run(
                            [sys.executable, "-m", "grader", "autograde", assignment,
                             "--jobs", str(jobs)], course, db_url)
                        seconds += took
                        rows[assignment] = gradebook_rows(db_url, assignment)
                        if code != 0:
                            problems += 1
                            print(f"  {name} {assignment}: exit status {code}\n{tail}")
                    if reference is None:
                        reference = rows
                    elif rows != reference:
                        problems += 1
                        print(f"  {name}: the grades DIFFER from those of the first run")
                    results.append((backend, jobs, seconds))
                    print(f"  graded {name}: {seconds:.1f} s (load average now "
                          f"{os.getloadavg()[0]:.1f})", flush=True)
        finally:
            if server:
                server.stop()

    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print()
    print(f"{'gradebook':<11}{'jobs':>5}{'wall s':>9}{'s/submission':>14}{'speed-up':>10}")
    serial = {b: s for b, j, s in results if j == 1}
    for backend, jobs, seconds in results:
        speedup = serial[backend] / seconds if backend in serial else float("nan")
        print(f"{backend:<11}{jobs:>5}{seconds:>9.1f}{seconds / n:>14.2f}{speedup:>10.2f}")
    print(f"largest process reaped under the grader: {peak_mib:,.0f} MiB peak resident "
          f"memory (kernels killed by the grader may not be counted)")

    for backend in backends:
        runs = {j: s for b, j, s in results if b == backend}
        if 1 not in runs or max(runs) == 1:
            continue
        most = max(runs)
        per_notebook = runs[1] / n
        # share of a perfect speed-up per worker (above 1 only by noise)
        efficiency = min(1.0, runs[1] / (most * runs[most]))
        minutes = PROJECTED_NOTEBOOKS * per_notebook / (PROJECTED_CORES * efficiency) / 60
        ideal = PROJECTED_NOTEBOOKS * per_notebook / PROJECTED_CORES / 60
        print(f"projection ({backend}): {PROJECTED_NOTEBOOKS:,} notebooks on "
              f"{PROJECTED_CORES} cores with JOBS={PROJECTED_CORES}: about {minutes:.0f} min "
              f"(perfect scaling: {ideal:.0f} min; one worker: "
              f"{PROJECTED_NOTEBOOKS * per_notebook / 60:.0f} min)")
    print(f"assumes: each notebook costs what it costs here with one worker (this mix of "
          f"kinds and assignments), each of {PROJECTED_CORES} workers keeps the per-worker "
          f"efficiency measured here with {max(jobs_list)}, and the machine has memory for "
          f"{PROJECTED_CORES} kernels at once (each is capped by the sandbox's memory limit, "
          f"c.SandboxGrader.memory_mib)")
    print(f"all runs recorded identical grades and exited 0: {'yes' if not problems else 'NO'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
