"""The course page over HTTP on a real JupyterHub, in headless Chromium: no shared disk.

The hub knows its users by its own login (no account on the machine), puts them in
the course's two hub groups, and starts each student's server with its files in a
folder of its own; the page (`python -m grader page` with c.HubTransport.transport =
"http") reaches those servers only through the hub's proxy, with its own token and
the role the hub gives it (access:servers on the students' group). A student gets the
assignment into their server, answers, checks, hands in; after their due date the
page shows the feedback and writes it into their server. A form naming another
student, a form from another site, a student outside the course's group and a
stopped server are refused with a sentence and nothing stored; the page's token
never reaches the browser.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from grader.recording import set_due_date
from grader.service import JobState, SourceKind, course_store
from grader.settings import load
from testsupport import hub_browser
from testsupport.hub import VENV_BIN, install_proxy
from testsupport.hub_browser import answering, chromium, stop, wait_for
from testsupport.network import free_port
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, make_course, released

ADA, BOB, OUTSIDER, INES = "ada", "bob", "olga", "ines"
PASSWORD = "page-over-http-3"
TOKEN = "grading-page-token-" + "5" * 32  # the page's own, as the hub hands it over
GRADED_SECONDS = 300
CONFIG = """\
c = get_config()
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.Spawner.args = ["--allow-root"]
c.Spawner.default_url = "/tree"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.JupyterHub.load_groups = {{"tiny-students": {{"users": ["ada", "bob"]}},
                             "tiny-instructors": {{"users": ["ines"]}}}}
c.JupyterHub.services = [{{
    "name": "grading", "url": "http://127.0.0.1:{page_port}", "oauth_no_confirm": True,
    "api_token": {token!r},
    "command": [{python!r}, "-m", "grader", "page", "--port", "{page_port}",
                "--course", {course!r}],
}}]


def course_access(spawner):
    # a server of the course's students lets in the course page's scope (a filter by
    # group is not resolved by the server itself, only an exact scope is)
    if "tiny-students" in [group.name for group in spawner.user.groups]:
        spawner.oauth_access_scopes = [*spawner.oauth_access_scopes,
                                       "access:servers!group=tiny-students"]


