"""The students' page of the grading service, a JupyterHub-managed service (HubOAuth).

    python -m grader page [--port PORT] [--address ADDRESS] [--instructors GROUP]
                          [--home-reader SOCKET]

The hub starts it (deploy/jupyterhub_config.py) and proxies it at
/services/grading/; this page (the file exchange's, which reads the students' homes)
listens on 127.0.0.1 only; the page over HTTP (page_http.py) may listen on a pod's
address (--address 0.0.0.0). Who is asking is the hub's
login, never anything the notebook says. A student sees only their own hand-ins
of each assignment, each check by its visibility (visibility.py), the checks they
have left (rate_limit.py), and a "Check my notebook" button per assignment: it
checks the notebook as the student last saved it in their home folder
(~/ASSIGNMENT/NOTEBOOK.ipynb, where the Assignments tab fetches it): the home reader
(home_reader.py, ``--home-reader SOCKET``) reads it as the student, so that the page
runs as the course's own account, not root; then `actions.check`, which answers as it
does over HTTP. Members of the instructors' Unix group see every student's hand-ins
(?student=ID). The page only reads and writes the service's queue; `python -m grader
serve` grades what it queues.

With ``c.HubTransport.transport = "http"`` (page_http.py) the page reads no home
folder and reaches no student's server: it links each student's hand-in panel in
their own server (Get, Check my notebook, Hand in) and shows the feedback once given
out; the instructors are a hub group then, and only the course's students' hub group
may act.
"""

import grp
import html
import os
import pwd

from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
from tornado import ioloop, web

from ...settings import Settings
from ...recording import requests_of
from .actions import SavedIn, Sent, ask_for_regrade, check, notebook_names, released_feedback
from .home_reader import read_as_student
from .requests import HandInView, student_hand_ins
from .saved import saved_notebooks
from .standing import regrade_form, requests_html, standing_html, standing_of
from ..queue.store import Store
from .student_commands import kind_words, shown_score

MESSAGE_COOKIE = "grading-message"  # what the last request did, shown once on the page

STYLE = """body{font-family:system-ui,sans-serif;max-width:56rem;margin:1rem auto;padding:0 1rem;
line-height:1.5;color:#1a1a1a;background:#fff}h1{font-size:1.6rem}h2{font-size:1.25rem;
margin-top:2rem}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem
.5rem;border-bottom:1px solid #bbb;vertical-align:top}.passed{color:#0a5c1f}.failed{color:#9b1c1c}
.note{background:#eef3fb;border-left:4px solid #2b5797;padding:.5rem .8rem}button{font-size:1rem;
padding:.4rem .9rem}.typed{white-space:pre-wrap}"""


def is_instructor(user: str, group: str) -> bool:
    try:
        members = grp.getgrnam(group)
    except KeyError:
        return False
    if user in members.gr_mem:
        return True
    try:
        return pwd.getpwnam(user).pw_gid == members.gr_gid
    except KeyError:  # a hub user with no account here
        return False


def hand_in_rows(view: HandInView) -> str:
    job = view.job
    rows = []
    for check in view.checks:
        if check.passed is None:
            verdict, detail = "after the due date", ""
        else:
            verdict = "passed" if check.passed else "failed"
            detail = html.escape(check.message)
        points = "" if check.points is None else f"{check.points:g} / {check.max_points:g}"
        rows.append(f'<tr><td>{html.escape(check.grade_id)}</td><td class="'
                    f'{"failed" if check.passed is False else "passed"}">{verdict}</td>'
                    f"<td>{points}</td><td>{detail}</td></tr>")
    state = html.escape(str(job.state)) + (f" ({html.escape(job.reason)})" if job.reason else "")
    score = shown_score(view)
    if score is not None:
        state += f"; score {score:g} / {job.max_score or 0:g}"
    note = f"<p>{html.escape(view.note)}</p>" if view.note else ""
    table = ("<table><caption>Checks of this hand-in</caption><thead><tr><th scope=\"col\">"
             "Check</th><th scope=\"col\">Result</th><th scope=\"col\">Points</th>"
             "<th scope=\"col\">Message</th></tr></thead><tbody>" + "".join(rows)
             + "</tbody></table>") if rows else ""
    return (f"<h3>Hand-in {job.id}, {job.arrived:%Y-%m-%d %H:%M} UTC, "
            f"{html.escape(kind_words(view))}: {state}</h3>{note}{table}")


def action_form(action: str, label: str, assignment: str, xsrf: str) -> str:
    name = html.escape(assignment)
    return (f'<form method="post" action="{action}">{xsrf}<input type="hidden" '
            f'name="assignment" value="{name}"><button type="submit">{label} ({name})'
            "</button></form>")


