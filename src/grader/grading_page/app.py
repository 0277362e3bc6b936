"""The staff's grading page: the answers of each explain question in groups, graded by the
rubric's items, the work shared among the course's graders.

    python -m grader grading-page [--port PORT]        (make grading-page)
    python -m grader grading-page --hub GROUP [--port PORT]   (a JupyterHub service)

It listens on 127.0.0.1 only. On one machine it prints one address per grader with a
token of its own, made afresh at each start (the notebook server's way): opened once,
the token becomes a signed cookie (HttpOnly, SameSite=Strict) naming the grader. As a
hub service (deploy/jupyterhub_service.py) who asks is the hub's login, and only the
course's graders and the members of the hub group GROUP (the course's instructors)
are let in; the graders are c.GradingPage.graders, else that group's members as they
sign in. Each form
carries tornado's XSRF token and a request from another site is refused. A score is
written only when a grader saves one answer (marks.py, compare-and-set): items applied
to a group are drafts on each of its answers.
"""

import hmac
import os
import secrets
import urllib.parse
from collections.abc import Callable

from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
from tornado import ioloop, web

from ..recording import AskStatus, all_requests, answer_request, open_requests
from ..safe_text import shown_id
from ..settings import CourseError, Settings
from . import marks, views
from .question import Question, Questions
from .requests_view import requests_page
from .split_record import ReassignStatus
from .staff import StaffSplit, unix_group_members

GRADER_COOKIE = "grading-page-grader"
MESSAGE_COOKIE = "grading-page-message"
KEYS_JS = os.path.join(os.path.dirname(__file__), "keys.js")
POLICY = ("default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; "
          "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")


class StaffHandler(web.RequestHandler):
    def initialize(self, settings: Settings, questions: Questions, staff: StaffSplit,
                   tokens: dict[str, str]) -> None:
        self.course, self.questions, self.staff, self.tokens = settings, questions, staff, tokens

    def get_current_user(self) -> str | None:
        grader = self.get_signed_cookie(GRADER_COOKIE)
        name = grader.decode("utf-8") if grader else None
        return name if name in self.tokens else None

    def set_default_headers(self) -> None:
        self.set_header("Content-Security-Policy", POLICY)
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "same-origin")  # "no-referrer" makes Origin "null"
        self.set_header("Cache-Control", "no-store")

    def refuse_other_sites(self) -> None:
        site = self.request.headers.get("Sec-Fetch-Site", "same-origin")
        origin = self.request.headers.get("Origin")
        own = f"{self.request.protocol}://{self.request.host}"
        if site not in ("same-origin", "none") or (origin and origin != own):
            raise web.HTTPError(403, "a form of another site cannot grade here")

    def check_xsrf_cookie(self) -> None:
        """tornado's XSRF token, and no request sent from another site's page."""
        self.refuse_other_sites()
        super().check_xsrf_cookie()

    def write_error(self, status_code: int, **kwargs) -> None:
        reason = self._reason
        error = kwargs.get("exc_info", (None, None))[1]
        if isinstance(error, web.HTTPError) and error.log_message:
            reason = error.log_message % error.args if error.args else error.log_message
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code}: {reason}\n")

    def say(self, message: str) -> None:
        self.set_signed_cookie(MESSAGE_COOKIE, message[:1500], expires_days=None,
                               httponly=True, samesite="Strict")

    def said(self) -> str:
        message = (self.get_signed_cookie(MESSAGE_COOKIE) or b"").decode("utf-8", "replace")
        self.clear_cookie(MESSAGE_COOKIE)
        return message

    def question_of(self, assignment: str) -> Question:
        if assignment not in self.questions.names():
            raise web.HTTPError(404, "no explain question of that name")
        return self.questions.get(assignment)


