"""What the browser tests of a hub whose users are the hub's own share: waiting for a
state, stopping a process group, a headless Chromium, logging in, starting a server and
pressing a button of a course page."""

import json
import os
import signal
import subprocess
import time
import urllib.request

import pytest

from testsupport.accessibility import CHROMIUM, CHROMIUM_FLAGS
from testsupport.tiny_course import ASSIGNMENT

PAGE_WAIT = 60_000  # ms: one browser action, at most
SPAWN_WAIT = 180_000  # ms: a student's server started, at most


def wait_for(what, ready, seconds, every=0.5):
    """ready()'s first true value; the test fails saying `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = ready()
        if found:
            return found
        time.sleep(every)
    pytest.fail(f"{what} within {seconds} s")


def answering(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def stop(process):
    """A process started with start_new_session=True, and its group, stopped."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def chromium():
    """A headless Chromium for a module's tests (use as a generator fixture)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                              args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


def log_in(browser, url, user, password, seen):
    """A browser page logged in as `user` on the hub at `url`; every answer's headers and
    body it receives are added to `seen`."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(PAGE_WAIT)

    def keep(response):
        try:
            seen.append(json.dumps(response.headers) + response.text())
        except Exception:  # noqa: BLE001 (a redirect or an image has no text)
            seen.append(json.dumps(response.headers))

    context.on("response", keep)
    page = context.new_page()
    page.goto(f"{url}/hub/login?next=/hub/home")
    page.fill("#username_input", user)
    page.fill("#password_input", password)
    page.click("#login_submit")
    page.wait_for_url("**/hub/home")
    return page


def start_server(page, url, user):
    page.goto(f"{url}/hub/spawn/{user}")
    page.wait_for_url(f"**/user/{user}/**", timeout=SPAWN_WAIT)


def press(page, url, label, service="grading", assignment=ASSIGNMENT):
    """The course page's button `label` pressed (Check my notebook, on the exchange's page);
    the sentence the page answers with."""
    page.goto(f"{url}/services/{service}/")
    page.get_by_role("button", name=f"{label} ({assignment})").click()
    page.wait_for_url(f"**/services/{service}/")
    return page.locator("[role=status]").inner_text()


def press_in_panel(page, url, user, label, service="grading", assignment=ASSIGNMENT):
    """The button `label` of the student's hand-in panel in their own server pressed (the
    course over HTTP); the sentence the panel answers with."""
    panel = f"{url}/user/{user}/course-hand-in/{service}/"
    page.goto(panel)
    page.get_by_role("button", name=f"{label} ({assignment})").click()
    page.wait_for_url(panel)
    return page.locator("[role=status]").inner_text()
