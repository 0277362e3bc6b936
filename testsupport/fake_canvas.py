"""A small Canvas REST API on 127.0.0.1, for the grade push's tests: the calls canvasapi makes.

    GET  /api/v1/courses/:course
    GET  /api/v1/courses/:course/assignments[/:id]
    GET  /api/v1/courses/:course/assignments/:id/submissions[/:user]
         (include[]=submission_comments)
    PUT  /api/v1/courses/:course/assignments/:id/submissions/:user
         submission[posted_grade], comment[text_comment]

It holds one course: its assignments, its students' user ids and each student's
score and comments. Lists come in pages of at most `page_size` with a `Link:
rel="next"` header, as Canvas pages them. Every write is recorded (`writes`); `fail` makes the next
requests that match answer an error status instead (429, 500, 401, ...); a
token other than the course's is answered 401, as Canvas answers an expired one.

`MemoryCourseApi` is the same course without HTTP: the grade push's `LmsCourseApi`,
answered from the same data and recording the same writes.
"""

import contextlib
import json
import os
import re
import threading
import warnings
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from grader.lms import LmsAssignment, LmsRequestFailed, LmsSubmission

ROUTE = re.compile(r"^/api/v1/courses/(?P<course>[0-9]+)"
                   r"(?:/assignments(?:/(?P<assignment>[0-9]+)"
                   r"(?:/submissions(?:/(?P<user>[0-9]+))?)?)?)?$")


@dataclass
class Write:
    """One PUT of a submission: what it sent."""

    assignment: int
    user: str
    posted_grade: str | None
    text_comment: str | None


@dataclass
class Failure:
    method: str
    status: int
    user: str | None  # None: any request of the method
    times: int
    applied: bool = False  # a write kept before the error answer (a 5xx after the work)


@dataclass
class FakeCanvas:
    """One Canvas course's gradebook, served on 127.0.0.1 by `serve`."""

    course: int
    token: str
    assignments: dict[int, dict] = field(default_factory=dict)  # id -> name, points_possible
    students: set[str] = field(default_factory=set)  # user ids enrolled
    scores: dict[tuple[int, str], float] = field(default_factory=dict)
    comments: dict[tuple[int, str], list[str]] = field(default_factory=dict)
    writes: list[Write] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path)
    failures: list[Failure] = field(default_factory=list)
    page_size: int = 50  # the most items of a list in one answer, whatever per_page asks
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, method: str, status: int, user: str | None = None, times: int = 1,
             applied: bool = False) -> None:
        """The next `times` requests of `method` (for `user`'s submission) answer `status`."""
        with self.lock:
            self.failures.append(Failure(method, status, user, times, applied))

    def submission(self, assignment: int, user: str) -> dict:
        key = (assignment, user)
        score = self.scores.get(key)
        return {"id": assignment * 1000 + int(user), "assignment_id": assignment,
                "user_id": int(user), "course_id": self.course, "score": score,
                "grade": None if score is None else f"{score:g}",
                "workflow_state": "graded" if score is not None else "unsubmitted",
                "submission_comments": [{"id": i, "comment": text, "author_id": 1}
                                        for i, text in enumerate(self.comments.get(key, []))]}

    def answer(self, method: str, path: str, query: dict, form: dict, token: str
               ) -> tuple[int, object]:
        """(status, JSON body) of one request."""
        with self.lock:
            self.requests.append((method, path))
            if token != self.token:
                return 401, {"errors": [{"message": "Invalid access token."}]}
            match = ROUTE.match(path)
            if not match or int(match["course"]) != self.course:
                return 404, {"errors": [{"message": "The specified resource does not exist."}]}
            user = match["user"]
            for failure in self.failures:
                if failure.method == method and failure.times and failure.user in (None, user):
                    failure.times -= 1
                    if failure.applied:
                        self.apply(int(match["assignment"]), user, form)
                    return failure.status, {"errors": [{"message": "failed on purpose"}]}
            if match["assignment"] is None and "/assignments" not in path:
                return 200, {"id": self.course, "name": "the course"}
            if match["assignment"] is None:
                return 200, [{"id": i, "course_id": self.course, **a}
                             for i, a in sorted(self.assignments.items())]  # paged by `page`
            assignment = int(match["assignment"])
            if assignment not in self.assignments:
                return 404, {"errors": [{"message": "The specified resource does not exist."}]}
            if not path.endswith("submissions") and user is None:
                return 200, {"id": assignment, "course_id": self.course,
                             **self.assignments[assignment]}
            if user is None:
                return 200, [self.submission(assignment, u)
                             for u in sorted(self.students, key=int)]
            if user not in self.students:
                return 404, {"errors": [{"message": "The specified resource does not exist."}]}
            if method == "PUT":
                self.apply(assignment, user, form)
            return 200, self.submission(assignment, user)

    def apply(self, assignment: int, user: str, form: dict) -> None:
        grade = form.get("submission[posted_grade]", [None])[0]
        comment = form.get("comment[text_comment]", [None])[0]
        self.writes.append(Write(assignment, user, grade, comment))
        if grade is not None:
            self.scores[(assignment, user)] = float(grade)
        if comment is not None:
            self.comments.setdefault((assignment, user), []).append(comment)


