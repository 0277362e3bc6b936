"""The grading service's page on a real JupyterHub, in headless Chromium.

A hub with the page as a managed service (deploy/jupyterhub_service.py's "grading"
entry, on a free port) and `python -m grader serve` grading the tiny course: a
student logs in with the hub's own login, opens /services/grading/, asks for a
check before saving a notebook (refused, costing nothing), saves one in their
home and asks again; the service grades it and the page shows each check by its
visibility (the hidden check as a hint, no points before the due date) and the
checks left. Another student's page is refused to a student and shown to a
member of the instructors' group. A folder where the notebook should be, or a hub
user with no account on the machine, gets a line saying so, nothing spent. A hidden
check's hint never shows what the student's code raised about a hidden input.
The page passes axe-core's WCAG 2.1 A and AA. As deploy/jupyterhub_service.py runs it,
the page runs as an account of its own, not root, and reads each saved notebook through
the home reader, which the hub runs as root and which reads it as the student.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest

from grader.recording import set_due_date
from grader.service import JobState, course_store
from grader.settings import load
from testsupport.accessibility import CHROMIUM, CHROMIUM_FLAGS, axe_violations, violations_report
from testsupport.hub import (GRADER, PASSWORD, SITE_PACKAGES, STUDENTS, VENV_BIN, chown_tree,
                             ensure_account, install_proxy, readable_environment)
from testsupport.hub_browser import answering, wait_for
from testsupport.network import free_port, listening
from testsupport.course import ROOT
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, make_course, released

ALICE, BOB = STUDENTS[:2]
PAGE_ACCOUNT = "gptc-page"  # the course's account the page runs as (deploy: "grader")
SCREENSHOTS = os.path.join(ROOT, "_build", "screenshots")
PAGE_WAIT = 60_000  # ms, one step in the browser
GRADED_SECONDS = 300  # the service's first grading starts its templates
CONFIG = """\
c = get_config()
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.allowed_groups = {{"gptcourse-students", "gptcourse-graders"}}
c.JupyterHub.services = [{{
    "name": "grading", "url": "http://127.0.0.1:{page_port}", "oauth_no_confirm": True,
    "command": [{page_python!r}, "-m", "grader", "page", "--port", "{page_port}",
                "--home-reader", {socket!r}, "--course", {course!r}],
    "user": {page_account!r},
}}, {{
    "name": "staff-grading", "url": "http://127.0.0.1:{staff_port}", "oauth_no_confirm": True,
    "command": [{page_python!r}, "-m", "grader", "grading-page", "--hub", "gptcourse-graders",
                "--port", "{staff_port}", "--course", {course!r}],
    "user": {page_account!r},
}}, {{
    "name": "home-reader",
    "command": [{python!r}, "-m", "grader", "home-reader", "--socket", {socket!r},
                "--page-account", {page_account!r}, "--course", {course!r}],
}}]
c.JupyterHub.load_groups = {{"gptcourse-graders": {{"users": [{grader!r}]}}}}
c.JupyterHub.load_roles = [
    {{"name": "user", "scopes": ["self", "access:services!service=grading"]}},
    {{"name": "course-staff", "groups": ["gptcourse-graders"],
      "scopes": ["access:services!service=staff-grading"]}},
]
"""


@pytest.fixture(scope="module")
def hub_with_page():
    if os.geteuid() != 0:
        pytest.fail("the page's test makes Unix accounts and reads their homes: it runs as "
                    "root (make test on the course's CI machine does)")
    base = tempfile.mkdtemp(prefix="gptcourse-page-")
    os.chmod(base, 0o755)  # the page's account reaches the course and the reader's socket
    course = make_course(os.path.join(base, "course"))
    set_due_date(load(course), ASSIGNMENT, "2030-01-01 17:00:00 UTC")
    accounts = {name: ensure_account(name, "gptcourse-students") for name in (ALICE, BOB)}
    accounts[GRADER] = ensure_account(GRADER, "gptcourse-graders")
    accounts[PAGE_ACCOUNT] = ensure_account(PAGE_ACCOUNT, "gptcourse-page")
    chown_tree(course, accounts[PAGE_ACCOUNT])  # the course's data is the page's account's
    # a Python the page's account can run, beside the rest if hard links reach .venv
    same_disk = os.stat(base).st_dev == os.stat(SITE_PACKAGES).st_dev
    environment = (os.path.join(base, "python") if same_disk else
                   tempfile.mkdtemp(prefix="page-python-", dir=os.path.join(ROOT, ".hub-deps")))
    os.makedirs(environment, exist_ok=True)
    page_python = os.path.join(readable_environment(environment), "bin", "python")
    socket = os.path.join(base, "run", "home-reader.sock")
    port, page_port, staff_port = free_port(), free_port(), free_port()
    config = os.path.join(base, "jupyterhub_config.py")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write(CONFIG.format(port=port, hub_port=free_port(), api_port=free_port(),
                                   proxy=install_proxy(), page_port=page_port,
                                   python=sys.executable, page_python=page_python,
                                   socket=socket, page_account=PAGE_ACCOUNT, course=course,
                                   staff_port=staff_port, grader=GRADER))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "GPTCOURSE_"))}
    env["PATH"] = os.pathsep.join([VENV_BIN, env.get("PATH", "/usr/bin:/bin")])
    log = open(os.path.join(base, "hub.log"), "w")
    hub = subprocess.Popen([os.path.join(VENV_BIN, "jupyterhub"), "-f", config], cwd=base,
                           env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    service = subprocess.Popen([sys.executable, "-m", "grader", "serve", "--course", course],
                               cwd=course, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for("the hub and its page answer",
                 lambda: answering(url + "/hub/health") and hub.poll() is None, 120)
        # the hub starts its services after it answers: the page and the staff's page
        # listening, and the home reader's socket made the page account's
        page_uid = accounts[PAGE_ACCOUNT].pw_uid
        wait_for("the pages listen and the home reader's socket is the page's account's",
                 lambda: listening(page_port) and listening(staff_port)
                 and os.path.exists(socket) and os.stat(socket).st_uid == page_uid
                 and hub.poll() is None, 120)
        yield {"url": url, "course": course, "accounts": accounts, "log": log.name,
               "page_port": page_port, "socket": socket}
    finally:
        for process in (service, hub):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
        for pid in processes_running(base):  # a service the hub left behind (a root reader)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log.close()
        shutil.rmtree(environment, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


def page_of(browser, hub, user, query="", service="grading"):
    """Log in with the hub's form and open the service's page (through HubOAuth)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    context.set_default_timeout(PAGE_WAIT)
    page = context.new_page()
    page.goto(f"{hub['url']}/hub/login?next=/services/{service}/{query}")
    page.fill("#username_input", user)
    page.fill("#password_input", PASSWORD)
    page.click("#login_submit")
    page.wait_for_url(f"**/services/{service}/{query}")
    return page


