"""A student's saved notebook read as the student, so that the page needs no root.

    python -m grader home-reader --socket PATH --page-account ACCOUNT --course COURSE

The file exchange's page (page.py) checks the notebook a student last saved in their
home, ~/ASSIGNMENT/NOTEBOOK.ipynb, which only the student (and root) may read. The page
runs as the course's own account; this helper, which the hub starts as root, does the
one read it cannot do. It listens on a Unix socket that only the page's account may open
(the socket is that account's, mode 0600, and each caller's account is checked again from
the kernel, SO_PEERCRED), takes one request per connection (a student, an assignment of
the course, its notebooks' names, as the course names them) and, in a child process that
has become the student (their uid and group, no other group), reads those files only, as
`saved_notebooks` does: regular files the student owns, no link followed, at most a
notebook's size. The helper itself opens nothing of a student's; a request for an account
that is not a person's (uid below 1000), or for a name the course does not have, is
refused, and a page that cannot reach the helper tells the student so, nothing spent.
"""

import base64
import json
import os
import pwd
import socket
import socketserver
import struct

from ...plan import MAX_NOTEBOOK_BYTES
from ...settings import Settings
from .saved import saved_notebooks

FIRST_PERSON_UID = 1000  # below it, the system's accounts (root is 0): never read as
REQUEST_BYTES = 4096  # one request: a name, an assignment, its notebooks' names
READ_SECONDS = 30.0  # the page waits this long for the helper's answer


class HomeReader(socketserver.ForkingMixIn, socketserver.UnixStreamServer):
    """The helper: one forked child per request, which becomes the student to read."""

    def __init__(self, path: str, page_uid: int, notebooks: dict[str, list[str]]) -> None:
        self.page_uid, self.notebooks = page_uid, notebooks
        os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o755, exist_ok=True)
        if os.path.exists(path):
            os.remove(path)  # a socket left by a helper that stopped
        super().__init__(path, ReadRequest)
        os.chmod(path, 0o600)
        if os.geteuid() == 0:
            os.chown(path, page_uid, -1)


def refused(why: str) -> dict[str, object]:
    return {"files": {}, "problems": [why]}


class ReadRequest(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        """Runs in the forked child: checks the caller and the request, becomes the
        student, reads the named notebooks, answers in one JSON line."""
        self.wfile.write(json.dumps(self.answer()).encode("utf-8") + b"\n")

    def answer(self) -> dict[str, object]:
        server: HomeReader = self.server  # type: ignore[assignment]
        credentials = self.request.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                              struct.calcsize("3i"))
        _, uid, _ = struct.unpack("3i", credentials)
        if uid != server.page_uid:
            return refused("the home reader answers the students' page only")
        try:
            request = json.loads(self.rfile.readline(REQUEST_BYTES))
            student, assignment = str(request["student"]), str(request["assignment"])
            names = [str(name) for name in request["notebooks"]]
        except (ValueError, KeyError, TypeError):
            return refused("the home reader was sent no request it reads")
        known = server.notebooks.get(assignment)
        if known is None or not names or not set(names) <= set(known):
            return refused(f"the course has no notebooks {names} of {assignment!r}")
        try:
            account = pwd.getpwnam(student)
        except KeyError:  # said by saved_notebooks, which reads nothing then
            return wire(*saved_notebooks(student, assignment, names))
        if account.pw_uid < FIRST_PERSON_UID:
            return refused(f"{student} is a system account, not a student's")
        if os.geteuid() != account.pw_uid:
            os.setgroups([])
            os.setgid(account.pw_gid)
            os.setuid(account.pw_uid)  # from here on, only what the student may read
        return wire(*saved_notebooks(student, assignment, names))


def wire(files: dict[str, bytes], problems: list[str]) -> dict[str, object]:
    return {"files": {name: base64.b64encode(content).decode("ascii")
                      for name, content in files.items()}, "problems": problems}


def course_notebooks(settings: Settings) -> dict[str, list[str]]:
    return {assignment: sorted(settings.instructor_notebooks(assignment))
            for assignment in settings.assignments}


def serve_home_reader(settings: Settings, path: str, page_account: str) -> None:
    """Answer the page's account on the socket `path` until stopped."""
    HomeReader(path, pwd.getpwnam(page_account).pw_uid,
               course_notebooks(settings)).serve_forever()


def read_as_student(path: str, student: str, assignment: str, notebooks: list[str]
                    ) -> tuple[dict[str, bytes], list[str]]:
    """What `saved_notebooks` says of the student's saved notebooks, asked of the helper on
    the socket `path`; a helper that does not answer is named, nothing read."""
    request = json.dumps({"student": student, "assignment": assignment,
                          "notebooks": notebooks}).encode("utf-8") + b"\n"
    largest = 2 * len(notebooks) * (MAX_NOTEBOOK_BYTES + 1) + REQUEST_BYTES  # base64, JSON
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(READ_SECONDS)
            connection.connect(path)
            connection.sendall(request)
            with connection.makefile("rb") as answer:
                given = json.loads(answer.readline(largest))
        files = {str(name): base64.b64decode(content)
                 for name, content in given["files"].items()}
        return files, [str(problem) for problem in given["problems"]]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        why = getattr(error, "strerror", None) or type(error).__name__
        return {}, [f"your saved notebook cannot be read now: the page's reader of the home "
                    f"folders does not answer ({why}); ask your instructor"]