def page(items: list, path: str, query: dict, page_size: int, base: str) -> tuple[list, str]:
    """(the page of `items` the query asks for, the Link header to the next page or "")."""
    number = int(query.get("page", ["1"])[0])
    size = min(int(query.get("per_page", [str(page_size)])[0]), page_size)
    start = (number - 1) * size
    if start + size >= len(items):
        return items[start:], ""
    rest = [(k, v) for k, values in query.items() if k != "page" for v in values]
    following = urlencode(rest + [("page", number + 1)])
    return items[start:start + size], f'<{base}{path}?{following}>; rel="next"'


def handler_for(canvas: FakeCanvas) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def handle_one(self, method):
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8") if length else ""
            token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
            query = parse_qs(url.query)
            status, payload = canvas.answer(method, url.path, query, parse_qs(body), token)
            link = ""
            if isinstance(payload, list):
                payload, link = page(payload, url.path, query, canvas.page_size,
                                     f"http://{self.headers['Host']}")
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if link:
                self.send_header("Link", link)
            if status == 401 and token != canvas.token:  # a bad token, not a lack of rights
                self.send_header("WWW-Authenticate", 'Bearer realm="canvas-lms"')
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            self.handle_one("GET")

        def do_PUT(self):
            self.handle_one("PUT")

        def log_message(self, *args):
            pass

    return Handler


class Served:
    """`canvas` served on 127.0.0.1 in a thread, until `close`; `url` is its address."""

    def __init__(self, canvas: FakeCanvas):
        self.canvas = canvas
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(canvas))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@contextlib.contextmanager
def canvas_for_push(monkeypatch, folder, canvas: FakeCanvas):
    """`canvas` served, and the environment `python -m grader canvas-push` reads set to it
    for the test (`monkeypatch`), its token in a file of `folder` (mode 600): yields it."""
    served = Served(canvas)
    token_file = os.path.join(folder, "canvas-token")
    with open(token_file, "w", encoding="utf-8") as handle:
        handle.write(canvas.token)
    os.chmod(token_file, 0o600)
    monkeypatch.setenv("CANVAS_URL", served.url)
    monkeypatch.setenv("CANVAS_COURSE", str(canvas.course))
    monkeypatch.setenv("CANVAS_TOKEN_FILE", token_file)
    try:
        yield canvas
    finally:
        served.close()


def canvas_push(root: str, assignment: str) -> int:
    """`python -m grader canvas-push ASSIGNMENT` for the course at `root`: its exit status."""
    from grader.cli import main

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Canvas may respond unexpectedly")  # http: on 127.0.0.1
        return main(["canvas-push", assignment, "--course", root])


@dataclass
class MemoryCourseApi:
    """`canvas`'s course as the push's API (grader.lms.LmsCourseApi), read and written in
    this process: what Canvas's REST API answers, without HTTP (a refused token and the
    failures of `FakeCanvas.fail` are the server's to answer)."""

    canvas: FakeCanvas

    def assignments(self) -> list[LmsAssignment]:
        """Every assignment of the course."""
        return [LmsAssignment(i, a["name"], a.get("points_possible"))
                for i, a in sorted(self.canvas.assignments.items())]

    def assignment(self, assignment_id: int) -> LmsAssignment:
        """The assignment of id `assignment_id`."""
        if assignment_id not in self.canvas.assignments:
            raise LmsRequestFailed(f"assignment {assignment_id}: not found")
        found = self.canvas.assignments[assignment_id]
        return LmsAssignment(assignment_id, found["name"], found.get("points_possible"))

    def submissions(self, assignment_id: int) -> dict[str, LmsSubmission]:
        """{user id: LmsSubmission} of every student of the course in the assignment."""
        with self.canvas.lock:
            return {user: LmsSubmission(user, self.canvas.scores.get((assignment_id, user)),
                                        tuple(self.canvas.comments.get((assignment_id, user),
                                                                       [])))
                    for user in sorted(self.canvas.students, key=int)}

    def send(self, assignment_id: int, user_id: str, grade: str | None,
             comment: str | None) -> None:
        """`grade` and `comment` to the student's submission; either None: not sent."""
        if grade is None and comment is None:
            return
        form = {"submission[posted_grade]": [grade], "comment[text_comment]": [comment]}
        with self.canvas.lock:
            self.canvas.apply(assignment_id, user_id, form)

