"""The instructor's command line, one entry point: ``python -m grader COMMAND``.

    python -m grader autograde ASSIGNMENT [--jobs N | --scheduler ADDRESS [--wait SECONDS]
        [--tls-folder DIR] [--allow-plaintext-dask]] [--students a,b,...] [--shard K/N] [--db-url URL] [--timeout SECONDS]
        [--memory-mib MIB] [--tmpfs-mib MIB] [--course DIR]
    python -m grader summary [ASSIGNMENT ...]
    python -m grader check-config [--assignment NAME] [--duedate DATE]
    python -m grader release-lines
    python -m grader due ASSIGNMENT "2026-12-01 17:00:00 UTC"
    python -m grader apply-late-policy [ASSIGNMENT ...]
    python -m grader roster students.csv
    python -m grader collect-zip ASSIGNMENT submissions.zip [--lms canvas|moodle] [--queue]
    python -m grader extensions [extensions.csv] [--despite-public-solutions]
    python -m grader grades [ASSIGNMENT ...]
    python -m grader item-analysis ASSIGNMENT
    python -m grader regrade ASSIGNMENT [--students a,b] [--reason TEXT] [--apply] [--jobs N]
    python -m grader release-feedback ASSIGNMENT
    python -m grader feedback-zip ASSIGNMENT
    python -m grader rehearse [--students N] [--folder DIR] [--assignment NAME ...]
    python -m grader rehearse-lms [--folder DIR] [--assignment NAME ...]
    python -m grader similarity [ASSIGNMENT ...] [--threshold SIMILARITY]
    python -m grader canvas-push ASSIGNMENT [--dry-run]
    python -m grader lti-keys
    python -m grader lti-roster [--dry-run]
    python -m grader lti-push ASSIGNMENT [--dry-run]
    python -m grader rehearse-lti [--folder DIR] [--assignment NAME ...]
    python -m grader serve [--workers N | --scheduler ADDRESS] [--lease SECONDS]
    python -m grader queue [--json] [--status]
    python -m grader page [--port PORT] [--instructors GROUP]
    python -m grader check ASSIGNMENT NOTEBOOK.ipynb ... --student ID
    python -m grader student-view ASSIGNMENT --student ID [--json]
    python -m grader dask-certs [--folder DIR]
    python -m grader publish [--site DIR] [--to DIR]
    python -m grader leak-scan [FOLDER]
    python -m grader publish-repo REMOTE [--branch NAME]
    python -m grader release-solutions ASSIGNMENT [--site DIR]
    python -m grader new-term TARGET --term NAME (--start DATE | --weeks N) [--zone ZONE]
    python -m grader archive-term [--purge [--archive PATH] [--confirm]]
    python -m grader restore-term ARCHIVE
    python -m grader grade-explain ASSIGNMENT [--seed TEXT] [--students a,b]
    python -m grader defense-questions ASSIGNMENT [--students a,b]

autograde grades every submission of ASSIGNMENT under the course's submitted/ folder in
sandboxed kernels, N students at a time on this machine or on the workers of a Dask cluster
(docs/scaling.md), records the scores in nbgrader's gradebook, writes autograded notebooks
and the grade report (reports/ASSIGNMENT.csv and .json beside the gradebook's other run-time
data). check-config loads nbgrader_config.py as nbgrader does and stops with the file and
line on any mistake; every make target that runs nbgrader runs it first. `release-lines`
writes the term's salt and the install line into the instructor's notebooks (the first step
of make release), warning when c.CourseSite.url is empty. `due` sets an assignment's due
date in the gradebook (make release DUEDATE=...); `grades` writes grades.csv, the LMS
exports, summary.txt, the grade report pages and the item analyses; `item-analysis` writes
reports/ASSIGNMENT-items.csv and .html alone, each check's difficulty and discrimination
(docs/regrading.md); `regrade` grades the students again against the current release and
prints who would change, writing only a record under course-data/regrades/; with --apply it
changes exactly those students (docs/regrading.md); `collect-zip` puts the notebooks of an
LMS's download into submitted/ (make collect-zip); `release-feedback` releases feedback
through the exchange to the students who handed in through it and lists the others;
`feedback-zip` puts the feedback of the students collected from an LMS into one zip that the
LMS takes back; `rehearse` runs a whole fake class on this machine (make rehearse),
`rehearse-lms` one that hands in through Canvas instead of a hub (make rehearse-lms);
`extensions` applies the students' extensions file to the gradebook (make extensions,
grader/service/commands.py); `similarity` writes reports/similarity-ASSIGNMENT.csv and
.html, the pairs of students whose answers look alike, for a person to read
(docs/similarity.md); `canvas-push` sends each student's grade and feedback summary into
Canvas's gradebook, or with --dry-run prints what it would send (make canvas-push,
docs/canvas.md). `serve` grades each hand-in as it arrives (the exchange's inbound folder,
read every second, and the service's queue) until SIGTERM or Ctrl-C, recording each in the
gradebook as it is graded (grader/service/); `queue` lists every hand-in the service knows,
with its state and score (--json: a list of objects); `check` asks the service for a check
of a student's notebooks within the rate limit (c.CheckRateLimit), and `student-view` prints
that student's hand-ins as they see them now, each check by its visibility (c.CheckFeedback;
grader/service/student_commands.py); `page` serves the students' page of the service on the
hub (grader/service/page.py). `new-term`, `archive-term` and `restore-term` carry a course
to its next term and keep a finished one (grader/terms/, docs/terms.md).

Exit status: 0 when every submission was processed, whatever the students handed in (a
submission that cannot be graded is reported, not fatal); 1 if the grader itself failed on a
submission (reported for that student, the others are still graded), if canvas-push could
not write a student's grade (the others are pushed; run it again), or if collect-zip refused
a student's files that two of the LMS's people match (the others are collected); 2 for the
instructor's own errors (bad configuration, unknown assignment, unreadable course files, no
sandbox), with a message saying what to fix.
"""

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable, Iterable

