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
import dataclasses
import sys

from . import course
from .course import CourseError, SandboxGrader
from .record import rebuild_assignment_reports, write_summary
from .run import CONNECT_SECONDS, autograde


def parse_shard(text):
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes K/N, for example 1/2, not {text!r}")
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"--shard {text}: K must be between 1 and N")
    return k, n


def settings_help():
    """The grader's settings in nbgrader_config.py, each with its default (from SandboxGrader)."""
    lines = ["settings in nbgrader_config.py (c.Execute.timeout is the limit per cell):"]
    for name, trait in sorted(SandboxGrader.class_traits(config=True).items()):
        lines.append(f"  c.SandboxGrader.{name} = {trait.default()!r}: {trait.help}")
    return "\n".join(lines)


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    auto = commands.add_parser("autograde", help="grade the submissions of one assignment",
                               epilog=settings_help(),
                               formatter_class=argparse.RawDescriptionHelpFormatter)
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
    for name in ("memory_mib", "tmpfs_mib"):  # help and defaults from the settings' own
        trait = SandboxGrader.class_traits()[name]
        auto.add_argument("--" + name.replace("_", "-"), type=int, default=None,
                          help=f"{trait.help} (default: c.SandboxGrader.{name}, "
                               f"{trait.default()} unless set)")
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
            rebuild_assignment_reports(settings, names)
            print(write_summary(settings, names))
            return 0
        settings = course.load(args.course, db_url=args.db_url)
        overrides = {name: value for name, value in (("timeout", args.timeout),
                                                     ("memory_mib", args.memory_mib),
                                                     ("tmpfs_mib", args.tmpfs_mib)) if value}
        limits = dataclasses.replace(settings.limits, **overrides)
        return autograde(settings, args.assignment, limits, jobs=args.jobs, scheduler=args.scheduler, wait=args.wait,
                         students=[s for s in args.students.split(",") if s], shard=args.shard)
    except CourseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
