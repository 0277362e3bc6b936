"""The grade push's commands, added to ``python -m grader`` by cli.py (docs/canvas.md):

    python -m grader push-grades ASSIGNMENT [--dry-run]   the push c.GradePush.plugin_class
                                                          names (Canvas's by default)
    python -m grader canvas-push ASSIGNMENT [--dry-run]   the push to Canvas, whatever is set

(``lti-push`` is the same command with the LTI wing's class, added by that wing.)
"""

import argparse
from collections.abc import Callable

from ..lms import GRADE_PUSH_COMMAND, GRADE_PUSH_DOCS, GRADE_PUSH_PLATFORM, CanvasPush
from ..settings import Settings, loaded_with_warnings, settings_help
from .canvas import CanvasGradePush
from .plugin import GradePush, configured_push, push_with

DRY_RUN_HELP = "print each student's grade now and the grade to send; write nothing"


def add_push_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    push = commands.add_parser(GRADE_PUSH_COMMAND,
                               help=f"grades and feedback summaries into "
                               f"{GRADE_PUSH_PLATFORM.title}'s gradebook ({GRADE_PUSH_DOCS})",
                               epilog=settings_help((CanvasPush,), "(or the environment)"),
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    push.add_argument("assignment")
    push.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)
    chosen = commands.add_parser("push-grades", help="grades and feedback summaries into the "
                                 "LMS's gradebook through the push c.GradePush.plugin_class "
                                 f"names (default: {GRADE_PUSH_PLATFORM.title}'s)",
                                 epilog=settings_help((GradePush,), "(the push's class)"),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    chosen.add_argument("assignment")
    chosen.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)


def pushing(choose: Callable[[Settings], GradePush], args: argparse.Namespace) -> int:
    """The push of the class `choose` gives for the course, of the command's assignment,
    its lines printed; its status."""
    settings = loaded_with_warnings(args)
    settings.check_assignments([args.assignment])
    lines, status = push_with(choose(settings), settings, args.assignment,
                              dry_run=args.dry_run)
    for line in lines:
        print(line)
    return status


def run_push(args: argparse.Namespace) -> int:
    return pushing(lambda settings: CanvasGradePush(config=settings.config), args)


def run_push_grades(args: argparse.Namespace) -> int:
    return pushing(configured_push, args)


PUSH_COMMANDS = {GRADE_PUSH_COMMAND: run_push, "push-grades": run_push_grades}
