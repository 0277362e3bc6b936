"""Grading fed by a list or by a queue that is filled while it grades (engines.graded).

No sandbox runs: jobs are "graded" by stand-ins on executors the tests hold in
their hands, so what is checked is the path itself: which hand-in is handed out
when, and that a result is yielded as soon as it is back, also while the queue
is empty and the next hand-in has not come.
"""

import concurrent.futures
import queue
import threading
import time
from dataclasses import dataclass

import pytest

from grader.engines import Engine, HandInList, HandInQueue, engine, graded
from grader.results import StudentResult, StudentStatus

WAIT = 10  # seconds a test waits for something that should happen at once


@dataclass(frozen=True)
class HandIn:
    student: str
    assignment: str = "hw"
    number: int = 1  # the student's first hand-in, second, ...


def prepare(hand_in):
    return (hand_in.student, hand_in.number)


def grade(job):
    return StudentResult(job[0], "hw", notes=[f"hand-in {job[1]}"])


class HeldExecutor(concurrent.futures.Executor):
    """Hands out futures that the test finishes itself; `submitted` gets each (job, future)."""

    def __init__(self):
        self.submitted = queue.Queue()

    def submit(self, fn, /, *args, **kwargs):
        future = concurrent.futures.Future()
        self.submitted.put((args[0], future))
        return future

    def next_job(self):
        return self.submitted.get(timeout=WAIT)


def consumed(results):
    """A thread that puts each (hand-in, result) of `results` into the queue it returns."""
    out = queue.Queue()

    def consume():
        for item in results:
            out.put(item)
        out.put(None)

    threading.Thread(target=consume, daemon=True).start()
    return out


def test_a_result_that_comes_back_while_the_queue_is_empty_is_yielded_at_once():
    hand_ins, executor = HandInQueue(), HeldExecutor()
    out = consumed(graded(hand_ins, prepare, executor, lambda: 4, grade))
    hand_ins.put(HandIn("ada"))
    job, future = executor.next_job()
    assert job == ("ada", 1)
    future.set_result(grade(job))
    hand_in, result = out.get(timeout=WAIT)  # no hand-in came, the queue is still open
    assert (hand_in.student, result.notes) == ("ada", ["hand-in 1"])
    assert not hand_ins.closed
    hand_ins.put(HandIn("bob"))
    job, future = executor.next_job()
    future.set_result(grade(job))
    assert out.get(timeout=WAIT)[0] == HandIn("bob")
    hand_ins.close()
    assert out.get(timeout=WAIT) is None  # closed and every result given: graded ends
    assert executor.submitted.empty()


def test_a_hand_in_that_arrives_while_others_are_graded_is_handed_out_at_once():
    hand_ins, executor = HandInQueue(), HeldExecutor()
    out = consumed(graded(hand_ins, prepare, executor, lambda: 4, grade))
    hand_ins.put(HandIn("ada"))
    first = executor.next_job()
    hand_ins.put(HandIn("bob"))
    second = executor.next_job()  # while ada's is still in flight
    assert [first[0], second[0]] == [("ada", 1), ("bob", 1)]
    for job, future in (second, first):  # bob's comes back first, and is given first
        future.set_result(grade(job))
        assert out.get(timeout=WAIT)[0].student == job[0]
    hand_ins.close()
    assert out.get(timeout=WAIT) is None


def test_a_student_who_hands_in_again_gets_a_result_for_each_in_order():
    hand_ins, executor = HandInQueue(), HeldExecutor()
    out = consumed(graded(hand_ins, prepare, executor, lambda: 4, grade))
    for hand_in in (HandIn("ada", number=1), HandIn("ada", number=2), HandIn("bob")):
        hand_ins.put(hand_in)
    hand_ins.close()
    ada_first, bob = executor.next_job(), executor.next_job()
    assert [ada_first[0], bob[0]] == [("ada", 1), ("bob", 1)]
    with pytest.raises(queue.Empty):  # ada's second waits until her first is back
        executor.submitted.get(timeout=0.5)
    ada_first[1].set_result(grade(ada_first[0]))
    assert out.get(timeout=WAIT)[0] == HandIn("ada", number=1)
    ada_second = executor.next_job()
    assert ada_second[0] == ("ada", 2)
    for job, future in (ada_second, bob):
        future.set_result(grade(job))
    rest = [out.get(timeout=WAIT) for _ in range(3)]
    assert sorted((h.student, r.notes) for h, r in rest[:2]) == [("ada", ["hand-in 2"]),
                                                                 ("bob", ["hand-in 1"])]
    assert rest[2] is None


def test_a_queue_fed_with_pauses_gives_what_the_list_gives():
    students = [HandIn(name) for name in ("ada", "bob", "cy", "dee", "eve")]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        batch = {h.student: r for h, r in graded(students, prepare, pool, lambda: 4, grade)}
        hand_ins = HandInQueue()

        def feed():
            for hand_in in students:
                time.sleep(0.05)
                hand_ins.put(hand_in)
            hand_ins.close()

        threading.Thread(target=feed, daemon=True).start()
        fed = [(h.student, r) for h, r in graded(hand_ins, prepare, pool, lambda: 4, grade)]
    assert sorted(s for s, _ in fed) == sorted(batch)
    assert dict(fed) == batch


def test_an_unreadable_hand_in_fails_that_hand_in_and_the_queue_goes_on():
    def reads(hand_in):
        if hand_in.student == "unreadable":
            raise PermissionError("submitted/unreadable")
        return prepare(hand_in)

    hand_ins = HandInQueue()
    for name in ("ada", "unreadable", "bob"):
        hand_ins.put(HandIn(name))
    hand_ins.close()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        results = {h.student: r for h, r in graded(hand_ins, reads, pool, lambda: 1, grade)}
    assert sorted(results) == ["ada", "bob", "unreadable"]
    assert results["unreadable"] == StudentResult("unreadable", "hw", StudentStatus.GRADER_FAILED,
                                                  error="PermissionError('submitted/unreadable')")


def test_a_closed_empty_queue_grades_nothing():
    hand_ins = HandInQueue()
    hand_ins.close()
    assert list(graded(hand_ins, prepare, HeldExecutor(), lambda: 1, grade)) == []


def test_a_list_is_taken_in_order_each_student_once():
    source = HandInList([HandIn("ada"), HandIn("bob"), HandIn("ada", number=2)])
    assert [source.take(), source.take()] == [HandIn("ada"), HandIn("bob")]
    assert not source.closed
    assert source.take() is None and source.closed


def test_a_queue_waits_for_a_hand_in_only_as_long_as_it_is_told():
    hand_ins = HandInQueue()
    started = time.monotonic()
    assert hand_ins.take(0.1) is None and not hand_ins.closed
    assert time.monotonic() - started >= 0.1
    threading.Timer(0.1, hand_ins.put, [HandIn("ada")]).start()
    assert hand_ins.take(WAIT) == HandIn("ada")


def test_the_local_engine_is_a_record_of_where_and_how_many():
    with engine(3) as running:
        assert isinstance(running, Engine)
        assert isinstance(running.executor, concurrent.futures.ProcessPoolExecutor)
        assert (running.where, running.in_flight()) == ("3 at a time", 6)
