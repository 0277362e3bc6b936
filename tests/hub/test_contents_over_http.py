"""The course page's loop over HTTP against a real Jupyter server (jupyter_server on
127.0.0.1, under /user/NAME/ as the hub's proxy serves it, with a token of its own).

Get writes the released notebook and never over one the student changed; Check and
Hand in read the saved notebook through the contents API and record it in the queue
as any hand-in is; the feedback goes into the server on request. Bad input is refused
with a sentence and nothing stored: a notebook over the size cap, a file that is not a
notebook, a folder or a link in its place, a token the server does not accept, a server
that never answers (a socket that takes the connection and says nothing) or answers too
slowly.
"""

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import pytest

from grader.plan import MAX_NOTEBOOK_BYTES
from grader.service import JobState, ReleaseOutcome, SourceKind, course_store
from grader.service.contents import ServerRefusal, StudentServer
from grader.service.over_http import (check_saved, feedback_to_server, get_released,
                                      hand_in_saved)
from grader.service.store import hand_in_digest
from grader.settings import load
from testsupport.network import free_port
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, make_course, released

STUDENT = "ada"
TOKEN = "the-page-token-" + "7" * 24
TIMEOUT = 2.0  # seconds, the page's limit for one request in these tests
START_SECONDS = 120
PATH = f"{ASSIGNMENT}/{NOTEBOOK}.ipynb"


@pytest.fixture(scope="module")
def server():
    """A Jupyter server of the student's own, its files in a folder of its own."""
    base = tempfile.mkdtemp(prefix="gptcourse-contents-")
    home = os.path.join(base, "home")
    os.makedirs(home)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "GPTCOURSE_"))}
    env.update(JUPYTER_CONFIG_DIR=os.path.join(base, "config"),
               JUPYTER_RUNTIME_DIR=os.path.join(base, "runtime"), HOME=home)
    log = open(os.path.join(base, "server.log"), "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         f"--ServerApp.base_url=/user/{STUDENT}/", f"--ServerApp.root_dir={home}",
         f"--IdentityProvider.token={TOKEN}"],
        cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"{url}/user/{STUDENT}/api/status?token={TOKEN}",
                                        timeout=5):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                log.close()
                pytest.fail("the Jupyter server did not start:\n"
                            + open(log.name, encoding="utf-8").read()[-3000:])
            time.sleep(0.3)
    try:
        yield {"url": url, "home": home}
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        log.close()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def course(tmp_path):
    root = make_course(str(tmp_path / "course"))
    settings = load(root)
    return settings, course_store(settings.data, settings.db_url)


