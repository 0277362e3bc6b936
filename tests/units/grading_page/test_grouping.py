"""Answers grouped by reasoning before a person grades them: each normalised by its student's
own values, blank ones apart, the same groups in any order, labelled by telling words; and
the numbers that are another student's value flagged, never scored."""

import random

import pytest

from grader.grading_page.grouping import ExplainAnswer as Answer
from grader.grading_page.grouping import (READ_AT_MOST, Flag, group_answers, group_key,
                                          integrity_flags, normalise, shown_term)
from testsupport.explain_class import BLANK, COPIED_FROM, COPIER, PUBLIC, answer_text, purity

VALUES = {"untied": 163_009_536, "tied": 124_412_160, "head": 38_597_376,
          "vocab_size": 50_257, "emb_dim": 768, "n_heads": 12}


# --- normalise -------------------------------------------------------------------------

def test_a_student_s_own_numbers_become_the_names_of_their_values():
    text = "Untied 163,009,536, tied 124.4M: the head's [50257, 768] = 38.6 million."
    assert normalise(text, VALUES) == (
        "untied ⟨untied⟩ , tied ⟨tied⟩ : "
        "the head's [ ⟨vocab_size⟩ , ⟨emb_dim⟩ ] = ⟨head⟩ .")


def test_small_values_are_never_named_and_other_numbers_are_one_token():
    """12 heads says nothing of whose model it is; 3.5 is nobody's value."""
    assert normalise("12 heads, 3.5 times, 999 rows", VALUES) == (
        "⟨#⟩ heads, ⟨#⟩ times, ⟨#⟩ rows")


def test_a_number_that_is_several_values_is_named_by_the_first_name_in_order():
    assert normalise("1,024", {"width": 1024, "context": 1024.0}) == "⟨context⟩"


def test_values_that_are_no_numbers_are_left_aside():
    import math
    values = {"config": {"emb_dim": 768}, "torch": math, "student": "s01", "flag": True,
              "emb_dim": 768}
    assert normalise("768 and 1", values) == "⟨emb_dim⟩ and ⟨#⟩"


def test_markdown_and_html_stay_text_lower_cased_and_white_space_collapsed():
    assert normalise("**Tied**:\n\n  <b>124.4M</b>\t`tok_emb`", VALUES) == (
        "**tied**: <b> ⟨tied⟩ </b> `tok_emb`")


def test_normalising_one_text_with_two_students_values_gives_one_string(class_values):
    """The same reasoning written in s02's numbers and in s03's reads the same."""
    first, second = class_values["s02"], class_values["s03"]
    assert first["untied"] != second["untied"]
    as_first = normalise(answer_text("tied-minus-head", first, 4), first)
    as_second = normalise(answer_text("tied-minus-head", second, 4), second)
    assert as_first == as_second
    assert "⟨head⟩" in as_first


def test_a_term_is_shown_with_its_values_in_braces():
    assert shown_term("⟨tied⟩ ⟨untied⟩") == "{tied} {untied}"
    assert shown_term("head ⟨#⟩") == "head {#}"


# --- group_answers on the synthetic class ------------------------------------------------

def test_the_class_is_grouped_by_reasoning_across_variants(synthetic):
    answers, reasoning = synthetic
    groups = group_answers(answers)
    measured = purity(groups, reasoning)
    assert measured >= 0.9, f"purity {measured:.3f}"
    # not by cutting it into crumbs: at most sqrt(60 / 2) groups of written answers
    assert len([g for g in groups if not g.blank]) <= 5, [g.students for g in groups]


def test_without_the_students_values_the_grouping_is_worse(synthetic):
    answers, reasoning = synthetic
    normalised = purity(group_answers(answers), reasoning)
    raw = purity(group_answers(answers, by_values=False), reasoning)
    assert raw < normalised, f"purity raw {raw:.3f}, normalised {normalised:.3f}"


def test_the_blank_answers_are_one_group_of_their_own(synthetic):
    answers, reasoning = synthetic
    blank = [group for group in group_answers(answers) if group.blank]
    assert [group.students for group in blank] == [("s56", "s57", "s58", "s59")]
    assert sorted(s for s, r in reasoning.items() if r == BLANK) == list(blank[0].students)
    assert blank[0].label == ()


def test_every_answer_is_in_exactly_one_group_largest_first(synthetic):
    answers, _ = synthetic
    groups = group_answers(answers)
    assert sorted(s for g in groups for s in g.students) == sorted(a.student for a in answers)
    assert [(-len(g.students), g.key) for g in groups] == sorted(
        (-len(g.students), g.key) for g in groups)
    assert all(g.students == tuple(sorted(g.students)) and g.key == group_key(g.students)
               for g in groups)


def test_the_groups_are_the_same_in_any_order(synthetic):
    answers, _ = synthetic
    shuffled = list(answers)
    random.Random(57).shuffle(shuffled)
    assert shuffled != answers
    assert group_answers(shuffled) == group_answers(answers)


