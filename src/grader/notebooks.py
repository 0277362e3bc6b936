"""Reading submissions defensively and building the notebook that is actually run.

A submitted file is only ever read, never changed. What runs is the student's
notebook in the student's order, with every instructor cell (set-up, checks,
read-only cells) taken from ``solutions/``, matched by nbgrader ``grade_id``:
edited, deleted, moved or markdown-ified test cells, edited points or ids and
garbled metadata therefore change nothing; they are only reported. Cells the
student added run where they stand, up to the limits below.
"""

import ast
import json
import os
import re
import stat
from dataclasses import dataclass, field

import nbformat

MAX_NOTEBOOK_BYTES = 64 << 20  # larger files are not parsed at all
MAX_COPIED_FILE_BYTES = 16 << 20  # the student's other files copied into the sandbox
MAX_COPIED_TOTAL_BYTES = 64 << 20
MAX_COPIED_FILES = 200  # each is one open file handed to the sandbox
MAX_EXTRA_CELLS = 100  # code cells a student added that are run, in the whole notebook
MAX_CELL_CHARS = 200_000  # characters of one code cell the grader runs
MAX_MARKDOWN_CHARS = 20_000  # characters of a student's text cell kept in the graded notebook
HIDDEN_BLOCK = re.compile(r"^[ \t]*#+[ \t]*BEGIN HIDDEN TESTS.*?^[ \t]*#+[ \t]*END HIDDEN TESTS[^\n]*\n?",
                          re.MULTILINE | re.DOTALL)


@dataclass
class PlanCell:
    """One cell of the notebook as it will be run and written back."""

    kind: str  # markdown | raw | setup | solution | test | extra (a cell the student added)
    source: str
    grade_id: str | None = None
    points: float = 0.0
    instructor_index: int | None = None
    student_position: int | None = None  # where an added cell stands in the submission


@dataclass
class Plan:
    cells: list
    notes: list = field(default_factory=list)  # plain-words remarks for the report


class Unreadable(Exception):
    """The submitted file is not a notebook we can take answers from."""


def source_text(value):
    """A cell's source as one string, whatever shape the JSON had."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return "".join(value)
    return ""


def nbgrader_meta(cell):
    """The cell's nbgrader metadata as a dict, or {} if absent or garbled."""
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    return meta if isinstance(meta, dict) else {}


def cell_kind(meta):
    """markdown-independent role of an instructor cell from its nbgrader metadata."""
    if meta.get("solution"):
        return "solution"
    if meta.get("grade"):
        return "test"
    return "setup"


def read_submission(path):
    """The submitted notebook as a JSON dict with a list of cells; raises Unreadable.

    The file is opened without following symbolic links and never written.
    """
    return parse_submission(read_submission_bytes(path))


