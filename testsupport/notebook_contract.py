"""The contract every notebook of solutions/ keeps, as rules checked cell by cell.

docs/adding-an-assignment.md states each rule for the instructor who writes a notebook;
`RULES` holds the same rules by name, and `contract_problems` checks an instructor
notebook against them, each problem naming the cell and the rule it breaks.
tests/units/settings/test_notebook_contract.py runs it on every notebook of solutions/.
"""

import ast
import functools
import importlib.util
import json
import os
import re
from dataclasses import dataclass

import nbformat

TOTAL_POINTS = 10  # what every assignment is worth
PACKAGE = "gptcourse"  # the course package the notebooks import
HIDDEN = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
SOLUTION = ("### BEGIN SOLUTION", "### END SOLUTION")
TEST_ID = re.compile(r"[a-z0-9]+(_[a-z0-9]+)+")  # two words or more, in snake case
ANSWER_ID = re.compile(r"[a-z0-9]+(_[a-z0-9]+)*_answer")
SECTION_POINTS = re.compile(r"^## .*\((\d+(?:\.\d+)?) points?\)\s*$", re.MULTILINE)
TIME_LIMITS = re.compile(r"each cell at most (\w+) minutes? and the whole notebook (\w+) minutes")
WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10}
INSTALL_PROMISE = ("If the cell stops and says that this copy came without an install line, "
                   "ask your instructor for the line")
# nbgrader's Validate cuts every line of a traceback at 87 characters, its own 4-space
# indent included; "AssertionError: " takes 16 more on the first line
VALIDATE_LINE = 87 - 4
FIRST_LINE = VALIDATE_LINE - len("AssertionError: ")
PLACEHOLDER = "x" * 10  # an f-string field, at a typical width

RULES = {
    "kernel": "the notebook runs in the python3 kernel",
    "cell ids": "every cell has a stored id, none twice",
    "nbgrader cells": "every cell is an nbgrader cell with a grade_id of its own",
    "intro": "the first cell is markdown that says what the assignment is worth, what the "
             "first code cell does off the hub, and the grader's time limits",
    "install": "the first code cell is `install`, the course's cell that installs the "
               "package off the hub (one `COURSE_PACKAGE = ` line, which make release writes)",
    "setup": "the next code cell is `setup`, locked, and imports what the checks and answers use",
    "imports": "the course package is imported only as `from gptcourse import name`, a name "
               "it has, and never a function the notebook asks students to write",
    "student's own": "a notebook with a model (or scores) of each student's own has the "
                     "`student_id` cell and a locked set-up cell reading JUPYTERHUB_USER, or "
                     "else STUDENT_ID, with the COURSE_SALT line make release writes",
    "no instructor words": "no code cell names make release or nbgrader_config",
    "answer cells": "an answer cell is an unlocked code cell `<name>_answer` with its solution "
                    "between ### BEGIN SOLUTION and ### END SOLUTION, checked by the test "
                    "cells after it",
    "package functions": "the section of an answer that writes a function the package also "
                         "has says that using the package's earns nothing: Write your own",
    "test cells": "a test cell is a locked code cell with points and a descriptive snake-case "
                  "grade_id",
    "docstring": 'a test cell\'s first line is a docstring """Check that ..."""',
    "hidden tests": "a test cell has hidden tests between ### BEGIN HIDDEN TESTS and "
                    "### END HIDDEN TESTS",
    "ends in a statement": "a test cell ends in a statement, never a bare expression "
                           "(nbgrader would read its value as partial credit)",
    "messages fit": "each assertion message fits Validate's line width (67 characters on "
                    "its first line, 83 on the others)",
    "no assert in a block": "no assertion of a test cell sits inside a try or with block",
    "points": f"the graded cells' points add up to {TOTAL_POINTS}, and a section heading's "
              "(N points) are those of the graded cells in its section",
}


@dataclass(frozen=True)
class Problem:
    """One broken rule: the notebook, the cell (its grade_id, or its place), the rule."""

    notebook: str
    cell: str
    rule: str
    detail: str

    def __str__(self):
        return f"{self.notebook}, cell {self.cell}: {self.rule} ({RULES[self.rule]}): {self.detail}"


def _meta(cell):
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def _name(cell, index):
    return repr(_meta(cell).get("grade_id") or f"number {index + 1}")


def _tree(source):
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def _regions(source, markers):
    """(lines outside the marked regions, lines inside them), stripped, blank ones dropped."""
    outside, inside, within = [], [], False
    for line in source.split("\n"):
        if markers[0] in line:
            within = True
        elif markers[1] in line:
            within = False
        elif line.strip():
            (inside if within else outside).append(line.strip())
    return outside, inside


