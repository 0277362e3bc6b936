"""The course over HTTP on a real JupyterHub, in headless Chromium: no shared disk.

The hub knows its users by its own login (no account on the machine), puts them in
the course's two hub groups, and starts each student's server with its files in a
folder of its own and the hand-in panel (grader.student_server) switched on; the page
(`python -m grader page` with c.HubTransport.transport = "http") holds no scope on any
student's server: each student's server calls the page's API with its own token. A
student gets the assignment into their server, answers, checks, hands in from the
panel; after their due date the page shows the feedback and the panel writes it into
their server. A student whose own server logs every header and answers with redirects
gets no token and hands in only her own work; a browser posting to the page's API,
another site's form and a student outside the course's group are refused, and a token
is answered for its owner only; the page's token never reaches the browser.
"""

import base64
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
c.Spawner.args = ["--allow-root", "--ServerApp.jpserver_extensions=grader.student_server=True",
                  "--ServerApp.jpserver_extensions=nbgrader.server_extensions.formgrader=False"]
c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server",
                                 "read:users:groups!user", "access:services!service=grading",
                                 "read:services!service=grading"]
c.Spawner.default_url = "/tree"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.JupyterHub.load_groups = {{"tiny-students": {{"users": ["ada", "bob", "mallory", "victor"]}},
                             "tiny-instructors": {{"users": ["ines"]}}}}
c.JupyterHub.services = [{{
    "name": "grading", "url": "http://127.0.0.1:{page_port}", "oauth_no_confirm": True,
    "api_token": {token!r},
    "command": [{python!r}, "-m", "grader", "page", "--port", "{page_port}",
                "--course", {course!r}],
}}]

c.JupyterHub.load_roles = [
    {{"name": "user", "scopes": ["self", "access:services!service=grading",
                                "read:services!service=grading"]}},
]
"""
COURSE_SETTINGS = """
c.HubTransport.transport = "http"
c.HubTransport.students_group = "tiny-students"
c.HubTransport.instructors_group = "tiny-instructors"
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
        handle.write(COURSE_SETTINGS)
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


def press(page, hub, user, label):
    return hub_browser.press_in_panel(page, hub["url"], user, label)


# What a student who controls her own server can do with it: a jupyter_server_config.py in
# her home that writes down every header of every request her server gets, and answers any
# request that carries a token (as a page calling in would) with a redirect to a
# classmate's notebook.
HOSTILE_CONFIG = """\
import json
from jupyter_server.services.contents.handlers import ContentsHandler

def log_headers(handler):
    with open({log!r}, "a", encoding="utf-8") as handle:
        handle.write(json.dumps([handler.request.method, handler.request.uri,
                                 dict(handler.request.headers)]) + "\\n")

c.ServerApp.tornado_settings = {{"log_function": log_headers}}
_prepare = ContentsHandler.prepare

def prepare(self):
    if self.request.headers.get("Authorization"):
        return self.redirect({victim!r})
    return _prepare(self)

ContentsHandler.prepare = prepare
"""


def test_a_student_gets_checks_hands_in_and_reads_the_feedback(hub, browser):
    seen = []
    page = log_in(browser, hub, ADA, seen)
    page.goto(f"{hub['url']}/services/grading/")
    panel = page.get_by_role("link", name="my hand-in panel")
    assert panel.get_attribute("href") == f"/user/{ADA}/course-hand-in/grading/"
    panel.click()  # her server is not running: the hub's own page offers to start it
    page.wait_for_load_state()
    assert "/hub/" in page.url and f"/user/{ADA}/course-hand-in/grading/" in page.url
    start_server(page, hub, ADA)
    home = os.path.join(hub["homes"], ADA)
    assert press(page, hub, ADA, "Get") == (
        f"written into your server: ~/{ASSIGNMENT}/{NOTEBOOK}.ipynb")
    path = os.path.join(home, ASSIGNMENT, f"{NOTEBOOK}.ipynb")
    with open(path, encoding="utf-8") as handle:
        assert json.load(handle) == released(hub["course"])
    assert press(page, hub, ADA, "Get") == (
        f"already on your server as released: ~/{ASSIGNMENT}/{NOTEBOOK}.ipynb")
    with open(path, "w", encoding="utf-8") as handle:  # what saving in JupyterLab writes
        json.dump(correct(released(hub["course"]),
                          double_answer="def double(x):\n    return x\n"), handle)
    assert press(page, hub, ADA, "Get") == (
        f"~/{ASSIGNMENT}/{NOTEBOOK}.ipynb holds your changes and is kept; the released "
        f"notebook is written beside it as ~/{ASSIGNMENT}/{NOTEBOOK}.released.ipynb")
    assert press(page, hub, ADA, "Check my notebook").startswith(
        f"hand-in 1 of {ASSIGNMENT} is queued for its checks; 4 of 5 checks left")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(correct(released(hub["course"])), handle)
    assert press(page, hub, ADA, "Hand in").startswith(
        f"handed in: hand-in 2 of {ASSIGNMENT} at ")
    settings = load(hub["course"])
    store = course_store(settings.data, settings.db_url)
    wait_for("the service grades both", lambda: [j.state for j in store.jobs(ADA)]
             == [JobState.GRADED, JobState.GRADED], GRADED_SECONDS)
    check, hand_in = store.jobs(ADA)
    assert (check.source.kind, hand_in.source.kind) == (SourceKind.CHECK, SourceKind.HUB)
    assert (check.score, hand_in.score) == (3.0, 6.0)
    page.goto(f"{hub['url']}/services/grading/")
    assert page.get_by_role("link", name=NOTEBOOK).count() == 0  # before the due date
    set_due_date(settings, ASSIGNMENT, "2020-01-01 17:00:00 UTC")
    wait_for("the feedback is given out", lambda: store.releases(), 120)
    page.goto(f"{hub['url']}/services/grading/")
    page.get_by_role("link", name=NOTEBOOK).click()
    assert "6" in page.content() and "double" in page.content()
    assert press(page, hub, ADA, "Put the feedback in my server") == (
        f"feedback written into your server: ~/{ASSIGNMENT}/feedback/{hand_in.id}/"
        f"{NOTEBOOK}.html")
    assert os.path.isfile(os.path.join(home, ASSIGNMENT, "feedback", str(hand_in.id),
                                       f"{NOTEBOOK}.html"))
    assert not any(TOKEN in text for text in seen)
    assert all(TOKEN not in c["value"] for c in page.context.cookies())
    page.context.close()


