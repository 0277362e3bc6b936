"""A synthetic class's answers to the explain question of `parameters`, for the grading page.

Each student's own values are computed as rubrics/parameters.yaml's ``values`` code computes
them (their model on the meta device, counted), under a fixed salt. The answers follow three
lines of reasoning, each written in the student's own numbers, in varied wording and varied
spellings of the numbers (124,412,160 / 124.4M / 124 million / 124412160):

- ``tied-minus-head``: the head's matrix is the token embedding's, so tied = untied - head;
- ``saved-once``: the state_dict lists two names for one tensor, torch.save writes it once;
- ``position-shared`` (wrong): the position embedding is what tying shares.

A class of 60 is 55 such answers, 4 blank ones and one copied from a classmate, numbers and
all (COPIER copies COPIED_FROM).
"""

import functools
import os
import random

from grader.grading_page import ExplainAnswer
from grader.rubric import load_rubric

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SALT = "grouping-class"
BLANK = "blank"
COPIER, COPIED_FROM = "s60", "s01"
# the site's own figures (the 124M model's counts, GPT-2's vocabulary and width)
PUBLIC = (163_009_536, 124_412_160, 50_257, 768)
NUMERIC = ("untied", "tied", "head", "vocab_size", "emb_dim")


@functools.cache
def _values_code():
    """rubrics/parameters.yaml's ``values``, read and compiled once per process."""
    rubric = load_rubric(os.path.join(ROOT, "rubrics", "parameters.yaml"))
    return compile(rubric.values, rubric.path, "exec")


def student_values(student: str) -> dict:
    """The placeholders of rubrics/parameters.yaml for `student` under SALT, as the grader's
    explain wing computes them (only the numbers: the code binds its imports too)."""
    names = {"student": student, "salt": SALT}
    exec(_values_code(), names)  # noqa: S102  (the course's code)
    return {name: names[name] for name in NUMERIC}


def spelled(value: int, way: int) -> str:
    """`value` as people write it, in one of six ways."""
    return [f"{value:,}", f"{value / 1e6:.1f}M", f"{value / 1e6:.0f} million", str(value),
            f"{value:,}".replace(",", " "), f"{value / 1e6:.2f} million"][way % 6]


# each reasoning's claim, in slots: every answer picks one wording per slot
REASONINGS = {
    "tied-minus-head": (
        ("With weight tying", "When the weights are tied", "Tied,", "Once tied,",
         "After tie_weights,"),
        ("the output head", "the head", "out_head", "the final linear layer", "the LM head"),
        ("reuses", "shares", "points at", "is the same Parameter as", "takes over"),
        ("the token embedding's matrix.", "tok_emb.weight.", "the embedding table of the tokens.",
         "the input embedding matrix.", "the weights of the token embedding."),
    ),
    "saved-once": (
        ("The state_dict", "state_dict()", "The model's state dict", "Listing the state_dict",
         "The saved dictionary"),
        ("lists two names", "shows two keys", "has two entries", "keeps both names",
         "holds tok_emb.weight and out_head.weight"),
        ("for one tensor,", "for a single shared tensor,", "pointing to one storage,",
         "that refer to the same storage,", "backed by one tensor,"),
        ("and torch.save writes it once.", "but torch.save stores that storage only once.",
         "yet the saved file holds it a single time.",
         "and torch.save deduplicates shared storages.",
         "so the checkpoint keeps the matrix once."),
    ),
    "position-shared": (
        ("Weight tying", "Tying", "With tying, the model", "Tying the weights",
         "Weight sharing"),
        ("shares", "reuses", "ties", "lets the blocks share", "re-uses"),
        ("the position embedding", "the positional embedding matrix", "pos_emb",
         "the positional encoding table", "the position embeddings"),
        ("with the output layer.", "with the transformer blocks.", "in every block.",
         "with the attention weights.", "across the layers."),
    ),
}


