"""`make rehearse`: a whole fake class on one machine, each student in a home of their own.

The rehearsal runs once (the `rehearsal` fixture of conftest.py, which the feedback
page's tests share) on the parameters assignment with four students: alice correct,
bob partial, carol untouched, dave correct but late.
"""

import csv
import os

STUDENTS = ["alice", "bob", "carol", "dave"]


def fetched_pages(rehearsal, student):
    home = os.path.join(rehearsal["folder"], "homes", student)
    return [os.path.join(d, f) for d, _, files in os.walk(home) for f in files
            if f.endswith(".html")]


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def test_the_rehearsal_runs_the_whole_loop_and_says_where_to_look(rehearsal):
    run = rehearsal["run"]
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    for step in ("make release ASSIGNMENT=parameters", "alice: nbgrader submit parameters",
                 "make autograde ASSIGNMENT=parameters", "make release-feedback",
                 "dave: nbgrader fetch_feedback parameters", "where to look"):
        assert step in run.stdout, step
    assert "course/course-data/reports/parameters.html" in run.stdout


def test_each_student_fetches_only_their_own_feedback(rehearsal):
    released = {s: read(os.path.join(rehearsal["course_data"], "feedback", s, "parameters",
                                     "parameters.html")) for s in STUDENTS}
    assert len(set(released.values())) == len(STUDENTS)  # four different pages
    for student in STUDENTS:
        pages = fetched_pages(rehearsal, student)
        assert len(pages) == 1, (student, pages)
        assert read(pages[0]) == released[student], student


def test_the_late_student_gets_the_configured_penalty(rehearsal):
    with open(os.path.join(rehearsal["course_data"], "grades.csv"), encoding="utf-8") as handle:
        rows = {r["student_id"]: r for r in csv.DictReader(handle)}
    assert {s: rows[s]["score"] for s in STUDENTS if s != "bob"} == {
        "alice": "10", "carol": "0", "dave": "0"}
    # bob answered the first half: what the grader's report gives him, part of the 10
    with open(os.path.join(rehearsal["course_data"], "reports", "parameters.csv"),
              encoding="utf-8") as handle:
        bob = sum(float(r["points"]) for r in csv.DictReader(handle)
                  if r["student"] == "bob" and r["status"] != "note")
    assert 0 < bob < 10 and float(rows["bob"]["score"]) == bob
    assert (rows["dave"]["raw_score"], rows["dave"]["late_submission_penalty"]) == ("10", "10")
    with open(os.path.join(rehearsal["course_data"], "reports", "summary.txt"),
              encoding="utf-8") as handle:
        summary = handle.read()
    assert "needs attention: 1\ndave\t" in summary and "late, late penalty 10 points" in summary
