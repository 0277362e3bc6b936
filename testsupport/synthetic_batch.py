"""Generated batches of submissions, for the scaling tests and the grading benchmark.

Each submission is built from an assignment's two notebooks: the student version
(``exercises/``) with some of its answer cells replaced by the instructor's answers
from ``solutions/`` (the ``### BEGIN SOLUTION`` markers removed). The kinds cycle
in a fixed order, so a batch of any size is the same every time:

    correct   every answer cell filled in
    partial   every other answer cell filled in, the rest left as handed out
    empty     the student version untouched
    crashing  every answer filled in, but the first one raises an error
    unreadable  the notebook file cut off half way (not JSON)

Files are written where ``nbgrader collect`` puts them (testsupport.hand_in):
``course-data/submitted/<student>/<assignment>/<notebook>.ipynb`` plus ``timestamp.txt``.
``write_batch_course`` sets up a course folder of its own for such a batch
(``testsupport.gradebook.gradebook_rows`` reads back what grading left);
``rush_hand_ins`` gives the same kinds as the hand-ins of a deadline rush, for the
grading service.
"""

import json
import os
import shutil

from testsupport.course import cell_source, copy_course, strip_solution_markers
from testsupport.hand_in import hand_in

KINDS = ("correct", "partial", "empty", "crashing", "unreadable")
CLASS_KINDS = ("correct", "partial", "empty")  # a class as it hands in: no broken files
TIMESTAMP = "2026-01-15 12:00:00.000000 UTC\n"  # what timestamp.txt holds


def student_ids(count, prefix="s"):
    """['s001', 's002', ...]: ids that sort in the order they were made."""
    return [f"{prefix}{number:03d}" for number in range(1, count + 1)]


def kind_of(index, kinds=KINDS):
    """The kind of the index-th (0-based) submission of a batch of these kinds in turn."""
    return kinds[index % len(kinds)]


def _grade_id(cell):
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _is_answer(cell):
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return cell.get("cell_type") == "code" and meta.get("solution", False)


def answers(solution_path):
    """{grade_id: answer source} for every answer (solution) code cell of a notebook."""
    with open(solution_path, encoding="utf-8") as handle:
        notebook = json.load(handle)
    found = {}
    for cell in notebook["cells"]:
        if _is_answer(cell):
            found[_grade_id(cell)] = strip_solution_markers(cell_source(cell))
    if not found:
        raise ValueError(f"{solution_path}: no answer cells (nbgrader 'solution' code cells)")
    return found


def submission_text(kind, release_path, solution_path):
    """The text of one submitted notebook of the given kind."""
    with open(release_path, encoding="utf-8") as handle:
        notebook = json.load(handle)
    solved = answers(solution_path)
    answer_cells = [cell for cell in notebook["cells"] if _is_answer(cell)]
    missing = [_grade_id(cell) for cell in answer_cells if _grade_id(cell) not in solved]
    if missing:
        raise ValueError(f"{release_path}: answer cells {missing} have no solution in "
                         f"{solution_path}; regenerate the student version")
    if kind in ("correct", "partial", "crashing", "unreadable"):
        for position, cell in enumerate(answer_cells):
            if kind == "partial" and position % 2 == 1:
                continue
            answer = solved[_grade_id(cell)]
            if kind == "crashing" and position == 0:
                answer = 'raise RuntimeError("a mistake in the first answer")\n' + answer
            cell["source"] = answer
    elif kind != "empty":
        raise ValueError(f"unknown submission kind {kind!r}; known: {', '.join(KINDS)}")
    text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    if kind == "unreadable":
        text = text[: len(text) // 2]
    return text


def write_batch(course_root, assignment, students, notebooks=None, kinds=KINDS):
    """Writes one submission per student; returns {student: kind}.

    ``notebooks`` are the assignment's notebook names (without .ipynb); by default
    every notebook of ``exercises/<assignment>/``. Student i gets kind_of(i, kinds).
    """
    texts = kind_texts(course_root, assignment, kinds, notebooks)
    handed_in = {}
    for index, student in enumerate(students):
        kind = kind_of(index, kinds)
        hand_in(course_root, student, assignment, texts[kind], TIMESTAMP)
        handed_in[student] = kind
    return handed_in


def kind_texts(course_root, assignment, kinds=KINDS, notebooks=None):
    """{kind: {notebook file name: its text}}: one submission of each kind of ``assignment``.

    ``notebooks`` are the assignment's notebook names (without .ipynb); by default
    every notebook of ``exercises/<assignment>/``.
    """
    release_dir = os.path.join(course_root, "exercises", assignment)
    solution_dir = os.path.join(course_root, "solutions", assignment)
    if notebooks is None:
        notebooks = sorted(name[:-len(".ipynb")] for name in os.listdir(release_dir)
                           if name.endswith(".ipynb"))
    return {kind: {name + ".ipynb": submission_text(
                       kind, os.path.join(release_dir, name + ".ipynb"),
                       os.path.join(solution_dir, name + ".ipynb"))
                   for name in notebooks}
            for kind in kinds}


def rush_hand_ins(course_root, assignments, count, kinds=CLASS_KINDS):
    """A deadline rush of ``count`` hand-ins, in the order they arrive: a list of
    (student, assignment, {notebook file name: bytes}, kind).

    Each student hands in every one of ``assignments`` in turn, one after the other
    (s001 the first, then the second, ..., then s002), all of the same kind, the
    students' kinds cycling as in ``write_batch``; the last student may hand in only
    some of them when ``count`` is not a multiple of the number of assignments.
    """
    texts = {a: kind_texts(course_root, a, kinds) for a in assignments}
    students = student_ids((count + len(assignments) - 1) // len(assignments))
    rush = []
    for index in range(count):
        student_index, assignment = divmod(index, len(assignments))
        kind = kind_of(student_index, kinds)
        files = {name: text.encode("utf-8")
                 for name, text in texts[assignments[assignment]][kind].items()}
        rush.append((students[student_index], assignments[assignment], files, kind))
    return rush


def write_batch_course(source_root, dest, assignment, students, released_gradebook=None,
                       kinds=KINDS):
    """A course folder at ``dest``: nbgrader_config.py, solutions/ and exercises/ copied
    from ``source_root``, one generated submission per student, and the SQLite gradebook
    file ``released_gradebook`` (one the assignment was released into) if given.
    Returns {student: kind}; the kinds cycle as ``kinds`` says."""
    copy_course(dest, root=source_root)
    handed_in = write_batch(dest, assignment, students, kinds=kinds)
    if released_gradebook:
        shutil.copy(released_gradebook, os.path.join(dest, "course-data", "gradebook.db"))
    return handed_in
