"""A class that hands in through Canvas: `make roster` with Canvas's gradebook export, `make
collect-zip` with Canvas's download, `make autograde`, and the gradebook holds each student's
latest notebook, scored, with nbgrader's late penalty for the one Canvas flagged late.

The tiny assignment of testsupport.tiny_course, due 12:30, penalty "zero": alice uploads a
partial notebook then the complete one (Canvas names it tiny-1.ipynb), bob a partial one
his browser renamed "tiny (1).ipynb", carol the complete one an hour late; dave, on the
course's own roster, the complete one through Moodle, in folders.
"""

import datetime
import os
import unicodedata

import pytest

from grader.intake import collect_zip
from grader.reports import import_roster
from grader.settings import load
from testsupport.course import make, notebook_file, ready_for_make, released_course
from testsupport.gradebook import sqlite_url
from testsupport.lms_download import (canvas_gradebook_export, canvas_name, moodle_name,
                                      raw_zip, with_info, write_zip)
from testsupport.tiny_course import (ANSWERS, ASSIGNMENT, MAX_SCORE, correct, fill, grader,
                                     make_course, released)

DUE = "2026-01-15 12:30:00 UTC"
STUDENTS = [("Alice", "Liddell", 101, "S-1", "alice", "A"), ("Bob", "Builder", 102, "S-2",
                                                             "bob", "B"),
            ("Carol", "Late", 103, "S-3", "carol", "A")]
NOON = datetime.datetime(2026, 1, 15, 12, 0, 0)


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    base = tmp_path_factory.mktemp("lms")
    course = ready_for_make(make_course(str(base / "course")))
    with open(os.path.join(course, "nbgrader_config.py"), "a", encoding="utf-8") as handle:
        handle.write('c.LateSubmissionPlugin.penalty_method = "zero"\n')
    assert grader("due", ASSIGNMENT, DUE, cwd=course).returncode == 0
    with open(os.path.join(course, "canvas-export.csv"), "w", encoding="utf-8") as handle:
        handle.write(canvas_gradebook_export(STUDENTS))
    nb = released(course)
    write_zip(os.path.join(course, "submissions.zip"), [
        (canvas_name("Alice", "Liddell", 101, 7001, "tiny.ipynb"),
         fill(nb, {"answer_answer": ANSWERS["answer_answer"]}), NOON - datetime.timedelta(hours=2)),
        (canvas_name("Alice", "Liddell", 101, 7002, "tiny-1.ipynb"), correct(nb), NOON),
        (canvas_name("Bob", "Builder", 102, 7003, "tiny (1).ipynb"),
         fill(nb, {"double_answer": ANSWERS["double_answer"]}), NOON),
        (canvas_name("Carol", "Late", 103, 7004, "tiny.ipynb", late=True), correct(nb),
         NOON + datetime.timedelta(hours=1)),
    ])
    with open(os.path.join(course, "more.csv"), "w", encoding="utf-8") as handle:
        handle.write("id,first_name,last_name,section\ndave,Dave,Moodle,C\n")
    write_zip(os.path.join(course, "moodle.zip"), [  # dave hands in on the Moodle of section C
        (moodle_name("Dave", "Moodle", 2041633, "tiny.ipynb", folders=True), correct(nb),
         NOON + datetime.timedelta(minutes=20))])
    steps = {"roster": make(course, "roster", "ROSTER=canvas-export.csv"),
             "more": make(course, "roster", "ROSTER=more.csv"),
             "collect": make(course, "collect-zip", "ZIP=submissions.zip",
                             f"ASSIGNMENT={ASSIGNMENT}"),
             "moodle": make(course, "collect-zip", "ZIP=moodle.zip", f"ASSIGNMENT={ASSIGNMENT}",
                            "LMS=moodle"),
             "autograde": make(course, "autograde", f"ASSIGNMENT={ASSIGNMENT}", "JOBS=2")}
    for name, step in steps.items():
        assert step.returncode == 0, f"make {name}:\n{step.stdout[-3000:]}\n{step.stderr[-3000:]}"
    return {"course": course, **steps}


def test_make_roster_reads_canvas_export_and_says_what_it_skipped(loop):
    out = loop["roster"].stdout
    assert "canvas-export.csv, line 2: Canvas's Points Possible row, skipped" in out
    assert "canvas-export.csv, line 6: Canvas's test student (Student, Test), skipped" in out
    assert "3 student(s) imported into the gradebook from canvas-export.csv" in out


