"""One record of a grade, on the tiny course served for real with its grades pushed to a
Canvas on 127.0.0.1: after the service's own grading, `make regrade APPLY=1`, a batch `make
autograde` following the service, a manual grade written into the gradebook as formgrader
writes it, and an extension granted after the grades went out, every view agrees with the
gradebook: the report part, `grader queue --json`, `student-view --json`, the feedback
page, the item analysis and what Canvas holds; the service pushes each changed grade
again, once. A check after the due date never replaces the hand-in, and a late hand-in
shows the penalty the gradebook applied, everywhere.

The tests share one course and one running service (module scope) and run in order.
"""

import contextlib
import csv
import datetime
import io
import json
import os
import re
import subprocess
import sys
import time

import pytest
from nbgrader.api import Gradebook

from grader.cli import main
from grader.recording import set_due_date
from grader.reports import read_grades
from grader.service import JobState, course_store
from grader.service.page.requests import ask_for_check
from grader.settings import load
from testsupport.course import nbgrader_env
from testsupport.fake_canvas import FakeCanvas, Served
from testsupport.service import start_service, stop_service, wait_until_final
from testsupport.tiny_course import (ASSIGNMENT, NOTEBOOK, correct, make_course, released,
                                     release_changed_check)

DEADLINE = 300  # seconds to wait for the service to grade, release or push
TICK = 0.5  # c.GradingService.feedback_check_seconds in this course
CANVAS_COURSE, CANVAS_ASSIGNMENT, TOKEN = 78, 6, "one-record-token"
USERS = {"ada": "101", "bob": "102", "cal": "103", "lee": "104"}
# ada answers everything; bob's double returns a float (both int checks fail: 3 of 6); cal's
# answer is 41 (5 of 6); lee answers everything, two hours after the due date
ANSWERS = {"ada": {}, "bob": {"double_answer": "def double(x):\n    return 2.0 * x\n"},
           "cal": {"answer_answer": "answer = 41\n"}, "lee": {}}
DUE = datetime.datetime.now(datetime.UTC).replace(microsecond=0) - datetime.timedelta(days=1)


