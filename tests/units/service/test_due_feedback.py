"""Feedback at each student's due date: who is due at a given moment (extensions included),
which hand-in's page goes out, a late one released when graded, and each released once,
across a restart of the service too. nbgrader's two commands are stood in for here by a
runner that writes what they would (the real ones run in tests/service/). Each grade is
pushed to the LMS at the same moment, once (c.GradingService.push_final_grades); a grade the
gradebook changes after it went out (a manual grade, a regrade, an extension) goes out
again, once, and a check is never what goes out."""

import dataclasses
import os
from datetime import UTC, datetime, timedelta

import pytest
from nbgrader.api import Gradebook

from grader.recording import apply_extensions, set_due_date
from grader.service.after.after_feedback import extensions_applied
from grader.service.after.due_feedback import DueFeedback, due_dates, feedback_due, for_students
from grader.service.after.final_push import FinalPush, PushSetupError, chosen_pusher
from grader.service.queue.records import ReleaseOutcome
from grader.service.queue.store import CheckRecord, JobState, Store
from grader.settings import CourseError, load
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, POINTS, record_grades

DUE = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
BEFORE, AFTER = DUE - timedelta(minutes=1), DUE + timedelta(seconds=1)
BOB_DUE = DUE + timedelta(hours=48)  # bob's extension


@pytest.fixture(scope="module")
def course_settings(tiny_course, tmp_path_factory):
    settings = load(tiny_course)
    set_due_date(settings, ASSIGNMENT, "2026-12-01 17:00:00 UTC")
    with Gradebook(settings.db_url, settings.course_id) as gb:
        for student in ("alice", "bob", "carol", "dora", "erin", "fred", "gail"):
            gb.update_or_create_student(student)
    extensions = tmp_path_factory.mktemp("extensions") / "extensions.csv"
    extensions.write_text("student_id,assignment,extra_hours,new_due,note\n"
                          f"bob,{ASSIGNMENT},48,,\n")
    apply_extensions(settings, str(extensions))
    return settings


@pytest.fixture
def settings(course_settings, tmp_path):
    """The course's settings with its autograded/ and feedback/ folders this test's own."""
    return dataclasses.replace(course_settings, autograded=str(tmp_path / "autograded"),
                               feedback=str(tmp_path / "feedback"))


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "queue.db"))


def hand_in(store, student, text, arrived, state=JobState.GRADED, assignment=ASSIGNMENT):
    """A hand-in of `student` stored at `arrived` and taken to `state`."""
    job = store.hand_in(student, assignment, {"tiny.ipynb": text.encode()}, "exchange:x",
                        arrived)
    if state in (JobState.GRADED, JobState.REFUSED, JobState.FAILED):
        store.claim("test:1", 60)
        store.finish(job.id, state, 6.0, 6.0, [CheckRecord("answer_value", True, 1.0, 1.0)])
    elif state == JobState.GRADING:
        store.claim("test:1", 60)
    return store.job(job.id)


DUES = {("alice", ASSIGNMENT): DUE, ("bob", ASSIGNMENT): BOB_DUE, ("carol", "undated"): None}


def due_ids(store, now, released=frozenset()):
    return [job.id for job in feedback_due(store.jobs(), set(released), DUES, now)]


def test_only_the_students_whose_own_due_date_has_passed_are_due(store):
    alice = hand_in(store, "alice", "a", BEFORE - timedelta(hours=1))
    bob = hand_in(store, "bob", "b", BEFORE - timedelta(hours=1))
    assert due_ids(store, BEFORE) == []
    assert due_ids(store, DUE) == [alice.id]
    assert due_ids(store, BOB_DUE - timedelta(seconds=1)) == [alice.id]
    assert due_ids(store, BOB_DUE) == [alice.id, bob.id]


def test_an_assignment_without_a_due_date_is_never_due(store):
    hand_in(store, "carol", "c", BEFORE, assignment="undated")
    assert due_ids(store, AFTER + timedelta(days=365)) == []