class HubStaffHandler(HubOAuthenticated, StaffHandler):
    """A handler of the page as a hub service: the grader is the hub's login, let in when
    the settings list them as a grader or the hub puts them in the staff's group."""

    def initialize(self, settings: Settings, questions: Questions, staff: StaffSplit,
                   tokens: dict[str, str], group: str = "") -> None:
        super().initialize(settings, questions, staff, tokens)
        self.group = group

    def get_current_user(self) -> str | None:
        user = HubOAuthenticated.get_current_user(self)
        if not user:
            return None
        name = user["name"]
        in_group = self.group and (self.group in user.get("groups", [])
                                   or name in (unix_group_members(self.group) or []))
        if name in self.staff.graders() or in_group:
            return name
        raise web.HTTPError(403, f"{shown_id(name)} is not among the graders of this course "
                            f"(c.GradingPage.graders, or the hub group {self.group})")

    def check_xsrf_cookie(self) -> None:
        """The hub's XSRF check, and no request sent from another site's page."""
        self.refuse_other_sites()
        HubOAuthenticated.check_xsrf_cookie(self)


class LoginHandler(StaffHandler):
    def get(self) -> None:
        token = self.get_argument("token", "")
        grader = next((name for name, known in self.tokens.items()
                       if hmac.compare_digest(known, token)), None)
        if grader is None:
            raise web.HTTPError(403, "open the address the grading page printed for you "
                                "(its token is new at each start)")
        self.set_signed_cookie(GRADER_COOKIE, grader, expires_days=1, httponly=True,
                               samesite="Strict")
        self.redirect("/")


class IndexHandler(StaffHandler):
    @web.authenticated
    def get(self) -> None:
        rows = []
        for assignment in self.questions.names():
            question = self.questions.get(assignment)
            graded = marks.record(self.course, question.cell)["graded"]
            rows.append((assignment, sum(s in graded for s in question.answers),
                         len(question.answers)))
        waiting = sum(r.state == "open" for r in all_requests(self.course))
        self.finish(views.index_page(rows, self.current_user, waiting))


class QuestionHandler(StaffHandler):
    @web.authenticated
    def get(self, assignment: str) -> None:
        question = self.question_of(assignment)
        user = self.current_user
        split = self.staff.split(assignment, question.students)
        record = marks.record(self.course, question.cell)
        graded, drafts = record["graded"], record.get("drafts", {})
        mine = self.get_argument("view", "mine") == "mine"
        own = {s for s, g in split.items() if g == user} if mine else None
        base = f"{urllib.parse.quote(assignment)}?view={'mine' if mine else 'all'}"
        chosen = question.group(self.get_argument("group", ""))
        if chosen is None:  # the first group with answers left to grade, else the first
            shown_groups = [g for g in question.groups
                            if own is None or any(s in own for s in g.students)]
            chosen = next((g for g in shown_groups if any(s not in graded for s in g.students
                                                          if own is None or s in own)),
                          shown_groups[0] if shown_groups else None)
        students = [s for s in (chosen.students if chosen else [])
                    if own is None or s in own]
        scores = marks.manual_scores_now(self.course, question.cell, students)
        xsrf = self.xsrf_form_html()
        asked = [r for r in open_requests(self.course, assignment)
                 if r.item == question.cell.grade_id]
        articles = [views.answer_article(
            question, s, scores[s], graded.get(s), drafts.get(s, {}).get("items", []),
            split.get(s), self.staff.may_score(user, s, split), xsrf,
            f"{urllib.parse.quote(assignment)}/mark?view={'mine' if mine else 'all'}"
            f"&group={urllib.parse.quote(chosen.key)}",
            [r for r in asked if r.student == s]) for s in students]
        view = "mine" if mine else "all"
        bar = views.group_bar(
            question, chosen, xsrf, f"{urllib.parse.quote(assignment)}/group?view={view}",
            self.staff.graders() if self.staff.may_reassign(user) else None,
            f"{urllib.parse.quote(assignment)}/reassign?view={view}&group="
            f"{urllib.parse.quote(chosen.key)}", tuple(students)) if students else ""
        message = self.said()
        conflict, _, message = message.partition("\x00") if "\x00" in message else ("", "",
                                                                                     message)
        progress = views.progress_table(self.staff.progress(split, set(graded)))
        self.finish(views.question_page(
            question, chosen, articles, views.groups_nav(question, chosen, set(graded), own,
                                                         base),
            progress, message, conflict, bar, user, mine, base))


