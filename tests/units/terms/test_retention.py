"""The purge takes every file of a term that holds a student's work or values, a link
without following it, and keeps the grade record; the archive holds what regrading the
term as graded needs and restores it into an empty folder."""

import datetime
import os

import pytest
from nbgrader.api import Gradebook

from grader.settings import load
from grader.terms import purge_term, restore_term, write_archive
from testsupport.term_state import STUDENT_WORK, TERM_STATE, plant
from testsupport.tiny_course import CONFIG as TINY_CONFIG
from testsupport.tiny_course import tree_hashes

CONFIG = TINY_CONFIG + 'c.TermRetention.grace_days = 0\n'
CONTENT = ("nbgrader_config.py", "source/tiny/tiny.ipynb", "rubrics/tiny.yaml")
WRITTEN = datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.timezone.utc)


@pytest.fixture(scope="module")
def archived_term(tmp_path_factory):
    """A term with a file of every kind, a rubric, and two links a student left in
    submitted/ (to a file and a folder outside the course); then archived."""
    folder = tmp_path_factory.mktemp("term")
    root = str(folder / "course")
    for name in CONTENT[1:]:
        os.makedirs(os.path.join(root, os.path.dirname(name)))
        open(os.path.join(root, name), "w").write(f"{name}\n")
    open(os.path.join(root, "nbgrader_config.py"), "w").write(CONFIG)
    settings = load(root)
    os.makedirs(settings.data)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.update_or_create_assignment("tiny")
    plant(root)
    outside = folder / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not the course's\n")
    os.makedirs(os.path.join(settings.submitted, "mallory"))
    os.symlink(outside / "secret.txt", os.path.join(settings.submitted, "mallory", "tiny"))
    os.symlink(outside, os.path.join(settings.submitted, "eve"))
    archive = write_archive(settings, now=WRITTEN)
    return settings, archive.path, outside, tree_hashes(root)


def test_the_purge_takes_the_students_work_and_values_and_keeps_the_grade_record(
        archived_term):
    settings, archive, outside, before = archived_term
    said = purge_term(settings, archive, confirm=True,
                      now=WRITTEN + datetime.timedelta(days=1))
    after = tree_hashes(settings.root)
    gone = {TERM_STATE[kind] for kind in STUDENT_WORK} | {"course-data/submitted/mallory/tiny"}
    assert set(before) - set(after) == gone
    assert set(after) - set(before) == {"course-data/purged-term.json"}
    # the links went, what they pointed at did not
    assert not os.path.lexists(os.path.join(settings.submitted, "eve"))
    assert sorted(os.listdir(outside)) == ["secret.txt"]
    assert said[0] == (f"removed {len(gone) + 1} file(s) of the students' work and values (the "
                       f"archive {archive} holds them):")
    assert "  removed: course-data/reports/defense-tiny/ (2 file(s))" in said
    assert "  removed: course-data/reports/similarity-tiny.html" in said
    assert "  removed: course-data/explain/ (1 file(s))" in said
    assert "  removed: course-data/service/checks/ (1 file(s))" in said
    kept = [line[len("  kept: "):] for line in said if line.startswith("  kept: ")]
    assert kept == [
        "course-data/exports/ (1 file(s))", "course-data/gradebook.db", "course-data/grades.csv",
        "course-data/lti/ (1 file(s))", "course-data/regrades/ (1 file(s))",
        "course-data/reports/summary.txt", "course-data/reports/tiny-items.csv",
        "course-data/reports/tiny.html", "course-data/roster.csv",
        "course-data/service/queue.db", "extensions.csv", "regrade-requests.csv",
        "solutions-released.csv"]


def test_the_archive_restored_in_an_empty_folder_holds_what_regrading_as_graded_needs(
        archived_term, tmp_path):
    _, archive, _, before = archived_term
    restore_term(str(tmp_path), archive)
    restored = tree_hashes(str(tmp_path))
    for name in ("rubrics/tiny.yaml", "solutions-released.csv", "course-data/explain/tiny.json",
                 "nbgrader_config.py", "course-data/submitted/alice/tiny/tiny.ipynb",
                 "course-data/reports/defense-tiny/alice.html"):
        assert restored.get(name) == before[name], name
    # the database's URL (it may hold a password) and the links are not archived
    assert not {"gradebook-url.txt", "course-data/submitted/eve"} & set(restored)
