"""The page's API for the students' own servers: the course over HTTP, student side first.

    GET  PREFIX/api/assignments             what the panel lists: each assignment's notebooks
    GET  PREFIX/api/released/ASSIGNMENT     the released notebooks, base64
    POST PREFIX/api/check/ASSIGNMENT        {"notebooks": {NAME.ipynb: base64}}: checked
    POST PREFIX/api/hand-in/ASSIGNMENT      the same, recorded as the hand-in
    GET  PREFIX/api/feedback/ASSIGNMENT     the feedback pages given out, base64

The caller is a student's own Jupyter server (its hand-in panel, grader.student_server),
with the server's own hub token (JUPYTERHUB_API_TOKEN, ``access:services`` on this page),
and the page acts for that token's owner and no one else: no name in a request is read.
A request authenticated by a cookie (a browser, another site's form) is refused: only a
token, which no other site can make a browser send, reaches these routes. The page sends
no credential anywhere and opens no connection to a student's server. Each answer is
JSON; a refusal is {"message": the sentence the student is shown} with its status.
"""

import base64
import binascii
import json
import os

from jupyterhub.services.auth import HubOAuthCallbackHandler
from tornado import ioloop, web

from ...plan import MAX_NOTEBOOK_BYTES
from ...settings import HubTransport, Settings
from . import actions
from .actions import (PageOutcome, SavedIn, Sent, notebook_names, released_feedback,
                      released_notebooks)
from .page_http import FeedbackHandler, HttpPageHandler, HttpRegradeHandler
from ..queue.store import Store


def encoded(files: dict[str, bytes]) -> dict[str, str]:
    return {name: base64.b64encode(content).decode("ascii") for name, content in files.items()}


class ApiHandler(HttpPageHandler):
    """A route of the API: a student of the course, authenticated by their own token."""

    def check_xsrf_cookie(self) -> None:
        """No form posts here: a request carries a token in its Authorization header (which
        no other site can make a browser send), or it is refused before anything is read."""
        if not self.hub_auth.get_token(self, in_cookie=False):
            raise web.HTTPError(403, "the page's API answers a student's own server, with "
                                "its token; in a browser, use the course page")

    def api_student(self) -> str:
        if not getattr(self, "_token_authenticated", False):
            raise web.HTTPError(403, "the page's API answers a student's own server, with "
                                "its token; in a browser, use the course page")
        user = self.current_user["name"]
        if not self.is_course_student():
            raise web.HTTPError(403, f"{user} is not among the students of this course (the "
                                f"hub group {self.transport.students_group})")
        return user

    def known(self, assignment: str) -> str:
        if assignment not in self.course.assignments:
            raise web.HTTPError(404, f"this course has no assignment {assignment!r}")
        return assignment

    def answer(self, content: dict, status: int = 200) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(content))

    def write_error(self, status_code: int, exc_info: tuple | None = None) -> None:
        why = getattr((exc_info or (None, None))[1], "log_message", None) or self._reason
        self.answer({"message": f"{why}; nothing was done"}, status_code)


class AssignmentsHandler(ApiHandler):
    @web.authenticated
    def get(self) -> None:
        student = self.api_student()
        listed = []
        for assignment in self.course.assignments:
            listed.append({
                "name": assignment,
                "notebooks": [f"{name}.ipynb" for name in notebook_names(self.course,
                                                                         assignment)],
                "released": released_notebooks(self.course, assignment) is not None,
                "feedback": released_feedback(self.course, self.store, student,
                                              assignment) is not None})
        self.answer({"student": student, "max_bytes": MAX_NOTEBOOK_BYTES,
                     "assignments": listed})


class ReleasedHandler(ApiHandler):
    @web.authenticated
    def get(self, assignment: str) -> None:
        self.api_student()
        given = actions.get(self.course, self.known(assignment))
        if given.outcome == PageOutcome.NOT_YET:
            raise web.HTTPError(404, given.sentence)
        self.answer({"notebooks": encoded(given.files)})


class SentHandler(ApiHandler):
    """Check my notebook, or Hand in: the notebooks the student's server read and sent."""

    def initialize(self, settings: Settings, store: Store, instructors: str,
                   transport: HubTransport, action: str = "") -> None:
        super().initialize(settings, store, instructors, transport)
        self.action = action

    @web.authenticated
    def post(self, assignment: str) -> None:
        student = self.api_student()
        self.known(assignment)
        try:
            sent = json.loads(self.request.body).get("notebooks")
            files = {str(name): base64.b64decode(content, validate=True)
                     for name, content in sent.items()}
        except (ValueError, AttributeError, TypeError, binascii.Error):
            raise web.HTTPError(400, "the request holds no notebooks as the panel sends "
                                "them") from None
        act = actions.check if self.action == "check" else actions.hand_in
        answer = act(self.course, self.store, student, assignment, Sent(files, SavedIn.SERVER))
        self.answer({"message": answer.sentence})


class FeedbackApiHandler(ApiHandler):
    @web.authenticated
    def get(self, assignment: str) -> None:
        student = self.api_student()
        given = actions.feedback(self.course, self.store, student, self.known(assignment))
        if given.outcome == PageOutcome.NOT_YET:
            raise web.HTTPError(404, given.sentence)
        self.answer({"hand_in": given.hand_in, "pages": encoded(given.files)})


def api_routes(prefix: str, options: dict) -> list[tuple]:
    """The API's routes under the page's `prefix`, with the page's handler `options`."""
    name = r"([A-Za-z0-9][A-Za-z0-9_.-]*)"
    return [(prefix + "api/assignments", AssignmentsHandler, options),
            (prefix + f"api/released/{name}", ReleasedHandler, options),
            (prefix + f"api/check/{name}", SentHandler, dict(options, action="check")),
            (prefix + f"api/hand-in/{name}", SentHandler, dict(options, action="hand-in")),
            (prefix + f"api/feedback/{name}", FeedbackApiHandler, options)]


def serve_http_page(settings: Settings, store: Store, port: int, instructors: str,
                    address: str = "127.0.0.1") -> None:
    """The course page over HTTP and its API on `address` (127.0.0.1 unless told; 0.0.0.0
    in a pod of its own) under the hub's prefix, until stopped."""
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/grading/")
    options = {"settings": settings, "store": store, "instructors": instructors,
               "transport": HubTransport(config=settings.config)}
    app = web.Application([
        (prefix, HttpPageHandler, options),
        *api_routes(prefix, options),
        (prefix + "regrade", HttpRegradeHandler, options),
        (prefix + r"feedback/([^/]+)/([^/]+)\.html", FeedbackHandler, options),
        (prefix + "oauth_callback", HubOAuthCallbackHandler),
    ], cookie_secret=os.urandom(32), xsrf_cookies=True)
    app.listen(port, address=address)
    ioloop.IOLoop.current().start()
