"""The course over HTTP on a hub whose students' servers are pods, as on Kubernetes.

testsupport.pod_hub starts a real JupyterHub on 127.0.0.1 with two courses
(deploy/jupyterhub_courses.py, a courses.yaml of two courses) whose pages and grading
services run as one unprivileged account, c.HubTransport.transport = "http"; each
student's server runs in a bubblewrap sandbox of its own (testsupport.pod_spawner):
the same uid for every student, a disk of their own at /home/jovyan, nothing else of the
machine, and the hand-in panel (grader.student_server) on, as deploy/student's settings
give it. In Chromium, Ada (course one) and Ben (course two) press Get in the panel of
their own server, which asks their course's page with the server's own token; they
write their answers through their server's contents API, check, hand in; their due
date passes and the feedback is shown on the page and put into their server from the
panel. The grading service of course one is killed (kill -9) while it grades Ada's
hand-in and started again by the hub: the hand-in is graded once. No course's page
reaches a student's server with its own token, a student's server's token reaches its
own course's page and nothing else, Ada sees nothing of Ben's, an instructor of course
one nothing of course two, and no page ever named a path of a student's disk.
"""

import datetime
import json
import os
import signal
import subprocess
import threading
import urllib.error
import urllib.request

import pytest

from grader.service import JobState, SourceKind
from testsupport import hub_browser
from testsupport.hub_browser import chromium, start_server, wait_for
from testsupport.pod_hub import PASSWORD, PodHub
from testsupport.pod_spawner import HOME, pod_processes
from testsupport.tiny_course import ASSIGNMENT, MAX_SCORE, NOTEBOOK, correct, released

ONE, TWO = "tiny-2026-fall", "tiny-2027-spring"
ADA, BEN, INES, NORA = "ada", "ben", "ines", "nora"
COURSES = {ONE: {"students": [ADA], "instructors": [INES]},
           TWO: {"students": [BEN], "instructors": [NORA]}}
COURSE_OF = {ADA: ONE, BEN: TWO}
GRADED_SECONDS = 600  # generous: a busy machine grades slowly, never wrongly
WRONG_DOUBLE = "def double(x):\n    return x\n"
NOTEBOOK_PATH = f"{ASSIGNMENT}/{NOTEBOOK}.ipynb"


class OpenFiles(threading.Thread):
    """Every path the courses' services hold open, looked at every 0.2 s until stopped."""

    def __init__(self, hub):
        super().__init__(daemon=True)
        self.hub, self.paths, self.done = hub, set(), threading.Event()

    def run(self):
        while not self.done.wait(0.2):
            for pid in self.hub.services():
                try:
                    names = os.listdir(f"/proc/{pid}/fd")
                except OSError:
                    continue
                for name in names:
                    try:
                        self.paths.add(os.readlink(f"/proc/{pid}/fd/{name}"))
                    except OSError:
                        pass


@pytest.fixture(scope="module")
def hub():
    running = PodHub(COURSES)
    watch = None
    try:
        running.start()
        watch = OpenFiles(running)
        watch.start()
        running.watch = watch
        yield running
    finally:
        if watch is not None:
            watch.done.set()
        if running.process is not None:
            print(running.log())  # shown when a test failed
        running.stop()


@pytest.fixture(scope="module")
def browser():
    yield from chromium()


@pytest.fixture(scope="module")
def pages(hub, browser):
    seen = []
    opened = {name: hub_browser.log_in(browser, hub.url, name, PASSWORD, seen)
              for name in (ADA, BEN, INES)}
    yield opened
    for page in opened.values():
        page.context.close()


def press(page, hub, student, label):
    """The button `label` of the student's hand-in panel, in their own server."""
    return hub_browser.press_in_panel(page, hub.url, student, label,
                                      service=f"grading-{COURSE_OF[student]}")


def server_contents(page, hub, user, path, notebook=None):
    """The notebook at `path` read (or written) through `user`'s own server, as Lab does."""
    url = f"{hub.url}/user/{user}/api/contents/{path}"
    if notebook is None:
        response = page.request.get(url + "?content=1")
        assert response.status == 200, response.text()
        return response.json()["content"]
    put(page, hub, user, path, {"type": "notebook", "format": "json", "content": notebook})


def put(page, hub, user, path, model):
    """`model` saved at `path` through `user`'s server's contents API, as Lab saves."""
    xsrf = [c["value"] for c in page.context.cookies()
            if c["name"] == "_xsrf" and c["path"].startswith(f"/user/{user}")]
    response = page.request.put(f"{hub.url}/user/{user}/api/contents/{path}",
                                headers={"X-XSRFToken": xsrf[0],
                                         "Content-Type": "application/json"},
                                data=json.dumps(model))
    assert response.status in (200, 201), response.text()


