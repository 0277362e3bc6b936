"""A typed student id that is not the student's: which id it was, and which checks it explains."""

import json

import nbformat
import pytest

from grader.plan import Plan, PlanCell
from grader.sandbox import CellOutcome, CellStatus
from grader.worker.grade import with_typed_id_remark
from grader.worker.typed_id import per_student_names, reads_any, typed_id, typed_id_remark
from testsupport.course import read_notebook


def instructor():
    return nbformat.reads(json.dumps(read_notebook("solutions", "parameters")), as_version=4)


@pytest.mark.parametrize("sources, typed", [
    (['STUDENT_ID = ""  # your student id'], ""),
    (['STUDENT_ID = "JDoe"  # mine'], "JDoe"),
    (['STUDENT_ID = "a"', "x = 1", 'STUDENT_ID = "b"'], "b"),  # the last one is in force
    (["%time x = 1", "print(STUDENT_ID)"], None), (["def f(:"], None),
    (["if True:\n    STUDENT_ID = 'nested'"], None)])
def test_the_typed_id_is_the_last_top_level_assignment(sources, typed):
    assert typed_id(sources) == typed


def test_an_id_typed_in_another_case_is_named_and_said_to_differ_only_in_case():
    remark = typed_id_remark("JDoe", "jdoe")
    assert remark.startswith("your notebook's STUDENT_ID is 'JDoe', which differs from your id "
                             "'jdoe' only in case")
    assert "the model of 'JDoe'" in remark and "STUDENT_ID = 'jdoe'" in remark


def test_another_id_is_named_and_ones_own_id_or_none_says_nothing():
    assert typed_id_remark("alice", "bob").startswith(
        "your notebook's STUDENT_ID is 'alice', not your id 'bob':")
    assert typed_id_remark(" bob ", "bob") is None  # as gptcourse.variants reads it
    assert typed_id_remark("", "bob") is None and typed_id_remark(None, "bob") is None


def test_the_checks_of_the_students_own_model_are_those_that_read_its_names():
    nb = instructor()
    names = per_student_names(nb)
    assert {"my_config", "my_model", "my_larger_configs", "student_id"} <= names
    by_id = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells}
    assert reads_any(by_id["total_params_value"], names)
    assert not reads_any(by_id["count_parameters_unseen_configs"], names)


def test_only_the_failed_checks_of_the_own_model_carry_the_typed_id():
    nb = instructor()
    by_id = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells}
    plan = Plan([PlanCell("test", by_id[g], g) for g in
                 ("total_params_value", "count_parameters_unseen_configs", "out_head_params_value")])
    outcomes = {0: CellOutcome(CellStatus.FAILED, "total_params is not the count of your model"),
                1: CellOutcome(CellStatus.FAILED, "count_parameters is wrong"),
                2: CellOutcome(CellStatus.PASSED)}
    submission = {"cells": [{"cell_type": "code", "source": 'STUDENT_ID = "JDoe"'}]}
    notes = with_typed_id_remark(nb, submission, plan, outcomes, "jdoe")
    assert notes == [typed_id_remark("JDoe", "jdoe")]
    assert outcomes[0].message == "total_params is not the count of your model\n" + notes[0]
    assert outcomes[1].message == "count_parameters is wrong"
    assert outcomes[2].message == ""
    assert with_typed_id_remark(nb, submission, plan, outcomes, "JDoe") == []