def test_the_latest_graded_hand_in_goes_out_and_a_refused_latest_one_holds_it(store):
    hand_in(store, "alice", "first", BEFORE - timedelta(hours=2))
    second = hand_in(store, "alice", "second", BEFORE - timedelta(hours=1))
    hand_in(store, "alice", "second", BEFORE - timedelta(minutes=30), JobState.DUPLICATE)
    hand_in(store, "alice", "crashed the grader", BEFORE - timedelta(minutes=20),
            JobState.FAILED)  # nothing recorded: autograded/ still holds `second`
    assert due_ids(store, AFTER) == [second.id]
    hand_in(store, "alice", "not a notebook", BEFORE - timedelta(minutes=10), JobState.REFUSED)
    assert due_ids(store, AFTER) == []


def test_an_on_time_hand_in_still_waiting_at_the_due_date_goes_out_once_graded(store):
    hand_in(store, "alice", "early", BEFORE - timedelta(hours=1))
    waiting = hand_in(store, "alice", "rush", BEFORE, JobState.WAITING)
    assert due_ids(store, AFTER) == []
    store.claim("test:1", 60)
    assert due_ids(store, AFTER) == []
    store.finish(waiting.id, JobState.GRADED, 5.0, 6.0)
    assert due_ids(store, AFTER) == [waiting.id]


def test_a_late_hand_in_goes_out_when_it_is_graded_after_the_on_time_one(store):
    on_time = hand_in(store, "alice", "on time", BEFORE)
    assert due_ids(store, AFTER) == [on_time.id]
    late = hand_in(store, "alice", "late", AFTER + timedelta(hours=1), JobState.WAITING)
    assert due_ids(store, AFTER + timedelta(hours=1), {on_time.id}) == []
    store.claim("test:1", 60)
    store.finish(late.id, JobState.GRADED, 4.0, 6.0)
    assert due_ids(store, AFTER + timedelta(hours=1), {on_time.id}) == [late.id]
    assert due_ids(store, AFTER + timedelta(hours=1), {on_time.id, late.id}) == []


def test_due_dates_are_read_from_the_gradebook_with_each_students_extension(course_settings):
    assert due_dates(course_settings, [("alice", ASSIGNMENT), ("bob", ASSIGNMENT),
                                       ("nobody", "no-such-assignment")]) == {
        ("alice", ASSIGNMENT): DUE, ("bob", ASSIGNMENT): BOB_DUE,
        ("nobody", "no-such-assignment"): None}


def test_a_command_for_chosen_students_excludes_the_others_or_names_each():
    assert for_students(["gen"], ["alice"], ["alice", "bob"]) == [["gen", "--student=alice"]]
    assert for_students(["gen"], ["alice", "bob"], ["alice", "bob", "carol", "dan"]) == [
        ["gen", "--CourseDirectory.student_id_exclude=carol,dan"]]
    assert for_students(["gen"], ["alice", "bob"], ["alice", "bob"]) == [["gen"]]
    assert for_students(["gen"], ["a[1]", "b"], ["a[1]", "b", "c,d"]) == [
        ["gen", "--student=a[[]1]"], ["gen", "--student=b"]]


class FakeNbgrader:
    """Stands in for nbgrader's generate_feedback (autograded/ copied to feedback/ with a
    page) and release_feedback (the students it was run for, noted)."""

    def __init__(self, settings, release_status=0):
        self.settings, self.release_status = settings, release_status
        self.commands = []

    def __call__(self, command, folder):
        assert folder == self.settings.root
        self.commands.append(command[3:])
        name, students = command[3], self.chosen(command)
        if name == "generate_feedback":
            for student in students:
                source = os.path.join(self.settings.autograded, student, ASSIGNMENT)
                target = os.path.join(self.settings.feedback, student, ASSIGNMENT)
                os.makedirs(target, exist_ok=True)
                for file in os.listdir(source):
                    with open(os.path.join(source, file)) as handle:
                        text = handle.read()
                    with open(os.path.join(target, file.replace(".ipynb", ".html")), "w") as out:
                        out.write(text)
            return 0, "generated"
        return self.release_status, "released" if self.release_status == 0 else "[Error] disk"

    def chosen(self, command):
        named = [arg.split("=", 1)[1] for arg in command if arg.startswith("--student=")]
        if named:
            return named
        excluded = [arg.split("=", 1)[1].split(",") for arg in command
                    if arg.startswith("--CourseDirectory.student_id_exclude=")]
        everyone = sorted(os.listdir(self.settings.autograded))
        return [s for s in everyone if not excluded or s not in excluded[0]]

    def runs(self, name):
        return [command for command in self.commands if command[0] == name]