def test_a_reasoning_about_the_values_is_labelled_by_a_value(synthetic):
    """tied = untied - head: the group of that reasoning names {head} among its words."""
    answers, reasoning = synthetic
    for group in group_answers(answers):
        ours = [s for s in group.students if reasoning[s] == "tied-minus-head"]
        if len(ours) > len(group.students) / 2:
            assert "{head}" in group.label, group.label
            break
    else:
        pytest.fail("no group holds mostly tied-minus-head answers")


# --- group_answers: edges ----------------------------------------------------------------

def test_a_key_is_derived_from_the_members_alone():
    assert group_key(["s02", "s01"]) == group_key(["s01", "s02"]) != group_key(["s01"])


def test_a_student_with_two_answers_is_refused_with_a_sentence():
    with pytest.raises(ValueError, match="each student has one answer; s01 has more"):
        group_answers([Answer("s01", "a", {}), Answer("s01", "b", {}), Answer("s02", "c", {})])


def test_small_classes_and_blank_classes_are_grouped_too():
    assert group_answers([]) == []
    [blank] = group_answers([Answer("s01", "YOUR ANSWER HERE", {}), Answer("s02", " \n", {})])
    assert (blank.students, blank.blank) == (("s01", "s02"), True)
    [only] = group_answers([Answer("s01", "The head is shared.", VALUES)])
    assert (only.students, only.blank) == (("s01",), False)
    assert "head" in only.label


def test_answers_without_a_word_are_one_group():
    answers = [Answer(student, text, {}) for student, text in
               [("s01", "?"), ("s02", "- -"), ("s03", "…"), ("s04", "a")]]
    [group] = group_answers(answers)
    assert (group.students, group.blank) == (("s01", "s02", "s03", "s04"), False)


def test_a_ten_megabyte_answer_is_grouped_and_read_as_far_as_pages_go():
    huge = "The head is shared: 124,412,160 " + "111 " * 2_500_000
    assert len(huge) > 10_000_000
    normalised = normalise(huge, VALUES)
    assert normalised.startswith("the head is shared: ⟨tied⟩ ⟨#⟩ ⟨#⟩")
    assert len(normalised) < 2 * READ_AT_MOST
    answers = [Answer("s01", huge, VALUES), Answer("s02", "The head is shared.", OTHER),
               Answer("s03", "", OTHER)]
    assert sorted(g.students for g in group_answers(answers)) == [("s01", "s02"), ("s03",)]
    assert integrity_flags(answers, PUBLIC) == {}


# --- integrity_flags ---------------------------------------------------------------------

def test_the_copied_answer_is_flagged_with_its_classmate_and_nobody_else(synthetic):
    answers, _ = synthetic
    flags = integrity_flags(answers, PUBLIC)
    assert list(flags) == [COPIER]
    copied = next(a.text for a in answers if a.student == COPIED_FROM)
    assert flags[COPIER] and all(f.owners == (COPIED_FROM,) and f.written in copied
                                 for f in flags[COPIER]), flags
    assert {f.value_name for f in flags[COPIER]} <= {"untied", "tied", "head", "vocab_size"}


OWN = {"untied": 170_163_968, "tied": 131_201_024, "head": 38_962_944, "vocab_size": 50_733,
       "emb_dim": 768}
OTHER = {"untied": 117_392_640, "tied": 97_624_320, "head": 19_768_320, "vocab_size": 51_480,
         "emb_dim": 384}


def test_another_student_s_value_is_flagged_with_its_name_and_owner():
    flags = integrity_flags([Answer("s01", "tied it has 97,624,320 (97.62M)", OWN),
                             Answer("s02", "", OTHER)])
    assert flags == {"s01": [Flag("s01", "97,624,320", "tied", ("s02",)),
                             Flag("s01", "97.62M", "tied", ("s02",))]}


@pytest.mark.parametrize("text, why", [
    ("the 124M model has 163,009,536 and 124,412,160", "the site's own figures"),
    ("my model has 170,163,968 untied", "the student's own value"),
    ("GPT-2's paper says 117M", "a round figure near many counts"),
    ("the width is 384", "a width many share"),
])
def test_what_is_no_integrity_matter_is_not_flagged(text, why):
    other = {**OTHER, "untied": 163_009_536, "tied": 117_392_640}
    assert integrity_flags([Answer("s01", text, OWN), Answer("s02", "x", other)],
                           PUBLIC) == {}, why


def test_a_value_shared_by_several_classmates_names_them_all():
    flags = integrity_flags([Answer("s03", "[51480, 768]", OWN), Answer("s01", "", OTHER),
                             Answer("s02", "", OTHER)])
    assert flags == {"s03": [Flag("s03", "51480", "vocab_size", ("s01", "s02"))]}
