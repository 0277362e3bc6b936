"""The course page over HTTP: each student's hand-ins and feedback, and the way to their panel.

    c.HubTransport.transport = "http"      # in the course's nbgrader_config.py

`python -m grader page` then serves page.py's page with the feedback on it, and the
API (page_api.py) that each student's own server calls. The page never reaches into a
student's server: Get, Check my notebook, Hand in and Put the feedback in my server are
the buttons of the student's hand-in panel, which runs in the student's own server as
the student (grader.student_server) and calls the API with that server's own token;
the page links it. Who asks is the hub's login (HubOAuth) or the token's owner, never
anything a form or a request says. Only the members of the course's students' hub
group act (``c.HubTransport.students_group``); the members of its instructors' hub
group see every student's hand-ins and feedback (?student=ID). A refused request says
why; nothing is stored and no check spent.
"""

import os
import urllib.parse

from tornado import web

from ...settings import HubTransport, Settings
from .actions import released_feedback
from .page import STYLE, PageHandler, RegradeHandler, is_instructor
from ..queue.store import Store

PANEL = "course-hand-in"  # the panel's path on a student's server (grader.student_server)
FEEDBACK_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                   "sandbox")  # nbconvert's page: its styles and images, none of its scripts


class HttpPageHandler(PageHandler):
    def initialize(self, settings: Settings, store: Store, instructors: str,
                   transport: HubTransport) -> None:
        super().initialize(settings, store, instructors)
        self.transport = transport

    def in_group(self, group: str) -> bool:
        return group in (self.current_user or {}).get("groups", [])

    def is_course_instructor(self) -> bool:
        group = self.transport.instructors_group
        return (self.in_group(group) if group
                else is_instructor(self.current_user["name"], self.instructors))

    def is_course_student(self) -> bool:
        group = self.transport.students_group
        return not group or self.in_group(group)

    def student(self) -> str:
        user = self.current_user["name"]
        asked = self.get_argument("student", user)
        if asked != user and not self.is_course_instructor():
            raise web.HTTPError(403, "a student sees only their own hand-ins")
        if asked == user and not (self.is_course_student() or self.is_course_instructor()):
            raise web.HTTPError(403, f"{user} is not among the students of this course (the "
                                f"hub group {self.transport.students_group}); ask your "
                                "instructor")
        return asked

    def over_http(self, student: str) -> tuple[dict[str, list[str]] | None, str]:
        feedback = {}
        for assignment in self.course.assignments:
            given = released_feedback(self.course, self.store, student, assignment)
            if given is not None:
                feedback[assignment] = sorted(given[1])
        return feedback, panel_link(self.current_user["name"]) \
            if student == self.current_user["name"] and self.is_course_student() else ""

    def write_error(self, status_code: int, **kwargs: object) -> None:
        """A refusal says why, in a page of its own (tornado's says only the status)."""
        error = kwargs.get("exc_info", (None, None, None))[1]
        why = getattr(error, "log_message", None) or self._reason
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>'
                    f"Refused</title><style>{STYLE}</style></head><body><main><h1>Refused "
                    f'({status_code})</h1><p role="alert">{web.escape.xhtml_escape(why)}; '
                    "nothing was done</p></main></body></html>")


class HttpRegradeHandler(HttpPageHandler, RegradeHandler):
    """"Ask for a regrade" over HTTP: only the course's students' hub group asks."""

    def may_ask(self) -> bool:
        return self.is_course_student()


class FeedbackHandler(HttpPageHandler):
    """A feedback page given out to the student (or shown to an instructor)."""

    @web.authenticated
    def get(self, assignment: str, notebook: str) -> None:
        student = self.student()
        if assignment not in self.course.assignments:
            raise web.HTTPError(404, "no such assignment")
        given = released_feedback(self.course, self.store, student, assignment)
        if given is None or notebook not in given[1]:
            raise web.HTTPError(404, f"no feedback of {assignment} for {student} yet: it is "
                                "given out at the due date")
        with open(given[1][notebook], "rb") as handle:
            content = handle.read()
        self.set_header("Content-Security-Policy", FEEDBACK_POLICY)
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.write(content)


def panel_link(user: str) -> str:
    """The link from the course page to the student's hand-in panel in their own server."""
    hub = os.environ.get("JUPYTERHUB_BASE_URL", "/")
    service = os.environ.get("JUPYTERHUB_SERVICE_NAME", "grading")
    href = (f"{hub}user/{urllib.parse.quote(user, safe='')}/{PANEL}/"
            f"{urllib.parse.quote(service, safe='')}/")
    return (f'<p>Get, check and hand in from your own server: <a href="{href}">my hand-in '
            "panel</a> (the hub starts your server first if it is not running).</p>")
