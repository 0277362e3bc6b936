"""The grading service as a real process (`python -m grader serve`), and hand-ins for it:
dropped into the exchange's inbound folder as `nbgrader submit` writes them, or stored."""

import os
import secrets
import signal
import subprocess
import sys
import time

from testsupport.course import nbgrader_env

FINAL = ("graded", "failed", "refused", "duplicate", "superseded")


def start_service(course, *args, env_overrides=None, log=None):
    """`python -m grader serve --course COURSE ARGS` started; returns the Popen.

    ``env_overrides`` is added to the environment (PYTHONPATH for the grader's own
    sources, TMPDIR); ``log`` is a file the service's output goes to."""
    env = nbgrader_env(**(env_overrides or {}))
    return subprocess.Popen([sys.executable, "-m", "grader", "serve", "--course", course, *args],
                            env=env, stdout=log or subprocess.DEVNULL,
                            stderr=subprocess.STDOUT if log else subprocess.DEVNULL)


def stop_service(process, timeout=60):
    """SIGTERM, then the exit status (None when it did not end within `timeout` s)."""
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return None


def exchange_submit(course, course_id, student, assignment, files, timestamp):
    """What `nbgrader submit` writes into the exchange's inbound folder: the files, then
    timestamp.txt, then submission_secret.txt; returns the folder."""
    name = f"{student}+{assignment}+{timestamp}+{secrets.token_hex(4)}"
    folder = os.path.join(course, "course-data", "exchange", course_id, "inbound", name)
    os.makedirs(folder)
    for relative, content in files.items():
        with open(os.path.join(folder, relative), "wb") as handle:
            handle.write(content)
    with open(os.path.join(folder, "timestamp.txt"), "w") as handle:
        handle.write(timestamp)
    with open(os.path.join(folder, "submission_secret.txt"), "w") as handle:
        handle.write(secrets.token_hex(16))
    return folder


def wait_until_final(store, count, deadline, process=None):
    """The store's jobs once `count` of them are in a final state (polled), or when
    `deadline` (time.monotonic) passes or `process` ends."""
    while True:
        jobs = store.jobs()
        done = [j for j in jobs if j.state in FINAL]
        if len(done) >= count or time.monotonic() > deadline or (
                process is not None and process.poll() is not None):
            return jobs
        time.sleep(0.2)
