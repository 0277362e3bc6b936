"""Reading one notebook cell: its source, its nbgrader metadata, its role and its docstring,
and whether it reads the student's id.

These read cells of any origin (the instructor's notebooks, a submission after
plan.submission has normalised it, an autograded notebook for feedback) and
never change them.
"""

import ast
import re
from enum import StrEnum
from typing import Any

HIDDEN_BLOCK = re.compile(r"^[ \t]*#+[ \t]*BEGIN HIDDEN TESTS.*?^[ \t]*#+[ \t]*END HIDDEN TESTS[^\n]*\n?",
                          re.MULTILINE | re.DOTALL)


class CellKind(StrEnum):
    """The role of a cell in the plan: an instructor code cell's role from its nbgrader
    metadata (setup, solution, test), a cell the student added (extra), or text."""

    SETUP = "setup"
    SOLUTION = "solution"
    TEST = "test"
    EXTRA = "extra"  # a code cell the student added
    MARKDOWN = "markdown"
    RAW = "raw"


def source_text(value: object) -> str:
    """A cell's source as one string, whatever shape the JSON had."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return "".join(value)
    return ""


def nbgrader_meta(cell: dict[str, Any]) -> dict[str, Any]:
    """The cell's nbgrader metadata as a dict, or {} if absent or garbled."""
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return meta if isinstance(meta, dict) else {}


def cell_kind(meta: dict[str, Any]) -> CellKind:
    """The role of an instructor code cell from its nbgrader metadata: solution, test or setup."""
    if meta.get("solution"):
        return CellKind.SOLUTION
    if meta.get("grade"):
        return CellKind.TEST
    return CellKind.SETUP


def released_source(source: str) -> str:
    """An instructor test cell's source as students received it (hidden tests removed)."""
    return HIDDEN_BLOCK.sub("", source)


def docstring_of(source: str) -> str | None:
    """The first string literal of a cell (its docstring), or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        match = re.match(r'\s*(?:"""|\'\'\')(.*?)(?:"""|\'\'\')', source, re.DOTALL)
        return match.group(1).strip() if match else None
    doc = ast.get_docstring(tree)
    return doc.strip() if doc else None


# While a notebook is graded, this environment variable holds the submission's student id,
# as JupyterHub sets it to the user's name in the student's own server.
STUDENT_ID_VARIABLE = "JUPYTERHUB_USER"


def reads_student_id(source: str) -> bool:
    """True for a set-up cell that depends on whose notebook it is (it names STUDENT_ID_VARIABLE).

    Such a cell runs for each student, never once for everyone: in each student's
    kernel, and in the checks' set-up with that student's id.
    """
    return STUDENT_ID_VARIABLE in source