def graded_in_autograded(settings, store, student, arrived, through_exchange=True):
    """A graded hand-in, and its autograded folder as the writer leaves it."""
    job = hand_in(store, student, f"{student}'s answers", arrived)
    folder = os.path.join(settings.autograded, student, ASSIGNMENT)
    os.makedirs(folder, exist_ok=True)
    files = {"tiny.ipynb": f"page of {student}", "timestamp.txt": str(arrived)}
    if through_exchange:
        files["submission_secret.txt"] = "secret"
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as handle:
            handle.write(text)
    return job


def test_at_the_due_date_the_page_is_made_released_and_recorded_once_across_a_restart(
        settings, store):
    alice = graded_in_autograded(settings, store, "alice", BEFORE)
    graded_in_autograded(settings, store, "bob", BEFORE)
    nbgrader = FakeNbgrader(settings)
    service = DueFeedback(settings, store, [ASSIGNMENT], nbgrader)
    assert service.tick(BEFORE) == [] and nbgrader.commands == []
    assert service.tick(AFTER) == [
        f"{ASSIGNMENT}: feedback of alice's hand-in {alice.id} released through the exchange"]
    assert nbgrader.commands == [["generate_feedback", ASSIGNMENT, "--force", "--student=alice"],
                                 ["release_feedback", ASSIGNMENT, "--student=alice"]]
    with open(os.path.join(settings.feedback, "alice", ASSIGNMENT, "tiny.html")) as handle:
        assert handle.read() == "page of alice"
    [release] = store.releases()
    assert (release.job_id, release.student, release.digest, release.released,
            release.outcome) == (alice.id, "alice", alice.digest, AFTER,
                             ReleaseOutcome.THROUGH_EXCHANGE)
    assert service.tick(AFTER + timedelta(minutes=5)) == []
    restarted = DueFeedback(settings, store, [ASSIGNMENT], nbgrader)
    assert restarted.tick(AFTER + timedelta(minutes=10)) == []
    assert len(nbgrader.commands) == 2  # bob is not due until his extension ends
    assert restarted.tick(BOB_DUE)[0].startswith(f"{ASSIGNMENT}: feedback of bob's hand-in")
    assert [r.student for r in store.releases()] == ["alice", "bob"]


def test_a_student_who_did_not_hand_in_through_the_exchange_is_listed_not_failed(
        settings, store):
    graded_in_autograded(settings, store, "alice", BEFORE, through_exchange=False)
    nbgrader = FakeNbgrader(settings)
    lines = DueFeedback(settings, store, [ASSIGNMENT], nbgrader).tick(AFTER)
    assert lines == [f"{ASSIGNMENT}: alice did not hand in through the exchange (no "
                     "submission_secret.txt): their feedback is in "
                     f"{os.path.relpath(os.path.join(settings.feedback, 'alice', ASSIGNMENT))}/ "
                     "(make feedback-zip)"]
    assert nbgrader.runs("release_feedback") == []
    assert [r.outcome for r in store.releases()] == [ReleaseOutcome.NOT_THROUGH_EXCHANGE]


def test_a_failed_release_is_not_recorded_and_is_tried_again_a_minute_later(settings, store):
    alice = graded_in_autograded(settings, store, "alice", BEFORE)
    nbgrader = FakeNbgrader(settings, release_status=1)
    service = DueFeedback(settings, store, [ASSIGNMENT], nbgrader)
    assert service.tick(AFTER) == [
        f"{ASSIGNMENT}: feedback of alice's hand-in {alice.id}: not released: release_feedback "
        f"{ASSIGNMENT} exited with 1: [Error] disk; tried again in 60 s"]
    assert store.releases() == []
    assert service.tick(AFTER + timedelta(seconds=30)) == []
    assert len(nbgrader.runs("release_feedback")) == 1
    nbgrader.release_status = 0
    assert service.tick(AFTER + timedelta(seconds=61))[0].endswith("released through the exchange")
    assert [r.job_id for r in store.releases()] == [alice.id]


