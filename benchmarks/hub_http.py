"""Hand-in to visible feedback: a burst through the students' hand-in panel against the exchange.

On the tiny course (testsupport/tiny_course.py) with its due date passed, a burst of
--burst hand-ins (one per student, one after the other) goes to a warm `python -m grader
serve`: once through nbgrader's exchange (the inbound folder, as `nbgrader submit`
writes it) and once over HTTP, as the course over HTTP takes it: a real JupyterHub on
127.0.0.1 runs the course's page (`python -m grader page`, c.HubTransport.transport =
"http") as its service, and for each student the hand-in panel's own code
(grader.student_server: Hand in) reads the notebook through a Jupyter contents manager
and sends it to the page's API through the hub's proxy with a hub token of that
student's (c.JupyterHub.api_tokens, standing for the token of the student's own
server; one folder stands for each student's disk). Each in a fresh course. The
feedback is visible when the service has given it out: filed in the exchange, or
recorded as shown on the course page. It prints, per transport, the latency from each
hand-in's arrival to its feedback given out (p50, p95, max), the time until the last
one, and for HTTP the time each Hand in took (the panel's read, the page's API through
the proxy, the hub's check of the token, the record). It never fails because the
machine is slow.

    .venv/bin/python benchmarks/hub_http.py [--burst 20]
"""

import argparse
import asyncio
import datetime
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "src")]

import nbformat  # noqa: E402
from jupyter_server.services.contents.filemanager import FileContentsManager  # noqa: E402

from grader.recording import set_due_date  # noqa: E402
from grader.service import course_store  # noqa: E402
from grader.settings import load  # noqa: E402
from grader.student_server import CoursePage, Files, send_saved  # noqa: E402
from testsupport.hub import VENV_BIN, install_proxy  # noqa: E402
from testsupport.hub_browser import answering, stop  # noqa: E402
from testsupport.network import free_port  # noqa: E402
from testsupport.service import exchange_submit, start_service, stop_service  # noqa: E402
from testsupport.tiny_course import (ASSIGNMENT, NOTEBOOK, correct, make_course,  # noqa: E402
                                     released)

SETTINGS = """
c.GradingService.feedback_check_seconds = 0.5
c.HubTransport.transport = {transport!r}
c.HubTransport.students_group = "bench-students"
"""
HUB = """\
c = get_config()
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.load_groups = {{"bench-students": {{"users": {students!r}}}}}
c.JupyterHub.services = [{{
    "name": "grading", "url": "http://127.0.0.1:{page_port}", "oauth_no_confirm": True,
    "command": [{python!r}, "-m", "grader", "page", "--port", "{page_port}",
                "--course", {course!r}],
}}]
c.JupyterHub.load_roles = [
    {{"name": "user", "scopes": ["self", "access:services!service=grading",
                                "read:services!service=grading"]}},
]
c.JupyterHub.api_tokens = {tokens!r}
"""
WAIT_SECONDS = 1800


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def course_hub(folder, course, students, log):
    """A JupyterHub on 127.0.0.1 running the course's page as its service; (its process,
    its proxy's URL, {student: a hub token of theirs})."""
    port = free_port()
    tokens = {secrets.token_hex(16): student for student in students}
    config = os.path.join(folder, "jupyterhub_config.py")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write(HUB.format(port=port, hub_port=free_port(), api_port=free_port(),
                                proxy=install_proxy(), students=students,
                                page_port=free_port(), python=sys.executable, course=course,
                                tokens=tokens))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "GPTCOURSE_"))}
    env["PATH"] = os.pathsep.join([VENV_BIN, env.get("PATH", "/usr/bin:/bin")])
    process = subprocess.Popen([os.path.join(VENV_BIN, "jupyterhub"), "-f", config],
                               cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"jupyterhub exited ({process.returncode}); see {log.name}")
        if answering(f"{url}/hub/health") and page_answers(url, next(iter(tokens))):
            return process, url, {student: token for token, student in tokens.items()}
        time.sleep(0.5)
    raise SystemExit("the hub did not start within 180 s")


