"""Helpers for grading a batch in parallel, in shards, on Dask and on PostgreSQL.

Every run grades the same generated batch (see testsupport.synthetic_batch) in a course
folder of its own: a copy of nbgrader_config.py, solutions/ and exercises/, the
submissions under course-data/submitted/, and a gradebook into which the
assignment was released (``nbgrader generate_assignment``, run once per session
for SQLite and once for PostgreSQL, then copied). The serial run into SQLite is
the reference the other runs are compared with.
"""

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass

import pytest

from testsupport import gradebook, synthetic_batch
from testsupport.course import ROOT, nbgrader_env
from testsupport.synthetic_batch import student_ids

ASSIGNMENT = "logits-to-text"  # the quicker of the course's first two assignments to grade
STUDENTS = student_ids(6)  # correct, partial, empty, crashing, unreadable, correct
GRADER_TIMEOUT = 600  # seconds a whole grader run may take before the test fails


def sqlite_path(course):
    return os.path.join(course, "course-data", "gradebook.db")


def release(course, db_url=None):
    """nbgrader generate_assignment in ``course``: puts the assignment into the gradebook."""
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
        cwd=course, env=nbgrader_env(db_url), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"generate_assignment failed:\n{result.stderr[-4000:]}"


def batch_course(dest, released_gradebook=None, students=STUDENTS):
    """A course folder at ``dest`` with one generated submission per student of ASSIGNMENT
    (testsupport.synthetic_batch.write_batch_course). Returns (dest, kinds)."""
    kinds = synthetic_batch.write_batch_course(ROOT, dest, ASSIGNMENT, students,
                                               released_gradebook)
    return dest, kinds


def grader_command(*args):
    return [sys.executable, "-m", "grader", "autograde", ASSIGNMENT, *args]


def start_grader(course, *args, db_url=None, **env):
    """The grader as a running process in its own process group; output to a log file.
    ``env``: environment variables set for it (testsupport.course.nbgrader_env)."""
    number = len([n for n in os.listdir(course) if n.startswith("grader-")])
    log = open(os.path.join(course, f"grader-{number}.log"), "w+")
    process = subprocess.Popen(grader_command(*args), cwd=course, env=nbgrader_env(db_url, **env),
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    process.log = log
    return process


def finish(process, timeout=GRADER_TIMEOUT):
    """Waits for a grader started by start_grader; returns (exit status, its output)."""
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.wait()
        pytest.fail(f"the grader ran longer than {timeout} s")
    process.log.seek(0)
    output = process.log.read()
    process.log.close()
    return process.returncode, output


def gradebook_rows(db_url):
    return gradebook.gradebook_rows(db_url, ASSIGNMENT)


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def output_files(course):
    """{path under course-data: content} of every autograded file and grade report.

    Files are compared byte for byte, except that the per-student report parts
    (reports/<assignment>/<student>.json) are read as JSON without their
    "seconds" entries: how long grading took differs from run to run.
    """
    found = {}
    data = os.path.join(course, "course-data")
    for top in ("autograded", "reports"):
        for folder, _, names in os.walk(os.path.join(data, top)):
            for name in names:
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, data)
                with open(path, "rb") as handle:
                    content = handle.read()
                if relative.startswith(os.path.join("reports", ASSIGNMENT) + os.sep):
                    content = _without_timings(json.loads(content))
                found[relative] = content
    return found


@dataclass
class GradedRun:
    course: str
    db_url: str
    kinds: dict
    rows: dict
    files: dict


def wait_for_recorded(db_url, count, process, timeout=300):
    """Waits until ``count`` students are in the gradebook while ``process`` runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the grader finished before it could be killed"
        try:
            if len(gradebook_rows(db_url)["submissions"]) >= count:
                return
        except Exception:  # the gradebook may not exist yet, or be mid-creation
            pass
        time.sleep(0.2)
    pytest.fail(f"fewer than {count} students were recorded within {timeout} s")
