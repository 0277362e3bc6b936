"""The course as the tests and benchmarks see it: its folders, assignments and answers.

The assignments are the folders of ``solutions/`` (as for the Makefile and the
grader), so a new assignment is seen here without any edit.
"""

import atexit
import json
import os
import shutil
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# what grading a copy of the course needs; `make` in a copy also needs MAKE_FILES
COURSE_FILES = ("nbgrader_config.py", "solutions", "exercises")
MAKE_FILES = ("Makefile", "requirements.txt", "pyproject.toml")
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
LEFT_BY_TOOLS = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")


def assignments(root=ROOT):
    """{assignment: notebook name without .ipynb}: each folder of solutions/ with a notebook."""
    found = {}
    solutions = os.path.join(root, "solutions")
    for name in sorted(os.listdir(solutions)):
        folder = os.path.join(solutions, name)
        if not os.path.isdir(folder):
            continue
        notebooks = sorted(f[:-len(".ipynb")] for f in os.listdir(folder) if f.endswith(".ipynb"))
        if notebooks:
            found[name] = notebooks[0]
    return found


def notebook_file(folder, assignment, root=ROOT):
    """The path of the assignment's notebook in solutions/ or exercises/."""
    return os.path.join(root, folder, assignment, assignments(root)[assignment] + ".ipynb")


def read_notebook(folder, assignment, root=ROOT):
    """The assignment's notebook in solutions/ or exercises/ as JSON."""
    with open(notebook_file(folder, assignment, root), encoding="utf-8") as handle:
        return json.load(handle)


def cell_source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def strip_solution_markers(source):
    """A solution cell's source without its BEGIN/END SOLUTION marker lines."""
    lines = source.splitlines(keepends=True)
    return "".join(line for line in lines if line.strip() not in SOLUTION_MARKERS)


def solution_answers(assignment, root=ROOT):
    """{grade_id: the instructor's answer without the solution markers}."""
    answers = {}
    for cell in read_notebook("solutions", assignment, root)["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("solution"):
            answers[meta["grade_id"]] = strip_solution_markers(cell_source(cell))
    return answers


def copy_course(dest, extra=(), *, for_make=False, root=ROOT):
    """A copy of the course at ``dest``: nbgrader_config.py, solutions/, exercises/ and
    the folders in ``extra``. ``for_make`` adds the Makefile and what its set-up reads
    and links .venv, so `make` in the copy sets up nothing and writes only there."""
    os.makedirs(dest, exist_ok=True)
    names = (*COURSE_FILES, *extra) + (MAKE_FILES if for_make else ())
    for name in names:
        source = os.path.join(root, name)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(dest, name), ignore=LEFT_BY_TOOLS)
        else:  # copy2 keeps the times: .venv's stamp stays newer than the files
            shutil.copy2(source, os.path.join(dest, name))
    if for_make:
        os.symlink(os.path.join(root, ".venv"), os.path.join(dest, ".venv"))
    return dest


def nbgrader_env(db_url=None, **overrides):
    """The environment nbgrader and the grader run in.

    The interpreter's bin folder goes first on PATH (nbgrader runs `alembic` from
    there when it creates a gradebook); GPTCOURSE_DB_URL is the given database or
    unset, so the course's own SQLite gradebook is used. ``overrides`` are set last.
    """
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.pop("GPTCOURSE_DB_URL", None)
    if db_url is not None:
        env["GPTCOURSE_DB_URL"] = db_url
    env.update(overrides)
    return env


def release_assignments(course, names=None, db_url=None):
    """`nbgrader generate_assignment` in a course folder for each assignment (by default
    every folder of its solutions/): the assignments and their test cells go into the
    gradebook and the student versions into release/."""
    import subprocess

    for assignment in names or assignments(course):
        result = subprocess.run(
            [sys.executable, "-m", "nbgrader", "generate_assignment", assignment, "--force"],
            cwd=course, env=nbgrader_env(db_url), capture_output=True, text=True, timeout=300)
        if result.returncode != 0:
            raise RuntimeError(f"generate_assignment {assignment} failed:\n{result.stderr[-4000:]}")
    return course


_RELEASED = {}  # course root -> that course released once in this process (a template)
_RELEASING = threading.Lock()


def released_course(dest, root=ROOT):
    """A copy of the course at ``dest`` with every assignment released (the gradebook and
    the student versions written), copied from one release made once per test process:
    `nbgrader generate_assignment` runs once, however many tests need a released course."""
    with _RELEASING:
        template = _RELEASED.get(root)
        if template is None:
            base = tempfile.mkdtemp(prefix="released-course-")
            atexit.register(shutil.rmtree, base, True)
            template = release_assignments(copy_course(os.path.join(base, "course"), root=root))
            _RELEASED[root] = template
    shutil.copytree(template, dest, symlinks=True, dirs_exist_ok=True)
    return dest