def grader(course, *args):
    done = subprocess.run([sys.executable, "-m", "grader", *args], cwd=course,
                          env=nbgrader_env(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The course, its Canvas and its service, every student handed in and graded, every
    grade pushed: (course, canvas, service, its log)."""
    folder = tmp_path_factory.mktemp("one-record")
    course = make_course(str(folder / "course"))
    with open(os.path.join(course, "nbgrader_config.py"), "a") as handle:
        handle.write(f"c.GradingService.feedback_check_seconds = {TICK}\n"
                     "c.GradingService.push_final_grades = 'canvas'\n"
                     "c.CanvasPush.backoff_seconds = 0.001  # short waits, for the test\n"
                     "c.LateSubmissionPlugin.penalty_method = 'zero'  # late: 0 points\n")
    roster = os.path.join(course, "roster-in.csv")
    with open(roster, "w") as handle:
        handle.write("id,first_name,last_name,lms_user_id\n" + "".join(
            f"{s},{s.title()},Lee,{user}\n" for s, user in USERS.items()))
    assert main(["roster", roster, "--course", course]) == 0
    settings = load(course)
    set_due_date(settings, ASSIGNMENT, DUE.strftime("%Y-%m-%d %H:%M:%S UTC"))
    fake = FakeCanvas(CANVAS_COURSE, TOKEN, {CANVAS_ASSIGNMENT: {
        "name": ASSIGNMENT, "points_possible": 6.0}}, students=set(USERS.values()))
    canvas = Served(fake)
    token = folder / "canvas-token"
    token.write_text(TOKEN)
    token.chmod(0o600)
    log = folder / "service.log"
    output = open(log, "wb")
    service = start_service(course, "--workers", "2", log=output, env_overrides={
        "TMPDIR": str(folder), "CANVAS_URL": canvas.url, "CANVAS_COURSE": str(CANVAS_COURSE),
        "CANVAS_TOKEN_FILE": str(token)})
    try:
        store = course_store(settings.data)
        for student, answers in ANSWERS.items():
            late = datetime.timedelta(hours=2 if student == "lee" else -1)
            store.hand_in(student, ASSIGNMENT, {NOTEBOOK + ".ipynb": json.dumps(
                correct(released(course), **answers)).encode()}, "submit", DUE + late)
        jobs = wait_until_final(store, 4, time.monotonic() + DEADLINE, service)
        assert [j.state for j in jobs] == [JobState.GRADED] * 4, log.read_text()
        wait_for(lambda: len(canvas_grades(fake)) == 4, "the four grades pushed", service, log)
        wait_for(lambda: len(store.releases()) == 4, "the four feedback pages", service, log)
        yield {"course": course, "canvas": fake, "service": service, "log": log,
               "settings": settings, "store": store}
    finally:
        status = stop_service(service, timeout=30)
        output.close()
        canvas.close()
        assert status == 0, log.read_text(errors="replace")


def wait_for(condition, what, service, log):
    deadline = time.monotonic() + DEADLINE
    while not condition():
        if time.monotonic() > deadline or service.poll() is not None:
            pytest.fail(f"{what}: not within {DEADLINE} s\n{log.read_text(errors='replace')}")
        time.sleep(0.2)


def canvas_grades(canvas):
    """[(Canvas user id, grade)] of every grade written to Canvas, in order."""
    return [(w.user, w.posted_grade) for w in canvas.writes if w.posted_grade is not None]


def printed(*args):
    """What `python -m grader ARGS` prints, run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


def views(served):
    """{student: {view: score}} of every view of each student's grade."""
    course, settings = served["course"], served["settings"]
    _, [grades] = read_grades(settings, [ASSIGNMENT])
    queue = [r for r in json.loads(printed("queue", "--json", "--course", course))
             if r["recorded"]]
    grader(course, "grades")  # the reports, the item analysis among them
    with open(os.path.join(settings.reports, f"{ASSIGNMENT}-items.csv")) as handle:
        items = {row["check"]: row for row in csv.DictReader(handle)}
    last_in_canvas = dict(canvas_grades(served["canvas"]))
    found = {}
    for student, user in USERS.items():
        with open(os.path.join(settings.reports, ASSIGNMENT, f"{student}.json")) as handle:
            part = json.load(handle)
        seen = json.loads(printed("student-view", ASSIGNMENT, "--student", student,
                                  "--json", "--course", course))
        [recorded] = [h for h in seen["hand_ins"] if h["recorded"]]
        [listed] = [r for r in queue if r["student"] == student]
        with open(os.path.join(settings.feedback, student, ASSIGNMENT,
                               NOTEBOOK + ".html")) as handle:
            page = re.search(r"Score: <strong>([\d.]+)</strong>", handle.read())[1]
        found[student] = {
            "gradebook": grades.score_of(student),
            "queue": listed["score"], "student-view": recorded["score"],
            "checks on the page": sum(c["points"] for c in recorded["checks"]),
            "feedback page": float(page), "canvas": float(last_in_canvas[user]),
            "report part": sum(t["points"] for nb in part["notebooks"] for t in nb["tests"]),
            "penalty": listed["late_penalty"]}
    # the item analysis: each check's mean over the class, as the gradebook has the points
    for grade_id, row in items.items():
        points = [grades.submissions[s].points[(NOTEBOOK, grade_id)] for s in USERS]
        maximum = next(c.max_points for c in grades.checks if c.grade_id == grade_id)
        assert float(row["mean"]) == pytest.approx(sum(points) / len(points) / maximum,
                                                   abs=1e-4), grade_id
    return found


def agree(found, manual=()):
    """Every view of each student shows the gradebook's score (after its late penalty); the
    report part, each check as the grader gave it, its points before the penalty, except
    for the `manual` students, whose grade a person gave by hand in the gradebook only."""
    for student, seen in found.items():
        score, penalty = seen["gradebook"], seen["penalty"]
        assert {view: seen[view] for view in SAME} == {view: score for view in SAME}, (
            student, seen)
        assert seen["checks on the page"] - penalty == score, (student, seen)
        if student not in manual:
            assert seen["report part"] - penalty == score, (student, seen)


SAME = ("queue", "student-view", "feedback page", "canvas")  # the gradebook's score itself


def test_the_first_grades_agree_everywhere_the_late_one_with_its_penalty(served):
    found = views(served)
    assert {s: v["gradebook"] for s, v in found.items()} == {
        "ada": 6.0, "bob": 3.0, "cal": 5.0, "lee": 0.0}
    assert found["lee"]["penalty"] == 6.0 and found["ada"]["penalty"] == 0.0
    agree(found)
    seen = json.loads(printed("student-view", ASSIGNMENT, "--student", "lee", "--json",
                              "--course", served["course"]))
    assert seen["hand_ins"][0]["note"].endswith("a late penalty of 6 point(s) applied")
    assert seen["hand_ins"][0]["late_penalty"] == 6.0


def test_a_check_after_the_due_date_never_replaces_the_hand_in(served):
    settings, store = served["settings"], served["store"]
    writes = len(served["canvas"].writes)
    asked = ask_for_check(settings, store, "ada", ASSIGNMENT, {NOTEBOOK + ".ipynb": json.dumps(
        correct(released(served["course"]), double_answer="def double(x):\n    return x\n")
    ).encode()})
    assert asked.job is not None and asked.job.is_check
    wait_for(lambda: store.job(asked.job.id).state == JobState.GRADED, "the check graded",
             served["service"], served["log"])
    assert store.job(asked.job.id).score == 3.0  # what the student sees of the try
    time.sleep(6 * TICK)  # several looks of the service: nothing goes out
    found = views(served)
    assert found["ada"]["gradebook"] == 6.0
    agree(found)
    assert len(served["canvas"].writes) == writes
    with open(os.path.join(settings.submitted, "ada", ASSIGNMENT, NOTEBOOK + ".ipynb")) as handle:
        assert "return 2 * x" in handle.read()  # what ada handed in, still what is graded


def changed_grades(served, before, student, grade):
    """Canvas gets `student`'s new `grade` once, and nothing else, after the `before`
    writes; the service said why."""
    wait_for(lambda: len(canvas_grades(served["canvas"])) > before,
             f"{student}'s new grade pushed", served["service"], served["log"])
    time.sleep(6 * TICK)  # several looks more: pushed once
    assert canvas_grades(served["canvas"])[before:] == [(USERS[student], grade)]
    assert (f"{student}: the gradebook's grade changed since it was pushed"
            in served["log"].read_text(errors="replace"))


def wait_for_feedback(served, student, score):
    path = os.path.join(served["settings"].feedback, student, ASSIGNMENT, NOTEBOOK + ".html")

    def shows():
        try:
            with open(path) as handle:
                return f"Score: <strong>{score}</strong>" in handle.read()
        except FileNotFoundError:  # being written again (generate_feedback --force)
            return False

    wait_for(shows, f"{student}'s feedback page showing {score}", served["service"],
             served["log"])


def test_after_a_regrade_every_view_and_canvas_follow_the_gradebook_once(served):
    course = served["course"]
    before = len(canvas_grades(served["canvas"]))
    release_changed_check(course, "double_visible", '"""Check that double(2) is 4"""\n'
                                                    'assert double(2) == 4, "double(2) should be 4"')
    out = grader(course, "regrade", ASSIGNMENT, "--apply", "--reason", "floats are fine")
    assert "  bob: 3 -> 4 of 6 autograded points" in out
    changed_grades(served, before, "bob", "4")
    wait_for_feedback(served, "bob", "4")
    found = views(served)
    assert found["bob"]["gradebook"] == 4.0
    agree(found)
    assert "hold a grade of a hand-in graded against an earlier release" in served[
        "log"].read_text(errors="replace")


def test_a_batch_autograde_after_the_service_is_followed_by_every_view_once(served):
    course = served["course"]
    before = len(canvas_grades(served["canvas"]))
    release_changed_check(course, "answer_value", '"""Check that answer is close to 42"""\n'
                                                  'assert answer in (41, 42), "answer should be 42"')
    grader(course, "autograde", ASSIGNMENT)
    changed_grades(served, before, "cal", "6")
    wait_for_feedback(served, "cal", "6")
    found = views(served)
    assert {s: v["gradebook"] for s, v in found.items()} == {
        "ada": 6.0, "bob": 4.0, "cal": 6.0, "lee": 0.0}
    agree(found)


def test_a_manual_grade_in_formgrader_is_followed_by_every_view_once(served):
    settings = served["settings"]
    before = len(canvas_grades(served["canvas"]))
    with Gradebook(settings.db_url, settings.course_id) as gb:  # as formgrader saves it
        gb.find_grade("double_hidden", NOTEBOOK, ASSIGNMENT, "bob").manual_score = 2.0
        gb.db.commit()
    changed_grades(served, before, "bob", "6")
    wait_for_feedback(served, "bob", "6")
    found = views(served)
    assert found["bob"]["gradebook"] == 6.0
    agree(found, manual={"bob"})


def test_an_extension_after_the_push_is_pushed_again_once_and_said(served):
    course = served["course"]
    before = len(canvas_grades(served["canvas"]))
    extensions = os.path.join(course, "extensions-late.csv")
    with open(extensions, "w") as handle:
        handle.write(f"student_id,assignment,extra_hours,new_due,note\nlee,{ASSIGNMENT},3,,\n")
    out = printed("extensions", extensions, "--course", course)
    assert (f"lee {ASSIGNMENT}: this extension was granted after their feedback went out"
            in out), out
    assert "the gradebook's grade went from 0 to 6" in out
    changed_grades(served, before, "lee", "6")
    wait_for_feedback(served, "lee", "6")
    found = views(served)
    assert found["lee"]["gradebook"] == 6.0 and found["lee"]["penalty"] == 0.0
    agree(found, manual={"bob"})