def test_a_server_that_logs_every_header_and_redirects_gets_no_token_and_no_classmate(
        hub, browser):
    """Mallory controls her own server: it writes down every header it is sent and answers
    a token-bearing read with a redirect to a classmate's notebook. No token of the page
    reaches it, and what she hands in is her own notebook, never Victor's."""
    mallory, victor = "mallory", "victor"
    log = os.path.join(hub["homes"], mallory, "headers.log")
    config = os.path.join(hub["homes"], mallory, ".jupyter", "jupyter_server_config.py")
    os.makedirs(os.path.dirname(config))
    with open(config, "w", encoding="utf-8") as handle:
        handle.write(HOSTILE_CONFIG.format(log=log, victim=(
            f"/user/{victor}/api/contents/{ASSIGNMENT}/{NOTEBOOK}.ipynb?content=1")))
    seen = []
    page = log_in(browser, hub, victor, seen)
    start_server(page, hub, victor)
    press(page, hub, victor, "Get")
    victims = os.path.join(hub["homes"], victor, ASSIGNMENT, f"{NOTEBOOK}.ipynb")
    with open(victims, "w", encoding="utf-8") as handle:
        json.dump(correct(released(hub["course"]),
                          double_answer="def double(x):\n    return 2 * x  # VICTOR'S\n"),
                  handle)
    page.context.close()
    page = log_in(browser, hub, mallory, seen)
    start_server(page, hub, mallory)
    assert press(page, hub, mallory, "Get").startswith("written into your server")
    assert press(page, hub, mallory, "Hand in").startswith(f"handed in: hand-in ")
    settings = load(hub["course"])
    store = course_store(settings.data, settings.db_url)
    handed = [job for job in store.jobs(mallory) if job.source.kind == SourceKind.HUB]
    assert len(handed) == 1
    sent = b"".join(store.files(handed[0]).values())
    assert b"VICTOR'S" not in sent and json.loads(sent) == released(hub["course"])
    assert [job for job in store.jobs(victor)] == []  # nothing of Victor's was taken
    with open(log, encoding="utf-8") as handle:
        requests = [json.loads(line) for line in handle]
    assert any(f"/user/{mallory}/course-hand-in/grading/" in uri for _, uri, _ in requests)
    headers = json.dumps(requests)
    assert TOKEN not in headers
    own_pages = f"{hub['url']}/user/{mallory}/"  # her own browser's requests, from her pages
    assert [r for r in requests if "Authorization" in r[2]
            and not r[2].get("Referer", "").startswith(own_pages)] == [], (
        "a request with a token reached the student's server from elsewhere")
    page.context.close()


def test_forged_cross_site_and_outside_requests_are_refused(hub, browser):
    seen = []
    page = log_in(browser, hub, BOB, seen)
    start_server(page, hub, BOB)
    store = course_store(load(hub["course"]).data)
    before = len(store.jobs())
    api = f"{hub['url']}/services/grading/api/hand-in/{ASSIGNMENT}"
    body = json.dumps({"notebooks": {}, "student": ADA})
    by_cookie = page.request.post(api, data=body, max_redirects=0)
    assert by_cookie.status == 403
    assert "the page's API answers a student's own server, with its token" in by_cookie.text()
    page.goto(f"{hub['url']}/hub/token")  # a token of Bob's own, as his server holds one
    token = page.evaluate("""async () => {
        const answer = await fetch(window.jhdata.base_url + "api/users/bob/tokens", {
            method: "POST", headers: {"X-XSRFToken": window.jhdata.xsrf_token,
                                      "Content-Type": "application/json"},
            body: JSON.stringify({note: "test", scopes: [
                "access:services!service=grading", "read:users:groups!user"]})});
        return (await answer.json()).token; }""")
    named = page.request.post(api, data=json.dumps({"student": ADA, "notebooks": {
        f"{NOTEBOOK}.ipynb": base64.b64encode(json.dumps(correct(released(
            hub["course"]))).encode()).decode()}}), headers={
        "Authorization": f"token {token}"}, max_redirects=0)
    assert named.status == 200, named.text()
    assert named.json()["message"].startswith("handed in: hand-in ")
    assert [job.student for job in store.jobs()[before:]] == [BOB]  # the token's owner
    other_site = page.request.post(
        f"{hub['url']}/user/{BOB}/course-hand-in/grading/hand-in",
        form={"assignment": ASSIGNMENT}, headers={"Origin": "http://elsewhere.example"},
        max_redirects=0)
    assert other_site.status == 403
    assert len(store.jobs()) == before + 1
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