def save_notebook(hub, user, nb):
    """What the student's JupyterLab would save: ~/tiny/tiny.ipynb, the student's own."""
    entry = hub["accounts"][user]
    folder = os.path.join(entry.pw_dir, ASSIGNMENT)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"{NOTEBOOK}.ipynb")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(nb, handle)
    for owned in (folder, path):
        os.chown(owned, entry.pw_uid, entry.pw_gid)


def test_a_student_checks_a_saved_notebook_and_sees_it_by_visibility(hub_with_page, browser):
    from playwright.sync_api import expect

    page = page_of(browser, hub_with_page, ALICE)
    expect(page.locator("h1")).to_have_text(f"Checks of {ALICE}'s notebooks")
    expect(page.get_by_text("5 of 5 checks left per hour")).to_be_visible()
    button = page.get_by_role("button", name=f"Check my notebook ({ASSIGNMENT})")
    button.click()
    expect(page.locator("[role=status]")).to_have_text(
        f"not checked: no saved notebook at ~/{ASSIGNMENT}/{NOTEBOOK}.ipynb; fetch the "
        "assignment from the Assignments tab and save it; it costs no check")
    store = course_store(load(hub_with_page["course"]).data)
    assert store.jobs() == []
    # double wrong for every number: the visible check fails with its message, the
    # hidden one shows only a hint; ones and answer right
    save_notebook(hub_with_page, ALICE, correct(released(hub_with_page["course"]),
                                                double_answer="def double(x):\n    return x\n"))
    page.get_by_role("button", name=f"Check my notebook ({ASSIGNMENT})").click()
    expect(page.locator("[role=status]")).to_contain_text(
        f"hand-in 1 of {ASSIGNMENT} is queued for its checks; 4 of 5 checks left")
    [job] = store.jobs(ALICE)
    assert job.source == "check"
    wait_for("the service grades the check",
             lambda: store.job(job.id).state == JobState.GRADED, GRADED_SECONDS)
    page.reload()  # asks for nothing again
    assert [j.id for j in store.jobs(ALICE)] == [job.id]
    expect(page.locator("[role=status]")).to_have_count(0)
    # the hand-in's checks (the table of where the student stands comes first)
    rows = page.locator("table:has(caption:text('Checks of this hand-in')) tbody tr")
    expect(rows).to_have_count(4)
    cells = [[cell.inner_text() for cell in row.locator("td").all()] for row in rows.all()]
    assert cells == [
        ["double_visible", "failed", "", "AssertionError: double(2) should be 4"],
        ["double_hidden", "failed", "", "AssertionError: double gave a wrong value"],
        ["ones_values", "passed", "", ""],
        ["answer_value", "passed", "", ""],
    ]
    os.makedirs(SCREENSHOTS, exist_ok=True)
    page.screenshot(path=os.path.join(SCREENSHOTS, "service-page.png"), full_page=True)
    violations = axe_violations(page)
    assert violations == [], violations_report(violations)
    # the same notebook again costs nothing and is not graded again
    page.get_by_role("button", name=f"Check my notebook ({ASSIGNMENT})").click()
    expect(page.locator("[role=status]")).to_have_text(
        "not checked again: your saved notebook is the same as when it was last checked "
        f"(the same files as hand-in {job.id}); it costs no check")
    expect(page.get_by_text("4 of 5 checks left per hour").first).to_be_visible()
    page.context.close()


