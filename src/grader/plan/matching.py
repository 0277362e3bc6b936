"""A submission whose nbgrader metadata is gone, matched to the release by its cells' text.

Some editors drop the cell metadata they do not know: cells pasted into a fresh
Colab notebook lose it, and so do cells copied into a new notebook elsewhere.
Such a notebook is matched to the released one. A cell whose text is the text
of one released read-only cell (instructions, set-up, a check) is that cell, and
so is a code cell whose docstring is the docstring of one released check;
an answer cell is the student's cell that stands where the release has it,
between the same released code cells (its locked neighbours). A helper or a
scratch cell beside it is told apart by what the answer defines for the checks.
Where that is unambiguous, the cells get the instructor's nbgrader metadata back
and are graded as usual; where it is not (two cells there define the answer, or
the answers stand in another order), the notebook is not graded, for one reason
(Unreadable) that names the cells and the neighbours they stand between.
"""

import ast
from typing import Any

import nbformat

from ..cells import CellKind, cell_kind, docstring_of, nbgrader_meta, released_source, source_text
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
    # a check whose text changed (an edit, a line lost on the way) is still the check its
    # docstring names; build_plan then runs the instructor's and says it was modified
    by_docstring = {}
    for index, cell in enumerate(instructor.cells):
        if cell.cell_type == "code" and cell_kind(nbgrader_meta(cell)) == CellKind.TEST:
            by_docstring.setdefault(docstring_of(cell.source), []).append(index)
    by_docstring.pop(None, None)
    for position, cell in enumerate(cells):
        if position in matches or cell["cell_type"] != "code":
            continue
        found = by_docstring.get(docstring_of(source_text(cell["source"])), [])
        if len(found) == 1 and found[0] not in taken:
            matches[position] = found[0]
            taken.add(found[0])
    return matches


def _answer_matches(instructor, cells, fixed):
    """{student position: instructor index} of the answer cells; raises Unreadable if ambiguous.

    The released code cells the student's notebook holds, in the release's order
    (the longest run of them; one moved elsewhere anchors nothing), are the locked
    neighbours. Each released answer belongs between the neighbours before and after
    it, and so do the student's unmatched cells between those two: as many cells as
    answers there are the answers in order; otherwise an answer is the one cell there
    that defines what the instructor's answer defines for the cells below it.
    """
    code = {index for index, cell in enumerate(instructor.cells) if cell.cell_type == "code"}
    anchors = _in_release_order(sorted((p, i) for p, i in fixed.items() if i in code))
    position_of = {index: position for position, index in anchors}
    regions = {}  # {(neighbour before, neighbour after): [instructor indices of its answers]}
    for index, cell in enumerate(instructor.cells):
        if nbgrader_meta(cell).get("solution"):
            before = max((i for i in position_of if i < index), default=-1)
            after = min((i for i in position_of if i > index), default=len(instructor.cells))
            regions.setdefault((before, after), []).append(index)
    found = {}
    for (before, after), indices in regions.items():
        start, end = position_of.get(before, -1), position_of.get(after, len(cells))
        between = [p for p in range(start + 1, end)
                   if p not in fixed and source_text(cells[p]["source"]).strip()]
        for kind in dict.fromkeys(instructor.cells[i].cell_type for i in indices):
            answers = [i for i in indices if instructor.cells[i].cell_type == kind]
            candidates = [p for p in between if cells[p]["cell_type"] == kind]
            found.update(_region_answers(instructor, cells, answers, candidates,
                                         (before, after), position_of))
    return found


def _in_release_order(pairs):
    """The longest run of (student position, instructor index) pairs, sorted by position,
    whose instructor indices increase too."""
    best = []  # best[k]: the longest run ending at pairs[k]
    for k, (_, index) in enumerate(pairs):
        longest = max((best[j] for j in range(k) if pairs[j][1] < index), key=len, default=[])
        best.append(longest + [pairs[k]])
    return max(best, key=len, default=[])


def _region_answers(instructor, cells, answers, candidates, neighbours, position_of):
    """{student position: instructor index} of the `answers` (instructor indices) of one
    region among the student's `candidates` there; raises Unreadable where that is ambiguous."""
    if not candidates:
        return {}
    if len(candidates) == len(answers):
        return dict(zip(candidates, answers))  # as many cells as answers: in order
    found, defined = {}, {p: _defined_names(source_text(cells[p]["source"])) for p in candidates}
    for index in answers:
        names = _answer_names(instructor, index)
        defining = [p for p in candidates if names & defined[p]]
        if len(defining) > 1:
            label = nbgrader_meta(instructor.cells[index]).get("grade_id")
            shown = ", ".join(str(p + 1) for p in defining)
            raise Unreadable(_not_graded(
                f"cells {shown} could each be the answer '{label}': each defines "
                f"{', '.join(sorted(names & defined[defining[0]]))} "
                f"{_between(instructor, neighbours, position_of)}"))
        if defining and defining[0] not in found:
            found[defining[0]] = index
    if list(found) != sorted(found):  # answers found out of the release's order
        shown = ", ".join(str(p + 1) for p in sorted(found))
        raise Unreadable(_not_graded(f"its answers in cells {shown} are not in the released "
                                     f"order {_between(instructor, neighbours, position_of)}"))
    return found  # an answer no cell defines is left unfound: every cell there runs in place


def _between(instructor, neighbours, position_of):
    """Where a region stands, in words: between which released cells (their student numbers)."""
    words = []
    for index in neighbours:
        if index in position_of:
            label = nbgrader_meta(instructor.cells[index]).get("grade_id")
            words.append(f"the released cell '{label}' (cell {position_of[index] + 1})")
    if not words:
        return "anywhere in the notebook, since none of the released code cells is in it"
    return "between " + " and ".join(words) if len(words) == 2 else (
        ("below " if neighbours[0] in position_of else "above ") + words[0])


def _answer_names(instructor, index):
    """What the instructor's answer at `index` defines that the cells below it read (all it
    defines when they read none of it)."""
    defined = _defined_names(instructor.cells[index].source)
    read = set()
    for cell in instructor.cells[index + 1:]:
        if cell.cell_type == "code":
            tree = _parsed(released_source(cell.source))
            read |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} if tree else set()
    return (defined & read) or defined


def _text_key(kind, text):
    return kind, "\n".join(line.rstrip() for line in text.strip().splitlines())


def _parsed(source):
    """The module a cell's code parses to (its magics and shell escapes read as `pass`), or None."""
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        lines.append(line[: len(line) - len(stripped)] + "pass"
                     if stripped.startswith(("%", "!")) else line)
    try:
        return ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return None


def _defined_names(source):
    """The names a cell's code defines for the cells after it: functions, classes, imports and
    variables bound at its top level, inside its with, if, for and try blocks too (never a
    function's own variables, nor a comprehension's)."""
    tree = _parsed(source)
    names, statements = set(), list(tree.body) if tree else []
    while statements:
        node = statements.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                statements.append(child)
            elif not isinstance(child, (ast.expr_context,)):
                names |= {n.id for n in _own_scope(child) if isinstance(n, ast.Name)
                          and isinstance(n.ctx, ast.Store)}
    return names


def _own_scope(node):
    """The nodes under an expression (or a with/except item) outside any nested scope."""
    nested = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
              ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    pending = [node]
    while pending:
        current = pending.pop()
        if not isinstance(current, nested):
            yield current
            pending.extend(ast.iter_child_nodes(current))