def _static_text(node):
    """The text of a message node, f-string fields as placeholders; None if not a string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else PLACEHOLDER
                       for part in node.values)
    return None


def _messages(tree):
    """(line, message node) of every assert message and raised AssertionError of a cell."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and node.msg is not None:
            yield node.lineno, node.msg
        elif (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
              and getattr(node.exc.func, "id", None) == "AssertionError" and node.exc.args):
            yield node.lineno, node.exc.args[0]


@functools.lru_cache
def package_functions(package=PACKAGE):
    """The names of the functions the course package defines at the top of its modules."""
    spec = importlib.util.find_spec(package)
    defined = set()
    for folder in spec.submodule_search_locations:
        for directory, _, names in os.walk(folder):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(directory, name), encoding="utf-8") as handle:
                        tree = ast.parse(handle.read())
                    defined |= {node.name for node in tree.body
                                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return defined


def _defined_names(tree):
    """The top-level names a cell binds (functions, and assigned names)."""
    names = set()
    for node in tree.body if tree else []:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def package_imports(path):
    """The names the notebook at `path` takes from the course package (`from gptcourse import`)."""
    names = set()
    for cell in read_as_written(path).cells:
        tree = _tree(cell.source) if cell.cell_type == "code" else None
        names |= {alias.name for node in (ast.walk(tree) if tree else ())
                  if isinstance(node, ast.ImportFrom) and node.module == PACKAGE
                  for alias in node.names}
    return names


def package_function_answers(path):
    """The grade_ids of the answer cells of the notebook at `path` that write a function the
    course package also defines."""
    return {cell.metadata["nbgrader"]["grade_id"] for cell in read_as_written(path).cells
            if cell.cell_type == "code" and _meta(cell).get("solution")
            and _defined_names(_tree(cell.source)) & package_functions()}


def _stated_limits(text):
    match = TIME_LIMITS.search(" ".join(text.split()))
    if not match or not all(word in WORD_NUMBERS for word in match.groups()):
        return None
    return tuple(60 * WORD_NUMBERS[word] for word in match.groups())


def read_as_written(path):
    """The notebook at `path` as its file holds it (sources joined into one string each),
    neither validated nor mended: a cell id written twice stays twice."""
    with open(path, encoding="utf-8") as handle:
        nb = json.load(handle)
    for cell in nb.get("cells", []):
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    return nbformat.from_dict(nb)


def contract_problems(path, limits=None):
    """Every problem of the instructor notebook at `path`: [Problem], empty when it keeps
    the contract. `limits` (seconds per cell, seconds per notebook) are the grader's, which
    the introduction must state; None leaves that sentence unchecked."""
    nb = read_as_written(path)
    label = os.path.join(*path.split(os.sep)[-3:])
    problems = []

    def problem(cell, rule, detail):
        problems.append(Problem(label, cell, rule, detail))

    cells = nb.cells
    if nb.metadata.get("kernelspec", {}).get("name") != "python3":
        problem("-", "kernel", f"kernelspec is {nb.metadata.get('kernelspec')}")
    stored = [cell.get("id") for cell in cells]
    twice = sorted({i for i in stored if i and stored.count(i) > 1})
    if None in stored or "" in stored or twice:
        problem("-", "cell ids", f"{sum(not i for i in stored)} cell(s) without an id; "
                                 f"ids written twice: {twice}")
    seen = set()
    for index, cell in enumerate(cells):
        grade_id = _meta(cell).get("grade_id")
        if not grade_id or grade_id in seen:
            problem(_name(cell, index), "nbgrader cells",
                    "no grade_id" if not grade_id else "its grade_id is another cell's too")
        seen.add(grade_id)
    code = [(i, c) for i, c in enumerate(cells) if c.cell_type == "code"]
    # autograded answers and their tests (a manually graded answer is both, and neither here)
    tests = [(i, c) for i, c in code if _meta(c).get("grade") and not _meta(c).get("solution")]
    answers = [(i, c) for i, c in code if _meta(c).get("solution") and not _meta(c).get("grade")]
    total = sum(float(_meta(c).get("points", 0)) for c in cells if _meta(c).get("grade"))

    _check_intro(cells, limits, problem)
    _check_install_and_setup(code, problem)
    _check_imports(code, answers, problem)
    _check_own_model(code, problem)
    _check_instructor_words(code, problem)
    _check_answers(cells, answers, tests, problem)
    for index, cell in tests:
        _check_test_cell(index, cell, problem)
    if total != TOTAL_POINTS:
        problem("-", "points", f"the graded cells' points add up to {total:g}")
    _check_section_points(cells, problem)
    return problems


def _check_intro(cells, limits, problem):
    first = cells[0] if cells else None
    if first is None or first.cell_type != "markdown":
        problem(_name(first, 0) if first else "-", "intro", "the first cell is not markdown")
        return
    text = " ".join(first.source.split())
    if f"The assignment is worth {TOTAL_POINTS} points." not in text:
        problem(_name(first, 0), "intro", f"it does not say 'The assignment is worth "
                                          f"{TOTAL_POINTS} points.'")
    if INSTALL_PROMISE not in text:
        problem(_name(first, 0), "intro", f"it does not say '{INSTALL_PROMISE}'")
    stated = _stated_limits(first.source)
    if stated is None:
        problem(_name(first, 0), "intro", "it does not say 'each cell at most N minute(s) and "
                                          "the whole notebook N minutes'")
    elif limits is not None and stated != tuple(limits):
        problem(_name(first, 0), "intro", f"it states {stated[0]} s per cell and {stated[1]} s "
                                          f"per notebook; the grader gives {limits[0]:g} and "
                                          f"{limits[1]:g}")


def _check_install_and_setup(code, problem):
    if not code or _meta(code[0][1]).get("grade_id") != "install":
        problem(_name(code[0][1], code[0][0]) if code else "-", "install",
                "the first code cell is not `install`")
    else:
        index, cell = code[0]
        lines = [line for line in cell.source.splitlines() if line.startswith("COURSE_PACKAGE = ")]
        if len(lines) != 1 or f'importlib.util.find_spec("{PACKAGE}")' not in cell.source:
            problem(_name(cell, index), "install", "it is not the course's install cell")
    if len(code) < 2 or _meta(code[1][1]).get("grade_id") != "setup":
        problem(_name(code[1][1], code[1][0]) if len(code) > 1 else "-", "setup",
                "the second code cell is not `setup`")
    else:
        index, cell = code[1]
        meta = _meta(cell)
        if not meta.get("locked") or meta.get("grade") or meta.get("solution"):
            problem(_name(cell, index), "setup", "it is not a locked cell of the instructor's")


@functools.lru_cache
def package_names(package=PACKAGE):
    """The names the course package offers at its top (its __init__.py's __all__), read
    without importing it (and torch)."""
    spec = importlib.util.find_spec(package)
    with open(spec.origin, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__"
                                                for t in node.targets):
            return frozenset(ast.literal_eval(node.value))
    return frozenset()


def _check_imports(code, answers, problem):
    written = set()
    for _, cell in answers:
        written |= _defined_names(_tree(cell.source))
    for index, cell in code:
        tree = _tree(cell.source)
        for node in ast.walk(tree) if tree else []:
            if isinstance(node, ast.Import) and any(
                    alias.name.split(".")[0] == PACKAGE for alias in node.names):
                problem(_name(cell, index), "imports", f"line {node.lineno} imports the "
                                                       f"package as a module")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == PACKAGE:
                if node.module != PACKAGE:
                    problem(_name(cell, index), "imports", f"line {node.lineno} imports from "
                                                           f"{node.module}")
                for alias in node.names:
                    if alias.name not in package_names():
                        problem(_name(cell, index), "imports",
                                f"{PACKAGE} has no {alias.name}")
                    elif alias.name in written:
                        problem(_name(cell, index), "imports",
                                f"it imports {alias.name}, which students write")


@functools.lru_cache
def variant_builders(package=PACKAGE):
    """The functions of the package's variants module that make a student's own variant from
    an id and the salt (student_config, student_logits, ...), read without importing it."""
    spec = importlib.util.find_spec(package)
    path = os.path.join(spec.submodule_search_locations[0], "variants.py")
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    return tuple(sorted(node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                        and node.name.startswith("student_")))


def _check_own_model(code, problem):
    salted = [(i, c) for i, c in code if re.search(r"^COURSE_SALT = ", c.source, re.MULTILINE)]
    if not salted:
        return
    ids = [(i, c) for i, c in code if _meta(c).get("grade_id") == "student_id"]
    if not ids or not re.fullmatch(r'STUDENT_ID = ""[^\n]*\n?', ids[0][1].source) or (
            _meta(ids[0][1]).get("locked")):
        problem("'student_id'", "student's own", "no unlocked cell `student_id` holding "
                                                 'STUDENT_ID = ""')
    for index, cell in salted:
        meta = _meta(cell)
        if (meta.get("grade") or meta.get("solution") or not meta.get("locked")
                or 'os.environ.get("JUPYTERHUB_USER") or STUDENT_ID' not in cell.source
                or not any(f"{name}(" in cell.source for name in variant_builders())):
            problem(_name(cell, index), "student's own", "its set-up cell must be locked and "
                    f"compute one of {', '.join(variant_builders())} of "
                    'os.environ.get("JUPYTERHUB_USER") or STUDENT_ID and COURSE_SALT')
        if ids and ids[0][0] > index:
            problem(_name(cell, index), "student's own", "it comes before `student_id`")


def _check_instructor_words(code, problem):
    for index, cell in code:
        for words in ("make release", "nbgrader_config"):
            if words in cell.source:
                problem(_name(cell, index), "no instructor words", f"it says {words!r}")


def _check_answers(cells, answers, tests, problem):
    functions = package_functions()
    for number, (index, cell) in enumerate(answers):
        meta, name = _meta(cell), _name(cell, index)
        if meta.get("locked") or meta.get("grade") or not ANSWER_ID.fullmatch(
                meta.get("grade_id", "")):
            problem(name, "answer cells", "not an unlocked, ungraded cell named <name>_answer")
        outside, inside = _regions(cell.source, SOLUTION)
        if SOLUTION[0] not in cell.source or SOLUTION[1] not in cell.source or not set(
                inside) - set(outside):
            problem(name, "answer cells", "no solution between the markers")
        following = answers[number + 1][0] if number + 1 < len(answers) else len(cells)
        if not any(index < i < following for i, _ in tests):
            problem(name, "answer cells", "no test cell after it, before the next answer")
        if _defined_names(_tree(cell.source)) & functions:
            before = [c.source for c in cells[:index] if c.cell_type == "markdown"]
            start = max([i for i, text in enumerate(before) if text.startswith("## ")],
                        default=0)
            section = "\n".join(before[start:])
            if "earns nothing" not in section or "Write your own" not in section:
                problem(name, "package functions", "its section does not say so")


def _check_test_cell(index, cell, problem):
    meta, name = _meta(cell), _name(cell, index)
    if not meta.get("locked") or meta.get("solution") or not float(meta.get("points", 0)) > 0:
        problem(name, "test cells", "not a locked cell with points")
    if not TEST_ID.fullmatch(meta.get("grade_id", "")):
        problem(name, "test cells", f"grade_id {meta.get('grade_id')!r} is not descriptive")
    tree = _tree(cell.source)
    if tree is None or not tree.body:
        problem(name, "test cells", "it is not Python")
        return
    first, last = tree.body[0], tree.body[-1]
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str) and first.value.value.startswith("Check that ")
            and cell.source.startswith('"""Check that ')):
        problem(name, "docstring", 'its first line is not """Check that ...')
    if isinstance(last, ast.Expr):
        problem(name, "ends in a statement", f"line {last.lineno} is a bare expression")
    outside, inside = _regions(cell.source, HIDDEN)
    if HIDDEN[0] not in cell.source or HIDDEN[1] not in cell.source or not set(inside) - set(
            outside):
        problem(name, "hidden tests", "nothing between the markers that the visible part "
                                      "does not show")
    for line, node in _messages(tree):
        text = _static_text(node)
        if text is None:  # a computed message: checked where it is built
            continue
        lines = text.split("\n")
        if len(lines[0]) > FIRST_LINE or any(len(rest) > VALIDATE_LINE for rest in lines[1:]):
            problem(name, "messages fit", f"line {line}: {text!r} is cut by Validate")
    for node in ast.walk(tree):
        if isinstance(node, (ast.Try, ast.With)):
            inner = [n for n in ast.walk(node) if isinstance(n, ast.Assert)]
            if inner:
                problem(name, "no assert in a block", f"line {inner[0].lineno} asserts inside "
                                                      f"a block")


def _check_section_points(cells, problem):
    stated, counted, heading = {}, {}, None
    for index, cell in enumerate(cells):
        if cell.cell_type == "markdown" and cell.source.startswith("## "):
            match = SECTION_POINTS.search(cell.source.splitlines()[0])
            heading = (index, cell) if match else None
            if match:
                stated[index] = float(match.group(1))
                counted[index] = 0.0
        elif heading and _meta(cell).get("grade"):
            counted[heading[0]] += float(_meta(cell).get("points", 0))
    for index, points in stated.items():
        if counted[index] != points:
            problem(_name(cells[index], index), "points",
                    f"its heading says {points:g} points; its test cells give "
                    f"{counted[index]:g}")
