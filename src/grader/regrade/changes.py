"""What a regrade changes: each student's result before (their part of the grade report)
and after (graded again), check by check, and which regrade requests that answers.

A student changes when any check's points, status or failure message differ; the
totals are the autograded points (before a late penalty and without grades given
by hand, which a regrade never touches).
"""

from dataclasses import dataclass, field
from typing import Any

from ..reports import number
from ..results import StudentResult
from .requests import RegradeRequest


@dataclass(frozen=True)
class CheckChange:
    """One check of one student whose result changes."""

    notebook: str
    grade_id: str
    old_points: float | None  # None: the check was not in the old result
    new_points: float | None  # None: it is not in the new one
    old_status: str
    new_status: str
    new_message: str

    def text(self) -> str:
        """'tiny/double_hidden: 0 -> 2 (failed -> passed)'."""
        def shown(points: float | None) -> str:
            return "none" if points is None else number(points)

        status = (f" ({self.old_status} -> {self.new_status})"
                  if self.old_status != self.new_status else " (message changed)"
                  if self.old_points == self.new_points else "")
        return (f"{self.notebook}/{self.grade_id}: {shown(self.old_points)} -> "
                f"{shown(self.new_points)}{status}")


@dataclass(frozen=True)
class StudentChange:
    """One student whose result changes: the totals and the checks that change."""

    student: str
    old_total: float
    new_total: float
    max_total: float
    checks: list[CheckChange] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"student": self.student, "old_total": self.old_total,
                "new_total": self.new_total, "max_total": self.max_total,
                "checks": [vars(c) for c in self.checks]}


def _checks(result: StudentResult | None) -> dict[tuple[str, str], tuple[float, str, str]]:
    if result is None:
        return {}
    return {(nb.notebook, t.grade_id): (t.points, str(t.status), t.message)
            for nb in result.notebooks for t in nb.tests}


def student_change(old: StudentResult | None, new: StudentResult) -> StudentChange | None:
    """How `new` differs from `old` (None: no report part yet), or None when it does not."""
    before, after = _checks(old), _checks(new)
    changes = []
    for key in sorted(set(before) | set(after), key=lambda k: k[::-1]):
        if before.get(key) == after.get(key):
            continue
        old_points, old_status, _ = before.get(key, (None, "none", ""))
        new_points, new_status, message = after.get(key, (None, "none", ""))
        changes.append(CheckChange(key[0], key[1], old_points, new_points, old_status,
                                   new_status, message))
    if not changes and (old is not None and old.status == new.status):
        return None
    return StudentChange(new.student, old.points if old else 0.0, new.points, new.max_points,
                         changes)


def order_of_checks(result: StudentResult) -> dict[tuple[str, str], int]:
    """{(notebook, grade_id): position} in the notebooks' order."""
    keys = [(nb.notebook, t.grade_id) for nb in result.notebooks for t in nb.tests]
    return {key: index for index, key in enumerate(keys)}


def in_notebook_order(change: StudentChange, result: StudentResult) -> StudentChange:
    """`change` with its checks in the order the notebooks ask them."""
    order = order_of_checks(result)
    checks = sorted(change.checks, key=lambda c: order.get((c.notebook, c.grade_id), 1 << 30))
    return StudentChange(change.student, change.old_total, change.new_total, change.max_total,
                         checks)


def answer_to(request: RegradeRequest, regraded: set[str],
              changes: dict[str, StudentChange]) -> str:
    """What the regrade does for one request, in words."""
    if request.student not in regraded:
        return "not answered: this student is not regraded (STUDENTS=...)"
    change = changes.get(request.student)
    check = next((c for c in change.checks if c.grade_id == request.check), None) \
        if change else None
    if check is None:
        return "not answered: the check's result does not change"
    return f"answered: {check.text()}"