def page_answers(url, token):
    """Whether the page's API answers a student's token (the hub starts the page with
    itself)."""
    request = urllib.request.Request(f"{url}/services/grading/api/assignments",
                                     headers={"Authorization": f"token {token}"})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status == 200
    except OSError:
        return False


async def hand_in_from_panels(url, tokens, files):
    """Each student's Hand in, as their panel sends it; the seconds each took."""
    os.environ["COURSE_GRADING_URL"] = url
    os.environ["JUPYTERHUB_BASE_URL"] = "/"
    asked = []
    for student, token in tokens.items():
        os.environ["JUPYTERHUB_API_TOKEN"] = token  # what their server is started with
        started = time.monotonic()
        said = await send_saved(CoursePage("grading"), files, ASSIGNMENT, "hand-in")
        asked.append(time.monotonic() - started)
        if not said.startswith("handed in"):
            raise SystemExit(f"{student}: {said}")
    return asked


def burst(folder, transport, students):
    course = make_course(os.path.join(folder, transport, "course"))
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write(SETTINGS.format(transport=transport))
    settings = load(course)
    set_due_date(settings, ASSIGNMENT, "2020-01-01 17:00:00 UTC")
    notebook = nbformat.writes(nbformat.from_dict(correct(released(course)))).encode()
    store = course_store(settings.data, settings.db_url)
    log = open(os.path.join(folder, f"{transport}.log"), "w")
    service = start_service(course, log=log)
    hub, asked = None, []
    try:
        time.sleep(5)  # the service is up before the burst
        if transport == "exchange":
            stamp = datetime.datetime.now(datetime.timezone.utc)
            for student in students:
                exchange_submit(course, settings.course_id, student, ASSIGNMENT,
                                {f"{NOTEBOOK}.ipynb": notebook},
                                stamp.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
        else:
            disk = os.path.join(folder, transport, "disk")
            os.makedirs(os.path.join(disk, ASSIGNMENT))
            with open(os.path.join(disk, ASSIGNMENT, f"{NOTEBOOK}.ipynb"), "wb") as handle:
                handle.write(notebook)
            hub, url, tokens = course_hub(os.path.join(folder, transport), course, students,
                                          log)
            files = Files(FileContentsManager(root_dir=disk))
            asked = asyncio.run(hand_in_from_panels(url, tokens, files))
        began = time.monotonic()
        while time.monotonic() - began < WAIT_SECONDS and len(store.releases()) < len(students):
            time.sleep(0.5)
    finally:
        stop_service(service)
        if hub is not None:
            stop(hub)
        log.close()
    return (*given_out(store), asked)


def given_out(store):
    """(each hand-in's seconds from arrival to feedback given out, the seconds from the
    first hand-in to the last feedback, how many hand-ins) of a course's store."""
    jobs = {job.id: job for job in store.jobs()}
    latencies = [(release.released - jobs[release.job_id].arrived).total_seconds()
                 for release in store.releases()]
    first = min(job.arrived for job in jobs.values())
    last = max((release.released for release in store.releases()), default=first)
    return latencies, (last - first).total_seconds(), len(jobs)


def figures(name, latencies, span, count, asked):
    """One line of the benchmark's table: `name`'s latencies and, over HTTP, how long
    each Hand in took."""
    if not latencies:
        return f"{name:10}  none given out of {count}"
    line = (f"{name:10}  {len(latencies)}/{count} given out  "
            f"p50 {statistics.median(latencies):6.1f} s  "
            f"p95 {percentile(latencies, 0.95):6.1f} s  max {max(latencies):6.1f} s  "
            f"first hand-in to last feedback {span:6.1f} s")
    if asked:
        line += (f"  Hand in p50 {statistics.median(asked) * 1000:.0f} ms, "
                 f"max {max(asked) * 1000:.0f} ms")
    return line


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=20)
    args = parser.parse_args()
    students = [f"student{i:02d}" for i in range(args.burst)]
    folder = tempfile.mkdtemp(prefix="gptcourse-hub-http-bench-")
    try:
        print(f"hand-in -> feedback given out, a burst of {args.burst} on the tiny course "
              f"({os.cpu_count()} cores)")
        for transport in ("exchange", "http"):
            print(figures(transport, *burst(folder, transport, students)), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
