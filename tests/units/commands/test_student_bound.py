"""A local grading worker stops at the bound on one student (Limits.student_seconds).

A check's own code (a reference computed in the grader's process) is covered by no
notebook's budget; a worker that never comes back from it would hold the run for
ever. Here the grading itself is replaced by code that never returns, or that
returns at once, so the bound is all that is tested; the workers are the real
forked pool of `engine`.
"""

import threading
import time

import pytest

import grader.engines
from grader.engines import engine
from grader.results import StudentResult, StudentStatus
from grader.settings import Limits
from grader.worker import Assignment, Job

BOUND = 1.0  # seconds for one student, set for these tests
WAIT = 120  # seconds a test waits for a run the bound must end


def job(student):
    assignment = Assignment("hw", {"hw": "{}"}, Limits(timeout=1, student_budget=BOUND),
                            "gptcourse")
    return Job(student, assignment)


def never_returns(job):
    while True:
        pass


def returns_at_once(job):
    return StudentResult(job.student, "hw", notes=["graded"])


def results_of(jobs, pause=0.0):
    """The results of grading `jobs` one after another on a pool of one worker, `pause`
    seconds apart; fails if they do not all come back within WAIT."""
    results = []

    def run():
        with engine(1) as running:
            for one in jobs:
                results.append(running.executor.submit(running.grade, one))
                try:
                    results[-1].result()
                except Exception:  # noqa: BLE001 (kept in the future, asserted below)
                    pass
                time.sleep(pause)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(WAIT)
    assert not runner.is_alive(), f"the run did not end within {WAIT} s"
    return results


def test_the_bound_defaults_to_the_notebooks_budgets_and_some_slack():
    limits = Limits(timeout=60)
    assert limits.student_seconds(1) == 180 + 300
    assert limits.student_seconds(2) == 2 * 180 + 300
    assert Limits(timeout=60, student_budget=50).student_seconds(2) == 50


def test_a_worker_that_never_comes_back_is_stopped_at_the_bound(monkeypatch, capfd):
    monkeypatch.setattr(grader.engines, "grade_safely", never_returns)
    started = time.monotonic()
    [future] = results_of([job("ada")])
    with pytest.raises(grader.engines.concurrent.futures.BrokenExecutor):
        future.result()
    assert time.monotonic() - started >= BOUND  # not before the bound
    # the worker said where it was: its stack, in the grader's error output
    error = capfd.readouterr().err
    assert f"Timeout (0:00:0{BOUND:.0f})!" in error
    assert "in never_returns" in error


def test_a_student_graded_within_the_bound_leaves_the_worker_for_the_next(monkeypatch):
    # the worker idles longer than the bound between the two: the first student's
    # bound must have been lifted when it was graded
    monkeypatch.setattr(grader.engines, "grade_safely", returns_at_once)
    first, second = results_of([job("ada"), job("grace")], pause=BOUND + 1)
    assert first.result().status == second.result().status == StudentStatus.GRADED
    assert [first.result().student, second.result().student] == ["ada", "grace"]
