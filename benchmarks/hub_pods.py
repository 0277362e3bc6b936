"""Hand-in to visible feedback on the Kubernetes stand-in, against nbgrader's exchange.

The stand-in is testsupport.pod_hub: a real JupyterHub on 127.0.0.1 whose students'
servers each run in a bubblewrap "pod" (one uid for all, a disk of their own, the
hand-in panel on), the course page and `grader serve` running as an account that reads
no student's disk, the loop over HTTP. The tiny course's due date has passed, so a
hand-in's feedback is given out as soon as it is graded. In headless Chromium every
student logs in, starts their server, presses Get in the hand-in panel of their own
server and saves the correct notebook through their server's contents API; then the
burst: each student's Hand in pressed in their panel, one after the other. The latency
is from a hand-in's arrival to its feedback given out (recorded as shown on the course
page). The same burst then goes through nbgrader's exchange to a warm `grader serve`,
as benchmarks/hub_http.py sends it. It prints p50, p95 and max per transport, the time
from the first hand-in to the last feedback and how long the panel's Hand in took (the
panel's read, the page's API through the proxy, the record). It never fails because the
machine is slow.

    .venv/bin/python benchmarks/hub_pods.py [--burst 20]
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "src"), os.path.dirname(os.path.abspath(__file__))]

from hub_http import burst, figures, given_out  # noqa: E402 (beside this file)
from testsupport import hub_browser  # noqa: E402
from testsupport.pod_hub import PASSWORD, PodHub  # noqa: E402
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, released  # noqa: E402

COURSE = "bench-2026-fall"
WAIT_SECONDS = 1800


def save(page, url, user, notebook):
    """`notebook` saved in `user`'s server through its contents API, as Lab saves."""
    xsrf = [c["value"] for c in page.context.cookies()
            if c["name"] == "_xsrf" and c["path"].startswith(f"/user/{user}")]
    response = page.request.put(
        f"{url}/user/{user}/api/contents/{ASSIGNMENT}/{NOTEBOOK}.ipynb",
        headers={"X-XSRFToken": xsrf[0], "Content-Type": "application/json"},
        data=json.dumps({"type": "notebook", "format": "json", "content": notebook}))
    if response.status not in (200, 201):
        raise SystemExit(f"{user}: saving the notebook answered {response.status}")


def on_the_stand_in(students):
    """(latencies, first hand-in to last feedback, hand-ins, seconds each Hand in took)."""
    hub = PodHub({COURSE: {"students": students, "instructors": ["ines"]}})
    try:
        hub.start()
        hub.set_due(COURSE, "2020-01-01 17:00:00 UTC")
        service = f"grading-{COURSE}"
        notebook = correct(released(hub.folders[COURSE]))
        for browser in hub_browser.chromium():
            pages = {}
            for student in students:  # each ready: logged in, server started, answers saved
                page = hub_browser.log_in(browser, hub.url, student, PASSWORD, [])
                hub_browser.start_server(page, hub.url, student)
                said = hub_browser.press_in_panel(page, hub.url, student, "Get",
                                                  service=service)
                if not said.startswith("written into your server"):
                    raise SystemExit(f"{student}: Get said {said!r}")
                save(page, hub.url, student, notebook)
                pages[student] = page
            asked = []
            for student, page in pages.items():  # the burst
                started = time.monotonic()
                said = hub_browser.press_in_panel(page, hub.url, student, "Hand in",
                                                  service=service)
                asked.append(time.monotonic() - started)
                if not said.startswith("handed in"):
                    raise SystemExit(f"{student}: Hand in said {said!r}")
            store = hub.store(COURSE)
            began = time.monotonic()
            while (time.monotonic() - began < WAIT_SECONDS
                   and len(store.releases()) < len(students)):
                time.sleep(0.5)
        return (*given_out(store), asked)
    finally:
        hub.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--burst", type=int, default=20)
    args = parser.parse_args()
    students = [f"student{i:02d}" for i in range(args.burst)]
    print(f"hand-in -> feedback given out, a burst of {args.burst} on the tiny course "
          f"({os.cpu_count()} cores)")
    print(figures("stand-in", *on_the_stand_in(students)), flush=True)
    folder = tempfile.mkdtemp(prefix="gptcourse-hub-pods-bench-")
    try:
        print(figures("exchange", *burst(folder, "exchange", students)), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
