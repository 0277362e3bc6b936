"""The rubric's suggestions on the grading page: an item whose `suggest` pattern matches an
answer, read with the student's own numbers as names, is suggested, never applied."""

import os

from grader.grading_page.question import suggested_items
from grader.rubric import load_rubric
from testsupport.explain_class import ROOT

RUBRIC = load_rubric(os.path.join(ROOT, "rubrics", "parameters.yaml"))


def test_an_answer_with_its_own_counts_is_suggested_the_counts_item(class_values):
    values = class_values["s01"]
    text = (f"Untied {values['untied']:,}, tied {values['tied'] / 1e6:.1f}M: the head "
            f"[{values['vocab_size']}, {values['emb_dim']}] holds {values['head']:,}.")
    assert suggested_items(RUBRIC, text, values) == {"counts", "head"}


def test_another_students_counts_suggest_nothing_of_the_counts(class_values):
    mine, theirs = class_values["s01"], class_values["s02"]
    text = f"Untied {theirs['untied']:,}, tied {theirs['tied']:,}."
    assert suggested_items(RUBRIC, text, mine) == set()


def test_each_reasoning_of_the_class_is_suggested_its_own_items(synthetic):
    answers, reasoning = synthetic
    suggested = {a.student: suggested_items(RUBRIC, a.text, a.values) for a in answers}
    saved = [s for s, r in reasoning.items() if r == "saved-once"]
    wrong = [s for s, r in reasoning.items() if r == "position-shared"]
    blank = [s for s, r in reasoning.items() if r == "blank"]
    assert all({"shared", "save"} & suggested[s] for s in saved)
    assert all("wrong-matrix" in suggested[s] for s in wrong)
    assert not any("wrong-matrix" in suggested[s] for s in saved)
    assert all(suggested[s] == set() for s in blank)
