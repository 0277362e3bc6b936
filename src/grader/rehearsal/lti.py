"""The rehearsal of a class whose LMS is an LTI 1.3 platform, started here on 127.0.0.1.

    make rehearse-lti
    python -m grader rehearse-lti [--folder DIR] [--assignment NAME ...]

The class of the LMS rehearsal (lms.py: alice, bob, carol, dave; a Canvas
export gives the roster, a Canvas download the hand-ins), in a copy of the
course in course-data/rehearsal-lti/course, with a platform of its own
(lti_platform.py) and the tool's own pages (its login and launch URLs):

    platform started, tool registered (make lti-keys; its JWKS given to the platform)
    -> alice launches: login initiation -> authorization -> id_token posted to the
       tool's launch URL, checked by the tool (pylti1p3)
    -> make lti-roster (NRPS) -> release, hand-in, collect-zip, extensions, autograde,
       grades -> make lti-push (AGS) for each assignment, then again (nothing posted)
    -> the platform's recorded scores beside the gradebook's

Only alice launches: the others are pushed without ever opening the tool. Any
difference between the platform's scores and the gradebook's is a RehearsalError.
"""

import dataclasses
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import requests

from ..reports import number, read_grades
from ..settings import load
from .common import RehearsalError, answered_copy, course_copy, environment, run_step
from .lms import EXTENSIONS, REHEARSAL_LMS, STUDENTS, canvas_download, canvas_export
from .lti_platform import INSTRUCTOR, STOP_POLL_SECONDS, LtiPlatform, auth_form_fields

LAUNCHING = "alice"  # the one student who opens the tool from the LMS


class LaunchingTool(Protocol):
    """The tool's side of a launch (grader.lti.launch.ToolLaunch)."""

    def login(self, params: dict[str, str]) -> str: ...

    def launch(self, form: dict[str, str]) -> Any: ...


class ToolSite:
    """The tool's login and launch URLs on 127.0.0.1, in front of a `LaunchingTool`."""

    def __init__(self) -> None:
        self.tool: LaunchingTool | None = None
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                params = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query).items()}
                if urlsplit(self.path).path != "/lti/login" or site.tool is None:
                    return self.answer(404, "no such page")
                try:
                    address = site.tool.login(params)
                except Exception as error:  # noqa: BLE001 (the tool's refusal, shown)
                    return self.answer(403, str(error))
                self.send_response(302)
                self.send_header("Location", address)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                if self.path != "/lti/launch" or site.tool is None:
                    return self.answer(404, "no such page")
                try:
                    launched = site.tool.launch(form)
                except Exception as error:  # noqa: BLE001 (the tool's refusal, shown)
                    return self.answer(403, str(error))
                self.answer(200, json.dumps(dataclasses.asdict(launched)))

            def answer(self, status: int, text: str) -> None:
                data = text.encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(STOP_POLL_SECONDS,),
                         daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def launch_in_browser(site: ToolSite, platform: LtiPlatform, user_id: str) -> dict[str, Any]:
    """A browser's launch of `user_id`: the login initiation to the tool, its redirect to
    the platform's authorization, the form that posts the id_token to the launch URL."""
    browser = requests.Session()
    page = browser.get(site.url + "/lti/login", params=platform.login_initiation(user_id),
                       timeout=30)
    if page.status_code != 200:
        raise RehearsalError(f"the login of {user_id} failed ({page.status_code}): {page.text}")
    launched = browser.post(site.url + "/lti/launch", data=auth_form_fields(page.text),
                            timeout=30)
    if launched.status_code != 200:
        raise RehearsalError(f"the launch of {user_id} was refused ({launched.status_code}): "
                             f"{launched.text}")
    return launched.json()


def user_id_of(student: str) -> str:
    return f"lti-{STUDENTS[student][2]}"


def class_on(platform: LtiPlatform) -> None:
    """The class as the platform knows it: the four students and their instructor."""
    known = {m["user_id"] for m in platform.members}
    for student, (first, last, canvas_id, _, _) in STUDENTS.items():
        if user_id_of(student) not in known:
            platform.add_member(user_id_of(student), first, last, f"{student}@example.edu")
            platform.members[-1]["lis_person_sourcedid"] = str(canvas_id + 50000)
    if "lti-instructor" not in known:
        platform.add_member("lti-instructor", "Ines", "Instructor", "ines@example.edu",
                            role=INSTRUCTOR)


def score_table(course_dir: str, platform: LtiPlatform, assignments: list[str]
                ) -> tuple[list[str], int]:
    """(the platform's recorded scores beside the gradebook's, how many differ)."""
    settings = load(course_dir)
    people, graded = read_grades(settings, assignments)
    rows = [["assignment", "student", "LTI user id", "gradebook", "platform", ""]]
    differ = 0
    for grades in graded:
        items = [n for n, item in platform.line_items.items()
                 if item.get("resourceId") == grades.name]
        recorded = platform.results_of(items[0]) if len(items) == 1 else {}
        if len(items) != 1:
            rows.append([grades.name, "-", "-", "-", "-", f"{len(items)} line items"])
            differ += 1
        for student in sorted(people):
            user_id = people[student].lti_user_id
            score = recorded.get(user_id, {}).get("scoreGiven")
            same = score is not None and abs(score - grades.score_of(student)) < 1e-9
            differ += not same
            rows.append([grades.name, student, user_id or "-", number(grades.score_of(student)),
                         "-" if score is None else number(score), "" if same else "DIFFERENT"])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows], differ


