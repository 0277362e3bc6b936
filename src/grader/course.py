"""The course's settings, read from nbgrader_config.py as nbgrader itself reads them."""

import os
from dataclasses import dataclass

from traitlets.config.loader import PyFileConfigLoader

DEFAULT_MEMORY_MIB = 3072
DEFAULT_TIMEOUT = 60.0
DEFAULT_TMPFS_MIB = 128
DEFAULT_PACKAGE = "gptcourse"


class CourseError(Exception):
    """The course set-up is wrong: the instructor's problem, never a student's."""


@dataclass
class Settings:
    root: str
    course_id: str
    source: str
    submitted: str
    autograded: str
    reports: str
    db_url: str
    timeout: float
    memory_mib: int
    tmpfs_mib: int = DEFAULT_TMPFS_MIB
    package: str = DEFAULT_PACKAGE  # the course package students import
    also_blocked: tuple = ()  # its functions that compute answers, besides the answers

    @property
    def assignments(self):
        if not os.path.isdir(self.source):
            return []
        return sorted(d for d in os.listdir(self.source)
                      if os.path.isdir(os.path.join(self.source, d)) and not d.startswith("."))

    def instructor_notebooks(self, assignment):
        """{notebook name: path} of an assignment's instructor notebooks."""
        folder = os.path.join(self.source, assignment)
        if not os.path.isdir(folder):
            known = ", ".join(self.assignments) or "none"
            raise CourseError(f"unknown assignment {assignment!r}: no folder {folder} "
                              f"(assignments: {known})")
        names = {f[:-6]: os.path.join(folder, f) for f in sorted(os.listdir(folder))
                 if f.endswith(".ipynb") and not f.startswith(".")}
        if not names:
            raise CourseError(f"assignment {assignment!r} has no notebooks in {folder}")
        for path in names.values():
            try:
                with open(path, encoding="utf-8") as handle:
                    import nbformat

                    nbformat.read(handle, as_version=4)
            except Exception as error:  # noqa: BLE001 (any failure is the instructor's to fix)
                raise CourseError(f"instructor notebook {path} cannot be read: {error}") from None
        return names

    def students(self, assignment):
        """Students with a submitted/<student>/<assignment> entry, sorted.

        Symbolic links are listed too (the grader refuses and reports them),
        so that no submission silently disappears from the report.
        """
        if not os.path.isdir(self.submitted):
            return []
        return sorted(s for s in os.listdir(self.submitted)
                      if os.path.lexists(os.path.join(self.submitted, s, assignment)))


def load(course_dir=".", db_url=None):
    """Settings from `course_dir`/nbgrader_config.py; `db_url` overrides the gradebook URL."""
    course_dir = os.path.abspath(course_dir)
    path = os.path.join(course_dir, "nbgrader_config.py")
    if not os.path.isfile(path):
        raise CourseError(f"no nbgrader_config.py in {course_dir}")
    try:
        config = PyFileConfigLoader("nbgrader_config.py", path=course_dir).load_config()
    # SystemExit too: nbgrader_config.py raises it for a malformed gradebook URL
    except (Exception, SystemExit) as error:  # noqa: BLE001 (the instructor's to fix)
        raise CourseError(f"nbgrader_config.py could not be loaded: {error}") from None
    cd = config.get("CourseDirectory", {})
    root = cd.get("root", course_dir)

    def folder(key, default):
        return os.path.join(root, cd.get(key, default))

    submitted = folder("submitted_directory", "submitted")
    grader = config.get("SandboxGrader", {})
    url = db_url or cd.get("db_url") or "sqlite:///" + os.path.join(root, "gradebook.db")
    return Settings(
        root=root,
        course_id=cd.get("course_id", "default_course"),
        source=folder("source_directory", "source"),
        submitted=submitted,
        autograded=folder("autograded_directory", "autograded"),
        reports=grader.get("reports_directory",
                           os.path.join(os.path.dirname(submitted), "reports")),
        db_url=url,
        timeout=float(config.get("Execute", {}).get("timeout", DEFAULT_TIMEOUT) or DEFAULT_TIMEOUT),
        memory_mib=int(grader.get("memory_mib", DEFAULT_MEMORY_MIB)),
        tmpfs_mib=int(grader.get("tmpfs_mib", DEFAULT_TMPFS_MIB)),
        package=str(grader.get("course_package", DEFAULT_PACKAGE)),
        also_blocked=tuple(grader.get("also_blocked", ())),
    )


def check_gradebook(settings, assignment, notebooks):
    """The assignment must be in the gradebook with the same notebooks (nbgrader generate_assignment)."""
    from nbgrader.api import Gradebook, MissingEntry

    try:
        with Gradebook(settings.db_url, settings.course_id) as gb:
            try:
                recorded = gb.find_assignment(assignment)
            except MissingEntry:
                raise CourseError(f"assignment {assignment!r} is not in the gradebook "
                                  f"({settings.db_url}): release it first "
                                  "(make release, which runs nbgrader generate_assignment)") from None
            names = {nb.name for nb in recorded.notebooks}
    except CourseError:
        raise
    except Exception as error:  # noqa: BLE001 (database unreachable, bad URL, ...)
        raise CourseError(f"the gradebook {settings.db_url} cannot be opened: {error}") from None
    if names != set(notebooks):
        raise CourseError(f"the gradebook's notebooks of {assignment!r} ({sorted(names)}) differ "
                          f"from solutions/ ({sorted(notebooks)}): release the assignment again")
    os.makedirs(settings.reports, exist_ok=True)


def blocked_functions(settings, notebooks):
    """The course package's functions that student code may not use while graded.

    These are the package's functions that an assignment asks students to
    write (top-level names bound by the instructor's answer cells that the
    package also defines), plus `c.SandboxGrader.also_blocked`, the package
    functions that would compute an answer. Found without importing the package.
    """
    import ast
    import importlib.util

    import nbformat

    from .checker import answer_names
    from .notebooks import nbgrader_meta

    spec = importlib.util.find_spec(settings.package)
    if spec is None or not spec.submodule_search_locations:
        raise CourseError(f"the course package {settings.package!r} is not installed")
    defined = set()
    for folder in spec.submodule_search_locations:
        for directory, _, names in os.walk(folder):
            for name in names:
                if name.endswith(".py"):
                    with open(os.path.join(directory, name), encoding="utf-8") as handle:
                        tree = ast.parse(handle.read())
                    defined |= {node.name for node in tree.body
                                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    answers = set()
    for path in notebooks.values():
        nb = nbformat.read(path, as_version=4)
        answers |= answer_names([c.source for c in nb.cells
                                 if c.cell_type == "code" and nbgrader_meta(c).get("solution")])
    unknown = sorted(set(settings.also_blocked) - defined)
    if unknown:
        raise CourseError(f"c.SandboxGrader.also_blocked names {', '.join(unknown)}, which "
                          f"{settings.package} does not define")
    return tuple(sorted((answers & defined) | set(settings.also_blocked)))