def test_a_service_killed_between_the_release_and_its_record_releases_it_again(
        settings, store, monkeypatch):
    alice = graded_in_autograded(settings, store, "alice", BEFORE)
    nbgrader = FakeNbgrader(settings)

    def killed(*args, **kwargs):
        raise SystemExit("killed")

    monkeypatch.setattr(store, "record_release", killed)
    with pytest.raises(SystemExit):
        DueFeedback(settings, store, [ASSIGNMENT], nbgrader).tick(AFTER)
    monkeypatch.undo()
    assert store.releases() == []
    DueFeedback(settings, store, [ASSIGNMENT], nbgrader).tick(AFTER + timedelta(seconds=5))
    assert len(nbgrader.runs("release_feedback")) == 2
    assert [r.job_id for r in store.releases()] == [alice.id]


def test_a_late_hand_in_graded_after_the_release_is_released_in_turn(settings, store):
    graded_in_autograded(settings, store, "alice", BEFORE)
    nbgrader = FakeNbgrader(settings)
    service = DueFeedback(settings, store, [ASSIGNMENT], nbgrader)
    service.tick(AFTER)
    late = graded_in_autograded(settings, store, "alice", AFTER + timedelta(hours=2))
    assert service.tick(AFTER + timedelta(hours=3)) == [
        f"{ASSIGNMENT}: feedback of alice's hand-in {late.id} released through the exchange"]
    assert [r.job_id for r in store.releases()][-1] == late.id


class RecordingPush:
    """A push (c.GradingService.push_final_grades) that records whom it was asked to push;
    it fails while `failing` says why."""

    def __init__(self):
        self.calls, self.failing = [], ""

    def __call__(self, settings, assignment, *, students):
        self.calls.append((assignment, list(students)))
        if self.failing:
            raise CourseError(self.failing)
        return [f"{len(students)} student(s) written"], 0


def test_each_grade_is_pushed_once_when_it_becomes_final_across_a_restart(settings, store):
    alice = hand_in(store, "alice", "a", BEFORE - timedelta(hours=1))
    bob = hand_in(store, "bob", "b", BEFORE - timedelta(hours=1))
    push = RecordingPush()
    service = FinalPush(settings, store, [ASSIGNMENT], "canvas", push)
    assert service.tick(BEFORE) == [] and push.calls == []
    assert service.tick(AFTER) == [f"{ASSIGNMENT}: final grade(s) of alice to canvas: pushed",
                                   "  1 student(s) written"]
    assert service.tick(AFTER + timedelta(minutes=5)) == []
    restarted = FinalPush(settings, store, [ASSIGNMENT], "canvas", push)
    assert restarted.tick(BOB_DUE - timedelta(seconds=1)) == []
    restarted.tick(BOB_DUE)
    assert push.calls == [(ASSIGNMENT, ["alice"]), (ASSIGNMENT, ["bob"])]
    assert store.pushed("canvas") == {alice.id, bob.id} and store.pushed("lti") == set()
    late = hand_in(store, "alice", "late", BOB_DUE + timedelta(hours=1))  # its new grade
    restarted.tick(BOB_DUE + timedelta(hours=1))
    assert push.calls[-1] == (ASSIGNMENT, ["alice"]) and late.id in store.pushed("canvas")