def read_submission_bytes(path):
    """The submitted notebook's bytes, after the checks on the file itself; raises Unreadable.

    (FileNotFoundError when there is none.) The grader reads each submission
    with this on the instructor's machine and sends the bytes to the worker
    that grades it, which parses them with parse_submission.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise
    if stat.S_ISLNK(info.st_mode):
        raise Unreadable("notebook could not be read: it is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise Unreadable("notebook could not be read: not a regular file")
    if info.st_size > MAX_NOTEBOOK_BYTES:
        raise Unreadable(too_large(info.st_size))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:  # it grew after the check above
        raise Unreadable(too_large(len(data)))
    return data


def too_large(size):
    return (f"notebook too large ({size / 2**20:.0f} MiB; at most "
            f"{MAX_NOTEBOOK_BYTES >> 20} MiB): not graded")


def parse_submission(data):
    """The submitted notebook's bytes (from read_submission_bytes) as read_submission gives them.

    Raises Unreadable, with the same messages as read_submission.
    """
    if not data.strip():
        raise Unreadable("notebook could not be read: empty file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Unreadable("notebook could not be read: not UTF-8 text") from None
    stripped = text.lstrip()
    if stripped[:1] == "<" or stripped[:200].lower().startswith(("<!doctype html", "<html")):
        raise Unreadable("notebook could not be read: HTML, not a notebook "
                         "(it was saved or downloaded as a web page)")
    try:
        nb = json.loads(text)
    except RecursionError:
        raise Unreadable("notebook could not be read: nested too deeply") from None
    except ValueError as error:
        position = getattr(error, "pos", 0)
        if position >= len(text.rstrip()) - 1:
            raise Unreadable("notebook could not be read: truncated (the file ends early)") from None
        raise Unreadable("notebook could not be read: not JSON "
                         f"({getattr(error, 'msg', error)} at line {getattr(error, 'lineno', '?')})") from None
    if not isinstance(nb, dict):
        raise Unreadable("notebook could not be read: not a notebook (no cells)")
    major = nb.get("nbformat")
    if isinstance(major, int) and major < 4 and "worksheets" in nb:
        try:
            nb = json.loads(nbformat.writes(nbformat.reads(text, as_version=4)))
        except Exception as error:  # noqa: BLE001 (any failure of the old-format reader)
            raise Unreadable(f"notebook could not be read: old nbformat {major} "
                             f"that could not be converted ({error})") from None
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise Unreadable("notebook could not be read: not a notebook (no cells)")
    nb["cells"], nb[NOTES_KEY] = normalised_cells(cells)
    return nb


NOTES_KEY = "grader:notes"  # where read_submission leaves its remarks for build_plan


def clean_text(text):
    """`text` that can always be written as UTF-8: lone surrogates become \\udXXX escapes."""
    if not isinstance(text, str):
        text = str(text)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def student_id_problem(student):
    """Why a student id cannot be recorded or shown safely, or None."""
    if CONTROL.search(student) or "\n" in student or "\t" in student:
        return "holds control characters"
    if student.startswith("-"):
        return "starts with '-' (it would be read as an option)"
    if student.strip() != student or not student.strip():
        return "starts or ends with white space"
    return None


def shown_id(student):
    """A student id for a report line: one with control characters written with escapes."""
    return repr(student) if CONTROL.search(student) or "\n" in student or "\t" in student \
        else student


def without_controls(text):
    """`text` with control characters (other than newline and tab) removed."""
    return CONTROL.sub("", clean_text(text))


def clean_name(name):
    """A file name from os.listdir (bytes or surrogate-escaped str) as printable UTF-8 text."""
    return clean_text(os.fsdecode(name))


def normalised_cells(cells):
    """(cells, notes): every cell a dict with a text cell_type, source and dict metadata.

    Whatever a submission's JSON holds in place of a cell, its metadata, its
    nbgrader metadata, grade_id, id or source, the result has the shapes the
    rest of the grader reads, and each repair is described in `notes`.
    Sources are made writable as UTF-8 (a lone surrogate is escaped).
    """
    clean, notes = [], []
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            notes.append(f"cell {number} is not a notebook cell ({type(cell).__name__}); ignored")
            continue
        cell = dict(cell)
        kind = cell.get("cell_type")
        if not isinstance(kind, str):
            notes.append(f"cell {number} has no readable cell type; it was treated as markdown")
            kind = "markdown"
        cell["cell_type"] = kind
        if "id" in cell and not isinstance(cell["id"], str):
            cell.pop("id")
        metadata = cell.get("metadata", {})
        if not isinstance(metadata, dict):
            notes.append(f"cell {number} had unreadable metadata; it was ignored")
            metadata = {}
        metadata = dict(metadata)
        if "nbgrader" in metadata:
            meta = metadata["nbgrader"]
            if not isinstance(meta, dict):
                notes.append(f"cell {number} had unreadable nbgrader metadata; it was ignored")
                metadata.pop("nbgrader")
            else:
                meta = dict(meta)
                if "grade_id" in meta and not (isinstance(meta["grade_id"], str)
                                               and meta["grade_id"]):
                    notes.append(f"cell {number} had an unreadable grade_id "
                                 f"({_shown(meta['grade_id'])}); it was ignored")
                    meta.pop("grade_id")
                metadata["nbgrader"] = meta
        cell["metadata"] = metadata
        source = cell.get("source", "")
        text = source_text(source)
        if text == "" and source not in ("", [], None):
            notes.append(f"cell {number}'s source is not text; it was treated as empty")
        cell["source"] = clean_text(text)
        clean.append(cell)
    return clean, notes


def _shown(value, limit=60):
    text = clean_text(repr(value))
    return text if len(text) <= limit else text[:limit] + "..."


def released_source(source):
    """An instructor test cell's source as students received it (hidden tests removed)."""
    return HIDDEN_BLOCK.sub("", source)