def sources(notebook):
    return ["".join(cell["source"]) for cell in notebook["cells"]]


def hand_ins(hub, student):
    return [j for j in hub.store(COURSE_OF[student]).jobs(student)
            if j.source.kind == SourceKind.HUB]


def server_process(hub, student):
    """A process of `student`'s server inside their sandbox: its children, down the tree."""
    disk = os.path.join(hub.pods, student).encode()
    for pid in pod_processes(hub.pods):
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            if disk + b"\0" not in handle.read():
                continue
        while True:
            try:
                with open(f"/proc/{pid}/task/{pid}/children") as handle:
                    children = handle.read().split()
            except OSError:
                return None
            if not children:
                return pid
            pid = int(children[0])
    return None


def hub_token(pid):
    """The hub token a process was started with (JUPYTERHUB_API_TOKEN in its environment)."""
    with open(f"/proc/{pid}/environ", "rb") as handle:
        for entry in handle.read().split(b"\0"):
            name, _, value = entry.partition(b"=")
            if name == b"JUPYTERHUB_API_TOKEN":
                return value.decode()
    return None


def server_token(hub, student):
    """The token of `student`'s own server, read from its process in their sandbox."""
    disk = os.path.join(hub.pods, student).encode()
    for pid in pod_processes(hub.pods):
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            if disk + b"\0" not in handle.read():
                continue
        pending = [pid]
        while pending:
            found = hub_token(pending[0])
            if found:
                return found
            with open(f"/proc/{pending[0]}/task/{pending[0]}/children") as handle:
                pending = pending[1:] + [int(child) for child in handle.read().split()]
    raise AssertionError(f"no process of {student}'s server holds a hub token")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def with_token(url, token):
    """(status, body) of a GET of `url` with `token` and nothing else: no cookie, no
    redirect followed."""
    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    try:
        with opener.open(request, timeout=60) as answer:
            return answer.status, answer.read().decode(errors="replace")
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode(errors="replace")


def leaders(pids):
    """The processes among `pids` that lead their process group (a service, not a worker)."""
    found = []
    for pid in pids:
        try:
            if os.getpgid(pid) == pid:
                found.append(pid)
        except ProcessLookupError:
            pass
    return found


def kill_mid_grading(hub, course, job_id):
    """The course's grading service stopped while it grades the job, then killed -9."""
    store = hub.store(course)
    wait_for("the hand-in is being graded",
             lambda: store.job(job_id).state == JobState.GRADING, GRADED_SECONDS, every=0.1)
    (pid,) = leaders(hub.services("serve", course))
    group = os.getpgid(pid)
    os.killpg(group, signal.SIGSTOP)  # nothing of it records anything from here on
    assert store.job(job_id).state == JobState.GRADING and store.job(job_id).attempts == 1
    os.killpg(group, signal.SIGKILL)
    wait_for("the killed service is gone", lambda: pid not in hub.services("serve"), 60)
    return pid


