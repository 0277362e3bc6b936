"""After grading: one poller of settled grades, its one look read by the feedback and the push."""

import datetime
import os
import types

import pytest
from traitlets.config import Config

from grader.service import EventHub, GradeEvent, JobSource, JobState, Store
from grader.service.after import due_feedback, settled
from grader.service.after.recorded import RecordedGrade

UTC = datetime.timezone.utc
ASSIGNMENT = "hw1"
DUE = datetime.datetime(2026, 12, 1, 12, tzinfo=UTC)


@pytest.fixture
def course(tmp_path, monkeypatch):
    """Settings with the feedback on the page and a push named; the gradebook's two reads
    faked and counted: (settings, store, reads, pushes)."""
    config = Config()
    config.HubTransport.transport = "http"
    config.GradingService.push_final_grades = "fake"
    settings = types.SimpleNamespace(config=config, root=str(tmp_path),
                                     feedback=str(tmp_path / "feedback"),
                                     autograded=str(tmp_path / "autograded"))
    store = Store(str(tmp_path / "service" / "queue.db"))
    for student in ("ada", "bob"):
        job = store.hand_in(student, ASSIGNMENT, {"hw1.ipynb": student.encode()},
                            JobSource("exchange:inbound"), DUE - datetime.timedelta(hours=1))
        store.claim("here:1", 60)
        store.finish(job.id, JobState.GRADED, 2.0, 2.0)
    reads = []
    monkeypatch.setattr(due_feedback, "due_dates", lambda settings, pairs: reads.append(
        "due dates") or {pair: DUE for pair in pairs})
    monkeypatch.setattr(due_feedback, "recorded_grades", lambda settings, assignments: reads.append(
        "grades") or {(s, ASSIGNMENT): RecordedGrade(2.0, 2.0, 0.0, 0.0, {}) for s in ("ada", "bob")})
    pushes = []

    def push(settings, assignment, *, students):
        pushes.append(sorted(students))
        return [f"{len(students)} pushed"], 0

    return types.SimpleNamespace(settings=settings, store=store, reads=reads, pushes=pushes,
                                 push=push)


def generating(settings, failing=False):
    def run(command, folder):
        if failing:
            raise OSError("nbgrader is not there")
        if "generate_feedback" in command:
            for student in ("ada", "bob"):
                folder = os.path.join(settings.feedback, student, ASSIGNMENT)
                os.makedirs(folder, exist_ok=True)
                with open(os.path.join(folder, "hw1.html"), "w", encoding="utf-8") as page:
                    page.write("<p>ok</p>")
        return 0, ""
    return run


def test_one_look_reads_the_gradebook_once_for_the_feedback_and_the_push_together(course):
    hub = EventHub()
    seen = []
    for event in GradeEvent:
        hub.subscribe(event, lambda happened: seen.append((str(happened.event),
                                                           happened.job.student)))
    after = settled.AfterGrading(course.settings, course.store, hub, {"fake": course.push},
                                 generating(course.settings))
    after.serving({ASSIGNMENT: None}, [])
    assert [reader.what for reader in after.poller.readers] == [
        "feedback at the due date", "final grades to the LMS"]
    assert after.poller.tick(DUE - datetime.timedelta(minutes=1)) == []  # not due yet
    assert course.reads == ["due dates"] and seen == []
    course.reads.clear()
    lines = after.poller.tick(DUE + datetime.timedelta(minutes=1))
    assert course.reads == ["due dates", "grades"]  # one of each for both readers
    assert seen == [("settled", "ada"), ("settled", "bob"), ("released", "ada"),
                    ("released", "bob")]
    assert course.pushes == [["ada", "bob"]] and len(lines) == 4
    course.reads.clear()
    assert after.poller.tick(DUE + datetime.timedelta(minutes=2)) == []  # all sent
    assert course.reads == ["grades"]  # what changed since it went out: one read
    assert len(seen) == 4 and course.pushes == [["ada", "bob"]]


def test_a_reader_that_fails_is_said_once_and_the_other_still_acts(course):
    after = settled.AfterGrading(course.settings, course.store, EventHub(),
                                 {"fake": course.push}, generating(course.settings, failing=True))
    after.serving({ASSIGNMENT: None}, [])
    later = DUE + datetime.timedelta(minutes=1)
    assert after.poller.tick(later) == [
        "feedback at the due date: OSError: nbgrader is not there; tried again at the next "
        "look", f"{ASSIGNMENT}: final grade(s) of ada, bob to fake: pushed", "  2 pushed"]
    assert after.poller.tick(later + datetime.timedelta(minutes=1)) == []  # said once
    assert course.pushes == [["ada", "bob"]] and course.store.releases() == []
