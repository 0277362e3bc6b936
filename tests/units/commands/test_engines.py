"""One path hands jobs out and takes results back (grader.engines).

These run no sandbox: the jobs are graded by stand-ins, so the path itself
(what is read on the instructor's machine, in what order, and how often a
student is recorded) is what is checked.
"""

import concurrent.futures
from dataclasses import dataclass

from grader.results import StudentResult, StudentStatus
from grader.engines import graded


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
