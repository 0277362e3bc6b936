"""A manual score written compare-and-set: the one writer of a grade's manual score.

A person grades in formgrader, at the terminal (make grade-explain) or on another page;
each writer remembers the score it last wrote. `write_manual_score` writes a new score
and comment only when the gradebook still holds that remembered score: when it holds
another (a person changed it in formgrader, or another grader did), the write is refused
and the result names both values, so nobody's grade is silently overwritten.
"""

import math
from dataclasses import dataclass
from enum import StrEnum

from nbgrader.api import Gradebook


class ManualWriteStatus(StrEnum):
    WRITTEN = "written"  # the gradebook held the expected score and now holds the new one
    CONFLICT = "conflict"  # it held another score: nothing was written
    UNCHANGED = "unchanged"  # it already held the new score and comment: nothing to write


@dataclass(frozen=True)
class ManualScoreWrite:
    """What became of one write of a manual score."""

    status: ManualWriteStatus
    student: str
    grade_id: str
    before: float | None  # what the gradebook held when asked (None: not graded by hand)
    expected: float | None  # what the writer last wrote (None: nothing yet)
    score: float  # what it asked to write

    def in_words(self) -> str:
        """'bob parameters_explain: not written: the gradebook holds 2, not 1 as last
        written here (changed in formgrader or by another grader); ...'."""
        if self.status != ManualWriteStatus.CONFLICT:
            return f"{self.student} {self.grade_id}: {self.status} {points(self.score)}"
        return (f"{self.student} {self.grade_id}: not written: the gradebook holds "
                f"{points(self.before)}, not {points(self.expected)} as last written here "
                f"(changed in formgrader or by another grader); {points(self.score)} was not "
                f"written over it")


def points(score: float | None) -> str:
    return "no score" if score is None else f"{score:g}"


def same_score(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=0.0, abs_tol=1e-9)


def write_manual_score(gb: Gradebook, assignment: str, notebook: str, grade_id: str,
                       student: str, expected: float | None, score: float,
                       comment: str | None = None) -> ManualScoreWrite:
    """Writes `score` (and `comment`, unless None) as the manual grade of the student's
    cell `grade_id`, only if the gradebook holds `expected` (what this writer last wrote;
    None: no manual score yet), and commits. nbgrader's MissingEntry when there is no such
    grade (or no comment of the cell, for a `comment`)."""
    grade = gb.find_grade(grade_id, notebook, assignment, student)
    found = (gb.find_comment(grade_id, notebook, assignment, student)
             if comment is not None else None)
    before = grade.manual_score

    def result(status: ManualWriteStatus) -> ManualScoreWrite:
        return ManualScoreWrite(status, student, grade_id, before, expected, score)

    if not same_score(before, expected):
        return result(ManualWriteStatus.CONFLICT)
    if same_score(before, score) and (found is None or found.manual_comment == comment) \
            and not grade.needs_manual_grade:
        return result(ManualWriteStatus.UNCHANGED)
    grade.manual_score = score
    grade.needs_manual_grade = False
    if found is not None:
        found.manual_comment = comment
    gb.db.commit()
    return result(ManualWriteStatus.WRITTEN)
