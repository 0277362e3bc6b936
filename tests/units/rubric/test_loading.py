"""Is a rubric file (rubrics/<assignment>.yaml) read as written, and a bad one refused with
the file and the line of its mistake?"""

import pytest

from grader.rubric import RubricError, filled, load_rubric
from testsupport.course import ROOT

GOOD = """\
cell: explain_tying
values: |
  untied = 10 * 3
  tied = untied - 5
items:
  - key: counts
    points: 1
    description: "quotes {untied:,} and {tied}"
    explanation: "Your model counts {untied:,}."
    note: "for graders"
  - key: wrong
    points: -0.5
    description: "names another matrix"
    explanation: "Only the head is shared."
"""


def write(tmp_path, text):
    path = tmp_path / "parameters.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_good_file_is_read_with_its_items_and_placeholders(tmp_path):
    rubric = load_rubric(write(tmp_path, GOOD), 2, "explain_tying")
    assert [(i.key, i.points) for i in rubric.items] == [("counts", 1.0), ("wrong", -0.5)]
    assert rubric.placeholders == {"student", "untied", "tied"}
    assert filled(rubric.items[0].description, {"untied": 1234, "tied": 5}) == \
        "quotes 1,234 and 5"


@pytest.mark.parametrize("assignment", ["parameters", "logits-to-text", "sampling"])
def test_the_courses_rubrics_load_for_their_cells(assignment):
    rubric = load_rubric(f"{ROOT}/rubrics/{assignment}.yaml", 2)
    assert rubric.cell.startswith("explain_") and len(rubric.defense) == 3
    assert sum(i.points for i in rubric.items if i.points > 0) == 2


BAD = [  # (what, the change to GOOD, line, words of the message)
    ("an unknown key of an item", ('    note: "for graders"', '    notes: "for graders"'), 10,
     "unknown key 'notes' in an item"),
    ("an unknown key at the top", ("items:", "itemz:"), 5, "unknown key 'itemz'"),
    ("points beyond the cell's", ("    points: -0.5", "    points: -2.5"), 12,
     "the points of 'wrong' are -2.5"),
    ("points that are not a number", ("    points: 1\n", "    points: one\n"), 7,
     "'one', not a number"),
    ("a placeholder the values do not bind", ("Your model counts {untied:,}.",
                                              "Your model counts {head:,}."), 9,
     "placeholder {head} in explanation of 'counts'"),
    ("an item key written twice", ("  - key: wrong", "  - key: counts"), 11,
     "item key 'counts' is written twice (first on line 6)"),
    ("an item without its explanation", ('    explanation: "Only the head is shared."\n', ""),
     11, "an item has no explanation"),
    ("another cell", ("cell: explain_tying", "cell: explain_other"), 1,
     "cell 'explain_other' is not the assignment's explain cell"),
    ("a suggestion that is no regular expression",
     ('    note: "for graders"\n', '    note: "for graders"\n    suggest: ["(minus"]\n'), 11,
     "the suggestion '(minus' of 'counts' is no regular expression"),
]


def test_an_items_suggestions_are_one_pattern_or_a_list(tmp_path):
    text = GOOD.replace('    note: "for graders"\n',
                        '    note: "for graders"\n    suggest: ["minus the head", "{head}"]\n')
    text = text.replace('    explanation: "Only the head is shared."\n',
                        '    explanation: "Only the head is shared."\n    suggest: pos_emb\n')
    rubric = load_rubric(write(tmp_path, text), 2, "explain_tying")
    assert [item.suggest for item in rubric.items] == [("minus the head", "{head}"),
                                                       ("pos_emb",)]
    assert load_rubric(write(tmp_path, GOOD), 2).items[0].suggest == ()


@pytest.mark.parametrize(("what", "change", "line", "words"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_is_refused_with_its_line(tmp_path, what, change, line, words):
    assert change[0] in GOOD
    path = write(tmp_path, GOOD.replace(*change, 1))
    with pytest.raises(RubricError) as refused:
        load_rubric(path, 2, "explain_tying")
    assert f"parameters.yaml, line {line}: " in str(refused.value)
    assert words in str(refused.value)


def test_a_file_that_is_not_yaml_is_refused_with_its_line(tmp_path):
    path = write(tmp_path, GOOD.replace("  - key: wrong", "  - key: [wrong"))
    with pytest.raises(RubricError, match=r"parameters.yaml, line 1[12]: not YAML"):
        load_rubric(path, 2)
