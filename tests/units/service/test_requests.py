"""A student's "Check my notebook": refused before anything is stored when it cannot be
graded or the limit is reached, queued otherwise; and the student's hand-ins by visibility."""

import json
import os
from datetime import UTC, datetime, timedelta

import pytest

from grader.recording import set_due_date
from grader.service.page.rate_limit import RateLimit
from grader.service.page.requests import ask_for_check, student_hand_ins
from grader.service.queue.records import ReleaseOutcome
from grader.service.queue.store import CheckRecord, JobState, Store
from grader.settings import load
from testsupport.malformed_notebooks import DAMAGED, MALFORMED
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
    assert garbled.refusal == (f"not checked: {NOTEBOOK}.ipynb: notebook could not be read: not "
                               "UTF-8 text; it costs no check")
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


def test_a_notebook_with_a_syntax_error_is_refused_naming_it_and_costs_no_check(settings,
                                                                                  store):
    broken = notebook_bytes(settings, double_answer="def double(x):\n    return 2 *\n")
    asked = ask(settings, store, {f"{NOTEBOOK}.ipynb": broken})
    assert asked.job is None and store.jobs() == []
    assert asked.refusal == (f"not checked: {NOTEBOOK}.ipynb has a syntax error: cell "
                             "double_answer (code cell 2), line 2: invalid syntax; it costs "
                             "no check")
    magics = notebook_bytes(settings, answer_answer="%time answer = 42\n!true\n")
    assert ask(settings, store, {f"{NOTEBOOK}.ipynb": magics}).allowance.remaining == 1


def graded(store, job, points=(1.0, 2.0, 2.0, 1.0)):
    store.claim("w", 60)
    return store.finish(job.id, JobState.GRADED, sum(points), 6.0, [
        CheckRecord(grade_id, True, got, got) for grade_id, got in zip(
            ("double_visible", "double_hidden", "ones_values", "answer_value"), points)])


def test_each_submit_whose_verdicts_show_before_the_due_date_costs_a_check(settings, store):
    def submit(minutes, answer):
        job = store.hand_in("dan", ASSIGNMENT, {f"{NOTEBOOK}.ipynb": notebook_bytes(
            settings, answer_answer=f"answer = {answer}\n")}, "exchange:dan+tiny+x",
            NOW + timedelta(minutes=minutes))
        return graded(store, job)

    submit(0, 1), submit(1, 2)
    # the two submits used the hour's checks: a check is refused, a third submit is graded
    # but its verdicts wait for the due date
    refused = ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(settings)},
                  student="dan", now=NOW + timedelta(minutes=2))
    assert refused.job is None and refused.refusal.startswith("not checked: no checks left")
    third = submit(3, 3)
    views, left = student_hand_ins(settings, store, "dan", ASSIGNMENT,
                                   NOW + timedelta(minutes=4), TWO_PER_HOUR)
    assert left.remaining == 0 and views[0].job.id == third.id
    assert [c.passed for c in views[0].checks] == [None] * 4
    assert views[0].note == ("handed in over the limit of checks: it is graded all the same, "
                             "and its checks show after the due date")
    assert [c.passed for c in views[1].checks] == [True] * 4
    due = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    views, _ = student_hand_ins(settings, store, "dan", ASSIGNMENT, due, TWO_PER_HOUR)
    assert [c.points for c in views[0].checks] == [1.0, 2.0, 2.0, 1.0]


def test_once_the_feedback_went_out_the_points_stay_shown_whatever_the_due_date_says(
        settings, store):
    job = graded(store, store.hand_in("eve", ASSIGNMENT, {f"{NOTEBOOK}.ipynb": notebook_bytes(
        settings)}, "exchange:eve+tiny+x", NOW - timedelta(hours=1)))
    views, _ = student_hand_ins(settings, store, "eve", ASSIGNMENT, NOW)
    assert [c.points for c in views[0].checks] == [None] * 4  # before the due date
    # an extension granted after her feedback went out puts her due date later again
    store.record_release(job, ReleaseOutcome.THROUGH_EXCHANGE, NOW - timedelta(minutes=5))
    views, _ = student_hand_ins(settings, store, "eve", ASSIGNMENT, NOW)
    assert [c.points for c in views[0].checks] == [1.0, 2.0, 2.0, 1.0]


# --- a malformed notebook, on every route that takes one ---------------------------------

def nothing_stored(store):
    return store.jobs() == [] and all(not files for _, _, files in os.walk(store.blobs))


ROUTES = {**MALFORMED, **DAMAGED}