class MarkHandler(StaffHandler):
    @web.authenticated
    def post(self, assignment: str) -> None:
        question = self.question_of(assignment)
        student = self.get_body_argument("student", "")
        back = self.get_argument("group", "")
        view = self.get_argument("view", "mine")
        if student not in question.answers:
            raise web.HTTPError(400, "no submitted answer of that student")
        refused = self.staff.may_score(self.current_user, student,
                                       self.staff.split(assignment, question.students))
        if refused:
            raise web.HTTPError(403, refused)
        try:
            shown = self.get_body_argument("shown_score", "")
            mark = marks.Mark(student, tuple(self.get_body_arguments("item")),
                              self.get_body_argument("own", "").replace("\r\n", "\n"),
                              float(self.get_body_argument("adjust", "0") or 0),
                              self.current_user, float(shown) if shown else None)
        except ValueError:
            raise web.HTTPError(400, "the adjustment and the score shown are numbers") from None
        try:
            written = marks.save_mark(self.course, question.cell, mark,
                                      question.values[student])
        except CourseError as error:
            raise web.HTTPError(400, str(error)) from None
        if written.status == marks.ManualWriteStatus.CONFLICT:
            self.say(f"Not saved for {shown_id(student)}: the gradebook holds "
                     f"{marks.points(written.before)}, not {marks.points(written.expected)} as "
                     f"this page showed (changed in formgrader, by another grader or by a "
                     f"regrade); your {written.score:g} was not written over it. The answer "
                     f"now shows the gradebook's score: save again to replace it.\x00")
        else:
            self.say(f"{shown_id(student)}: {written.score:g} of {question.cell.points:g} "
                     f"points, {written.status}.")
        order = [s for s in (question.group(back).students if question.group(back) else [])]
        after = order[order.index(student) + 1:] if student in order else []
        self.redirect(f"../{urllib.parse.quote(assignment)}?view={urllib.parse.quote(view)}&group="
                      f"{urllib.parse.quote(back)}" + (f"#a-{urllib.parse.quote(after[0])}"
                                                       if after else ""), status=303)


class GroupHandler(StaffHandler):
    @web.authenticated
    def post(self, assignment: str) -> None:
        question = self.question_of(assignment)
        group = question.group(self.get_body_argument("group", ""))
        if group is None:
            raise web.HTTPError(400, "the groups changed since the page was loaded: reload it")
        split = self.staff.split(assignment, question.students)
        students = [s for s in group.students
                    if not self.staff.may_score(self.current_user, s, split)]
        try:
            changed = marks.apply_to_group(self.course, question.cell, students,
                                           self.get_body_argument("item", ""), self.current_user)
        except CourseError as error:
            raise web.HTTPError(400, str(error)) from None
        self.say(f"drafted on {changed} answer(s) of the group: pass each one and save it "
                 f"to score it")
        self.redirect(f"../{urllib.parse.quote(assignment)}?view="
                      f"{urllib.parse.quote(self.get_argument('view', 'mine'))}&group="
                      f"{urllib.parse.quote(group.key)}", status=303)


class ReassignHandler(StaffHandler):
    """Answers moved to another grader, by whoever may move them (split_record.reassign)."""

    @web.authenticated
    def post(self, assignment: str) -> None:
        question = self.question_of(assignment)
        students = self.get_body_arguments("student")
        self.staff.split(assignment, question.students)  # everyone placed first
        moved = self.staff.reassign(assignment, students, self.get_body_argument("to", ""),
                                    self.current_user)
        if moved.status == ReassignStatus.REFUSED:
            raise web.HTTPError(403, moved.sentence)
        self.say(f"{len(moved.moved)} answer(s) moved to {shown_id(self.get_body_argument('to'))}")
        self.redirect(f"../{urllib.parse.quote(assignment)}?view="
                      f"{urllib.parse.quote(self.get_argument('view', 'all'))}&group="
                      f"{urllib.parse.quote(self.get_argument('group', ''))}", status=303)


