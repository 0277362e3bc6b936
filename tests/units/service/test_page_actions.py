"""The students' page's actions (get, check, hand in, feedback), each answer written once,
through a fake transport: an adapter that only moves a student's bytes and name, as the
file exchange's page and the course over HTTP do."""

import json
import os
import pathlib
import re
from datetime import UTC, datetime

import pytest

import grader
from grader.service.page import actions
from grader.service.page.actions import PageOutcome, SavedIn, Sent
from grader.service.queue.records import JobSource, ReleaseOutcome, SourceKind
from grader.service.queue.store import JobState, Store
from grader.settings import load
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, released

NAME = f"{NOTEBOOK}.ipynb"
SERVICE = pathlib.Path(grader.__file__).parent / "service"


class FakeTransport:
    """A transport as the page's two are: it carries what a student saved, under the
    student's name, to the actions, and hands back their answer's sentence."""

    def __init__(self, settings, store, saved_in):
        self.settings, self.store, self.saved_in = settings, store, saved_in
        self.saved = {}  # {student: {NAME.ipynb: bytes}}, what each student saved
        self.unreadable = {}  # {student: [why a saved notebook could not be read]}

    def sent(self, student):
        return Sent(self.saved.get(student, {}), self.saved_in,
                    tuple(self.unreadable.get(student, ())))

    def check(self, student):
        return actions.check(self.settings, self.store, student, ASSIGNMENT, self.sent(student))

    def hand_in(self, student):
        return actions.hand_in(self.settings, self.store, student, ASSIGNMENT,
                               self.sent(student))


@pytest.fixture(scope="module")
def settings(tiny_course):
    return load(tiny_course)


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "queue.db"))


def answered(settings, **answers):
    return json.dumps(correct(released(settings.root), **answers)).encode()


@pytest.fixture(params=list(SavedIn))
def transport(request, settings, store):
    return FakeTransport(settings, store, request.param)


def test_a_check_is_queued_and_the_same_notebook_again_costs_nothing(transport, store):
    transport.saved["ann"] = {NAME: answered(transport.settings)}
    first = transport.check("ann")
    assert (first.outcome, first.sentence) == (
        PageOutcome.QUEUED, f"hand-in 1 of {ASSIGNMENT} is queued for its checks; 4 of 5 "
        "checks left per hour; a notebook that cannot be checked (not a notebook, a syntax "
        "error) costs none")
    assert first.job.id == 1 and first.job.is_check
    again = transport.check("ann")
    assert (again.outcome, again.sentence) == (
        PageOutcome.SAME_AGAIN, "not checked again: your saved notebook is the same as when it "
        "was last checked (the same files as hand-in 1); it costs no check")
    assert [(j.id, j.state) for j in sorted(store.jobs("ann"), key=lambda j: j.id)] == [
        (1, JobState.WAITING), (2, JobState.DUPLICATE)]  # checked once


def test_both_transports_get_the_same_answer_to_the_same_notebook(settings, tmp_path):
    """The exchange's page and the course over HTTP: one answer, written once."""
    answers = {}
    for saved_in in SavedIn:
        fake = FakeTransport(settings, Store(str(tmp_path / f"{saved_in}.db")), saved_in)
        fake.saved["ann"] = {NAME: answered(settings)}
        fake.unreadable["bea"] = [f"~/{ASSIGNMENT}/{NAME} is a folder, not a notebook file"]
        answers[saved_in] = [(a.outcome, a.sentence) for a in (
            fake.check("ann"), fake.check("ann"), fake.check("bea"), fake.hand_in("bea"))]
    assert answers[SavedIn.HOME] == answers[SavedIn.SERVER]
    assert answers[SavedIn.HOME][2:] == [
        (PageOutcome.REFUSED, f"not checked: ~/{ASSIGNMENT}/{NAME} is a folder, not a notebook "
         "file; it costs no check"),
        (PageOutcome.REFUSED, f"not handed in: ~/{ASSIGNMENT}/{NAME} is a folder, not a notebook "
         "file; nothing was recorded")]


def test_no_saved_notebook_says_where_the_student_gets_one_on_their_transport(settings, store):
    home = FakeTransport(settings, store, SavedIn.HOME)
    server = FakeTransport(settings, store, SavedIn.SERVER)
    assert home.check("cy").sentence == (
        f"not checked: no saved notebook at ~/{ASSIGNMENT}/{NAME}; fetch the assignment from "
        "the Assignments tab and save it; it costs no check")
    assert server.check("cy").sentence == (
        f"not checked: no saved notebook at ~/{ASSIGNMENT}/{NAME} on your server; press Get, "
        "answer and save it; it costs no check")
    assert server.hand_in("cy").sentence == (
        f"not handed in: no saved notebook at ~/{ASSIGNMENT}/{NAME} on your server; press "
        "Get, answer and save it; nothing was recorded")
    assert {home.check("cy").outcome, server.hand_in("cy").outcome} == {PageOutcome.REFUSED}
    assert store.jobs() == []


