"""Command line: ``python -m grader autograde ASSIGNMENT`` and ``python -m grader summary``.

    python -m grader autograde ASSIGNMENT [--jobs N | --scheduler ADDRESS [--wait SECONDS]]
        [--students a,b,...] [--shard K/N] [--db-url URL] [--timeout SECONDS]
        [--memory-mib MIB] [--tmpfs-mib MIB] [--course DIR]

Grades every submission of ASSIGNMENT under the course's submitted/ folder in
sandboxed kernels, N students at a time on this machine or on the workers of
a Dask cluster (docs/scaling.md), records the scores in nbgrader's
gradebook, writes autograded notebooks and the grade report
(reports/ASSIGNMENT.csv and .json beside the gradebook's other run-time data).
Exit status: 0 when every submission was processed, whatever the students
handed in (a submission that cannot be graded is reported, not fatal);
1 if the grader itself failed on a submission (reported for that student,
the others are still graded); 2 for the
instructor's own errors (bad configuration, unknown assignment, unreadable
course files, no sandbox).
"""

import argparse
import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
import sys
from dataclasses import dataclass

import nbformat

from . import course
from .engines import (CONNECT_SECONDS, EngineError, InlineExecutor, dask_cluster, grade_on_worker,
                      graded, safe_grade)
from .grade import prepare_checkers, read_instructor_notebooks, read_job
from .notebooks import (build_plan, clean_name, clean_text, shown_id, student_id_problem,
                        submission_link_problem)
from .record import (StagedFiles, clean_record, read_timestamp, record_in_gradebook,
                     remove_assignment_leftovers, write_assignment_report, write_autograded,
                     write_student_report)
from .sandbox import (MAX_PROCESSES, Limits, SandboxCgroups, SandboxError, bwrap_available,
                      private_work_root, remove_stale_work_roots)
from .summary import write_summary


class InstructorError(Exception):
    """A problem with the course set-up, not with any submission (exit status 2)."""


@dataclass
class Submission:
    """One student's submission on the instructor's machine: what is read and recorded."""

    student: str
    assignment: str
    submitted_dir: str  # submitted/<student>/<assignment>
    instructor_notebooks: dict  # notebook name -> path of the instructor's .ipynb


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
    auto.add_argument("--jobs", type=int, default=1,
                      help="students graded at once on this machine (default 1)")
    auto.add_argument("--scheduler", default=None, metavar="ADDRESS",
                      help="grade on the workers of the Dask cluster whose scheduler is at "
                           "ADDRESS (tcp://HOST:8786) instead of on this machine")
    auto.add_argument("--wait", type=float, default=CONNECT_SECONDS, metavar="SECONDS",
                      help="with --scheduler: how long to wait for the scheduler, and then "
                           f"for a first worker (default {CONNECT_SECONDS})")
    auto.add_argument("--students", default="", help="comma-separated student ids (default: all)")
    auto.add_argument("--shard", type=parse_shard, default=None,
                      help="grade only shard K of N (1-based) of the sorted students")
    auto.add_argument("--db-url", default=None, help="gradebook database URL (default: config)")
    auto.add_argument("--timeout", type=float, default=None,
                      help="seconds one cell may run (default: c.Execute.timeout)")
    auto.add_argument("--memory-mib", type=int, default=None,
                      help="memory of each sandbox in MiB, its processes together (default 3072)")
    auto.add_argument("--tmpfs-mib", type=int, default=None,
                      help="size in MiB of each writable in-memory folder of a sandbox "
                           "(/tmp, /home, /dev/shm and the working folder; default 128)")
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
    except (InstructorError, EngineError, course.CourseError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


def autograde(args):
    settings = course.load(args.course, db_url=args.db_url)
    if not args.scheduler and not bwrap_available():
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
                    memory_mib=args.memory_mib or settings.memory_mib,
                    tmpfs_mib=args.tmpfs_mib or settings.tmpfs_mib)
    blocked = course.blocked_functions(settings, notebooks)
    instructor_texts = read_instructor_notebooks(notebooks)
    submissions = [Submission(student, args.assignment,
                              os.path.join(settings.submitted, student, args.assignment),
                              notebooks)
                   for student in students]

    def prepare(submission):
        return read_job(submission.student, submission.assignment, submission.submitted_dir,
                        instructor_texts, limits, blocked=blocked)

    if args.jobs > 1 and not args.scheduler:
        prepare_checkers(instructor_texts)  # once here: the forked workers share them
    with engine(args) as (executor, in_flight, where, grade):
        print(f"autograding {args.assignment}: {len(submissions)} submission(s), {where}",
              file=sys.stderr)
        print(limits_in_force(limits, settings.package, blocked), file=sys.stderr)
        failures = []
        gradable = []
        for submission in submissions:
            reason = refusal(settings, submission)
            if reason:
                record_one(submission, refused_record(submission, reason), settings, failures)
            else:
                gradable.append(submission)
        remove_stale_work_roots()
        SandboxCgroups.remove_stale()  # of graders killed before they could remove them
        remove_assignment_leftovers(settings.reports, settings.autograded, args.assignment)
        with private_work_root():
            for submission, result in graded(gradable, prepare, executor, in_flight, grade):
                record_one(submission, result, settings, failures)
    write_assignment_report(settings.reports, args.assignment)
    if any(sandbox for _, sandbox in failures):
        where = "the Dask workers" if args.scheduler else "this machine"
        raise InstructorError("the sandbox could not be started (see the messages above): "
                              f"check that bubblewrap works on {where}")
    failures = [student for student, _ in failures]
    if failures:
        print(f"the grader failed on: {', '.join(failures)} (see messages above)", file=sys.stderr)
        return 1
    return 0


