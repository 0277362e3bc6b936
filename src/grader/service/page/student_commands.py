"""The student's side of the service at the command line, as the hub's page shows it:

    python -m grader check ASSIGNMENT NOTEBOOK.ipynb... --student ID
    python -m grader student-view ASSIGNMENT --student ID [--json]
    python -m grader home-reader --socket PATH --page-account ACCOUNT   (as root)

`check` asks for a check of the notebooks (requests.ask_for_check: refused with its
reason, or queued, with the checks left); `student-view` prints the student's hand-ins
of the assignment, newest first, each check as the student sees it now; `home-reader`
is the helper that reads a saved notebook as its student for the page (home_reader.py).
"""

import argparse
import dataclasses
import json
import os
import sys

from ...safe_text import quoted, shown
from ...sandbox import require_sandbox
from ...settings import load
from .requests import HandInView, ask_for_check, student_hand_ins
from ..queue.records import JobState
from ..queue.store import course_store


def add_student_commands(commands: "argparse._SubParsersAction[argparse.ArgumentParser]"
                         ) -> None:
    check = commands.add_parser("check", help="ask the grading service to check a student's "
                                "notebooks (within the rate limit)")
    check.add_argument("assignment")
    check.add_argument("notebooks", nargs="+", metavar="NOTEBOOK.ipynb")
    check.add_argument("--student", required=True, help="whose notebooks they are")
    view = commands.add_parser("student-view", help="a student's hand-ins as they see them "
                               "now (feedback by visibility, checks left)")
    view.add_argument("assignment")
    view.add_argument("--student", required=True)
    view.add_argument("--json", action="store_true", help="the same as JSON")
    reader = commands.add_parser("home-reader", help="read a student's saved notebook as the "
                                 "student for the page of the file exchange (run as root, "
                                 "answers only the page's account)")
    reader.add_argument("--socket", required=True, help="the Unix socket it listens on")
    reader.add_argument("--page-account", required=True, metavar="ACCOUNT",
                        help="the account the page runs as, the only one answered")


def run_check(args: argparse.Namespace) -> int:
    require_sandbox()  # the service grades the check on this machine: nothing queued without it
    settings = load(args.course)
    files = {}
    for path in args.notebooks:
        try:
            with open(path, "rb") as handle:
                files[os.path.basename(path)] = handle.read()
        except OSError as error:
            print(f"error: {path} cannot be read: {error.strerror}", file=sys.stderr)
            return 2
    asked = ask_for_check(settings, course_store(settings.data, settings.db_url), args.student,
                          args.assignment, files)
    if asked.job is None:
        print(asked.refusal, file=sys.stderr)
        return 1
    state = ("not checked again: the same notebook as before"
             if asked.job.state == JobState.DUPLICATE else "queued")
    print(f"{args.student} {args.assignment}: hand-in {asked.job.id} {state}")
    if asked.allowance is not None:
        print(asked.allowance.sentence())
    return 0


def shown_score(view: HandInView) -> float | None:
    """The hand-in's score as its student may see it now: once every check shows its points
    (after the due date); None before."""
    if not view.checks or any(check.points is None for check in view.checks):
        return None
    return view.job.score


def view_record(view: HandInView) -> dict[str, object]:
    job = view.job
    score = shown_score(view)
    return {"hand_in": job.id, "kind": "check" if job.is_check else "submission",
            "state": str(job.state), "arrived": job.arrived.isoformat(),
            "score": score, "max_score": job.max_score if score is not None else None,
            "late_penalty": view.grade.penalty if view.grade and score is not None else None,
            "recorded": view.grade is not None, "note": view.note,
            "checks": [dict(dataclasses.asdict(check), visibility=str(check.visibility))
                       for check in view.checks]}


def kind_words(view: HandInView) -> str:
    """What a hand-in is, in the page's words."""
    if view.job.is_check:
        return "a check (not recorded as a grade: only Submit hands in)"
    return "handed in, the grade recorded" if view.grade is not None else "handed in"


def view_lines(view: HandInView) -> list[str]:
    job = view.job
    score = shown_score(view)
    lines = [f"hand-in {job.id}, {job.arrived:%Y-%m-%d %H:%M} UTC, {kind_words(view)}: "
             f"{job.state}" + (f" ({shown(job.reason)})" if job.reason else "")
             + (f"; score {score:g}/{job.max_score or 0:g}" if score is not None else "")]
    if view.note:
        lines.append(f"  {view.note}")
    for check in view.checks:
        if check.passed is None:
            lines.append(f"  {check.grade_id}: after the due date")
            continue
        verdict = "passed" if check.passed else "failed"
        points = "" if check.points is None else f" {check.points:g}/{check.max_points:g}"
        message = check.message.strip("\n")
        if "\n" not in message:
            lines.append(f"  {check.grade_id}: {verdict}{points}"
                         + (f": {shown(message)}" if message else ""))
            continue
        lines.append(f"  {check.grade_id}: {verdict}{points}:")
        lines += quoted(message, "the whole message: student-view --json", mark="    \u2502 ")
    return lines


def run_student_view(args: argparse.Namespace) -> int:
    settings = load(args.course)
    store = course_store(settings.data, settings.db_url)
    views, left = student_hand_ins(settings, store, args.student, args.assignment)
    if args.json:
        print(json.dumps({"hand_ins": [view_record(v) for v in views],
                          "checks_left": left.remaining,
                          "next_allowed": left.next_allowed and left.next_allowed.isoformat(),
                          "limit": left.sentence()}, indent=1))
        return 0
    for view in views:
        print("\n".join(view_lines(view)))
    print(left.sentence())
    return 0


def run_home_reader(args: argparse.Namespace) -> int:
    from .home_reader import serve_home_reader  # only for the helper

    serve_home_reader(load(args.course), args.socket, args.page_account)
    return 0


STUDENT_COMMANDS = {"check": run_check, "student-view": run_student_view,
                    "home-reader": run_home_reader}