def test_make_collect_zip_lists_what_it_collected_and_skipped(loop):
    out = loop["collect"].stdout
    assert "collected alice: tiny.ipynb from 'liddellalice_101_7002_tiny-1.ipynb'" in out
    assert "collected carol: tiny.ipynb from 'latecarol_late_103_7004_tiny.ipynb' " \
           "(submitted 2026-01-15 13:00:00 UTC, late)" in out
    assert "skipped 'liddellalice_101_7001_tiny.ipynb': an older attempt" in out
    assert "tiny: 3 student(s) collected from submissions.zip" in out
    assert "collected dave: tiny.ipynb from 'Dave Moodle_2041633_assignsubmission_file_/" \
           "tiny.ipynb' (submitted 2026-01-15 12:20:00 UTC)" in loop["moodle"].stdout


def test_make_autograde_scores_the_latest_notebooks_with_the_late_penalty(loop):
    from nbgrader.api import Gradebook

    with Gradebook(sqlite_url(loop["course"])) as gb:
        rows = {s.student.id: (s.score, s.late_submission_penalty, str(s.timestamp))
                for s in gb.assignment_submissions(ASSIGNMENT)}
    # nbgrader's score is the raw score; the penalty is taken off it in the exports
    assert rows == {"alice": (MAX_SCORE, 0.0, "2026-01-15 12:00:00"),
                    "bob": (3.0, 0.0, "2026-01-15 12:00:00"),
                    "carol": (MAX_SCORE, MAX_SCORE, "2026-01-15 13:00:00"),
                    "dave": (MAX_SCORE, 0.0, "2026-01-15 12:20:00")}
    assert "alice: 6/6" in loop["autograde"].stderr and "bob: 3/6" in loop["autograde"].stderr


def test_make_collect_zip_without_zip_or_assignment_says_how(loop):
    for args in ((), ("ZIP=submissions.zip",), (f"ASSIGNMENT={ASSIGNMENT}",)):
        result = make(loop["course"], "collect-zip", *args)
        assert result.returncode == 2
        assert "make collect-zip ZIP=download.zip ASSIGNMENT=name [LMS=canvas|moodle]" \
            in result.stdout


def test_make_collect_zip_refuses_a_hostile_zip_with_one_message(loop, tmp_path):
    hostile = tmp_path / "hostile.zip"
    hostile.write_bytes(raw_zip([with_info("../../outside.ipynb")]))
    before = sorted(os.listdir(os.path.join(loop["course"], "course-data", "submitted")))
    result = make(loop["course"], "collect-zip", f"ZIP={hostile}", f"ASSIGNMENT={ASSIGNMENT}")
    assert result.returncode == 2
    assert f"error: {hostile}: the entry '../../outside.ipynb' points outside the folder it " \
           f"is extracted to ('..'); the zip is refused and nothing was written" in result.stderr
    assert sorted(os.listdir(os.path.join(loop["course"], "course-data", "submitted"))) == before


def test_the_macs_moodle_zip_of_the_course_is_collected_for_the_rosters_jose(tmp_path):
    """The course's own parameters release, its roster in NFC, Moodle's name in NFD."""
    course = released_course(str(tmp_path / "course"))
    settings = load(course)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,first_name,last_name\njnunez,José,Núñez\n", encoding="utf-8")
    import_roster(settings, str(roster))
    entry = unicodedata.normalize("NFD",
                                  "José Núñez_2041634_assignsubmission_file_parameters.ipynb")
    assert entry != unicodedata.normalize("NFC", entry)  # as a Mac re-zip writes it
    with open(notebook_file("exercises", "parameters"), "rb") as handle:
        notebook = handle.read()
    zip_path = write_zip(str(tmp_path / "mac.zip"), [(entry, notebook, NOON)])
    outcome = collect_zip(settings, "parameters", zip_path, "moodle")
    assert (outcome.collected, outcome.skipped) == (1, 0), outcome.lines
    folder = os.path.join(course, "course-data", "submitted", "jnunez", "parameters")
    assert sorted(os.listdir(folder)) == ["parameters.ipynb", "timestamp.txt"]