@contextlib.contextmanager
def engine(args):
    """(executor, jobs to hand out at once, description, task) for --jobs N or --scheduler.

    One student is read ahead per local worker, two per Dask worker slot (the
    transfer overlaps the grading); --jobs 1 grades each as soon as it is read.
    """
    if args.scheduler:
        with dask_cluster(args.scheduler, args.wait) as (executor, in_flight, slots):
            yield (executor, in_flight, f"on the Dask cluster at {args.scheduler} "
                   f"({slots()} worker slot(s) now)", grade_on_worker)
        return
    workers = max(1, args.jobs)
    if workers == 1:
        yield InlineExecutor(), lambda: 1, "1 at a time", safe_grade
        return
    context = multiprocessing.get_context("fork")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context,
                                                initializer=_exit_with_grader,
                                                initargs=(os.getpid(),)) as pool:
        yield pool, lambda: 2 * workers, f"{workers} at a time", safe_grade


def _exit_with_grader(grader_pid):
    """Worker start-up: if the grader is killed, its workers (and their sandboxes) die too."""
    import ctypes

    pr_set_pdeathsig = 1  # Linux prctl option
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != grader_pid:  # the grader died before the line above took effect
        os._exit(1)


def limits_in_force(limits, package, blocked):
    """The sandbox's limits in words, printed when grading starts (README: how to check)."""
    whole, why = SandboxCgroups.available()
    sandbox = (f"{limits.memory_mib} MiB of memory and {MAX_PROCESSES} processes per sandbox "
               f"in all ({why})" if whole else
               f"per process only: {limits.memory_mib} MiB of address space each, "
               f"{MAX_PROCESSES} processes per sandbox user ({why})")
    stubs = ", ".join(blocked) if blocked else "none"
    return (f"sandbox limits: {limits.timeout:g} s per cell; {sandbox}; writable folders "
            f"{limits.tmpfs_mib} MiB each, files up to {limits.file_mib} MiB; no network\n"
            f"{package} functions students must write themselves (stubs in the sandbox): {stubs}")