c.Spawner.pre_spawn_hook = course_access
c.JupyterHub.load_roles = [
    {{"name": "user", "scopes": ["self", "access:services!service=grading"]}},
    {{"name": "tiny-grading", "services": ["grading"],
      "scopes": ["access:servers!group=tiny-students"]}},
]
"""
COURSE_SETTINGS = """
c.HubTransport.transport = "http"
c.HubTransport.servers_url = "http://127.0.0.1:{port}"
c.HubTransport.students_group = "tiny-students"
c.HubTransport.instructors_group = "tiny-instructors"
c.HubTransport.timeout_seconds = 20
c.GradingService.feedback_check_seconds = 1
"""


@pytest.fixture(scope="module")
def hub():
    base = tempfile.mkdtemp(prefix="gptcourse-http-page-")
    course = make_course(os.path.join(base, "course"))
    homes = os.path.join(base, "homes")
    os.makedirs(homes)
    port = free_port()
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(COURSE_SETTINGS.format(port=port))
    set_due_date(load(course), ASSIGNMENT, "2030-01-01 17:00:00 UTC")
    config = os.path.join(base, "jupyterhub_config.py")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write(CONFIG.format(port=port, hub_port=free_port(), api_port=free_port(),
                                   proxy=install_proxy(), password=PASSWORD, homes=homes,
                                   page_port=free_port(), token=TOKEN, python=sys.executable,
                                   course=course))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "GPTCOURSE_"))}
    env["PATH"] = os.pathsep.join([VENV_BIN, env.get("PATH", "/usr/bin:/bin")])
    log = open(os.path.join(base, "hub.log"), "w")
    process = subprocess.Popen([os.path.join(VENV_BIN, "jupyterhub"), "-f", config], cwd=base,
                               env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    service = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--course", course],
                               cwd=course, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for("the hub answers", lambda: answering(url + "/hub/health")
                 and process.poll() is None, 120)
        yield {"url": url, "course": course, "homes": homes, "log": log.name}
    finally:
        stop(service)
        stop(process)
        log.close()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


def log_in(browser, hub, user, seen):
    return hub_browser.log_in(browser, hub["url"], user, PASSWORD, seen)


def start_server(page, hub, user):
    hub_browser.start_server(page, hub["url"], user)


def press(page, hub, label):
    return hub_browser.press(page, hub["url"], label)


def test_a_student_gets_checks_hands_in_and_reads_the_feedback(hub, browser):
    seen = []
    page = log_in(browser, hub, ADA, seen)
    assert press(page, hub, "Get").startswith("get: not done: your server is not running")
    assert page.get_by_role("link", name="Start my server").count() == 1
    start_server(page, hub, ADA)
    home = os.path.join(hub["homes"], ADA)
    assert press(page, hub, "Get") == f"written into your server: ~/{ASSIGNMENT}/{NOTEBOOK}.ipynb"
    path = os.path.join(home, ASSIGNMENT, f"{NOTEBOOK}.ipynb")
    with open(path, encoding="utf-8") as handle:
        assert json.load(handle) == released(hub["course"])
    with open(path, "w", encoding="utf-8") as handle:  # what saving in JupyterLab writes
        json.dump(correct(released(hub["course"]),
                          double_answer="def double(x):\n    return x\n"), handle)
    assert press(page, hub, "Check my notebook").startswith(
        f"hand-in 1 of {ASSIGNMENT} is queued for its checks; 4 of 5 checks left")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(correct(released(hub["course"])), handle)
    assert press(page, hub, "Hand in").startswith(f"handed in: hand-in 2 of {ASSIGNMENT} at ")
    settings = load(hub["course"])
    store = course_store(settings.data, settings.db_url)
    wait_for("the service grades both", lambda: [j.state for j in store.jobs(ADA)]
             == [JobState.GRADED, JobState.GRADED], GRADED_SECONDS)
    check, hand_in = store.jobs(ADA)
    assert (check.source.kind, hand_in.source.kind) == (SourceKind.CHECK, SourceKind.HUB)
    assert (check.score, hand_in.score) == (3.0, 6.0)
    assert page.get_by_role("link", name=NOTEBOOK).count() == 0  # before the due date
    set_due_date(settings, ASSIGNMENT, "2020-01-01 17:00:00 UTC")
    wait_for("the feedback is given out", lambda: store.releases(), 120)
    page.goto(f"{hub['url']}/services/grading/")
    page.get_by_role("link", name=NOTEBOOK).click()
    assert "6" in page.content() and "double" in page.content()
    assert press(page, hub, "Put the feedback in my server") == (
        f"feedback written into your server: ~/{ASSIGNMENT}/feedback/{hand_in.id}/"
        f"{NOTEBOOK}.html")
    assert os.path.isfile(os.path.join(home, ASSIGNMENT, "feedback", str(hand_in.id),
                                       f"{NOTEBOOK}.html"))
    assert not any(TOKEN in text for text in seen)
    assert all(TOKEN not in c["value"] for c in page.context.cookies())
    page.context.close()


def test_forged_cross_site_and_outside_requests_are_refused(hub, browser):
    seen = []
    page = log_in(browser, hub, BOB, seen)
    start_server(page, hub, BOB)
    store = course_store(load(hub["course"]).data)
    before = len(store.jobs())
    page.goto(f"{hub['url']}/services/grading/")
    xsrf = page.locator("input[name=_xsrf]").first.get_attribute("value")
    forged = page.request.post(f"{hub['url']}/services/grading/hand-in", form={
        "_xsrf": xsrf, "assignment": ASSIGNMENT, "student": ADA}, max_redirects=0)
    assert forged.status == 403
    assert (f"the form names {ADA}, but you are logged in as {BOB}: the page acts only for "
            "who is logged in; nothing was done") in forged.text()
    other_site = page.request.post(f"{hub['url']}/services/grading/hand-in", form={
        "assignment": ASSIGNMENT}, headers={"Origin": "http://elsewhere.example"},
        max_redirects=0)
    assert other_site.status == 403
    assert "a request sent from another site (http://elsewhere.example)" in other_site.text()
    no_token = page.request.post(f"{hub['url']}/services/grading/hand-in", form={
        "assignment": ASSIGNMENT}, max_redirects=0)
    assert no_token.status == 403 and "_xsrf" in no_token.text()
    assert len(store.jobs()) == before
    page.context.close()
    page = log_in(browser, hub, OUTSIDER, seen)
    response = page.goto(f"{hub['url']}/services/grading/")
    assert response.status == 403
    assert f"{OUTSIDER} is not among the students of this course" in page.content()
    page.context.close()
    page = log_in(browser, hub, INES, seen)
    page.goto(f"{hub['url']}/services/grading/?student={ADA}")
    assert page.get_by_role("button").count() == 0  # an instructor acts for nobody
    page.context.close()
    assert not any(TOKEN in text for text in seen)