@pytest.fixture
def home(server):
    """The student's files, emptied before each test (what the server serves)."""
    for name in os.listdir(server["home"]):
        path = os.path.join(server["home"], name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    return server["home"]


def student_server(server, token=TOKEN, url=None, timeout=TIMEOUT):
    return StudentServer(url or server["url"], "/", STUDENT, token, timeout)


def save(home, nb):
    os.makedirs(os.path.join(home, ASSIGNMENT), exist_ok=True)
    with open(os.path.join(home, PATH), "w", encoding="utf-8") as handle:
        json.dump(nb, handle)


def read_bytes(home, path=PATH):
    with open(os.path.join(home, path), "rb") as handle:
        return handle.read()


def test_get_writes_the_release_and_never_over_a_changed_notebook(server, home, course):
    settings, _ = course
    with open(os.path.join(settings.root, "release", ASSIGNMENT, f"{NOTEBOOK}.ipynb"),
              "rb") as handle:
        release = handle.read()
    said = get_released(settings, student_server(server), ASSIGNMENT)
    assert said == f"written into your server: ~/{PATH}"
    assert read_bytes(home) == release
    assert get_released(settings, student_server(server), ASSIGNMENT) == (
        f"already on your server as released: ~/{PATH}")
    answered = correct(released(settings.root))
    save(home, answered)
    mine = read_bytes(home)
    said = get_released(settings, student_server(server), ASSIGNMENT)
    beside = f"{ASSIGNMENT}/{NOTEBOOK}.released.ipynb"
    assert said == (f"~/{PATH} holds your changes and is kept; the released notebook is "
                    f"written beside it as ~/{beside}")
    assert read_bytes(home) == mine and read_bytes(home, beside) == release
    assert get_released(settings, student_server(server), ASSIGNMENT).endswith(
        f"~/{beside} is there already and is kept too")
    assert read_bytes(home) == mine


def test_check_and_hand_in_record_the_saved_notebook_as_any_hand_in(server, home, course):
    settings, store = course
    assert check_saved(settings, store, student_server(server), STUDENT, ASSIGNMENT) == (
        f"not checked: no saved notebook at ~/{PATH} on your server; press Get, answer and "
        "save it; it costs no check")
    save(home, correct(released(settings.root)))
    saved = read_bytes(home)
    said = check_saved(settings, store, student_server(server), STUDENT, ASSIGNMENT)
    assert said == (f"hand-in 1 of {ASSIGNMENT} is queued for its checks; 4 of 5 checks left "
                    "per hour; a notebook that cannot be checked (not a notebook, a syntax "
                    "error) costs none")
    [check] = store.jobs(STUDENT)
    assert check.source == "check" and store.files(check) == {f"{NOTEBOOK}.ipynb": saved}
    save(home, correct(released(settings.root), answer_answer="answer = 41\n"))
    saved = read_bytes(home)
    before = time.time()
    said = hand_in_saved(settings, store, student_server(server), STUDENT, ASSIGNMENT)
    job = store.jobs(STUDENT)[-1]
    assert said.startswith(f"handed in: hand-in {job.id} of {ASSIGNMENT} at ")
    assert job.state == JobState.WAITING and job.source.kind == SourceKind.HUB
    assert store.files(job) == {f"{NOTEBOOK}.ipynb": saved}
    assert job.digest == hand_in_digest(
        {f"{NOTEBOOK}.ipynb": hashlib.sha256(saved).hexdigest()})
    assert before - 1 <= job.arrived.timestamp() <= time.time() + 1
    said = hand_in_saved(settings, store, student_server(server), STUDENT, ASSIGNMENT)
    assert said == (f"not handed in again: your saved notebook is the same as your last "
                    f"hand-in (the same files as hand-in {job.id}), which stands")
    assert [j.state for j in store.jobs(STUDENT)] == [JobState.WAITING, JobState.WAITING,
                                                      JobState.DUPLICATE]


def refused_everywhere(settings, store, server, expected):
    """Check and Hand in both refuse with `expected`, nothing stored or spent."""
    assert check_saved(settings, store, server, STUDENT, ASSIGNMENT) == (
        f"not checked: {expected}; it costs no check")
    assert hand_in_saved(settings, store, server, STUDENT, ASSIGNMENT) == (
        f"not handed in: {expected}; nothing was recorded")
    assert store.jobs() == []


def test_a_notebook_over_the_cap_is_refused_unread(server, home, course):
    settings, store = course
    os.makedirs(os.path.join(home, ASSIGNMENT))
    with open(os.path.join(home, PATH), "wb") as handle:
        handle.truncate(MAX_NOTEBOOK_BYTES + 1)  # sparse: its size, no bytes written
    refused_everywhere(settings, store, student_server(server),
                       f"~/{PATH} is 64 MiB, more than a notebook may be (64 MiB)")


def test_a_file_that_is_not_a_notebook_is_refused(server, home, course):
    settings, store = course
    os.makedirs(os.path.join(home, ASSIGNMENT))
    with open(os.path.join(home, PATH), "w", encoding="utf-8") as handle:
        handle.write("print('this is a script, not a notebook')\n")
    refused_everywhere(settings, store, student_server(server),
                       f"{NOTEBOOK}.ipynb is not a notebook (no cells could be read from it)")


def test_a_folder_in_place_of_the_notebook_is_refused(server, home, course):
    settings, store = course
    os.makedirs(os.path.join(home, PATH))
    refused_everywhere(settings, store, student_server(server),
                       f"~/{PATH} on your server is a folder, not a notebook file")


def test_a_link_in_place_of_the_notebook_is_refused(server, home, course):
    settings, store = course
    save(home, correct(released(settings.root)))
    os.rename(os.path.join(home, PATH), os.path.join(home, "elsewhere.ipynb"))
    os.symlink(os.path.join(home, "elsewhere.ipynb"), os.path.join(home, PATH))
    refused_everywhere(settings, store, student_server(server),
                       f"~/{PATH} on your server is a link (or was changing while it was "
                       "read), not a notebook file of your own; save the notebook itself there")


def test_a_token_the_server_does_not_accept_is_named(server, home, course):
    settings, store = course
    save(home, correct(released(settings.root)))
    unscoped = student_server(server, token="a-token-without-access-to-this-server")
    refused_everywhere(settings, store, unscoped,
                       "the grading page may not reach your server (the hub's role for this "
                       "course does not give it access:servers for you); tell your "
                       "instructor; nothing was taken or spent")
    with pytest.raises(ServerRefusal, match="may not reach your server"):
        get_released(settings, unscoped, ASSIGNMENT)
    assert not os.path.exists(os.path.join(home, f"{ASSIGNMENT}/{NOTEBOOK}.released.ipynb"))


@pytest.fixture
def silent_server():
    """A socket that takes connections and never answers; (its URL, a server that sends
    its headers and then one byte a second)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    slow = socket.socket()
    slow.bind(("127.0.0.1", 0))
    slow.listen(8)
    stop = threading.Event()
    taken = []

    def dribble():
        slow.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = slow.accept()
            except OSError:
                continue
            taken.append(connection)
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                               b"Content-Length: 100000\r\n\r\n")
            while not stop.is_set():
                try:
                    connection.sendall(b" ")
                except OSError:
                    break
                stop.wait(0.5)

    thread = threading.Thread(target=dribble, daemon=True)
    thread.start()
    yield (f"http://127.0.0.1:{listener.getsockname()[1]}",
           f"http://127.0.0.1:{slow.getsockname()[1]}")
    stop.set()
    thread.join(timeout=10)
    for sock in [listener, slow, *taken]:
        sock.close()


def test_a_server_that_never_answers_or_too_slowly_is_named(server, course, silent_server):
    settings, store = course
    silent, slow = silent_server
    for url in (silent, slow):
        started = time.monotonic()
        refused_everywhere(settings, store, student_server(server, url=url, timeout=1.0),
                           "your server did not answer within 1 s; nothing was taken or "
                           "spent, try again in a moment")
        assert time.monotonic() - started < 60  # bounded, whatever the machine's load


def test_the_feedback_is_written_into_the_server_once_given_out(server, home, course):
    settings, store = course
    nb = correct(released(settings.root))
    save(home, nb)
    assert feedback_to_server(settings, store, student_server(server), STUDENT,
                              ASSIGNMENT) == (f"no feedback of {ASSIGNMENT} yet: it is "
                                              "given out at your due date")
    hand_in_saved(settings, store, student_server(server), STUDENT, ASSIGNMENT)
    [job] = store.jobs(STUDENT)
    folder = os.path.join(settings.feedback, STUDENT, ASSIGNMENT)
    os.makedirs(folder)
    page = b"<!DOCTYPE html><html><body><p>6 / 6</p></body></html>"
    with open(os.path.join(folder, f"{NOTEBOOK}.html"), "wb") as handle:
        handle.write(page)
    store.finish(store.claim("w", 60).id, JobState.GRADED, 6.0, 6.0)
    store.record_release(job, ReleaseOutcome.ON_THE_PAGE)
    path = f"{ASSIGNMENT}/feedback/{job.id}/{NOTEBOOK}.html"
    assert feedback_to_server(settings, store, student_server(server), STUDENT,
                              ASSIGNMENT) == f"feedback written into your server: ~/{path}"
    assert read_bytes(home, path) == page
    assert feedback_to_server(settings, store, student_server(server), STUDENT,
                              ASSIGNMENT) == f"already on your server: ~/{path}"
    with open(os.path.join(home, path), "wb") as handle:
        handle.write(b"my own notes")
    assert "differs from your feedback and is kept" in feedback_to_server(
        settings, store, student_server(server), STUDENT, ASSIGNMENT)
    assert read_bytes(home, path) == b"my own notes"
