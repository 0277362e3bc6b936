"""The grading service releases each student's feedback at their due date, as a real process
on the tiny course: a hand-in made with `nbgrader submit` is graded, its feedback held until
the due date, then released so that `nbgrader fetch_feedback` gets it; a student collected
from an LMS is listed instead; a late hand-in is released when it is graded. Each student's
grade goes to Canvas (a small Canvas API on 127.0.0.1) at the same moments, once
(c.GradingService.push_final_grades = "canvas")."""

import datetime
import glob
import json
import os
import subprocess
import sys
import time

import pytest

from grader.cli import main
from grader.recording import set_due_date
from grader.reports import read_grades
from grader.service import JobState, course_store
from grader.settings import load
from testsupport.course import nbgrader_env
from testsupport.fake_canvas import FakeCanvas, Served
from testsupport.service import start_service, stop_service, wait_until_final
from testsupport.tiny_course import (ASSIGNMENT, HIDDEN_MARK, NOTEBOOK, correct, make_course,
                                     released)

DEADLINE = 300  # seconds to wait for the service to grade or release what it was given
TICK = 0.5  # c.GradingService.feedback_check_seconds in this course
COURSE_ID = "tinycourse"
CANVAS_COURSE, CANVAS_ASSIGNMENT, TOKEN = 77, 5, "due-date-token"


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("due") / "course")
    make_course(root)
    with open(os.path.join(root, "nbgrader_config.py"), "a") as handle:
        handle.write(f"c.GradingService.feedback_check_seconds = {TICK}\n"
                     "c.GradingService.push_final_grades = 'canvas'\n"
                     "c.CanvasPush.backoff_seconds = 0.001  # short waits, for the test\n")
    roster = os.path.join(root, "roster-in.csv")
    with open(roster, "w") as handle:
        handle.write("id,first_name,last_name,lms_user_id\nada,Ada,Adams,101\nlou,Lou,Lee,102\n")
    assert main(["roster", roster, "--course", root]) == 0
    return root


@pytest.fixture
def canvas(tmp_path):
    """A Canvas course with the assignment and both students, on 127.0.0.1: (it, the
    environment the service reaches it with)."""
    fake = FakeCanvas(CANVAS_COURSE, TOKEN, {CANVAS_ASSIGNMENT: {"name": ASSIGNMENT,
                                                                 "points_possible": 6.0}},
                      students={"101", "102"})
    served = Served(fake)
    token_file = tmp_path / "canvas-token"
    token_file.write_text(TOKEN)
    token_file.chmod(0o600)
    yield fake, {"CANVAS_URL": served.url, "CANVAS_COURSE": str(CANVAS_COURSE),
                 "CANVAS_TOKEN_FILE": str(token_file)}
    served.close()


def grades_written(canvas):
    """[(Canvas user id, grade)] of every grade the service wrote, in order."""
    return [(w.user, w.posted_grade) for w in canvas.writes if w.posted_grade is not None]


def exchange_options(course):
    return ["--course", COURSE_ID,
            f"--Exchange.root={os.path.join(course, 'course-data', 'exchange')}"]


