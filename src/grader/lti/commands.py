"""The LTI commands, added to ``python -m grader`` by cli.py:

    python -m grader lti-keys                         the tool's key pair and JWKS
    python -m grader lti-roster [--dry-run]           the platform's learners (NRPS) into the
                                                      roster
    python -m grader lti-push ASSIGNMENT [--dry-run]  the grades into its gradebook (AGS)
    python -m grader rehearse-lti                     a class on a platform on 127.0.0.1
                                                      (the rehearsal is given `course_tool`)

Each reads c.LtiTool in nbgrader_config.py (docs/lti.md); `lti_check_lines` is
what ``check-config`` says of it.
"""

import argparse
import collections
import os
import sys

from ..lms import LmsRefused, LmsRequestFailed, LmsUnavailable
from ..settings import CourseError, LtiTool, Settings, load
from .ags_push import lti_push, platform_services
from .keys import KEY_SET, make_keys, read_keys
from .launch import ToolLaunch
from .nrps import learners
from .roster_sync import RosterOutcome, sync_roster
from .registration import LtiSetupError, registration_from, registration_problems


def loaded_course(args: argparse.Namespace) -> Settings:
    settings = load(args.course)
    for warning in settings.warnings:
        print(warning, file=sys.stderr)
    return settings


def add_lti_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    commands.add_parser("lti-keys", help="the LTI tool's RSA key pair and its JWKS, in "
                        "course-data/lti/ (made once)")
    settings = "settings in nbgrader_config.py (docs/lti.md):\n" + "\n".join(
        f"  c.LtiTool.{name} = {trait.default()!r}: {trait.help}"
        for name, trait in sorted(LtiTool.class_traits(config=True).items()))
    described = {"epilog": settings, "formatter_class": argparse.RawDescriptionHelpFormatter}
    roster = commands.add_parser("lti-roster", help="the LTI platform's learners (NRPS) into "
                                 "the course's roster (docs/lti.md)", **described)
    roster.add_argument("--dry-run", action="store_true",
                        help="say who would be added or updated; write nothing")
    push = commands.add_parser("lti-push", help="one assignment's grades into the LTI "
                               "platform's gradebook (AGS, docs/lti.md)", **described)
    push.add_argument("assignment")
    push.add_argument("--dry-run", action="store_true",
                      help="print each student's score now and the score to send; write "
                           "nothing")
    rehearsal = commands.add_parser("rehearse-lti", help="a whole fake class whose LMS is an "
                                    "LTI 1.3 platform started on 127.0.0.1")
    rehearsal.add_argument("--folder", default=os.path.join("course-data", "rehearsal-lti"),
                           help="where the rehearsal runs (replaced; default "
                                "course-data/rehearsal-lti)")
    rehearsal.add_argument("--assignment", action="append", default=[],
                           help="rehearse this assignment only (repeatable; default: all)")


def course_tool(course_dir: str) -> ToolLaunch:
    """The tool's side of a launch into the course at `course_dir` (its c.LtiTool and keys)."""
    settings = load(course_dir)
    try:
        registration = registration_from(settings.config, ("launch_url",))
        return ToolLaunch(registration, read_keys(os.path.join(settings.data,
                                                               registration.key_folder)))
    except LtiSetupError as error:
        raise CourseError(str(error)) from None


def lti_check_lines(settings: Settings) -> list[str]:
    """What is missing or wrong in c.LtiTool, where nbgrader_config.py sets any of it."""
    if LtiTool.__name__ not in settings.config:
        return []
    return [f"nbgrader_config.py: {problem}" for problem in
            registration_problems(settings.config)]


def run_lti_keys(args: argparse.Namespace) -> int:
    settings = loaded_course(args)
    folder = os.path.join(settings.data, LtiTool(config=settings.config).key_folder)
    keys, made = make_keys(folder)
    print(f"{'made' if made else 'kept'} the tool's key pair (kid {keys.kid}); the private "
          f"key stays in {os.path.relpath(folder, settings.root)}/, readable by you only")
    key_set = os.path.relpath(os.path.join(folder, KEY_SET), settings.root)
    print(f"give the platform the public key set: {key_set}")
    return 0


def run_lti_roster(args: argparse.Namespace) -> int:
    settings = loaded_course(args)
    services = platform_services(settings, ("memberships_url",))
    try:
        members = learners(services)
    except (LmsRefused, LmsUnavailable, LmsRequestFailed) as error:
        raise CourseError(f"{error}; nothing was written") from None
    changes, others = sync_roster(settings, members, dry_run=args.dry_run)
    width = max([len(c.student) for c in changes] + [7])
    print(f"{'student'.ljust(width)}  LTI user id  {'would be' if args.dry_run else 'done'}")
    for change in changes:
        print(f"{change.student.ljust(width)}  {change.lti_user_id}  {change.outcome_text()}")
    counts = collections.Counter(change.outcome for change in changes)
    print(f"{len(members)} learner(s) on the platform: {counts[RosterOutcome.ADDED]} added, "
          f"{counts[RosterOutcome.UPDATED]} updated, {counts[RosterOutcome.UNCHANGED]} "
          f"unchanged, {counts[RosterOutcome.NOT_TAKEN]} not taken"
          + (f", {counts[RosterOutcome.SKIPPED]} skipped" if counts[RosterOutcome.SKIPPED]
             else "")
          + f"; {others} student(s) of the roster the platform does not list, kept"
          + ("; dry run: nothing written" if args.dry_run else ""))
    return 1 if counts[RosterOutcome.NOT_TAKEN] else 0


def run_lti_push(args: argparse.Namespace) -> int:
    settings = loaded_course(args)
    settings.check_assignments([args.assignment])
    lines, status = lti_push(settings, args.assignment, dry_run=args.dry_run)
    for line in lines:
        print(line)
    return status


def run_lti_rehearsal(args: argparse.Namespace) -> int:
    from ..rehearsal.lti import rehearse_lti  # the platform's libraries: for this command only

    rehearse_lti(os.path.abspath(args.course), args.folder, args.assignment, course_tool)
    return 0


LTI_COMMANDS = {"lti-keys": run_lti_keys, "lti-roster": run_lti_roster,
                "lti-push": run_lti_push, "rehearse-lti": run_lti_rehearsal}
# what check-config says of the course's c.LtiTool (recording/commands.py asks it)
LTI_CONFIG_CHECKS = (lti_check_lines,)