def test_a_student_sees_only_their_own_page_and_an_instructor_sees_any(hub_with_page,
                                                                        browser):
    from playwright.sync_api import expect

    page = page_of(browser, hub_with_page, BOB)
    response = page.goto(f"{hub_with_page['url']}/services/grading/?student={ALICE}")
    assert response.status == 403
    page.context.close()
    page = page_of(browser, hub_with_page, GRADER, f"?student={ALICE}")
    expect(page.locator("h1")).to_have_text(f"Checks of {ALICE}'s notebooks")
    expect(page.get_by_text("Hand-in 1,")).to_be_visible()
    assert page.get_by_role("button").count() == 0  # nobody checks a notebook for another
    page.context.close()


def test_a_folder_in_place_of_the_notebook_is_named_and_costs_nothing(hub_with_page, browser):
    from playwright.sync_api import expect

    entry = hub_with_page["accounts"][BOB]
    folder = os.path.join(entry.pw_dir, ASSIGNMENT, f"{NOTEBOOK}.ipynb")
    os.makedirs(folder, exist_ok=True)
    for owned in (os.path.dirname(folder), folder):
        os.chown(owned, entry.pw_uid, entry.pw_gid)
    page = page_of(browser, hub_with_page, BOB)
    page.get_by_role("button", name=f"Check my notebook ({ASSIGNMENT})").click()
    expect(page.locator("[role=status]")).to_have_text(
        f"not checked: ~/{ASSIGNMENT}/{NOTEBOOK}.ipynb is a folder, not a notebook file; it "
        "costs no check")
    expect(page.get_by_text("5 of 5 checks left per hour")).to_be_visible()
    assert course_store(load(hub_with_page["course"]).data).jobs(BOB) == []
    page.context.close()


