"""What a student sees of each check before their due date, as data (``c.CheckFeedback``).

Each check has one of three visibilities:

- ``now``: passed or failed, with the check's whole message, as soon as it is graded;
- ``hint``: passed or failed and, for a failed check, the first line of its message (at
  most `HINT_CHARS` characters); never its points, never a line of a hidden test; and for
  a check with hidden tests never what the student's code said: an exception it raised
  on a hidden input, or the check's own, is named by its type and the function that
  raised it, and an assertion's message shows only when it is the instructor's own words
  (a string written in the check, `assertion_messages`), not one made from values;
- ``after_due``: nothing but "after the due date" until the student's own due date.

At the student's own due date (extensions included) every check shows in full, with its
points. By default a check students can read in their notebook is ``now`` and a check
with hidden tests is ``hint``; points show only after the due date.
"""

import ast
import builtins
import dataclasses
import re
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime
from enum import StrEnum
from typing import Protocol

import nbformat
from traitlets.config import Config

from ...cells import HIDDEN_BLOCK, CellKind, cell_kind, nbgrader_meta, source_text
from ...settings import CheckFeedback

HINT_CHARS = 160  # the longest hint a failed check shows before the due date
EXCEPTION_LINE = re.compile(r"([A-Z]\w*)(?::\s?(.*))?")  # 'ValueError: ...', as checks word it
STUDENT_CALL = re.compile(r"in ([A-Za-z_]\w*)(?::|$)")  # what a student's function raised
LATER = "what it said is shown after the due date"


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


def assertion_messages(instructor: nbformat.NotebookNode) -> dict[str, frozenset[str]]:
    """{grade id: the hints of the failures whose words are the instructor's} of each test
    cell that holds hidden tests: "AssertionError: <message>" of every assert (or raise
    AssertionError) whose message is a string written in the cell."""
    found = {}
    for cell in instructor.cells:
        meta = nbgrader_meta(cell)
        source = source_text(cell.get("source", ""))
        if not (cell.get("cell_type") == "code" and cell_kind(meta) == CellKind.TEST
                and HIDDEN_BLOCK.search(source)):
            continue
        try:
            tree = ast.parse(source)
        except SyntaxError:
            tree = ast.Module(body=[], type_ignores=[])
        words = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert):
                words.add(node.msg)
            elif (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                  and isinstance(node.exc.func, ast.Name)
                  and node.exc.func.id == "AssertionError" and node.exc.args):
                words.add(node.exc.args[0])
        found[str(meta.get("grade_id", ""))] = frozenset(
            hint(f"AssertionError: {word.value}") for word in words
            if isinstance(word, ast.Constant) and isinstance(word.value, str))
    return found


def is_exception_name(name: str) -> bool:
    """Whether `name` names an exception, as a check's failure begins ('ValueError')."""
    known = getattr(builtins, name, None)
    return ((isinstance(known, type) and issubclass(known, BaseException))
            or name.endswith(("Error", "Exception", "Warning")))


def hidden_hint(message: str, own_words: Collection[str]) -> str:
    """The hint of a failed check with hidden tests: `hint`, but no word of what the
    student's code raised, printed or returned; the instructor's `own_words` (the hints of
    its assertions, `assertion_messages`) and the grader's own (a time-out) are shown."""
    first = hint(message)
    found = EXCEPTION_LINE.fullmatch(first)
    if not found or not is_exception_name(found[1]) or first in own_words:
        return first
    name, said = found[1], found[2] or ""
    if not said:
        return name
    call = STUDENT_CALL.match(said)
    if call:
        return f"{call[1]} raised {name} on an input of the hidden tests; {LATER}"
    if name == "AssertionError":
        return ("AssertionError: the check's message is shown after the due date (it is made "
                "from the values of a hidden test)")
    return f"{name} in the check; {LATER}"


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


def check_view(check: CheckOutcome, visibility: Visibility, due_passed: bool,
               hidden: bool = False, own_words: Collection[str] = ()) -> CheckView:
    """What the student sees of one graded check (`hidden`: it holds hidden tests, whose
    assertions' own words are `own_words`)."""
    if due_passed:
        return CheckView(check.grade_id, visibility, check.passed,
                         "" if check.passed else check.message, check.points, check.max_points)
    if visibility == Visibility.AFTER_DUE:
        return CheckView(check.grade_id, visibility, None, "", None, None)
    if check.passed:
        return CheckView(check.grade_id, visibility, True, "", None, None)
    if visibility == Visibility.NOW:
        message = check.message
    else:
        message = hidden_hint(check.message, own_words) if hidden else hint(check.message)
    return CheckView(check.grade_id, visibility, False, message, None, None)


def student_view(checks: Iterable[CheckOutcome], hidden: set[str],
                 configured: Mapping[str, Visibility], due: datetime | None,
                 now: datetime, own_words: Mapping[str, Collection[str]] | None = None
                 ) -> list[CheckView]:
    """Every check of a graded hand-in as its student sees it at ``now``.

    ``due`` is the student's own due date (extensions included; None: the assignment has
    none, and every check shows in full); ``own_words`` are the hidden checks' assertion
    messages (`assertion_messages`): without them, no assertion message of a hidden check
    shows before the due date."""
    due_passed = due is None or now >= due
    own_words = own_words or {}
    return [check_view(check, visibility_of(check.grade_id, check.grade_id in hidden,
                                            configured), due_passed,
                       check.grade_id in hidden, own_words.get(check.grade_id, ()))
            for check in checks]


def course_visibilities(config: Config | None) -> dict[str, Visibility]:
    """The visibilities ``c.CheckFeedback.checks`` of a course's nbgrader_config.py sets."""
    return checked_visibilities(CheckFeedback(config=config).checks)
