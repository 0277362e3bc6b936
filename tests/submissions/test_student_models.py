"""Each student's value questions are about a model of their own: copied values earn nothing.

A released copy of the course grades, in one run of the course's grader, students
who compute their values, one who hands in another student's values, and two who
try to make the grader use another student's id (the typed STUDENT_ID cell, the
hub's variable set in a cell of their own), and one who typed their id in another case.
"""

import re

import nbformat
import pytest

from gptcourse import student_config
from gptcourse.variants import larger_configs
from testsupport.assignments import ASSIGNMENTS
from testsupport.course import released_course
from testsupport.grading import build_submission, grade_batch

pytestmark = pytest.mark.slow

SALT = "2026-fall"  # nbgrader_config.py's c.StudentVariants.salt
VALUE_CHECKS = {"output_shape", "total_params_value", "out_head_params_value",
                "tied_params_value", "gpt2_totals_values"}
ANOTHER = "these values are for another configuration than yours (student {})"
POINTS = ASSIGNMENTS["parameters"].points


def untied_count(cfg):
    V, C, d, L = (cfg[k] for k in ("vocab_size", "context_length", "emb_dim", "n_layers"))
    return (V + C) * d + L * (12 * d * d + 10 * d + (3 * d if cfg["qkv_bias"] else 0)) + 2 * d + V * d


def typed_values(student):
    """The answer cells of the value questions, holding `student`'s right values as numbers."""
    cfg = student_config(student, SALT)
    total, head = untied_count(cfg), cfg["vocab_size"] * cfg["emb_dim"]
    totals = {name: untied_count(larger) for name, larger in larger_configs(cfg).items()}
    return {"output_shape_answer": f"output_shape = (2, 4, {cfg['vocab_size']})",
            "values_answer": f"total_params = {total}\nout_head_params = {head}\n"
                             f"tied_params = {total - head}",
            "gpt2_totals_answer": f"gpt2_totals = {totals!r}"}


def with_cell(nb, after_grade_id, source=None, replace=False):
    at = next(i for i, cell in enumerate(nb.cells)
              if cell.metadata.get("nbgrader", {}).get("grade_id") == after_grade_id)
    if replace:
        nb.cells[at].source = source
    else:
        nb.cells.insert(at + 1, nbformat.v4.new_code_cell(source))
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    course = released_course(str(tmp_path_factory.mktemp("variants") / "course"))
    submissions = {
        "alice": build_submission("parameters"),
        "bob": build_submission("parameters"),
        "carol": build_submission("parameters", typed_values("alice")),
        "dave": with_cell(build_submission("parameters"), "student_id",
                          'STUDENT_ID = "alice"  # a classmate\'s id', replace=True),
        "erin": with_cell(build_submission("parameters"), "student_id",
                          'import os\nos.environ["JUPYTERHUB_USER"] = "alice"'),
        "frank": build_submission("parameters", typed_values("frank")),
        # on Colab: the id typed with a capital, and the numbers it showed typed into the answers
        "grace": with_cell(build_submission("parameters", typed_values("Grace")), "student_id",
                           'STUDENT_ID = "Grace"', replace=True),
    }
    return grade_batch(course, "parameters", submissions)


def test_two_students_have_different_models_and_different_value_answers():
    alice, bob = typed_values("alice"), typed_values("bob")
    assert student_config("alice", SALT) != student_config("bob", SALT)
    assert all(alice[cell] != bob[cell] for cell in alice)


@pytest.mark.parametrize("student", ["alice", "bob"])
def test_a_notebook_that_computes_its_values_earns_full_marks_for_its_own_id(graded, student):
    scores, messages = graded
    assert scores[student] == {k: float(v) for k, v in POINTS.items()}
    assert messages[student] == {}


def test_the_right_values_typed_in_for_ones_own_model_earn_their_points(graded):
    scores, _ = graded
    assert scores["frank"] == {k: float(v) for k, v in POINTS.items()}


