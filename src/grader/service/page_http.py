"""The course page over HTTP: Get, Check my notebook, Hand in and Feedback on the hub.

    c.HubTransport.transport = "http"      # in the course's nbgrader_config.py

`python -m grader page` then serves these handlers (page.py's page, with more on it):
each button posts to the page, which does the work through the student's own server
(over_http.py, contents.py) with the page's own token, JUPYTERHUB_API_TOKEN, which the
hub gives only to the service and which no answer of the page holds. Who asks is the
hub's login (HubOAuth) and nothing a form says: a form naming another student is
refused, as is a form that did not come from the page (tornado's _xsrf token) or a
request sent from another site (its Origin). Only the members of the course's students'
hub group act on the page (``c.HubTransport.students_group``); the members of its
instructors' hub group see every student's hand-ins and feedback (?student=ID). A
refused request says why on the page; nothing is stored and no check spent.
"""

import os
import urllib.parse

from jupyterhub.services.auth import HubOAuthCallbackHandler
from tornado import ioloop, web

from ..settings import HubTransport, Settings
from .contents import ServerRefusal, StudentServer, servers_url
from .over_http import (check_saved, feedback_to_server, get_released, hand_in_saved,
                        released_feedback)
from .page import MESSAGE_COOKIE, STYLE, PageHandler, is_instructor
from .store import Store

START_COOKIE = "grading-start"  # the last request found the student's server stopped
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
        extra = ""
        if self.get_signed_cookie(START_COOKIE):
            self.clear_cookie(START_COOKIE)
            hub = os.environ.get("JUPYTERHUB_BASE_URL", "/")
            back = urllib.parse.quote(self.request.path, safe="/")
            extra = f'<p><a href="{hub}hub/spawn?next={back}">Start my server</a></p>'
        return feedback, extra

    def write_error(self, status_code: int, **kwargs: object) -> None:
        """A refusal says why, in a page of its own (tornado's says only the status)."""
        error = kwargs.get("exc_info", (None, None, None))[1]
        why = getattr(error, "log_message", None) or self._reason
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>'
                    f"Refused</title><style>{STYLE}</style></head><body><main><h1>Refused "
                    f'({status_code})</h1><p role="alert">{web.escape.xhtml_escape(why)}; '
                    "nothing was done</p></main></body></html>")


class ActionHandler(HttpPageHandler):
    """One button of the page: get, check, hand-in or feedback, for the asker only."""

    def initialize(self, settings: Settings, store: Store, instructors: str,
                   transport: HubTransport, action: str = "") -> None:
        super().initialize(settings, store, instructors, transport)
        self.action = action

    def check_xsrf_cookie(self) -> None:
        origin = self.request.headers.get("Origin")
        if origin and urllib.parse.urlsplit(origin).netloc != self.request.host:
            raise web.HTTPError(403, f"a request sent from another site ({origin})")
        super().check_xsrf_cookie()

    @web.authenticated
    async def post(self) -> None:
        user = self.current_user["name"]
        for field in ("student", "user"):
            named = self.get_body_argument(field, user)
            if named != user:
                raise web.HTTPError(403, f"the form names {named}, but you are logged in as "
                                    f"{user}: the page acts only for who is logged in")
        if not self.is_course_student():
            raise web.HTTPError(403, f"{user} is not among the students of this course (the "
                                f"hub group {self.transport.students_group})")
        assignment = self.get_body_argument("assignment", "")
        if assignment not in self.course.assignments:
            raise web.HTTPError(400, "no such assignment")
        token = os.environ.get("JUPYTERHUB_API_TOKEN", "")
        try:
            server = StudentServer(servers_url(self.transport.servers_url),
                                   os.environ.get("JUPYTERHUB_BASE_URL", "/"), user, token,
                                   self.transport.timeout_seconds)
            message = await ioloop.IOLoop.current().run_in_executor(
                None, self.act, server, user, assignment)
        except ServerRefusal as refusal:
            message = f"{self.action}: not done: {refusal}"
            if refusal.not_running:
                self.set_signed_cookie(START_COOKIE, "1", expires_days=None)
        self.set_signed_cookie(MESSAGE_COOKIE, message, expires_days=None)
        self.redirect(self.request.path.rsplit("/", 1)[0] + "/")

    def act(self, server: StudentServer, user: str, assignment: str) -> str:
        settings, store = self.course, self.store
        if self.action == "get":
            return get_released(settings, server, assignment)
        if self.action == "check":
            return check_saved(settings, store, server, user, assignment)
        if self.action == "hand-in":
            return hand_in_saved(settings, store, server, user, assignment)
        return feedback_to_server(settings, store, server, user, assignment)


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


def serve_http_page(settings: Settings, store: Store, port: int, instructors: str,
                    address: str = "127.0.0.1") -> None:
    """The course page over HTTP on `address` (127.0.0.1 unless told; 0.0.0.0 in a pod of its
    own) under the hub's prefix, until stopped."""
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/grading/")
    options = {"settings": settings, "store": store, "instructors": instructors,
               "transport": HubTransport(config=settings.config)}
    app = web.Application([
        (prefix, HttpPageHandler, options),
        *[(prefix + action, ActionHandler, dict(options, action=action))
          for action in ("get", "check", "hand-in", "feedback")],
        (prefix + r"feedback/([^/]+)/([^/]+)\.html", FeedbackHandler, options),
        (prefix + "oauth_callback", HubOAuthCallbackHandler),
    ], cookie_secret=os.urandom(32), xsrf_cookies=True)
    app.listen(port, address=address)
    ioloop.IOLoop.current().start()
