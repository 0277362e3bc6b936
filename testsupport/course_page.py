"""The students' course page with the hub's login given by the test, not the hub's: its
handlers (the exchange's and the HTTP transport's) for tests that build an application of
their own, and the HTTP transport's page, its regrade form and its feedback pages served in
a thread of this process for one student, for tests that drive it in Chromium."""

import contextlib

from jupyterhub.services.auth import HubOAuth

from grader.service.page.page import PageHandler, RegradeHandler
from grader.service.page.page_http import FeedbackHandler, HttpPageHandler, HttpRegradeHandler
from grader.settings import HubTransport
from testsupport.threaded_server import serving

PREFIX = "/services/grading/"
STUDENTS_GROUP = "course-students"


class Login:
    """The page's handler with the hub's login given by the test (`login`), not the hub's."""

    def initialize(self, settings, store, instructors, login, groups=(), **transport):
        super().initialize(settings, store, instructors, **transport)
        self.login, self.groups = login, list(groups)
        self.hub_auth = HubOAuth(api_token="test", base_url=PREFIX, cookie_options={})

    def get_current_user(self):
        return {"name": self.login, "groups": self.groups}


class LoginPage(Login, PageHandler):
    pass


class LoginRegrade(Login, RegradeHandler):
    pass


class LoginHttpPage(Login, HttpPageHandler):
    pass


class LoginHttpRegrade(Login, HttpRegradeHandler):
    pass


class LoginFeedback(Login, FeedbackHandler):
    pass


@contextlib.contextmanager
def served_course_page(settings, store, login):
    """The course page over HTTP as `login`, a student of the hub group "course-students",
    sees it: yields the page's address (PREFIX included), and stops it after."""
    from tornado import web

    options = {"settings": settings, "store": store, "instructors": "nobody-group",
               "login": login, "groups": [STUDENTS_GROUP],
               "transport": HubTransport(transport="http", students_group=STUDENTS_GROUP)}

    def make_app():
        return web.Application([
            (PREFIX, LoginHttpPage, options),
            (PREFIX + "regrade", LoginHttpRegrade, options),
            (PREFIX + r"feedback/([^/]+)/([^/]+)\.html", LoginFeedback, options),
        ], cookie_secret="s" * 32, xsrf_cookies=True)

    with serving(make_app, "the course page") as address:
        yield address + PREFIX