def refusal(settings, job):
    """Why a submission is not graded at all (its folder is a link, ...), or None."""
    if clean_name(job.student) != job.student:
        return "the student folder's name is not valid UTF-8 text; not graded"
    problem = student_id_problem(job.student)
    if problem:
        return f"student id {shown_id(job.student)} {problem}; not graded"
    return submission_link_problem(settings.submitted, job.student, job.assignment)


def refused_record(job, reason):
    """The record of a submission that was not run: every test 0 points, with `reason`."""
    notebooks = []
    for name, path in sorted(job.instructor_notebooks.items()):
        plan = build_plan(nbformat.read(path, as_version=4), None)
        tests = [{"grade_id": cell.grade_id, "points": 0.0, "max_points": cell.points,
                  "status": "not run", "message": reason}
                 for cell in plan.cells if cell.kind == "test"]
        notebooks.append({"notebook": name, "status": "unreadable", "message": reason,
                          "notes": [], "tests": tests, "seconds": 0.0, "autograded": None})
    return {"student": job.student, "assignment": job.assignment, "notes": [reason],
            "notebooks": notebooks, "seconds": 0.0, "refused": True}


def record_one(job, record, settings, failures):
    """Record one student's result; a failure is reported for that student and the run goes on.

    The student's autograded notebooks and report are staged before the
    gradebook transaction and put in place after it commits. A grader killed
    between the two leaves the new grades with the previous files (and its
    temporaries); the next run regrades every student and removes them.
    """
    student = clean_name(job.student)
    if "error" in record:
        failures.append((student, bool(record.get("sandbox"))))
        print(f"error grading {student}: {clean_text(record['error'])}", file=sys.stderr)
        _report_only(settings, job, f"not graded: the grader failed on this submission "
                                    f"({record['error']})")
        return
    record = clean_record(record)
    staged = StagedFiles()
    # a refused folder is not read at all (it may be a link to someone else's files)
    submitted_dir = None if record.get("refused") else job.submitted_dir
    try:
        timestamp, note = read_timestamp(submitted_dir) if submitted_dir else (None, None)
        if note:
            record["notes"].append(note)
        if student != job.student or student_id_problem(student):  # an id we cannot store
            record["student"] = shown_id(student)
            write_student_report(settings.reports, job.assignment, record, staged)
            staged.publish()
            return
        write_autograded(settings.autograded, job.student, job.assignment, record,
                         submitted_dir, staged)
        write_student_report(settings.reports, job.assignment, record, staged)
        record_in_gradebook(settings.db_url, settings.course_id, record, timestamp,
                            settings.late_penalties())
        staged.publish()
    except Exception as error:  # noqa: BLE001 (reported for this student; the run goes on)
        staged.discard()
        failures.append((student, False))
        message = clean_text(f"{type(error).__name__}: {error}")
        print(f"error recording {student}: {message}", file=sys.stderr)
        _report_only(settings, job, f"not recorded: the grader failed while recording "
                                    f"this submission ({message})")
        return
    except BaseException:
        staged.discard()
        raise
    scores = sum(t["points"] for nb in record["notebooks"] for t in nb["tests"])
    total = sum(t["max_points"] for nb in record["notebooks"] for t in nb["tests"])
    states = ", ".join(f"{nb['notebook']}: {nb['status']}" for nb in record["notebooks"])
    print(f"{student}: {scores:g}/{total:g} ({states}) in {record['seconds']:.1f} s",
          file=sys.stderr)


def _report_only(settings, job, note):
    """A report entry saying why a student has no new result (best effort)."""
    try:
        write_student_report(settings.reports, job.assignment,
                             {"student": clean_name(job.student), "notes": [note],
                              "notebooks": []})
    except Exception as error:  # noqa: BLE001 (already failing; say so and go on)
        print(f"error reporting on {clean_name(job.student)}: {clean_text(repr(error))}",
              file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
