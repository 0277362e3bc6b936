"""Where a term's state lives, as each wing writes it: every kind is the term's (next term
carries none of it), and those that hold a student's work or values are what a purge
removes: their notebooks and tries, feedback, the explain state, the grade report's
rows, the similarity reports and the defense sheets; never the grade record."""

import os

import nbformat

from grader.explain import state_path
from grader.publish.bundle import BUNDLE_FOLDER
from grader.publish.solutions_policy import RECORD_FILE
from grader.recording import EXTENSIONS_FILE
from grader.regrade.requests import REQUESTS_FILE
from grader.service import course_store
from grader.service.queue.submitted import checks_folder
from grader.settings import load
from grader.similarity import write_similarity
from grader.terms import is_term_state, student_work
from grader.terms.places import BUNDLE_FOLDER as TERMS_BUNDLE_FOLDER
from grader.terms.places import SOLUTIONS_RECORD, TERM_RECORDS
from testsupport.term_state import STUDENT_WORK, TERM_STATE, plant
from testsupport.tiny_course import CONFIG as TINY_CONFIG

CONFIG = TINY_CONFIG


def tiny_course(folder):
    os.makedirs(os.path.join(folder, "source", "tiny"))
    with open(os.path.join(folder, "nbgrader_config.py"), "w") as handle:
        handle.write(CONFIG)
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")]),
                   os.path.join(folder, "source", "tiny", "tiny.ipynb"))
    return load(folder)


def test_the_records_at_the_top_are_the_ones_the_wings_write():
    assert SOLUTIONS_RECORD == RECORD_FILE
    assert {RECORD_FILE, EXTENSIONS_FILE, REQUESTS_FILE} <= set(TERM_RECORDS)
    assert TERMS_BUNDLE_FOLDER == BUNDLE_FOLDER


def test_every_kind_of_a_terms_state_is_the_terms(tmp_path):
    settings = tiny_course(str(tmp_path))
    for kind, path in TERM_STATE.items():
        assert is_term_state(settings, path), kind
    for content in ("nbgrader_config.py", "source/tiny/tiny.ipynb", "rubrics/tiny.yaml",
                    "book/intro.md"):
        assert not is_term_state(settings, content), content


def test_a_purge_takes_the_students_work_and_values_and_leaves_the_grade_record(tmp_path):
    settings = tiny_course(str(tmp_path))
    plant(str(tmp_path))
    assert student_work(settings, ["tiny"]) == sorted(TERM_STATE[k] for k in STUDENT_WORK)


def test_it_takes_them_where_the_wings_write_them(tmp_path):
    settings = tiny_course(str(tmp_path))
    written = [os.path.join(course_store(settings.data).blobs, "ab", "abcdef"),
               os.path.join(checks_folder(settings), "alice", "tiny", "tiny.ipynb"),
               state_path(settings, "tiny")]
    for path in written:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").write("alice's\n")
    written += write_similarity(settings, "tiny")
    assert student_work(settings, ["tiny"]) == sorted(
        os.path.relpath(p, str(tmp_path)) for p in written)