def page_html(user: str, student: str, sections: list[tuple[str, list[HandInView], str]],
              message: str, xsrf: str, over_http: dict[str, list[str]] | None = None,
              panel: str = "", standing: str = "", asks: dict[str, str] | None = None) -> str:
    """The whole page: where the student stands first (`standing`, with their regrade
    requests), then per assignment, the checks left and the hand-ins, with the Check
    my notebook button (the exchange's page) and the regrade form once the feedback is out
    (`asks`: {assignment: its form}); over HTTP (`over_http`: {assignment: the
    student's feedback pages given out}) the feedback links instead, and `panel`, the
    link to the student's hand-in panel in their own server, where its buttons are."""
    parts = [f"<h1>Checks of {html.escape(student)}'s notebooks</h1>"]
    if message:
        parts.append(f'<p class="note" role="status">{html.escape(message)}</p>')
    parts += [standing, panel]
    for assignment, views, left in sections:
        name = html.escape(assignment)
        parts.append(f"<h2>{name}</h2><p>{html.escape(left)}</p>")
        if user == student and over_http is None:
            parts.append(action_form("check", "Check my notebook", assignment, xsrf))
        if user == student:
            parts.append((asks or {}).get(assignment, ""))
        pages = (over_http or {}).get(assignment)
        if pages:
            links = ", ".join(f'<a href="feedback/{name}/{html.escape(page)}.html?student='
                              f'{html.escape(student)}">{html.escape(page)}</a>'
                              for page in pages)
            parts.append(f"<p>Feedback: {links}</p>")
        parts.extend(hand_in_rows(view) for view in views)
        if not views:
            parts.append("<p>No hand-ins yet.</p>")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            'content="width=device-width, initial-scale=1"><title>Checks of my notebooks'
            f"</title><style>{STYLE}</style></head><body><main>{''.join(parts)}</main>"
            "</body></html>")


class PageHandler(HubOAuthenticated, web.RequestHandler):
    def initialize(self, settings: Settings, store: Store, instructors: str) -> None:
        self.course, self.store, self.instructors = settings, store, instructors

    def student(self) -> str:
        user = self.current_user["name"]
        asked = self.get_argument("student", user)
        if asked != user and not is_instructor(user, self.instructors):
            raise web.HTTPError(403, "a student sees only their own hand-ins")
        return asked

    def show(self) -> None:
        message = (self.get_signed_cookie(MESSAGE_COOKIE) or b"").decode("utf-8", "replace")
        self.clear_cookie(MESSAGE_COOKIE)
        student = self.student()
        sections = []
        for assignment in self.course.assignments:
            views, left = student_hand_ins(self.course, self.store, student, assignment)
            sections.append((assignment, views, left.sentence()))
        self.set_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; "
                        "form-action 'self'")
        self.write(page_html(self.current_user["name"], student, sections, message,
                             self.xsrf_form_html(), *self.over_http(student),
                             *self.standing(student)))

    def standing(self, student: str) -> tuple[str, dict[str, str]]:
        """Where `student` stands and their regrade requests (standing.py), and the regrade
        form of each assignment whose feedback is out for them."""
        shown = (standing_html(standing_of(self.course, self.store, student))
                 + requests_html(requests_of(self.course, student)))
        asks = {a: regrade_form(self.course, a, self.xsrf_form_html())
                for a in self.course.assignments
                if released_feedback(self.course, self.store, student, a) is not None}
        return shown, asks

    def over_http(self, student: str) -> tuple[dict[str, list[str]] | None, str]:
        """What the page over HTTP adds (page_http.py); (None, "") with the exchange."""
        return None, ""

    @web.authenticated
    def get(self) -> None:
        self.show()


class CheckHandler(PageHandler):
    def initialize(self, settings: Settings, store: Store, instructors: str,
                   home_reader: str = "") -> None:
        super().initialize(settings, store, instructors)
        self.home_reader = home_reader

    @web.authenticated
    def post(self) -> None:
        """Ask for the check, then back to the page (so that reloading it asks nothing)."""
        self.set_signed_cookie(MESSAGE_COOKIE, self.asked(), expires_days=None)
        self.redirect(self.request.path.rsplit("/", 1)[0] + "/")

    def asked(self) -> str:
        user = self.current_user["name"]
        assignment = self.get_body_argument("assignment", "")
        if assignment not in self.course.assignments:
            raise web.HTTPError(400, "no such assignment")
        notebooks = notebook_names(self.course, assignment)
        if self.home_reader:  # the page runs as the course's account: the helper reads
            files, problems = read_as_student(self.home_reader, user, assignment, notebooks)
        else:
            files, problems = saved_notebooks(user, assignment, notebooks)
        sent = Sent(files, SavedIn.HOME, tuple(problems))
        return check(self.course, self.store, user, assignment, sent).sentence


class RegradeHandler(PageHandler):
    """"Ask for a regrade": for the login's own work, whatever the form says."""

    def may_ask(self) -> bool:
        return True

    @web.authenticated
    def post(self) -> None:
        if not self.may_ask():
            raise web.HTTPError(403, "only the course's students ask for a regrade")
        assignment = self.get_body_argument("assignment", "")
        if assignment not in self.course.assignments:
            raise web.HTTPError(400, "no such assignment")
        asked = ask_for_regrade(self.course, self.store, self.current_user["name"], assignment,
                                self.get_body_argument("item", ""),
                                self.get_body_argument("message", "", strip=False))
        self.set_signed_cookie(MESSAGE_COOKIE, asked.sentence, expires_days=None)
        self.redirect(self.request.path.rsplit("/", 1)[0] + "/")


def serve_page(settings: Settings, store: Store, port: int, instructors: str,
               address: str = "127.0.0.1", home_reader: str = "") -> None:
    """Serve the page on `address` (this machine's 127.0.0.1 unless told) under the hub's
    prefix until the process is stopped; the students' saved notebooks read through the
    home reader on the socket `home_reader` (home_reader.py), or, without one, by the
    page itself, which must then run as root."""
    prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/grading/")
    options = {"settings": settings, "store": store, "instructors": instructors}
    app = web.Application([
        (prefix, PageHandler, options),
        (prefix + "check", CheckHandler, dict(options, home_reader=home_reader)),
        (prefix + "regrade", RegradeHandler, options),
        (prefix + "oauth_callback", HubOAuthCallbackHandler),
    ], cookie_secret=os.urandom(32), xsrf_cookies=True)
    app.listen(port, address=address)
    ioloop.IOLoop.current().start()
