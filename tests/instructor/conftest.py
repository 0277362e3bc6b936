"""What the instructor's tests share: one rehearsal of a whole class, graded once.

`python -m grader rehearse` (what `make rehearse` runs) on the parameters
assignment with four students: alice correct, bob partial, carol untouched,
dave correct but late. It releases, collects, grades in the sandbox, writes
and releases feedback and exports the grades with the course's own settings;
the rehearsal's tests and the feedback page's tests read what it wrote.

The module-scoped `browser` is one Chromium (a Playwright context) for a module's
accessibility checks. `canvas_of_two` is the Canvas course of a module's `class_of_two`
(testsupport/explain_course.py), served for the grade push.
"""

import os
import subprocess
import sys

import pytest

from testsupport.accessibility import chromium, missing_tools
from testsupport.course import ROOT
from testsupport.explain_course import ASSIGNMENT, LMS_IDS
from testsupport.fake_canvas import FakeCanvas, canvas_for_push


@pytest.fixture(scope="session")
def rehearsal(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("rehearsal") / "class")
    run = subprocess.run([sys.executable, "-m", "grader", "rehearse", "--students", "4",
                          "--assignment", "parameters", "--folder", folder], cwd=ROOT,
                         capture_output=True, text=True)
    return {"folder": folder, "run": run,
            "course_data": os.path.join(folder, "course", "course-data")}


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if missing_tools():
        pytest.fail(missing_tools())
    with chromium(str(tmp_path_factory.mktemp("chromium-profile"))) as context:
        yield context


@pytest.fixture
def canvas_of_two(course, monkeypatch, tmp_path):
    """A Canvas course of cyd and dan with the module's `course`'s parameters assignment,
    out of the gradebook's points, served and set for `python -m grader canvas-push`."""
    from nbgrader.api import Gradebook

    with Gradebook(course.db_url, course.course_id) as gb:
        points = gb.find_assignment(ASSIGNMENT).max_score
    fake = FakeCanvas(77, "canvas-token-of-the-course", {5: {"name": ASSIGNMENT,
                                                            "points_possible": points}},
                      students=set(LMS_IDS.values()))
    with canvas_for_push(monkeypatch, str(tmp_path), fake):
        yield fake
