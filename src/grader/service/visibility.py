"""What a student sees of each check before their due date, as data (``c.CheckFeedback``).

Each check has one of three visibilities:

- ``now``: passed or failed, with the check's whole message, as soon as it is graded;
- ``hint``: passed or failed and, for a failed check, the first line of its message (at
  most `HINT_CHARS` characters); never its points, never a line of a hidden test;
- ``after_due``: nothing but "after the due date" until the student's own due date.

At the student's own due date (extensions included) every check shows in full, with its
points. By default a check students can read in their notebook is ``now`` and a check
with hidden tests is ``hint``; points show only after the due date.
"""

import dataclasses
from collections.abc import Iterable, Mapping
from datetime import datetime
from enum import StrEnum
from typing import Protocol

import nbformat
from traitlets.config import Config

from ..cells import HIDDEN_BLOCK, CellKind, cell_kind, nbgrader_meta, source_text
from ..settings import CheckFeedback

HINT_CHARS = 160  # the longest hint a failed check shows before the due date


class Visibility(StrEnum):
    NOW = "now"
    HINT = "hint"
    AFTER_DUE = "after_due"


class CheckOutcome(Protocol):
    """A graded check as the service keeps it (store.CheckRecord has these fields)."""

    grade_id: str
    passed: bool
    points: float
    max_points: float
    message: str


@dataclasses.dataclass(frozen=True)
class CheckView:
    """One check as the student sees it now: None where it is not shown yet."""

    grade_id: str
    visibility: Visibility
    passed: bool | None  # None: not shown before the due date
    message: str  # the whole message, the hint, or "" (passed, or not shown)
    points: float | None  # None before the due date
    max_points: float | None


def hidden_checks(instructor: nbformat.NotebookNode) -> set[str]:
    """The grade ids of the instructor's test cells that hold hidden tests."""
    hidden = set()
    for cell in instructor.cells:
        meta = nbgrader_meta(cell)
        if (cell.get("cell_type") == "code" and cell_kind(meta) == CellKind.TEST
                and HIDDEN_BLOCK.search(source_text(cell.get("source", "")))):
            hidden.add(str(meta.get("grade_id", "")))
    return hidden


def checked_visibilities(configured: Mapping[str, str], where: str = "c.CheckFeedback.checks"
                         ) -> dict[str, Visibility]:
    """The configured visibility of each check, every value one of the three words.

    Raises ValueError naming the setting, the check and the words allowed."""
    allowed = ", ".join(v.value for v in Visibility)
    checked = {}
    for grade_id, word in configured.items():
        try:
            checked[str(grade_id)] = Visibility(str(word).strip().lower())
        except ValueError:
            raise ValueError(f"{where}[{grade_id!r}] is {word!r}: it must be one of "
                             f"{allowed}") from None
    return checked


def visibility_of(grade_id: str, hidden: bool, configured: Mapping[str, Visibility]
                  ) -> Visibility:
    """A check's visibility: as configured, else ``hint`` for hidden tests, ``now`` otherwise."""
    if grade_id in configured:
        return configured[grade_id]
    return Visibility.HINT if hidden else Visibility.NOW


def hint(message: str) -> str:
    """The first line of a failure message, at most HINT_CHARS characters."""
    first = next((line.strip() for line in message.splitlines() if line.strip()), "")
    return first if len(first) <= HINT_CHARS else first[:HINT_CHARS - 1].rstrip() + "…"


def check_view(check: CheckOutcome, visibility: Visibility, due_passed: bool) -> CheckView:
    """What the student sees of one graded check."""
    if due_passed:
        return CheckView(check.grade_id, visibility, check.passed,
                         "" if check.passed else check.message, check.points, check.max_points)
    if visibility == Visibility.AFTER_DUE:
        return CheckView(check.grade_id, visibility, None, "", None, None)
    if check.passed:
        return CheckView(check.grade_id, visibility, True, "", None, None)
    message = check.message if visibility == Visibility.NOW else hint(check.message)
    return CheckView(check.grade_id, visibility, False, message, None, None)


def student_view(checks: Iterable[CheckOutcome], hidden: set[str],
                 configured: Mapping[str, Visibility], due: datetime | None,
                 now: datetime) -> list[CheckView]:
    """Every check of a graded hand-in as its student sees it at ``now``.

    ``due`` is the student's own due date (extensions included; None: the assignment has
    none, and every check shows in full)."""
    due_passed = due is None or now >= due
    return [check_view(check, visibility_of(check.grade_id, check.grade_id in hidden,
                                            configured), due_passed)
            for check in checks]


def course_visibilities(config: Config | None) -> dict[str, Visibility]:
    """The visibilities ``c.CheckFeedback.checks`` of a course's nbgrader_config.py sets."""
    return checked_visibilities(CheckFeedback(config=config).checks)
