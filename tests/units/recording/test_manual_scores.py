"""The one writer of a manual score (grader.recording.manual_scores): written only over the
score it last wrote; a score changed meanwhile is a conflict naming both, never overwritten."""

import pytest
from nbgrader.api import Gradebook, MissingEntry

from grader.recording import ManualScoreWrite, ManualWriteStatus, write_manual_score
from grader.settings import load
from testsupport.tiny_course import ASSIGNMENT, NOTEBOOK, POINTS, record_grades

CELL = "answer_value"


@pytest.fixture(scope="module")
def settings(tiny_course):
    settings = load(tiny_course)
    with Gradebook(settings.db_url, settings.course_id) as gb:
        gb.update_or_create_student("ada")
    record_grades(settings.root, "ada", POINTS)
    return settings


def write(settings, expected, score, comment=None):
    with Gradebook(settings.db_url, settings.course_id) as gb:
        return write_manual_score(gb, ASSIGNMENT, NOTEBOOK, CELL, "ada", expected, score, comment)


def held(settings):
    with Gradebook(settings.db_url, settings.course_id) as gb:
        grade = gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, "ada")
        return grade.manual_score, grade.needs_manual_grade


def test_a_score_is_written_over_the_one_last_written_then_the_same_is_unchanged(settings):
    first = write(settings, None, 0.5)
    assert first == ManualScoreWrite(ManualWriteStatus.WRITTEN, "ada", CELL, None, None, 0.5)
    assert held(settings) == (0.5, False)
    assert write(settings, 0.5, 0.5).status == ManualWriteStatus.UNCHANGED
    assert write(settings, 0.5, 1.0).status == ManualWriteStatus.WRITTEN
    assert held(settings)[0] == 1.0


def test_a_score_changed_meanwhile_is_a_conflict_naming_both_and_kept(settings):
    with Gradebook(settings.db_url, settings.course_id) as gb:  # as formgrader writes it
        gb.find_grade(CELL, NOTEBOOK, ASSIGNMENT, "ada").manual_score = 0.25
        gb.db.commit()
    refused = write(settings, 1.0, 0.75)
    assert refused == ManualScoreWrite(ManualWriteStatus.CONFLICT, "ada", CELL, 0.25, 1.0, 0.75)
    assert refused.in_words() == (f"ada {CELL}: not written: the gradebook holds 0.25, not 1 "
                                  f"as last written here (changed in formgrader or by another "
                                  f"grader); 0.75 was not written over it")
    assert held(settings)[0] == 0.25
    assert write(settings, None, 0.75).status == ManualWriteStatus.CONFLICT  # a first write too


def test_a_cell_the_gradebook_lacks_is_nbgraders_missing_entry(settings):
    with Gradebook(settings.db_url, settings.course_id) as gb, pytest.raises(MissingEntry):
        write_manual_score(gb, ASSIGNMENT, NOTEBOOK, "no_such_cell", "ada", None, 1.0)


def test_a_comment_for_a_cell_that_keeps_none_is_missing_entry_and_nothing_written(settings):
    with Gradebook(settings.db_url, settings.course_id) as gb:
        grade = gb.find_grade("double_visible", NOTEBOOK, ASSIGNMENT, "ada")
        before = grade.manual_score
        with pytest.raises(MissingEntry):  # a check's cell keeps no comment
            write_manual_score(gb, ASSIGNMENT, NOTEBOOK, "double_visible", "ada", before, 1.0,
                               "Shown to the student.")
        assert gb.find_grade("double_visible", NOTEBOOK, ASSIGNMENT, "ada").manual_score == before