def test_a_push_that_fails_is_reported_and_tried_again_a_minute_later(settings, store):
    alice = hand_in(store, "alice", "a", BEFORE)
    push = RecordingPush()
    push.failing = "Canvas refused the token (401): make a new one"
    service = FinalPush(settings, store, [ASSIGNMENT], "canvas", push)
    assert service.tick(AFTER) == [
        f"{ASSIGNMENT}: final grade(s) of alice to canvas: not all pushed; tried again in 60 s",
        "  Canvas refused the token (401): make a new one"]
    assert store.pushed("canvas") == set()
    assert service.tick(AFTER + timedelta(seconds=30)) == [] and len(push.calls) == 1
    push.failing = ""
    assert service.tick(AFTER + timedelta(seconds=61))[0].endswith("to canvas: pushed")
    assert store.pushed("canvas") == {alice.id}


def test_the_push_setting_names_one_of_the_services_pushes_or_none():
    push = RecordingPush()
    assert chosen_pusher("", {"canvas": push}) is None
    assert chosen_pusher("canvas", {"canvas": push}) is push
    with pytest.raises(PushSetupError, match=r"push_final_grades = 'moodle' is not a push this "
                       r"service knows \(canvas, lti, or '' for off\)"):
        chosen_pusher("moodle", {"canvas": push, "lti": push})


def test_a_check_after_the_submission_is_never_what_goes_out(store):
    submitted = hand_in(store, "alice", "handed in", BEFORE)
    check = store.hand_in("alice", ASSIGNMENT, {"tiny.ipynb": b"a try after the due date"},
                          "check", AFTER)
    store.claim("test:1", 60)
    store.finish(check.id, JobState.GRADED, 0.0, 6.0, [])
    assert due_ids(store, AFTER) == [submitted.id]
    waiting = store.hand_in("alice", ASSIGNMENT, {"tiny.ipynb": b"another try"}, "check", AFTER)
    assert waiting.state == JobState.WAITING and due_ids(store, AFTER) == [submitted.id]


def manual_grade(settings, student, grade_id, points):
    """What formgrader does when a grader gives `points` by hand: the grade's manual score."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.find_grade(grade_id, NOTEBOOK, ASSIGNMENT, student).manual_score = points
        gb.db.commit()


def test_a_pushed_grade_the_gradebook_changes_is_pushed_again_once_and_said(settings, store):
    record_grades(settings.root, "dora", POINTS)  # 6 of 6, as the writer records it
    dora = hand_in(store, "dora", "d", BEFORE)
    push = RecordingPush()
    service = FinalPush(settings, store, [ASSIGNMENT], "canvas", push)
    assert service.tick(AFTER)[0] == f"{ASSIGNMENT}: final grade(s) of dora to canvas: pushed"
    assert store.sent_scores("canvas") == {("dora", ASSIGNMENT): 6.0}
    assert service.tick(AFTER + timedelta(minutes=1)) == []
    manual_grade(settings, "dora", "answer_value", 0.0)  # formgrader: 6 -> 5
    assert service.tick(AFTER + timedelta(minutes=2)) == [
        f"{ASSIGNMENT}: final grade(s) of dora to canvas: pushed",
        "  dora: the gradebook's grade changed since it was pushed (6 -> 5): pushed again",
        "  1 student(s) written"]
    assert service.tick(AFTER + timedelta(minutes=3)) == []  # once
    assert push.calls == [(ASSIGNMENT, ["dora"])] * 2 and store.pushed("canvas") == {dora.id}
    assert store.sent_scores("canvas") == {("dora", ASSIGNMENT): 5.0}


def test_feedback_the_gradebook_changes_after_it_went_out_is_given_out_again_once(
        settings, store):
    record_grades(settings.root, "erin", POINTS)
    erin = graded_in_autograded(settings, store, "erin", BEFORE)
    nbgrader = FakeNbgrader(settings)
    service = DueFeedback(settings, store, [ASSIGNMENT], nbgrader)
    service.tick(AFTER)
    manual_grade(settings, "erin", "ones_values", 1.0)  # 6 -> 5
    assert service.tick(AFTER + timedelta(minutes=1)) == [
        f"{ASSIGNMENT}: erin's grade changed in the gradebook since the feedback went out "
        "(6 -> 5): their feedback is given out again",
        f"{ASSIGNMENT}: feedback of erin's hand-in {erin.id} released through the exchange"]
    assert service.tick(AFTER + timedelta(minutes=2)) == []
    assert len(nbgrader.runs("release_feedback")) == 2


def test_a_grade_recorded_while_its_hand_in_is_still_grading_sends_nothing_again(
        settings, store):
    """The writer records a grade in the gradebook before the queue marks its hand-in
    graded: in between, the earlier hand-in's feedback and push do not go out again."""
    record_grades(settings.root, "gail", POINTS)
    gail = graded_in_autograded(settings, store, "gail", BEFORE)
    nbgrader, push = FakeNbgrader(settings), RecordingPush()
    feedback = DueFeedback(settings, store, [ASSIGNMENT], nbgrader)
    final = FinalPush(settings, store, [ASSIGNMENT], "canvas", push)
    assert len(feedback.tick(AFTER)) == 1 and len(final.tick(AFTER)) == 2
    late = hand_in(store, "gail", "a late try", AFTER, JobState.GRADING)
    manual_grade(settings, "gail", "ones_values", 1.0)  # the late one's grade: 6 -> 5
    later = AFTER + timedelta(minutes=1)
    assert feedback.tick(later) == [] and final.tick(later) == []
    assert len(nbgrader.runs("release_feedback")) == 1 and push.calls == [(ASSIGNMENT, ["gail"])]
    store.finish(late.id, JobState.GRADED, 5.0, 6.0, [])
    assert feedback.tick(later) == [
        f"{ASSIGNMENT}: feedback of gail's hand-in {late.id} released through the exchange"]
    assert final.tick(later)[0] == f"{ASSIGNMENT}: final grade(s) of gail to canvas: pushed"
    assert [r.job_id for r in store.releases()] == [gail.id, late.id]
    assert store.pushed("canvas") == {gail.id, late.id}