def _normalised(source):
    return [line.rstrip() for line in source.strip().splitlines()]


def build_plan(instructor, submission):
    """The cells to run, in the student's order, with the instructor's own cells put back.

    `instructor` is an nbformat NotebookNode of the solutions notebook,
    `submission` the dict from read_submission (or None: no answers at all).
    Every code cell the student wrote runs where the student put it: answer
    cells (matched by nbgrader grade_id) and cells the student added,
    anywhere. The instructor's cells (set-up, checks, read-only cells) always
    run from solutions/, in the instructor's order: a student cell runs after
    the instructor cell it follows in the student's notebook. Tampering with
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
        if index is not None and layout.kinds[index] != "solution":
            # a check moved above the answers before it is not where the student works
            ahead = layout.kinds[index] == "test" and any(
                layout.kinds[s] == "solution" and s not in answered for s in present if s < index)
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
        if extra.kind == "extra":
            added += 1
        placed.setdefault(anchor, []).append(extra)
    return placed, answered


def _merged(instructor, layout, placed, answered, by_id, submitted, notes):
    """The instructor's cells in order, each followed by the student cells placed after it."""
    plan = list(placed[-1])
    for index, cell in enumerate(instructor.cells):
        meta = nbgrader_meta(cell)
        kind = layout.kinds[index]
        points = float(meta.get("points", 0) or 0) if meta.get("grade") else 0.0
        if kind == "solution":
            if index not in answered:
                if submitted:
                    notes.append(f"answer cell '{layout.label(index)}' not found (deleted, or "
                                 "its id was changed); it earns nothing")
                source = "" if cell.cell_type == "code" else cell.source
                plan.append(PlanCell("solution" if cell.cell_type == "code" else "markdown",
                                     source, layout.grade_ids[index], points, index))
            continue
        if cell.cell_type != "code":
            plan.append(PlanCell("markdown" if cell.cell_type == "markdown" else "raw",
                                 cell.source, layout.grade_ids[index], instructor_index=index))
        else:
            plan.append(PlanCell(kind, cell.source, layout.grade_ids[index], points, index))
            if submitted and kind == "test":
                notes.extend(_compare_test_cell(layout.grade_ids[index], cell, by_id, points))
        plan.extend(placed.get(index, []))
    return plan


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
                              else "markdown")
            if grade_id:
                self.by_grade_id.setdefault(grade_id, index)
            if self.kinds[index] == "solution" and getattr(cell, "id", None):
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
            if self.kinds[index] == "solution" and index in answered:
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
        return PlanCell("markdown", _capped_text(source, grade_id, notes), grade_id, points, index)
    if cell.get("cell_type") != "code":
        notes.append(f"answer cell '{grade_id}' was turned into {cell.get('cell_type')}; "
                     "its text was run as code")
    if len(source) > MAX_CELL_CHARS:
        notes.append(f"answer cell '{grade_id}' too large ({len(source):,} characters; at most "
                     f"{MAX_CELL_CHARS:,}); it was not run and earns nothing")
        source = ""
    return PlanCell("solution", source, grade_id, points, index)


