"""The hand-in panel: a server extension that runs in each student's own Jupyter server.

    {"ServerApp": {"jpserver_extensions": {"grader.student_server": true}}}   # the image's
                                                                             # jupyter_server_config.json

With the course over HTTP (``c.HubTransport.transport = "http"``, docs/hub-over-http.md)
notebooks travel from the student's side: the course page reaches into no student's
server and sends no credential to one. This panel, at ``/user/NAME/course-hand-in/PAGE/``
(PAGE: the course page's service name, ``grading`` or ``grading-COURSE``), is the
student's own server acting as the student:

- *Get* asks the page's API for the released notebooks and writes them into
  ``ASSIGNMENT/``, never over a notebook that is there: one with the released cells is
  left alone, one the student changed is kept and the released one written beside it as
  ``NOTEBOOK.released.ipynb``;
- *Check my notebook* and *Hand in* read ``ASSIGNMENT/NOTEBOOK.ipynb`` through the
  server's own contents manager and send it to the page's API;
- *Put the feedback in my server* writes the feedback pages given out into
  ``ASSIGNMENT/feedback/HAND-IN/`` (never over a different file).

Every call carries the server's own hub token (JUPYTERHUB_API_TOKEN, the student's, with
``access:services`` on the course page): the page acts for that token's owner, so what a
student's server sends can only ever be that student's own hand-in. Who may press the
buttons is the server's own login (its owner). The page is found at
``$COURSE_GRADING_URL/services/PAGE/`` where the image sets that (the hub's proxy, e.g.
http://proxy-public), else where the hub's API says the service listens
(``read:services`` on it). This module imports nothing of the grader: the students'
image needs only jupyter_server.
"""

import base64
import html
import json
import os
import re
import urllib.parse

from jupyter_core.utils import ensure_async
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.serverapp import ServerApp
from jupyter_server.services.contents.manager import ContentsManager
from jupyter_server.utils import url_path_join
from tornado import httpclient, web

PANEL = "course-hand-in"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")  # an assignment, notebook or service
MESSAGE_COOKIE = "course-hand-in-message"
TIMEOUT = 60.0  # seconds: one call of the page's API, at most (a 64 MiB notebook included)
MAX_READ = 64 << 20  # bytes: the most a file the panel reads may hold (a notebook's cap)
STYLE = ("body{font-family:system-ui,sans-serif;max-width:50rem;margin:1rem auto;padding:0 "
         "1rem;line-height:1.5}form{display:inline-block;margin:.2rem .4rem .2rem 0}"
         "button{font-size:1rem;padding:.4rem .9rem}.note{background:#eef3fb;border-left:4px "
         "solid #2b5797;padding:.5rem .8rem}")


class PanelError(Exception):
    """What the panel could not do, in the student's words."""


def same_cells(saved: bytes, released: bytes) -> bool:
    """Whether a saved notebook holds the released cells unchanged (what running them or
    saving adds, outputs and metadata, is not a change)."""
    def cells(content: bytes) -> list[tuple[str, str]] | None:
        try:
            found = json.loads(content.decode("utf-8")).get("cells")
            return [(c.get("cell_type"), "".join(c.get("source", ""))) for c in found]
        except (UnicodeDecodeError, ValueError, AttributeError, TypeError, RecursionError):
            return None
    return saved == released or cells(saved) is not None and cells(saved) == cells(released)


def checked_name(name: str, what: str) -> str:
    if not isinstance(name, str) or not NAME.match(name) or ".." in name:
        raise PanelError(f"the course page named {what} {name!r}, which is not a plain name")
    return name


class Files:
    """The student's files, through their server's own contents manager."""

    def __init__(self, contents_manager: ContentsManager):
        self.contents = contents_manager

    async def kind(self, path: str) -> str | None:
        """"file", "notebook", "directory" or None: what is at `path`."""
        if not await ensure_async(self.contents.exists(path)):
            return None
        model = await ensure_async(self.contents.get(path, content=False))
        return model["type"]

    async def read(self, path: str, max_bytes: int) -> bytes | None:
        """The bytes at `path` (None: nothing there); PanelError for a folder or a file over
        the size cap."""
        kind = await self.kind(path)
        if kind is None:
            return None
        if kind == "directory":
            raise PanelError(f"~/{path} is a folder, not a notebook file")
        model = await ensure_async(self.contents.get(path, content=False))
        if (model.get("size") or 0) > max_bytes:
            raise PanelError(f"~/{path} is more than a notebook may be ({max_bytes >> 20} MiB)")
        model = await ensure_async(self.contents.get(path, type="file", format="base64"))
        return base64.b64decode(model["content"])

    async def write(self, path: str, content: bytes) -> None:
        """`content` written as the file `path`, each folder above it made first."""
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            kind = await self.kind(folder)
            if kind is None:
                await ensure_async(self.contents.save({"type": "directory"}, folder))
            elif kind != "directory":
                raise PanelError(f"~/{folder} is a file, not a folder; nothing was written")
        await ensure_async(self.contents.save({
            "type": "file", "format": "base64",
            "content": base64.b64encode(content).decode("ascii")}, path))