def rehearse_lti(repository: str, folder: str, assignments: list[str] | None,
                 tool_of_course: Callable[[str], LaunchingTool], platform: LtiPlatform | None = None
                 ) -> dict[str, Any]:
    """Runs the LTI rehearsal (its own platform unless `platform` is given; the tool's side
    `tool_of_course(course folder)`); returns what happened and where it is."""
    folder = os.path.abspath(folder)
    course_dir, work = course_copy(repository, folder), os.path.join(folder, "students")
    assignments = assignments or load(course_dir).assignments
    load(course_dir).check_assignments(assignments)
    own = platform is None
    platform = (platform or LtiPlatform().start())
    site = ToolSite()
    try:
        return rehearse_with(platform, site, course_dir, work, folder, assignments,
                             tool_of_course)
    finally:
        site.stop()
        if own:
            platform.stop()


def rehearse_with(platform: LtiPlatform, site: ToolSite, course_dir: str, work: str,
                  folder: str, assignments: list[str], tool_of_course: Callable[[str], LaunchingTool]) -> dict[str, Any]:
    env = environment()
    nbgrader = [sys.executable, "-m", "nbgrader"]
    grader = [sys.executable, "-m", "grader"]

    def step(args: list[str], what: str) -> str:
        return run_step(args, course_dir, env, what).stdout

    print(f"LTI rehearsal in {folder}: a platform at {platform.url}, the tool at {site.url}",
          flush=True)
    with open(os.path.join(course_dir, "nbgrader_config.py"), "a", encoding="utf-8") as config:
        config.write("\n# the rehearsal's LTI 1.3 platform\n" + "".join(
            f"c.LtiTool.{name} = {value!r}\n" for name, value in {
                **platform.settings, "launch_url": site.url + "/lti/launch",
                "backoff_seconds": 0.05}.items()))
    step(grader + ["lti-keys"], "make lti-keys")
    with open(os.path.join(course_dir, "course-data", "lti", "jwks.json"),
              encoding="utf-8") as handle:
        platform.register_tool(site.url + "/lti/launch", json.load(handle))
    class_on(platform)
    site.tool = tool_of_course(course_dir)
    launched = launch_in_browser(site, platform, user_id_of(LAUNCHING))
    print(f"  {LAUNCHING} launched the tool: checked by the tool, LTI user id "
          f"{launched['user_id']}", flush=True)

    print("the instructor imports the class, takes the platform's roster and releases",
          flush=True)
    export_name = f"{REHEARSAL_LMS.name}-gradebook-export.csv"
    export = os.path.join(folder, export_name)
    canvas_export(export, assignments)
    step(grader + ["roster", export], f"make roster ROSTER={export_name}")
    roster = step(grader + ["lti-roster"], "make lti-roster")
    due = "2026-03-02 17:00:00 UTC"
    for assignment in assignments:
        step(nbgrader + ["generate_assignment", assignment, "--force"],
             f"make release ASSIGNMENT={assignment}")
        step(grader + ["due", assignment, due], f'  due date "{due}"')

    print("the students answer and hand in; the instructor collects and grades", flush=True)
    for assignment in assignments:
        for student, (_, _, _, kind, _) in STUDENTS.items():
            answered_copy(course_dir, assignment, os.path.join(work, student, assignment), kind)
        download = os.path.join(folder, f"submissions-{assignment}.zip")
        canvas_download(download, course_dir, work, assignment)
        step(grader + ["collect-zip", assignment, download, "--lms", REHEARSAL_LMS.name],
             f"make collect-zip ASSIGNMENT={assignment}")
    extensions = os.path.join(course_dir, "extensions.csv")
    with open(extensions, "w", encoding="utf-8") as handle:
        handle.write("student_id,assignment,extra_hours,note\n" + "".join(
            f"{s},{a},{hours},{note}\n" for s, hours, note in EXTENSIONS for a in assignments))
    step(grader + ["extensions", extensions], "make extensions")
    for assignment in assignments:
        step(grader + ["autograde", assignment, "--jobs", str(min(2, os.cpu_count() or 1))],
             f"make autograde ASSIGNMENT={assignment}")
    step(grader + ["grades"] + assignments, "make grades")

    print("the scores go to the platform (AGS)", flush=True)
    pushed = {a: step(grader + ["lti-push", a], f"make lti-push ASSIGNMENT={a}")
              for a in assignments}
    again = {a: step(grader + ["lti-push", a], f"make lti-push ASSIGNMENT={a} (again)")
             for a in assignments}
    for assignment in assignments:
        print(f"  {assignment}: {pushed[assignment].splitlines()[-1]}; again: "
              f"{again[assignment].splitlines()[-1]}", flush=True)
    lines, differ = score_table(course_dir, platform, assignments)
    print("\nthe platform's recorded scores beside the gradebook's:")
    for line in lines:
        print("  " + line)
    if differ:
        raise RehearsalError(f"{differ} score(s) on the platform differ from the gradebook's")
    print(f"\nall {len(lines) - 1} scores match; the course is in {course_dir}")
    return {"folder": folder, "course": course_dir, "assignments": assignments,
            "launched": launched, "roster": roster, "pushed": pushed, "again": again,
            "table": lines}
