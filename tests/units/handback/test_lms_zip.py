"""The feedback zip an LMS takes back (grader.handback.lms_zip): each page named as the LMS
named the collected notebook, and a line for each student left out."""

import csv
import os
import zipfile
from datetime import datetime

import pytest

from grader.handback import write_feedback_zip
from grader.handback.lms_zip import feedback_name
from grader.intake import MANIFEST_FIELDS, collect_zip, manifest_path
from grader.settings import CourseError
from testsupport.course import plain_settings
from testsupport.lms_download import (canvas_name, graded_as_handed_in,
                                      two_canvas_students_graded, write_zip)
from testsupport.tiny_course import ASSIGNMENT, released


def row(student, lms, lms_file_name, notebook="parameters.ipynb"):
    return {"student_id": student, "lms": lms, "lms_file_name": lms_file_name,
            "notebook": notebook}


@pytest.mark.parametrize("collected, name", [
    (row("jane", "canvas", "doejane_late_12345_67891_parameters.ipynb"),
     "doejane_late_12345_67891_parameters.html"),
    (row("jane", "canvas", "doejane_12345_67891_parameters (1).ipynb"),
     "doejane_12345_67891_parameters.html"),
    (row("jane", "moodle", "Jane Doe_4242_assignsubmission_file_/parameters-1.ipynb"),
     "Jane Doe_4242_assignsubmission_file_/parameters.html"),
    (row("jane", "moodle", "Jane Doe_4242_assignsubmission_file_parameters.ipynb",
         "logits_to_text.ipynb"),
     "Jane Doe_4242_assignsubmission_file_logits_to_text.html"),
], ids=["canvas late", "canvas renamed", "moodle folder", "moodle flat"])
def test_a_page_keeps_the_front_of_the_lms_name_and_ends_with_the_notebooks(collected, name):
    assert feedback_name(collected) == name


@pytest.mark.parametrize("broken", [
    row("jane", "blackboard", "doejane_12345_67891_parameters.ipynb"),
    row("jane", "canvas", "parameters.ipynb"),
    row("jane", "canvas", "doejane_12345_67891_parameters.ipynb", notebook="parameters.html"),
], ids=["unknown lms", "not an lms name", "not a notebook"])
def test_a_manifest_row_without_an_lms_name_and_a_notebook_is_the_instructors_error(broken):
    with pytest.raises(CourseError, match="^the row of jane in the manifest does not hold an LMS "
                                          "file name and a notebook; run make collect-zip again$"):
        feedback_name(broken)


def write_manifest(settings, assignment, rows):
    path = manifest_path(settings, assignment)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, MANIFEST_FIELDS)
        writer.writeheader()
        writer.writerows({field: r.get(field, "") for field in MANIFEST_FIELDS} for r in rows)


def feedback_page(settings, student, assignment, page):
    folder = os.path.join(settings.feedback, student, assignment)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, page), "w") as handle:
        handle.write(f"the page of {student}")


def test_nothing_collected_from_an_lms_says_where_the_pages_are(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert write_feedback_zip(plain_settings(str(tmp_path)), "hw") == [
        "hw: nothing was collected from an LMS (make collect-zip records it); the feedback "
        "pages are in course-data/feedback/<student>/hw/"]


def test_the_zip_holds_each_collected_page_and_says_who_is_left_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = plain_settings(str(tmp_path))
    write_manifest(settings, "hw", [
        row("ada", "canvas", "lovelaceada_10001_70000_parameters.ipynb"),
        row("bob", "canvas", "brownbob_late_10002_70010_parameters.ipynb"),
    ])
    feedback_page(settings, "ada", "hw", "parameters.html")
    feedback_page(settings, "cy", "hw", "parameters.html")  # handed in another way
    lines = write_feedback_zip(settings, "hw")
    assert lines == [
        "hw: bob has no feedback page for parameters.ipynb yet (run make autograde and make "
        "feedback)",
        "hw: cy was not collected from the LMS: make release-feedback, or hand over "
        "course-data/feedback/cy/hw/",
        "hw: 1 feedback page(s) for the LMS in course-data/lms/feedback-hw.zip (upload it in "
        "Canvas: the assignment's page, Re-upload submissions)",
        "hw: the same pages, one folder per student: course-data/feedback/<student>/hw/"]
    with zipfile.ZipFile(tmp_path / "course-data" / "lms" / "feedback-hw.zip") as archive:
        assert archive.namelist() == ["lovelaceada_10001_70000_parameters.html"]
        assert archive.read("lovelaceada_10001_70000_parameters.html") == b"the page of ada"


@pytest.mark.slow  # a real collect and feedback run of nbgrader
def test_a_notebook_collected_after_grading_does_not_get_the_old_page(tmp_path):
    course, settings = two_canvas_students_graded(tmp_path, datetime(2026, 1, 15, 11))
    collect_zip(settings, ASSIGNMENT, write_zip(str(tmp_path / "later.zip"), [
        (canvas_name("Alice", "Liddell", 101, 3, "tiny-1.ipynb"), released(course),
         datetime(2026, 1, 15, 17))]))
    lines = write_feedback_zip(settings, ASSIGNMENT)
    assert lines[0] == (
        "tiny: the page of tiny.ipynb is left out, being of the notebook graded before the one "
        "collected: alice's submission of 2026-01-15 17:00:00 UTC is not graded yet (the grade "
        "is of the one handed in 2026-01-15 11:00:00 UTC): run make autograde ASSIGNMENT=tiny, "
        "then make feedback")
    zip_path = os.path.join(course, "course-data", "lms", "feedback-tiny.zip")
    with zipfile.ZipFile(zip_path) as archive:
        assert archive.namelist() == ["builderbob_102_2_tiny.html"]
    graded_as_handed_in(settings, ASSIGNMENT, "alice")  # the next autograde and feedback
    assert write_feedback_zip(settings, ASSIGNMENT)[0].startswith("tiny: 2 feedback page(s)")
    with zipfile.ZipFile(zip_path) as archive:
        assert archive.namelist() == ["builderbob_102_2_tiny.html",
                                      "liddellalice_101_3_tiny.html"]
        assert archive.read("liddellalice_101_3_tiny.html") == (
            b"the page of alice's notebook of 2026-01-15 17:00:00")
