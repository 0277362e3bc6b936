"""What the tests know of one assignment: its row of the registry (testsupport/assignments/).

A row holds the reference values the tests compare the grader with: the notebook's
name, the points of every graded cell, the model students and what each earns, the
expected values no failure message may show, what the notebook may import from the
package, what the students of the whole loop write (all, some, typed-in numbers, answers
written against a grader that ran the checks in the student's process) with what each
earns, and the honest students of the assignment: its own styles, how a Colab student
changes it, and the package's functions handed in wrapped.
"""

from dataclasses import dataclass, field, fields, MISSING
from textwrap import dedent
from typing import Callable

NOT_ANSWERED = "not answered yet"  # what every check of an untouched notebook says


def source(text):
    """An answer cell's source written as an indented triple-quoted string."""
    return dedent(text).strip("\n")


@dataclass
class Student:
    """A model student: the instructor's solution with some answer cells replaced.

    ``answers``: {answer cell grade_id: source}. ``failures`` names the test cells that
    must score 0, each with words its failure message must contain (``None``: the
    failure is expected, its message is not checked); every other test cell must earn
    its full points. ``total`` is the score the student must get. ``fill_solutions``
    false starts from the released notebook with no answer filled in.
    """

    total: float
    answers: dict = field(default_factory=dict)
    failures: dict = field(default_factory=dict)
    fill_solutions: bool = True


def untouched(points):
    """The student who hands in the released notebook as it came: every check says so."""
    return Student(total=0, fill_solutions=False,
                   failures={grade_id: NOT_ANSWERED for grade_id in points})


def no_colab_changes(student):
    """A Colab student who pastes the solved notebook's cells as they are."""
    return []


@dataclass(frozen=True)
class AssignmentRow:
    """What the tests know of one assignment (the folder solutions/<name>/)."""

    name: str  # the folder of solutions/ and exercises/
    notebook: str  # its notebook's name, without .ipynb
    points: dict  # {grade_id: points} of every graded cell, in the notebook's order
    students: dict  # {name: Student} model students and what each earns; "solution" first
    hidden_values: dict  # {grade_id: [text]} what a failure message must never show
    allowed_imports: frozenset  # what the notebook takes from the package (from gptcourse import)
    package_answers: tuple  # answer cells asking for a function the package also provides
    partial: tuple  # the answer cells a partial student of the whole loop answers ...
    partial_score: float  # ... and what that student earns
    typed: dict  # {answer grade_id: source} typed-in numbers (the site's, not computed) ...
    typed_score: float  # ... and what they earn
    function_tests: tuple  # checks of functions on inputs a typed-in value cannot know
    oracle: dict  # {answer grade_id: source} answers written against an old grader ...
    oracle_score: float  # ... and what the honest rest of such a notebook earns
    # the honest students of this assignment (testsupport/honest_students.py adds the styles
    # every assignment gets): styles of its own, [Style]
    styles: tuple = ()
    # what a Colab student changes, colab_changes(student) -> [change of a notebook]
    colab_changes: Callable = no_colab_changes
    # the package's own function handed in wrapped: {name: (answer grade_id, source)} ...
    wrappers: dict = field(default_factory=dict)
    wrapped_checks: dict = field(default_factory=dict)  # {answer grade_id: {checks it loses}}
    # answers that change the model they are given: {name: (answer grade_id, source,
    # the check that loses its points, words of its message)}
    argument_changers: dict = field(default_factory=dict)
    # the manually graded explain cell: {grade_id: points}, on top of the checks' points
    explain: dict = field(default_factory=dict)

    @property
    def file_name(self) -> str:
        return self.notebook + ".ipynb"

    @property
    def max_score(self) -> float:
        """What the checks are worth (what the grader gives a student before a person
        grades the explain cell)."""
        return float(sum(self.points.values()))

    @property
    def worth(self) -> float:
        """What the assignment is worth in the gradebook: the checks and the explain cell."""
        return self.max_score + float(sum(self.explain.values()))


def required_fields():
    """[(name, what it holds)] of the fields a row must give, as the class declares them."""
    import inspect
    import re

    comments = {}
    for line in inspect.getsource(AssignmentRow).splitlines():
        match = re.match(r"\s+(\w+): [^=#]+#\s*(.*)$", line)
        if match:
            comments[match.group(1)] = match.group(2)
    return [(f.name, comments.get(f.name, "")) for f in fields(AssignmentRow)
            if f.default is MISSING and f.default_factory is MISSING]
