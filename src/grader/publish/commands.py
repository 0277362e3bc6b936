"""The publishing commands, added to ``python -m grader`` by cli.py (docs/publishing.md):

    python -m grader publish [--site DIR] [--to DIR]       the bundle, _publish/ (make publish)
    python -m grader leak-scan [FOLDER]                    a folder searched for every solution,
                                                           hidden test and rubric text (exit 1
                                                           if found)
    python -m grader publish-repo REMOTE [--branch NAME]   the bundle committed to a separate
                                                           public repository (make publish-repo)
    python -m grader release-solutions ASSIGNMENT [--site DIR] [--despite-open-students IDS]
                                                           its solutions into the bundle once
                                                           no student can still earn points
                                                           on it (or despite those named)
"""

import argparse
import os
import sys

from ..settings import Settings, load
from ..settings.release_lines import no_install_line_warning
from .bundle import BUNDLE_FOLDER, Bundle, bundle_fragments, leak_report, write_bundle
from .bundle_repository import publish_repository
from .leak_scan import scan_folder
from .scan_record import clean_files
from ..recording.points_windows import when_text
from ..recording.solutions_record import RECORD_FILE, record_release
from .solutions_policy import (assignments_with_public_solutions, check_solutions_may_go_out,
                               named_students)

SITE_FOLDER = os.path.join("_build", "html")


def course_settings(args: argparse.Namespace) -> Settings:
    """The course's settings, with the configuration's warnings printed."""
    settings = load(args.course)
    for warning in settings.warnings:
        print(warning, file=sys.stderr)
    return settings


def add_publish_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                         ) -> None:
    site_help = f"the built site (default: {SITE_FOLDER} of the course, make book's)"
    publish = commands.add_parser("publish", help="the course's public bundle: site, released "
                                  "notebooks, the students' wheel (docs/publishing.md)")
    publish.add_argument("--site", default="", help=site_help)
    publish.add_argument("--to", default="", help=f"where the bundle goes (default: "
                         f"{BUNDLE_FOLDER} of the course; replaced whole)")
    scan = commands.add_parser("leak-scan", help="search every file of a folder, decoded, for "
                               "the solutions and hidden tests of solutions/ and the texts of "
                               "rubrics/")
    scan.add_argument("folder", nargs="?", default="",
                      help=f"the folder (default: {BUNDLE_FOLDER} of the course)")
    repository = commands.add_parser("publish-repo", help="commit the bundle to a separate "
                                     "public git repository or branch")
    repository.add_argument("remote", help="the git repository's URL or path")
    repository.add_argument("--branch", default="main", help="its branch (default main)")
    solutions = commands.add_parser("release-solutions", help="an assignment's solutions, "
                                    "hidden tests out, into the bundle once no student can "
                                    "still hand it in for points under the late policy")
    solutions.add_argument("assignment")
    solutions.add_argument("--site", default="", help=site_help)
    solutions.add_argument("--despite-open-students", default=None, metavar="IDS",
                           help="release all the same, naming exactly every student who can "
                                "still hand it in for points (comma-separated, or @file of "
                                "one id per line); recorded in " + RECORD_FILE)


def said(bundle: Bundle, settings: Settings) -> int:
    """What a bundle written holds, in a few lines; the exit status."""
    shown = os.path.relpath(bundle.folder, settings.root)
    print(f"{shown}/: the site, {sum(map(len, bundle.homework.values()))} released "
          f"notebook(s), {bundle.wheel.filename} (sha256 {bundle.wheel.sha256})"
          + (f", the solutions of {', '.join(sorted(bundle.solutions))}" if bundle.solutions
             else ""))
    print(f"the released notebooks install: {bundle.requirement}" if bundle.requirement
          else "the released notebooks have no install line (c.CourseSite.url is empty)")
    warning = no_install_line_warning(settings)
    if warning:
        print(warning, file=sys.stderr)
    return 0


def site_of(args: argparse.Namespace, settings: Settings) -> str:
    return os.path.abspath(args.site or os.path.join(settings.root, SITE_FOLDER))


def run_publish(args: argparse.Namespace) -> int:
    settings = course_settings(args)
    return said(write_bundle(settings, site_of(args, settings), args.to or None), settings)


def run_leak_scan(args: argparse.Namespace) -> int:
    settings = course_settings(args)
    folder = os.path.abspath(args.folder or os.path.join(settings.root, BUNDLE_FOLDER))
    if not os.path.isdir(folder):
        print(f"error: no folder {folder} to scan", file=sys.stderr)
        return 2
    fragments = bundle_fragments(settings, assignments_with_public_solutions(settings))
    leaks = scan_folder(folder, fragments, clean_files(settings, fragments))
    if leaks:
        print(leak_report(leaks, folder), file=sys.stderr)
        return 1
    print(f"{folder}: none of {len(fragments)} secret fragments in any file")
    return 0


def run_publish_repo(args: argparse.Namespace) -> int:
    print(publish_repository(course_settings(args), args.remote, args.branch))
    return 0


def run_release_solutions(args: argparse.Namespace) -> int:
    settings = course_settings(args)
    settings.check_assignments([args.assignment])
    despite = (None if args.despite_open_students is None
               else named_students(args.despite_open_students))
    permit = check_solutions_may_go_out(settings, args.assignment, despite_open=despite)
    bundle = write_bundle(settings, site_of(args, settings), also_released=(args.assignment,),
                          before_swap=lambda: record_release(settings, args.assignment,
                                                             permit.latest, None,
                                                             permit.open_in_words()))
    if permit.open:
        print(f"warning: the solutions of {args.assignment} went out while "
              f"{len(permit.open)} student(s) can still hand it in for points, as "
              f"--despite-open-students says: {permit.open_in_words()}", file=sys.stderr)
        print(f"the solutions of {args.assignment} are public from now on: recorded, with "
              f"the students named, in {RECORD_FILE}, which make publish reads: commit it")
    else:
        print(f"the solutions of {args.assignment} are public from now on (the last moment "
              f"anyone could earn points on it was {when_text(permit.latest)}): recorded in "
              f"{RECORD_FILE}, which make publish reads: commit it")
    return said(bundle, settings)


PUBLISH_COMMANDS = {"publish": run_publish, "leak-scan": run_leak_scan,
                    "publish-repo": run_publish_repo,
                    "release-solutions": run_release_solutions}
