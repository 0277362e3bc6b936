"""The registry of the course's assignments: one module per folder of solutions/, beside it.

The assignment in ``solutions/<name>/`` has its row in ``testsupport/assignments/<module>.py``,
where ``<module>`` is ``<name>`` with each ``-`` written ``_`` (``logits-to-text`` ->
``logits_to_text.py``). The module defines ``ROW``, an ``AssignmentRow``
(testsupport/assignment_row.py): everything the tests and the benchmarks know of that
assignment. ``ASSIGNMENTS`` holds the row of every folder of solutions/ that has one, by
folder name, in the folders' order; `missing_rows` names the folders without one, and
`tests/units/settings/test_course.py` fails, saying what the row must hold, until each has
its row. docs/adding-an-assignment.md is the whole path.
"""

import importlib
import importlib.util
import itertools
import os

from testsupport.assignment_row import AssignmentRow, required_fields
from testsupport.course import ROOT, assignments

_COPIES = itertools.count(1)  # module names of rows loaded from a copy of the course


def row_module(name):
    """The module name of assignment `name`'s row: `name` with each '-' written '_'."""
    return name.replace("-", "_")


def row_file(name, root=ROOT):
    """Where the row of the assignment `name` of the course at `root` is written."""
    return os.path.join(root, "testsupport", "assignments", row_module(name) + ".py")


def missing_row_message(name, root=ROOT):
    """What to write for an assignment folder of solutions/ that has no row."""
    wanted = "\n".join(f"    {field}: {meaning}" for field, meaning in required_fields())
    notebook = assignments(root).get(name, "<notebook>")
    return (f"solutions/{name}/ has no row in the tests' registry: write "
            f"{os.path.relpath(row_file(name, root), root)} defining ROW = AssignmentRow(...) "
            f"(testsupport/assignment_row.py) with name={name!r}, notebook={notebook!r} and\n"
            f"{wanted}\n(docs/adding-an-assignment.md; testsupport/assignments/"
            f"logits_to_text.py is a small example)")


def _load(name, root):
    path = row_file(name, root)
    if os.path.realpath(root) == os.path.realpath(ROOT):
        module = importlib.import_module(f"{__name__}.{row_module(name)}")
    else:  # a copy of the course: its own file, under a name of its own
        spec = importlib.util.spec_from_file_location(
            f"{__name__}.copy{next(_COPIES)}_{row_module(name)}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    row = getattr(module, "ROW", None)
    if not isinstance(row, AssignmentRow):
        raise TypeError(f"{path} must define ROW = AssignmentRow(...); it defines "
                        f"ROW as {type(row).__name__}")
    if row.name != name:
        raise ValueError(f"{path} is the row of solutions/{name}/, but its ROW.name is "
                         f"{row.name!r}")
    return row


class Registry(dict):
    """{assignment: AssignmentRow}; a folder of solutions/ without a row is a KeyError that
    says what to write."""

    def __init__(self, rows, root):
        super().__init__(rows)
        self.root = root

    def __missing__(self, name):
        if name in assignments(self.root):
            raise KeyError(missing_row_message(name, self.root))
        raise KeyError(f"{name!r} is no assignment: the assignments are the folders of "
                       f"solutions/ ({', '.join(assignments(self.root))})")


def missing_rows(root=ROOT):
    """The folders of solutions/ of the course at `root` with no row module."""
    return [name for name in assignments(root) if not os.path.isfile(row_file(name, root))]


def load_rows(root=ROOT):
    """The Registry of the course at `root`: the row of each folder of its solutions/ that
    has one (read from that course's testsupport/assignments/)."""
    return Registry({name: _load(name, root) for name in assignments(root)
                     if name not in missing_rows(root)}, root)


ASSIGNMENTS = load_rows()