def test_make_extensions_says_when_an_extension_comes_after_the_feedback_went_out(
        settings, store, tmp_path):
    record_grades(settings.root, "fred", POINTS)
    fred = graded_in_autograded(settings, store, "fred", BEFORE)
    DueFeedback(settings, store, [ASSIGNMENT], FakeNbgrader(settings)).tick(AFTER)
    extensions = tmp_path / "extensions.csv"
    extensions.write_text("student_id,assignment,extra_hours,new_due,note\n"
                          f"bob,{ASSIGNMENT},48,,\nfred,{ASSIGNMENT},24,,\n")
    try:
        assert extensions_applied(settings, store, str(extensions))[-1] == (
            f"fred {ASSIGNMENT}: this extension was granted after their feedback went out "
            f"({AFTER:%Y-%m-%d %H:%M} UTC): what they were shown stays shown; the "
            "gradebook's grade is unchanged")
        again = extensions_applied(settings, store, str(extensions))  # nothing new: no word
        assert not any("after their feedback" in line for line in again)
    finally:
        extensions.write_text("student_id,assignment,extra_hours,new_due,note\n"
                              f"bob,{ASSIGNMENT},48,,\n")
        apply_extensions(settings, str(extensions))
    assert fred.id in {r.job_id for r in store.releases()}


def test_a_look_that_keeps_failing_is_said_once_and_its_return_once(capsys):
    import threading

    from grader.service.after.due_feedback import release_at_due

    stop = threading.Event()
    outcomes = iter([OSError("the database restarts\nSQL: SELECT ..."), OSError("refused"),
                     OSError("refused"), ["ada's feedback released"], []])

    def tick():
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        if not outcome:
            stop.set()
        return outcome

    release_at_due(tick, stop, 0.0, "feedback at the due date")
    assert capsys.readouterr().err.splitlines() == [
        "serve: feedback at the due date: OSError: the database restarts; tried again every "
        "0 s",
        "serve: feedback at the due date: working again",
        "serve: ada's feedback released"]


def comment_on(settings, student, text):
    """What formgrader does when a grader edits the comment on an answer."""
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.find_comment("answer_answer", NOTEBOOK, ASSIGNMENT, student).manual_comment = text
        gb.db.commit()


