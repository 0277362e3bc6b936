"""The plan: the notebook that is actually run, in the student's order with the instructor's cells.

What runs is the student's notebook in the student's order, with every
instructor cell (set-up, checks, read-only cells) taken from ``solutions/``,
matched by nbgrader ``grade_id``: edited, deleted, moved or markdown-ified test
cells, edited points or ids and garbled metadata therefore change nothing; they
are only reported. Cells the student added run where they stand, up to the
limits below.
"""

from dataclasses import dataclass, field
from typing import Any

import nbformat

from ..cells import CellKind, cell_kind, nbgrader_meta, released_source, source_text
from ..safe_text import shown_value
from .submission import NOTES_KEY, normalised_cells

MAX_EXTRA_CELLS = 100  # code cells a student added that are run, in the whole notebook
MAX_RUN_CELL_CHARS = 200_000  # characters of a code cell the grader runs; a longer one is not run
MAX_MARKDOWN_CHARS = 20_000  # characters of a student's text cell kept in the graded notebook


@dataclass
class PlanCell:
    """One cell of the notebook as it will be run and written back."""

    kind: CellKind
    source: str
    grade_id: str | None = None
    points: float = 0.0
    instructor_index: int | None = None
    student_position: int | None = None  # where an added cell stands in the submission


@dataclass
class Plan:
    """The cells to run and write back, in order, and plain-words remarks for the report."""

    cells: list[PlanCell]
    notes: list[str] = field(default_factory=list)


def _normalised(source):
    return [line.rstrip() for line in source.strip().splitlines()]


def build_plan(instructor: nbformat.NotebookNode, submission: dict[str, Any] | None) -> Plan:
    """The cells to run, in the student's order, with the instructor's own cells put back.

    `instructor` is an nbformat NotebookNode of the solutions notebook,
    `submission` the dict from read_submission (or None: no answers at all).
    Every code cell the student wrote runs where the student put it: answer
    cells (matched by nbgrader grade_id) and cells the student added,
    anywhere. The instructor's cells (set-up, checks, read-only cells) always
    run from solutions/, in the instructor's order: a student cell runs after
    the instructor code cell it follows in the student's notebook. The
    instructor's markdown cells anchor nothing: moved, added or deleted, they
    change nothing about the run. Tampering with
    instructor cells changes nothing and is reported in the notes, and so is
    every student cell that does not run.
    """
    if submission is not None and NOTES_KEY not in submission:  # not from read_submission
        submission = dict(submission)
        cells = submission.get("cells")
        submission["cells"], submission[NOTES_KEY] = normalised_cells(
            cells if isinstance(cells, list) else [])
    notes = list(submission[NOTES_KEY]) if submission else []
    student_cells = submission["cells"] if submission else []
    by_id = _first_by_grade_id(student_cells, notes)
    layout = _InstructorLayout(instructor)
    placed, answered = _place_student_cells(instructor, student_cells, layout, by_id, notes)
    plan = _merged(instructor, layout, placed, answered, by_id, submission is not None, notes)
    if submission is not None:
        notes.extend(_compare_kernelspec(instructor, submission))
    return Plan(plan, notes)


def _first_by_grade_id(student_cells, notes):
    """{grade_id: (position, cell)} of the first student cell with each grade_id."""
    by_id, seen_ids = {}, {}
    for position, cell in enumerate(student_cells):
        grade_id = nbgrader_meta(cell).get("grade_id")
        if isinstance(grade_id, str) and grade_id:
            seen_ids[grade_id] = seen_ids.get(grade_id, 0) + 1
            by_id.setdefault(grade_id, (position, cell))
    for grade_id, count in seen_ids.items():
        if count > 1:
            notes.append(f"cell '{grade_id}' appears {count} times; the first one is "
                         "the answer or check")
    return by_id


