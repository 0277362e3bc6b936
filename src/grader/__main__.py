"""Command line: ``python -m grader autograde ASSIGNMENT`` and ``python -m grader summary``.

    python -m grader autograde ASSIGNMENT [--jobs N] [--students a,b,...] [--shard K/N]
        [--db-url URL] [--timeout SECONDS] [--memory-mib MIB] [--course DIR]

Grades every submission of ASSIGNMENT under the course's submitted/ folder in
sandboxed kernels, N students at a time, records the scores in nbgrader's
gradebook, writes autograded notebooks and the grade report
(reports/ASSIGNMENT.csv and .json beside the gradebook's other run-time data).
Exit status: 0 when every submission was processed, whatever the students
handed in; 1 if the grader itself failed on a submission; 2 for the
instructor's own errors (bad configuration, unknown assignment, unreadable
course files, no sandbox).
"""

import argparse
import concurrent.futures
import multiprocessing
import os
import signal
import sys
import time

from . import course
from .grade import Job, grade_student
from .record import (read_timestamp, record_in_gradebook, write_assignment_report,
                     write_autograded, write_student_report)
from .sandbox import Limits, SandboxError, bwrap_available
from .summary import write_summary


class InstructorError(Exception):
    """A problem with the course set-up, not with any submission (exit status 2)."""


def parse_shard(text):
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes K/N, for example 1/2, not {text!r}")
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"--shard {text}: K must be between 1 and N")
    return k, n


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    auto = commands.add_parser("autograde", help="grade the submissions of one assignment")
    auto.add_argument("assignment")
    auto.add_argument("--jobs", type=int, default=1, help="students graded at once (default 1)")
    auto.add_argument("--students", default="", help="comma-separated student ids (default: all)")
    auto.add_argument("--shard", type=parse_shard, default=None,
                      help="grade only shard K of N (1-based) of the sorted students")
    auto.add_argument("--db-url", default=None, help="gradebook database URL (default: config)")
    auto.add_argument("--timeout", type=float, default=None,
                      help="seconds one cell may run (default: c.Execute.timeout)")
    auto.add_argument("--memory-mib", type=int, default=None,
                      help="address-space limit of each kernel in MiB (default 3072)")
    auto.add_argument("--course", default=".", help="course folder with nbgrader_config.py")
    summary = commands.add_parser("summary", help="per-student status and per-question pass rates")
    summary.add_argument("assignments", nargs="*", help="assignments (default: all configured)")
    summary.add_argument("--course", default=".")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        if args.command == "summary":
            settings = course.load(args.course)
            names = args.assignments or settings.assignments
            for name in names:  # complete even if graders on several machines wrote parts
                if os.path.isdir(os.path.join(settings.reports, name)):
                    write_assignment_report(settings.reports, name)
            print(write_summary(settings, names))
            return 0
        return autograde(args)
    except (InstructorError, course.CourseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def autograde(args):
    settings = course.load(args.course, db_url=args.db_url)
    if not bwrap_available():
        raise InstructorError("bubblewrap (bwrap) is not installed: run `make system` "
                              "(Debian package bubblewrap); student code never runs unsandboxed")
    notebooks = settings.instructor_notebooks(args.assignment)
    course.check_gradebook(settings, args.assignment, notebooks)
    students = settings.students(args.assignment)
    if args.students:
        wanted = [s for s in args.students.split(",") if s]
        unknown = sorted(set(wanted) - set(students))
        if unknown:
            print(f"warning: no submission of {args.assignment} from: {', '.join(unknown)}",
                  file=sys.stderr)
        students = [s for s in students if s in wanted]
    if args.shard:
        k, n = args.shard
        students = [s for i, s in enumerate(students) if i % n == k - 1]
    limits = Limits(timeout=args.timeout or settings.timeout,
                    memory_mib=args.memory_mib or settings.memory_mib)
    jobs = [Job(student, args.assignment,
                os.path.join(settings.submitted, student, args.assignment), notebooks, limits)
            for student in students]
    print(f"autograding {args.assignment}: {len(jobs)} submission(s), {args.jobs} at a time",
          file=sys.stderr)
    failures = run_jobs(jobs, max(1, args.jobs), settings)
    write_assignment_report(settings.reports, args.assignment)
    if any(sandbox for _, sandbox in failures):
        raise InstructorError("the sandbox could not be started (see the messages above): "
                              "check that bubblewrap works on this machine")
    failures = [student for student, _ in failures]
    if failures:
        print(f"the grader failed on: {', '.join(failures)} (see messages above)", file=sys.stderr)
        return 1
    return 0


def run_jobs(jobs, workers, settings):
    """Grade in `workers` processes; this process alone records each result as it arrives."""
    failures = []
    if workers == 1:
        for job in jobs:
            record_one(job, _safe_grade(job), settings, failures)
        return failures
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context,
                                                initializer=_exit_with_grader,
                                                initargs=(os.getpid(),)) as pool:
        futures = {pool.submit(_safe_grade, job): job for job in jobs}
        for future in concurrent.futures.as_completed(futures):
            record_one(futures[future], future.result(), settings, failures)
    return failures


def _exit_with_grader(grader_pid):
    """Worker start-up: if the grader is killed, its workers (and their sandboxes) die too."""
    import ctypes

    pr_set_pdeathsig = 1  # Linux prctl option
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != grader_pid:  # the grader died before the line above took effect
        os._exit(1)


def _safe_grade(job):
    """grade_student, with the grader's own failures turned into a record, not a crash."""
    started = time.monotonic()
    try:
        record = grade_student(job)
    except SandboxError as error:  # the machine's set-up, not the submission
        return {"student": job.student, "assignment": job.assignment, "error": str(error),
                "sandbox": True}
    except Exception as error:  # noqa: BLE001 (reported for this student; the run goes on)
        return {"student": job.student, "assignment": job.assignment, "error": repr(error)}
    record["seconds"] = time.monotonic() - started
    return record


def record_one(job, record, settings, failures):
    if "error" in record:
        failures.append((job.student, bool(record.get("sandbox"))))
        print(f"error grading {job.student}: {record['error']}", file=sys.stderr)
        return
    timestamp, note = read_timestamp(job.submitted_dir)
    if note:
        record["notes"].append(note)
    record_in_gradebook(settings.db_url, settings.course_id, record, timestamp)
    write_autograded(settings.autograded, job.student, job.assignment, record, job.submitted_dir)
    write_student_report(settings.reports, job.assignment, record)
    scores = sum(t["points"] for nb in record["notebooks"] for t in nb["tests"])
    total = sum(t["max_points"] for nb in record["notebooks"] for t in nb["tests"])
    states = ", ".join(f"{nb['notebook']}: {nb['status']}" for nb in record["notebooks"])
    print(f"{job.student}: {scores:g}/{total:g} ({states}) in {record['seconds']:.1f} s",
          file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
