"""One student graded (worker/grade.py), where no sandbox starts: notebooks that are missing."""

import json
import pickle

import nbformat

from grader.results import CheckResult, CheckStatus, NotebookStatus
from grader.settings import Limits
from grader.worker import Assignment, Job, grade_student

CHECK = {"cell_type": "code", "execution_count": None, "id": "check", "outputs": [],
         "source": "assert True",
         "metadata": {"nbgrader": {"grade": True, "grade_id": "parsed_once", "locked": True,
                                   "points": 2, "solution": False, "schema_version": 3}}}
NOTEBOOK = json.dumps({"cells": [CHECK], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_class_is_graded_against_each_instructor_notebook_parsed_once(monkeypatch):
    """Every student's Job carries the assignment as text (pickled to the worker); the
    notebook is parsed, and checked against nbformat's schema, once for the class."""
    parsed = []
    reads = nbformat.reads

    def counted(text, *args, **kwargs):
        parsed.append(text)
        return reads(text, *args, **kwargs)

    monkeypatch.setattr(nbformat, "reads", counted)
    hw = Assignment("parsed-once", {"parsed-once": NOTEBOOK}, Limits(timeout=60.0), "gptcourse")
    for student in ("s1", "s2", "s3"):
        result = grade_student(pickle.loads(pickle.dumps(Job(student, hw))))
        [notebook] = result.notebooks
        assert notebook.status == NotebookStatus.MISSING
        assert notebook.tests == [CheckResult("parsed_once", 0.0, 2.0, CheckStatus.NOT_RUN,
                                              "notebook missing")]
    assert parsed == [NOTEBOOK]
