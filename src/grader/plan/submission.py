"""Reading a submission defensively: its files, its folder, its notebook JSON.

A submitted file is only ever read, never changed, and never through a
symbolic link. `parse_submission` is the one reader of a student's notebook
bytes, whichever way they came (the course page, `grader check`, the exchange,
an LMS's zip, a batch run, the similarity report, grade-explain): it refuses
with a sentence (`Unreadable`) what is no notebook it can read: empty, not
UTF-8, a web page, brackets nested deeper than MAX_NESTING (found by a linear
scan of the bytes before any JSON is parsed, so no reader ever recurses that
deep), not JSON, not an object, no list of cells, another nbformat than 4 (an
older one is converted), more than MAX_NOTEBOOK_CELLS cells. Whatever the JSON
of a notebook it takes holds in place of a cell, a cell's metadata or source,
it gives cells of the shapes the rest of the grader reads, each repair
described in its notes (`NOTES_KEY`).
"""

import itertools
import json
import operator
import os
import re
import stat
from typing import Any

import nbformat

from ..cells import source_text
from ..safe_text import file_name, shown_value, writable

MAX_NOTEBOOK_BYTES = 64 << 20  # larger files are not parsed at all
MAX_COPIED_FILE_BYTES = 16 << 20  # the student's other files copied into the sandbox
MAX_COPIED_TOTAL_BYTES = 64 << 20
MAX_COPIED_FILES = 200  # each is one open file handed to the sandbox
# arrays and objects inside one another: a notebook's deepest is its outputs' data (about 6);
# widget state and JSON outputs go deeper, never near this
MAX_NESTING = 100
MAX_NOTEBOOK_CELLS = 5_000  # a released notebook has tens
JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
NOT_A_BRACKET = bytes(set(range(256)) - set(b"[]{}"))
BRACKET_STEP = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")  # an opening 2, a closing 0


class Unreadable(Exception):
    """The submitted file is not a notebook we can take answers from."""


def read_submission(path: str) -> dict[str, Any]:
    """The submitted notebook as a JSON dict with a list of cells; raises Unreadable.

    The file is opened without following symbolic links and never written.
    """
    return parse_submission(read_submission_bytes(path))


def read_submission_bytes(path: str) -> bytes:
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


def too_large(size: int) -> str:
    return (f"notebook too large ({size / 2**20:.0f} MiB; at most "
            f"{MAX_NOTEBOOK_BYTES >> 20} MiB): not graded")


def nesting_depth(data: bytes) -> int:
    """How deep the arrays and objects of the JSON text `data` go, outside its strings:
    one linear scan in C (strings removed, then the brackets' running count), no parsing.
    For text that is not JSON it is the depth its brackets would have."""
    brackets = JSON_STRING.sub(b"", data).translate(None, NOT_A_BRACKET)
    steps = brackets.translate(BRACKET_STEP)  # the depth after each bracket: its sum less its count
    return max(map(operator.sub, itertools.accumulate(steps), itertools.count(1)), default=0)


def parse_submission(data: bytes) -> dict[str, Any]:
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
    depth = nesting_depth(data)
    if depth > MAX_NESTING:
        raise Unreadable(f"notebook could not be read: nested too deeply ({depth:,} levels of "
                         f"lists and objects inside one another; a notebook has at most "
                         f"{MAX_NESTING})")
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
    if major is not None and (not isinstance(major, int) or isinstance(major, bool)
                              or major > 4 or (major < 4 and "worksheets" not in nb)):
        raise Unreadable(f"notebook could not be read: its nbformat is {shown_value(major)}, "
                         f"not 4 (save it again from Jupyter)")
    if isinstance(major, int) and major < 4:
        try:
            nb = json.loads(nbformat.writes(nbformat.reads(text, as_version=4)))
        except Exception as error:  # noqa: BLE001 (any failure of the old-format reader)
            raise Unreadable(f"notebook could not be read: old nbformat {major} "
                             f"that could not be converted ({error})") from None
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise Unreadable("notebook could not be read: not a notebook (no cells)")
    if len(cells) > MAX_NOTEBOOK_CELLS:
        raise Unreadable(f"notebook could not be read: {len(cells):,} cells, more than a "
                         f"notebook may have ({MAX_NOTEBOOK_CELLS:,})")
    nb["cells"], nb[NOTES_KEY] = normalised_cells(cells)
    return nb


NOTES_KEY = "grader:notes"  # where read_submission leaves its remarks for build_plan


def normalised_cells(cells: list[Any]) -> tuple[list[dict[str, Any]], list[str]]:
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
                                 f"({shown_value(meta['grade_id'])}); it was ignored")
                    meta.pop("grade_id")
                metadata["nbgrader"] = meta
        cell["metadata"] = metadata
        source = cell.get("source", "")
        text = source_text(source)
        if text == "" and source not in ("", [], None):
            notes.append(f"cell {number}'s source is not text; it was treated as empty")
        cell["source"] = writable(text)
        clean.append(cell)
    return clean, notes


def student_extra_files(folder: str, expected_notebooks: set[str]
                        ) -> tuple[list[str], list[str]]:
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
                notes.append(f"symbolic link '{file_name(relative)}' was ignored")
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".")
                            and not os.path.islink(os.path.join(directory, d)))
        for name in sorted(names):
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, folder)
            shown = file_name(relative)
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


def submission_link_problem(submitted_root: str, student: str, assignment: str) -> str | None:
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