class CoursePage:
    """The course page's API, called with this server's own token."""

    def __init__(self, service: str):
        self.service = checked_name(service, "the service")
        self.token = os.environ.get("JUPYTERHUB_API_TOKEN", "")
        self.base = ""

    async def _fetch(self, url: str, method: str = "GET", body: dict | None = None
                     ) -> tuple[int, dict]:
        request = httpclient.HTTPRequest(
            url, method=method, follow_redirects=False, request_timeout=TIMEOUT,
            connect_timeout=TIMEOUT, headers={"Authorization": f"token {self.token}",
                                              "Accept": "application/json",
                                              "Content-Type": "application/json"},
            body=None if body is None else json.dumps(body))
        try:
            response = await httpclient.AsyncHTTPClient().fetch(request, raise_error=False)
        except (OSError, ValueError, httpclient.HTTPClientError) as error:
            raise PanelError(f"the course page could not be reached ({error}); nothing was "
                             "sent, try again in a moment") from None
        try:
            return response.code, json.loads(response.body or b"{}")
        except ValueError:
            return response.code, {}

    async def where(self) -> str:
        """The page's address: $COURSE_GRADING_URL's, else the one the hub's API gives."""
        if self.base:
            return self.base
        given = os.environ.get("COURSE_GRADING_URL", "").rstrip("/")
        if given:
            hub = os.environ.get("JUPYTERHUB_BASE_URL", "/")
            self.base = f"{given}{url_path_join(hub, 'services', self.service)}/"
            return self.base
        api = os.environ.get("JUPYTERHUB_API_URL", "").rstrip("/")
        status, model = await self._fetch(f"{api}/services/{self.service}")
        if status != 200 or not model.get("url") or not model.get("prefix"):
            raise PanelError(f"the hub does not tell this server where the course page "
                             f"{self.service} is ({status}); ask your instructor")
        self.base = model["url"].rstrip("/") + "/" + model["prefix"].strip("/") + "/"
        return self.base

    async def ask(self, route: str, body: dict | None = None) -> dict:
        """The answer of `route` of the page's API; PanelError with the page's sentence when
        it refuses."""
        status, answer = await self._fetch(await self.where() + "api/" + route,
                                           "GET" if body is None else "POST", body)
        if status != 200:
            message = answer.get("message") if isinstance(answer, dict) else None
            raise PanelError(str(message or f"the course page answered {status}"))
        return answer


async def get_released(page: CoursePage, files: Files, assignment: str) -> str:
    """The released notebooks into ``ASSIGNMENT/``, never over one the student changed."""
    answer = await page.ask(f"released/{assignment}")
    written, kept, there = [], [], []
    for name, encoded in sorted(answer.get("notebooks", {}).items()):
        name = checked_name(name, "a notebook")
        released = base64.b64decode(encoded)
        path = f"{assignment}/{name}"
        saved = await files.read(path, MAX_READ)
        if saved is None:
            await files.write(path, released)
            written.append(f"~/{path}")
        elif same_cells(saved, released):
            there.append(f"~/{path}")
        else:
            beside = f"{assignment}/{name[:-len('.ipynb')]}.released.ipynb"
            if await files.kind(beside) is None:
                await files.write(beside, released)
                kept.append(f"~/{path} holds your changes and is kept; the released notebook "
                            f"is written beside it as ~/{beside}")
            else:
                kept.append(f"~/{path} holds your changes and is kept; ~/{beside} is there "
                            "already and is kept too")
    return "; ".join(([f"written into your server: {', '.join(written)}"] if written else [])
                     + kept + ([f"already on your server as released: {', '.join(there)}"]
                               if there else []))


async def send_saved(page: CoursePage, files: Files, assignment: str, action: str) -> str:
    """The saved notebooks of `assignment` sent to the page to be checked or handed in."""
    listed = await page.ask("assignments")
    found = [a for a in listed.get("assignments", []) if a.get("name") == assignment]
    if not found:
        raise PanelError(f"the course has no assignment {assignment}")
    saved = {}
    for name in found[0].get("notebooks", []):
        name = checked_name(name, "a notebook")
        content = await files.read(f"{assignment}/{name}", int(listed.get("max_bytes", 0)))
        if content is not None:
            saved[name] = base64.b64encode(content).decode("ascii")
    answer = await page.ask(f"{action}/{assignment}", {"notebooks": saved})
    return str(answer.get("message", ""))


