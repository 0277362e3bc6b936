"""One autograding run: which students, which are refused, and each result to the single writer.

`autograde` is the whole run of `python -m grader autograde`: it prepares the
assignment once, picks the submissions, refuses those it must not read, hands
the others to the workers as plain data (worker/'s `Job`, through engines.py)
and gives each result to the single writer (recording/'s `Writer`), each
student exactly once. The autograde command (its options and their run) is
this module's too, added to ``python -m grader`` by cli.py.
"""

import argparse
import dataclasses
import os
import sys

from .dask_tls import TLS_FOLDER, refuse_plaintext
from .engines import CONNECT_SECONDS, EXIT_ON_SIGTERM, engine, sigterm_as_exit
from .plan import HandIn, refusal, refused_result
from .recording import Writer, check_released
from .safe_text import shown_id
from .sandbox import SandboxCgroups, require_sandbox
from .settings import (CONFIGURABLES, CourseError, Limits, SandboxGrader, Settings, load,
                       settings_help)
from .worker import (Job, close_templates, prepare_assignment, prepare_machine,
                     private_work_root, read_job, remove_left_overs)


def autograde(settings: Settings, assignment: str, limits: Limits, jobs: int = 1,
              scheduler: str | None = None, wait: float | None = None,
              students: list[str] | None = None, shard: tuple[int, int] | None = None,
              tls_folder: str | None = None, allow_plaintext: bool = False) -> int:
    """Grade and record every submission of `assignment`; returns the exit status.

    0 when every submission was processed, 1 when the grader failed on some
    (reported for each); raises CourseError for the instructor's own problems.
    `students` limits the run to those ids, `shard` (K, N) to the K-th of N
    shares of the sorted students; `limits` is the sandbox's Limits. A Dask
    `scheduler` is reached over TLS with the certificates in `tls_folder` (by
    default dask-certs/ of the course), a tcp:// one only with `allow_plaintext`.
    """
    if scheduler:
        refuse_plaintext(scheduler, allow_plaintext)
        tls_folder = tls_folder or os.path.join(settings.root, TLS_FOLDER)
    if not scheduler:
        require_sandbox()
    notebooks = settings.instructor_notebooks(assignment)
    check_released(settings, assignment, notebooks)
    chosen = chosen_students(settings, assignment, students, shard)
    prepared = prepare_assignment(settings, assignment, limits)
    hand_ins = [HandIn(student, assignment,
                       os.path.join(settings.submitted, student, assignment), notebooks)
                for student in chosen]

    def prepare(hand_in: HandIn) -> Job:
        return read_job(prepared, hand_in.student, hand_in.submitted_dir)

    writer = Writer(settings, assignment)
    remove_left_overs()
    with sigterm_as_exit(), private_work_root():
        try:
            if not scheduler and hand_ins:
                # the templates and the checks, once for the machine: the workers share them
                prepare_machine(prepared, jobs)
            with engine(jobs, scheduler, wait, tls_folder, allow_plaintext) as grading:
                print(f"autograding {assignment}: {len(hand_ins)} submission(s), "
                      f"{grading.where}", file=sys.stderr)
                print(limits_in_force(limits, settings.package, prepared.blocked),
                      file=sys.stderr)
                writer.start()
                gradable = []
                for hand_in in hand_ins:
                    reason = refusal(settings, hand_in)
                    if reason:
                        writer.record(hand_in, refused_result(hand_in, reason))
                    else:
                        gradable.append(hand_in)
                for hand_in, result in grading.graded(gradable, prepare):
                    writer.record(hand_in, result)
        except SystemExit as stop:
            if stop.code == EXIT_ON_SIGTERM:
                print(f"autograding {assignment} stopped by SIGTERM: the students recorded so "
                      "far are kept; the same command grades the others", file=sys.stderr)
            raise
        finally:
            writer.close()
            close_templates()
            remove_left_overs()  # what a worker killed on the way out left
    writer.finish()
    if any(failure.sandbox for failure in writer.failures):
        where = "the Dask workers" if scheduler else "this machine"
        raise CourseError("the sandbox could not be started (see the messages above): "
                          f"check that bubblewrap works on {where}")
    if writer.failures:
        print(f"the grader failed on: {', '.join(shown_id(f.student) for f in writer.failures)} "
              "(see messages above)", file=sys.stderr)
        return 1
    return 0


