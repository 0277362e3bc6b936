"""A student's own Jupyter server, reached through the hub's proxy: its contents API.

The course page over HTTP (``c.HubTransport.transport = "http"``) reads and writes a
student's files only through ``/user/NAME/api/contents/PATH`` on the hub's proxy, with the
page's own token (the hub gives the grading service ``access:servers`` on the course's
students' servers); it never opens a path of a home folder. Every request has a
deadline (``c.HubTransport.timeout_seconds``: each wait for the server at most that long,
the whole request less than twice it), reads at most a
notebook's size, and follows a redirect only to a user's URL on the same hub; what
goes wrong is a `ServerRefusal` whose message says what to do, in the student's words:

- the server is not running (the hub answers 424 or 503 for a stopped server);
- the page's token may not reach it (401, 403: the hub's role lacks the scope);
- it answers too slowly, or not at all;
- a folder, a link, or a file over the size cap is where the notebook should be: a link
  is told by its size, as the server's listing gives it (the link's own), against the
  bytes read through it.
"""

import base64
import dataclasses
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

from ..plan import MAX_NOTEBOOK_BYTES

CHUNK = 1 << 16


class ServerRefusal(Exception):
    """What a student's server (or the hub's proxy in front of it) would not do, and why."""

    def __init__(self, message: str, not_running: bool = False):
        super().__init__(message)
        self.not_running = not_running


@dataclasses.dataclass(frozen=True)
class Entry:
    """A file or folder on the student's server, as its contents API lists it."""

    path: str
    kind: str  # "file", "notebook" or "directory"
    size: int | None  # bytes on the server's disk (a link's own size, not its target's)


def servers_url(configured: str) -> str:
    """Where the page reaches the hub's proxy: `configured` (c.HubTransport.servers_url),
    else the hub's public URL, else the origin of the hub's API (one machine)."""
    if configured:
        return configured.rstrip("/")
    public = os.environ.get("JUPYTERHUB_PUBLIC_URL", "")
    if public:
        return public.rstrip("/")
    api = urllib.parse.urlsplit(os.environ.get("JUPYTERHUB_API_URL", ""))
    if not api.scheme:
        raise ServerRefusal("the page does not know where the hub's proxy is: set "
                            "c.HubTransport.servers_url in nbgrader_config.py")
    return f"{api.scheme}://{api.netloc}"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # a redirect is answered as what it is: never followed with the token