class RequestsHandler(StaffHandler):
    """Students' regrade requests: listed, and answered by the staff."""

    @web.authenticated
    def get(self) -> None:
        self.finish(requests_page(all_requests(self.course), self.said(), self.current_user,
                                  self.xsrf_form_html()))

    @web.authenticated
    def post(self) -> None:
        outcome = answer_request(self.course, self.get_body_argument("request", ""),
                                 self.current_user,
                                 self.get_body_argument("answer", "").replace("\r\n", "\n"),
                                 self.get_body_argument("changed", "") == "yes")
        if outcome.status == AskStatus.REFUSED:
            raise web.HTTPError(400, outcome.sentence)
        self.say(outcome.sentence)
        self.redirect("requests", status=303)


class KeysHandler(web.RequestHandler):
    def get(self) -> None:
        self.set_header("Content-Type", "text/javascript; charset=utf-8")
        with open(KEYS_JS, encoding="utf-8") as handle:
            self.finish(handle.read())


def _handlers(base: type) -> dict[str, type]:
    """The page's handlers on `base` (the token's or the hub's way of knowing the grader)."""
    return {name: type(name, (handler, base), {}) for name, handler in (
        ("Index", IndexHandler), ("Question", QuestionHandler), ("Mark", MarkHandler),
        ("Group", GroupHandler), ("Requests", RequestsHandler),
        ("Reassign", ReassignHandler))}


def make_app(settings: Settings, staff: StaffSplit, tokens: dict[str, str],
             hub_group: str | None = None) -> web.Application:
    """The page's application: signed in by `tokens` ({grader: token}) on one machine, or,
    with `hub_group`, by the hub under its service prefix."""
    options = {"settings": settings, "questions": Questions(settings), "staff": staff,
               "tokens": tokens}
    prefix, routes = "/", []
    if hub_group is not None:
        prefix = os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/staff-grading/")
        options["group"] = hub_group
        handlers = _handlers(HubStaffHandler)
        routes.append((prefix + "oauth_callback", HubOAuthCallbackHandler))
    else:
        handlers = _handlers(StaffHandler)
        routes.append((prefix + "login", LoginHandler, options))
    return web.Application([
        *routes,
        (prefix, handlers["Index"], options),
        (prefix + r"(?:q/)?keys\.js", KeysHandler),
        (prefix + "requests", handlers["Requests"], options),
        (prefix + r"q/([A-Za-z0-9_.-]+)", handlers["Question"], options),
        (prefix + r"q/([A-Za-z0-9_.-]+)/mark", handlers["Mark"], options),
        (prefix + r"q/([A-Za-z0-9_.-]+)/group", handlers["Group"], options),
        (prefix + r"q/([A-Za-z0-9_.-]+)/reassign", handlers["Reassign"], options),
    ], cookie_secret=secrets.token_bytes(32), xsrf_cookies=True, login_url=prefix + "login",
        xsrf_cookie_kwargs={"httponly": True, "samesite": "Strict"})


def serve_grading_page(settings: Settings, port: int, say: Callable[[str], None],
                       hub_group: str | None = None) -> None:
    """Serve the page on 127.0.0.1:`port` until stopped: printing each grader's address,
    or, with `hub_group`, as the hub's service for that group."""
    staff = StaffSplit(settings, hub_group)
    tokens = {}
    if hub_group is None:
        tokens = {grader: secrets.token_urlsafe(24) for grader in staff.graders()}
        if not tokens:
            raise CourseError("no graders: list them in nbgrader_config.py as "
                              "c.GradingPage.graders = ['ta1', 'ta2'] (docs/grading-page.md)")
    server = make_app(settings, staff, tokens, hub_group).listen(port, address="127.0.0.1")
    bound = next(iter(server._sockets.values())).getsockname()[1]
    for grader, token in tokens.items():
        say(f"{shown_id(grader)}: http://127.0.0.1:{bound}/login?token={token}")
    if hub_group is not None:
        say(f"the staff's grading page, a hub service on 127.0.0.1:{bound}, for the graders "
            f"and the hub group {hub_group}")
    ioloop.IOLoop.current().start()