from .autograde import autograde
from .dask_tls import TLS_FOLDER, make_certificates
from .engines import CONNECT_SECONDS
from .explain.commands import EXPLAIN_COMMANDS, add_explain_commands
from .handback import release_feedback, write_feedback_zip
from .intake import collect_zip
from .lms import DEFAULT_PLATFORM, GRADE_PUSH_DOCS, GRADE_PUSH_PLATFORM, PLATFORMS, CanvasPush
from .lti import lti_push
from .lti.commands import LTI_COMMANDS, add_lti_commands, course_tool, lti_check_lines
from .publish.commands import PUBLISH_COMMANDS, add_publish_commands
from .push import push_grades
from .recording import parse_due_date, rebuild_assignment_reports, set_due_date
from .recording.commands import RECORDING_COMMANDS, add_recording_commands
from .rehearsal import REHEARSAL_LMS, RehearsalError, rehearse, rehearse_lms
from .regrade import regrade
from .reports import import_roster, item_analysis_of, write_grades, write_summary
from .sandbox import require_sandbox
from .settings import (CONFIGURABLES, CourseError, DaskCluster, SandboxGrader, Settings,
                       check_config, load, no_install_line_warning, stale_salts,
                       write_release_lines)
from .service import JobSource, SourceKind, StoreError, course_store, queue_submitted
from .service.commands import SERVICE_COMMANDS, add_service_commands, serving_with
from .similarity import write_similarity
from .terms.commands import TERM_COMMANDS, add_term_commands


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes K/N, for example 1/2, not {text!r}")
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"--shard {text}: K must be between 1 and N")
    return k, n