class StudentServer:
    """One student's server behind the hub's proxy at `base` (its URL), asked with `token`."""

    def __init__(self, base: str, prefix: str, user: str, token: str, timeout: float,
                 max_bytes: int = MAX_NOTEBOOK_BYTES):
        self.root = (f"{base.rstrip('/')}{prefix.rstrip('/')}/user/"
                     f"{urllib.parse.quote(user, safe='')}/api/contents/")
        self.user, self.token, self.timeout, self.max_bytes = user, token, timeout, max_bytes
        self.opener = urllib.request.build_opener(_NoRedirect)

    def _request(self, method: str, path: str, query: str = "", body: dict | None = None,
                 limit: int = 1 << 20) -> tuple[int, bytes]:
        """(status, body) of one request; a redirect followed only within the hub."""
        url = self.root + urllib.parse.quote(path) + (f"?{query}" if query else "")
        for _ in range(3):  # the hub sends a stopped server's requests to /hub/user/NAME/
            status, content, moved = self._once(method, url, body, limit, path)
            if moved is None:
                return status, content
            url = moved
        raise ServerRefusal(f"your server sent the page elsewhere ({status}) instead of "
                            f"answering for {path}; nothing was taken or spent")

    def _once(self, method: str, url: str, body: dict | None, limit: int, path: str
              ) -> tuple[int, bytes, str | None]:
        """(status, body, where a redirect on the same hub leads, or None) of one request."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method, headers={
            "Authorization": f"token {self.token}", "Accept": "application/json",
            **({"Content-Type": "application/json"} if data is not None else {})})
        deadline = time.monotonic() + self.timeout
        try:
            try:
                response = self.opener.open(request, timeout=self.timeout)
            except urllib.error.HTTPError as answered:
                response = answered
            with response:
                content = bytearray()
                while len(content) <= limit:
                    if time.monotonic() > deadline:
                        raise TimeoutError
                    piece = response.read1(CHUNK)  # what one receive gives: no dribbling on
                    if not piece:
                        break
                    content += piece
                if len(content) > limit:
                    raise ServerRefusal(f"{path} on your server is more than a notebook may "
                                        f"be ({self.max_bytes >> 20} MiB); nothing was taken")
                moved = None
                if 300 <= response.status < 400 and response.headers.get("Location"):
                    target = urllib.parse.urljoin(url, response.headers["Location"])
                    here, there = urllib.parse.urlsplit(url), urllib.parse.urlsplit(target)
                    # the token goes only to the same hub, to a user's URL on it
                    if (there.scheme, there.netloc) == (here.scheme, here.netloc) \
                            and "/user/" in there.path:
                        moved = target
                return response.status, bytes(content), moved
        except (TimeoutError, socket.timeout):
            raise ServerRefusal(f"your server did not answer within {self.timeout:g} s; "
                                "nothing was taken or spent, try again in a moment") from None
        except urllib.error.URLError as error:
            raise ServerRefusal(f"your server could not be reached ({error.reason}); "
                                "nothing was taken or spent") from None
        except (ConnectionError, OSError) as error:
            raise ServerRefusal(f"your server could not be reached ({error}); nothing was "
                                "taken or spent") from None

    def _refused(self, status: int, path: str) -> ServerRefusal:
        if status in (424, 503):
            return ServerRefusal("your server is not running: start it from the hub's home "
                                 "page, then try again; nothing was taken or spent",
                                 not_running=True)
        if status in (401, 403):
            return ServerRefusal("the grading page may not reach your server (the hub's role "
                                 "for this course does not give it access:servers for you); "
                                 "tell your instructor; nothing was taken or spent")
        if 300 <= status < 400:
            return ServerRefusal(f"your server sent the page elsewhere ({status}) instead of "
                                 f"answering for {path}; nothing was taken or spent")
        return ServerRefusal(f"your server answered {status} for {path}; nothing was taken "
                             "or spent")

    def entry(self, path: str) -> Entry | None:
        """What is at `path` on the server (None: nothing)."""
        status, body = self._request("GET", path, "content=0")
        if status == 404:
            return None
        if status != 200:
            raise self._refused(status, path)
        model = json.loads(body)
        return Entry(model["path"], model["type"], model.get("size"))

    def read(self, path: str) -> bytes:
        """The bytes of the file at `path`: a regular file of at most the size cap."""
        shown = f"~/{path}"
        found = self.entry(path)
        if found is None:
            raise FileNotFoundError(path)
        if found.kind == "directory":
            raise ServerRefusal(f"{shown} on your server is a folder, not a notebook file")
        if found.size is not None and found.size > self.max_bytes:
            raise ServerRefusal(f"{shown} is {found.size >> 20} MiB, more than a notebook may "
                                f"be ({self.max_bytes >> 20} MiB)")
        # base64 text and the model's JSON around it: at most 4/3 of the bytes, and some
        status, body = self._request("GET", path, "type=file&format=base64&content=1",
                                     limit=self.max_bytes * 4 // 3 + 4096)
        if status != 200:
            raise self._refused(status, path)
        content = base64.b64decode(json.loads(body)["content"])
        if found.size is not None and len(content) != found.size:
            raise ServerRefusal(f"{shown} on your server is a link (or was changing while it "
                                "was read), not a notebook file of your own; save the notebook "
                                "itself there")
        return content

    def make_folder(self, path: str) -> None:
        status, _ = self._request("PUT", path, body={"type": "directory"})
        if status not in (200, 201):
            raise self._refused(status, path) if status != 400 else ServerRefusal(
                f"~/{path} on your server is a file, not a folder; nothing was written")

    def write(self, path: str, content: bytes) -> None:
        """Write `content` as the file `path` (whose folder is made first); only where nothing
        is: the caller has seen that nothing is there."""
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):  # each folder before what it holds
            self.make_folder("/".join(parts[:depth]))
        status, _ = self._request("PUT", path, body={
            "type": "file", "format": "base64",
            "content": base64.b64encode(content).decode("ascii")})
        if status not in (200, 201):
            raise self._refused(status, path)
