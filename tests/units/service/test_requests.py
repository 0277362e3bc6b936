"""A student's "Check my notebook": refused before anything is stored when it cannot be
graded or the limit is reached, queued otherwise; and the student's hand-ins by visibility."""

import json
import os
from datetime import UTC, datetime, timedelta

import pytest

from grader.recording import set_due_date
from grader.service.rate_limit import RateLimit
from grader.service.requests import ask_for_check, student_hand_ins
from grader.service.store import CheckRecord, JobState, Store
from grader.settings import load
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, released

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
TWO_PER_HOUR = RateLimit(2, timedelta(hours=1))
DUE_TEXT = "2026-12-01 17:00:00 UTC"


@pytest.fixture(scope="module")
def settings(tiny_course):
    settings = load(tiny_course)
    set_due_date(settings, ASSIGNMENT, DUE_TEXT)
    return settings


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "queue.db"))


def notebook_bytes(settings, **answers):
    return json.dumps(correct(released(settings.root), **answers)).encode()


def ask(settings, store, files, student="alice", now=NOW):
    return ask_for_check(settings, store, student, ASSIGNMENT, files, TWO_PER_HOUR, now)


def test_another_assignments_notebook_or_a_non_notebook_is_refused_and_nothing_stored(
        settings, store):
    other = ask(settings, store, {"parameters.ipynb": notebook_bytes(settings)})
    assert other.job is None
    assert other.refusal == (f"not checked: parameters.ipynb is not a notebook of {ASSIGNMENT} "
                             f"(its notebooks: {NOTEBOOK}.ipynb); it costs no check")
    garbled = ask(settings, store, {f"{NOTEBOOK}.ipynb": b"\x89PNG not json"})
    assert garbled.refusal == (f"not checked: {NOTEBOOK}.ipynb is not a notebook (no cells could "
                               "be read from it); it costs no check")
    assert store.jobs() == []


def test_checks_are_queued_until_the_limit_then_refused_with_the_time_to_come_back(
        settings, store):
    first = ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(settings)})
    assert first.job.state == JobState.WAITING and first.allowance.remaining == 1
    second = ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(
        settings, answer_answer="answer = 41\n")}, now=NOW + timedelta(minutes=10))
    assert second.job.source == "check" and second.allowance.remaining == 0
    third = ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(
        settings, answer_answer="answer = 40\n")}, now=NOW + timedelta(minutes=20))
    assert third.job is None
    assert third.refusal == ("not checked: no checks left: 2 per hour are used; the next is "
                             "allowed at 2026-12-01 13:00 UTC")
    assert [job.id for job in store.jobs()] == [first.job.id, second.job.id]
    # the other student has checks of their own
    assert ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(settings)},
               student="bob", now=NOW + timedelta(minutes=20)).job is not None


def test_a_hand_in_refused_before_its_checks_costs_nothing(settings, store):
    for minutes in (0, 1):
        asked = ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(
            settings, answer_answer=f"answer = {minutes}\n")}, now=NOW + timedelta(minutes=minutes))
        store.finish(asked.job.id, JobState.REFUSED, reason="its cells cannot be read")
    again = ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(settings)},
                now=NOW + timedelta(minutes=2))
    assert again.job is not None and again.allowance.remaining == 1


def test_the_student_sees_verdicts_and_hints_before_the_due_date_and_points_after(
        settings, store):
    asked = ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(settings)})
    store.finish(asked.job.id, JobState.GRADED, 4.0, 6.0, [
        CheckRecord("double_visible", True, 1.0, 1.0),
        CheckRecord("double_hidden", False, 0.0, 2.0,
                    "AssertionError: double gave a wrong value\nmore"),
        CheckRecord("ones_values", True, 2.0, 2.0),
        CheckRecord("answer_value", True, 1.0, 1.0)])
    views, left = student_hand_ins(settings, store, "alice", ASSIGNMENT, NOW)
    assert [(c.grade_id, c.passed, c.message, c.points) for c in views[0].checks] == [
        ("double_visible", True, "", None),
        ("double_hidden", False, "AssertionError: double gave a wrong value", None),  # a hint
        ("ones_values", True, "", None), ("answer_value", True, "", None)]
    assert left.remaining == 4  # the course sets no c.CheckRateLimit: 5 per hour
    after = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    views, _ = student_hand_ins(settings, store, "alice", ASSIGNMENT, after)
    assert [c.points for c in views[0].checks] == [1.0, 0.0, 2.0, 1.0]
    assert views[0].checks[1].message == "AssertionError: double gave a wrong value\nmore"


def test_a_hidden_checks_hint_does_not_carry_the_hidden_input_the_student_raised(settings,
                                                                                   store):
    """What the check records of a double that raises ValueError(f"HIDDEN INPUT WAS {x}") for
    any input but the visible test's 2 (tests/hub/test_service_page.py grades it)."""
    asked = ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(settings)})
    store.finish(asked.job.id, JobState.GRADED, 4.0, 6.0, [
        CheckRecord("double_visible", True, 1.0, 1.0),
        CheckRecord("double_hidden", False, 0.0, 2.0,
                    "ValueError: in double: HIDDEN INPUT WAS 21"),
        CheckRecord("ones_values", True, 2.0, 2.0),
        CheckRecord("answer_value", True, 1.0, 1.0)])
    views, _ = student_hand_ins(settings, store, "alice", ASSIGNMENT, NOW)
    hidden = views[0].checks[1]
    assert "21" not in hidden.message and "HIDDEN" not in hidden.message
    assert hidden.message == ("double raised ValueError on an input of the hidden tests; what "
                              "it said is shown after the due date")