def _student_cell(cell, position, added):
    """(PlanCell or None, why it is not run) for a cell the student added."""
    kind = cell.get("cell_type")
    source = source_text(cell.get("source"))
    where = f"cell {position + 1} (added by the student)"
    if kind == "markdown":
        return PlanCell("markdown", _capped_text(source, where, [])), ""
    if kind != "code":
        return None, ""
    if not source.strip():
        return None, ""
    if len(source) > MAX_CELL_CHARS:
        return None, (f"{where} too large ({len(source):,} characters; at most "
                      f"{MAX_CELL_CHARS:,}); it was not run")
    if added >= MAX_EXTRA_CELLS:
        return None, f"{where} was not run (at most {MAX_EXTRA_CELLS} added code cells run)"
    return PlanCell("extra", source, student_position=position), ""


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
        notes.append(f"points of '{grade_id}' were changed to {_shown(student_points)}; "
                     f"the instructor's {points:g} apply")
    schema = nbgrader_meta(student_cell).get("schema_version")
    if schema is not None and schema != cell.metadata.get("nbgrader", {}).get("schema_version"):
        notes.append(f"nbgrader metadata of '{grade_id}' has schema version {_shown(schema)}; "
                     "ignored")
    return notes


def _compare_kernelspec(instructor, submission):
    theirs = submission.get("metadata", {}) if isinstance(submission.get("metadata"), dict) else {}
    spec = theirs.get("kernelspec")
    ours = instructor.metadata.get("kernelspec", {})
    if isinstance(spec, dict) and ours and spec.get("name") != ours.get("name"):
        return [f"kernelspec was changed to {_shown(spec.get('name'))}; "
                "graded with the course's Python"]
    return []


def _as_float(value):
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def docstring_of(source):
    """The first string literal of a cell (its docstring), or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        match = re.match(r'\s*(?:"""|\'\'\')(.*?)(?:"""|\'\'\')', source, re.DOTALL)
        return match.group(1).strip() if match else None
    doc = ast.get_docstring(tree)
    return doc.strip() if doc else None


def student_extra_files(folder, expected_notebooks):
    """(regular files to copy into the sandbox, notes) from a student's submitted folder.

    Symbolic links are never followed: one pointing at instructor files would
    otherwise be copied into the sandbox by the grader itself. File names that
    are not valid UTF-8 are kept as they are for copying and escaped in notes.
    """
    files, notes, total = [], [], 0
    if not os.path.isdir(folder) or os.path.islink(folder):
        return files, notes
    for directory, subdirs, names in os.walk(folder, followlinks=False):
        for name in sorted(subdirs):
            if os.path.islink(os.path.join(directory, name)):
                relative = os.path.relpath(os.path.join(directory, name), folder)
                notes.append(f"symbolic link '{clean_name(relative)}' was ignored")
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".")
                            and not os.path.islink(os.path.join(directory, d)))
        for name in sorted(names):
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, folder)
            shown = clean_name(relative)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                notes.append(f"symbolic link '{shown}' was ignored")
                continue
            if not stat.S_ISREG(info.st_mode) or name == "timestamp.txt":
                continue
            if name.endswith(".ipynb"):
                if relative not in expected_notebooks:
                    notes.append(f"extra notebook '{shown}' was not graded")
                continue
            if (len(files) >= MAX_COPIED_FILES or info.st_size > MAX_COPIED_FILE_BYTES
                    or total + info.st_size > MAX_COPIED_TOTAL_BYTES):
                notes.append(f"file '{shown}' was not copied for grading (at most "
                             f"{MAX_COPIED_FILES} files, {MAX_COPIED_FILE_BYTES >> 20} MiB each, "
                             f"{MAX_COPIED_TOTAL_BYTES >> 20} MiB in all)")
                continue
            total += info.st_size
            files.append(relative)
    return files, notes


def submission_link_problem(submitted_root, student, assignment):
    """A reason to refuse submitted/<student>/<assignment>, or None.

    Every path component below `submitted_root` is checked with lstat: a
    student or assignment folder that is a symbolic link (which could point
    at the instructor's solutions) is never graded.
    """
    path = submitted_root
    for part in (student, assignment):
        path = os.path.join(path, part)
        try:
            info = os.lstat(path)
        except OSError:
            return "submission folder could not be read; not graded"
        if stat.S_ISLNK(info.st_mode):
            return "submission folder is a symbolic link; not graded"
        if not stat.S_ISDIR(info.st_mode):
            return "submission folder is not a folder; not graded"
    return None