def as_student(course, student, command, cwd_home):
    """`nbgrader COMMAND tiny` as `student`, from their own home (their own nbgrader cache)."""
    env = {k: v for k, v in nbgrader_env(HOME=cwd_home, USER=student, LOGNAME=student).items()
           if not k.startswith("JUPYTER")}
    done = subprocess.run([sys.executable, "-m", "nbgrader", command, ASSIGNMENT,
                           *exchange_options(course), f"--student={student}"],
                          cwd=cwd_home, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def submit(course, home, **answers):
    """The student's notebook written with `answers`, then handed in with `nbgrader submit`."""
    os.makedirs(os.path.join(home, ASSIGNMENT), exist_ok=True)
    with open(os.path.join(home, ASSIGNMENT, NOTEBOOK + ".ipynb"), "w") as handle:
        json.dump(correct(released(course), **answers), handle)
    as_student(course, os.path.basename(home), "submit", home)


def wait_for(condition, what, process, log):
    """`condition()` once it is true; fails saying `what` after DEADLINE s or if the
    service ended."""
    deadline = time.monotonic() + DEADLINE
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline or process.poll() is not None:
            pytest.fail(f"{what}: not within {DEADLINE} s\n{log.read_text(errors='replace')}")
        time.sleep(0.2)


def fetched_pages(course, home):
    """The feedback pages `nbgrader fetch_feedback` puts in the student's folder."""
    as_student(course, os.path.basename(home), "fetch_feedback", home)
    return sorted(glob.glob(os.path.join(home, ASSIGNMENT, "feedback", "*", NOTEBOOK + ".html")))


def test_feedback_goes_out_at_the_due_date_once_and_a_late_hand_in_when_it_is_graded(
        course, canvas, tmp_path):
    canvas, canvas_env = canvas
    settings = load(course)
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
    set_due_date(settings, ASSIGNMENT, later.strftime("%Y-%m-%d %H:%M:%S UTC"))
    subprocess.run([sys.executable, "-m", "nbgrader", "release_assignment", ASSIGNMENT,
                    "--force", *exchange_options(course)], cwd=course, env=nbgrader_env(),
                   check=True, capture_output=True)
    store = course_store(settings.data)
    home = str(tmp_path / "homes" / "ada")
    log = tmp_path / "service.log"
    with open(log, "wb") as output:
        service = start_service(course, "--workers", "1",
                                env_overrides={"TMPDIR": str(tmp_path), **canvas_env}, log=output)
        try:
            submit(course, home)
            store.hand_in("lou", ASSIGNMENT, {NOTEBOOK + ".ipynb": json.dumps(
                correct(released(course))).encode()}, "zip:canvas-download.zip")
            jobs = wait_until_final(store, 2, time.monotonic() + DEADLINE, service)
            assert [j.state for j in jobs] == [JobState.GRADED] * 2, log.read_text()
            time.sleep(4 * TICK)  # several looks at what is due: nothing is, before the due date
            assert store.releases() == [] and canvas.writes == []

            due = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=1)
            set_due_date(settings, ASSIGNMENT, due.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
            releases = wait_for(lambda: len(store.releases()) == 2 and store.releases(),
                                "the feedback released at the due date", service, log)
            by_student = {r.student: r for r in releases}
            ada_job = next(j for j in jobs if j.student == "ada")
            assert (by_student["ada"].job_id, by_student["ada"].outcome) == (ada_job.id,
                                                                             "exchange")
            assert by_student["lou"].outcome == "listed"
            assert all(r.released >= due for r in releases)
            [page] = fetched_pages(course, home)
            with open(page) as handle:
                text = handle.read()
            assert HIDDEN_MARK not in text and "double" in text
            wait_for(lambda: len(grades_written(canvas)) == 2, "the final grades in Canvas",
                     service, log)
            assert sorted(grades_written(canvas)) == [("101", "6"), ("102", "6")]

            submit(course, home, answer_answer="answer = 41\n")  # after the due date: late
            late = wait_for(lambda: len(store.releases()) == 3 and store.releases()[-1],
                            "the late hand-in's feedback", service, log)
            assert late.student == "ada" and late.job_id > ada_job.id
            assert store.job(late.job_id).score == 5.0
            assert len(fetched_pages(course, home)) == 2
            wait_for(lambda: len(grades_written(canvas)) == 3, "the late grade in Canvas",
                     service, log)
            time.sleep(4 * TICK)  # several looks more: nothing is pushed again
        finally:
            status = stop_service(service, timeout=30)
    text = log.read_text(errors="replace")
    assert status == 0, text
    assert text.count("feedback of ada's hand-in") == 2, text
    assert "lou did not hand in through the exchange" in text
    assert len(store.releases()) == 3  # nothing released twice
    people, [grades] = read_grades(settings, [ASSIGNMENT])
    assert grades.score_of("ada") < 6.0  # the late hand-in's grade, after the late policy
    assert grades_written(canvas)[2:] == [("101", f"{grades.score_of('ada'):g}")]
    assert canvas.scores[(CANVAS_ASSIGNMENT, "101")] == grades.score_of("ada")
    assert "final grade(s) of ada to canvas: pushed" in text
