"""The course as the tests and benchmarks see it: its folders, assignments and answers.

The assignments are the folders of ``solutions/`` (as for the Makefile and the
grader), so a new assignment is seen here without any edit.
"""

import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# what grading a copy of the course needs; `make` in a copy also needs MAKE_FILES
COURSE_FILES = ("nbgrader_config.py", "solutions", "exercises")
MAKE_FILES = ("Makefile", "requirements.lock", "requirements.txt", "pyproject.toml")
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


def hidden_test_lines(assignment, root=ROOT):
    """Distinctive lines of the instructor's hidden tests of ``assignment`` (longer than 25
    characters, none a visible part of a cell also has): text no student page may hold."""
    import re

    pattern = r"BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS[^\n]*"
    hidden, visible = [], set()
    for cell in read_notebook("solutions", assignment, root)["cells"]:
        source = cell_source(cell)
        for block in re.findall(pattern, source, re.S):
            hidden += [line.strip() for line in block.splitlines() if len(line.strip()) > 25]
        visible |= {line.strip() for line in re.sub(pattern, "", source, flags=re.S).splitlines()}
    return [line for line in hidden if line not in visible]


def copy_course(dest, extra=(), *, for_make=False, root=ROOT):
    """A copy of the course at ``dest``: nbgrader_config.py, solutions/, exercises/ and
    the folders in ``extra``. ``for_make`` adds the Makefile and what its set-up reads
    and links .venv, so `make` in the copy sets up nothing and writes only there."""
    os.makedirs(dest, exist_ok=True)
    for name in (*COURSE_FILES, *extra):
        source = os.path.join(root, name)
        if os.path.isdir(source):
            shutil.copytree(source, os.path.join(dest, name), ignore=LEFT_BY_TOOLS)
        else:
            shutil.copy2(source, os.path.join(dest, name))
    if for_make:
        ready_for_make(dest, root)
    return dest


def ready_for_make(course, root=ROOT):
    """The Makefile and what its set-up reads copied into ``course``, and .venv linked,
    so that `make` there sets up nothing and writes only there."""
    for name in MAKE_FILES:  # copy2 keeps the times: .venv's stamp stays newer than the files
        shutil.copy2(os.path.join(root, name), os.path.join(course, name))
    os.symlink(os.path.join(root, ".venv"), os.path.join(course, ".venv"))
    return course


def make(folder, *args, env=None, timeout=600):
    """`make ARGS` in ``folder`` (a copy made with ``for_make``), with none of the calling
    make's settings nor a gradebook URL in its environment; returns the CompletedProcess."""
    import subprocess

    environ = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GPTCOURSE_DB_URL")}
    environ.update(env or {})
    return subprocess.run(["make", "--no-print-directory", *args], cwd=folder, env=environ,
                          capture_output=True, text=True, timeout=timeout)


@contextlib.contextmanager
def site_build_lock(root=ROOT):
    """Held while `make book` or `make publish` runs in the course at ``root``: the site's
    tests and the publishing tests run on two workers, and whichever asks first builds
    _build/html while the other waits, then finds it built (make builds only what changed)."""
    name = hashlib.sha256(os.path.realpath(root).encode()).hexdigest()[:16]
    with open(os.path.join(tempfile.gettempdir(), f"course-site-{name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


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


def run_grader(course, assignment, *args, db_url=None, timeout=900, check=False):
    """`python -m grader autograde <assignment> ...` in ``course`` (into the database
    ``db_url`` if given); returns the CompletedProcess, its output as text. ``check``: the
    test fails, with the end of the output, unless the grader exits 0."""
    import subprocess

    result = subprocess.run([sys.executable, "-m", "grader", "autograde", assignment, *args],
                            cwd=course, env=nbgrader_env(db_url), capture_output=True,
                            text=True, timeout=timeout)
    if check:
        assert result.returncode == 0, (f"grader exited with status {result.returncode}:\n"
                                        f"{(result.stdout + result.stderr)[-4000:]}")
    return result


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


_TEMPLATES = {}  # key -> a course built once in this process, copied for each test
_BUILDING = threading.Lock()
# A folder the test processes of one run share (tests/conftest.py sets it for the run, its
# workers inherit it): a course released there by one worker is copied by the others.
SHARED_RELEASES = "GPTCOURSE_TEST_RELEASES"
_RELEASED = ".released"  # written last, naming the course folder: the release finished


def released_once(key, build, dest):
    """A copy at ``dest`` of the course that ``build(folder)`` makes in ``folder`` and
    returns, built once for ``key`` and copied from there: a release (`nbgrader
    generate_assignment`) runs once per test run when the run shares a folder
    (SHARED_RELEASES: its workers wait for the one that builds), else once per process."""
    with _BUILDING:
        template = _TEMPLATES.get(key)
        if template is None:
            shared = os.environ.get(SHARED_RELEASES)
            template = (_shared_template(shared, key, build) if shared
                        else _own_template(build))
            _TEMPLATES[key] = template
    shutil.copytree(template, dest, symlinks=True, dirs_exist_ok=True)
    return dest


def _own_template(build):
    base = tempfile.mkdtemp(prefix="released-course-")
    atexit.register(shutil.rmtree, base, True)
    return build(os.path.join(base, "course"))


def _shared_template(shared, key, build):
    """The course for ``key`` in the run's shared folder, built by the first process to ask
    while the others wait on its lock; a build that failed is made again by the next."""
    base = os.path.join(shared, hashlib.sha256(repr(key).encode()).hexdigest()[:16])
    with open(base + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = os.path.join(base, _RELEASED)
        if os.path.exists(done):
            with open(done, encoding="utf-8") as handle:
                return handle.read()
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        template = build(os.path.join(base, "course"))
        with open(done, "w", encoding="utf-8") as handle:
            handle.write(template)
        return template


def released_course(dest, root=ROOT):
    """A copy of the course at ``dest`` with every assignment released (the gradebook and
    the student versions written), copied from one release made once per test process."""
    return released_once(("course", root),
                         lambda folder: release_assignments(copy_course(folder, root=root)),
                         dest)


def plain_settings(root, submitted=None):
    """The grader's Settings of a course at `root` with nbgrader's folders and the grader's
    defaults, made without reading an nbgrader_config.py (for tests of one wing)."""
    from grader.settings import Limits, Settings, SimilarityReport  # the tests' own import

    data = os.path.join(root, "course-data")
    similarity = SimilarityReport()
    return Settings(root, "course", os.path.join(root, "source"),
                    submitted or os.path.join(data, "submitted"),
                    os.path.join(data, "autograded"), os.path.join(data, "feedback"),
                    os.path.join(data, "reports"), "sqlite://", Limits(timeout=60), "gptcourse",
                    similarity.threshold, similarity.common_fraction)
