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
from testsupport.course import ROOT, assignments, notebook_file, read_notebook

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


def row_problems(row, root=ROOT):
    """What in `row` does not fit its notebook in the solutions/ of the course at `root`:
    one sentence each, [] when it all fits (a row names only cells the notebook has, with
    the points it gives, and scores a student can earn)."""
    from testsupport.notebook_contract import package_function_answers, package_imports

    name, problems = row.name, []
    if row.notebook != assignments(root).get(name):
        problems.append(f"its notebook is {row.notebook!r}; solutions/{name}/ holds "
                        f"{assignments(root).get(name)!r}")
        return problems
    cells = [cell["metadata"]["nbgrader"]
             for cell in read_notebook("solutions", name, root)["cells"]
             if cell.get("metadata", {}).get("nbgrader")]
    points = {c["grade_id"]: c["points"] for c in cells if c.get("grade") and not c.get("solution")}
    if row.points != points or list(row.points) != list(points):
        problems.append(f"its points are {row.points}; the notebook's test cells give {points}")
    explain = {c["grade_id"]: c["points"] for c in cells if c.get("grade") and c.get("solution")}
    if row.explain != explain:
        problems.append(f"its explain is {row.explain}; the notebook's explain cell gives "
                        f"{explain}")
    answers = {c["grade_id"] for c in cells if c.get("solution") and not c.get("grade")}
    named = {"package_answers": set(row.package_answers), "partial": set(row.partial),
             "typed": set(row.typed), "oracle": set(row.oracle),
             "students' answers": {a for s in row.students.values() for a in s.answers},
             "wrappers": {w[0] for w in row.wrappers.values()} | set(row.wrapped_checks),
             "argument_changers": {c[0] for c in row.argument_changers.values()}}
    for field, ids in named.items():
        if ids - answers:
            problems.append(f"{field} names {sorted(ids - answers)}, no answer cell of the "
                            f"notebook")
    checks = {"function_tests": set(row.function_tests), "hidden_values": set(row.hidden_values),
              "students' failures": {f for s in row.students.values() for f in s.failures},
              "wrapped_checks": {c for lost in row.wrapped_checks.values() for c in lost},
              "argument_changers": {c[2] for c in row.argument_changers.values()}}
    for field, ids in checks.items():
        if ids - set(points):
            problems.append(f"{field} names {sorted(ids - set(points))}, no test cell of the "
                            f"notebook")
    path = notebook_file("solutions", name, root)
    if row.allowed_imports != package_imports(path):
        problems.append(f"allowed_imports is {sorted(row.allowed_imports)}; the notebook "
                        f"imports {sorted(package_imports(path))} from the package")
    if package_function_answers(path) - set(row.package_answers):
        problems.append(f"package_answers leaves out "
                        f"{sorted(package_function_answers(path) - set(row.package_answers))}, "
                        f"which write a function the package has")
    halves = {half / 2 for half in range(int(2 * row.max_score) + 1)}
    if {student.total for student in row.students.values()} - halves:
        problems.append("a student's total is not a score of the notebook (0 to the most, in "
                        "halves)")
    if not (0 <= row.typed_score <= row.max_score and 0 < row.partial_score < row.max_score):
        problems.append("typed_score or partial_score is no score the notebook can give")
    if not 0 <= row.oracle_score < row.max_score:
        problems.append("oracle_score is no score below the notebook's most")
    if "solution" not in row.students or row.students["solution"].total != row.max_score:
        problems.append("the student 'solution' is missing or does not earn every point")
    return problems


ASSIGNMENTS = load_rows()