def test_two_students_of_two_courses_hand_in_over_http_and_read_their_feedback(hub, pages):
    for student in (ADA, BEN):
        page = pages[student]
        start_server(page, hub.url, student)
        assert press(page, hub, student, "Get") == (
            f"written into your server: ~/{NOTEBOOK_PATH}")
        with open(os.path.join(hub.pods, student, NOTEBOOK_PATH), encoding="utf-8") as disk:
            assert json.load(disk) == released(hub.folders[COURSE_OF[student]])
        got = server_contents(page, hub, student, NOTEBOOK_PATH)  # as Lab opens it
        assert sources(got) == sources(released(hub.folders[COURSE_OF[student]]))
    ada, ben = pages[ADA], pages[BEN]
    server_contents(ada, hub, ADA, NOTEBOOK_PATH,
                    correct(released(hub.folders[ONE]), double_answer=WRONG_DOUBLE))
    assert press(ada, hub, ADA, "Check my notebook").startswith(
        f"hand-in 1 of {ASSIGNMENT} is queued for its checks; 4 of 5 checks left")
    # Ada's last answer waits, when graded, until the test opens the gate: the
    # service is killed while it grades her hand-in, whatever the machine's speed
    gate = os.path.join(hub.environment, "env", "grading-gate")
    waits = f"import os, time\nwhile not os.path.exists({gate!r}):\n    time.sleep(0.2)\n"
    server_contents(ada, hub, ADA, NOTEBOOK_PATH, correct(
        released(hub.folders[ONE]), answer_answer=waits + "answer = 42\n"))
    server_contents(ben, hub, BEN, NOTEBOOK_PATH, correct(released(hub.folders[TWO])))
    assert press(ben, hub, BEN, "Hand in").startswith(f"handed in: hand-in 1 of {ASSIGNMENT}")
    wait_for("Ada's check is graded", lambda: [j.state for j in hub.store(ONE).jobs(ADA)]
             == [JobState.GRADED], GRADED_SECONDS)
    assert press(ada, hub, ADA, "Hand in").startswith(f"handed in: hand-in 2 of {ASSIGNMENT}")
    (ada_hand_in,) = hand_ins(hub, ADA)
    killed = kill_mid_grading(hub, ONE, ada_hand_in.id)
    open(gate, "w").close()
    wait_for("the hub starts the grading service again",
             lambda: set(leaders(hub.services("serve", ONE))) - {killed}, 120)
    for student in (ADA, BEN):
        wait_for(f"{student}'s hand-in is graded", lambda s=student: [
            j.state for j in hand_ins(hub, s)] == [JobState.GRADED], GRADED_SECONDS)
    check, hand_in = hub.store(ONE).jobs(ADA)
    assert (check.score, hand_in.score) == (3.0, MAX_SCORE)
    assert hand_in.attempts == 2  # claimed before the kill, and once after it
    (ben_hand_in,) = hub.store(TWO).jobs(BEN)
    assert ben_hand_in.score == MAX_SCORE
    assert ada.get_by_role("link", name=NOTEBOOK).count() == 0  # before the due date
    soon = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=3)
    for course in (ONE, TWO):
        hub.set_due(course, soon.strftime("%Y-%m-%d %H:%M:%S UTC"))
    for course in (ONE, TWO):
        wait_for(f"the feedback of {course} is given out",
                 lambda c=course: hub.store(c).releases(), 120)
    for student, job in ((ADA, hand_in), (BEN, ben_hand_in)):
        page = pages[student]
        page.goto(f"{hub.url}/services/grading-{COURSE_OF[student]}/")
        page.get_by_role("link", name=NOTEBOOK).click()
        assert "double" in page.content() and f"{MAX_SCORE:g}" in page.content()
        assert press(page, hub, student, "Put the feedback in my server") == (
            f"feedback written into your server: ~/{ASSIGNMENT}/feedback/{job.id}/"
            f"{NOTEBOOK}.html")
        written = os.path.join(hub.pods, student, ASSIGNMENT, "feedback", str(job.id),
                               f"{NOTEBOOK}.html")
        assert os.path.isfile(written)
    # the gradebook holds one grade for each: the killed grading left nothing behind
    assert [j.score for j in hand_ins(hub, ADA)] == [MAX_SCORE]


def test_no_page_reaches_a_students_server_and_a_servers_token_reaches_its_own_page(
        hub, pages):
    """With the token the hub gave it, no course's page reaches a student's server or
    the hub's record of one; with the token of her own server, Ada reaches her own
    course's page and server, and neither Ben's course's page nor Ben's server."""
    contents = {student: f"{hub.url}/user/{student}/api/contents/{NOTEBOOK_PATH}?content=1"
                for student in (ADA, BEN)}
    for course in (ONE, TWO):
        tokens = {hub_token(pid) for pid in hub.services("page", course)}
        assert len(tokens) == 1 and None not in tokens, tokens  # the page's own, given by the hub
        (token,) = tokens
        for student in (ADA, BEN):
            status, body = with_token(contents[student], token)
            assert status in (302, 403) and "cells" not in body, (course, student, status)
            status, _ = with_token(f"{hub.url}/hub/api/users/{student}", token)
            assert status in (403, 404)
    ada = server_token(hub, ADA)
    status, body = with_token(f"{hub.url}/services/grading-{ONE}/api/assignments", ada)
    assert status == 200 and json.loads(body)["student"] == ADA
    status, body = with_token(f"{hub.url}/services/grading-{TWO}/api/assignments", ada)
    assert status in (302, 403) and "assignments" not in body
    assert with_token(f"{hub.url}/hub/api/services/grading-{ONE}", ada)[0] == 200
    assert with_token(f"{hub.url}/hub/api/services/grading-{TWO}", ada)[0] == 404
    status, body = with_token(contents[ADA], ada)
    assert status == 200 and "cells" in body  # her own server, as the hub's default
    status, body = with_token(contents[BEN], ada)
    assert status in (302, 403) and "cells" not in body