def _place_student_cells(instructor, student_cells, layout, by_id, notes):
    """({instructor index of the anchor: the student's PlanCells that follow it}, the
    instructor answer cells answered). -1 is the anchor of cells above every instructor cell."""
    present = {layout.match(cell, set()) for cell in student_cells} - {None}
    placed = {-1: []}
    answered, anchor, added = set(), -1, 0
    for position, cell in enumerate(student_cells):
        index = layout.match(cell, answered)
        if index is not None and layout.kinds[index] == CellKind.MARKDOWN:
            continue  # the instructor's text: shown in its place, never where code runs
        if index is not None and layout.kinds[index] != CellKind.SOLUTION:
            # a check moved above the answers before it is not where the student works
            ahead = layout.kinds[index] == CellKind.TEST and any(
                layout.kinds[s] == CellKind.SOLUTION and s not in answered
                for s in present if s < index)
            if index > anchor and not ahead:
                anchor = index
            elif by_id.get(layout.grade_ids[index], (position,))[0] == position:
                notes.append(f"cell '{layout.label(index)}' was moved; the instructor's order "
                             "was used for it")
            continue
        if index is not None:  # the student's answer to an instructor answer cell
            answered.add(index)
            placed.setdefault(anchor, []).append(
                _answer_cell(instructor.cells[index], cell, layout, index, notes))
            continue
        extra, why = _student_cell(cell, position, added)
        if extra is None:
            if why:
                notes.append(why)
            continue
        if extra.kind == CellKind.EXTRA:
            added += 1
        placed.setdefault(anchor, []).append(extra)
    return placed, answered


def _merged(instructor, layout, placed, answered, by_id, submitted, notes):
    """The instructor's cells in order, each code cell followed by the student cells placed
    after it (shown below the instructor's text that follows that code cell)."""
    plan, waiting = [], list(placed[-1])
    for index, cell in enumerate(instructor.cells):
        meta = nbgrader_meta(cell)
        kind = layout.kinds[index]
        if kind != CellKind.MARKDOWN:
            plan.extend(waiting)
            waiting = []
        points = float(meta.get("points", 0) or 0) if meta.get("grade") else 0.0
        if kind == CellKind.SOLUTION:
            if index not in answered:
                if submitted:
                    notes.append(f"answer cell '{layout.label(index)}' not found (deleted, or "
                                 "its id was changed); its checks ran on what the other cells "
                                 "define")
                code = cell.cell_type == "code"
                plan.append(PlanCell(CellKind.SOLUTION if code else CellKind.MARKDOWN,
                                     "" if code else cell.source, layout.grade_ids[index],
                                     points, index))
            continue
        if cell.cell_type != "code":
            text = CellKind.MARKDOWN if cell.cell_type == "markdown" else CellKind.RAW
            plan.append(PlanCell(text, cell.source, layout.grade_ids[index],
                                 instructor_index=index))
        else:
            plan.append(PlanCell(kind, cell.source, layout.grade_ids[index], points, index))
            if submitted and kind == CellKind.TEST:
                notes.extend(_compare_test_cell(layout.grade_ids[index], cell, by_id, points))
        waiting.extend(placed.get(index, []))
    return plan + waiting


class _InstructorLayout:
    """Which instructor cell a student's cell is, by grade_id, cell id or identical source."""

    def __init__(self, instructor):
        self.kinds, self.grade_ids, self.by_grade_id, self.by_cell_id, self.by_source = \
            [], [], {}, {}, {}
        for index, cell in enumerate(instructor.cells):
            meta = nbgrader_meta(cell)
            grade_id = meta.get("grade_id")
            self.grade_ids.append(grade_id)
            self.kinds.append(cell_kind(meta) if cell.cell_type == "code" or meta.get("solution")
                              else CellKind.MARKDOWN)
            if grade_id:
                self.by_grade_id.setdefault(grade_id, index)
            if self.kinds[index] == CellKind.SOLUTION and getattr(cell, "id", None):
                self.by_cell_id.setdefault(cell.id, index)
            if not meta and cell.cell_type == "code" and cell.source.strip():
                self.by_source.setdefault(_key(cell.source), index)

    def label(self, index):
        return self.grade_ids[index] or f"cell {index + 1}"

    def match(self, cell, answered):
        """The instructor index `cell` stands for, or None for a cell the student added."""
        grade_id = nbgrader_meta(cell).get("grade_id")
        index = self.by_grade_id.get(grade_id) if isinstance(grade_id, str) else None
        if index is not None:
            if self.kinds[index] == CellKind.SOLUTION and index in answered:
                return None  # a second copy of an answer cell: the student's own code
            return index
        cell_id = cell.get("id")
        index = self.by_cell_id.get(cell_id) if isinstance(cell_id, str) else None
        if index is not None and index not in answered and not grade_id:
            cell["grader:found_by_cell_id"] = True
            return index
        if cell.get("cell_type") == "code" and not grade_id:
            return self.by_source.get(_key(source_text(cell.get("source"))))
        return None


