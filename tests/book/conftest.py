"""What the site's tests share: the built site, a local server for it, and a browser.

One session fixture builds the site with ``make book``, which reuses ``_build/html``
when a finished build is newer than every page, config and package file (the
publishing tests, on the other worker, wait for it: testsupport.course.site_build_lock); the
browser tests serve it on 127.0.0.1 and open it in Debian's headless Chromium
through Playwright.
"""

import functools
import http.server
import subprocess
import threading
from pathlib import Path

import pytest

from testsupport.accessibility import CHROMIUM, chromium
from testsupport.course import ROOT as COURSE_ROOT, site_build_lock

ROOT = Path(COURSE_ROOT).resolve()
SITE = ROOT / "_build" / "html"
BUILD_OK = SITE / ".build-ok"  # written by `make book` after a build without error
BUILD_TIMEOUT_S = 1800  # guards a hung build; the tests run side by side


@pytest.fixture(scope="session")
def site():
    """``_build/html``, as ``make book`` leaves it (it builds only what changed)."""
    with site_build_lock(ROOT):
        result = subprocess.run(
            ["make", "-s", "book"], cwd=ROOT, capture_output=True, text=True,
            timeout=BUILD_TIMEOUT_S,
        )
    if result.returncode != 0 or not BUILD_OK.exists():
        log = (result.stdout + result.stderr)[-6000:]
        pytest.fail(f"`make book` failed (exit {result.returncode}):\n{log}")
    return SITE


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def server(site):
    """The built site over HTTP on 127.0.0.1 (a random free port)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")  # closed before other modules start their own browser
def browser(tmp_path_factory):
    """Debian's Chromium, headless, with a fresh profile, driven through Playwright."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make system` installs Debian's chromium")
    with chromium(str(tmp_path_factory.mktemp("chromium-profile"))) as context:
        yield context
