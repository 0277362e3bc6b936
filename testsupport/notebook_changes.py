"""What a student changes in a solved notebook, as data: cells added, answers rewritten,
markdown dragged; and a `Style`, the changes one honest student makes.

A change is a function that edits notebook JSON in place. The rows of the registry
(testsupport/assignments/) describe their honest students with these;
testsupport/honest_students.py gathers them.
"""

import json
from dataclasses import dataclass, field

from testsupport.course import assignments, read_notebook, solution_answers


def grade_id(cell):
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta.get("grade_id") if isinstance(meta, dict) else None


def solved(assignment):
    """The released notebook with every answer cell holding the instructor's solution."""
    nb = read_notebook("exercises", assignment)
    answers = solution_answers(assignment)
    for cell in nb["cells"]:
        if grade_id(cell) in answers:
            cell["source"] = answers[grade_id(cell)]
    return nb


def code(source):
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
            "execution_count": None}


def markdown(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def position(nb, wanted):
    return next(i for i, cell in enumerate(nb["cells"]) if grade_id(cell) == wanted)


def insert_before(wanted, *cells):
    def change(nb):
        at = position(nb, wanted)
        nb["cells"][at:at] = list(cells)
    return change


def insert_after(wanted, *cells):
    def change(nb):
        at = position(nb, wanted) + 1
        nb["cells"][at:at] = list(cells)
    return change


def at_top(*cells):
    def change(nb):
        nb["cells"][0:0] = list(cells)
    return change


def answer(wanted, source):
    def change(nb):
        nb["cells"][position(nb, wanted)]["source"] = source
    return change


def in_place(wanted, edit):
    """The answer's solution source changed by `edit(source) -> source`."""
    def change(nb):
        cell = nb["cells"][position(nb, wanted)]
        cell["source"] = edit("".join(cell["source"]))
    return change


def moved(wanted, distance):
    """The cell `wanted` dragged `distance` places up (negative) or down, as a student drags
    a markdown cell to read it first."""
    def change(nb):
        at = position(nb, wanted)
        cell = nb["cells"].pop(at)
        nb["cells"].insert(min(max(0, at + distance), len(nb["cells"])), cell)
    return change


def typed_id(student, comment=""):
    """The student types their own id into the cell `student_id`, as off the hub."""
    return lambda nb: nb["cells"][position(nb, "student_id")].update(
        source=f'STUDENT_ID = "{student}"{comment}\n')


@dataclass
class Style:
    """An honest student's way of working: the solved notebook of `assignment` changed by
    `changes`, in order, and handed in."""

    name: str
    assignment: str
    changes: list
    files: dict = field(default_factory=dict)  # other files handed in beside the notebook
    old_format: bool = False  # written as nbformat 3, as an old Jupyter saves it

    def notebook(self):
        nb = solved(self.assignment)
        for change in self.changes:
            change(nb)
        return nb

    def handed_in(self):
        """{file name: bytes} the student submits."""
        nb = self.notebook()
        if self.old_format:
            import nbformat

            current = nbformat.reads(json.dumps(nb), as_version=4)  # sources as one string
            text = nbformat.writes(nbformat.convert(current, 3), version=3)
        else:
            text = json.dumps(nb, indent=1, ensure_ascii=False)
        files = {assignments()[self.assignment] + ".ipynb": text.encode("utf-8")}
        files.update({name: content.encode("utf-8") for name, content in self.files.items()})
        return files