def chosen_students(settings: Settings, assignment: str, students: list[str] | None = None,
                    shard: tuple[int, int] | None = None) -> list[str]:
    """The students with a submission of `assignment`, sorted; only `students` if given,
    and of those only share K of N if `shard` is (K, N)."""
    chosen = settings.students(assignment)
    if students:
        unknown = sorted(set(students) - set(chosen))
        if unknown:
            print(f"warning: no submission of {assignment} from: {', '.join(unknown)}",
                  file=sys.stderr)
        chosen = [s for s in chosen if s in students]
    if shard:
        k, n = shard
        chosen = [s for i, s in enumerate(chosen) if i % n == k - 1]
    return chosen


def limits_in_force(limits: Limits, package: str, blocked: tuple[str, ...]) -> str:
    """The sandbox's limits in words, printed when grading starts (docs/grading-sandbox.md)."""
    whole, why = SandboxCgroups.available()
    sandbox = (f"{limits.memory_mib} MiB of memory and {limits.max_processes} processes per "
               f"sandbox in all ({why})" if whole else
               f"per process only: {limits.memory_mib} MiB of address space each, "
               f"{limits.max_processes} processes per sandbox user ({why})")
    stubs = ", ".join(blocked) if blocked else "none"
    return (f"sandbox limits: {limits.timeout:g} s per cell; {sandbox}; writable folders "
            f"{limits.tmpfs_mib} MiB each, files up to {limits.file_mib} MiB; no network; "
            f"{limits.notebook_seconds:g} s per notebook in all, restarts included\n"
            f"{package} functions students must write themselves (stubs in the sandbox): {stubs}")


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes K/N, for example 1/2, not {text!r}")
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"--shard {text}: K must be between 1 and N")
    return k, n


def add_autograde_command(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                          ) -> None:
    auto = commands.add_parser("autograde", help="grade the submissions of one assignment",
                               epilog=settings_help(CONFIGURABLES),
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    auto.add_argument("assignment")
    auto.add_argument("--jobs", type=int, default=1,
                      help="students graded at once on this machine (default 1)")
    auto.add_argument("--scheduler", default=None, metavar="ADDRESS",
                      help="grade on the workers of the Dask cluster whose scheduler is at "
                           "ADDRESS (tls://HOST:8786) instead of on this machine")
    auto.add_argument("--tls-folder", default=None, metavar="DIR",
                      help="with --scheduler: the cluster's certificates (default: "
                           "dask-certs/ of the course, made by `make dask-certs`)")
    auto.add_argument("--allow-plaintext-dask", action="store_true",
                      help="accept a tcp:// scheduler: students' notebooks and results then "
                           "travel unencrypted and anyone who can reach its port can run "
                           "code on the workers")
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


def run_autograde(args: argparse.Namespace) -> int:
    settings = load(args.course, db_url=args.db_url)
    overrides = {name: value for name, value in (("timeout", args.timeout),
                                                 ("memory_mib", args.memory_mib),
                                                 ("tmpfs_mib", args.tmpfs_mib)) if value}
    limits = dataclasses.replace(settings.limits, **overrides)
    return autograde(settings, args.assignment, limits, jobs=args.jobs, scheduler=args.scheduler,
                     wait=args.wait, students=[s for s in args.students.split(",") if s],
                     shard=args.shard, tls_folder=args.tls_folder,
                     allow_plaintext=args.allow_plaintext_dask)


AUTOGRADE_COMMANDS = {"autograde": run_autograde}
