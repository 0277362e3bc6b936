"""What the publishing tests share (tests/publish): copies of the course that publish on
their own, the `grader` command in them, a static web server on 127.0.0.1 that records what
it served, and the files of a bundle."""

import contextlib
import functools
import http.server
import os
import subprocess
import sys
import threading

from testsupport.course import ROOT, copy_course, nbgrader_env

BUNDLE = os.path.join(ROOT, "_publish")
SITE = os.path.join(ROOT, "_build", "html")
PUBLISH_SECONDS = 3600  # the first site build runs every page
# what publishing reads besides the homework: the package's sources, the pages and the site's
# configuration (the wheel is built from a copy as from the course)
PUBLISHED_FILES = ("src", "pyproject.toml", "README.md", "_config.yml", "book")


def publishing_copy(dest):
    """A copy of the course that `make release` and `python -m grader publish` work in."""
    return copy_course(dest, extra=PUBLISHED_FILES, for_make=True)


def grader(course, *args, timeout=PUBLISH_SECONDS):
    """`python -m grader ARGS --course course`; the CompletedProcess, its output as text."""
    return subprocess.run([sys.executable, "-m", "grader", *args, "--course", course],
                          cwd=course, env=nbgrader_env(), capture_output=True, text=True,
                          timeout=timeout)


def set_site(course, url):
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(f"c.CourseSite.url = {url!r}\n")


class RecordingHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the folder; remembers each path asked for (`requests` of the server)."""

    def log_message(self, *args):
        self.server.requests.append(self.path)


@contextlib.contextmanager
def static_server(folder):
    """`folder` served over HTTP on 127.0.0.1, on a free port, from before it exists; yields
    the server (its `url` and the `requests` it answered)."""
    handler = functools.partial(RecordingHandler, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.requests = []
    server.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def bundle_files(folder):
    """{path relative to `folder`: bytes} of every file under it."""
    found = {}
    for base, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(base, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, folder)] = handle.read()
    return found


def left_over_folders(course):
    """The publishing work folders left in a course folder."""
    return sorted(n for n in os.listdir(course) if n.startswith(("grader-publish-",
                                                                 "grader-retired-")))