def test_each_pod_sees_its_own_disk_and_nothing_else_of_the_machine(hub, pages):
    views, feedback = {}, {}
    for student in (ADA, BEN):
        pid = server_process(hub, student)
        assert pid is not None, f"{student}'s server is not running in a sandbox"
        root = f"/proc/{pid}/root"
        assert os.stat(f"/proc/{pid}").st_uid == hub.pod.pw_uid  # one uid for everyone
        assert os.listdir(root + "/home") == ["jovyan"]
        for hidden in (hub.pods, hub.folders[ONE], hub.folders[TWO], hub.audit, "/root",
                       hub.account.pw_dir, hub.pod.pw_dir):
            assert not os.path.exists(root + hidden), f"{student}'s pod sees {hidden}"
        if os.path.exists(root + hub.base):  # only the way to the image's Python
            assert os.listdir(root + hub.base) == [os.path.basename(hub.environment)]
        views[student] = sorted(os.listdir(root + HOME + "/" + ASSIGNMENT))
        feedback[student] = os.listdir(root + HOME + "/" + ASSIGNMENT + "/feedback")
        with open(root + HOME + "/" + NOTEBOOK_PATH, "rb") as inside, \
                open(os.path.join(hub.pods, student, NOTEBOOK_PATH), "rb") as disk:
            assert inside.read() == disk.read()  # the home is the student's own disk
    assert views[ADA] == views[BEN] and {f"{NOTEBOOK}.ipynb", "feedback"} <= set(views[ADA])
    # each sees the feedback of their own hand-in, and no one else's
    assert feedback == {ADA: [str(j.id) for j in hand_ins(hub, ADA)],
                        BEN: [str(j.id) for j in hand_ins(hub, BEN)]}
    assert feedback[ADA] != feedback[BEN]
    # a file Ada saves through her server is on her disk, and in no one else's pod
    put(pages[ADA], hub, ADA, "only-ada.txt", {"type": "file", "format": "text",
                                                "content": "Ada's notes"})
    ada_pod, ben_pod = (f"/proc/{server_process(hub, s)}/root{HOME}" for s in (ADA, BEN))
    with open(f"{ada_pod}/only-ada.txt", encoding="utf-8") as handle:
        assert handle.read() == "Ada's notes"
    assert not os.path.exists(f"{ben_pod}/only-ada.txt")
    assert not os.path.exists(os.path.join(hub.pods, BEN, "only-ada.txt"))


def test_a_student_sees_nothing_of_another_course_nor_of_another_student(hub, pages):
    ada = pages[ADA]
    own = ada.goto(f"{hub.url}/services/grading-{ONE}/")
    assert own.status == 200 and ADA in ada.content() and BEN not in ada.content()
    assert ada.goto(f"{hub.url}/services/grading-{TWO}/").status == 403
    assert ada.goto(f"{hub.url}/services/grading-{ONE}/?student={BEN}").status == 403
    other = ada.request.get(f"{hub.url}/user/{BEN}/api/contents/{NOTEBOOK_PATH}",
                            max_redirects=0)
    assert other.status in (302, 403, 404) and "cells" not in other.text()


def test_an_instructor_of_one_course_sees_nothing_of_the_other(hub, pages):
    ines = pages[INES]
    mine = ines.goto(f"{hub.url}/services/grading-{ONE}/?student={ADA}")
    assert mine.status == 200 and ines.get_by_role("link", name=NOTEBOOK).count() == 1
    assert ines.goto(f"{hub.url}/services/grading-{TWO}/").status == 403
    assert ines.goto(f"{hub.url}/services/grading-{TWO}/?student={BEN}").status == 403
    ines.goto(f"{hub.url}/services/grading-{ONE}/?student={BEN}")
    assert ines.get_by_role("link", name=NOTEBOOK).count() == 0
    other = ines.request.get(f"{hub.url}/user/{BEN}/api/contents/{NOTEBOOK_PATH}",
                             max_redirects=0)
    assert other.status in (302, 403, 404) and "cells" not in other.text()


def test_the_courses_services_never_named_a_path_of_a_students_disk(hub, pages):
    services = hub.services()
    assert {w[w.index("grader") + 1] for w in services.values()} == {"page", "serve"}
    for pid in services:  # neither root nor the students' uid
        assert os.stat(f"/proc/{pid}").st_uid == hub.account.pw_uid
    assert hub.account.pw_uid not in (0, hub.pod.pw_uid)
    for student in (ADA, BEN):  # the account cannot even look
        disk = os.path.join(hub.pods, student)
        probe = subprocess.run(["runuser", "-u", hub.account.pw_name, "--", "ls", disk],
                               capture_output=True, text=True)
        assert probe.returncode != 0 and "Permission denied" in probe.stderr
    traced = []
    for name in os.listdir(hub.audit):
        with open(os.path.join(hub.audit, name), encoding="utf-8", errors="replace") as log:
            traced.append(log.read())
    assert len(traced) == 2 and all("openat(" in text for text in traced)
    hub.watch.done.set()
    hub.watch.join()
    assert hub.watch.paths  # it saw the services' files
    for text in traced + sorted(hub.watch.paths):
        assert hub.pods not in text and HOME not in text
