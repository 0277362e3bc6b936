"""The course's nbgrader settings on a shared machine: exchange, refused autograde, feedback.

Fast checks on the command line; tests/hub/test_jupyterhub.py does the same on a
real hub in a browser.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from testsupport.course import ROOT, copy_course, nbgrader_env, run_grader
from testsupport.hand_in import hand_in
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, correct, make_course, released

READ_EXCHANGE = ("from nbgrader.apps.baseapp import NbGrader\n"
                 "app = NbGrader()\napp.load_config_file()\n"
                 "print(app.config.Exchange.root if 'root' in app.config.Exchange else '')\n")


def isolated_env(home, config_path=None):
    """nbgrader's environment with its own HOME and only `config_path` as extra settings."""
    env = nbgrader_env()
    env["HOME"] = str(home)
    env.pop("JUPYTER_CONFIG_DIR", None)
    env.pop("JUPYTER_CONFIG_PATH", None)
    if config_path:
        env["JUPYTER_CONFIG_PATH"] = str(config_path)
    return env


def exchange_root(course, env):
    result = subprocess.run([sys.executable, "-c", READ_EXCHANGE], cwd=course, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip()


def test_without_a_hub_the_course_keeps_its_own_exchange(tmp_path):
    course = copy_course(str(tmp_path / "course"))
    root = exchange_root(course, isolated_env(tmp_path))
    assert root == os.path.join(course, "course-data", "exchange")


def test_a_machine_wide_exchange_wins_over_the_course_folders(tmp_path):
    course = copy_course(str(tmp_path / "course"))
    settings = tmp_path / "etc-jupyter"
    settings.mkdir()
    (settings / "nbgrader_config.py").write_text(
        'c = get_config()\nc.Exchange.root = "/srv/nbgrader/exchange"\n')
    assert exchange_root(course, isolated_env(tmp_path, settings)) == "/srv/nbgrader/exchange"


def test_the_hubs_grader_settings_load_the_course_and_keep_the_hubs_exchange(tmp_path):
    """deploy/grader/ loads ~/gptcourse/nbgrader_config.py, which looks for a machine exchange."""
    copy_course(str(tmp_path / "gptcourse"))
    env = isolated_env(tmp_path, os.path.join(ROOT, "deploy", "grader"))
    script = READ_EXCHANGE + "print(app.config.CourseDirectory.source_directory)\n"
    result = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path), env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["/srv/nbgrader/exchange", "solutions"]


def test_nbgrader_autograde_refuses_and_touches_no_grade_or_file(tmp_path):
    course = copy_course(str(tmp_path / "course"))
    env = isolated_env(tmp_path)
    generated = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment",
                                "parameters", "--force"], cwd=course, env=env,
                               capture_output=True, text=True)
    assert generated.returncode == 0, generated.stderr[-2000:]
    submitted = os.path.join(course, "course-data", "submitted", "bob", "parameters")
    shutil.copytree(os.path.join(course, "exercises", "parameters"), submitted)
    autograded = os.path.join(course, "course-data", "autograded", "bob", "parameters")
    os.makedirs(autograded)
    with open(os.path.join(autograded, "parameters.ipynb"), "w") as handle:
        handle.write("the sandboxed grader's copy")
    result = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "parameters"],
                            cwd=course, env=env, capture_output=True, text=True)
    assert result.returncode == 1
    assert "`make autograde`" in result.stdout + result.stderr
    with open(os.path.join(autograded, "parameters.ipynb")) as handle:
        assert handle.read() == "the sandboxed grader's copy"
    from nbgrader.api import Gradebook

    url = "sqlite:///" + os.path.join(course, "course-data", "gradebook.db")
    with Gradebook(url) as gb:
        assert gb.assignment_submissions("parameters") == []


STUDENT_SCRIPT = """
import json, sys
from nbgrader.apps import FetchAssignmentApp, SubmitApp
exchange, student, answers = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
common = ["--course", "tinycourse", "--Exchange.root=" + exchange]
app = FetchAssignmentApp()
app.initialize(["tiny"] + common)
app.start()
with open("tiny/tiny.ipynb", "w", encoding="utf-8") as handle:
    json.dump(answers, handle)
app = SubmitApp()
app.initialize(["tiny", "--student", student] + common)
app.start()
"""
FETCH_FEEDBACK = """
import sys
from nbgrader.apps import FetchFeedbackApp
app = FetchFeedbackApp()
app.initialize(["tiny", "--course", "tinycourse", "--Exchange.root=" + sys.argv[1]])
app.start()
"""