def _with_numbers(reasoning: str, values: dict, index: int) -> str:
    """The numbers part of an answer of `reasoning`, in `values`, worded by `index`."""
    way = index // 2
    untied, tied, head = (spelled(values[name], way + shift)
                          for shift, name in enumerate(("untied", "tied", "head")))
    shape = f"[{values['vocab_size']}, {values['emb_dim']}]"
    if reasoning == "tied-minus-head":
        return [f"So tied = untied - head: {untied} - {head} = {tied}.",
                f"My model has {untied} parameters untied and {tied} tied; the difference, "
                f"{head}, is the head's {shape} matrix.",
                f"The head is {shape}, that is {head} values, so {untied} becomes {tied}.",
                f"Untied {untied}, tied {tied}: exactly the {head} weights of the {shape} "
                f"head fewer."][index % 4]
    if reasoning == "saved-once":
        return [f"The file holds {tied} parameters, while summing the state_dict gives "
                f"{untied}.",
                f"Summing the entries gives {untied}, the saved model has {tied}.",
                "So the file on disk is smaller than the sum over the state_dict.",
                f"That is {tied} stored values instead of {untied}."][index % 4]
    return [f"That is why {untied} parameters drop to {tied} when tied.",
            f"So the count goes from {untied} to {tied}.",
            f"Tied, my model has {tied} parameters instead of {untied}.",
            "That is where the saving comes from."][index % 4]


ASIDES = (  # what students of every reasoning add
    "I checked this in my notebook.",
    "GPT-2 does the same.",
    "The embedding has one row per token of the vocabulary.",
    "This matters for the size of the model on disk.",
    "",
)


def answer_text(reasoning: str, values: dict, index: int) -> str:
    """Answer `index` of `reasoning`: its claim worded one way of many, its numbers, an
    aside (the wordings drawn by a generator seeded with the reasoning and the index)."""
    draw = random.Random(f"{reasoning} {index}")
    openings = ("", "I think ", "In short: ", "", "My answer: ")
    claim = " ".join(draw.choice(slot) for slot in REASONINGS[reasoning])
    text = (f"{draw.choice(openings)}{claim} {_with_numbers(reasoning, values, index)} "
            f"{draw.choice(ASIDES)}")
    return text if index % 5 else text + " (As GPT-2's 124M model does.)"


def synthetic_class(values_of, size: int = 60) -> tuple[list[ExplainAnswer],
                                                         dict[str, str]]:
    """(the answers, {student: their reasoning}) of a class of `size`, students s01, s02, ...;
    `values_of(student)` gives each student's own values. One in fifteen is blank, COPIER's
    is COPIED_FROM's text (its reasoning counted as theirs), the others follow the three
    reasonings in turn."""
    width = max(2, len(str(size)))
    students = [f"s{number:0{width}d}" for number in range(1, size + 1)]
    copier = students[-1]
    blanks = set(students[-1 - max(1, size // 15):-1])
    answers, reasoning = [], {}
    writers = [student for student in students if student not in blanks and student != copier]
    names = list(REASONINGS)
    for index, student in enumerate(writers):
        reasoning[student] = names[index % 3]
        text = answer_text(names[index % 3], values_of(student), index // 3)
        answers.append(ExplainAnswer(student, text, values_of(student)))
    for way, student in enumerate(sorted(blanks)):
        reasoning[student] = BLANK
        text = ["", "   \n", "YOUR ANSWER HERE", "\n"][way % 4]
        answers.append(ExplainAnswer(student, text, values_of(student)))
    reasoning[copier] = reasoning[students[0]]
    answers.append(ExplainAnswer(copier, answers[0].text, values_of(copier)))
    return answers, reasoning


def purity(groups, reasoning: dict[str, str]) -> float:
    """The share of answers that are of their group's most common reasoning."""
    kept = sum(max(sum(reasoning[s] == r for s in group.students) for r in set(reasoning.values()))
               for group in groups)
    return kept / sum(len(group.students) for group in groups)