def check_says(settings, student, message):
    """The student's report part as the writer leaves it, answer_value's message `message`."""
    from grader.recording import write_student_report
    from grader.results import CheckResult, CheckStatus, NotebookResult, NotebookStatus, \
        StudentResult

    tests = [CheckResult(grade_id, points, points, CheckStatus.PASSED,
                         message if grade_id == "answer_value" else "")
             for grade_id, points in POINTS.items()]
    write_student_report(settings.reports, ASSIGNMENT, StudentResult(
        student, ASSIGNMENT, notebooks=[NotebookResult(NOTEBOOK, NotebookStatus.GRADED,
                                                       tests=tests)]))


def test_an_edited_comment_or_a_changed_check_message_is_pushed_again_once(settings, store):
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.update_or_create_student("hana")
    record_grades(settings.root, "hana", POINTS)
    check_says(settings, "hana", "42, as expected")
    hana = hand_in(store, "hana", "h", BEFORE)
    push = RecordingPush()
    service = FinalPush(settings, store, [ASSIGNMENT], "canvas", push)
    assert service.tick(AFTER)[0] == f"{ASSIGNMENT}: final grade(s) of hana to canvas: pushed"
    assert service.tick(AFTER + timedelta(minutes=1)) == []
    again = [f"{ASSIGNMENT}: final grade(s) of hana to canvas: pushed",
             "  hana: a comment or a check's message changed since it was pushed: pushed again",
             "  1 student(s) written"]
    comment_on(settings, "hana", "Well named.")  # formgrader: the score stays 6
    assert service.tick(AFTER + timedelta(minutes=2)) == again
    assert service.tick(AFTER + timedelta(minutes=3)) == []  # once
    check_says(settings, "hana", "42, as expected; the answer's type is int")
    assert service.tick(AFTER + timedelta(minutes=4)) == again
    assert service.tick(AFTER + timedelta(minutes=5)) == []  # once
    assert push.calls == [(ASSIGNMENT, ["hana"])] * 3 and store.pushed("canvas") == {hana.id}
    assert store.sent_scores("canvas") == {("hana", ASSIGNMENT): 6.0}


def test_feedback_whose_comment_or_check_message_changed_is_given_out_again_once(
        settings, store):
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.update_or_create_student("ivan")
    record_grades(settings.root, "ivan", POINTS)
    check_says(settings, "ivan", "42, as expected")
    ivan = graded_in_autograded(settings, store, "ivan", BEFORE)
    nbgrader = FakeNbgrader(settings)
    service = DueFeedback(settings, store, [ASSIGNMENT], nbgrader)
    service.tick(AFTER)
    again = [f"{ASSIGNMENT}: ivan's comments or check messages changed since the feedback "
             "went out: their feedback is given out again",
             f"{ASSIGNMENT}: feedback of ivan's hand-in {ivan.id} released through the exchange"]
    comment_on(settings, "ivan", "Well named.")
    assert service.tick(AFTER + timedelta(minutes=1)) == again
    assert service.tick(AFTER + timedelta(minutes=2)) == []
    check_says(settings, "ivan", "42, as expected; the answer's type is int")
    assert service.tick(AFTER + timedelta(minutes=3)) == again
    assert service.tick(AFTER + timedelta(minutes=4)) == []
    assert len(nbgrader.runs("release_feedback")) == 3


def test_a_grade_sent_by_an_older_service_without_a_digest_counts_as_its_score(settings, store):
    from grader.service.after.recorded import changed_since_sent, recorded_grades

    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.update_or_create_student("jack")
    record_grades(settings.root, "jack", POINTS)
    comment_on(settings, "jack", "Fine.")
    pair = ("jack", ASSIGNMENT)
    store.record_sent("jack", ASSIGNMENT, "canvas", 6.0)  # as an older service left it
    grades = recorded_grades(settings, [ASSIGNMENT])
    assert changed_since_sent(store, "canvas", grades, {pair}) == {}  # same score: unchanged
    comment_on(settings, "jack", "Fine, and well named.")
    grades = recorded_grades(settings, [ASSIGNMENT])
    assert changed_since_sent(store, "canvas", grades, {pair}) == {pair: (6.0, 6.0)}