def settings_help(configurables: tuple[type, ...] = CONFIGURABLES,
                  heading: str = "(c.Execute.timeout is the limit per cell)") -> str:
    """The grader's settings in nbgrader_config.py, each with its default (from its class)."""
    lines = [f"settings in nbgrader_config.py {heading}:"]
    for configurable in configurables:
        for name, trait in sorted(configurable.class_traits(config=True).items()):
            lines.append(f"  c.{configurable.__name__}.{name} = {trait.default()!r}: {trait.help}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
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
    summary = commands.add_parser("summary", help="per-student status and per-question pass rates")
    summary.add_argument("assignments", nargs="*", help="assignments (default: all configured)")
    check = commands.add_parser("check-config", help="check nbgrader_config.py (and a name)")
    check.add_argument("--assignment", default="",
                       help="an assignment name given to make (ASSIGNMENT=...); empty: all")
    check.add_argument("--duedate", default="", help="a due date given to make (DUEDATE=...)")
    due = commands.add_parser("due", help="set an assignment's due date in the gradebook")
    due.add_argument("assignment")
    due.add_argument("duedate", help='e.g. "2026-12-01 17:00:00 UTC"; "none" removes it')
    roster = commands.add_parser("roster", help="import the class roster from a CSV")
    roster.add_argument("csv")
    collect = commands.add_parser("collect-zip",
                                  help="an LMS's download of one assignment into submitted/")
    collect.add_argument("assignment")
    collect.add_argument("zip", help="the zip of every submission, as the LMS gives it")
    collect.add_argument("--lms", choices=list(PLATFORMS), default=DEFAULT_PLATFORM,
                         help=f"which LMS made the zip (default {DEFAULT_PLATFORM})")
    collect.add_argument("--queue", action="store_true",
                         help="also hand what submitted/ holds to the grading service's queue "
                              "(make serve grades it; unchanged notebooks are not graded again)")
    grades = commands.add_parser("grades", help="grades.csv, exports, summary and report pages")
    grades.add_argument("assignments", nargs="*", help="assignments (default: all)")
    for name, what in (("release-feedback", "feedback through the exchange, and who needs "
                                            "another way"),
                       ("feedback-zip", "the feedback of students collected from an LMS, "
                                        "zipped for it"),
                       ("item-analysis", "each check's difficulty and discrimination, "
                                         "a CSV and a page")):
        command = commands.add_parser(name, help=what)
        command.add_argument("assignment")
    commands.add_parser("release-lines", help="write the salt and the install line into the "
                        "instructor's notebooks (the first step of make release)")
    rehearsal = commands.add_parser("rehearse", help="a whole fake class on this machine")
    rehearsal.add_argument("--students", type=int, default=4, help="how many students (default 4)")
    rehearsal.add_argument("--folder", default=os.path.join("course-data", "rehearsal"),
                           help="where the rehearsal runs (replaced; default "
                                "course-data/rehearsal)")
    rehearsal.add_argument("--assignment", action="append", default=[],
                           help="rehearse this assignment only (repeatable; default: all)")
    lms_rehearsal = commands.add_parser("rehearse-lms", help=f"a whole fake class that hands "
                                        f"in through {REHEARSAL_LMS.title}, without a hub")
    lms_rehearsal.add_argument("--folder", default=os.path.join("course-data", "rehearsal-lms"),
                               help="where the rehearsal runs (replaced; default "
                                    "course-data/rehearsal-lms)")
    lms_rehearsal.add_argument("--assignment", action="append", default=[],
                               help="rehearse this assignment only (repeatable; default: all)")
    similar = commands.add_parser("similarity", help="pairs of students whose answers look alike")
    similar.add_argument("assignments", nargs="*", help="assignments (default: all)")
    similar.add_argument("--threshold", type=float, default=None, metavar="SIMILARITY",
                         help="list pairs at or above this similarity, 0 to 1 (default: "
                              "c.SimilarityReport.threshold)")
    push = commands.add_parser(f"{GRADE_PUSH_PLATFORM.name}-push",
                               help=f"grades and feedback summaries into "
                               f"{GRADE_PUSH_PLATFORM.title}'s gradebook ({GRADE_PUSH_DOCS})",
                               epilog=settings_help((CanvasPush,), "(or the environment)"),
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    push.add_argument("assignment")
    push.add_argument("--dry-run", action="store_true",
                      help="print each student's grade now and the grade to send; write nothing")
    again = commands.add_parser("regrade", help="grade again against the current release: who "
                                "changes, then (--apply) change them")
    again.add_argument("assignment")
    again.add_argument("--students", default="", help="comma-separated student ids (default: "
                                                      "every student who handed in)")
    again.add_argument("--reason", default="", help="why, recorded and shown on the feedback")
    again.add_argument("--apply", action="store_true",
                       help="change the students whose results change (default: a dry run)")
    again.add_argument("--jobs", type=int, default=1,
                       help="students graded at once on this machine (default 1)")
    certs = commands.add_parser("dask-certs", help="a certificate authority and the "
                                "certificate of the course's Dask cluster (TLS)")
    certs.add_argument("--folder", default=None,
                       help="where to write them (default: dask-certs/ of the course)")
    add_service_commands(commands)
    add_lti_commands(commands)
    add_publish_commands(commands)
    add_term_commands(commands)
    add_explain_commands(commands)
    add_recording_commands(commands)
    for command in commands.choices.values():
        command.add_argument("--course", default=".", help="course folder with nbgrader_config.py")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (CourseError, RehearsalError, StoreError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


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


def run_dask_certs(args: argparse.Namespace) -> int:
    folder = args.folder or os.path.join(args.course, TLS_FOLDER)
    for path in make_certificates(folder, DaskCluster(config=check_config(args.course)[0])):
        print(path)
    print("give the folder to the scheduler and every worker (docs/scaling.md: tls://)",
          file=sys.stderr)
    return 0


def run_summary(args: argparse.Namespace) -> int:
    settings = load(args.course)
    names = args.assignments or settings.assignments
    rebuild_assignment_reports(settings, names)
    print(write_summary(settings, names))
    return 0


def loaded_with_warnings(args: argparse.Namespace) -> Settings:
    """The course's settings, with the configuration's warnings printed."""
    settings = load(args.course)
    for warning in settings.warnings:
        print(warning, file=sys.stderr)
    return settings


def run_check_config(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    if args.assignment:
        settings.check_assignments([args.assignment])
    stale = stale_salts(settings) + lti_check_lines(settings)
    if stale:
        raise CourseError("\n".join(stale))
    if args.duedate and args.duedate.strip().lower() != "none":
        parse_due_date(args.duedate)
    return 0


def run_release_lines(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    for path, line in write_release_lines(settings):
        print(f"{os.path.relpath(path, settings.root)}: {line}")
    warning = no_install_line_warning(settings)
    if warning:
        print(warning, file=sys.stderr)
    return 0


def run_due(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    settings.check_assignments([args.assignment])
    print(set_due_date(settings, args.assignment, args.duedate))
    return 0


def run_roster(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    notes = []
    people = import_roster(settings, args.csv, notes)
    for note in notes:
        print(note)
    print(f"{len(people)} student(s) imported into the gradebook from {args.csv}")
    return 0


def run_collect_zip(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    outcome = collect_zip(settings, args.assignment, args.zip, args.lms)
    for line in outcome.report_lines():
        print(line)
    if args.queue:
        store = course_store(settings.data, settings.db_url)
        source = JobSource.of(SourceKind.ZIP, os.path.basename(args.zip))
        for line in queue_submitted(settings, store, args.assignment, source):
            print(line)
    return 1 if outcome.refused else 0


def run_grades(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    names = args.assignments or settings.assignments
    settings.check_assignments(names)
    for line in write_grades(settings, names):
        print(line)
    return 0


Command = Callable[[argparse.Namespace], int]  # one command: its arguments to its exit status


def lines_of_one_assignment(work: Callable[[Settings, str], Iterable[str]]) -> Command:
    """The command that prints the lines `work(settings, assignment)` returns."""
    def run(args: argparse.Namespace) -> int:
        settings = loaded_with_warnings(args)
        settings.check_assignments([args.assignment])
        for line in work(settings, args.assignment):
            print(line)
        return 0
    return run


def run_regrade(args: argparse.Namespace) -> int:
    require_sandbox()
    settings = loaded_with_warnings(args)
    settings.check_assignments([args.assignment])
    for line in regrade(settings, args.assignment, settings.limits,
                        [s for s in args.students.split(",") if s], args.reason, args.apply,
                        args.jobs):
        print(line)
    return 0


def run_rehearsal(args: argparse.Namespace) -> int:
    if not 1 <= args.students <= 200:
        print("error: --students takes a number from 1 to 200", file=sys.stderr)
        return 2
    rehearse(os.path.abspath(args.course), args.folder, args.students, args.assignment)
    return 0


def run_lms_rehearsal(args: argparse.Namespace) -> int:
    rehearse_lms(os.path.abspath(args.course), args.folder, args.assignment)
    return 0


def run_lti_rehearsal(args: argparse.Namespace) -> int:
    from .rehearsal.lti import rehearse_lti  # the platform's libraries: for this command only

    rehearse_lti(os.path.abspath(args.course), args.folder, args.assignment, course_tool)
    return 0


def run_similarity(args: argparse.Namespace) -> int:
    if args.threshold is not None and not 0 <= args.threshold <= 1:
        print("error: --threshold takes a similarity from 0 to 1", file=sys.stderr)
        return 2
    settings = loaded_with_warnings(args)
    names = args.assignments or settings.assignments
    settings.check_assignments(names)
    for name in names:
        for path in write_similarity(settings, name, args.threshold):
            print(f"similarity report: {os.path.relpath(path, settings.root)}")
    return 0


def run_push(args: argparse.Namespace) -> int:
    settings = loaded_with_warnings(args)
    settings.check_assignments([args.assignment])
    lines, status = push_grades(settings, args.assignment, dry_run=args.dry_run)
    for line in lines:
        print(line)
    return status


COMMANDS = {f"{GRADE_PUSH_PLATFORM.name}-push": run_push, "autograde": run_autograde,
            "summary": run_summary, "check-config": run_check_config, "due": run_due,
            "roster": run_roster, "grades": run_grades,
            "collect-zip": run_collect_zip,
            "release-feedback": lines_of_one_assignment(release_feedback),
            "feedback-zip": lines_of_one_assignment(write_feedback_zip),
            "item-analysis": lines_of_one_assignment(item_analysis_of), "regrade": run_regrade,
            "rehearse": run_rehearsal, "rehearse-lms": run_lms_rehearsal, "rehearse-lti":
            run_lti_rehearsal, "dask-certs": run_dask_certs, "similarity": run_similarity,
            "release-lines": run_release_lines, **SERVICE_COMMANDS, **LTI_COMMANDS,
            **PUBLISH_COMMANDS, **TERM_COMMANDS, **EXPLAIN_COMMANDS, **RECORDING_COMMANDS,
            "serve": serving_with({GRADE_PUSH_PLATFORM.name: push_grades, "lti": lti_push})}
