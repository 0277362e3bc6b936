"""Hand-in to visible feedback: a burst over the course page's HTTP loop against the exchange.

On the tiny course (testsupport/tiny_course.py) with its due date passed, a burst of
--burst hand-ins (one per student, all at once) goes to a warm `python -m grader serve`:
once through nbgrader's exchange (the inbound folder, as `nbgrader submit` writes it)
and once over HTTP (`over_http.hand_in_saved`: the notebook read from a real Jupyter
server on 127.0.0.1 through its contents API and recorded, as the page's Hand in
does; the one server stands for each student's own). Each in a fresh course. The
feedback is visible when the service has given it out: filed in the exchange, or
recorded as shown on the course page. It prints, per transport, the latency from each
hand-in's arrival to its feedback given out (p50, p95, max), the time until the last
one, and for HTTP the time the page took per hand-in (read and record). It never fails
because the machine is slow.

    .venv/bin/python benchmarks/hub_http.py [--burst 20]
"""

import argparse
import datetime
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "src")]

import nbformat  # noqa: E402

from grader.recording import set_due_date  # noqa: E402
from grader.service import course_store  # noqa: E402
from grader.service.contents import StudentServer  # noqa: E402
from grader.service.over_http import hand_in_saved  # noqa: E402
from grader.settings import load  # noqa: E402
from testsupport.network import free_port  # noqa: E402
from testsupport.service import exchange_submit, start_service, stop_service  # noqa: E402
from testsupport.tiny_course import (ASSIGNMENT, NOTEBOOK, correct, make_course,  # noqa: E402
                                     released)

TOKEN = "benchmark-token-" + "3" * 24
SETTINGS = """
c.GradingService.feedback_check_seconds = 0.5
c.HubTransport.transport = {transport!r}
"""
WAIT_SECONDS = 1800


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def jupyter_server(folder):
    """A Jupyter server under /user/bench/ on 127.0.0.1, its files in `folder`."""
    port = free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=os.path.join(folder, ".config"), HOME=folder)
    process = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", "--allow-root",
         "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.base_url=/user/bench/", f"--ServerApp.root_dir={folder}",
         f"--IdentityProvider.token={TOKEN}"], cwd=folder, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/user/bench/api/status?token={TOKEN}",
                                        timeout=5):
                return process, url
        except OSError:
            time.sleep(0.3)
    raise SystemExit("the Jupyter server did not start within 180 s")


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
    server, asked = None, []
    try:
        time.sleep(5)  # the service is up before the burst
        if transport == "exchange":
            stamp = datetime.datetime.now(datetime.timezone.utc)
            for student in students:
                exchange_submit(course, settings.course_id, student, ASSIGNMENT,
                                {f"{NOTEBOOK}.ipynb": notebook},
                                stamp.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
        else:
            files = os.path.join(folder, transport, "server")
            os.makedirs(os.path.join(files, ASSIGNMENT))
            with open(os.path.join(files, ASSIGNMENT, f"{NOTEBOOK}.ipynb"), "wb") as handle:
                handle.write(notebook)
            server, url = jupyter_server(files)
            for student in students:
                started = time.monotonic()
                said = hand_in_saved(settings, store, StudentServer(url, "/", "bench", TOKEN,
                                                                    10.0),
                                     student, ASSIGNMENT)
                asked.append(time.monotonic() - started)
                if not said.startswith("handed in"):
                    raise SystemExit(f"{student}: {said}")
        began = time.monotonic()
        while time.monotonic() - began < WAIT_SECONDS and len(store.releases()) < len(students):
            time.sleep(0.5)
    finally:
        stop_service(service)
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
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
    """One line of the benchmark's table: `name`'s latencies and, when the page asked,
    how long its Hand in took."""
    if not latencies:
        return f"{name:10}  none given out of {count}"
    line = (f"{name:10}  {len(latencies)}/{count} given out  "
            f"p50 {statistics.median(latencies):6.1f} s  "
            f"p95 {percentile(latencies, 0.95):6.1f} s  max {max(latencies):6.1f} s  "
            f"first hand-in to last feedback {span:6.1f} s")
    if asked:
        line += (f"  page's Hand in p50 {statistics.median(asked) * 1000:.0f} ms, "
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