@pytest.fixture(scope="module")
def feedback_round_trip(tmp_path_factory):
    """Two students submit through the exchange and a third hands in another way (as a
    notebook collected from an LMS is); grade, feedback, release, fetch."""
    root = make_course(str(tmp_path_factory.mktemp("feedback") / "course"))
    exchange = os.path.join(root, "course-data", "exchange")
    env = nbgrader_env()

    def nbgrader(*args, cwd=root, environ=env):
        return subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, env=environ,
                              capture_output=True, text=True)

    assert nbgrader("release_assignment", ASSIGNMENT, "--force").returncode == 0
    homes = {}
    work = {"ann": correct(released(root)), "ben": released(root)}
    for student, nb in work.items():
        homes[student] = os.path.join(root, "homes", student)
        os.makedirs(homes[student])
        result = subprocess.run([sys.executable, "-c", STUDENT_SCRIPT, exchange, student,
                                 json.dumps(nb)], cwd=homes[student],
                                env={**env, "HOME": homes[student]}, capture_output=True,
                                text=True)
        assert result.returncode == 0, result.stderr[-3000:]
    assert nbgrader("collect", ASSIGNMENT).returncode == 0
    hand_in(root, "cat", ASSIGNMENT, {NOTEBOOK + ".ipynb": correct(released(root))})
    graded = run_grader(root, ASSIGNMENT)
    assert graded.returncode == 0, graded.stderr[-3000:]
    assert nbgrader("generate_feedback", ASSIGNMENT, "--force").returncode == 0
    released_feedback = subprocess.run([sys.executable, "-m", "grader", "release-feedback",
                                        ASSIGNMENT], cwd=root, env=env, capture_output=True,
                                       text=True)
    fetched = {}
    for student, home in homes.items():
        result = subprocess.run([sys.executable, "-c", FETCH_FEEDBACK, exchange], cwd=home,
                                env={**env, "HOME": home}, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-3000:]
        pages = []
        for directory, _, files in os.walk(os.path.join(home, ASSIGNMENT, "feedback")):
            pages += [os.path.join(directory, f) for f in files if f.endswith(".html")]
        fetched[student] = pages
    return {"root": root, "release": released_feedback, "fetched": fetched}


def test_release_feedback_finds_what_the_sandboxed_grader_wrote(feedback_round_trip):
    release = feedback_round_trip["release"]
    assert release.returncode == 0, release.stderr[-3000:]
    assert "Traceback" not in release.stderr
    for student in ("ann", "ben"):
        path = os.path.join(feedback_round_trip["root"], "course-data", "autograded", student,
                            ASSIGNMENT, "submission_secret.txt")
        with open(path) as handle:
            assert len(handle.read()) == 128  # nbgrader's secret: 64 random bytes in hex


def test_each_student_fetches_exactly_their_own_feedback_page(feedback_round_trip):
    scores = {"ann": "Score: <strong>6</strong> of 6", "ben": "Score: <strong>0</strong> of 6"}
    for student, pages in feedback_round_trip["fetched"].items():
        assert [os.path.basename(p) for p in pages] == [NOTEBOOK + ".html"]
        with open(pages[0], encoding="utf-8") as handle:
            page = handle.read()
        assert scores[student] in page, student
        other = "ben" if student == "ann" else "ann"
        assert scores[other] not in page


def test_release_feedback_lists_who_did_not_hand_in_through_the_exchange(feedback_round_trip):
    lines = feedback_round_trip["release"].stdout.splitlines()
    assert lines == [
        f"{ASSIGNMENT}: cat did not hand in through the exchange (no submission_secret.txt): "
        f"give the feedback another way (make feedback-zip for an LMS): "
        f"course-data/feedback/cat/{ASSIGNMENT}/",
        f"{ASSIGNMENT}: feedback released through the exchange for 2 student(s)"]
    exchange = os.path.join(feedback_round_trip["root"], "course-data", "exchange",
                            "tinycourse", "feedback")
    assert len(os.listdir(exchange)) == 2  # ann's and ben's, under nbgrader's hashes


def test_feedback_zip_names_each_page_as_the_lms_takes_it_back(feedback_round_trip):
    root = feedback_round_trip["root"]
    lms = os.path.join(root, "course-data", "lms")
    os.makedirs(lms, exist_ok=True)
    with open(os.path.join(lms, f"{ASSIGNMENT}.csv"), "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student_id", "lms", "lms_user_id", "attachment_id", "lms_file_name",
                         "submitted_at", "late", "notebook"])
        writer.writerow(["cat", "canvas", "12345", "67891",
                         f"catcat_late_12345_67891_{NOTEBOOK}-1.ipynb",
                         "2026-01-15 12:00:00", "true", f"{NOTEBOOK}.ipynb"])
        writer.writerow(["dan", "canvas", "12346", "67892", f"dandan_12346_67892_{NOTEBOOK}.ipynb",
                         "2026-01-15 12:00:00", "false", f"{NOTEBOOK}.ipynb"])
    result = subprocess.run([sys.executable, "-m", "grader", "feedback-zip", ASSIGNMENT],
                            cwd=root, env=nbgrader_env(), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines() == [
        f"{ASSIGNMENT}: dan has no feedback page for {NOTEBOOK}.ipynb yet (run make autograde "
        f"and make feedback)",
        f"{ASSIGNMENT}: ann was not collected from the LMS: make release-feedback, or hand "
        f"over course-data/feedback/ann/{ASSIGNMENT}/",
        f"{ASSIGNMENT}: ben was not collected from the LMS: make release-feedback, or hand "
        f"over course-data/feedback/ben/{ASSIGNMENT}/",
        f"{ASSIGNMENT}: 1 feedback page(s) for the LMS in course-data/lms/feedback-{ASSIGNMENT}"
        f".zip (upload it in Canvas: the assignment's page, Re-upload submissions)",
        f"{ASSIGNMENT}: the same pages, one folder per student: "
        f"course-data/feedback/<student>/{ASSIGNMENT}/"]
    with zipfile.ZipFile(os.path.join(lms, f"feedback-{ASSIGNMENT}.zip")) as archive:
        assert archive.namelist() == [f"catcat_late_12345_67891_{NOTEBOOK}.html"]
        page = archive.read(archive.namelist()[0]).decode()
    with open(os.path.join(root, "course-data", "feedback", "cat", ASSIGNMENT,
                           NOTEBOOK + ".html"), encoding="utf-8") as handle:
        assert page == handle.read()
    assert "Score: <strong>6</strong> of 6" in page
