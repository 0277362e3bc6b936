"""A submission becomes a job of plain data, and one path hands jobs out and takes results back.

These run no sandbox: the jobs are graded by stand-ins, so the path itself
(what is read on the instructor's machine, in what order, and how often a
student is recorded) is what is checked.
"""

import concurrent.futures
import os
import pickle
from dataclasses import dataclass

from grader.plan import submission as submission_module
from grader.results import StudentResult, StudentStatus
from grader.engines import graded
from grader.worker import Assignment, read_job
from grader.settings import Limits

INSTRUCTOR = {"hw": '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'}
HW = Assignment("hw", INSTRUCTOR, Limits(timeout=60), "gptcourse")


class InlineExecutor(concurrent.futures.Executor):
    """Runs each call in this process when it is submitted (for `graded` without workers)."""

    def submit(self, fn: object, /, *args: object, **kwargs: object) -> concurrent.futures.Future:
        future = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as error:  # noqa: BLE001 (handed to the caller like a pool would)
            future.set_exception(error)
        return future


@dataclass
class Submission:
    student: str
    assignment: str = "hw"


def handed_in(folder, notebook=b'{"cells": []}', **files):
    os.makedirs(folder, exist_ok=True)
    if notebook is not None:
        with open(os.path.join(folder, "hw.ipynb"), "wb") as handle:
            handle.write(notebook)
    for name, content in files.items():
        path = os.path.join(folder, name.replace("__", os.sep))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(content)
    return folder


def test_a_job_carries_the_notebook_and_the_students_files_as_bytes(tmp_path):
    folder = handed_in(str(tmp_path / "ada"), b'{"cells": [1]}', **{"data.csv": b"1,2\n",
                                                                   "sub__notes.txt": b"hi"})
    os.symlink("/etc/passwd", os.path.join(folder, "secret.txt"))
    job = read_job(HW, "ada", folder)
    assert job.submission == {"hw": b'{"cells": [1]}'}
    assert job.files == {"data.csv": b"1,2\n", os.path.join("sub", "notes.txt"): b"hi"}
    assert job.folder_notes == ["symbolic link 'secret.txt' was ignored"]
    assert job.unreadable == {}
    assert pickle.loads(pickle.dumps(job)) == job  # what a worker on another machine gets
    assert folder not in repr(job)  # no path of the course travels with it


def test_a_notebook_over_the_size_cap_is_reported_unread_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(submission_module, "MAX_NOTEBOOK_BYTES", 1 << 20)
    folder = handed_in(str(tmp_path / "ada"), b" " * ((1 << 20) + 1))
    job = read_job(HW, "ada", folder)
    assert job.submission == {}
    assert job.unreadable == {"hw": "notebook too large (1 MiB; at most 1 MiB): not graded"}


def test_a_linked_or_missing_notebook_is_kept_as_its_reason(tmp_path):
    linked = handed_in(str(tmp_path / "ada"), None)
    os.symlink("/etc/hostname", os.path.join(linked, "hw.ipynb"))
    job = read_job(HW, "ada", linked)
    assert job.unreadable == {"hw": "notebook could not be read: it is a symbolic link"}
    missing = read_job(HW, "bob", handed_in(str(tmp_path / "bob"), None))
    assert missing.submission == {} and missing.unreadable == {}


def test_one_at_a_time_each_student_is_read_graded_and_recorded_before_the_next():
    events = []

    def prepare(submission):
        events.append(("read", submission.student))
        return submission.student

    def grade(job):
        events.append(("graded", job))
        return {"student": job}

    for submission, result in graded([Submission("a"), Submission("b")], prepare,
                                     InlineExecutor(), lambda: 1, grade):
        events.append(("recorded", result["student"]))
    assert events == [("read", "a"), ("graded", "a"), ("recorded", "a"),
                      ("read", "b"), ("graded", "b"), ("recorded", "b")]


def test_a_student_listed_twice_is_recorded_once():
    results = list(graded([Submission("a"), Submission("a"), Submission("b")],
                          lambda s: s.student, InlineExecutor(), lambda: 1,
                          lambda job: {"student": job}))
    assert [s.student for s, _ in results] == ["a", "b"]


def test_an_unreadable_folder_or_a_failed_worker_fails_that_student_only():
    def prepare(submission):
        if submission.student == "unreadable":
            raise PermissionError("submitted/unreadable")
        return submission.student

    def grade(job):
        if job == "crashes":
            raise RuntimeError("worker lost")
        return StudentResult(job, "hw")

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = {s.student: r for s, r in graded(
            [Submission(n) for n in ("a", "unreadable", "crashes", "b")], prepare, pool,
            lambda: 4, grade)}
    assert sorted(results) == ["a", "b", "crashes", "unreadable"]
    assert results["a"] == StudentResult("a", "hw")
    assert results["unreadable"] == StudentResult("unreadable", "hw", StudentStatus.GRADER_FAILED,
                                                  error="PermissionError('submitted/unreadable')")
    assert results["crashes"] == StudentResult("crashes", "hw", StudentStatus.GRADER_FAILED,
                                               error="the grading worker process failed "
                                                     "(RuntimeError('worker lost'))")


def test_a_result_becomes_json_only_for_the_report_and_reads_back_the_same():
    import json

    from grader.results import CheckResult, NotebookResult, StudentStatus

    result = StudentResult("ada", "hw", StudentStatus.REFUSED, ["folder is a link"], [
        NotebookResult("hw", "unreadable", "folder is a link", ["a note"],
                       [CheckResult("check_a", 0.0, 2.0, "not run", "folder is a link")],
                       1.5, {"cells": []})])
    part = json.loads(json.dumps(result.to_json()))
    assert "autograded" not in part["notebooks"][0]  # the notebook goes to autograded/ only
    back = StudentResult.from_json(part)
    result.notebooks[0].autograded = None
    assert back == result
    assert (back.points, back.max_points) == (0.0, 2.0)
