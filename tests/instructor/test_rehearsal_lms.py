"""`make rehearse-lms`: a class that hands in through Canvas, without a hub or an exchange.

The rehearsal runs once (module fixture) on the parameters assignment: alice correct,
bob partial and saved by Colab, carol correct under a renamed file, dave correct but
25 hours late with a 48-hour extension.
"""

import csv
import os
import subprocess
import sys
import zipfile

import pytest

from testsupport.assignments import ASSIGNMENTS
from testsupport.course import ROOT

STUDENTS = ["alice", "bob", "carol", "dave"]


@pytest.fixture(scope="module")
def rehearsal(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("rehearsal-lms") / "class")
    run = subprocess.run([sys.executable, "-m", "grader", "rehearse-lms", "--assignment",
                          "parameters", "--folder", folder], cwd=ROOT, capture_output=True,
                         text=True)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    return {"folder": folder, "run": run,
            "data": os.path.join(folder, "course", "course-data")}


def rows_of(path, key):
    with open(path, encoding="utf-8", newline="") as handle:
        return {row[key]: row for row in csv.DictReader(handle)}


def test_the_rehearsal_runs_every_step_an_instructor_types(rehearsal):
    out = rehearsal["run"].stdout
    steps = ["make roster ROSTER=canvas-gradebook-export.csv", "make release ASSIGNMENT=parameters",
             "make collect-zip ZIP=submissions-parameters.zip ASSIGNMENT=parameters",
             "make extensions", "make autograde ASSIGNMENT=parameters",
             "make feedback ASSIGNMENT=parameters", "make feedback-zip ASSIGNMENT=parameters",
             "make grades", "where to look"]
    positions = [out.index(step) for step in steps]
    assert positions == sorted(positions)
    assert "course/course-data/lms/feedback-parameters.zip" in out


def test_each_student_gets_what_their_work_earns_with_the_extension_applied(rehearsal):
    grades = rows_of(os.path.join(rehearsal["data"], "grades.csv"), "student_id")
    assert sorted(grades) == STUDENTS
    scores = {s: (grades[s]["raw_score"], grades[s]["late_submission_penalty"],
                  grades[s]["score"]) for s in STUDENTS}
    assert scores["alice"] == scores["carol"] == scores["dave"] == ("10", "0", "10")
    # bob answered the first half, in a notebook Colab saved: the grader's report agrees
    with open(os.path.join(rehearsal["data"], "reports", "parameters.csv"),
              encoding="utf-8") as handle:
        bob = sum(float(r["points"]) for r in csv.DictReader(handle)
                  if r["student"] == "bob" and r["status"] != "note")
    assert 0 < bob < 10 and float(scores["bob"][2]) == bob and scores["bob"][1] == "0"
    # dave handed in 25 hours after the class's due date: late by Canvas's flag, on time
    # with his extension
    assert grades["dave"]["timestamp"] == "2026-03-03 18:00:00"
    with open(os.path.join(rehearsal["data"], "reports", "summary.txt"),
              encoding="utf-8") as handle:
        summary = handle.read()
    assert "dave\t1 d 1 h after the class's due date, extension 48 h: on time" in summary
    canvas = rows_of(os.path.join(rehearsal["data"], "exports", "canvas.csv"), "SIS Login ID")
    assert {s: canvas[s]["ID"] for s in STUDENTS} == {
        "alice": "10001", "bob": "10002", "carol": "10003", "dave": "10004"}
    assert {s: canvas[s]["SIS User ID"] for s in STUDENTS} == {  # as Canvas's export gave it
        "alice": "60001", "bob": "60002", "carol": "60003", "dave": "60004"}
    assert {s: canvas[s]["parameters"] for s in STUDENTS} == {
        s: scores[s][2] for s in STUDENTS}


def test_the_feedback_zip_gives_each_collected_file_its_feedback_page(rehearsal):
    collected = rows_of(os.path.join(rehearsal["data"], "lms", "parameters.csv"), "student_id")
    assert collected["carol"]["lms_file_name"] == "chencarol_10003_70020_parameters (1).ipynb"
    assert collected["dave"]["late"] == "true"
    expected = {
        "alice": "archeralice_10001_70000_parameters.html",
        "bob": "brownbob_10002_70010_parameters.html",
        "carol": "chencarol_10003_70020_parameters.html",
        "dave": "diazdave_late_10004_70030_parameters.html"}
    for student, name in expected.items():  # the front of each name as Canvas downloaded it
        assert collected[student]["lms_file_name"].startswith(name[:-len("parameters.html")])
    with zipfile.ZipFile(os.path.join(rehearsal["data"], "lms",
                                      "feedback-parameters.zip")) as archive:
        assert sorted(archive.namelist()) == sorted(expected.values())
        for student, name in expected.items():
            with open(os.path.join(rehearsal["data"], "feedback", student, "parameters",
                                   "parameters.html"), "rb") as handle:
                assert archive.read(name) == handle.read(), student


def test_the_report_page_and_a_feedback_page_open_in_a_browser(rehearsal):
    from playwright.sync_api import sync_playwright

    shots = os.path.join(ROOT, "_build", "screenshots")
    os.makedirs(shots, exist_ok=True)
    pages = {"lms-grade-report": os.path.join(rehearsal["data"], "reports", "parameters.html"),
             "lms-feedback-bob": os.path.join(rehearsal["data"], "feedback", "bob", "parameters",
                                              "parameters.html")}
    requests, texts = [], {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", headless=True,
            args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            for name, path in pages.items():
                page = browser.new_page(viewport={"width": 1100, "height": 900})
                page.on("request", lambda request: requests.append(request.url))
                page.goto("file://" + path)
                texts[name] = page.inner_text("body")
                page.screenshot(path=os.path.join(shots, name + ".png"), full_page=True)
                page.close()
        finally:
            browser.close()
    assert "dave" in texts["lms-grade-report"] and "extension 48 h" in texts["lms-grade-report"]
    bob = rows_of(os.path.join(rehearsal["data"], "grades.csv"), "student_id")["bob"]["score"]
    assert "student bob" in texts["lms-feedback-bob"]
    worth = ASSIGNMENTS["parameters"].worth  # the checks' 10 points and the explain cell's 2
    assert f"Score: {bob} of {worth:g}" in texts["lms-feedback-bob"]
    assert [r for r in requests if not r.startswith(("file:", "data:"))] == []