def _answer_cell(instructor_cell, cell, layout, index, notes):
    grade_id = layout.grade_ids[index]
    meta = nbgrader_meta(instructor_cell)
    points = float(meta.get("points", 0) or 0) if meta.get("grade") else 0.0
    source = source_text(cell.get("source"))
    if cell.pop("grader:found_by_cell_id", False):
        notes.append(f"answer cell '{grade_id}' was found by its cell id (its grade_id was changed)")
    if instructor_cell.cell_type != "code":  # a written answer: kept for the person who grades
        return PlanCell(CellKind.MARKDOWN, _capped_text(source, grade_id, notes), grade_id, points,
                        index)
    if cell.get("cell_type") != "code":
        notes.append(f"answer cell '{grade_id}' was turned into {cell.get('cell_type')}; "
                     "its text was run as code")
    if len(source) > MAX_RUN_CELL_CHARS:
        notes.append(f"answer cell '{grade_id}' too large ({len(source):,} characters; at most "
                     f"{MAX_RUN_CELL_CHARS:,}); it was not run and earns nothing")
        source = ""
    return PlanCell(CellKind.SOLUTION, source, grade_id, points, index)


def _student_cell(cell, position, added):
    """(PlanCell or None, why it is not run) for a cell the student added."""
    kind = cell.get("cell_type")
    source = source_text(cell.get("source"))
    where = f"cell {position + 1} (added by the student)"
    if kind == "markdown":
        return PlanCell(CellKind.MARKDOWN, _capped_text(source, where, [])), ""
    if kind != "code":
        return None, ""
    if not source.strip():
        return None, ""
    if len(source) > MAX_RUN_CELL_CHARS:
        return None, (f"{where} too large ({len(source):,} characters; at most "
                      f"{MAX_RUN_CELL_CHARS:,}); it was not run")
    if added >= MAX_EXTRA_CELLS:
        return None, f"{where} was not run (at most {MAX_EXTRA_CELLS} added code cells run)"
    return PlanCell(CellKind.EXTRA, source, student_position=position), ""


def _capped_text(source, where, notes):
    if len(source) <= MAX_MARKDOWN_CHARS:
        return source
    notes.append(f"{where}: text cut to {MAX_MARKDOWN_CHARS:,} characters")
    return source[:MAX_MARKDOWN_CHARS] + "\n\n[... cut]"


def _key(source):
    return "\n".join(_normalised(source))


def _compare_test_cell(grade_id, cell, by_id, points):
    found = by_id.get(grade_id)
    if found is None:
        return [f"test cell '{grade_id}' was deleted (or its id changed) and restored"]
    _, student_cell = found
    notes = []
    if student_cell.get("cell_type") != "code":
        notes.append(f"test cell '{grade_id}' was turned into {student_cell.get('cell_type')} "
                     "and restored")
    elif _normalised(source_text(student_cell.get("source"))) != _normalised(
            released_source(cell.source)):
        notes.append(f"test cell '{grade_id}' was modified and restored")
    student_points = nbgrader_meta(student_cell).get("points")
    if student_points is not None and _as_float(student_points) != points:
        notes.append(f"points of '{grade_id}' were changed to {shown_value(student_points)}; "
                     f"the instructor's {points:g} apply")
    schema = nbgrader_meta(student_cell).get("schema_version")
    if schema is not None and schema != cell.metadata.get("nbgrader", {}).get("schema_version"):
        notes.append(f"nbgrader metadata of '{grade_id}' has schema version {shown_value(schema)}; "
                     "ignored")
    return notes


def _compare_kernelspec(instructor, submission):
    theirs = submission.get("metadata", {}) if isinstance(submission.get("metadata"), dict) else {}
    spec = theirs.get("kernelspec")
    ours = instructor.metadata.get("kernelspec", {})
    if isinstance(spec, dict) and ours and spec.get("name") != ours.get("name"):
        return [f"kernelspec was changed to {shown_value(spec.get('name'))}; "
                "graded with the course's Python"]
    return []


def _as_float(value):
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None