@pytest.mark.parametrize("content, words", ROUTES.values(), ids=ROUTES.keys())
def test_a_malformed_notebook_is_refused_on_every_route_with_a_sentence_and_nothing_stored(
        settings, store, content, words):
    """The hub's page and `grader check` (ask_for_check), the course page's API over HTTP
    (Check, Hand in), and the panel's Get, which compares the saved notebook with the
    release: a sentence, nothing stored, no check spent, no error page."""
    from grader.service.page.actions import SavedIn, Sent, check, hand_in
    from grader.student_server import same_cells

    name = f"{NOTEBOOK}.ipynb"
    asked = ask(settings, store, {name: content})
    assert asked.job is None and asked.allowance is None
    assert asked.refusal.startswith(f"not checked: {name}") and words in asked.refusal
    assert asked.refusal.endswith("; it costs no check")
    sent = Sent({name: content}, SavedIn.SERVER)
    checked = check(settings, store, "alice", ASSIGNMENT, sent).sentence
    assert checked.startswith(f"not checked: {name}") and words in checked
    handed = hand_in(settings, store, "alice", ASSIGNMENT, sent).sentence
    assert handed.startswith(f"not handed in: {name}") and words in handed
    assert handed.endswith("; nothing was recorded")
    assert nothing_stored(store)
    assert not same_cells(content, notebook_bytes(settings))  # Get keeps it, no error


# --- the checks of the hour: Submits and checks alike -----------------------------------

def test_submits_and_checks_of_an_hour_show_at_most_the_allowances_verdicts(settings, store):
    """8 Submits and 12 checks in an hour, the checks stored as two processes asking at once
    would leave them (past the refusal): before the due date at most 5 (the course's
    c.CheckRateLimit: 5 per hour) show their verdicts; the rest are graded and wait for it."""
    from grader.service.queue.records import JobSource, SourceKind

    for minute in range(20):
        source = (JobSource.of(SourceKind.CHECK) if minute % 5 < 3
                  else f"exchange:fay+{ASSIGNMENT}+{minute}")
        graded(store, store.hand_in("fay", ASSIGNMENT, {f"{NOTEBOOK}.ipynb": notebook_bytes(
            settings, answer_answer=f"answer = {minute}\n")}, source,
            NOW + timedelta(minutes=minute)))
    assert sum(not job.is_check for job in store.jobs()) == 8
    views, left = student_hand_ins(settings, store, "fay", ASSIGNMENT,
                                   NOW + timedelta(minutes=30))
    shown = [view for view in views if any(c.passed is not None for c in view.checks)]
    assert len(views) == 20 and len(shown) == 5 and left.remaining == 0
    assert [v.job.arrived for v in reversed(shown)] == [NOW + timedelta(minutes=m)
                                                        for m in range(5)]
    assert {v.note for v in views if v not in shown} == {
        "handed in over the limit of checks: it is graded all the same, and its checks show "
        "after the due date"}
    due = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
    views, _ = student_hand_ins(settings, store, "fay", ASSIGNMENT, due)
    assert all(c.points == c.max_points for view in views for c in view.checks)


def test_checks_asked_at_once_are_stored_only_up_to_the_limit(settings, store):
    from concurrent.futures import ThreadPoolExecutor

    def asking(number):
        return ask(settings, store, {f"{NOTEBOOK}.ipynb": notebook_bytes(
            settings, answer_answer=f"answer = {number}\n")}, student="gil")

    with ThreadPoolExecutor(8) as pool:
        asked = list(pool.map(asking, range(8)))
    assert sum(a.job is not None for a in asked) == 2 and len(store.jobs()) == 2


def test_a_submit_over_the_hours_checks_is_handed_in_saying_its_checks_wait(settings, store,
                                                                           monkeypatch):
    from grader.service.page import actions
    from grader.service.page.actions import SavedIn, Sent, hand_in

    for minute in range(5):
        graded(store, store.hand_in("hal", ASSIGNMENT, {f"{NOTEBOOK}.ipynb": notebook_bytes(
            settings, answer_answer=f"answer = {minute}\n")}, f"exchange:hal+{ASSIGNMENT}+{minute}",
            NOW + timedelta(minutes=minute)))
    monkeypatch.setattr(actions, "utc_now", lambda: NOW + timedelta(minutes=10))
    handed = hand_in(settings, store, "hal", ASSIGNMENT,
                     Sent({f"{NOTEBOOK}.ipynb": notebook_bytes(settings)}, SavedIn.SERVER)).sentence
    assert handed.startswith("handed in: hand-in 6 of")
    assert handed.endswith("; it is graded in turn; its checks are shown at the due date since "
                           "this hour's 5 checks are used")
    assert store.job(6).state == JobState.WAITING
