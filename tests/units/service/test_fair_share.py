"""Fair share of the queue: a student's older submissions still waiting are superseded by
the newer one (kept, marked so, never graded), and students are served in turn, so that
two students who hand in 120 times each do not push their classmates back 240 places.
Checks ("Check my notebook"), which the rate limit bounds, are neither superseded nor
supersede. Asserted on the order of the claims, on both of the queue's databases."""

import pytest

from grader.service import MAX_ATTEMPTS, JobState, Store


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return Store(str(tmp_path / "service" / "queue.db"))
    return Store(request.getfixturevalue("postgres_database"), MAX_ATTEMPTS,
                 blobs=str(tmp_path / "service" / "blobs"))


def notebook(text):
    return {"tiny.ipynb": f'{{"cells": [], "metadata": {{"n": "{text}"}}}}\n'.encode()}


def claim_all(store):
    """Every job claimed and finished one after another: (student, assignment, id) in the
    order they were handed out."""
    order = []
    while (job := store.claim("w1", 60)) is not None:
        order.append((job.student, job.assignment, job.id))
        store.finish(job.id, JobState.GRADED, 6.0, 6.0, [])
    return order


@pytest.mark.slow  # 245 hand-ins through the store, on SQLite and PostgreSQL
def test_two_students_with_120_hand_ins_each_leave_their_classmates_third_to_fifth(store):
    for round_ in range(120):
        for student in ("flood1", "flood2"):
            store.hand_in(student, "tiny", notebook(f"{student}-{round_}"), "submit")
    classmates = [store.hand_in(s, "tiny", notebook(s), "submit") for s in ("ada", "bob", "cy")]
    order = claim_all(store)
    latest = {job.student: job.id for job in store.jobs() if job.student.startswith("flood")}
    assert order == [("flood1", "tiny", latest["flood1"]), ("flood2", "tiny", latest["flood2"]),
                     *[(job.student, "tiny", job.id) for job in classmates]]
    superseded = [job for job in store.jobs() if job.state == JobState.SUPERSEDED]
    assert len(superseded) == 2 * 119  # kept, marked: each flood's first 119
    assert all(job.score is None and job.attempts == 0 for job in superseded)
    first = store.jobs(student="flood1")[0]
    assert first.reason == (f"superseded by hand-in {first.id + 2}, handed in before it was "
                            "graded")


def test_a_hand_in_being_graded_is_not_superseded_and_the_newer_one_waits_for_it(store):
    first = store.hand_in("ada", "tiny", notebook("1"), "submit")
    assert store.claim("w1", 60).id == first.id
    second = store.hand_in("ada", "tiny", notebook("2"), "submit")
    third = store.hand_in("ada", "tiny", notebook("3"), "submit")
    assert store.claim("w2", 60) is None  # the student's earlier one is being graded
    assert [store.job(j.id).state for j in (first, second, third)] == [
        JobState.GRADING, JobState.SUPERSEDED, JobState.WAITING]
    store.finish(first.id, JobState.GRADED, 6.0, 6.0, [])
    assert claim_all(store) == [("ada", "tiny", third.id)]


def test_students_are_served_in_turn_across_assignments(store):
    ada = [store.hand_in("ada", name, notebook(name), "submit") for name in ("a1", "a2", "a3")]
    bob = store.hand_in("bob", "a1", notebook("bob"), "submit")
    cy = store.hand_in("cy", "a2", notebook("cy"), "submit")
    claimed = [store.claim(f"w{n}", 60) for n in range(5)]
    # ada's second and third wait while one of hers is graded and a classmate waits
    assert [job.id for job in claimed] == [ada[0].id, bob.id, cy.id, ada[1].id, ada[2].id]


def test_checks_are_neither_superseded_nor_supersede_a_submission(store):
    submitted = store.hand_in("ada", "tiny", notebook("submitted"), "submit")
    check = store.hand_in("ada", "tiny", notebook("checked"), "check")
    again = store.hand_in("ada", "tiny", notebook("checked again"), "check")
    assert [store.job(j.id).state for j in (submitted, check, again)] == [JobState.WAITING] * 3
    newer = store.hand_in("ada", "tiny", notebook("submitted again"), "submit")
    assert [store.job(j.id).state for j in (submitted, check, again, newer)] == [
        JobState.SUPERSEDED, JobState.WAITING, JobState.WAITING, JobState.WAITING]
    assert [job_id for _, _, job_id in claim_all(store)] == [check.id, again.id, newer.id]


def test_a_hand_in_again_of_a_superseded_notebook_is_graded_not_a_duplicate(store):
    first = store.hand_in("ada", "tiny", notebook("A"), "submit")
    store.hand_in("ada", "tiny", notebook("B"), "submit")
    again = store.hand_in("ada", "tiny", notebook("A"), "submit")
    assert store.job(first.id).state == JobState.SUPERSEDED
    assert store.job(again.id).state == JobState.WAITING
    assert claim_all(store) == [("ada", "tiny", again.id)]