def test_a_hub_user_whose_account_is_gone_is_told_so_and_nothing_is_spent(hub_with_page,
                                                                           browser):
    """A hub user without an account on the machine (one the LTI login made, or a student
    whose account was removed): logged in, then the account removed."""
    from playwright.sync_api import expect

    gone = f"gptc-gone{os.getpid() % 100000}"  # this run's own account, removed below
    ensure_account(gone, "gptcourse-students")
    try:
        page = page_of(browser, hub_with_page, gone)
    finally:
        subprocess.run(["userdel", "--remove", gone], check=True, capture_output=True)
    page.get_by_role("button", name=f"Check my notebook ({ASSIGNMENT})").click()
    expect(page.locator("[role=status]")).to_have_text(
        f"not checked: your hub account, {gone}, has no account on this machine, so no home "
        "folder to read a saved notebook from (ask your instructor); it costs no check")
    assert course_store(load(hub_with_page["course"]).data).jobs(gone) == []
    page.context.close()

def test_a_hidden_check_does_not_show_the_hidden_input_the_students_code_raised(hub_with_page,
                                                                                 browser):
    """The red team's double: right on the visible test's 2, and for any other input it
    raises an error naming that input, to read the hidden tests' inputs off the page."""
    from playwright.sync_api import expect

    save_notebook(hub_with_page, ALICE, correct(released(hub_with_page["course"]), double_answer=(
        "def double(x):\n    if x != 2:\n        raise ValueError(f'HIDDEN INPUT WAS {x}')\n"
        "    return 2 * x\n")))
    page = page_of(browser, hub_with_page, ALICE)
    page.get_by_role("button", name=f"Check my notebook ({ASSIGNMENT})").click()
    expect(page.locator("[role=status]")).to_contain_text("is queued for its checks")
    store = course_store(load(hub_with_page["course"]).data)
    newest = max(store.jobs(ALICE), key=lambda job: job.id)
    wait_for("the service grades the check",
             lambda: store.job(newest.id).state == JobState.GRADED, GRADED_SECONDS)
    [hidden] = [c for c in store.job(newest.id).checks if c.grade_id == "double_hidden"]
    assert hidden.message.startswith("ValueError: in double: HIDDEN INPUT WAS ")  # as graded
    page.reload()
    first = page.locator("h3").first.locator("xpath=following-sibling::table[1]")
    cells = [[cell.inner_text() for cell in row.locator("td").all()]
             for row in first.locator("tbody tr").all()]
    assert cells[:2] == [
        ["double_visible", "passed", "", ""],
        ["double_hidden", "failed", "", "double raised ValueError on an input of the hidden "
                                        "tests; what it said is shown after the due date"]]
    assert "HIDDEN INPUT" not in page.content()
    page.context.close()


def processes_running(*words):
    """{pid: uid} of the processes whose command line holds `words` in order, from /proc."""
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read().decode(errors="replace").split("\0")
            with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
                [uid_line] = [line for line in handle if line.startswith("Uid:")]
        except (OSError, ValueError):
            continue  # a process that ended meanwhile
        joined = " ".join(command)
        if " ".join(words) in joined:
            found[int(pid)] = int(uid_line.split()[2])  # the effective uid
    return found


def test_the_page_runs_as_its_own_account_and_the_reader_reads_as_the_student(hub_with_page):
    """The page's process, read from /proc: the course's account, not root; the home
    reader, root, is the one that becomes a student, and it listens on no port."""
    page = processes_running("-m", "grader", "page", "--port", str(hub_with_page["page_port"]))
    reader = processes_running("-m", "grader", "home-reader", "--socket",
                               hub_with_page["socket"])
    assert list(page.values()) == [hub_with_page["accounts"][PAGE_ACCOUNT].pw_uid]
    assert list(reader.values()) == [0]
    assert 0 not in page.values()


def test_the_staffs_grading_page_lets_in_the_graders_group_and_no_student(hub_with_page,
                                                                         browser):
    """The grading page as the hub's service: the course's grader is who the hub says,
    and a student, whom the hub gives no access to it, is refused."""
    page = page_of(browser, hub_with_page, GRADER, service="staff-grading")
    try:
        assert f"Signed in as {GRADER}" in page.locator("header").inner_text()
    finally:
        page.context.close()
    page = page_of(browser, hub_with_page, ALICE)  # logged in, then the staff's page
    try:
        response = page.goto(f"{hub_with_page['url']}/services/staff-grading/")
        assert response.status == 403
        assert "Signed in as" not in page.content()
    finally:
        page.context.close()