def test_a_notebook_that_cannot_be_graded_is_refused_and_nothing_stored(transport, store):
    transport.saved["dee"] = {NAME: b"\x89PNG not json"}
    checked, handed = transport.check("dee"), transport.hand_in("dee")
    assert (checked.outcome, checked.sentence) == (
        PageOutcome.REFUSED, f"not checked: {NAME}: notebook could not be read: not UTF-8 text; "
        "it costs no check")
    assert (handed.outcome, handed.sentence) == (
        PageOutcome.REFUSED, f"not handed in: {NAME}: notebook could not be read: not UTF-8 text; "
        "nothing was recorded")
    assert checked.job is None and handed.job is None and store.jobs() == []


def test_a_hand_in_is_recorded_once_at_the_services_time(transport, store, monkeypatch):
    arrived = datetime(2026, 12, 1, 12, 0, 5, tzinfo=UTC)
    monkeypatch.setattr(actions, "utc_now", lambda: arrived)
    transport.saved["eli"] = {NAME: answered(transport.settings)}
    handed = transport.hand_in("eli")
    [job] = store.jobs("eli")
    assert (handed.outcome, handed.job.id) == (PageOutcome.HANDED_IN, job.id)
    assert handed.sentence == (f"handed in: hand-in {job.id} of {ASSIGNMENT} at 2026-12-01 "
                               f"12:00:05 UTC (digest {job.digest[:12]}); it is graded in turn")
    assert not job.is_check and job.arrived == arrived
    assert job.source == f"hub:eli+{ASSIGNMENT}+2026-12-01T120005.000000Z"
    assert JobSource(job.source).kind == SourceKind.HUB
    again = transport.hand_in("eli")
    assert (again.outcome, again.sentence) == (
        PageOutcome.SAME_AGAIN, f"not handed in again: your saved notebook is the same as your "
        f"last hand-in (the same files as hand-in {job.id}), which stands")
    assert [(j.id, j.state) for j in sorted(store.jobs("eli"), key=lambda j: j.id)] == [
        (job.id, JobState.WAITING), (again.job.id, JobState.DUPLICATE)]  # graded once


def test_get_gives_the_released_notebooks_or_says_it_is_not_released(settings):
    path = os.path.join(settings.root, "release", ASSIGNMENT, NAME)
    with open(path, "rb") as handle:
        release = handle.read()
    given = actions.get(settings, ASSIGNMENT)
    assert (given.outcome, given.files) == (PageOutcome.GIVEN, {NAME: release})
    os.rename(path, path + ".away")
    try:
        missing = actions.get(settings, ASSIGNMENT)
    finally:
        os.rename(path + ".away", path)
    assert (missing.outcome, missing.sentence, missing.files) == (
        PageOutcome.NOT_YET, f"{ASSIGNMENT} is not released yet (ask your instructor)", {})


def test_feedback_is_given_once_it_went_out_at_the_due_date(settings, store):
    job = store.hand_in("fay", ASSIGNMENT, {NAME: answered(settings)}, "exchange:fay+tiny+1",
                        datetime(2026, 12, 1, 12, 0, tzinfo=UTC))
    store.finish(job.id, JobState.GRADED, score=6.0, max_score=6.0, checks=[])
    before = actions.feedback(settings, store, "fay", ASSIGNMENT)
    assert (before.outcome, before.sentence, before.files) == (
        PageOutcome.NOT_YET, f"no feedback of {ASSIGNMENT} yet: it is given out at your due date",
        {})
    folder = os.path.join(settings.feedback, "fay", ASSIGNMENT)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{NOTEBOOK}.html"), "wb") as handle:
        handle.write(b"<p>well done</p>")
    store.record_release(job, ReleaseOutcome.THROUGH_EXCHANGE,
                         datetime(2026, 12, 1, 17, 0, tzinfo=UTC))
    given = actions.feedback(settings, store, "fay", ASSIGNMENT)
    assert (given.outcome, given.hand_in, given.files) == (
        PageOutcome.GIVEN, job.id, {f"{NOTEBOOK}.html": b"<p>well done</p>"})


def joined_literals(source):
    """`source` with the string literals Python joins ("a "\n  f"b") written as one."""
    return re.sub(r'"\s*\n\s*f?"', "", source)


@pytest.mark.parametrize("answer", ["is queued for its checks", "not checked again: your saved",
                                    "no saved notebook at", "not handed in again: your saved",
                                    "is not released yet", "it is given out at your due date"])
def test_each_answer_of_the_page_is_written_in_one_module(answer):
    """The page's transports say nothing of their own: each answer is the actions'."""
    writers = sorted(str(path.relative_to(SERVICE)) for path in SERVICE.rglob("*.py")
                     if answer in joined_literals(path.read_text(encoding="utf-8")))
    assert writers == ["page/actions.py"]
