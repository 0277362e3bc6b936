"""The student id a notebook was given by hand, when it is not the id it was handed in under.

Off the hub a student types their id into the notebook (``STUDENT_ID = "..."``) and
the notebook makes its own model from it (gptcourse.variants, which reads the id
exactly as typed). The grader always makes the model of the id the notebook was
handed in under. A student who typed another id (``JDoe`` for ``jdoe``) saw another
model's numbers while working, so every check of their own model's values that
fails says which id they typed, and when it differs from theirs only in case.
"""

import ast
from collections.abc import Iterable

import nbformat

from ..cells import CellKind, cell_kind, nbgrader_meta, reads_student_id
from ..safe_text import shown_value

TYPED_ID_NAME = "STUDENT_ID"  # the name a notebook's id cell binds (solutions/*/*.ipynb)


def _tree(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def typed_id(sources: Iterable[str]) -> str | None:
    """The id the last top-level ``STUDENT_ID = "..."`` of these cell sources types, or None."""
    found = None
    for source in sources:
        tree = _tree(source)
        for node in tree.body if tree else []:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)
                    and any(isinstance(t, ast.Name) and t.id == TYPED_ID_NAME
                            for t in node.targets)):
                found = node.value.value
    return found


def typed_id_remark(typed: str | None, student: str) -> str | None:
    """Plain words for a typed id that is not `student`'s (None when it is, or none was typed).

    Compared as gptcourse.variants reads an id: white space around it does not count.
    """
    if typed is None or not typed.strip() or typed.strip() == student:
        return None
    shown, own = shown_value(typed.strip()), shown_value(student)
    how = (f"which differs from your id {own} only in case (upper and lower case letters make "
           "different models)" if typed.strip().casefold() == student.casefold()
           else f"not your id {own}")
    return (f"your notebook's {TYPED_ID_NAME} is {shown}, {how}: the values it showed you are "
            f"those of the model of {shown}; type {TYPED_ID_NAME} = {own}, run every cell "
            "again and hand in the values it shows")


def per_student_names(instructor: nbformat.NotebookNode) -> set[str]:
    """The names the instructor's set-up cells that read the student's id bind (my_config,
    my_model, ...): a check that reads one is a check of the student's own model."""
    names = set()
    for cell in instructor.cells:
        if (cell.cell_type == "code" and cell_kind(nbgrader_meta(cell)) == CellKind.SETUP
                and reads_student_id(cell.source)):
            tree = _tree(cell.source)
            names |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
                      and isinstance(node.ctx, ast.Store)} if tree else set()
    return names


def reads_any(source: str, names: set[str]) -> bool:
    """True when the code `source` reads one of `names`."""
    tree = _tree(source)
    return bool(tree) and any(isinstance(node, ast.Name) and node.id in names
                              for node in ast.walk(tree))