def test_another_students_values_earn_nothing_and_say_they_are_for_another_configuration(graded):
    scores, messages = graded
    for check, points in POINTS.items():
        assert scores["carol"][check] == (0.0 if check in VALUE_CHECKS else float(points)), check
    assert set(messages["carol"]) == VALUE_CHECKS
    own = student_config("carol", SALT)
    own_values = {own["vocab_size"], untied_count(own), own["vocab_size"] * own["emb_dim"]}
    for check, message in messages["carol"].items():
        assert ANOTHER.format("carol") in message, (check, message)
        assert "alice" not in message  # whose values they are is never said
        for value in own_values:  # nor the values that were expected
            assert f"{value:,}" not in message and str(value) not in message, (check, message)


def test_a_typed_student_id_of_someone_else_changes_nothing(graded):
    scores, messages = graded
    assert scores["dave"] == {k: float(v) for k, v in POINTS.items()}
    assert messages["dave"] == {}


def test_setting_the_hubs_variable_in_a_cell_computes_values_that_earn_nothing(graded):
    scores, messages = graded
    assert {check for check, score in scores["erin"].items() if score == 0} == VALUE_CHECKS
    assert all(ANOTHER.format("erin") in message for message in messages["erin"].values())
    assert not any(re.search(r"\balice\b", message) for message in messages["erin"].values())


def test_an_id_typed_in_another_case_loses_the_values_and_each_message_names_the_typed_id(graded):
    scores, messages = graded
    assert {check for check, score in scores["grace"].items() if score == 0} == VALUE_CHECKS
    assert set(messages["grace"]) == VALUE_CHECKS
    for check, message in messages["grace"].items():
        assert ("your notebook's STUDENT_ID is 'Grace', which differs from your id 'grace' "
                "only in case") in message, (check, message)
        assert "type STUDENT_ID = 'grace'" in message, (check, message)


# --- sampling: the value questions are about scores of each student's own --------------

SAMPLING_VALUE_CHECKS = {"my_favourite_probas_values", "my_kept_ids_values"}
SAMPLING_POINTS = ASSIGNMENTS["sampling"].points
OTHER_SCORES = "these values are for other scores than yours (student {})"


def sampling_values(student):
    """The answer cell of the sampling value questions, holding `student`'s right values."""
    import torch

    from gptcourse import student_logits

    scores = student_logits(student, SALT)
    favourites = [torch.softmax(scores[0] / t, dim=-1).max().item() for t in (1.0, 0.5, 0.1, 0.01)]
    kept = []
    for row in scores / 0.5:
        probas, order = torch.softmax(row, dim=-1).sort(descending=True)
        kept.append(sorted(order[probas.cumsum(0) - probas < 0.9].tolist()))
    return {"own_values_answer": f"my_favourite_probas = {favourites!r}\nmy_kept_ids = {kept!r}"}


@pytest.fixture(scope="module")
def graded_sampling(tmp_path_factory):
    course = released_course(str(tmp_path_factory.mktemp("sampling") / "course"))
    submissions = {
        "alice": build_submission("sampling"),
        "frank": build_submission("sampling", sampling_values("frank")),
        "carol": build_submission("sampling", sampling_values("alice")),
        "erin": with_cell(build_submission("sampling"), "student_id",
                          'import os\nos.environ["JUPYTERHUB_USER"] = "alice"'),
    }
    return grade_batch(course, "sampling", submissions)


def test_own_scores_computed_or_typed_earn_every_point_of_sampling(graded_sampling):
    scores, messages = graded_sampling
    for student in ("alice", "frank"):
        assert scores[student] == {k: float(v) for k, v in SAMPLING_POINTS.items()}, student
        assert messages[student] == {}, student


@pytest.mark.parametrize("student", ["carol", "erin"])
def test_another_students_scores_values_earn_nothing_and_say_they_are_other_scores(
        graded_sampling, student):
    scores, messages = graded_sampling
    for check, points in SAMPLING_POINTS.items():
        expected = 0.0 if check in SAMPLING_VALUE_CHECKS else float(points)
        assert scores[student][check] == expected, (student, check)
    assert set(messages[student]) == SAMPLING_VALUE_CHECKS
    for check, message in messages[student].items():
        assert OTHER_SCORES.format(student) in message, (check, message)
        assert not re.search(r"\balice\b", message)
