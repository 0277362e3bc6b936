"""A submission whose nbgrader metadata is gone, matched to the release by its cells' text.

Some editors drop the cell metadata they do not know: cells pasted into a fresh
Colab notebook lose it, and so do cells copied into a new notebook elsewhere.
Such a notebook is matched to the released one. A cell whose text is the text
of one released read-only cell (instructions, set-up, a check) is that cell;
an answer cell is the student's code cell that stands where the release has
it, below the released code cell before it. Where that is unambiguous, the
cells get the instructor's nbgrader metadata back and are graded as usual;
where it is not, the notebook is not graded, for one reason (Unreadable).
"""

import ast
from typing import Any

import nbformat

from ..cells import nbgrader_meta, released_source, source_text
from .submission import NOTES_KEY, Unreadable

METADATA_MATCHED = ("its nbgrader metadata was missing (an editor such as Colab drops it); "
                    "its cells were matched to the released notebook by their text")


def with_metadata_restored(instructor: nbformat.NotebookNode, submission: dict[str, Any]
                           ) -> dict[str, Any]:
    """`submission` (from parse_submission) with lost nbgrader metadata put back by matching.

    `instructor` is the solutions notebook (an nbformat NotebookNode). A
    submission that still has nbgrader metadata in any cell comes back as it
    is. Raises Unreadable, with the one reason, when the cells cannot be
    matched to the release unambiguously.
    """
    cells = submission["cells"]
    if not cells or any(nbgrader_meta(cell) for cell in cells) or not any(
            nbgrader_meta(cell).get("grade_id") for cell in instructor.cells):
        return submission
    fixed = _read_only_matches(instructor, cells)
    if not fixed:
        raise Unreadable(_not_graded("none of its cells is a cell of the released notebook"))
    matches = {**fixed, **_answer_matches(instructor, cells, fixed)}
    restored = list(cells)
    for position, index in matches.items():
        metadata = dict(cells[position]["metadata"])
        metadata["nbgrader"] = dict(instructor.cells[index].metadata["nbgrader"])
        restored[position] = {**cells[position], "metadata": metadata}
    return {**submission, "cells": restored,
            NOTES_KEY: list(submission.get(NOTES_KEY, [])) + [METADATA_MATCHED]}


def _not_graded(why):
    return ("not graded: its nbgrader metadata is gone (an editor such as Colab drops it) and "
            f"{why}; paste your answers into the answer cells of the released notebook and "
            "hand that in")


def _read_only_matches(instructor, cells):
    """{student position: instructor index} of the cells that are one released read-only cell."""
    by_text = {}
    for index, cell in enumerate(instructor.cells):
        meta = nbgrader_meta(cell)
        if meta.get("grade_id") and not meta.get("solution"):
            by_text.setdefault(_text_key(cell.cell_type, released_source(cell.source)),
                               []).append(index)
    matches, taken = {}, set()
    for position, cell in enumerate(cells):
        found = by_text.get(_text_key(cell["cell_type"], source_text(cell["source"])), [])
        if len(found) == 1 and found[0] not in taken:
            matches[position] = found[0]
            taken.add(found[0])
    return matches


def _answer_matches(instructor, cells, fixed):
    """{student position: instructor index} of the answer cells; raises Unreadable if ambiguous.

    Each of the student's unmatched cells stands below the last matched released
    code cell above it; each released answer belongs below the last matched
    released code cell before it. The cells below one released code cell are its
    answers in order when they are as many; otherwise an answer is the one cell
    there that binds a name the instructor's answer binds.
    """
    code = {index for index, cell in enumerate(instructor.cells) if cell.cell_type == "code"}
    below, anchor = {}, -1  # {anchor: [student positions of the unmatched cells below it]}
    for position, cell in enumerate(cells):
        if position in fixed:
            if fixed[position] in code:
                anchor = fixed[position]
            continue
        if source_text(cell["source"]).strip():
            below.setdefault(anchor, []).append(position)
    answers, anchor = {}, -1  # {anchor: [instructor indices of the answers below it]}
    matched = set(fixed.values())
    for index, cell in enumerate(instructor.cells):
        if nbgrader_meta(cell).get("solution"):
            answers.setdefault(anchor, []).append(index)
        elif index in code and index in matched:
            anchor = index
    found = {}
    for anchor, indices in answers.items():
        for index in indices:
            kind = instructor.cells[index].cell_type
            candidates = [p for p in below.get(anchor, []) if cells[p]["cell_type"] == kind
                          and p not in found]
            same_kind = [i for i in indices if instructor.cells[i].cell_type == kind]
            if len(candidates) == len(same_kind) - same_kind.index(index):
                found[candidates[0]] = index  # as many cells as answers left: in order
                continue
            names = _bound_names(instructor.cells[index].source)
            binding = [p for p in candidates if names & _bound_names(source_text(cells[p]["source"]))]
            if len(binding) == 1:
                found[binding[0]] = index
            elif candidates:
                label = nbgrader_meta(instructor.cells[index]).get("grade_id")
                shown = ", ".join(str(p + 1) for p in (binding or candidates))
                raise Unreadable(_not_graded(f"cells {shown} could each be the answer "
                                             f"'{label}'"))
    return found


def _text_key(kind, text):
    return kind, "\n".join(line.rstrip() for line in text.strip().splitlines())


def _bound_names(source):
    """The names a cell's code binds (its magics and shell escapes read as `pass`)."""
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        lines.append(line[: len(line) - len(stripped)] + "pass"
                     if stripped.startswith(("%", "!")) else line)
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names
