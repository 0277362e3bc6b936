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
    python -m grader push-grades ASSIGNMENT [--dry-run]
    python -m grader lti-keys
    python -m grader lti-roster [--dry-run]
    python -m grader lti-push ASSIGNMENT [--dry-run]
    python -m grader rehearse-lti [--folder DIR] [--assignment NAME ...]
    python -m grader serve [--workers N | --scheduler ADDRESS] [--lease SECONDS]
    python -m grader queue [--json] [--status]
    python -m grader page [--port PORT] [--instructors GROUP]
    python -m grader check ASSIGNMENT NOTEBOOK.ipynb ... --student ID
    python -m grader student-view ASSIGNMENT --student ID [--json]
    python -m grader home-reader --socket PATH --page-account ACCOUNT
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
    python -m grader grading-page [--port PORT] [--hub GROUP]

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
docs/canvas.md), and `push-grades` does the same through the push that
c.GradePush.plugin_class names (grader/push/plugin.py). `serve` grades each hand-in as it arrives (the exchange's inbound folder,
read every second, and the service's queue) until SIGTERM or Ctrl-C, recording each in the
gradebook as it is graded (grader/service/); `queue` lists every hand-in the service knows,
with its state and score (--json: a list of objects); `check` asks the service for a check
of a student's notebooks within the rate limit (c.CheckRateLimit), and `student-view` prints
that student's hand-ins as they see them now, each check by its visibility (c.CheckFeedback;
grader/service/page/student_commands.py); `page` serves the students' page of the service on the
hub (grader/service/page/page.py), and `home-reader` reads a student's saved notebook as the
student for it, so that it runs without root. `new-term`, `archive-term` and `restore-term`
carry a course to its next term and keep a finished one (grader/terms/, docs/terms.md).

Exit status: 0 when every submission was processed, whatever the students handed in (a
submission that cannot be graded is reported, not fatal); 1 if the grader itself failed on a
submission (reported for that student, the others are still graded), if canvas-push could
not write a student's grade (the others are pushed; run it again), or if collect-zip refused
a student's files that two of the LMS's people match (the others are collected); 2 for the
instructor's own errors (bad configuration, unknown assignment, unreadable course files, no
sandbox), with a message saying what to fix.

Each wing adds its own commands (`WINGS`: its module, the function that adds their parsers,
the table of their runs, and their names); this module only puts them together. A command
imports its own wing and no other: every wing's imports (nbgrader, JupyterHub, the LTI
libraries) cost each command a second, and check-config alone runs before every make
target. `--help`, or a command no wing adds, builds them all.
"""

import argparse
import importlib
import sys
from typing import TYPE_CHECKING, NamedTuple

from .lms import GRADE_PUSH_COMMAND

if TYPE_CHECKING:  # for the annotation only: the settings load with the command's wing
    from .settings import Settings


class Wing(NamedTuple):
    module: str  # the wing's module of commands
    add_commands: str  # its function that adds the commands' parsers
    runs: str  # its table of the commands' runs by name
    commands: tuple[str, ...]  # what it adds, in the order of --help


WINGS = (
    Wing("grader.autograde", "add_autograde_command", "AUTOGRADE_COMMANDS", ("autograde",)),
    Wing("grader.reports.commands", "add_report_commands", "REPORT_COMMANDS",
         ("summary", "roster", "grades", "item-analysis")),
    Wing("grader.recording.commands", "add_recording_commands", "RECORDING_COMMANDS",
         ("check-config", "due", "release-lines", "apply-late-policy")),
    Wing("grader.handback.commands", "add_handback_commands", "HANDBACK_COMMANDS",
         ("release-feedback", "feedback-zip")),
    Wing("grader.rehearsal.commands", "add_rehearsal_commands", "REHEARSAL_COMMANDS",
         ("rehearse", "rehearse-lms")),
    Wing("grader.similarity.commands", "add_similarity_commands", "SIMILARITY_COMMANDS",
         ("similarity",)),
    Wing("grader.push.commands", "add_push_commands", "PUSH_COMMANDS",
         (GRADE_PUSH_COMMAND, "push-grades")),
    Wing("grader.regrade.commands", "add_regrade_commands", "REGRADE_COMMANDS", ("regrade",)),
    Wing("grader.dask_tls", "add_dask_commands", "DASK_COMMANDS", ("dask-certs",)),
    Wing("grader.service.commands", "add_service_commands", "SERVICE_COMMANDS",
         ("serve", "queue", "page", "extensions", "check", "student-view", "home-reader",
          "collect-zip")),
    Wing("grader.lti.commands", "add_lti_commands", "LTI_COMMANDS",
         ("lti-keys", "lti-roster", "lti-push", "rehearse-lti")),
    Wing("grader.publish.commands", "add_publish_commands", "PUBLISH_COMMANDS",
         ("publish", "leak-scan", "publish-repo", "release-solutions")),
    Wing("grader.terms.commands", "add_term_commands", "TERM_COMMANDS",
         ("new-term", "archive-term", "restore-term")),
    Wing("grader.explain.commands", "add_explain_commands", "EXPLAIN_COMMANDS",
         ("grade-explain", "defense-questions")),
    Wing("grader.grading_page.commands", "add_grading_page_commands", "GRADING_PAGE_COMMANDS",
         ("grading-page",)),
)
# the errors that are the instructor's to fix (exit 2 with the message), where they live
INSTRUCTORS_ERRORS = (("grader.settings.errors", "CourseError"),
                      ("grader.rehearsal.common", "RehearsalError"),
                      ("grader.service.queue.queue_database", "StoreError"))


def add_on_config_lines(settings: "Settings") -> list[str]:
    """What each add-on's own check says of its settings (check-config asks it)."""
    from .grading_page.config_lines import GRADING_PAGE_CONFIG_CHECKS  # by check-config only
    from .lti.commands import LTI_CONFIG_CHECKS  # (see WINGS)

    return [line for check in LTI_CONFIG_CHECKS + GRADING_PAGE_CONFIG_CHECKS
            for line in check(settings)]


def wings_for(argv: list[str]) -> tuple[Wing, ...]:
    """The wing of the command `argv` names, or every wing (--help, no command, a typo)."""
    named = next((word for word in argv if not word.startswith("-")), None)
    return tuple(wing for wing in WINGS if named in wing.commands) or WINGS


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line: every wing's commands, or with `argv` only the wing it names."""
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for wing in wings_for(argv) if argv is not None else WINGS:
        module = importlib.import_module(wing.module)
        getattr(module, wing.add_commands)(commands)
        for name, run in getattr(module, wing.runs).items():
            commands.choices[name].set_defaults(run=run)
    for command in commands.choices.values():
        command.add_argument("--course", default=".", help="course folder with nbgrader_config.py")
    parser.set_defaults(config_checks=(add_on_config_lines,))
    return parser


def instructors_errors() -> tuple[type[Exception], ...]:
    """The classes of INSTRUCTORS_ERRORS this process imported: no other can have been raised."""
    return tuple(getattr(sys.modules[module], name) for module, name in INSTRUCTORS_ERRORS
                 if module in sys.modules)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    try:
        return args.run(args)
    except Exception as error:
        if not isinstance(error, instructors_errors()):
            raise
        print(f"error: {error}", file=sys.stderr)
        return 2