async def feedback_into_server(page: CoursePage, files: Files, assignment: str) -> str:
    """The feedback given out into ``ASSIGNMENT/feedback/HAND-IN/``, never over a file
    that is there and differs."""
    answer = await page.ask(f"feedback/{assignment}")
    hand_in = int(answer.get("hand_in", 0))
    written, there = [], []
    for name, encoded in sorted(answer.get("pages", {}).items()):
        content = base64.b64decode(encoded)
        path = f"{assignment}/feedback/{hand_in}/{checked_name(name, 'a feedback page')}"
        found = await files.read(path, MAX_READ)
        if found is None:
            await files.write(path, content)
            written.append(f"~/{path}")
        elif found == content:
            there.append(f"~/{path}")
        else:
            return (f"~/{path} on your server differs from your feedback and is kept; move "
                    "it away to have the feedback written there")
    return "; ".join(([f"feedback written into your server: {', '.join(written)}"]
                      if written else []) + ([f"already on your server: {', '.join(there)}"]
                                             if there else []))


ACTIONS = {"get": "Get", "check": "Check my notebook", "hand-in": "Hand in",
           "feedback": "Put the feedback in my server"}


class PanelHandler(JupyterHandler):
    """The panel's page (GET) and its buttons (POST), for the server's own login."""

    def page(self, service: str) -> CoursePage:
        try:
            return CoursePage(service)
        except PanelError as error:
            raise web.HTTPError(404, str(error)) from None

    @web.authenticated
    async def get(self, service: str, action: str = "") -> None:
        message = (self.get_secure_cookie(MESSAGE_COOKIE) or b"").decode("utf-8", "replace")
        self.clear_cookie(MESSAGE_COOKIE, path=self.request.path)
        page = self.page(service)
        parts = ["<h1>My hand-in panel</h1>"]
        if message:
            parts.append(f'<p class="note" role="status">{html.escape(message)}</p>')
        try:
            listed = await page.ask("assignments")
        except PanelError as error:
            listed = {"assignments": []}
            parts.append(f'<p role="alert">{html.escape(str(error))}</p>')
        hub = os.environ.get("JUPYTERHUB_BASE_URL", "/")
        parts.append(f'<p>My hand-ins, checks and feedback: <a href="'
                     f'{html.escape(url_path_join(hub, "services", page.service))}/">the '
                     "course page</a></p>")
        for assignment in listed.get("assignments", []):
            name = html.escape(str(assignment.get("name", "")))
            parts.append(f"<h2>{name}</h2>")
            shown = [a for a in ACTIONS if a != "feedback" or assignment.get("feedback")]
            parts += [f'<form method="post" action="{action}">{self.xsrf_form_html()}<input '
                      f'type="hidden" name="assignment" value="{name}"><button '
                      f'type="submit">{ACTIONS[action]} ({name})</button></form>'
                      for action in shown]
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta '
                    'name="viewport" content="width=device-width, initial-scale=1"><title>My '
                    f"hand-in panel</title><style>{STYLE}</style></head><body><main>"
                    f"{''.join(parts)}</main></body></html>")

    @web.authenticated
    async def post(self, service: str, action: str = "") -> None:
        if action not in ACTIONS:
            raise web.HTTPError(404, "the panel has no such button")
        page, files = self.page(service), Files(self.contents_manager)
        assignment = self.get_body_argument("assignment", "")
        try:
            checked_name(assignment, "an assignment")
            if action == "get":
                message = await get_released(page, files, assignment)
            elif action in ("check", "hand-in"):
                message = await send_saved(page, files, assignment, action)
            else:
                message = await feedback_into_server(page, files, assignment)
        except PanelError as error:
            message = f"{ACTIONS[action]}: not done: {error}"
        back = self.request.path.rsplit("/", 1)[0] + "/"
        self.set_secure_cookie(MESSAGE_COOKIE, message, expires_days=None, path=back)
        self.redirect(back, status=303)


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "grader.student_server"}]


def _load_jupyter_server_extension(serverapp: ServerApp) -> None:
    base = url_path_join(serverapp.web_app.settings["base_url"], PANEL)
    service = r"([A-Za-z0-9][A-Za-z0-9_.-]*)"
    serverapp.web_app.add_handlers(".*$", [
        (url_path_join(base, service) + "/", PanelHandler),
        (url_path_join(base, service, f"({'|'.join(ACTIONS)})"), PanelHandler),
    ])
